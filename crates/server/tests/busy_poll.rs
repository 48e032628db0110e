//! `ServerConfig::busy_poll`: a connection alone on its runtime looks for its next request
//! before parking (`crate::poll`), and says how each look ended on `/metrics`
//! (`soapstone_busy_polls_total{outcome="caught"|"expired"}`); a connection that shares its
//! runtime never polls; polling changes no answer and no timeout.

mod common;

use std::io::Read as _;
use std::time::{Duration, Instant};

use common::*;
use soapstone_server::{HttpEngine, Runtime, ServerConfig};

const CAUGHT: &str = "soapstone_busy_polls_total{outcome=\"caught\"}";
const EXPIRED: &str = "soapstone_busy_polls_total{outcome=\"expired\"}";

/// A one-thread lean server polling for up to `budget`.
fn polling(budget: Duration) -> TestServer {
    let mut cfg = ServerConfig::default();
    cfg.runtime = Runtime::CurrentThread;
    cfg.http = HttpEngine::Lean;
    cfg.busy_poll = budget;
    TestServer::start_exact(cfg)
}

/// Looks a labelled counter up in the metrics text; `None` when it is not there.
fn counter(srv: &TestServer, name: &str) -> Option<u64> {
    let text = srv.server.metrics_text();
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
}

#[test]
fn a_lone_connection_catches_its_next_request_while_polling() {
    let srv = polling(Duration::from_millis(1));
    let mut s = srv.connect();
    for _ in 0..200 {
        echo_float(&mut s);
    }
    // One poll after each answer (the last one may still be looking): each request after
    // the first is sent as soon as the answer is read, so with a whole millisecond to look
    // the polls see them (all, on an idle machine).
    let caught = counter(&srv, CAUGHT).unwrap_or(0);
    let expired = counter(&srv, EXPIRED).unwrap_or(0);
    assert!(
        (199..=200).contains(&(caught + expired)),
        "caught {caught}, expired {expired}"
    );
    assert!(caught >= 100, "caught {caught}, expired {expired}");
}

#[test]
fn a_caught_request_is_read_whole_in_pieces_and_past_one_read() {
    let srv = polling(Duration::from_millis(1));
    let mut s = srv.connect();
    s.set_nodelay(true).unwrap();
    echo_float(&mut s);
    // A poll that catches a request reads it straight from the socket: a head cut in two
    // (the rest comes after that read) and a body larger than one such read (8 KiB) must
    // still make one whole request each.
    let pad = format!("<soap:Body>{}", " ".repeat(20_000));
    let big = post(&ECHO_FLOAT.replacen("<soap:Body>", &pad, 1), "");
    let small = post(ECHO_FLOAT, "");
    for _ in 0..20 {
        send(&mut s, &small[..20]);
        std::thread::sleep(Duration::from_millis(5));
        send(&mut s, &small[20..]);
        let r = read_response(&mut s).unwrap();
        assert!(
            r.text().contains("<result>3.14159</result>"),
            "{}",
            r.text()
        );
        send(&mut s, &big);
        let r = read_response(&mut s).unwrap();
        assert!(
            r.text().contains("<result>3.14159</result>"),
            "{}",
            r.text()
        );
    }
    // Each request is sent as soon as the answer before it is read: with a whole millisecond
    // to look, polls catch most of them (all, on an idle machine).
    let caught = counter(&srv, CAUGHT).unwrap_or(0);
    assert!(caught >= 10, "caught {caught} of 40");
}

#[test]
fn a_client_that_never_pauses_leaves_room_for_another_connection() {
    let srv = polling(Duration::from_millis(1));
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let busy = {
        let stop = stop.clone();
        let mut s = srv.connect();
        s.set_nodelay(true).unwrap();
        std::thread::spawn(move || {
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                echo_float(&mut s);
            }
        })
    };
    // The busy connection's requests are all caught and read straight from the socket;
    // the accept loop on the same thread must still get its turn.
    std::thread::sleep(Duration::from_millis(200));
    let started = Instant::now();
    let mut other = srv.connect();
    echo_float(&mut other);
    let took = started.elapsed();
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    busy.join().unwrap();
    // Starved, it would wait for as long as the busy client kept going (a liveness bound,
    // not a speed one).
    assert!(
        took < Duration::from_secs(10),
        "the second connection waited {took:?}"
    );
}

#[test]
fn a_connection_sharing_its_runtime_never_polls() {
    let srv = polling(Duration::from_millis(1));
    // Both are accepted (in order) before the second is answered, so neither is ever alone
    // after an answer.
    let (mut a, mut b) = (srv.connect(), srv.connect());
    echo_float(&mut b);
    for _ in 0..50 {
        echo_float(&mut a);
        echo_float(&mut b);
    }
    assert_eq!(counter(&srv, CAUGHT), None, "{}", srv.server.metrics_text());
    // Alone again once the other has gone: it polls.
    drop(b);
    srv.wait_metric_at_most("soapstone_connections_open", 1);
    for _ in 0..20 {
        echo_float(&mut a);
    }
    let polls = counter(&srv, CAUGHT).unwrap_or(0) + counter(&srv, EXPIRED).unwrap_or(0);
    assert!((19..=20).contains(&polls), "{polls} polls");
}

#[test]
fn off_by_default() {
    let mut cfg = ServerConfig::default();
    cfg.runtime = Runtime::CurrentThread;
    let srv = TestServer::start_exact(cfg);
    let mut s = srv.connect();
    for _ in 0..20 {
        echo_float(&mut s);
    }
    assert_eq!(counter(&srv, CAUGHT), None);
    assert_eq!(counter(&srv, EXPIRED), None);
}

#[test]
fn a_polling_connection_still_closes_when_idle_and_when_the_server_stops() {
    let mut cfg = ServerConfig::default();
    cfg.runtime = Runtime::CurrentThread;
    cfg.http = HttpEngine::Lean;
    cfg.busy_poll = Duration::from_millis(1);
    cfg.idle_timeout = Duration::from_millis(300);
    let mut srv = TestServer::start_exact(cfg);
    let mut s = srv.connect();
    echo_float(&mut s);
    let asked = Instant::now();
    let mut rest = Vec::new();
    assert_eq!(s.read_to_end(&mut rest).unwrap(), 0, "closed without bytes");
    let waited = asked.elapsed();
    assert!(
        waited >= Duration::from_millis(250),
        "closed after {waited:?}"
    );
    // The poll ran out (nothing came) and the connection parked for its idle timeout.
    assert!(counter(&srv, EXPIRED).is_some_and(|n| n >= 1));

    let mut t = srv.connect();
    echo_float(&mut t);
    srv.begin_shutdown();
    srv.wait(Duration::from_secs(30)).unwrap();
    assert!(closed_by_server(&mut t));
}
