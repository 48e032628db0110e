//! The lean HTTP/1.1 exchange of plain `http://` calls (`src/lean.rs`), against raw servers
//! that answer exact bytes over real TCP: every framing an answer may have, when a connection
//! goes back to the pool and when it must not, and the bounds on what an answer may cost.

mod raw;
use raw::read_request;

use std::io::Write;
use std::net::{SocketAddr, TcpListener};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use soapstone_client::{Client, ClientConfig};
use soapstone_codec::Version;

/// A server answering the `n`th request of every connection with `answers[n]` (the last one
/// again past the end), counting connections; it keeps each connection open (no EOF) unless
/// an answer asks to close it with `Connection: close` or lacks a length.
fn server(answers: Vec<Vec<u8>>) -> (SocketAddr, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let connections = Arc::new(AtomicUsize::new(0));
    let count = connections.clone();
    std::thread::spawn(move || {
        for s in listener.incoming() {
            let Ok(mut s) = s else { return };
            count.fetch_add(1, Ordering::SeqCst);
            let answers = answers.clone();
            std::thread::spawn(move || {
                let mut pending = Vec::new();
                let mut i = 0;
                while read_request(&mut s, &mut pending).is_some() {
                    let answer = &answers[i.min(answers.len() - 1)];
                    i += 1;
                    if s.write_all(answer).is_err() {
                        return;
                    }
                    let text = String::from_utf8_lossy(answer).to_ascii_lowercase();
                    if text.contains("connection: close") || !text.contains("\r\n\r\n") {
                        return;
                    }
                    let head = &text[..text.find("\r\n\r\n").unwrap()];
                    if !head.contains("content-length") && !head.contains("chunked") {
                        return; // the body ends at EOF
                    }
                }
            });
        }
    });
    (addr, connections)
}

fn new_client(addr: SocketAddr, f: impl FnOnce(&mut ClientConfig)) -> Client {
    let mut config = ClientConfig::default();
    // A client that waited for EOF where it must not would end in this timeout.
    config.request_timeout = Duration::from_secs(10);
    f(&mut config);
    Client::with_config(&format!("http://{addr}/echo"), config).unwrap()
}

async fn post(client: &Client) -> Result<soapstone_client::RawResponse, soapstone_client::Error> {
    client
        .call_raw(Version::Soap11, Some("urn:a"), Bytes::from_static(b"<e/>"))
        .await
}

