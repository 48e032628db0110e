//! Error classification over real sockets: timeout, connect refused, broken connection,
//! HTTP 503, HTTP 500 with and without a SOAP Fault (1.1 and 1.2), gRPC status.
//!
//! Every run is open loop at 8 requests/s over 4 connections for 0.5 s: exactly four
//! requests, one per connection, each due 125 ms after the previous, so the counts are
//! exact.

mod common;

use std::time::Duration;

use common::{http_server, response, testdata, ENVELOPE};
use http::StatusCode;
use soapstone_bench::{
    run, start_baseline, Baseline, BenchConfig, BenchReport, GrpcCall, Load, Schedule, Target,
};
use tokio::io::AsyncReadExt;
use tokio::net::TcpListener;

async fn four_requests(target: Target, timeout: Duration) -> BenchReport {
    let schedule = Schedule::single(
        Duration::from_millis(500),
        Load::Open {
            rate: 8.0,
            arrivals: Default::default(),
        },
    )
    .unwrap();
    let config = BenchConfig::new(target, schedule)
        .connections(4)
        .timeout(timeout);
    let report = run(config).await.unwrap().report;
    assert_eq!(report.requests.sent, 4, "{report:#?}");
    assert_eq!(report.requests.unsent, 0);
    report
}

fn soap(addr: std::net::SocketAddr) -> Target {
    Target::soap(&format!("http://{addr}/soap"), ENVELOPE).unwrap()
}

#[tokio::test]
async fn timeout() {
    // Accepts, reads, never answers; keeps every socket open.
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut buf = [0u8; 4096];
                while matches!(stream.read(&mut buf).await, Ok(n) if n > 0) {}
            });
        }
    });
    let r = four_requests(soap(addr), Duration::from_millis(200)).await;
    assert_eq!(r.errors.timeout, 4, "{:?}", r.errors);
    assert_eq!(r.errors.total, 4);
    assert_eq!(r.requests.ok, 0);
    assert_eq!(r.requests.responses, 0);
    assert_eq!(r.latency.corrected.count, 0, "a timeout has no latency");
}

#[tokio::test]
async fn connect_refused() {
    let addr = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap()
    };
    let r = four_requests(soap(addr), Duration::from_secs(2)).await;
    assert_eq!(r.errors.connect, 4, "{:?}", r.errors);
    assert_eq!(r.errors.total, 4);
}

#[tokio::test]
async fn connection_closed_without_an_answer() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut buf = [0u8; 4096];
                let _ = stream.read(&mut buf).await;
                // Dropped: closed without a response.
            });
        }
    });
    let r = four_requests(soap(addr), Duration::from_secs(2)).await;
    assert_eq!(r.errors.io, 4, "{:?}", r.errors);
}

#[tokio::test]
async fn http_503() {
    let addr = http_server(|_| async { response(StatusCode::SERVICE_UNAVAILABLE, "busy") }).await;
    let r = four_requests(soap(addr), Duration::from_secs(2)).await;
    assert_eq!(r.errors.http_status.get(&503), Some(&4), "{:?}", r.errors);
    assert_eq!(r.errors.total, 4);
    assert_eq!(r.errors.soap_fault, 0);
    // An error answer is still an answer: it has a latency.
    assert_eq!(r.requests.responses, 4);
    assert_eq!(r.latency.corrected.count, 4);
}

#[tokio::test]
async fn soap_fault_500() {
    let fault =
        testdata("php-ext-soap/messages/Round4/GroupH/r4_groupH_complex_doclit_006w-response.xml");
    let addr = http_server(move |_| {
        let fault = fault.clone();
        async move { response(StatusCode::INTERNAL_SERVER_ERROR, fault) }
    })
    .await;
    let r = four_requests(soap(addr), Duration::from_secs(2)).await;
    assert_eq!(r.errors.soap_fault, 4, "{:?}", r.errors);
    assert!(r.errors.http_status.is_empty());
}

#[tokio::test]
async fn soap12_sender_fault_400() {
    let fault = testdata("php-ext-soap/messages/soap12-testcollection/T12-response.xml");
    let addr = http_server(move |_| {
        let fault = fault.clone();
        async move { response(StatusCode::BAD_REQUEST, fault) }
    })
    .await;
    let r = four_requests(soap(addr), Duration::from_secs(2)).await;
    assert_eq!(r.errors.soap_fault, 4, "{:?}", r.errors);
}

#[tokio::test]
async fn plain_500_is_an_http_status() {
    let addr =
        http_server(|_| async { response(StatusCode::INTERNAL_SERVER_ERROR, "<html>oops</html>") })
            .await;
    let r = four_requests(soap(addr), Duration::from_secs(2)).await;
    assert_eq!(r.errors.http_status.get(&500), Some(&4), "{:?}", r.errors);
    assert_eq!(r.errors.soap_fault, 0);
}

#[tokio::test]
async fn grpc_status_from_the_server() {
    let server = start_baseline(Baseline::Grpc, "127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    let target = Target::grpc(
        server.local_addr().to_string(),
        GrpcCall::GetString(u32::MAX),
    );
    let r = four_requests(target, Duration::from_secs(2)).await;
    assert_eq!(
        r.errors.grpc_status.get("invalid_argument"),
        Some(&4),
        "{:?}",
        r.errors
    );
    server.shutdown().await;
}

#[tokio::test]
async fn reconnects_after_a_broken_connection() {
    // Answers the first request of each connection, then closes it: every request after a
    // break must go out on a fresh connection and succeed.
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            tokio::spawn(async move {
                use tokio::io::AsyncWriteExt;
                let mut buf = vec![0u8; 8192];
                let mut got = Vec::new();
                while !ends_request(&got) {
                    match stream.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => got.extend_from_slice(&buf[..n]),
                    }
                }
                let _ = stream
                    .write_all(
                        b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok",
                    )
                    .await;
            });
        }
    });
    let target = soap(addr);
    let schedule =
        Schedule::single(Duration::from_millis(500), Load::Closed { workers: 1 }).unwrap();
    let r = run(BenchConfig::new(target, schedule))
        .await
        .unwrap()
        .report;
    assert!(r.requests.ok >= 2, "{r:#?}");
    assert_eq!(r.requests.ok, r.requests.sent, "{:?}", r.errors);
}

fn ends_request(got: &[u8]) -> bool {
    let Some(head_end) = got.windows(4).position(|w| w == b"\r\n\r\n") else {
        return false;
    };
    let head = String::from_utf8_lossy(&got[..head_end]).to_ascii_lowercase();
    let len: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .map(|v| v.trim().parse().unwrap())
        .unwrap_or(0);
    got.len() >= head_end + 4 + len
}
