//! The client against the real soapstone server on 127.0.0.1:0, and against small raw TCP
//! servers where the test must control the bytes (chunked answers, connections kept open,
//! compressed answers).

use std::future::IntoFuture;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use serde::{Deserialize, Serialize};
use soapstone_client::{Client, ClientConfig, Operation};
use soapstone_codec::{EncodeOptions, Envelope, Fault, Limits, QName, Style, Version};
use soapstone_server::{Server, ServerConfig};
use soapstone_service::{BoxFuture, SoapRequest, SoapResponse, SoapService};

const NS: &str = "http://tempuri.org/";

#[derive(Serialize)]
struct EchoFloat {
    input: f32,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct EchoFloatResult {
    result: f32,
}

#[derive(Serialize)]
struct Empty {}

/// echoFloat, `fail` (a Client fault), `slow` (5 s), `stall` (60 s: outlives any timeout of
/// these tests), `big` (a large answer).
struct Echo;

impl Echo {
    #[allow(clippy::result_large_err)] // a test service; the fault is written at once
    fn answer(req: &SoapRequest) -> Result<(Vec<u8>, &'static str), Fault> {
        let env = Envelope::parse(&req.body, &Limits::default()).map_err(|e| Fault::from(&e))?;
        let op = env
            .body_element()
            .map(|q| q.local.clone())
            .unwrap_or_default();
        let mut options = EncodeOptions::default();
        options.version = req.version;
        options.style = Style::Encoded;
        let mut out = Vec::new();
        let name = match op.as_str() {
            "echoFloat" => {
                #[derive(Deserialize)]
                struct In {
                    input: f32,
                }
                let input: In = env.body(Style::Encoded).map_err(|e| Fault::from(&e))?;
                let result = EchoFloatResult {
                    result: input.input,
                };
                soapstone_codec::encode(
                    &mut out,
                    &options,
                    &[],
                    &QName::new(NS, "echoFloatResult"),
                    &result,
                )
                .map_err(|e| Fault::server(e.to_string()))?;
                "echoFloat"
            }
            "big" => {
                let result = EchoFloatResult { result: 1.5 };
                soapstone_codec::encode(
                    &mut out,
                    &options,
                    &[],
                    &QName::new(NS, "bigResult"),
                    &result,
                )
                .map_err(|e| Fault::server(e.to_string()))?;
                // pad with a comment so the answer is worth compressing
                let pad = format!("<!--{}-->", "padding ".repeat(300));
                out.extend_from_slice(pad.as_bytes());
                "big"
            }
            other => return Err(Fault::client(format!("operation `{other}` fails"))),
        };
        Ok((out, name))
    }
}

impl SoapService for Echo {
    fn name(&self) -> &str {
        "Echo"
    }
    fn document(&self, _: &str, _: &str) -> Option<String> {
        None
    }
    fn call(&self, req: SoapRequest) -> BoxFuture<SoapResponse> {
        Box::pin(async move {
            let env = Envelope::parse(&req.body, &Limits::default());
            match env
                .ok()
                .and_then(|e| e.body_element().map(|q| q.local.clone()))
            {
                Some(op) if op == "slow" => tokio::time::sleep(Duration::from_secs(5)).await,
                Some(op) if op == "stall" => tokio::time::sleep(Duration::from_secs(60)).await,
                _ => {}
            }
            match Echo::answer(&req) {
                Ok((body, op)) => {
                    SoapResponse::new(req.version, false, Some(op), Bytes::from(body))
                }
                Err(f) => {
                    let mut out = Vec::new();
                    soapstone_codec::encode_fault(&mut out, req.version, &f);
                    SoapResponse::new(req.version, true, None, Bytes::from(out))
                }
            }
        })
    }
}

/// A real server on the test's runtime.
fn start(config: ServerConfig) -> (Server, SocketAddr, tokio::sync::oneshot::Sender<()>) {
    let server = Server::builder()
        .mount("/echo", Arc::new(Echo))
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

fn op<'a>(request: &'a QName, options: &'a EncodeOptions) -> Operation<'a> {
    Operation {
        action: "http://tempuri.org/echoFloat",
        request,
        options,
        response_style: Style::Encoded,
    }
}

fn encoded(version: Version) -> EncodeOptions {
    let mut o = EncodeOptions::default();
    o.version = version;
    o.style = Style::Encoded;
    o
}

fn count(metrics: &str, name: &str) -> u64 {
    metrics
        .lines()
        .find_map(|l| l.strip_prefix(name)?.trim().parse().ok())
        .unwrap_or_else(|| panic!("no `{name}`"))
}

/// Waits (up to 30 s) until the server's gauge `name` is `value`: a gauge follows a
/// connection's or a request's task, which ends on the server's side a moment after the client
/// has seen the answer (or the close).
async fn wait_gauge(server: &Server, name: &str, value: u64) {
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while count(&server.metrics_text(), name) != value {
        assert!(
            std::time::Instant::now() < deadline,
            "`{name}` stuck at {}, waiting for {value}",
            count(&server.metrics_text(), name)
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

#[tokio::test]
async fn typed_calls_reuse_one_pooled_connection() {
    let (server, addr, _stop) = start(ServerConfig::default());
    let client = Client::new(&format!("http://{addr}/echo")).unwrap();
    let name = QName::new(NS, "echoFloat");
    for version in [Version::Soap11, Version::Soap12] {
        let options = encoded(version);
        for i in 0..10 {
            let x = 2.71 + i as f32;
            let r: EchoFloatResult = client
                .call(&op(&name, &options), &EchoFloat { input: x })
                .await
                .unwrap();
            assert_eq!(r, EchoFloatResult { result: x });
        }
    }
    assert_eq!(
        count(&server.metrics_text(), "soapstone_connections_total"),
        1,
        "20 calls, one accept"
    );
    assert_eq!(client.idle_connections(), 1);
}

#[tokio::test]
async fn concurrent_calls_open_more_connections_and_keep_them() {
    let (server, addr, _stop) = start(ServerConfig::default());
    let client = Client::new(&format!("http://{addr}/echo")).unwrap();
    let name = QName::new(NS, "echoFloat");
    let options = encoded(Version::Soap11);
    for _ in 0..3 {
        let calls = (0..4).map(|i| {
            let (client, name, options) = (client.clone(), &name, &options);
            async move {
                client
                    .call::<_, EchoFloatResult>(&op(name, options), &EchoFloat { input: i as f32 })
                    .await
            }
        });
        for r in futures_join(calls).await {
            r.unwrap();
        }
    }
    let accepted = count(&server.metrics_text(), "soapstone_connections_total");
    assert!(
        accepted <= 4,
        "{accepted} connections for 4 concurrent callers"
    );
    assert_eq!(client.idle_connections() as u64, accepted);
}

async fn futures_join<F: std::future::Future>(futs: impl Iterator<Item = F>) -> Vec<F::Output> {
    let handles: Vec<_> = futs.collect();
    let mut out = Vec::new();
    // Poll all together on this task.
    let mut pinned: Vec<_> = handles.into_iter().map(Box::pin).collect();
    let mut done: Vec<Option<F::Output>> = pinned.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut all = true;
        for (f, d) in pinned.iter_mut().zip(done.iter_mut()) {
            if d.is_none() {
                match f.as_mut().poll(cx) {
                    std::task::Poll::Ready(v) => *d = Some(v),
                    std::task::Poll::Pending => all = false,
                }
            }
        }
        if all {
            std::task::Poll::Ready(())
        } else {
            std::task::Poll::Pending
        }
    })
    .await;
    out.extend(done.into_iter().map(Option::unwrap));
    out
}

#[tokio::test]
async fn faults_surface_as_typed_errors() {
    let (_server, addr, _stop) = start(ServerConfig::default());
    let client = Client::new(&format!("http://{addr}/echo")).unwrap();
    for version in [Version::Soap11, Version::Soap12] {
        let name = QName::new(NS, "fail");
        let options = encoded(version);
        let err = client
            .call::<_, EchoFloatResult>(&op(&name, &options), &Empty {})
            .await
            .unwrap_err();
        let fault = err.fault().expect("a fault");
        assert_eq!(fault.code, soapstone_codec::FaultCode::Client);
        assert_eq!(fault.reason, "operation `fail` fails");
        assert_eq!(err.status(), Some(500));
        assert!(!err.is_timeout() && !err.is_connect());
        assert_eq!(
            err.to_string(),
            "soap fault `Client`: operation `fail` fails"
        );
    }
    // call_raw hands the 500 over as it is
    let raw = client
        .call_raw(Version::Soap11, None, Bytes::from_static(b"<not-xml"))
        .await
        .expect("an http answer is not an error for call_raw");
    assert_eq!(raw.status, 500);
    assert_eq!(raw.content_type.as_deref(), Some("text/xml; charset=utf-8"));
}

#[tokio::test]
async fn request_timeout_then_the_client_recovers() {
    let (_server, addr, _stop) = start(ServerConfig::default());
    let mut config = ClientConfig::default();
    // Generous, so that the calls that must not time out do not on a loaded machine; `stall`
    // outlasts it by far.
    config.request_timeout = Duration::from_secs(5);
    let client = Client::with_config(&format!("http://{addr}/echo"), config).unwrap();
    let stall = QName::new(NS, "stall");
    let echo = QName::new(NS, "echoFloat");
    let options = encoded(Version::Soap11);
    // first on a pooled connection that served a call before (its timer is reused)
    let r: EchoFloatResult = client
        .call(&op(&echo, &options), &EchoFloat { input: 1.5 })
        .await
        .unwrap();
    assert_eq!(r.result, 1.5);
    tokio::time::sleep(Duration::from_millis(5500)).await;
    let err = client
        .call::<_, EchoFloatResult>(&op(&stall, &options), &Empty {})
        .await
        .unwrap_err();
    assert!(err.is_timeout(), "{err}");
    assert!(!err.is_connect());
    assert_eq!(err.to_string(), "request timed out after `5s`");
    assert_eq!(
        client.idle_connections(),
        0,
        "a timed-out connection is not pooled"
    );
    let name = QName::new(NS, "echoFloat");
    let r: EchoFloatResult = client
        .call(&op(&name, &options), &EchoFloat { input: 2.5 })
        .await
        .unwrap();
    assert_eq!(r.result, 2.5);
}

#[tokio::test]
async fn refused_and_timed_out_connects_are_connect_errors() {
    // A socket bound but not listening holds its port for the whole test (so no other test
    // can listen there meanwhile) and refuses every connection to it.
    let bound = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
    bound
        .bind(&"127.0.0.1:0".parse::<SocketAddr>().unwrap().into())
        .unwrap();
    let port = bound.local_addr().unwrap().as_socket().unwrap().port();
    let client = Client::new(&format!("http://127.0.0.1:{port}/echo")).unwrap();
    let err = client
        .call_raw(Version::Soap11, None, Bytes::new())
        .await
        .unwrap_err();
    assert!(err.is_connect() && !err.is_timeout(), "{err:?}");
    assert!(
        err.to_string()
            .starts_with(&format!("cannot connect to `127.0.0.1:{port}`")),
        "{err}"
    );

    // A listener whose accept queue is full drops further SYNs: the connect hangs.
    let sock = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
    sock.bind(&"127.0.0.1:0".parse::<SocketAddr>().unwrap().into())
        .unwrap();
    sock.listen(0).unwrap();
    let addr = sock.local_addr().unwrap().as_socket().unwrap();
    let mut fillers = Vec::new();
    for _ in 0..8 {
        if let Ok(s) = std::net::TcpStream::connect_timeout(&addr, Duration::from_millis(100)) {
            fillers.push(s);
        }
    }
    let mut config = ClientConfig::default();
    config.connect_timeout = Duration::from_millis(200);
    let client = Client::with_config(&format!("http://{addr}/echo"), config).unwrap();
    let err = client
        .call_raw(Version::Soap11, None, Bytes::new())
        .await
        .unwrap_err();
    assert!(err.is_connect() && err.is_timeout(), "{err:?}");
    drop((sock, bound));
}

#[tokio::test]
async fn bad_urls_are_refused() {
    for url in ["ftp://x/echo", "x/echo", "http:///echo", "not a url"] {
        let err = Client::new(url).unwrap_err();
        assert!(err.is_url(), "{url}: {err:?}");
    }
    assert!(Client::new("ftp://x/echo")
        .unwrap_err()
        .to_string()
        .contains("unsupported scheme `ftp`"));
    // https is supported (tests/tls.rs).
    assert!(Client::new("https://x/echo").is_ok());
}

#[tokio::test]
async fn a_pooled_connection_closed_by_the_server_is_replaced() {
    let mut config = ServerConfig::default();
    config.idle_timeout = Duration::from_millis(150);
    config.header_read_timeout = Duration::from_millis(150);
    let (server, addr, _stop) = start(config);
    let client = Client::new(&format!("http://{addr}/echo")).unwrap();
    let name = QName::new(NS, "echoFloat");
    let options = encoded(Version::Soap11);
    for _ in 0..2 {
        let r: EchoFloatResult = client
            .call(&op(&name, &options), &EchoFloat { input: 1.0 })
            .await
            .unwrap();
        assert_eq!(r.result, 1.0);
        // The server closes the idle connection after its timeout (a loaded machine may take
        // longer than the 150 ms): the next call finds its pooled connection closed.
        wait_gauge(&server, "soapstone_connections_open", 0).await;
    }
    assert_eq!(
        count(&server.metrics_text(), "soapstone_connections_total"),
        2
    );
}

#[tokio::test]
async fn gzip_both_ways_with_the_real_server() {
    let mut sc = ServerConfig::default();
    sc.compress_responses_over = Some(0);
    let (server, addr, _stop) = start(sc);
    let mut config = ClientConfig::default();
    config.accept_compressed = true;
    config.compress_requests_over = Some(0);
    let client = Client::with_config(&format!("http://{addr}/echo"), config).unwrap();
    let name = QName::new(NS, "big");
    let options = encoded(Version::Soap11);
    let r: EchoFloatResult = client.call(&op(&name, &options), &Empty {}).await.unwrap();
    assert_eq!(r.result, 1.5);
    assert!(server
        .metrics_text()
        .contains("operation=\"big\",status=\"200\"} 1"));
}

/// A raw server: answers one request on one connection with `answer`, then holds the
/// connection open (no EOF) until the test ends. Returns the request bytes it read.
fn raw_server(answer: Vec<u8>) -> (SocketAddr, std::sync::mpsc::Receiver<Vec<u8>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        let mut req = Vec::new();
        let mut buf = [0u8; 8192];
        loop {
            let n = s.read(&mut buf).unwrap();
            req.extend_from_slice(&buf[..n]);
            if let Some(end) = req.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&req[..end]).to_ascii_lowercase();
                let len: usize = head
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length: ")?.parse().ok())
                    .unwrap_or(0);
                if req.len() >= end + 4 + len {
                    break;
                }
            }
        }
        s.write_all(&answer).unwrap();
        tx.send(req).unwrap();
        // keep the connection open: a client that waits for EOF would hang here
        std::thread::sleep(Duration::from_secs(10));
    });
    (addr, rx)
}

