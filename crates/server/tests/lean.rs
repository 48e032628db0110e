//! The lean HTTP/1.1 engine's edges, raw bytes over a real `TcpStream`: requests that arrive
//! pipelined or in pieces, the limits, HTTP/1.0 and `Connection: close`, and the hand-over to
//! hyper for what the lean loop does not serve (chunked bodies, `Expect`), also mid-connection.
//! (The rest of the suite runs on either engine: `SOAPSTONE_TEST_HTTP=hyper|lean`.)

mod common;

use std::io::Write;
use std::time::{Duration, Instant};

use common::*;
use soapstone_server::{HttpEngine, ServerConfig};

fn lean(mut cfg: ServerConfig) -> TestServer {
    cfg.http = HttpEngine::Lean;
    // Not `TestServer::start`'s engine override: these are the lean loop's own tests. Its
    // blocking connections' too (`SOAPSTONE_TEST_BLOCKING`), which run the same loop.
    if let Ok(n) = std::env::var("SOAPSTONE_TEST_BLOCKING") {
        cfg.blocking_connections = n.parse().expect("SOAPSTONE_TEST_BLOCKING: a count");
    }
    TestServer::start_exact(cfg)
}

/// Writes `parts` one by one, flushed with a pause between, so that the server most likely
/// reads them apart (the answer must be the same either way).
fn send_in_pieces(s: &mut std::net::TcpStream, parts: &[&[u8]]) {
    s.set_nodelay(true).unwrap();
    for p in parts {
        s.write_all(p).unwrap();
        s.flush().unwrap();
        std::thread::sleep(Duration::from_millis(30));
    }
}

/// `n` answers that may arrive in one read (`read_response` wants one at a time): each one's
/// status line, checked `200`, then its body.
fn read_answers(s: &mut std::net::TcpStream, n: usize) -> Vec<String> {
    let mut buf = Vec::new();
    let mut out = Vec::new();
    let mut chunk = [0u8; 16 << 10];
    while out.len() < n {
        let got = std::io::Read::read(s, &mut chunk).unwrap();
        assert!(got > 0, "closed after {} answers", out.len());
        buf.extend_from_slice(&chunk[..got]);
        while let Some(end) = find(&buf, b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..end]).into_owned();
            let len: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length: "))
                .expect("content-length")
                .parse()
                .unwrap();
            if buf.len() < end + 4 + len {
                break;
            }
            assert!(head.starts_with("HTTP/1.1 200 OK\r\n"), "{head}");
            out.push(String::from_utf8_lossy(&buf[end + 4..end + 4 + len]).into_owned());
            buf.drain(..end + 4 + len);
        }
    }
    assert!(buf.is_empty(), "bytes after the last answer");
    out
}

fn echoed(r: &Resp) -> bool {
    r.status == 200 && r.text().contains("<result>3.14159</result>")
}

#[test]
fn the_lean_loop_answers_and_a_garbage_head_gets_its_reason() {
    let srv = lean(ServerConfig::default());
    let mut s = srv.connect();
    send(&mut s, &post(ECHO_FLOAT, ""));
    let r = read_response(&mut s).unwrap();
    assert!(echoed(&r), "{}", r.head);
    assert!(
        r.header("date").is_some_and(|d| d.ends_with(" GMT")),
        "{}",
        r.head
    );
    // hyper answers a bare 400; the lean loop says why (and so shows it served this one)
    let mut s = srv.connect();
    send(&mut s, b"GARBAGE\r\n\r\n");
    let r = read_response(&mut s).unwrap();
    assert_eq!(r.status, 400);
    assert!(r.text().starts_with("invalid request head"), "{}", r.text());
    assert!(closed_by_server(&mut s));
}

#[test]
fn pipelined_requests_are_answered_in_order_on_one_connection() {
    let srv = lean(ServerConfig::default());
    let mut s = srv.connect();
    let mut three = post(ECHO_FLOAT, "");
    three.extend_from_slice(b"GET /echo?wsdl HTTP/1.1\r\nHost: h\r\n\r\n");
    three.extend_from_slice(&post(ECHO_FLOAT, ""));
    send(&mut s, &three);
    let answers = read_answers(&mut s, 3);
    assert!(
        answers[0].contains("<result>3.14159</result>"),
        "{}",
        answers[0]
    );
    assert!(
        answers[1].contains("location=\"http://h/echo\""),
        "{}",
        answers[1]
    );
    assert!(
        answers[2].contains("<result>3.14159</result>"),
        "{}",
        answers[2]
    );
    assert_eq!(srv.metric("soapstone_connections_total"), 1);
}

