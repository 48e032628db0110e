//! Blocking connections (`ServerConfig::blocking_connections`): the first few connections each
//! on a thread of its own, over real sockets. What they must keep of the lean loop on the
//! runtimes: deadlines (also against a client that trickles a byte per tick), eviction, the
//! drain and its deadline, the hand-over to hyper, and services that await.
//! (`SOAPSTONE_TEST_BLOCKING=N` runs the rest of the suite with N blocking connections.)

mod common;

use std::io::Write as _;
use std::time::{Duration, Instant};

use common::*;
use soapstone_server::{HttpEngine, Runtime, ServerConfig, BLOCKING_TICK};

fn blocking(n: usize) -> ServerConfig {
    let mut cfg = ServerConfig::default();
    cfg.blocking_connections = n;
    cfg.http = HttpEngine::Lean;
    cfg.runtime = Runtime::PerCore(1);
    cfg
}

#[test]
fn the_first_connections_get_threads_of_their_own_and_the_rest_the_runtimes() {
    let srv = TestServer::start_exact(blocking(2));
    let mut conns: Vec<_> = (0..3).map(|_| srv.connect()).collect();
    for _ in 0..3 {
        for s in &mut conns {
            echo_float(s);
        }
    }
    assert_eq!(srv.metric("soapstone_blocking_connections_open"), 2);
    assert_eq!(srv.metric("soapstone_blocking_connections_total"), 2);
    assert_eq!(srv.metric("soapstone_connections_open"), 3);
    // A closed blocking connection frees its place for the next connection.
    drop(conns.remove(0));
    let deadline = Instant::now() + Duration::from_secs(10);
    while srv.metric("soapstone_blocking_connections_open") != 1 {
        assert!(
            Instant::now() < deadline,
            "the closed connection kept its thread"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    let mut next = srv.connect();
    echo_float(&mut next);
    assert_eq!(srv.metric("soapstone_blocking_connections_open"), 2);
    assert_eq!(srv.metric("soapstone_blocking_connections_total"), 3);
    for s in &mut conns {
        echo_float(s);
    }
}

#[test]
fn a_service_that_awaits_is_answered_on_a_blocking_connection() {
    let srv = TestServer::start_exact(blocking(1));
    let mut s = srv.connect();
    send(&mut s, &post(&envelope("block"), ""));
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async { srv.gate.entered.acquire().await.unwrap().forget() });
    srv.gate.release.add_permits(1);
    assert_eq!(read_response(&mut s).unwrap().status, 200);
    // and one that awaits a timer of the runtime's
    send(&mut s, &post(&envelope("slow"), ""));
    assert_eq!(read_response(&mut s).unwrap().status, 200);
    echo_float(&mut s);
    assert_eq!(srv.metric("soapstone_blocking_connections_total"), 1);
}

#[test]
fn a_head_trickled_faster_than_the_tick_is_still_cut_at_its_deadline() {
    let mut cfg = blocking(1);
    cfg.header_read_timeout = Duration::from_millis(300);
    let srv = TestServer::start_exact(cfg);
    let mut s = srv.connect();
    let t = Instant::now();
    let mut cut = false;
    // A byte every fifth of a tick for 10 s: every blocking read returns before the tick.
    for b in format!("POST /echo HTTP/1.1\r\nX-Slow: {}", "a".repeat(1000)).bytes() {
        if s.write_all(&[b]).is_err() {
            cut = true;
            break;
        }
        std::thread::sleep(BLOCKING_TICK / 5);
    }
    assert!(cut || closed_by_server(&mut s), "slow head not cut off");
    // cut by the header timeout (300 ms), long before the trickle's end
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
    assert_eq!(srv.metric("soapstone_blocking_connections_total"), 1);

    // an idle connection is closed after the header timeout too, within a tick or so
    let mut s = srv.connect();
    let t = Instant::now();
    assert!(closed_by_server(&mut s));
    let waited = t.elapsed();
    assert!(
        waited >= Duration::from_millis(250) && waited < Duration::from_secs(5),
        "{waited:?}"
    );
}

#[test]
fn an_unusual_request_goes_to_hyper_with_what_was_read() {
    let srv = TestServer::start_exact(blocking(1));
    let mut s = srv.connect();
    echo_float(&mut s);
    let (a, b) = ECHO_FLOAT.split_at(100);
    let chunked = format!(
        "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml\r\nTransfer-Encoding: chunked\r\n\r\n{:x}\r\n{a}\r\n{:x}\r\n{b}\r\n0\r\n\r\n",
        a.len(),
        b.len()
    );
    send(&mut s, chunked.as_bytes());
    let r = read_response(&mut s).unwrap();
    assert!(
        r.text().contains("<result>3.14159</result>"),
        "{}",
        r.text()
    );
    // hyper serves the rest of the connection, and the thread is free for another
    echo_float(&mut s);
    let mut other = srv.connect();
    echo_float(&mut other);
    assert_eq!(srv.metric("soapstone_blocking_connections_total"), 2);
    assert_eq!(srv.metric("soapstone_connections_total"), 2);
    assert_eq!(srv.metric("soapstone_connections_open"), 2);
}

#[test]
fn an_idle_blocking_connection_is_evicted_for_a_new_one() {
    let mut cfg = blocking(2);
    cfg.max_connections = 2;
    let srv = TestServer::start_exact(cfg);
    let mut first = srv.connect();
    echo_float(&mut first);
    let mut second = srv.connect();
    echo_float(&mut second);
    std::thread::sleep(Duration::from_millis(20));
    echo_float(&mut second);
    // The table is full: the third connection evicts the one idle longest, `first`.
    let mut third = srv.connect();
    echo_float(&mut third);
    assert!(closed_by_server(&mut first), "evicted connection left open");
    assert_eq!(srv.metric("soapstone_connections_evicted_total"), 1);
    echo_float(&mut second);
}

#[test]
fn the_drain_waits_for_a_blocking_request_and_its_deadline_ends_one_that_never_ends() {
    // Waits: the request in flight is answered, then its connection closes.
    let mut srv = TestServer::start_exact(blocking(2));
    let mut busy = srv.connect();
    send(&mut busy, &post(&envelope("block"), ""));
    let mut idle = srv.connect();
    echo_float(&mut idle);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async { srv.gate.entered.acquire().await.unwrap().forget() });
    srv.begin_shutdown();
    assert!(closed_by_server(&mut idle));
    srv.gate.release.add_permits(1);
    assert_eq!(read_response(&mut busy).unwrap().status, 200);
    assert!(closed_by_server(&mut busy));
    srv.wait(Duration::from_secs(30)).unwrap();

    // Its deadline: the call that never ends is dropped, and so is its connection.
    let mut cfg = blocking(1);
    cfg.drain_timeout = Duration::from_millis(200);
    let mut srv = TestServer::start_exact(cfg);
    let mut busy = srv.connect();
    send(&mut busy, &post(&envelope("block"), ""));
    rt.block_on(async { srv.gate.entered.acquire().await.unwrap().forget() });
    srv.begin_shutdown();
    srv.wait(Duration::from_secs(30)).unwrap();
    assert!(closed_by_server(&mut busy), "connection left open");
}

#[test]
fn connections_on_the_hyper_engine_never_block() {
    let mut cfg = blocking(2);
    cfg.http = HttpEngine::Hyper;
    let srv = TestServer::start_exact(cfg);
    let mut s = srv.connect();
    echo_float(&mut s);
    let text = srv.server.metrics_text();
    assert!(!text.contains("soapstone_blocking_connections"), "{text}");
}