fn impatient(addr: SocketAddr, f: impl FnOnce(&mut ClientConfig)) -> Client {
    let mut config = ClientConfig::default();
    // If the client waited for EOF, the call would end in this timeout instead of an answer.
    config.request_timeout = Duration::from_secs(3);
    f(&mut config);
    Client::with_config(&format!("http://{addr}/echo"), config).unwrap()
}

#[tokio::test]
async fn content_length_answers_end_without_eof() {
    let body = "<soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\"><soap:Body/></soap:Envelope>";
    let answer = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/xml\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let (addr, rx) = raw_server(answer.into_bytes());
    let client = impatient(addr, |_| {});
    let r = client
        .call_raw(
            Version::Soap11,
            Some("urn:a\"b"),
            Bytes::from_static(b"<e/>"),
        )
        .await
        .unwrap();
    assert_eq!(r.status, 200);
    assert_eq!(r.body, body.as_bytes());
    let req = String::from_utf8(rx.recv().unwrap()).unwrap();
    assert!(req.starts_with("POST /echo HTTP/1.1\r\n"), "{req}");
    assert!(req.contains(&format!("host: {addr}\r\n")), "{req}");
    assert!(req.contains("content-type: text/xml; charset=utf-8\r\n"));
    assert!(req.contains("soapaction: \"urn:a\\\"b\"\r\n"), "{req}");
    assert!(req.contains("content-length: 4\r\n"));
    assert!(req.ends_with("\r\n\r\n<e/>"));
    assert_eq!(
        client.idle_connections(),
        1,
        "the open connection is pooled"
    );
}

