//! The typed client row's answer check, over real sockets: right against soapstone's own dp
//! service, wrong (one integer changed, one letter changed) against a server replaying that
//! service's real answer with the change, where every call must count as an error, none be
//! recorded, and the lab's point must fail.

use std::net::SocketAddr;
use std::time::Duration;

use soapstone_server::Server;
use soapstone_services::{build_services, ServiceKind, ServicesConfig};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpListener;

use super::*;
use crate::experiments::dp::request;
use crate::peers::check::{http_body, post};
use crate::peers::client::{into_run, ClientPoint, ClientReport};
use crate::results::{Placement, PlacementKind};

/// soapstone's dp service on a free loopback port, serving until the test's runtime ends.
async fn dp_server() -> SocketAddr {
    let mut c = ServicesConfig::default();
    c.services = vec![ServiceKind::Dp];
    let services = build_services(&c).await.unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let serving = services
        .mount_on(Server::builder())
        .serve_with_shutdown(listener, std::future::pending())
        .unwrap();
    let addr = serving.local_addr();
    tokio::spawn(std::future::IntoFuture::into_future(serving));
    addr
}

/// A keep-alive HTTP/1.1 server that answers every request with `body` (200, text/xml).
async fn replaying(body: String) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((mut s, _)) = listener.accept().await {
            let body = body.clone();
            tokio::spawn(async move {
                let mut buf = Vec::new();
                loop {
                    // One request: its head, then Content-Length bytes of body.
                    let (head_end, len) = loop {
                        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                            let head = String::from_utf8_lossy(&buf[..i]).to_ascii_lowercase();
                            let len = head
                                .lines()
                                .find_map(|l| l.strip_prefix("content-length:"))
                                .and_then(|v| v.trim().parse::<usize>().ok())
                                .unwrap_or(0);
                            break (i + 4, len);
                        }
                        let mut chunk = [0u8; 4096];
                        match s.read(&mut chunk).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => buf.extend_from_slice(&chunk[..n]),
                        }
                    };
                    while buf.len() < head_end + len {
                        let mut chunk = [0u8; 4096];
                        match s.read(&mut chunk).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => buf.extend_from_slice(&chunk[..n]),
                        }
                    }
                    buf.drain(..head_end + len);
                    let answer = format!(
                        "HTTP/1.1 200 OK\r\nContent-Type: text/xml; charset=utf-8\r\n\
                         Content-Length: {}\r\n\r\n{body}",
                        body.len()
                    );
                    if s.write_all(answer.as_bytes()).await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    addr
}

/// The real service's answer to `op(n)`, as text.
async fn real_answer(addr: SocketAddr, op: &str, n: u32) -> String {
    let raw = post(
        &addr.to_string(),
        "/dp",
        &request(op, Some(n)),
        &format!("urn:test:soap#{op}"),
    )
    .await
    .unwrap();
    http_body(&raw).unwrap()
}

fn client(addr: SocketAddr) -> DpClient {
    DpClient::new(&format!("http://{addr}/dp")).unwrap()
}

const WINDOW: Duration = Duration::from_millis(200);

#[tokio::test]
async fn right_answers_are_timed() {
    let addr = dp_server().await;
    for op in [Op::DoNothing, Op::String(800), Op::Integers(800)] {
        let r = measure(&client(addr), op, Duration::ZERO, WINDOW).await;
        assert_eq!((r.errors, &r.first_error), (0, &None), "{op:?}");
        assert!(r.ok > 0, "{op:?}: no call in the window");
        assert_eq!(r.samples_us.len() as u64, r.ok);
        assert!(r.warmup_calls >= 1 && r.first_call_us.is_some());
    }
}

#[tokio::test]
async fn a_changed_value_is_an_error_never_a_sample_and_the_point_fails() {
    let real = dp_server().await;
    let ints = real_answer(real, "getIntegersOfSize", 8).await;
    assert!(ints.contains(">3<"), "{ints}");
    let wrong = replaying(ints.replacen(">3<", ">4<", 1)).await;
    let r = measure(&client(wrong), Op::Integers(8), Duration::ZERO, WINDOW).await;
    assert_eq!((r.ok, r.samples_us.len()), (0, 0));
    assert!(r.errors > 0);
    let why = r.first_error.clone().unwrap();
    assert!(why.contains("item 3 is Some(4)"), "{why}");

    let text = real_answer(real, "getStringOfSize", 30).await;
    let wrong = replaying(text.replacen("abcd", "abce", 1)).await;
    let r = measure(&client(wrong), Op::String(30), Duration::ZERO, WINDOW).await;
    assert_eq!(r.ok, 0);
    assert!(r.first_error.unwrap().contains("not the letters"));

    // The lab's side: a report with errors is a failed point, not a row.
    let report: ClientReport = serde_json::from_str(
        r#"{"ok": 0, "errors": 7, "first_error": "getIntegersOfSize(8): item 3 is Some(4), not `3`", "samples_us": []}"#,
    )
    .unwrap();
    let point = ClientPoint {
        url: "http://127.0.0.1:1/dp",
        op: "getIntegersOfSize",
        n: 8,
        warmup: Duration::ZERO,
        window: WINDOW,
    };
    let placement = Placement {
        kind: PlacementKind::SameCpu,
        server_cpu: Some("0".into()),
        client_cpu: Some("0".into()),
        load_cpu: None,
    };
    let e = into_run(
        report,
        &point,
        ("soapstone-client", "clients", "getIntegers/800"),
        placement,
        "soapstone lab-client".into(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("7 of 7 calls failed"), "{e}");
}

#[test]
fn bad_arguments_are_refused_with_the_token() {
    let e = Op::parse("getNothing", 1).unwrap_err().to_string();
    assert!(e.contains("unknown operation `getNothing`"), "{e}");
    let e = Op::parse("getStringOfSize", 100_001)
        .unwrap_err()
        .to_string();
    assert_eq!(e, "size `100001` is out of range `0..=100000`");
    assert_eq!(Op::parse("doNothing", 0).unwrap(), Op::DoNothing);
    assert!(seconds("window", -1.0).is_err());
}
