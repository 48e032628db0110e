//! `Server::serve` stops on SIGTERM after draining. Its own test binary: the signal goes to
//! this whole process, so nothing else may run here.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::*;
use soapstone_server::Server;

#[test]
fn sigterm_drains_the_request_in_flight_and_returns() {
    // `serve` binds the port itself, by number. A socket bound with `SO_REUSEADDR` that never
    // listens holds it until then: Linux gives it to no other bind to port 0 and to no
    // outgoing connection, while `serve`'s listener (tokio sets `SO_REUSEADDR`) can still bind
    // it (docs/architecture.md, "Tests that start servers in other processes").
    let held = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
    held.set_reuse_address(true).unwrap();
    held.bind(&std::net::SocketAddr::from(([127, 0, 0, 1], 0)).into())
        .unwrap();
    let port = held.local_addr().unwrap().as_socket().unwrap().port();
    let gate = Arc::new(Gate::default());
    let server = Server::builder().mount("/echo", Arc::new(TestService { gate: gate.clone() }));
    let (done_tx, done_rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let _ = done_tx.send(rt.block_on(server.serve(("127.0.0.1", port))));
    });
    // Once a request is answered, serve() has installed its signal handlers. (It binds the
    // port itself: if it cannot, say why instead of waiting for ever.)
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let mut s = loop {
        match std::net::TcpStream::connect(("127.0.0.1", port)) {
            Ok(s) => break s,
            Err(e) => {
                if let Ok(served) = done_rx.try_recv() {
                    panic!("serve() on port {port} returned before listening: {served:?}");
                }
                assert!(
                    std::time::Instant::now() < deadline,
                    "serve() not listening on port {port} after 30 s: {e}"
                );
                std::thread::sleep(Duration::from_millis(20));
            }
        }
    };
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    send(&mut s, &post(ECHO_FLOAT, ""));
    assert_eq!(read_response(&mut s).unwrap().status, 200);
    send(&mut s, &post(&envelope("block"), ""));
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async { gate.entered.acquire().await.unwrap().forget() });

    let kill = std::process::Command::new("kill")
        .args(["-TERM", &std::process::id().to_string()])
        .status()
        .expect("the `kill` command (procps/coreutils) is needed by this test");
    assert!(kill.success());
    std::thread::sleep(Duration::from_millis(100));
    assert!(
        done_rx.try_recv().is_err(),
        "serve() returned with a request in flight"
    );
    gate.release.add_permits(1);
    assert_eq!(read_response(&mut s).unwrap().status, 200);
    done_rx
        .recv_timeout(Duration::from_secs(30))
        .expect("serve() returns after the drain")
        .unwrap();
}