#[tokio::test]
async fn chunked_answers_end_without_eof() {
    let answer = b"HTTP/1.1 200 OK\r\nContent-Type: text/xml\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n<a>he\r\n6\r\nllo</a\r\n1\r\n>\r\n0\r\n\r\n";
    let (addr, _rx) = raw_server(answer.to_vec());
    let client = impatient(addr, |_| {});
    let r = client
        .call_raw(Version::Soap12, Some("urn:x"), Bytes::from_static(b"<e/>"))
        .await
        .unwrap();
    assert_eq!(r.body, &b"<a>hello</a>"[..]);
}

#[tokio::test]
async fn compressed_requests_and_answers_on_the_wire() {
    let plain = b"<soap:Envelope>compressed answer</soap:Envelope>";
    let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    z.write_all(plain).unwrap();
    let z = z.finish().unwrap();
    let mut answer =
        format!("HTTP/1.1 200 OK\r\nContent-Type: text/xml\r\nContent-Encoding: gzip\r\nContent-Length: {}\r\n\r\n", z.len())
            .into_bytes();
    answer.extend_from_slice(&z);
    let (addr, rx) = raw_server(answer);
    let client = impatient(addr, |c| {
        c.accept_compressed = true;
        c.compress_requests_over = Some(10);
    });
    let envelope =
        Bytes::from("<soap:Envelope>".to_owned() + &"x".repeat(100) + "</soap:Envelope>");
    let r = client
        .call_raw(Version::Soap11, None, envelope.clone())
        .await
        .unwrap();
    assert_eq!(r.body, &plain[..]);
    let req = rx.recv().unwrap();
    let end = req.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8_lossy(&req[..end]);
    assert!(head.contains("content-encoding: gzip"), "{head}");
    assert!(head.contains("accept-encoding: gzip, deflate"), "{head}");
    let mut sent = Vec::new();
    flate2::read::GzDecoder::new(&req[end + 4..])
        .read_to_end(&mut sent)
        .unwrap();
    assert_eq!(sent, envelope);
}