#[test]
fn a_head_and_a_body_split_across_reads_are_put_together() {
    let srv = lean(ServerConfig::default());
    let req = post(ECHO_FLOAT, "");
    let head_end = find(&req, b"\r\n\r\n").unwrap() + 4;
    let mut s = srv.connect();
    // the head cut inside a header name, then inside the blank line; the body in three
    send_in_pieces(
        &mut s,
        &[
            &req[..20],
            &req[20..head_end - 1],
            &req[head_end - 1..head_end + 10],
            &req[head_end + 10..head_end + 100],
            &req[head_end + 100..],
        ],
    );
    assert!(echoed(&read_response(&mut s).unwrap()));
    // and the connection goes on
    send(&mut s, &req);
    assert!(echoed(&read_response(&mut s).unwrap()));
}

#[test]
fn oversize_heads_get_431_and_oversize_bodies_413_then_a_close() {
    let mut cfg = ServerConfig::default();
    cfg.max_body_bytes = 1024;
    cfg.max_header_bytes = 4096;
    cfg.max_headers = 8;
    let srv = lean(cfg);

    // a body declared over the limit is refused from its header, unread, and the
    // connection closed (its bytes would otherwise be read as the next request)
    let mut s = srv.connect();
    let big = format!("<x>{}</x>", "a".repeat(3000));
    send(&mut s, &post(&big, ""));
    let r = read_response(&mut s).unwrap();
    assert_eq!(r.status, 413);
    assert_eq!(r.header("connection"), Some("close"));
    assert!(closed_by_server(&mut s));

    // a head growing past the limit without ending: 431, before it ends
    let mut s = srv.connect();
    let _ = s.write_all(format!("POST /echo HTTP/1.1\r\nX-Big: {}", "b".repeat(5000)).as_bytes());
    let r = read_response(&mut s).unwrap();
    assert_eq!(r.status, 431);
    assert!(r.text().contains("`4096` bytes"), "{}", r.text());

    // too many headers
    let mut s = srv.connect();
    let many: String = (0..12).map(|i| format!("X-H{i}: v\r\n")).collect();
    let _ = s.write_all(format!("GET /healthz HTTP/1.1\r\n{many}\r\n").as_bytes());
    assert_eq!(read_response(&mut s).unwrap().status, 431);
}

