//! `ServerConfig::cpu_slice`: a server runtime thread that has been awake with work for a
//! whole slice yields its CPU between an answer and the next request (`crate::slice`),
//! counted by `soapstone_cpu_yields_total`; within the slice, or with the slice off, never.

mod common;

use std::time::Duration;

use common::*;
use soapstone_server::{HttpEngine, Runtime, ServerConfig};

const YIELDS: &str = "soapstone_cpu_yields_total";

fn sliced(runtime: Runtime, slice: Duration) -> TestServer {
    let mut cfg = ServerConfig::default();
    cfg.runtime = runtime;
    cfg.http = HttpEngine::Lean;
    cfg.cpu_slice = slice;
    TestServer::start_exact(cfg)
}

fn yields_after_20_calls(srv: &TestServer) -> Option<u64> {
    let mut s = srv.connect();
    for _ in 0..20 {
        echo_float(&mut s);
    }
    let text = srv.server.metrics_text();
    text.lines()
        .find_map(|l| l.strip_prefix(YIELDS)?.strip_prefix(' ')?.parse().ok())
}

#[test]
fn a_thread_awake_past_its_slice_yields_between_requests() {
    // A nanosecond: every answer takes longer, from the wake that brought its request.
    for runtime in [Runtime::CurrentThread, Runtime::PerCore(2)] {
        let srv = sliced(runtime, Duration::from_nanos(1));
        // One per answer (the last may be counted just after its answer is read).
        let yields = yields_after_20_calls(&srv).unwrap_or(0);
        assert!((19..=20).contains(&yields), "{runtime:?}: {yields} yields");
    }
}

#[test]
fn within_the_slice_or_with_it_off_never() {
    let long = sliced(Runtime::CurrentThread, Duration::from_secs(60));
    assert_eq!(yields_after_20_calls(&long), None);
    let off = sliced(Runtime::CurrentThread, Duration::ZERO);
    assert_eq!(yields_after_20_calls(&off), None);
}

#[test]
fn the_ambient_runtime_is_never_yielded() {
    // It is the application's: the server does not see when its threads sleep.
    let srv = sliced(Runtime::Ambient, Duration::from_nanos(1));
    assert_eq!(yields_after_20_calls(&srv), None);
}