#[tokio::test]
async fn http_errors_without_a_fault_carry_their_status() {
    let answer = b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nContent-Type: text/plain\r\nContent-Length: 12\r\n\r\nserver busy\n";
    let (addr, _rx) = raw_server(answer.to_vec());
    let client = impatient(addr, |_| {});
    let name = QName::new(NS, "echoFloat");
    let options = encoded(Version::Soap11);
    let err = client
        .call::<_, EchoFloatResult>(&op(&name, &options), &EchoFloat { input: 1.0 })
        .await
        .unwrap_err();
    assert_eq!(err.status(), Some(503));
    assert!(err.fault().is_none());
    assert_eq!(err.to_string(), "server answered http `503`: server busy");
}

#[tokio::test]
async fn a_burst_over_the_concurrency_limit_is_shed_not_queued() {
    let mut sc = ServerConfig::default();
    sc.max_in_flight = 8;
    let (server, addr, _stop) = start(sc);
    let client = Client::new(&format!("http://{addr}/echo")).unwrap();
    let slow = Bytes::from(
        r#"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><slow xmlns="http://tempuri.org/"/></soap:Body></soap:Envelope>"#,
    );
    let calls = (0..64).map(|_| {
        let (client, slow) = (client.clone(), slow.clone());
        async move {
            client
                .call_raw(Version::Soap11, None, slow)
                .await
                .unwrap()
                .status
        }
    });
    let statuses = futures_join(calls).await;
    let answered = statuses.iter().filter(|&&s| s == 500).count(); // `slow` ends in a Client fault
    let shed = statuses.iter().filter(|&&s| s == 503).count();
    assert_eq!(answered + shed, 64, "{statuses:?}");
    assert!((1..=8).contains(&answered), "{statuses:?}");
    let m = server.metrics_text();
    assert_eq!(count(&m, "soapstone_requests_shed_total"), shed as u64);
    wait_gauge(&server, "soapstone_requests_in_flight", 0).await;
}