#[test]
fn a_slow_head_is_cut_off_and_an_idle_connection_lasts_the_idle_timeout() {
    let mut cfg = ServerConfig::default();
    cfg.header_read_timeout = Duration::from_millis(300);
    // Far apart, so that a loaded machine cannot blur which of the two closed a connection.
    cfg.idle_timeout = Duration::from_secs(10);
    let srv = lean(cfg);

    let mut s = srv.connect();
    let t = Instant::now();
    let mut cut = false;
    // The trickle would last 11 s if nothing cut it.
    for b in format!("POST /echo HTTP/1.1\r\nX-Slow: {}", "a".repeat(200)).bytes() {
        if s.write_all(&[b]).is_err() {
            cut = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(cut || closed_by_server(&mut s), "slow head not cut off");
    assert!(t.elapsed() < Duration::from_secs(8), "{:?}", t.elapsed());

    let mut s = srv.connect();
    send(&mut s, &post(ECHO_FLOAT, ""));
    assert!(echoed(&read_response(&mut s).unwrap()));
    let t = Instant::now();
    assert!(closed_by_server(&mut s));
    assert!(t.elapsed() >= Duration::from_secs(9), "{:?}", t.elapsed());
}

#[test]
fn http10_closes_unless_kept_alive_and_connection_close_is_honoured() {
    let srv = lean(ServerConfig::default());
    let http10 = |extra: &str| {
        format!(
            "POST /echo HTTP/1.0\r\nContent-Type: text/xml\r\n{extra}Content-Length: {}\r\n\r\n{ECHO_FLOAT}",
            ECHO_FLOAT.len()
        )
    };
    // 1.0 with keep-alive: answered in 1.0, said so, and kept
    let mut s = srv.connect();
    send(&mut s, http10("Connection: keep-alive\r\n").as_bytes());
    let r = read_response(&mut s).unwrap();
    assert!(r.head.starts_with("HTTP/1.0 200 OK\r\n"), "{}", r.head);
    assert_eq!(r.header("connection"), Some("keep-alive"));
    send(&mut s, http10("").as_bytes());
    let all = read_to_close(&mut s).expect("closed after a plain 1.0 request");
    assert!(String::from_utf8_lossy(&all).starts_with("HTTP/1.0 200 OK\r\n"));

    // 1.1 with `Connection: close`: answered with it, then closed
    let mut s = srv.connect();
    send(&mut s, &post(ECHO_FLOAT, "Connection: close\r\n"));
    let r = read_response(&mut s).unwrap();
    assert!(echoed(&r));
    assert_eq!(r.header("connection"), Some("close"));
    assert!(closed_by_server(&mut s));
}

#[test]
fn chunked_and_expect_go_to_hyper_also_after_lean_requests() {
    let srv = lean(ServerConfig::default());
    let mut s = srv.connect();
    // first a lean request, then a chunked one on the same connection
    send(&mut s, &post(ECHO_FLOAT, ""));
    assert!(echoed(&read_response(&mut s).unwrap()));
    let chunked = chunked_echo_float();
    // the chunked head arrives in two pieces: replayed to hyper whole
    let (c1, c2) = chunked.as_bytes().split_at(30);
    send_in_pieces(&mut s, &[c1, c2]);
    assert!(echoed(&read_response(&mut s).unwrap()));
    // hyper serves the rest of the connection
    send(&mut s, &post(ECHO_FLOAT, ""));
    assert!(echoed(&read_response(&mut s).unwrap()));
    assert_eq!(srv.metric("soapstone_connections_total"), 1);

    // Expect: 100-continue, answered by hyper before the body is sent
    let mut s = srv.connect();
    let head = format!(
        "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml\r\nExpect: 100-continue\r\nContent-Length: {}\r\n\r\n",
        ECHO_FLOAT.len()
    );
    send(&mut s, head.as_bytes());
    let mut buf = [0u8; 25];
    std::io::Read::read_exact(&mut s, &mut buf).unwrap();
    assert_eq!(&buf, b"HTTP/1.1 100 Continue\r\n\r\n");
    send(&mut s, ECHO_FLOAT.as_bytes());
    assert!(echoed(&read_response(&mut s).unwrap()));
    assert_eq!(srv.metric("soapstone_connections_open"), 2);
}

/// A body that comes slowly after its head is not a request waiting in a queue: queue-delay
/// shedding counts from the body's last byte. (It counted from the head, so a large or slow
/// upload under a 13 MiB echo was answered `503 server overloaded` once a few had been slow.)
#[test]
fn a_slow_body_is_not_queueing_delay() {
    let mut cfg = ServerConfig::default();
    cfg.queue_delay_target = Some(Duration::from_millis(100));
    cfg.queue_delay_interval = Duration::from_millis(200);
    let srv = lean(cfg);
    let mut s = srv.connect();
    let body = envelope("slow");
    let request = post(&body, "");
    let split = request.len() - body.len();
    // Each body 400 ms after its head: a standing queue by the shedder's rule (most requests
    // of an interval over the target, then over twice the target) if that time counted.
    for i in 0..4 {
        send_in_pieces(&mut s, &[&request[..split]]);
        std::thread::sleep(Duration::from_millis(370));
        send(&mut s, &request[split..]);
        let r = read_response(&mut s).unwrap();
        assert_eq!(r.status, 200, "request {i}: {}", r.text());
    }
    assert_eq!(srv.metric("soapstone_requests_shed_queue_delay_total"), 0);
}

/// The lean loop keeps what dispatch made of a head (route, media type, action, codings) for
/// the heads that repeat it byte for byte but for the `Content-Length` digits: each request
/// here must still be answered as its own head says, whether it repeats the last one, differs
/// from it in one byte of one header, or was refused before.
#[test]
fn a_head_like_the_last_is_answered_as_its_own_bytes_say() {
    let srv = lean(ServerConfig::default());
    let mut s = srv.connect();
    let action = |s: &mut std::net::TcpStream, content_type: &str, action: &str, body: &str| {
        let head = format!(
            "POST /echo HTTP/1.1\r\nHost: h\r\nContent-Type: {content_type}\r\nSOAPAction: \"{action}\"\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        send(s, &[head.as_bytes(), body.as_bytes()].concat());
        let r = read_response(s).unwrap();
        (
            r.status,
            r.header("content-type").unwrap_or("").to_owned(),
            r.text(),
        )
    };
    let utf8 = "text/xml; charset=utf-8";
    let call = envelope("action");
    for (i, name) in ["urn:a1", "urn:a1", "urn:a2", "urn:a2", "urn:a1"]
        .into_iter()
        .enumerate()
    {
        let (status, _, text) = action(&mut s, utf8, name, &call);
        assert_eq!(status, 200, "call {i}: {text}");
        assert!(
            text.contains(&format!("<action>{name}</action>")),
            "call {i}: {text}"
        );
    }
    // A Latin-1 charset takes only an ASCII body: a repeated head is checked against each body.
    let latin1 = "text/xml; charset=iso-8859-1";
    let non_ascii = call.replace("/>", ">\u{e9}</action>");
    for (body, status) in [(&call, 200), (&call, 200), (&non_ascii, 415), (&call, 200)] {
        let (got, _, text) = action(&mut s, latin1, "urn:a1", body);
        assert_eq!(got, status, "{text}");
    }
    // A refused head is refused again when repeated, and the one after it is read afresh.
    for _ in 0..2 {
        let (status, _, text) = action(&mut s, "text/plain", "urn:a1", &call);
        assert_eq!(status, 415, "{text}");
        assert!(
            text.contains("unsupported media type `text/plain`"),
            "{text}"
        );
    }
    // The same envelope under the SOAP 1.2 media type, with the action in it: another head.
    let call12 = call.replace(
        "http://schemas.xmlsoap.org/soap/envelope/",
        "http://www.w3.org/2003/05/soap-envelope",
    );
    for name in ["urn:b1", "urn:b1", "urn:b2"] {
        let ct = format!("application/soap+xml; charset=utf-8; action=\"{name}\"");
        let (status, content_type, text) = action(&mut s, &ct, "", &call12);
        assert_eq!(status, 200, "{text}");
        assert!(
            content_type.starts_with("application/soap+xml"),
            "{content_type}"
        );
        assert!(text.contains(&format!("<action>{name}</action>")), "{text}");
    }
    assert_eq!(srv.metric("soapstone_connections_total"), 1);
}

/// Answers with the `date` left out, as the differential test compares them.
fn answer_of(s: &mut std::net::TcpStream, request: &[u8]) -> (u16, Vec<(String, String)>, Vec<u8>) {
    send(s, request);
    let r = read_response(s).unwrap();
    let headers = r
        .headers
        .into_iter()
        .filter(|(n, _)| !n.eq_ignore_ascii_case("date"))
        .collect();
    (r.status, headers, r.body)
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]

    /// What the lean loop keeps of a head for the heads that repeat it never changes an
    /// answer: a sequence of requests on one connection, each header picked among values of
    /// the same length (so that only their bytes tell them apart), gets exactly the answers
    /// each request gets alone on a fresh connection (which negotiates everything afresh).
    #[test]
    fn answers_on_one_connection_are_those_of_fresh_ones(
        picks in proptest::collection::vec((0..2usize, 0..4usize, 0..3usize, 0..2usize, 0..3usize), 1..10)
    ) {
        const PATHS: [&str; 2] = ["/echo", "/ecko"];
        const TYPES: [&str; 4] = [
            "text/xml; charset=utf-8",
            "text/xml; charset=UTF-8",
            "text/xml; charset=latin1",
            "text/xmk; charset=utf-8",
        ];
        const ACTIONS: [&str; 3] = ["urn:a1", "urn:a2", "urn:b1"];
        const ACCEPT: [&str; 2] = ["identity", "gzip"];
        let action = envelope("action");
        let bodies = [action.clone(), action.replace("/>", ">\u{e9}</action>"), ECHO_FLOAT.to_owned()];
        let request = |&(path, ct, act, acc, body): &(usize, usize, usize, usize, usize)| {
            let body = &bodies[body];
            format!(
                "POST {} HTTP/1.1\r\nHost: h\r\nContent-Type: {}\r\nSOAPAction: \"{}\"\r\nAccept-Encoding: {}\r\nContent-Length: {}\r\n\r\n{body}",
                PATHS[path], TYPES[ct], ACTIONS[act], ACCEPT[acc], body.len()
            )
            .into_bytes()
        };
        let srv = lean(ServerConfig::default());
        let mut one = srv.connect();
        for pick in &picks {
            let req = request(pick);
            let kept = answer_of(&mut one, &req);
            let fresh = answer_of(&mut srv.connect(), &req);
            proptest::prop_assert_eq!(kept, fresh, "{:?}", pick);
        }
    }
}
