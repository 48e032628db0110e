//! `ServerConfig::reuse_port`: per-core runtimes each accept from a `SO_REUSEPORT` socket of
//! their own (counted as listening sockets on the port in `/proc/net/tcp`, where dup'ed
//! descriptors of one socket count once), serve raw HTTP over real connections, and drain.
#![cfg(target_os = "linux")]

mod common;

use std::time::Duration;

use common::*;
use soapstone_server::{Runtime, ServerConfig};

/// Listening TCP sockets on `port` (IPv4), from the kernel's own table.
fn listening_sockets(port: u16) -> usize {
    let table = std::fs::read_to_string("/proc/net/tcp").unwrap();
    let local = format!(":{port:04X}");
    table
        .lines()
        .skip(1)
        .filter(|line| {
            let mut f = line.split_whitespace();
            let (addr, state) = (f.nth(1), f.nth(1));
            addr.is_some_and(|a| a.ends_with(&local)) && state == Some("0A")
        })
        .count()
}

fn serve(reuse_port: bool) -> (TestServer, usize) {
    let mut cfg = ServerConfig::default();
    cfg.runtime = Runtime::PerCore(2);
    cfg.reuse_port = reuse_port;
    let srv = TestServer::start(cfg);
    // the runtime threads set their sockets up when the serve future first runs: wait for the
    // first answer, then count
    let mut s = srv.connect();
    send(&mut s, &post(ECHO_FLOAT, ""));
    assert_eq!(read_response(&mut s).unwrap().status, 200);
    let n = listening_sockets(srv.addr.port());
    (srv, n)
}

#[test]
fn per_core_threads_share_one_socket_by_default() {
    let (_srv, n) = serve(false);
    assert_eq!(n, 1);
}

#[test]
fn reuse_port_gives_each_thread_a_socket_that_serves_and_drains() {
    let (mut srv, n) = serve(true);
    assert_eq!(n, 2, "one SO_REUSEPORT socket per runtime thread");
    // 16 connections: spread over both sockets by the kernel's hash (all on one would be a
    // 1 in 32,768 chance), each answered, then closed by the drain.
    let mut conns: Vec<_> = (0..16).map(|_| srv.connect()).collect();
    for s in conns.iter_mut() {
        send(s, &post(ECHO_FLOAT, ""));
    }
    for s in conns.iter_mut() {
        let r = read_response(s).unwrap();
        assert_eq!(r.status, 200);
        assert!(
            r.text().contains("<result>3.14159</result>"),
            "{}",
            r.text()
        );
    }
    srv.begin_shutdown();
    srv.wait(Duration::from_secs(10)).unwrap();
    for s in conns.iter_mut() {
        assert!(closed_by_server(s));
    }
    assert_eq!(listening_sockets(srv.addr.port()), 0);
}
