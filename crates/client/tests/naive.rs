//! The client's naive modes (the seeds' causes on purpose): each alone and combined against
//! the real server, and on the wire against raw servers where the test must see the bytes
//! (a read that lasts until FIN, a body held back until `100 Continue`).

use std::future::IntoFuture;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use soapstone_client::{Client, ClientConfig, NaiveModes};
use soapstone_codec::Version;
use soapstone_server::{Server, ServerConfig};
use soapstone_service::{BoxFuture, SoapRequest, SoapResponse, SoapService};

const ENVELOPE: &str = "<soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\"><soap:Body><echo/></soap:Body></soap:Envelope>";

/// Answers every request with the envelope it got.
struct Mirror;

impl SoapService for Mirror {
    fn name(&self) -> &str {
        "Mirror"
    }
    fn document(&self, _: &str, _: &str) -> Option<String> {
        None
    }
    fn call(&self, req: SoapRequest) -> BoxFuture<SoapResponse> {
        Box::pin(async move { SoapResponse::new(req.version, false, Some("echo"), req.body) })
    }
}

fn start(config: ServerConfig) -> (Server, SocketAddr, tokio::sync::oneshot::Sender<()>) {
    let server = Server::builder()
        .mount("/echo", Arc::new(Mirror))
        .config(config)
        .build();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let serving = server
        .clone()
        .serve_with_shutdown(listener, async {
            let _ = rx.await;
        })
        .unwrap();
    let addr = serving.local_addr();
    tokio::spawn(serving.into_future());
    (server, addr, tx)
}

fn client(addr: SocketAddr, naive: NaiveModes) -> Client {
    let mut config = ClientConfig::default();
    config.naive = naive;
    config.request_timeout = Duration::from_secs(20);
    Client::with_config(&format!("http://{addr}/echo"), config).unwrap()
}

fn connections(server: &Server) -> u64 {
    let text = server.metrics_text();
    text.lines()
        .find_map(|l| l.strip_prefix("soapstone_connections_total "))
        .and_then(|v| v.trim().parse().ok())
        .expect("soapstone_connections_total")
}

#[tokio::test]
async fn every_mode_alone_and_combined_gets_the_answer() {
    let modes = [
        ("read-to-eof", NaiveModes::default().with_read_to_eof(), 3),
        (
            "connection-per-call",
            NaiveModes::default().with_connection_per_call(),
            3,
        ),
        (
            "expect-continue",
            NaiveModes::default().with_expect_continue(),
            1,
        ),
        ("all", NaiveModes::all(), 3),
    ];
    for server_naive in [
        soapstone_server::NaiveModes::default(),
        soapstone_server::NaiveModes::all(),
    ] {
        for (name, naive, conns) in modes {
            let mut config = ServerConfig::default();
            config.naive = server_naive;
            let (server, addr, _stop) = start(config);
            let c = client(addr, naive);
            for _ in 0..3 {
                let r = c
                    .call_raw(
                        Version::Soap11,
                        Some("echo"),
                        Bytes::from_static(ENVELOPE.as_bytes()),
                    )
                    .await
                    .unwrap_or_else(|e| panic!("{name}: {e}"));
                assert_eq!(r.status, 200, "{name}");
                assert_eq!(r.body, ENVELOPE.as_bytes(), "{name}");
            }
            assert_eq!(connections(&server), conns, "{name}: connections opened");
            assert_eq!(
                c.idle_connections(),
                0,
                "{name}: the cured pool stays unused"
            );
        }
    }
}

#[tokio::test]
async fn naive_modes_refuse_https() {
    let mut config = ClientConfig::default();
    config.naive = NaiveModes::all();
    let c2 = Client::with_config("https://127.0.0.1:1/echo", config).unwrap();
    let e = c2
        .call_raw(Version::Soap11, None, Bytes::from_static(b"<x/>"))
        .await
        .unwrap_err();
    assert!(e.is_url() && e.to_string().contains("`http://`"), "{e}");
}