/// gSOAP's SOAP 1.2 answer to echoFloat: `env:encodingStyle` on Body (forbidden by SOAP 1.2
/// Part 1 5.1.1), as gSOAP writes every SOAP 1.2 message.
const GSOAP_12_ECHO_FLOAT: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<SOAP-ENV:Envelope xmlns:SOAP-ENV=\"http://www.w3.org/2003/05/soap-envelope\" xmlns:SOAP-ENC=\"http://www.w3.org/2003/05/soap-encoding\" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" xmlns:xsd=\"http://www.w3.org/2001/XMLSchema\" xmlns:ns=\"http://tempuri.org/\"><SOAP-ENV:Body SOAP-ENV:encodingStyle=\"http://www.w3.org/2003/05/soap-encoding\"><ns:echoFloatResult><result xsi:type=\"xsd:float\">1.5</result></ns:echoFloatResult></SOAP-ENV:Body></SOAP-ENV:Envelope>\n";

async fn call_gsoap(lenient: Option<bool>) -> Result<EchoFloatResult, soapstone_client::Error> {
    let answer = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/soap+xml; charset=utf-8\r\nContent-Length: {}\r\n\r\n{GSOAP_12_ECHO_FLOAT}",
        GSOAP_12_ECHO_FLOAT.len()
    );
    let (addr, _rx) = raw_server(answer.into_bytes());
    let mut config = ClientConfig::default().request_timeout(Duration::from_secs(10));
    if let Some(on) = lenient {
        config = config.lenient(on);
    }
    let client = Client::with_config(&format!("http://{addr}/echo"), config).unwrap();
    let name = QName::new(NS, "echoFloat");
    let options = encoded(Version::Soap12);
    client
        .call::<_, EchoFloatResult>(&op(&name, &options), &EchoFloat { input: 1.5 })
        .await
}

#[tokio::test]
async fn a_lenient_client_reads_gsoap_soap12_answers() {
    let err = call_gsoap(None).await.unwrap_err();
    assert!(
        err.to_string()
            .contains("encodingStyle is not allowed on the soap 1.2 Body"),
        "{err}"
    );
    assert!(call_gsoap(Some(false)).await.is_err());
    let ok = call_gsoap(Some(true)).await.unwrap();
    assert_eq!(ok, EchoFloatResult { result: 1.5 });
}
