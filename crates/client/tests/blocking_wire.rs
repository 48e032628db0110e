//! The Client's blocking exchange (`ClientConfig::blocking_io`) against raw TCP servers that
//! answer exact bytes, from plain threads with no runtime: chunked answers, the bounds on what
//! an answer may cost, an answer cut short, a server that never answers, busy-polling, and
//! answers whose heads repeat the last one or change (with the async exchange beside it).

mod raw;
use raw::read_request;

use std::io::Write;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

use bytes::Bytes;
use futures_executor::block_on;
use soapstone_client::{Client, ClientConfig, Error, RawResponse};
use soapstone_codec::Version;

/// A server writing `answer(s)` (it may write in pieces, wait, or close) for every request of
/// every connection, counting connections.
fn server(
    answer: impl Fn(&mut TcpStream) -> bool + Send + Sync + 'static,
) -> (SocketAddr, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let connections = Arc::new(AtomicUsize::new(0));
    let count = connections.clone();
    let answer = Arc::new(answer);
    std::thread::spawn(move || {
        for s in listener.incoming() {
            let Ok(mut s) = s else { return };
            count.fetch_add(1, Ordering::SeqCst);
            let answer = answer.clone();
            std::thread::spawn(move || {
                let mut pending = Vec::new();
                while read_request(&mut s, &mut pending).is_some() {
                    if !answer(&mut s) {
                        return;
                    }
                }
            });
        }
    });
    (addr, connections)
}

/// A server answering every request with `bytes`, keeping the connection.
fn canned(bytes: Vec<u8>) -> (SocketAddr, Arc<AtomicUsize>) {
    server(move |s| s.write_all(&bytes).is_ok())
}

fn client(addr: SocketAddr, f: impl FnOnce(&mut ClientConfig)) -> Client {
    let mut config = ClientConfig::default().blocking_io(true);
    // A client that waited for EOF where it must not would end in this timeout.
    config.request_timeout = Duration::from_secs(10);
    f(&mut config);
    Client::with_config(&format!("http://{addr}/echo"), config).unwrap()
}

/// One `call_raw` on a plain thread of its own (no runtime there), bounded: a call that hangs
/// fails the test after 30 s instead of hanging it.
fn post(client: &Client) -> Result<RawResponse, Error> {
    let client = client.clone();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let res =
            block_on(client.call_raw(Version::Soap11, Some("urn:a"), Bytes::from_static(b"<e/>")));
        let _ = tx.send(res);
    });
    rx.recv_timeout(Duration::from_secs(30))
        .expect("the call hung")
}

fn big() -> String {
    format!("<e>{}</e>", "x".repeat(200_000))
}

#[test]
fn chunked_answers_with_trailers_keep_the_connection() {
    let (addr, connections) = canned(
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n<e>\r\n4;x=y\r\n</e>\r\n0\r\nX-T: 1\r\n\r\n"
            .to_vec(),
    );
    let c = client(addr, |_| {});
    for _ in 0..3 {
        assert_eq!(post(&c).unwrap().body, Bytes::from_static(b"<e></e>"));
    }
    assert_eq!(c.idle_connections(), 1);
    assert_eq!(connections.load(Ordering::SeqCst), 1);
}

#[test]
fn large_answers_in_many_reads_and_both_framings() {
    let body = big();
    let length = format!(
        "HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let (addr, _) = canned(length.into_bytes());
    assert_eq!(post(&client(addr, |_| {})).unwrap().body, body.as_bytes());
    let mut chunked = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec();
    for piece in body.as_bytes().chunks(7000) {
        chunked.extend_from_slice(format!("{:x}\r\n", piece.len()).as_bytes());
        chunked.extend_from_slice(piece);
        chunked.extend_from_slice(b"\r\n");
    }
    chunked.extend_from_slice(b"0\r\n\r\n");
    let (addr, _) = canned(chunked);
    assert_eq!(post(&client(addr, |_| {})).unwrap().body, body.as_bytes());
}

#[test]
fn answers_over_the_document_limit_are_refused() {
    let small = |c: &mut ClientConfig| c.limits.max_document_bytes = 1000;
    let length = format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n", 1 << 30);
    let (addr, _) = canned(length.into_bytes());
    let err = post(&client(addr, small)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot read the response body: response body too large: over `1000` bytes"
    );
    let chunked = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n40000000\r\n".to_vec();
    let (addr, _) = canned(chunked);
    let err = post(&client(addr, small)).unwrap_err();
    assert!(err.to_string().contains("over `1000` bytes"), "{err}");
    // A head that never ends is bounded too.
    let (addr, _) = server(|s| {
        let _ = s.write_all(b"HTTP/1.1 200 OK\r\nx-filler: ");
        for _ in 0..100 {
            if s.write_all(&[b'a'; 1000]).is_err() {
                break;
            }
        }
        false
    });
    let err = post(&client(addr, |_| {})).unwrap_err();
    assert!(
        err.to_string().contains("response head over `65536` bytes"),
        "{err}"
    );
}

#[test]
fn an_answer_cut_short_is_a_clear_error() {
    let (addr, _) = server(|s| {
        let _ = s.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n<e>only ten");
        false // closes the connection
    });
    let c = client(addr, |_| {});
    let err = post(&c).unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot read the response body: connection closed before the message ended: unexpected eof"
    );
    assert_eq!(c.idle_connections(), 0);
}

