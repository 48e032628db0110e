//! Wire tests: raw bytes over a real `TcpStream` against a real server on 127.0.0.1:0.
//! Each asserts what a client sees on the wire: status lines, framing, connection handling.

mod common;

use std::io::{Read, Write};
use std::time::{Duration, Instant};

use common::*;
use soapstone_server::{Runtime, ServerConfig};

fn server() -> TestServer {
    TestServer::start(ServerConfig::default())
}

#[test]
fn keep_alive_serves_two_requests_on_one_connection() {
    let srv = server();
    let mut s = srv.connect();
    for _ in 0..2 {
        send(&mut s, &post(ECHO_FLOAT, ""));
        let r = read_response(&mut s).unwrap();
        assert_eq!(r.status, 200, "{}", r.head);
        assert!(r.head.starts_with("HTTP/1.1 200 OK\r\n"));
        assert_eq!(r.header("content-type"), Some("text/xml; charset=utf-8"));
        assert_eq!(
            r.header("content-length")
                .map(|l| l.parse::<usize>().unwrap()),
            Some(r.body.len())
        );
        assert_eq!(r.header("transfer-encoding"), None);
        assert_eq!(
            r.header("connection"),
            None,
            "keep-alive is the HTTP/1.1 default"
        );
        assert!(
            r.text().contains(
                "<echoFloatResult xmlns=\"http://tempuri.org/\">\n<result>3.14159</result>"
            ),
            "{}",
            r.text()
        );
    }
    assert!(srv
        .server
        .metrics_text()
        .contains("soapstone_connections_total 1\n"));
}

#[test]
fn http10_gets_content_length_and_the_server_closes() {
    let srv = server();
    let mut s = srv.connect();
    let req = format!(
        "POST /echo HTTP/1.0\r\nContent-Type: text/xml\r\nSOAPAction: \"\"\r\nContent-Length: {}\r\n\r\n{ECHO_FLOAT}",
        ECHO_FLOAT.len()
    );
    send(&mut s, req.as_bytes());
    // read_to_end only returns when the server closes; the read timeout turns a hang into an error.
    let all =
        read_to_close(&mut s).expect("server closes an HTTP/1.0 connection after the response");
    let text = String::from_utf8_lossy(&all);
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    assert!(head.starts_with("HTTP/1.0 200 OK\r\n"), "{head}");
    let len = head
        .lines()
        .find_map(|l| {
            l.strip_prefix("content-length: ")
                .or_else(|| l.strip_prefix("Content-Length: "))
        })
        .expect("content-length");
    assert_eq!(len.parse::<usize>().unwrap(), body.len());
    assert!(!head.to_ascii_lowercase().contains("transfer-encoding"));
}

#[test]
fn chunked_request_body_is_read() {
    let srv = server();
    let mut s = srv.connect();
    let req = chunked_echo_float();
    send(&mut s, req.as_bytes());
    let r = read_response(&mut s).unwrap();
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(r.text().contains("<result>3.14159</result>"));
}

#[test]
fn expect_100_continue_is_answered_before_the_body_is_sent() {
    let srv = server();
    let mut s = srv.connect();
    let head = format!(
        "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml\r\nExpect: 100-continue\r\nContent-Length: {}\r\n\r\n",
        ECHO_FLOAT.len()
    );
    send(&mut s, head.as_bytes());
    let mut buf = [0u8; 25];
    s.read_exact(&mut buf)
        .expect("the interim response arrives without the body");
    assert_eq!(&buf, b"HTTP/1.1 100 Continue\r\n\r\n");
    send(&mut s, ECHO_FLOAT.as_bytes());
    let r = read_response(&mut s).unwrap();
    assert_eq!(r.status, 200);
}

