//! PeerServer's tests: real processes (python3 scripts) on real ports.

use super::*;

fn launcher(dir: &std::path::Path) -> Launcher {
    Launcher {
        exe: PathBuf::from("/bin/false"),
        taskset: crate::procs::find_taskset(),
        log_dir: dir.to_owned(),
        wrap: Vec::new(),
    }
}

fn peer(transport: &str, script: &str) -> ManifestPeer {
    serde_json::from_value(serde_json::json!({
        "id": "fake", "status": "ready", "transport": transport,
        "command": ["python3", "-c", script, "{port}"]
    }))
    .unwrap()
}

#[tokio::test]
async fn a_peer_listening_on_its_port_is_found_and_stopped() {
    let dir = tempfile::tempdir().unwrap();
    let script = "import socket,sys,time\n\
                  s=socket.socket(); s.bind(('127.0.0.1', int(sys.argv[1]))); s.listen()\n\
                  print('listening on', sys.argv[1], flush=True)\n\
                  time.sleep(60)";
    let server = PeerServer::start(
        &launcher(dir.path()),
        &peer("corba", script),
        Some("0"),
        Duration::from_secs(30),
    )
    .await
    .unwrap();
    assert!(
        server.command.contains(&server.port.to_string()),
        "{}",
        server.command
    );
    tokio::net::TcpStream::connect(server.addr()).await.unwrap();
    server.stop().await.unwrap();
}

#[tokio::test]
async fn a_peer_gets_its_address_and_a_fresh_store_each_start() {
    let dir = tempfile::tempdir().unwrap();
    // Appends to its store, and binds the address it is given.
    let script = "import socket,sys,time\n\
                  open(sys.argv[3],'a').write('x')\n\
                  s=socket.socket(); s.bind((sys.argv[2], int(sys.argv[1]))); s.listen()\n\
                  print('store', sys.argv[3], flush=True)\n\
                  time.sleep(60)";
    let p: ManifestPeer = serde_json::from_value(serde_json::json!({
        "id": "orb", "status": "ready", "transport": "soap-http",
        "command": ["python3", "-c", script, "{port}", "{host}", "{db}"]
    }))
    .unwrap();
    let launcher = launcher(dir.path());
    for _ in 0..2 {
        let server = PeerServer::start(&launcher, &p, None, Duration::from_secs(30))
            .await
            .unwrap();
        assert_eq!(server.host, "127.0.0.1");
        assert_eq!(
            fill("corbaloc::{host}:{port}/charging", &server),
            format!("corbaloc::127.0.0.1:{}/charging", server.port)
        );
        let db = dir.path().join("peer-orb-charging-0.sqlite");
        assert!(
            server.command.contains(&db.display().to_string()),
            "{}",
            server.command
        );
        // The second start does not see the first one's store.
        assert_eq!(std::fs::read_to_string(&db).unwrap(), "x");
        server.stop().await.unwrap();
    }
}

#[tokio::test]
async fn a_soap_peer_with_a_banner_is_ready_only_once_it_printed_it() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("deployed");
    // The port opens first; the service is "deployed" (the marker) a second later, and only
    // then announced, as CXF's Jetty does.
    let script = format!(
        "import socket,sys,time\n\
         s=socket.socket(); s.bind(('127.0.0.1', int(sys.argv[1]))); s.listen()\n\
         time.sleep(1)\n\
         open({marker:?},'w').close()\n\
         print('listening on', sys.argv[1], flush=True)\n\
         time.sleep(60)"
    );
    let mut p = peer("soap-http", &script);
    p.banner = true;
    let server = PeerServer::start(&launcher(dir.path()), &p, None, Duration::from_secs(30))
        .await
        .unwrap();
    assert!(marker.exists(), "ready before the banner");
    server.stop().await.unwrap();
}

#[tokio::test]
async fn a_port_taken_before_the_peer_binds_it_is_retried() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("first-try-done");
    // The first start fails as a bind to a taken port does; the second listens.
    let script = format!(
        "import os,socket,sys,time\n\
         m={marker:?}\n\
         if not os.path.exists(m):\n    open(m,'w').close()\n    \
         sys.exit('OSError: [Errno 98] Address already in use')\n\
         s=socket.socket(); s.bind(('127.0.0.1', int(sys.argv[1]))); s.listen()\n\
         time.sleep(60)"
    );
    let server = PeerServer::start(
        &launcher(dir.path()),
        &peer("soap-http", &script),
        None,
        Duration::from_secs(30),
    )
    .await
    .unwrap();
    assert!(marker.exists());
    tokio::net::TcpStream::connect(server.addr()).await.unwrap();
    server.stop().await.unwrap();
}

#[tokio::test]
async fn a_peer_that_dies_is_reported_with_its_log() {
    let dir = tempfile::tempdir().unwrap();
    let script = "import sys; print('no php-soap here', file=sys.stderr); sys.exit(3)";
    let err = PeerServer::start(
        &launcher(dir.path()),
        &peer("soap-http", script),
        None,
        Duration::from_secs(30),
    )
    .await
    .unwrap_err()
    .to_string();
    assert!(err.contains("exited"), "{err}");
    assert!(err.contains("no php-soap here"), "{err}");
}

/// A listener of this test's own on `port`, accepting: the process that took a peer's port.
async fn take_port() -> u16 {
    let other = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = other.local_addr().unwrap().port();
    tokio::spawn(async move { while other.accept().await.is_ok() {} });
    port
}

/// The peer binds a second after it starts (as a JVM does), so the lab finds its port open
/// before the peer fails to bind it.
const SLOW_PEER: &str = "import socket,sys,time\n\
                         time.sleep(1)\n\
                         s=socket.socket(); s.bind(('127.0.0.1', int(sys.argv[1]))); s.listen()\n\
                         time.sleep(60)";

// Who holds a port is read from Linux's /proc.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn a_port_another_process_took_is_not_mistaken_for_the_peer() {
    let dir = tempfile::tempdir().unwrap();
    let taken = take_port().await;
    let mut first = Some(taken);
    let mut ports = move || first.take().map_or_else(free_port, Ok);
    let server = PeerServer::start_from(
        &launcher(dir.path()),
        &peer("soap-http", SLOW_PEER),
        None,
        Duration::from_secs(30),
        None,
        &mut ports,
    )
    .await
    .unwrap();
    assert_ne!(server.port, taken, "ready on the other process's port");
    let pid = server.child.id().unwrap();
    assert_eq!(listener_owner(pid, server.port), Owner::Tree);
    server.stop().await.unwrap();
}

// Who holds a port is read from Linux's /proc.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn a_peer_that_loses_every_port_is_an_error_naming_them() {
    let dir = tempfile::tempdir().unwrap();
    let taken = take_port().await;
    let err = PeerServer::start_from(
        &launcher(dir.path()),
        &peer("soap-http", SLOW_PEER),
        None,
        Duration::from_secs(30),
        None,
        &mut || Ok(taken),
    )
    .await
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("lost its port to another process 3 times"),
        "{err}"
    );
    let why = format!("port {taken} answered from process {}", std::process::id());
    assert!(err.contains(&why), "{err}");
}
