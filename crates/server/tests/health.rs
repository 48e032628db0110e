//! `/healthz` and `/readyz` as raw bytes over a real TcpStream: liveness, readiness following
//! its probe, and the drain: on shutdown readiness turns `503 draining` at once while SOAP
//! requests are still answered for `drain_grace`, and only then does the listener close.

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::*;
use soapstone_server::{Server, ServerConfig};

fn get(path: &str) -> Vec<u8> {
    format!("GET {path} HTTP/1.1\r\nHost: localhost\r\n\r\n").into_bytes()
}

#[test]
fn liveness_and_readiness_answer_get_only() {
    let server = TestServer::start(ServerConfig::default());
    let mut s = server.connect();
    send(&mut s, &get("/healthz"));
    let r = read_response(&mut s).unwrap();
    assert_eq!((r.status, r.text().as_str()), (200, "ok\n"));
    assert_eq!(r.header("cache-control"), Some("no-store"));
    send(&mut s, &get("/readyz"));
    let r = read_response(&mut s).unwrap();
    assert_eq!((r.status, r.text().as_str()), (200, "ready\n"));
    send(
        &mut s,
        b"POST /readyz HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\n\r\n",
    );
    let r = read_response(&mut s).unwrap();
    assert_eq!(r.status, 405);
    assert_eq!(r.header("allow"), Some("GET, HEAD"));

    // Turned off: the paths are unknown.
    let mut config = ServerConfig::default();
    config.health_path = None;
    config.ready_path = None;
    let off = TestServer::start(config);
    let mut s = off.connect();
    send(&mut s, &get("/readyz"));
    assert_eq!(read_response(&mut s).unwrap().status, 404);
}

/// A server with a readiness probe that says what `up` says (or hangs when `hang` is set).
fn probed(
    config: ServerConfig,
    up: Arc<AtomicBool>,
    hang: Arc<AtomicBool>,
) -> (
    std::net::SocketAddr,
    Server,
    tokio::sync::oneshot::Sender<()>,
    std::sync::mpsc::Receiver<std::io::Result<()>>,
) {
    let gate = Arc::new(Gate::default());
    let server = Server::builder()
        .mount("/echo", Arc::new(TestService { gate }))
        .config(config)
        .readiness_probe(move || {
            let (up, hang) = (up.load(Ordering::SeqCst), hang.load(Ordering::SeqCst));
            async move {
                if hang {
                    std::future::pending::<()>().await;
                }
                if up {
                    Ok(())
                } else {
                    Err("store unreachable: connection refused".to_owned())
                }
            }
        })
        .build();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let serving = server
        .clone()
        .serve_with_shutdown(listener, async {
            let _ = rx.await;
        })
        .unwrap();
    let addr = serving.local_addr();
    let (done_tx, done_rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let _ = done_tx.send(rt.block_on(std::future::IntoFuture::into_future(serving)));
    });
    (addr, server, tx, done_rx)
}

fn connect(addr: std::net::SocketAddr) -> std::net::TcpStream {
    let s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s
}

#[test]
fn readiness_follows_the_probe_and_bounds_it() {
    let up = Arc::new(AtomicBool::new(true));
    let hang = Arc::new(AtomicBool::new(false));
    let mut config = ServerConfig::default();
    config.ready_probe_timeout = Duration::from_millis(200);
    let (addr, _server, _stop, _done) = probed(config, up.clone(), hang.clone());
    let mut s = connect(addr);
    send(&mut s, &get("/readyz"));
    assert_eq!(read_response(&mut s).unwrap().status, 200);
    up.store(false, Ordering::SeqCst);
    send(&mut s, &get("/readyz"));
    let r = read_response(&mut s).unwrap();
    assert_eq!(
        (r.status, r.text().as_str()),
        (503, "not ready: store unreachable: connection refused\n")
    );
    // Liveness does not depend on the store.
    send(&mut s, &get("/healthz"));
    assert_eq!(read_response(&mut s).unwrap().status, 200);
    hang.store(true, Ordering::SeqCst);
    send(&mut s, &get("/readyz"));
    let r = read_response(&mut s).unwrap();
    assert_eq!(
        (r.status, r.text().as_str()),
        (503, "not ready: the readiness probe took more than 200ms\n")
    );
    hang.store(false, Ordering::SeqCst);
    up.store(true, Ordering::SeqCst);
    send(&mut s, &get("/readyz"));
    assert_eq!(read_response(&mut s).unwrap().status, 200, "recovers");
}

#[test]
fn on_shutdown_readiness_turns_false_for_the_grace_while_requests_are_served() {
    let mut config = ServerConfig::default();
    // Long enough that the calls below land in the grace on a loaded machine.
    config.drain_grace = Duration::from_secs(10);
    let up = Arc::new(AtomicBool::new(true));
    let (addr, _server, stop, done) = probed(config, up, Arc::default());
    let mut s = connect(addr);
    send(&mut s, &get("/readyz"));
    assert_eq!(read_response(&mut s).unwrap().status, 200);
    let asked = Instant::now();
    stop.send(()).unwrap();
    // Readiness turns at once (poll: the shutdown future runs on the server's thread).
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        send(&mut s, &get("/readyz"));
        let r = read_response(&mut s).unwrap();
        if r.status == 503 {
            assert_eq!(r.text(), "draining\n");
            break;
        }
        assert!(Instant::now() < deadline, "readiness never turned");
        std::thread::sleep(Duration::from_millis(10));
    }
    // Still served during the grace, on the open connection and on a new one.
    send(&mut s, &post(ECHO_FLOAT, ""));
    assert_eq!(read_response(&mut s).unwrap().status, 200);
    let mut fresh = connect(addr);
    send(&mut fresh, &post(ECHO_FLOAT, ""));
    assert_eq!(read_response(&mut fresh).unwrap().status, 200);
    // Then the server stops, not before the grace.
    done.recv_timeout(Duration::from_secs(30))
        .expect("stops")
        .unwrap();
    assert!(
        asked.elapsed() >= Duration::from_secs(10),
        "stopped after {:?}, before the grace",
        asked.elapsed()
    );
    assert!(
        std::net::TcpStream::connect(addr).is_err(),
        "listener closed"
    );
}
