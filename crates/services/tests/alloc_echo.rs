//! Heap allocations per echoFloat request, counted by a counting global allocator (`stats_alloc`) (this file
//! is its own test binary with one test, so nothing else allocates meanwhile): the whole
//! server path (hyper, dispatch, the generated echo service, the codec) over a real
//! keep-alive TcpStream, and the service call alone. Counts, not times: a change that adds
//! an allocation to the hot path fails here.

use stats_alloc::{StatsAlloc, INSTRUMENTED_SYSTEM};
use std::alloc::System;
use std::io::{Read, Write};
use std::net::TcpStream;

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Allocations so far, reallocations included (a `Vec` growing is an allocation too).
fn allocations() -> u64 {
    let s = GLOBAL.stats();
    (s.allocations + s.reallocations) as u64
}

const ENVELOPE: &str = r#"<?xml version="1.0" encoding="UTF-8"?><SOAP-ENV:Envelope xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><SOAP-ENV:Body><ns1:echoFloat xmlns:ns1="http://soapinterop.org/" SOAP-ENV:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"><inputFloat xsi:type="xsd:float">654.321</inputFloat></ns1:echoFloat></SOAP-ENV:Body></SOAP-ENV:Envelope>"#;

/// Sends one request and reads its whole answer into `buf` without allocating.
fn round_trip(stream: &mut TcpStream, request: &[u8], buf: &mut [u8]) -> usize {
    stream.write_all(request).unwrap();
    let mut got = 0;
    loop {
        let n = stream.read(&mut buf[got..]).unwrap();
        assert!(n > 0, "server closed the connection");
        got += n;
        let Some(head_end) = buf[..got].windows(4).position(|w| w == b"\r\n\r\n") else {
            continue;
        };
        let head = std::str::from_utf8(&buf[..head_end]).unwrap();
        let len: usize = head
            .lines()
            .find_map(|l| {
                let (k, v) = l.split_once(':')?;
                k.eq_ignore_ascii_case("content-length")
                    .then(|| v.trim().parse().unwrap())
            })
            .expect("content-length");
        if got >= head_end + 4 + len {
            assert!(head.starts_with("HTTP/1.1 200"), "{head}");
            return got;
        }
    }
}

/// Allocations the count may hold that are not the request's: over 2,000 requests, a few
/// allocations of the runtime or the test harness on another thread (a timer wheel growing, a
/// connection's buffers) add a fraction. One more allocation per request adds a whole one, so the
/// check still fails for it (seen: 10.00 printed, just above 10, once in a full run).
const STRAY: f64 = 0.5;

fn per_request(mut f: impl FnMut()) -> f64 {
    for _ in 0..200 {
        f();
    }
    const N: u64 = 2000;
    let before = allocations();
    for _ in 0..N {
        f();
    }
    (allocations() - before) as f64 / N as f64
}

#[test]
fn echo_float_allocations_per_request() {
    // The service call alone: generated dispatch, codec decode and encode.
    let service = soapstone_services::echo::service();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let body = bytes::Bytes::from_static(ENVELOPE.as_bytes());
    let service_allocs = per_request(|| {
        let req = soapstone_service::SoapRequest::new(
            soapstone_codec::Version::Soap11,
            Some("http://soapinterop.org/".into()),
            body.clone(),
        );
        // `serve`, as the server calls it (`call` boxes the same future for older callers).
        let resp = rt.block_on(service.serve(req));
        assert!(!resp.fault);
    });

    // The whole server over a real socket, on its own current-thread runtime, then on a
    // blocking connection (`blocking_connections`: a thread of its own).
    drop(rt);
    let server_allocs = through_server(0);
    let blocking_allocs = through_server(1);

    eprintln!(
        "echoFloat: {server_allocs:.2} allocations per request through the server, {service_allocs:.2} of them in the service call"
    );
    assert!(
        server_allocs < MAX_SERVER + STRAY,
        "{server_allocs:.2} allocations per echoFloat request through the server, expected at most {MAX_SERVER}"
    );
    eprintln!("echoFloat: {blocking_allocs:.2} allocations per request on a blocking connection");
    assert!(
        blocking_allocs < MAX_SERVER + STRAY,
        "{blocking_allocs:.2} allocations per echoFloat request on a blocking connection, expected at most {MAX_SERVER}"
    );
    assert!(
        service_allocs < MAX_SERVICE + STRAY,
        "{service_allocs:.2} allocations per echoFloat service call, expected at most {MAX_SERVICE}"
    );
}

