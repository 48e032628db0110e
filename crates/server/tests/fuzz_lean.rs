//! The lean HTTP/1.1 engine under fuzzed requests, over a real `TcpStream`: requests of every
//! shape the engine serves or hands to hyper (pipelined, chunked, `Expect`, HTTP/1.0, bad or
//! repeated `Content-Length`, huge heads, `Upgrade`, absolute targets, other versions), mutated
//! byte by byte, written in pieces split anywhere, and the connection closed early or left
//! open. Whatever arrives:
//!
//! * nothing in the server panics (a panic hook counts them: a connection task that panics
//!   would otherwise only look like a closed connection);
//! * what comes back is a sequence of well-formed HTTP/1.x responses, each framed by its
//!   `Content-Length` (or chunked), with a status of the expected set (a `500` is a SOAP
//!   fault, never an internal error), and then the connection closes;
//! * it closes within the configured timeouts (a generous bound: a hang, not a speed, fails);
//! * the server still answers a good request afterwards.
//!
//! `PROPTEST_CASES` runs a longer campaign; finds are saved in `fuzz_lean.proptest-regressions`
//! and become named tests in `regressions` below.

mod common;

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use common::*;
use proptest::prelude::*;
use soapstone_mutate::{config, Mutator};
use soapstone_server::{HttpEngine, ServerConfig};

/// Panics anywhere in this process (the server runs in it) since the hook was set.
static PANICS: AtomicUsize = AtomicUsize::new(0);
static PANIC_TEXT: Mutex<String> = Mutex::new(String::new());

/// The limits the harness runs under: small, so that the timeouts and limits are reached.
const HEADER_READ: Duration = Duration::from_millis(800);
const MAX_HEAD: usize = 4 << 10;
const MAX_BODY: usize = 32 << 10;

/// The address of this process's server on `engine`, started once and left running.
fn server(engine: HttpEngine) -> SocketAddr {
    static LEAN: OnceLock<SocketAddr> = OnceLock::new();
    static HYPER: OnceLock<SocketAddr> = OnceLock::new();
    let cell = match engine {
        HttpEngine::Hyper => &HYPER,
        _ => &LEAN,
    };
    *cell.get_or_init(|| {
        static HOOK: OnceLock<()> = OnceLock::new();
        HOOK.get_or_init(|| {
            let default = std::panic::take_hook();
            std::panic::set_hook(Box::new(move |info| {
                // The server's tasks run on tokio's workers; the tests' own threads are not
                // the server.
                let thread = std::thread::current();
                if thread.name().is_some_and(|n| !n.starts_with("tokio")) {
                    return default(info);
                }
                PANICS.fetch_add(1, Ordering::SeqCst);
                *PANIC_TEXT.lock().unwrap_or_else(|e| e.into_inner()) = info.to_string();
                default(info);
            }));
        });
        let mut cfg = ServerConfig::default();
        cfg.http = engine;
        cfg.header_read_timeout = HEADER_READ;
        cfg.idle_timeout = HEADER_READ;
        cfg.body_read_timeout = HEADER_READ;
        cfg.max_header_bytes = MAX_HEAD;
        cfg.max_headers = 24;
        cfg.max_body_bytes = MAX_BODY;
        cfg.queue_delay_target = None;
        let srv = TestServer::start_exact(cfg);
        let addr = srv.addr;
        std::mem::forget(srv); // serves until the test process ends
        addr
    })
}