#[test]
fn expect_100_continue_with_an_oversized_body_gets_413_without_100() {
    let mut cfg = ServerConfig::default();
    cfg.max_body_bytes = 1024;
    let srv = TestServer::start(cfg);
    let mut s = srv.connect();
    send(&mut s, b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml\r\nExpect: 100-continue\r\nContent-Length: 5000\r\n\r\n");
    let r = read_response(&mut s).unwrap();
    assert_eq!(r.status, 413);
}

#[test]
fn gzip_request_and_response() {
    let srv = server();
    let mut s = srv.connect();
    let body = gzip(envelope("big").as_bytes());
    let mut req = format!(
        "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml\r\nContent-Encoding: gzip\r\nAccept-Encoding: gzip\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    req.extend_from_slice(&body);
    send(&mut s, &req);
    let r = read_response(&mut s).unwrap();
    assert_eq!(r.status, 200, "{}", r.head);
    assert_eq!(r.header("content-encoding"), Some("gzip"));
    let plain = gunzip(&r.body);
    assert!(
        plain.len() > 5 * r.body.len(),
        "{} -> {}",
        plain.len(),
        r.body.len()
    );
    assert!(String::from_utf8(plain).unwrap().contains("<bigResult"));

    // deflate (zlib) request, no Accept-Encoding: a plain answer
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    z.write_all(ECHO_FLOAT.as_bytes()).unwrap();
    let body = z.finish().unwrap();
    let mut req = format!(
        "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml\r\nContent-Encoding: deflate\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    req.extend_from_slice(&body);
    send(&mut s, &req);
    let r = read_response(&mut s).unwrap();
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-encoding"), None);
    assert!(r.text().contains("<result>3.14159</result>"));
}

#[test]
fn small_responses_are_not_compressed() {
    let srv = server();
    let mut s = srv.connect();
    send(&mut s, &post(ECHO_FLOAT, "Accept-Encoding: gzip\r\n"));
    let r = read_response(&mut s).unwrap();
    assert_eq!(r.status, 200);
    assert_eq!(
        r.header("content-encoding"),
        None,
        "below the 1 KiB default threshold"
    );
}

#[test]
fn malformed_requests_get_400() {
    let srv = server();
    for bad in [
        &b"GARBAGE\r\n\r\n"[..],
        b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n",
        b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    ] {
        let mut s = srv.connect();
        send(&mut s, bad);
        let r = read_response(&mut s).unwrap();
        assert_eq!(r.status, 400, "{:?} -> {}", String::from_utf8_lossy(bad), r.head);
    }
    // a gzip header over a body that is not gzip
    let mut s = srv.connect();
    send(
        &mut s,
        &post("not gzip at all", "Content-Encoding: gzip\r\n"),
    );
    let r = read_response(&mut s).unwrap();
    assert_eq!(r.status, 400);
    assert!(
        r.text().starts_with("invalid `gzip` request body"),
        "{}",
        r.text()
    );
}

#[test]
fn oversized_bodies_get_413_and_big_heads_431() {
    let mut cfg = ServerConfig::default();
    cfg.max_body_bytes = 1024;
    cfg.max_header_bytes = 8192;
    cfg.max_headers = 10;
    let srv = TestServer::start(cfg);

    let big = format!("<x>{}</x>", "a".repeat(2000));
    let mut s = srv.connect();
    send(&mut s, &post(&big, ""));
    let r = read_response(&mut s).unwrap();
    assert_eq!(r.status, 413);
    assert_eq!(
        r.text(),
        "request body larger than the limit of `1024` bytes\n"
    );

    // chunked: no length up front, the limit trips while reading
    let mut s = srv.connect();
    let req = format!(
        "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml\r\nTransfer-Encoding: chunked\r\n\r\n{:x}\r\n{big}\r\n0\r\n\r\n",
        big.len()
    );
    send(&mut s, req.as_bytes());
    assert_eq!(read_response(&mut s).unwrap().status, 413);

    // a gzip bomb: 66 bytes on the wire, 1 MiB inflated
    let bomb = gzip(&vec![b' '; 1 << 20]);
    let mut s = srv.connect();
    let mut req = format!(
        "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml\r\nContent-Encoding: gzip\r\nContent-Length: {}\r\n\r\n",
        bomb.len()
    )
    .into_bytes();
    req.extend_from_slice(&bomb);
    send(&mut s, &req);
    assert_eq!(read_response(&mut s).unwrap().status, 413);

    let mut s = srv.connect();
    let head = format!(
        "POST /echo HTTP/1.1\r\nHost: x\r\nX-Big: {}\r\n\r\n",
        "b".repeat(10_000)
    );
    let _ = s.write_all(head.as_bytes());
    assert_eq!(read_response(&mut s).unwrap().status, 431);

    let mut s = srv.connect();
    let many: String = (0..20).map(|i| format!("X-H{i}: v\r\n")).collect();
    let _ = s.write_all(format!("POST /echo HTTP/1.1\r\nHost: x\r\n{many}\r\n").as_bytes());
    assert_eq!(read_response(&mut s).unwrap().status, 431);
}

#[test]
fn wrong_media_types_get_415() {
    let srv = server();
    let mut s = srv.connect();
    let req = format!(
        "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{ECHO_FLOAT}",
        ECHO_FLOAT.len()
    );
    send(&mut s, req.as_bytes());
    let r = read_response(&mut s).unwrap();
    assert_eq!(r.status, 415);
    assert!(
        r.text()
            .starts_with("unsupported media type `application/json`"),
        "{}",
        r.text()
    );

    let mut s = srv.connect();
    send(&mut s, &post(ECHO_FLOAT, "Content-Encoding: br\r\n"));
    let r = read_response(&mut s).unwrap();
    assert_eq!(r.status, 415);
    assert!(r.text().contains("`br`"));

    let mut s = srv.connect();
    let req = format!(
        "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\n\r\n{ECHO_FLOAT}",
        ECHO_FLOAT.len()
    );
    send(&mut s, req.as_bytes());
    assert_eq!(read_response(&mut s).unwrap().status, 415);
}

#[test]
fn get_is_405_and_wsdl_is_200() {
    let srv = server();
    let mut s = srv.connect();
    send(&mut s, b"GET /echo HTTP/1.1\r\nHost: x\r\n\r\n");
    let r = read_response(&mut s).unwrap();
    assert_eq!(r.status, 405);
    assert_eq!(r.header("allow"), Some("POST"));

    send(
        &mut s,
        b"GET /echo?wsdl HTTP/1.1\r\nHost: soap.example:8080\r\n\r\n",
    );
    let r = read_response(&mut s).unwrap();
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("text/xml; charset=utf-8"));
    assert!(
        r.text()
            .contains(r#"location="http://soap.example:8080/echo""#),
        "{}",
        r.text()
    );

    send(&mut s, b"GET /echo?WSDL HTTP/1.1\r\nHost: x\r\n\r\n");
    assert_eq!(read_response(&mut s).unwrap().status, 200);
    send(&mut s, b"GET /echo?xsd=types HTTP/1.1\r\nHost: x\r\n\r\n");
    let r = read_response(&mut s).unwrap();
    assert_eq!(r.status, 200);
    assert!(r.text().starts_with("<xsd:schema"));
    send(&mut s, b"GET /echo?xsd=nope HTTP/1.1\r\nHost: x\r\n\r\n");
    let r = read_response(&mut s).unwrap();
    assert_eq!(r.status, 404);
    assert_eq!(r.text(), "no document `xsd=nope` at `/echo`\n");

    send(
        &mut s,
        b"GET /echo?wsdl HTTP/1.1\r\nHost: evil\"><x\r\n\r\n",
    );
    assert_eq!(
        read_response(&mut s).unwrap().status,
        400,
        "a Host that would break the WSDL"
    );

    send(&mut s, b"DELETE /echo HTTP/1.1\r\nHost: x\r\n\r\n");
    let r = read_response(&mut s).unwrap();
    assert_eq!(r.status, 405);
    assert_eq!(r.header("allow"), Some("POST"));

    send(
        &mut s,
        b"POST /nowhere HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n",
    );
    let r = read_response(&mut s).unwrap();
    assert_eq!(r.status, 404);
    assert_eq!(r.text(), "no service at `/nowhere`\n");
}

#[test]
fn soap_actions_reach_the_service_unquoted() {
    let srv = server();
    let mut s = srv.connect();
    send(&mut s, &post(&envelope("action"), ""));
    let r = read_response(&mut s).unwrap();
    assert!(
        r.text()
            .contains("<action>http://tempuri.org/echo</action>"),
        "{}",
        r.text()
    );

    let body = envelope("action").replace(
        "http://schemas.xmlsoap.org/soap/envelope/",
        "http://www.w3.org/2003/05/soap-envelope",
    );
    let req = format!(
        "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/soap+xml; charset=utf-8; action=\"urn:do;it\"\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    send(&mut s, req.as_bytes());
    let r = read_response(&mut s).unwrap();
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(
        r.header("content-type"),
        Some("application/soap+xml; charset=utf-8")
    );
    assert!(
        r.text().contains("<action>urn:do;it</action>"),
        "{}",
        r.text()
    );
}

#[test]
fn faults_are_500_and_wrong_envelope_versions_are_version_mismatch() {
    let srv = server();
    let mut s = srv.connect();
    send(&mut s, &post(&envelope("fail"), ""));
    let r = read_response(&mut s).unwrap();
    assert_eq!(r.status, 500);
    assert!(
        r.text().contains("Client") && r.text().contains("`fail` always fails"),
        "{}",
        r.text()
    );

    // a SOAP 1.2 envelope sent as text/xml (SOAP 1.1)
    let v12 = envelope("echoFloat").replace(
        "http://schemas.xmlsoap.org/soap/envelope/",
        "http://www.w3.org/2003/05/soap-envelope",
    );
    send(&mut s, &post(&v12, ""));
    let r = read_response(&mut s).unwrap();
    assert_eq!(r.status, 500);
    assert!(r.text().contains("VersionMismatch"), "{}", r.text());

    // an envelope namespace that is no SOAP version
    let bogus =
        envelope("echoFloat").replace("http://schemas.xmlsoap.org/soap/envelope/", "urn:not-soap");
    send(&mut s, &post(&bogus, ""));
    let r = read_response(&mut s).unwrap();
    assert_eq!(r.status, 500);
    assert!(r.text().contains("VersionMismatch"), "{}", r.text());
}

#[test]
fn a_panicking_service_is_a_server_fault_and_the_server_goes_on() {
    let srv = server();
    let mut s = srv.connect();
    send(&mut s, &post(&envelope("panic"), ""));
    let r = read_response(&mut s).unwrap();
    assert_eq!(r.status, 500);
    assert!(
        r.text().contains("Server") && r.text().contains("internal error"),
        "{}",
        r.text()
    );
    // same connection, then a new one
    send(&mut s, &post(ECHO_FLOAT, ""));
    assert_eq!(read_response(&mut s).unwrap().status, 200);
    let mut s2 = srv.connect();
    send(&mut s2, &post(ECHO_FLOAT, ""));
    assert_eq!(read_response(&mut s2).unwrap().status, 200);
    assert!(srv
        .server
        .metrics_text()
        .contains("soapstone_handler_panics_total 1\n"));
    // a panic while writing a document
    send(&mut s2, b"GET /echo?xsd=panic HTTP/1.1\r\nHost: x\r\n\r\n");
    assert_eq!(read_response(&mut s2).unwrap().status, 500);
    send(&mut s2, &post(ECHO_FLOAT, ""));
    assert_eq!(read_response(&mut s2).unwrap().status, 200);
    assert!(srv
        .server
        .metrics_text()
        .contains("soapstone_handler_panics_total 2\n"));
}

#[test]
fn over_the_concurrency_limit_requests_are_shed_with_503() {
    let mut cfg = ServerConfig::default();
    cfg.max_in_flight = 2;
    cfg.retry_after = Duration::from_secs(2);
    let srv = TestServer::start(cfg);
    let mut held = Vec::new();
    for _ in 0..2 {
        let mut s = srv.connect();
        send(&mut s, &post(&envelope("block"), ""));
        held.push(s);
    }
    // both are inside the service now
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let p =
            tokio::time::timeout(Duration::from_secs(30), srv.gate.entered.acquire_many(2)).await;
        p.expect("two blocked calls entered").unwrap().forget();
    });
    // Were it queued behind the blocked calls, this read would hit its timeout instead.
    let mut s = srv.connect();
    send(&mut s, &post(ECHO_FLOAT, ""));
    let r = read_response(&mut s).unwrap();
    assert_eq!(r.status, 503);
    assert_eq!(r.header("retry-after"), Some("2"));
    // the same connection goes on working once there is room
    srv.gate.release.add_permits(2);
    for mut h in held {
        assert_eq!(read_response(&mut h).unwrap().status, 200);
    }
    send(&mut s, &post(ECHO_FLOAT, ""));
    assert_eq!(read_response(&mut s).unwrap().status, 200);
    let m = srv.server.metrics_text();
    assert!(m.contains("soapstone_requests_shed_total 1\n"), "{m}");
    assert!(m.contains("soapstone_requests_in_flight 0\n"), "{m}");
}

#[test]
fn slowloris_heads_are_cut_off_but_idle_keep_alive_lasts_longer() {
    let mut cfg = ServerConfig::default();
    cfg.header_read_timeout = Duration::from_millis(300);
    // Far apart, so that a loaded machine cannot blur which of the two closed a connection.
    cfg.idle_timeout = Duration::from_secs(10);
    let srv = TestServer::start(cfg);

    // a head trickling in a byte at a time never completes
    let mut s = srv.connect();
    let t = Instant::now();
    let mut cut = false;
    for b in format!(
        "POST /echo HTTP/1.1\r\nHost: x\r\nX-Slow: {}",
        "a".repeat(200)
    )
    .bytes()
    {
        if s.write_all(&[b]).is_err() {
            cut = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(cut || closed_by_server(&mut s), "slow head not cut off");
    // cut by the header timeout (300 ms), long before the idle timeout (10 s) or the trickle's
    // end (11 s)
    assert!(t.elapsed() < Duration::from_secs(8), "{:?}", t.elapsed());

    // connecting and sending nothing: closed after the header timeout too
    let mut s = srv.connect();
    let t = Instant::now();
    assert!(closed_by_server(&mut s));
    let waited = t.elapsed();
    assert!(
        waited >= Duration::from_millis(250) && waited < Duration::from_secs(8),
        "{waited:?}"
    );

    // after a request, an idle connection outlives the header timeout...
    let mut s = srv.connect();
    send(&mut s, &post(ECHO_FLOAT, ""));
    assert_eq!(read_response(&mut s).unwrap().status, 200);
    std::thread::sleep(Duration::from_millis(900));
    send(&mut s, &post(ECHO_FLOAT, ""));
    assert_eq!(read_response(&mut s).unwrap().status, 200);
    // ...and is closed after the idle timeout
    let t = Instant::now();
    assert!(closed_by_server(&mut s));
    let waited = t.elapsed();
    assert!(waited >= Duration::from_secs(9), "{waited:?}");
}

#[test]
fn graceful_shutdown_waits_for_the_request_in_flight() {
    let mut srv = server();
    let mut busy = srv.connect();
    send(&mut busy, &post(&envelope("block"), ""));
    let mut idle = srv.connect();
    send(&mut idle, &post(ECHO_FLOAT, ""));
    assert_eq!(read_response(&mut idle).unwrap().status, 200);
    srv.wait_blocked();

    srv.begin_shutdown();
    // the idle keep-alive connection is closed at once; new connections are refused
    assert!(closed_by_server(&mut idle));
    std::thread::sleep(Duration::from_millis(100));
    assert!(
        std::net::TcpStream::connect(srv.addr).is_err(),
        "listener still open"
    );
    // the blocked request still gets its answer, then its connection closes
    srv.gate.release.add_permits(1);
    let r = read_response(&mut busy).unwrap();
    assert_eq!(r.status, 200);
    assert!(closed_by_server(&mut busy));
    srv.wait(Duration::from_secs(30)).unwrap();
}

#[test]
fn drain_deadline_bounds_the_shutdown() {
    let mut cfg = ServerConfig::default();
    cfg.drain_timeout = Duration::from_millis(200);
    let mut srv = TestServer::start(cfg);
    let mut busy = srv.connect();
    send(&mut busy, &post(&envelope("block"), ""));
    srv.wait_blocked();
    // The blocked call never ends: only the drain deadline lets the server stop.
    srv.begin_shutdown();
    srv.wait(Duration::from_secs(30)).unwrap();
    assert!(
        closed_by_server(&mut busy),
        "connection dropped at the deadline"
    );
}

#[test]
fn metrics_count_requests_by_operation() {
    let srv = server();
    let mut s = srv.connect();
    send(&mut s, &post(ECHO_FLOAT, ""));
    read_response(&mut s).unwrap();
    send(&mut s, &post(&envelope("fail"), ""));
    read_response(&mut s).unwrap();
    send(&mut s, b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
    let r = read_response(&mut s).unwrap();
    assert_eq!(r.status, 200);
    assert_eq!(
        r.header("content-type"),
        Some("text/plain; version=0.0.4; charset=utf-8")
    );
    let m = r.text();
    assert!(
        m.contains(
            "soapstone_requests_total{path=\"/echo\",operation=\"echoFloat\",status=\"200\"} 1\n"
        ),
        "{m}"
    );
    assert!(
        m.contains("soapstone_requests_total{path=\"/echo\",operation=\"\",status=\"500\"} 1\n"),
        "{m}"
    );
    assert!(
        m.contains("soapstone_faults_total{path=\"/echo\",operation=\"\"} 1\n"),
        "{m}"
    );
    assert!(m.contains(
        "soapstone_request_duration_seconds_count{path=\"/echo\",operation=\"echoFloat\"} 1\n"
    ));
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn gunzip(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(data)
        .read_to_end(&mut out)
        .unwrap();
    out
}

#[test]
fn a_body_that_never_completes_gets_408() {
    let mut cfg = ServerConfig::default();
    cfg.body_read_timeout = Duration::from_millis(200);
    let srv = TestServer::start(cfg);
    let mut s = srv.connect();
    send(&mut s, b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml\r\nContent-Length: 100\r\n\r\n<soap:Env");
    let r = read_response(&mut s).unwrap();
    assert_eq!(r.status, 408);
    assert_eq!(r.text(), "request body not received within `200ms`\n");
}

#[test]
fn dedicated_runtimes_serve_and_drain() {
    for runtime in [Runtime::CurrentThread, Runtime::PerCore(2)] {
        let mut cfg = ServerConfig::default();
        cfg.runtime = runtime;
        let mut srv = TestServer::start(cfg);
        let mut conns: Vec<_> = (0..4).map(|_| srv.connect()).collect();
        for s in conns.iter_mut() {
            send(s, &post(ECHO_FLOAT, ""));
        }
        for s in conns.iter_mut() {
            assert_eq!(read_response(s).unwrap().status, 200, "{runtime:?}");
        }
        srv.begin_shutdown();
        srv.wait(Duration::from_secs(30)).unwrap();
        for s in conns.iter_mut() {
            assert!(closed_by_server(s), "{runtime:?}");
        }
    }
}

#[test]
fn at_the_connection_limit_the_idle_connection_makes_room() {
    let mut cfg = ServerConfig::default();
    cfg.max_connections = 1;
    let srv = TestServer::start(cfg);
    let mut first = srv.connect();
    send(&mut first, &post(ECHO_FLOAT, ""));
    assert_eq!(read_response(&mut first).unwrap().status, 200);
    // The first connection is idle between requests: the second takes its place at once
    // (it used to wait in the backlog until the first closed).
    let mut second = srv.connect();
    send(&mut second, &post(ECHO_FLOAT, ""));
    assert_eq!(read_response(&mut second).unwrap().status, 200);
    assert!(
        closed_by_server(&mut first),
        "the idle connection was evicted"
    );
    assert!(srv
        .server
        .metrics_text()
        .contains("soapstone_connections_evicted_total 1\n"));
}