#[test]
fn naive_modes_are_off_by_default_and_named() {
    assert!(!ClientConfig::default().naive.any());
    assert_eq!(NaiveModes::parse("all").unwrap(), NaiveModes::all());
    let e = NaiveModes::parse("read-to-eof,eof").unwrap_err();
    assert!(e.contains("`eof`"), "{e}");
}

/// Reads one request (head and `Content-Length` body) from `s`.
fn read_request(s: &mut std::net::TcpStream, with_body: bool) -> String {
    let mut req = Vec::new();
    let mut buf = [0u8; 8192];
    loop {
        let n = s.read(&mut buf).unwrap();
        assert!(n > 0, "client closed early");
        req.extend_from_slice(&buf[..n]);
        if let Some(end) = req.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&req[..end]).to_ascii_lowercase();
            let len: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length: ")?.parse().ok())
                .unwrap_or(0);
            if !with_body || req.len() >= end + 4 + len {
                return String::from_utf8_lossy(&req).into_owned();
            }
        }
    }
}

#[tokio::test]
async fn read_to_eof_waits_for_the_fin_and_ignores_content_length() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let (close_tx, close_rx) = std::sync::mpsc::channel::<()>();
    let (sent_tx, sent_rx) = tokio::sync::oneshot::channel::<String>();
    std::thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        let req = read_request(&mut s, true);
        // Content-Length says 5; the client must read on to the FIN anyway.
        s.write_all(b"HTTP/1.1 200 OK\r\ncontent-type: text/xml\r\ncontent-length: 5\r\n\r\nhello, and more")
            .unwrap();
        let _ = sent_tx.send(req);
        let _ = close_rx.recv_timeout(Duration::from_secs(20));
    });
    let c = client(addr, NaiveModes::default().with_read_to_eof());
    let call = tokio::spawn(async move {
        c.call_raw(Version::Soap11, None, Bytes::from_static(b"<x/>"))
            .await
    });
    let req = sent_rx.await.unwrap();
    assert!(req.starts_with("POST /echo HTTP/1.1\r\n"), "{req}");
    assert!(req.contains("connection: close\r\n"), "{req}");
    // The whole answer is there, but no FIN yet: the call must still be waiting.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        !call.is_finished(),
        "the call ended before the server closed"
    );
    close_tx.send(()).unwrap();
    let r = call.await.unwrap().unwrap();
    assert_eq!(r.body, &b"hello, and more"[..]);
}

#[tokio::test]
async fn expect_continue_holds_the_body_until_100_continue() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let server = std::thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        let head = read_request(&mut s, false);
        assert!(head.contains("expect: 100-continue\r\n"), "{head}");
        assert!(
            head.ends_with("\r\n\r\n"),
            "body sent with the head: {head}"
        );
        // Nothing more may come before 100 Continue.
        s.set_read_timeout(Some(Duration::from_millis(300)))
            .unwrap();
        let mut b = [0u8; 64];
        match s.read(&mut b) {
            Err(e) => assert!(
                matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ),
                "{e}"
            ),
            Ok(n) => panic!("body sent before 100 Continue: {n} bytes"),
        }
        s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        s.write_all(b"HTTP/1.1 100 Continue\r\n\r\n").unwrap();
        let mut body = [0u8; 4];
        s.read_exact(&mut body).unwrap();
        assert_eq!(&body, b"<x/>");
        s.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok")
            .unwrap();
    });
    let mut naive = NaiveModes::default().with_expect_continue();
    // Longer than the test's own wait, so that only a client that does not wait sends early.
    naive.expect_timeout = Duration::from_secs(20);
    let c = client(addr, naive);
    let r = c
        .call_raw(Version::Soap11, None, Bytes::from_static(b"<x/>"))
        .await
        .unwrap();
    assert_eq!(r.body, &b"ok"[..]);
    server.join().unwrap();
}