fn connect(engine: HttpEngine) -> TcpStream {
    let s = TcpStream::connect(server(engine)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    s
}

const SOAP12: &str = r#"<e:Envelope xmlns:e="http://www.w3.org/2003/05/soap-envelope"><e:Body><echoFloat xmlns="http://tempuri.org/"><input>1.5</input></echoFloat></e:Body></e:Envelope>"#;

/// One request of a known shape; `n` sizes the parts that vary (header sizes and counts).
fn request(kind: u8, n: usize) -> Vec<u8> {
    let body = ECHO_FLOAT;
    let len = body.len();
    let text = match kind % 20 {
        0 => return post(body, ""),
        1 => format!("POST /echo HTTP/1.1\r\nHost: h\r\nContent-Type: text/xml\r\nTransfer-Encoding: chunked\r\n\r\n{:x}\r\n{}\r\n{:x}\r\n{}\r\n0\r\n\r\n", 10, &body[..10], len - 10, &body[10..]),
        2 => format!("POST /echo HTTP/1.1\r\nHost: h\r\nContent-Type: text/xml\r\nExpect: 100-continue\r\nContent-Length: {len}\r\n\r\n{body}"),
        3 => "GET /echo?wsdl HTTP/1.1\r\nHost: h\r\n\r\n".into(),
        4 => "GET /healthz HTTP/1.1\r\n\r\n".into(),
        5 => format!("POST /echo HTTP/1.0\r\nContent-Type: text/xml\r\nConnection: keep-alive\r\nContent-Length: {len}\r\n\r\n{body}"),
        6 => format!("POST /echo HTTP/1.1\r\nContent-Type: text/xml\r\nContent-Length: {len}\r\nContent-Length: {}\r\n\r\n{body}", len + n % 3),
        7 => format!("POST /echo HTTP/1.1\r\nContent-Type: text/xml\r\nContent-Length: {}\r\n\r\n{body}", ["+5", "5, 5", "-1", "99999999999999999999", "", "0x10", " 7 "][n % 7]),
        8 => format!("POST /echo HTTP/1.1\r\nContent-Type: text/xml\r\nX-Big: {}\r\nContent-Length: {len}\r\n\r\n{body}", "a".repeat(n % (2 * MAX_HEAD))),
        9 => format!("POST /echo HTTP/1.1\r\nContent-Type: text/xml\r\n{}Content-Length: {len}\r\n\r\n{body}", (0..n % 40).map(|i| format!("X-{i}: v\r\n")).collect::<String>()),
        10 => format!("POST /echo HTTP/1.1\r\nContent-Type: text/xml\r\nConnection: close\r\nContent-Length: {len}\r\n\r\n{body}"),
        11 => format!("POST /echo HTTP/1.1\r\nContent-Type: text/xml\r\nContent-Length: {}\r\n\r\n{body}", MAX_BODY + 1 + n),
        12 => format!("POST /echo HTTP/1.1\r\nContent-Type: application/soap+xml\r\nContent-Length: {}\r\n\r\n{SOAP12}", SOAP12.len()),
        13 => "GET /echo HTTP/1.1\r\nUpgrade: h2c\r\nConnection: Upgrade, HTTP2-Settings\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n\r\n".into(),
        14 => format!("POST http://h/echo HTTP/1.1\r\nContent-Type: text/xml\r\nContent-Length: {len}\r\n\r\n{body}"),
        15 => format!("POST /echo HTTP/{}\r\nContent-Length: {len}\r\n\r\n{body}", ["2.0", "1.2", "0.9", "1.1 x", "3"][n % 5]),
        16 => format!("POST /echo HTTP/1.1\nContent-Type: text/xml\nContent-Length: {len}\n\n{body}"),
        17 => format!("POST /echo HTTP/1.1\r\nContent-Type: text/xml\r\nContent-Length: {len}\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
        18 => format!("POST /echo?x=%FF%00 HTTP/1.1\r\nContent-Type: text/xml\r\nContent-Encoding: gzip\r\nContent-Length: {len}\r\n\r\n{body}"),
        _ => "PUT /echo HTTP/1.1\r\nContent-Length: 0\r\n\r\n".into(),
    };
    text.into_bytes()
}

const SNIPPETS: &[&[u8]] = &[
    b"\r\n",
    b"\r\n\r\n",
    b"\n",
    b"\r",
    b" ",
    b":",
    b"\0",
    b"\x7f",
    b"\xff",
    b"Content-Length: 5\r\n",
    b"Content-Length: 0\r\n",
    b"Transfer-Encoding: chunked\r\n",
    b"Transfer-Encoding: gzip, chunked\r\n",
    b"Expect: 100-continue\r\n",
    b"Connection: close\r\n",
    b"Host: \r\n",
    b"0\r\n\r\n",
    b"fffffffffffffff\r\n",
    b"HTTP/1.0",
    b"GET / HTTP/1.1\r\n\r\n",
];

const MUTATOR: Mutator<&[u8]> = Mutator {
    snippets: SNIPPETS,
    max_delete: 20,
    max_duplicate: 100,
    insert_weight: 1,
};

/// Statuses the server may answer a fuzzed request with.
const EXPECTED: &[u16] = &[
    100, 200, 202, 400, 404, 405, 408, 411, 413, 415, 417, 431, 500, 501, 503, 505,
];

/// Checks `bytes` is whole responses one after the other; a connection reset may cut the last.
fn check_responses(mut bytes: &[u8], reset: bool) -> Result<Vec<u16>, String> {
    let mut statuses = Vec::new();
    while !bytes.is_empty() {
        let mut headers = [httparse::EMPTY_HEADER; 64];
        let mut resp = httparse::Response::new(&mut headers);
        let head_len = match resp.parse(bytes) {
            Ok(httparse::Status::Complete(n)) => n,
            Ok(httparse::Status::Partial) if reset => break,
            other => {
                return Err(format!(
                    "not a response head ({other:?}) after {statuses:?}"
                ))
            }
        };
        let status = resp.code.unwrap_or(0);
        if !EXPECTED.contains(&status) {
            return Err(format!("status {status} after {statuses:?}"));
        }
        statuses.push(status);
        let lengths: Vec<&[u8]> = resp
            .headers
            .iter()
            .filter(|h| h.name.eq_ignore_ascii_case("content-length"))
            .map(|h| h.value)
            .collect();
        let chunked = resp
            .headers
            .iter()
            .any(|h| h.name.eq_ignore_ascii_case("transfer-encoding"));
        bytes = &bytes[head_len..];
        if status == 100 {
            continue;
        }
        let body_len = match (&lengths[..], chunked) {
            ([one], false) => std::str::from_utf8(one)
                .ok()
                .and_then(|v| v.parse::<usize>().ok())
                .ok_or_else(|| format!("content-length {:?}", String::from_utf8_lossy(one)))?,
            ([], true) => match httparse_chunked_len(bytes) {
                Some(n) => n,
                None if reset => break,
                None => return Err("a chunked body that does not end".into()),
            },
            _ => return Err(format!("framing: {lengths:?}, chunked {chunked}")),
        };
        if bytes.len() < body_len {
            if reset {
                break;
            }
            return Err(format!("body cut at {} of {body_len} bytes", bytes.len()));
        }
        let body = String::from_utf8_lossy(&bytes[..body_len]);
        if status == 500 && !body.contains("Fault") {
            return Err(format!("500 without a SOAP fault: {body}"));
        }
        bytes = &bytes[body_len..];
    }
    Ok(statuses)
}

/// The length of a chunked body at the start of `bytes`, trailers and last CRLF included.
fn httparse_chunked_len(bytes: &[u8]) -> Option<usize> {
    let mut at = 0;
    loop {
        let (size, n) = match httparse::parse_chunk_size(&bytes[at..]) {
            Ok(httparse::Status::Complete((n, size))) => (size as usize, n),
            _ => return None,
        };
        at += n;
        if size == 0 {
            let end = find(&bytes[at..], b"\r\n")?;
            return Some(at + end + 2);
        }
        at += size + 2;
        if at > bytes.len() {
            return None;
        }
    }
}

/// What one fuzzed connection saw.
#[derive(Debug)]
struct Seen {
    bytes: Vec<u8>,
    reset: bool,
}

/// Writes `input` in pieces cut at `cuts`, closes the writing half unless `keep_open`, and
/// reads until the server closes.
fn exchange(
    engine: HttpEngine,
    input: &[u8],
    cuts: &[usize],
    keep_open: bool,
) -> Result<Seen, String> {
    // A hang, not a speed: every timeout of the server is under a second here.
    let mut s = connect(engine);
    s.set_nodelay(true).unwrap();
    let mut cuts: Vec<usize> = cuts.iter().map(|c| c % (input.len() + 1)).collect();
    cuts.sort_unstable();
    let mut from = 0;
    let mut write_failed = false;
    for at in cuts.into_iter().chain([input.len()]) {
        if s.write_all(&input[from..at]).is_err() {
            write_failed = true; // the server answered and closed already
            break;
        }
        from = at;
    }
    if !keep_open && !write_failed {
        let _ = s.shutdown(Shutdown::Write);
    }
    let started = Instant::now();
    let mut bytes = Vec::new();
    let mut chunk = [0u8; 16 << 10];
    loop {
        match s.read(&mut chunk) {
            Ok(0) => {
                return Ok(Seen {
                    bytes,
                    reset: false,
                })
            }
            Ok(n) => bytes.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => {
                return Ok(Seen { bytes, reset: true })
            }
            Err(e) => {
                return Err(format!(
                    "not closed after {:?} ({e}); got {:?}",
                    started.elapsed(),
                    String::from_utf8_lossy(&bytes)
                ))
            }
        }
    }
}

/// A good request on a fresh connection is answered.
fn still_serves(engine: HttpEngine) -> Result<(), String> {
    let mut s = connect(engine);
    send(&mut s, &post(ECHO_FLOAT, ""));
    let r = read_response(&mut s).map_err(|e| format!("good request after: {e}"))?;
    if r.status != 200 || !r.text().contains("<result>3.14159</result>") {
        return Err(format!("good request after: {}", r.head));
    }
    Ok(())
}

fn run(engine: HttpEngine, input: &[u8], cuts: &[usize], keep_open: bool) -> Result<(), String> {
    let before = PANICS.load(Ordering::SeqCst);
    let seen = exchange(engine, input, cuts, keep_open)?;
    let statuses = check_responses(&seen.bytes, seen.reset)
        .map_err(|e| format!("{e}\nresponse: {:?}", String::from_utf8_lossy(&seen.bytes)))?;
    still_serves(engine)?;
    if PANICS.load(Ordering::SeqCst) != before {
        let text = PANIC_TEXT.lock().unwrap_or_else(|e| e.into_inner()).clone();
        return Err(format!(
            "the server panicked: {text} (answered {statuses:?})"
        ));
    }
    Ok(())
}

fn requests() -> impl Strategy<Value = Vec<u8>> {
    (
        proptest::collection::vec((any::<u8>(), 0usize..10_000), 1..4),
        proptest::collection::vec(MUTATOR.op(), 0..4),
    )
        .prop_map(|(reqs, ops)| {
            let bytes = reqs.iter().flat_map(|&(k, n)| request(k, n)).collect();
            MUTATOR.apply(bytes, &ops)
        })
}

proptest! {
    #![proptest_config(config(40))]

    #[test]
    fn fuzzed_requests_get_well_formed_answers_or_a_close(
        input in requests(),
        cuts in proptest::collection::vec(any::<usize>(), 0..5),
        keep_open in proptest::bool::weighted(0.1),
    ) {
        run(HttpEngine::Lean, &input, &cuts, keep_open).map_err(|e| {
            TestCaseError::fail(format!("{e}\ninput: {:?}", String::from_utf8_lossy(&input)))
        })?;
    }
}

proptest! {
    #![proptest_config(config(4))]

    /// The same mutated bytes to both engines, the connection left open (hyper drops an answer
    /// when the client closes its writing half first): the same statuses in the same order.
    #[test]
    fn mutated_requests_get_the_same_statuses_from_both_engines(
        input in requests(),
        cuts in proptest::collection::vec(any::<usize>(), 0..3),
    ) {
        let both = [HttpEngine::Lean, HttpEngine::Hyper].map(|engine| {
            let (input, cuts) = (input.clone(), cuts.clone());
            std::thread::spawn(move || {
                exchange(engine, &input, &cuts, true)
                    .and_then(|seen| check_responses(&seen.bytes, seen.reset))
            })
        });
        let [lean, hyper] = both.map(|t| t.join().unwrap());
        // A head both over `max_header_bytes` and malformed past the limit is `431` or `400`
        // by where the reads happened to end (either engine): the same answer here.
        let same = |r: Result<Vec<u16>, String>| {
            r.map(|v| v.into_iter().map(|s| if s == 431 { 400 } else { s }).collect::<Vec<_>>())
                .map_err(TestCaseError::fail)
        };
        let (mut lean, mut hyper) = (same(lean)?, same(hyper)?);
        // A body that never comes: the lean loop reads it before dispatch and answers `408`
        // at `body_read_timeout`; hyper dispatches on the head and may refuse it first (`415`
        // for a missing media type). Both are right; compare what came before.
        let cut = |v: &[u16]| v.iter().position(|&s| s == 408).unwrap_or(v.len());
        let n = cut(&lean).min(cut(&hyper));
        if n < lean.len().max(hyper.len()) {
            lean.truncate(n);
            hyper.truncate(n);
        }
        prop_assert_eq!(lean, hyper, "input: {:?}", String::from_utf8_lossy(&input));
    }
}

/// Every request shape unmutated, on both engines: the harness's own baseline (each is
/// answered and well-formed, and the lean engine and hyper agree on every status). The
/// connection is left open (hyper drops an answer when the client closes its writing half
/// first), so each exchange ends at the idle timeout: they run side by side.
#[test]
fn every_request_shape_is_answered_alike_by_both_engines() {
    let mut cases = Vec::new();
    for kind in 0..20u8 {
        let sizes: &[usize] = match kind {
            6 => &[0, 1, 2],
            7 => &[0, 1, 2, 3, 4, 5, 6],
            8 => &[0, 3000, 9000],
            9 => &[0, 10, 30],
            15 => &[0, 1, 2, 3, 4],
            _ => &[0],
        };
        cases.extend(sizes.iter().map(|&n| request(kind, n)));
    }
    let runs: Vec<_> = cases
        .into_iter()
        .map(|input| {
            std::thread::spawn(move || {
                let statuses = [HttpEngine::Lean, HttpEngine::Hyper].map(|engine| {
                    let seen = exchange(engine, &input, &[], true)
                        .and_then(|seen| check_responses(&seen.bytes, seen.reset));
                    seen.unwrap_or_else(|e| {
                        panic!("{e}\ninput: {:?}", String::from_utf8_lossy(&input))
                    })
                });
                (input, statuses)
            })
        })
        .collect();
    for run in runs {
        let (input, [lean, hyper]) = run.join().unwrap();
        assert!(!lean.is_empty(), "{:?}", String::from_utf8_lossy(&input));
        assert_eq!(
            lean,
            hyper,
            "lean and hyper differ on {:?}",
            String::from_utf8_lossy(&input)
        );
    }
    assert_eq!(PANICS.load(Ordering::SeqCst), 0);
    still_serves(HttpEngine::Lean).unwrap();
}

mod regressions {
    //! Inputs that once broke the harness's invariants; kept as ordinary tests.
}