/// Allocations per request through a server with `blocking` blocking connections (its one
/// connection on a thread of its own when not 0), on a current-thread runtime.
fn through_server(blocking: usize) -> f64 {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut config = soapstone_server::ServerConfig::default();
    config.runtime = soapstone_server::Runtime::CurrentThread;
    config.blocking_connections = blocking;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = soapstone_server::Server::builder()
        .mount("/echo", soapstone_services::echo::service())
        .config(config)
        .build();
    let serving = server
        .clone()
        .serve_with_shutdown(listener, async {
            let _ = stopped.await;
        })
        .unwrap();
    let addr = serving.local_addr();
    let thread = std::thread::spawn(move || {
        rt.block_on(std::future::IntoFuture::into_future(serving))
            .unwrap()
    });
    let request = format!(
        "POST /echo HTTP/1.1\r\nHost: {addr}\r\nContent-Type: text/xml; charset=utf-8\r\nSOAPAction: \"http://soapinterop.org/\"\r\nContent-Length: {}\r\n\r\n{ENVELOPE}",
        ENVELOPE.len()
    );
    let mut stream = TcpStream::connect(addr).unwrap();
    let mut buf = vec![0u8; 64 << 10];
    let allocs = per_request(|| {
        round_trip(&mut stream, request.as_bytes(), &mut buf);
    });
    let blocking_served = server
        .metrics_text()
        .contains("soapstone_blocking_connections_total 1\n");
    assert_eq!(
        blocking_served,
        blocking > 0,
        "served blocking: {blocking_served}"
    );
    drop(stream);
    let _ = stop.send(());
    thread.join().unwrap();
    allocs
}

/// What a request costs today (docs/performance.md: which allocations remain and whose they
/// are). 35 before the peer went to the handler as an argument instead of an extension, the
/// body stopped being copied out of its one frame, the head timer was reused (30), the
/// content type's parameters were read in place and the codec's cursor kept its element,
/// namespace and attribute stacks inline (19), and an envelope parse stopped allocating
/// (its namespace bindings inline, its reference budget in place, the body element's name
/// borrowed: 11), and a small answer was encoded into a per-thread buffer and copied out at
/// its exact length (10), and the action became an inline `Action` instead of an owned
/// `String` (9), and the server's own HTTP/1.1 loop replaced hyper's on its connections
/// (`HttpEngine::Lean`: no body channel, no split read buffer, no boxed head timer, no
/// copied `SOAPAction` name, headers read in place instead of into a `HeaderMap`, the
/// answer's header map reused: 2, all of them the service call's), and the service's future
/// went into a slot reused per thread instead of a box (`ServiceFuture`) and the answer into
/// a slice of a per-thread arena reclaimed once written instead of an exact-size copy: 0.
const MAX_SERVER: f64 = 0.0;
/// The generated dispatcher's and the codec's share (the boxed future, the response buffer
/// and its `Bytes`, ...); 21 before the codec's inline stacks, 12 before an envelope parse
/// (two per request: the namespace router's and the dispatcher's) stopped allocating, 4
/// before the answer's `Vec` and `Bytes` header became one exact-size copy, 3 before the
/// action became an inline `Action`, 2 before `SoapService::serve` (the future in a pooled
/// slot, the answer cut from the arena).
const MAX_SERVICE: f64 = 0.0;
