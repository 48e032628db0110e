//! The naive modes (the seeds' causes on purpose) produce the thesis's packet pattern: with
//! head and body in two writes, a raw client sees the head arrive alone, and a capture on `lo`
//! shows two data segments per response where the cured server sends one.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::*;
use soapstone_server::{NaiveModes, ServerConfig};

fn config(naive: NaiveModes) -> ServerConfig {
    let mut c = ServerConfig::default();
    c.naive = naive;
    c
}

/// One call on `s`: whether the first read ended exactly at the end of the head, and the time
/// from the head's arrival to the end of the body.
fn call(s: &mut TcpStream) -> (bool, Duration) {
    s.write_all(&post(ECHO_FLOAT, "")).unwrap();
    let mut buf = Vec::new();
    let mut chunk = [0u8; 65536];
    let n = s.read(&mut chunk).unwrap();
    let first_at = Instant::now();
    buf.extend_from_slice(&chunk[..n]);
    let head_end = loop {
        if let Some(i) = find(&buf, b"\r\n\r\n") {
            break i + 4;
        }
        let n = s.read(&mut chunk).unwrap();
        assert!(n > 0, "server closed mid-head");
        buf.extend_from_slice(&chunk[..n]);
    };
    let head_alone = n == head_end;
    let head = String::from_utf8_lossy(&buf[..head_end]).to_ascii_lowercase();
    let len: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .expect("content-length")
        .trim()
        .parse()
        .unwrap();
    while buf.len() < head_end + len {
        let n = s.read(&mut chunk).unwrap();
        assert!(n > 0, "server closed mid-body");
        buf.extend_from_slice(&chunk[..n]);
    }
    assert!(head.starts_with("http/1.1 200"), "{head}");
    (head_alone, first_at.elapsed())
}

fn calls(naive: NaiveModes, n: usize) -> (usize, Duration) {
    let srv = TestServer::start(config(naive));
    let mut s = srv.connect();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let (mut alone, mut worst) = (0, Duration::ZERO);
    for _ in 0..n {
        let (a, gap) = call(&mut s);
        alone += usize::from(a);
        worst = worst.max(gap);
    }
    (alone, worst)
}

#[test]
fn cured_server_sends_head_and_body_together() {
    let (alone, _) = calls(NaiveModes::default(), 20);
    assert_eq!(alone, 0, "a cured response must leave in one write");
}

#[test]
fn naive_server_sends_the_head_before_the_body() {
    // With Nagle on the body waits for the head's ACK, which this client's kernel delays
    // (quick ACKs at the start of a connection aside): the head arrives alone.
    let (alone, worst) = calls(NaiveModes::all(), 20);
    eprintln!("head alone in {alone} of 20 calls; worst head-to-body gap {worst:?}");
    assert!(alone > 0, "no response came in two parts");
}

/// A child process killed (and reaped) when dropped, on a panic too: a tcpdump left behind
/// would capture for ever.
struct KillOnDrop(std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Data segments from the server's port in a capture of `lo`, per response: waits (30 s at
/// most) until `expect` of them were printed, then a moment for any extra one. tcpdump is
/// killed only then: on a loaded machine it may not have read the kernel's ring for a while,
/// and a kill right after the calls once lost every packet.
fn captured_segments(naive: NaiveModes, calls: usize, expect: usize) -> Option<Vec<usize>> {
    if Command::new("tcpdump").arg("--version").output().is_err() {
        eprintln!("SKIPPED: tcpdump is not installed");
        return None;
    }
    let srv = TestServer::start(config(naive));
    let port = srv.addr.port();
    let mut dump = KillOnDrop(
        Command::new("tcpdump")
            .args(["-i", "lo", "-n", "-l", "-tt", "-U", "--immediate-mode"])
            .args(["tcp", "src", "port"])
            .arg(port.to_string())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .ok()?,
    );
    // tcpdump says "listening on lo" on stderr once the capture runs.
    let mut err = dump.0.stderr.take().unwrap();
    let mut seen = Vec::new();
    let mut b = [0u8; 256];
    while find(&seen, b"listening on").is_none() {
        match err.read(&mut b) {
            Ok(0) | Err(_) => {
                eprintln!(
                    "SKIPPED: capture not permitted: {}",
                    String::from_utf8_lossy(&seen)
                );
                return None;
            }
            Ok(n) => seen.extend_from_slice(&b[..n]),
        }
    }
    // Data segments carry "length N" with N > 0; each response starts with a segment whose
    // payload begins the head, which tcpdump does not show, so count all data segments.
    let stdout = dump.0.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::BufRead as _;
        for line in std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
        {
            let len = line
                .rsplit_once("length ")
                .and_then(|(_, n)| n.trim().parse::<usize>().ok());
            if let Some(n) = len.filter(|&n| n > 0) {
                if tx.send(n).is_err() {
                    return;
                }
            }
        }
    });
    let mut s = srv.connect();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    for _ in 0..calls {
        call(&mut s);
    }
    drop(s);
    let mut sizes = Vec::new();
    // Generous: tcpdump is one more process to schedule on a loaded machine.
    let deadline = Instant::now() + Duration::from_secs(30);
    while sizes.len() < expect {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(n) => sizes.push(n),
            Err(_) => break,
        }
    }
    // Any segment beyond the expected ones (the test then fails, saying so).
    while let Ok(n) = rx.recv_timeout(Duration::from_millis(300)) {
        sizes.push(n);
    }
    drop(dump);
    Some(sizes)
}

#[test]
fn capture_shows_two_segments_per_naive_response() {
    let Some(cured) = captured_segments(NaiveModes::default(), 5, 5) else {
        return;
    };
    let Some(split) = captured_segments(NaiveModes::default().with_split_writes(), 5, 10) else {
        return;
    };
    eprintln!("cured segments {cured:?}; split {split:?}");
    assert_eq!(cured.len(), 5, "one segment per cured response: {cured:?}");
    assert_eq!(
        split.len(),
        10,
        "head and body per naive response: {split:?}"
    );
    for pair in split.chunks(2) {
        assert_eq!(pair[0] + pair[1], cured[0], "{split:?} vs {cured:?}");
    }
}

/// The answer (status and body) of `soapstone` to `body`, on a server with `naive` modes.
fn answer(naive: NaiveModes, body: &str) -> (u16, String) {
    let srv = TestServer::start(config(naive));
    let mut s = srv.connect();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    s.write_all(&post(body, "")).unwrap();
    let r = read_response(&mut s).unwrap();
    (r.status, r.text())
}

#[test]
fn the_dom_cause_changes_the_time_not_the_answer() {
    // A DOM parse before the codec: same answer, same fault for a malformed body.
    let dom = NaiveModes::default().with_dom();
    for body in [ECHO_FLOAT, "<soap:Envelope><unclosed>"] {
        let cured = answer(NaiveModes::default(), body);
        assert_eq!(answer(dom, body), cured, "{body}");
    }
    assert_eq!(answer(dom, ECHO_FLOAT).0, 200);
}
