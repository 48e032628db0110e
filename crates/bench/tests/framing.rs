//! How the generator's lean HTTP/1.1 exchange reads answers, against a raw server that writes
//! exact bytes: chunked bodies (with an interim `100` first), answers read to EOF, SOAP Faults
//! in chunks, bytes after an answer, and a keep-alive connection the server closes while idle.
//! Each test counts the connections the server accepted: a connection is reused exactly when
//! HTTP/1.1 allows it.

mod common;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::{testdata, ENVELOPE};
use soapstone_bench::{run, BenchConfig, BenchReport, Load, Schedule, Target};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// What the raw server does after each answer.
#[derive(Clone, Copy)]
enum Then {
    KeepOpen,
    Close,
    /// Closes the connection this long after the answer, unasked (its idle timeout).
    CloseLater(Duration),
}

/// A server answering every request with `answer`; the number of connections it accepted.
async fn raw_server(answer: Vec<u8>, then: Then) -> (SocketAddr, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let accepted = Arc::new(AtomicUsize::new(0));
    let count = accepted.clone();
    let answer = Arc::new(answer);
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            count.fetch_add(1, Ordering::SeqCst);
            let answer = answer.clone();
            tokio::spawn(async move {
                let mut got = Vec::new();
                let mut buf = vec![0u8; 8192];
                loop {
                    while !got.ends_with(ENVELOPE.as_bytes()) {
                        match stream.read(&mut buf).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => got.extend_from_slice(&buf[..n]),
                        }
                    }
                    got.clear();
                    if stream.write_all(&answer).await.is_err() {
                        return;
                    }
                    match then {
                        Then::KeepOpen => {}
                        Then::Close => return,
                        Then::CloseLater(d) => {
                            tokio::time::sleep(d).await;
                            return;
                        }
                    }
                }
            });
        }
    });
    (addr, accepted)
}

/// `n` requests on one connection task, open loop at 20/s (50 ms apart).
async fn requests(addr: SocketAddr, n: u32) -> BenchReport {
    let target = Target::soap(&format!("http://{addr}/soap"), ENVELOPE).unwrap();
    let schedule = Schedule::single(
        Duration::from_millis(50 * u64::from(n)),
        Load::Open {
            rate: 20.0,
            arrivals: Default::default(),
        },
    )
    .unwrap();
    let config = BenchConfig::new(target, schedule)
        .connections(1)
        .timeout(Duration::from_secs(2));
    let report = run(config).await.unwrap().report;
    assert_eq!(report.requests.sent, u64::from(n), "{report:#?}");
    report
}

fn chunked(body: &[u8], status: &str) -> Vec<u8> {
    let mut wire = format!(
        "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 {status}\r\nContent-Type: text/xml\r\nTransfer-Encoding: chunked\r\n\r\n"
    )
    .into_bytes();
    for piece in body.chunks(7) {
        wire.extend_from_slice(format!("{:x};x=y\r\n", piece.len()).as_bytes());
        wire.extend_from_slice(piece);
        wire.extend_from_slice(b"\r\n");
    }
    wire.extend_from_slice(b"0\r\nX-Trailer: 1\r\n\r\n");
    wire
}

#[tokio::test]
async fn chunked_answers_after_a_100_keep_the_connection() {
    let (addr, accepted) = raw_server(chunked(b"<ok>fine</ok>", "200 OK"), Then::KeepOpen).await;
    let r = requests(addr, 4).await;
    assert_eq!(r.requests.ok, 4, "{:?}", r.errors);
    assert_eq!(accepted.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_fault_in_chunks_is_a_soap_fault() {
    let fault =
        testdata("php-ext-soap/messages/Round4/GroupH/r4_groupH_complex_doclit_006w-response.xml");
    let answer = chunked(&fault, "500 Internal Server Error");
    let (addr, accepted) = raw_server(answer, Then::KeepOpen).await;
    let r = requests(addr, 3).await;
    assert_eq!(r.errors.soap_fault, 3, "{:?}", r.errors);
    assert_eq!(
        accepted.load(Ordering::SeqCst),
        1,
        "an error answer read whole"
    );
}

#[tokio::test]
async fn an_answer_without_a_length_ends_at_the_close() {
    let answer = b"HTTP/1.1 200 OK\r\nContent-Type: text/xml\r\n\r\n<ok/>".to_vec();
    let (addr, accepted) = raw_server(answer, Then::Close).await;
    let r = requests(addr, 3).await;
    assert_eq!(r.requests.ok, 3, "{:?}", r.errors);
    assert_eq!(
        accepted.load(Ordering::SeqCst),
        3,
        "read to EOF: never reused"
    );
}

#[tokio::test]
async fn bytes_after_an_answer_retire_the_connection() {
    let answer = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n<ok/>HTTP/1.1 200".to_vec();
    let (addr, accepted) = raw_server(answer, Then::KeepOpen).await;
    let r = requests(addr, 3).await;
    assert_eq!(r.requests.ok, 3, "{:?}", r.errors);
    assert_eq!(accepted.load(Ordering::SeqCst), 3);
}

#[tokio::test]
async fn a_connection_closed_while_idle_is_replaced_before_the_request() {
    // The server closes 10 ms after each answer; the next request is due 50 ms after the
    // last: it must go out on a new connection, not fail on the closed one.
    let answer = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n<ok/>".to_vec();
    let (addr, accepted) = raw_server(answer, Then::CloseLater(Duration::from_millis(10))).await;
    let r = requests(addr, 4).await;
    assert_eq!(r.requests.ok, 4, "{:?}", r.errors);
    assert_eq!(r.errors.total, 0);
    assert_eq!(accepted.load(Ordering::SeqCst), 4);
}

#[tokio::test]
async fn a_large_chunked_answer_is_counted_whole() {
    // 3 MiB in 48 KiB chunks: dropped as it arrives, every byte counted.
    let body = vec![b'x'; 3 << 20];
    let mut answer = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec();
    for piece in body.chunks(48 << 10) {
        answer.extend_from_slice(format!("{:x}\r\n", piece.len()).as_bytes());
        answer.extend_from_slice(piece);
        answer.extend_from_slice(b"\r\n");
    }
    answer.extend_from_slice(b"0\r\n\r\n");
    let wire = answer.len() as u64;
    let (addr, accepted) = raw_server(answer, Then::KeepOpen).await;
    let r = requests(addr, 2).await;
    assert_eq!(r.requests.ok, 2, "{:?}", r.errors);
    assert_eq!(r.bytes_received, 2 * wire);
    assert_eq!(accepted.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_broken_chunk_is_an_io_error() {
    let answer =
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcXY0\r\n\r\n".to_vec();
    let (addr, _) = raw_server(answer, Then::KeepOpen).await;
    let r = requests(addr, 2).await;
    assert_eq!(r.errors.io, 2, "{:?}", r.errors);
}
