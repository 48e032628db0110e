//! Blocking connections (`ServerConfig::blocking_connections`): while a server has a few
//! connections, each on a thread of its own, over real sockets; a crowd goes back to the
//! runtimes. What they must keep of the lean loop on the runtimes: deadlines (also against a
//! client that trickles a byte per tick), eviction, the drain and its deadline, the hand-over
//! to hyper, and services that await.
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
fn a_few_connections_get_threads_of_their_own() {
    let srv = TestServer::start_exact(blocking(2));
    let mut conns: Vec<_> = (0..2).map(|_| srv.connect()).collect();
    for _ in 0..3 {
        for s in &mut conns {
            echo_float(s);
        }
    }
    assert_eq!(srv.metric("soapstone_blocking_connections_open"), 2);
    assert_eq!(srv.metric("soapstone_blocking_connections_total"), 2);
    assert_eq!(
        srv.metric("soapstone_blocking_connections_handed_back_total"),
        0
    );
    // A closed blocking connection frees its place for the next connection.
    drop(conns.remove(0));
    wait_until(&srv, "soapstone_blocking_connections_open", 1);
    let mut next = srv.connect();
    echo_float(&mut next);
    assert_eq!(srv.metric("soapstone_blocking_connections_open"), 2);
    assert_eq!(srv.metric("soapstone_blocking_connections_total"), 3);
    echo_float(&mut conns[0]);
}

#[test]
fn a_crowd_goes_back_to_the_runtimes_between_requests() {
    let mut cfg = blocking(2);
    // A connection handed back waits for its next head as a keep-alive one (10 s), not as a
    // new one (300 ms).
    cfg.header_read_timeout = Duration::from_millis(300);
    cfg.idle_timeout = Duration::from_secs(10);
    let srv = TestServer::start_exact(cfg);
    let mut a = srv.connect();
    echo_float(&mut a);
    let mut b = srv.connect();
    echo_float(&mut b);
    // The threads are taken: the third goes to the runtime, and the two blocking ones follow
    // it there at their next tick (they are idle).
    let mut c = srv.connect();
    echo_float(&mut c);
    srv.wait_metric("soapstone_blocking_connections_handed_back_total", 2);
    wait_until(&srv, "soapstone_blocking_connections_open", 0);
    std::thread::sleep(Duration::from_millis(800));
    for s in [&mut a, &mut b, &mut c] {
        echo_float(s);
    }
    // While a connection is on the runtimes, new ones go there too.
    let mut d = srv.connect();
    echo_float(&mut d);
    assert_eq!(srv.metric("soapstone_blocking_connections_total"), 2);
    assert_eq!(srv.metric("soapstone_connections_total"), 4);
    assert_eq!(srv.metric("soapstone_connections_open"), 4);
    // Once the crowd is gone, a new connection has a thread again.
    drop((a, b, c, d));
    wait_until(&srv, "soapstone_connections_open", 0);
    let mut e = srv.connect();
    echo_float(&mut e);
    assert_eq!(srv.metric("soapstone_blocking_connections_open"), 1);
    assert_eq!(srv.metric("soapstone_blocking_connections_total"), 3);
}

/// Waits (up to 10 s) until the metric `name` is `value`.
fn wait_until(srv: &TestServer, name: &str, value: u64) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while srv.metric(name) != value {
        assert!(
            Instant::now() < deadline,
            "{name} stayed at {}",
            srv.metric(name)
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn a_service_that_awaits_is_answered_on_a_blocking_connection() {
    let srv = TestServer::start_exact(blocking(1));
    let mut s = srv.connect();
    send(&mut s, &post(&envelope("block"), ""));
    srv.wait_blocked();
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
fn the_idle_wait_starts_when_an_answer_a_slow_client_takes_is_out() {
    let mut cfg = blocking(1);
    cfg.idle_timeout = Duration::from_millis(400);
    let srv = TestServer::start_exact(cfg);
    let mut s = srv.connect();
    send(&mut s, &post(&envelope("huge"), ""));
    // The server is in its write of 16 MB for all of this, past the idle timeout...
    std::thread::sleep(Duration::from_millis(800));
    let resp = read_response(&mut s).unwrap();
    assert_eq!(resp.status, 200);
    // ...which counts from when the answer was out, not from when it was ready.
    std::thread::sleep(Duration::from_millis(150));
    echo_float(&mut s);
}

#[test]
fn an_unusual_request_goes_to_hyper_with_what_was_read() {
    let srv = TestServer::start_exact(blocking(1));
    let mut s = srv.connect();
    echo_float(&mut s);
    let chunked = chunked_echo_float();
    send(&mut s, chunked.as_bytes());
    let r = read_response(&mut s).unwrap();
    assert!(
        r.text().contains("<result>3.14159</result>"),
        "{}",
        r.text()
    );
    // hyper serves the rest of the connection on the runtime, so the next connection goes
    // there too (the server is no longer "a few blocking connections")
    echo_float(&mut s);
    let mut other = srv.connect();
    echo_float(&mut other);
    assert_eq!(srv.metric("soapstone_blocking_connections_total"), 1);
    assert_eq!(srv.metric("soapstone_connections_total"), 2);
    assert_eq!(srv.metric("soapstone_connections_open"), 2);
    // and once both are gone, the thread is free for another
    drop((s, other));
    wait_until(&srv, "soapstone_connections_open", 0);
    let mut last = srv.connect();
    echo_float(&mut last);
    assert_eq!(srv.metric("soapstone_blocking_connections_total"), 2);
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
    srv.wait_blocked();
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
    srv.wait_blocked();
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

#[test]
fn a_blocking_connection_busy_polls_between_requests_when_asked() {
    let mut cfg = blocking(1);
    cfg.busy_poll = Duration::from_millis(1);
    let srv = TestServer::start_exact(cfg);
    let mut s = srv.connect();
    for _ in 0..20 {
        echo_float(&mut s);
    }
    // A pause longer than the budget: that poll expires, and the next request still comes in.
    std::thread::sleep(Duration::from_millis(20));
    echo_float(&mut s);
    assert_eq!(srv.metric("soapstone_blocking_connections_total"), 1);
    let text = srv.server.metrics_text();
    let polls = |outcome: &str| -> u64 {
        let name = format!("soapstone_busy_polls_total{{outcome=\"{outcome}\"}} ");
        text.lines()
            .find_map(|l| l.strip_prefix(name.as_str())?.parse().ok())
            .unwrap_or(0)
    };
    // One poll after every answer (the first request is awaited, not polled); the one after
    // the last answer may not have ended yet.
    let all = polls("caught") + polls("expired");
    assert!((20..=21).contains(&all), "{all} polls: {text}");
    assert!(polls("expired") >= 1, "{text}");
}