fn ok(body: &str) -> Vec<u8> {
    format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/xml\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

#[tokio::test]
async fn keep_alive_calls_share_one_connection() {
    let (addr, connections) = server(vec![ok("<a/>"), ok("<b/>"), ok("<c/>")]);
    let client = new_client(addr, |_| {});
    for want in ["<a/>", "<b/>", "<c/>"] {
        let r = post(&client).await.unwrap();
        assert_eq!((r.status, &r.body[..]), (200, want.as_bytes()));
        assert_eq!(r.content_type.as_deref(), Some("text/xml"));
        assert_eq!(client.idle_connections(), 1);
    }
    assert_eq!(connections.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn interim_answers_are_skipped() {
    let mut answer = b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 102 Processing\r\n\r\n".to_vec();
    answer.extend_from_slice(&ok("<done/>"));
    let (addr, _) = server(vec![answer]);
    let client = new_client(addr, |_| {});
    let r = post(&client).await.unwrap();
    assert_eq!((r.status, &r.body[..]), (200, &b"<done/>"[..]));
    assert_eq!(client.idle_connections(), 1);
}

#[tokio::test]
async fn chunked_answers_with_trailers_keep_the_connection() {
    let answer = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3;ext=1\r\n<a>\r\n4\r\n</a>\r\n0\r\nX-Checksum: 1\r\n\r\n";
    let (addr, connections) = server(vec![answer.to_vec(), ok("<b/>")]);
    let client = new_client(addr, |_| {});
    assert_eq!(&post(&client).await.unwrap().body[..], b"<a></a>");
    assert_eq!(client.idle_connections(), 1);
    assert_eq!(&post(&client).await.unwrap().body[..], b"<b/>");
    assert_eq!(connections.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn closing_answers_are_not_pooled() {
    let close = b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 4\r\n\r\n<a/>".to_vec();
    let old = b"HTTP/1.0 200 OK\r\nContent-Length: 4\r\n\r\n<b/>".to_vec();
    let eof = b"HTTP/1.1 200 OK\r\nContent-Type: text/xml\r\n\r\n<c>to the end</c>".to_vec();
    for (answer, body) in [
        (close, &b"<a/>"[..]),
        (old, b"<b/>"),
        (eof, b"<c>to the end</c>"),
    ] {
        let (addr, _) = server(vec![answer]);
        let client = new_client(addr, |_| {});
        let r = post(&client).await.unwrap();
        assert_eq!(&r.body[..], body);
        assert_eq!(client.idle_connections(), 0, "{body:?}");
    }
}

#[tokio::test]
async fn bytes_after_the_answer_make_the_connection_unusable() {
    let mut answer = ok("<a/>");
    answer.extend_from_slice(b"HTTP/1.1 200 OK\r\n");
    let (addr, connections) = server(vec![answer, ok("<b/>")]);
    let client = new_client(addr, |_| {});
    assert_eq!(&post(&client).await.unwrap().body[..], b"<a/>");
    assert_eq!(client.idle_connections(), 0);
    assert_eq!(&post(&client).await.unwrap().body[..], b"<a/>");
    assert_eq!(connections.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn answers_over_the_document_limit_are_refused_before_they_are_read() {
    let head = b"HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n<a>".to_vec();
    let (addr, _) = server(vec![head]);
    let client = new_client(addr, |c| c.limits.max_document_bytes = 1000);
    let err = post(&client).await.unwrap_err();
    assert!(err.is_decode(), "{err}");
    assert_eq!(
        err.to_string(),
        "cannot read the response body: response body too large: over `1000` bytes"
    );

    let chunked = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3e8\r\n".to_vec();
    let (addr, _) = server(vec![chunked]);
    let client = new_client(addr, |c| c.limits.max_document_bytes = 999);
    let err = post(&client).await.unwrap_err();
    assert!(err.to_string().contains("over `999` bytes"), "{err}");
}

#[tokio::test]
async fn endless_heads_are_bounded() {
    let mut head = b"HTTP/1.1 200 OK\r\n".to_vec();
    while head.len() < 70 << 10 {
        head.extend_from_slice(b"X-Filler: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n");
    }
    let (addr, _) = server(vec![head]);
    let client = new_client(addr, |_| {});
    let err = post(&client).await.unwrap_err();
    // 100 headers fit in a head (as in hyper); past them, or past 64 KiB, the read stops
    assert!(
        err.to_string().contains("too many headers")
            || err.to_string().contains("response head over `65536` bytes"),
        "{err}"
    );
}

#[tokio::test]
async fn malformed_answers_are_clear_errors() {
    for (answer, want) in [
        (
            &b"HTTP/1.1 200 OK\r\nContent-Length: 4x\r\n\r\n<a/>"[..],
            "invalid content-length `4x`",
        ),
        (b"SOAP/1.1 200 OK\r\n\r\n", "malformed response head"),
        (
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
            "malformed chunk size `zz",
        ),
        (
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n",
            "chunk data not followed by crlf",
        ),
    ] {
        let (addr, _) = server(vec![answer.to_vec()]);
        let client = new_client(addr, |_| {});
        let err = post(&client).await.unwrap_err();
        assert!(err.to_string().contains(want), "{err} (wanted {want})");
        assert_eq!(client.idle_connections(), 0);
    }
}

#[tokio::test]
async fn an_answer_cut_short_is_an_error_not_a_hang() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        read_request(&mut s, &mut Vec::new()).unwrap();
        s.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n<a>")
            .unwrap();
        // dropped: EOF after 3 of 10 bytes
    });
    let client = new_client(addr, |_| {});
    let err = post(&client).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot read the response body: connection closed before the message ended: unexpected eof"
    );
}

#[tokio::test]
async fn the_request_is_one_write_with_its_length() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        let mut pending = Vec::new();
        for _ in 0..2 {
            let req = read_request(&mut s, &mut pending).unwrap();
            s.write_all(&ok("<a/>")).unwrap();
            tx.send(req).unwrap();
        }
    });
    let client = new_client(addr, |_| {});
    let body = "<soap:Envelope>".to_owned() + &"x".repeat(1000) + "</soap:Envelope>";
    client
        .call_raw(Version::Soap12, Some("urn:b"), Bytes::from(body.clone()))
        .await
        .unwrap();
    client
        .call_raw(Version::Soap11, None, Bytes::from_static(b"<e/>"))
        .await
        .unwrap();
    let first = String::from_utf8(rx.recv().unwrap()).unwrap();
    assert_eq!(
        first,
        format!(
            "POST /echo HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/soap+xml; charset=utf-8; action=\"urn:b\"\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        )
    );
    let second = String::from_utf8(rx.recv().unwrap()).unwrap();
    assert_eq!(
        second,
        format!("POST /echo HTTP/1.1\r\nhost: {addr}\r\nsoapaction: \"\"\r\ncontent-type: text/xml; charset=utf-8\r\ncontent-length: 4\r\n\r\n<e/>")
    );
}

#[tokio::test]
async fn actions_that_would_split_the_head_are_refused() {
    let (addr, connections) = server(vec![ok("<a/>")]);
    let client = new_client(addr, |_| {});
    let err = client
        .call_raw(
            Version::Soap11,
            Some("urn:a\r\nx-evil: 1"),
            Bytes::from_static(b"<e/>"),
        )
        .await
        .unwrap_err();
    assert!(err.is_url(), "{err}");
    assert!(err.to_string().contains("invalid action"), "{err}");
    assert_eq!(connections.load(Ordering::SeqCst), 0);
}

/// `ClientConfig::busy_poll`: the client looks for the answer before it waits, and reads it
/// the same whether it came within the budget, after it, or in pieces; an answer that never
/// comes is an error as without polling.
#[tokio::test]
async fn a_busy_polling_client_reads_prompt_late_and_split_answers() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        let mut pending = Vec::new();
        // Within the budget, larger than one read straight from the socket, after the
        // budget, in two pieces 20 ms apart, then no answer at all.
        read_request(&mut s, &mut pending).unwrap();
        s.write_all(&ok("<prompt/>")).unwrap();
        read_request(&mut s, &mut pending).unwrap();
        s.write_all(&ok(&big())).unwrap();
        read_request(&mut s, &mut pending).unwrap();
        std::thread::sleep(Duration::from_millis(30));
        s.write_all(&ok("<late/>")).unwrap();
        read_request(&mut s, &mut pending).unwrap();
        let split = ok("<split/>");
        s.write_all(&split[..20]).unwrap();
        std::thread::sleep(Duration::from_millis(20));
        s.write_all(&split[20..]).unwrap();
        read_request(&mut s, &mut pending).unwrap();
        // Closed without an answer.
    });
    let client = new_client(addr, |c| c.busy_poll = Duration::from_millis(1));
    for want in [
        "<prompt/>".to_owned(),
        big(),
        "<late/>".to_owned(),
        "<split/>".to_owned(),
    ] {
        let r = post(&client).await.unwrap();
        assert_eq!(r.body, want.as_bytes());
    }
    let e = post(&client).await.unwrap_err();
    assert!(e.to_string().contains("connection closed"), "{e}");
}

/// An answer body of 20,000 bytes: more than the Client reads in one go.
fn big() -> String {
    format!("<big>{}</big>", "x".repeat(20_000 - 11))
}