/// A listener that accepts and never answers: the call ends as a timeout, not a hang (`post`
/// bounds the wait), and the connection is not pooled.
#[test]
fn a_server_that_never_answers_is_a_timeout() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let (held_tx, held_rx) = mpsc::channel();
    std::thread::spawn(move || {
        for s in listener.incoming().flatten() {
            // Held open, never read from or answered, until the test ends.
            if held_tx.send(s).is_err() {
                return;
            }
        }
    });
    let c = client(addr, |c| c.request_timeout = Duration::from_millis(300));
    let err = post(&c).unwrap_err();
    assert!(err.is_timeout() && !err.is_connect(), "{err:?}");
    assert_eq!(err.to_string(), "request timed out after `300ms`");
    assert_eq!(
        c.idle_connections(),
        0,
        "a timed-out connection is not pooled"
    );
    drop(held_rx);
}

/// With `busy_poll`, answers that come at once, late, and in pieces are all read whole: a
/// look never takes bytes from the socket.
#[test]
fn a_busy_polling_client_reads_prompt_late_and_split_answers() {
    let (addr, connections) = server(|s| {
        let answer = b"HTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\n<e></e>";
        // prompt
        if s.write_all(answer).is_err() {
            return false;
        }
        true
    });
    let c = client(addr, |c| c.busy_poll = Duration::from_micros(200));
    for _ in 0..20 {
        assert_eq!(post(&c).unwrap().body, Bytes::from_static(b"<e></e>"));
    }
    assert_eq!(connections.load(Ordering::SeqCst), 1);
    let (addr, _) = server(|s| {
        let answer = b"HTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\n<e></e>";
        // late (past the budget), then split in three
        std::thread::sleep(Duration::from_millis(5));
        for piece in [&answer[..10], &answer[10..40], &answer[40..]] {
            if s.write_all(piece).is_err() {
                return false;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        true
    });
    let c = client(addr, |c| c.busy_poll = Duration::from_micros(200));
    for _ in 0..3 {
        assert_eq!(post(&c).unwrap().body, Bytes::from_static(b"<e></e>"));
    }
    assert_eq!(c.idle_connections(), 1);
}

/// Answers that repeat the last head but for its length and date are read by comparison
/// (`soapstone_http1::response::Recall`); whatever else changes is read in full. On one
/// connection, blocking and async alike, every answer must come out as its own head says.
#[test]
fn answers_whose_heads_repeat_or_change_read_as_their_heads_say() {
    use std::io::Write as _;
    let gzip = |text: &str| {
        let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        z.write_all(text.as_bytes()).unwrap();
        z.finish().unwrap()
    };
    let head = |ct: &str, extra: &str, date: &str, len: usize| {
        format!("HTTP/1.1 200 OK\r\ncontent-type: {ct}\r\n{extra}date: {date}\r\ncontent-length: {len}\r\n\r\n")
            .into_bytes()
    };
    let plain = |ct: &str, date: &str, body: &str| {
        let mut a = head(ct, "", date, body.len());
        a.extend_from_slice(body.as_bytes());
        a
    };
    let zipped = |date: &str, body: &str| {
        let z = gzip(body);
        let mut a = head("text/xml", "content-encoding: gzip\r\n", date, z.len());
        a.extend_from_slice(&z);
        a
    };
    let (d1, d2) = (
        "Tue, 08 Dec 2026 02:10:00 GMT",
        "Tue, 08 Dec 2026 02:10:01 GMT",
    );
    // (answer, the body and content type the caller must see)
    let script: Vec<(Vec<u8>, &str, &str)> = vec![
        (plain("text/xml", d1, "<a>11</a>"), "<a>11</a>", "text/xml"),
        (plain("text/xml", d2, "<a>2</a>"), "<a>2</a>", "text/xml"),
        (plain("text/xml", d2, "<a>33</a>"), "<a>33</a>", "text/xml"),
        (
            plain("application/soap+xml", d2, "<b>4</b>"),
            "<b>4</b>",
            "application/soap+xml",
        ),
        (zipped(d1, "<z>five</z>"), "<z>five</z>", "text/xml"),
        (zipped(d2, "<z>sixsix</z>"), "<z>sixsix</z>", "text/xml"),
        (plain("text/xml", d1, "<a>7</a>"), "<a>7</a>", "text/xml"),
    ];
    let answers: Vec<Vec<u8>> = script.iter().map(|(a, _, _)| a.clone()).collect();
    for blocking in [true, false] {
        let answers = answers.clone();
        let next = AtomicUsize::new(0);
        let (addr, connections) = server(move |s| {
            let i = next.fetch_add(1, Ordering::SeqCst) % answers.len();
            s.write_all(&answers[i]).is_ok()
        });
        let c = client(addr, |c| c.blocking_io = blocking);
        // The async exchange needs a runtime; the blocking one runs on a plain thread.
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let call = |c: &Client| match blocking {
            true => post(c).unwrap(),
            false => rt
                .block_on(c.call_raw(Version::Soap11, Some("urn:a"), Bytes::from_static(b"<e/>")))
                .unwrap(),
        };
        for round in 0..2 {
            for (i, (_, body, ct)) in script.iter().enumerate() {
                let r = call(&c);
                let what = format!("blocking {blocking}, round {round}, answer {i}");
                assert_eq!(r.body, body.as_bytes(), "{what}");
                assert_eq!(r.content_type.as_deref(), Some(*ct), "{what}");
            }
        }
        assert_eq!(connections.load(Ordering::SeqCst), 1, "blocking {blocking}");
    }
}
