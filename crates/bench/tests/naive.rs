//! `soapstone bench --naive`: each client cause on the wire, against raw servers over real
//! TCP (a std listener that reads the bytes the bench sends and answers by hand).

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use soapstone_bench::{run, BenchConfig, BenchReport, Load, NaiveCauses, Schedule, Target};

const ANSWER: &str = "<ok/>";

/// What one request looked like on the wire.
#[derive(Debug, Clone)]
struct Seen {
    /// The connection it came on (0, 1, ... in accept order).
    conn: usize,
    head: String,
    /// No body byte arrived before the server sent `100 Continue` (`None`: not asked).
    body_held: Option<bool>,
}

/// How the raw server behaves.
#[derive(Clone, Copy)]
struct Server {
    /// Close the connection after each answer.
    close_after_answer: bool,
    /// Answer `Expect: 100-continue` with `100 Continue` (after checking the body waits).
    send_continue: bool,
}

/// Reads one request head and its `content-length` body from `s`; `None` at EOF.
fn read_request(s: &mut TcpStream, srv: Server) -> Option<(String, Option<bool>)> {
    let mut buf = Vec::new();
    let mut byte = [0u8; 1];
    while !buf.ends_with(b"\r\n\r\n") {
        match s.read(&mut byte) {
            Ok(1) => buf.push(byte[0]),
            _ => return None,
        }
    }
    let head = String::from_utf8_lossy(&buf).to_ascii_lowercase();
    let len: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .map_or(0, |v| v.trim().parse().unwrap());
    let mut body_held = None;
    if head.contains("expect: 100-continue") && srv.send_continue {
        // The body must not come before `100 Continue`: wait a while for a stray byte.
        s.set_read_timeout(Some(Duration::from_millis(200)))
            .unwrap();
        let held = matches!(s.peek(&mut byte), Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut));
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        body_held = Some(held);
        s.write_all(b"HTTP/1.1 100 Continue\r\n\r\n").unwrap();
    }
    let mut body = vec![0u8; len];
    s.read_exact(&mut body).ok()?;
    Some((head, body_held))
}

/// A raw HTTP server on 127.0.0.1; every request it saw.
fn raw_server(srv: Server) -> (SocketAddr, Arc<Mutex<Vec<Seen>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let seen: Arc<Mutex<Vec<Seen>>> = Arc::default();
    let log = seen.clone();
    std::thread::spawn(move || {
        for (conn, s) in listener.incoming().enumerate() {
            let Ok(mut s) = s else { return };
            let log = log.clone();
            std::thread::spawn(move || {
                s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
                while let Some((head, body_held)) = read_request(&mut s, srv) {
                    log.lock().unwrap().push(Seen {
                        conn,
                        head,
                        body_held,
                    });
                    let answer = format!(
                        "HTTP/1.1 200 OK\r\ncontent-type: text/xml\r\ncontent-length: {}\r\n\r\n{ANSWER}",
                        ANSWER.len()
                    );
                    if s.write_all(answer.as_bytes()).is_err() || srv.close_after_answer {
                        return;
                    }
                }
            });
        }
    });
    (addr, seen)
}

/// One connection, closed loop, for `window`; each call bounded by `timeout`.
async fn bench(addr: SocketAddr, causes: Option<&str>, window: u64, timeout: u64) -> BenchReport {
    let mut target = Target::soap(&format!("http://{addr}/soap"), "<x/>").unwrap();
    if let Some(c) = causes {
        target = target.with_naive(NaiveCauses::parse(c).unwrap()).unwrap();
    }
    let schedule =
        Schedule::single(Duration::from_millis(window), Load::Closed { workers: 1 }).unwrap();
    run(BenchConfig::new(target, schedule).timeout(Duration::from_millis(timeout)))
        .await
        .unwrap()
        .report
}

const KEEP: Server = Server {
    close_after_answer: false,
    send_continue: true,
};

#[tokio::test]
async fn a_connection_per_call_is_http_1_0_on_a_new_connection_each_time() {
    let (addr, seen) = raw_server(KEEP);
    let r = bench(addr, Some("connection-per-call"), 300, 5000).await;
    assert!(r.requests.ok >= 2 && r.requests.errors == 0, "{r:#?}");
    let seen = seen.lock().unwrap().clone();
    assert!(seen.len() as u64 >= r.requests.ok);
    for (i, s) in seen.iter().enumerate() {
        assert_eq!(s.conn, i, "request {i} came on connection {}", s.conn);
        assert!(s.head.starts_with("post /soap http/1.0\r\n"), "{}", s.head);
    }
    // The cured bench keeps one HTTP/1.1 connection for every call.
    let (addr, seen) = raw_server(KEEP);
    let r = bench(addr, None, 300, 5000).await;
    assert!(r.requests.ok >= 2, "{r:#?}");
    let seen = seen.lock().unwrap();
    assert!(seen.iter().all(|s| s.conn == 0), "{seen:?}");
    assert!(seen[0].head.starts_with("post /soap http/1.1\r\n"));
}

#[tokio::test]
async fn reading_to_eof_ends_a_call_at_the_fin_not_at_content_length() {
    // A server that answers in full but keeps the connection: the call never ends.
    let (addr, seen) = raw_server(KEEP);
    let r = bench(addr, Some("read-to-eof"), 300, 1000).await;
    assert_eq!(r.requests.ok, 0, "{r:#?}");
    assert!(r.errors.timeout >= 1, "{r:#?}");
    assert!(seen.lock().unwrap()[0]
        .head
        .contains("connection: close\r\n"));
    // The same server closing after its answer: every call succeeds, each on its connection.
    let (addr, seen) = raw_server(Server {
        close_after_answer: true,
        ..KEEP
    });
    let r = bench(addr, Some("read-to-eof"), 300, 5000).await;
    assert!(r.requests.ok >= 2 && r.requests.errors == 0, "{r:#?}");
    let seen = seen.lock().unwrap().clone();
    assert!(
        seen.iter().enumerate().all(|(i, s)| s.conn == i),
        "{seen:?}"
    );
    // The cured bench honours Content-Length on the server that keeps the connection.
    let (addr, _) = raw_server(KEEP);
    let r = bench(addr, None, 300, 1000).await;
    assert!(r.requests.ok >= 2 && r.requests.errors == 0, "{r:#?}");
}

#[tokio::test]
async fn expect_continue_holds_the_body_until_100_continue() {
    let (addr, seen) = raw_server(KEEP);
    let r = bench(addr, Some("expect-continue"), 600, 5000).await;
    assert!(r.requests.ok >= 2 && r.requests.errors == 0, "{r:#?}");
    let seen = seen.lock().unwrap().clone();
    for s in &seen {
        assert!(s.head.contains("expect: 100-continue\r\n"), "{}", s.head);
        assert_eq!(
            s.body_held,
            Some(true),
            "a body byte came before `100 Continue`"
        );
        // The connection is kept across calls.
        assert_eq!(s.conn, 0);
    }
    // A server that never sends `100 Continue`: the body goes after the expect timeout.
    let (addr, seen) = raw_server(Server {
        send_continue: false,
        ..KEEP
    });
    let r = bench(addr, Some("expect-continue"), 300, 5000).await;
    assert!(r.requests.ok >= 1 && r.requests.errors == 0, "{r:#?}");
    assert!(seen.lock().unwrap()[0].body_held.is_none());
}

#[test]
fn the_causes_are_for_plain_http_soap_targets_only() {
    let causes = NaiveCauses::parse("all").unwrap();
    let e = Target::grpc("127.0.0.1:9", soapstone_bench::GrpcCall::DoNothing)
        .with_naive(causes)
        .unwrap_err();
    assert!(e.to_string().contains("`http://` soap target"), "{e}");
    let e = Target::soap("https://127.0.0.1:9/s", "<x/>")
        .unwrap()
        .with_naive(causes)
        .unwrap_err();
    assert!(e.to_string().contains("`--naive`"), "{e}");
}

#[derive(clap::Parser)]
struct Cli {
    #[command(flatten)]
    args: soapstone_bench::BenchArgs,
}

#[test]
fn the_naive_flag_is_hidden_named_and_refused_where_it_cannot_apply() {
    use clap::{CommandFactory as _, Parser as _};
    let body =
        std::env::temp_dir().join(format!("soapstone-bench-naive-{}.xml", std::process::id()));
    std::fs::write(&body, "<x/>").unwrap();
    let body = body.to_str().unwrap();
    let msg = |argv: &[&str]| {
        Cli::try_parse_from(std::iter::once("bench").chain(argv.iter().copied()))
            .unwrap()
            .args
            .to_config()
            .map(|_| String::new())
            .unwrap_or_else(|e| format!("{e:#}"))
    };
    let url = "http://127.0.0.1:9/soap";
    assert_eq!(
        msg(&[
            url,
            "--body",
            body,
            "--naive",
            "read-to-eof,expect-continue"
        ]),
        ""
    );
    let e = msg(&[url, "--body", body, "--naive", "nagle"]);
    assert!(
        e.starts_with("invalid `--naive`: unknown client cause `nagle`"),
        "{e}"
    );
    let e = msg(&["https://127.0.0.1:9/soap", "--body", body, "--naive", "all"]);
    assert!(e.contains("`http://` soap target only"), "{e}");
    let help = Cli::command().render_long_help().to_string();
    assert!(!help.contains("--naive"), "{help}");
}
