//! Test harness: a small hand-written SoapService over the codec, a real server on
//! 127.0.0.1:0 in its own thread, and raw HTTP/1.1 helpers over std `TcpStream`s.
#![allow(dead_code, unreachable_pub)]

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use soapstone_codec::{Envelope, Fault, Limits, Version};
use soapstone_server::{Server, ServerConfig};
use soapstone_service::{BoxFuture, SoapRequest, SoapResponse, SoapService};
use tokio::sync::{oneshot, Semaphore};

/// Sam Ruby's echoFloat request (seeds/002), with the mail-archive line wrap inside the
/// `xmlns:xsi` value undone.
pub const ECHO_FLOAT: &str = r#"<?xml version="1.0"?>
<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:soapenc="http://schemas.xmlsoap.org/soap/encoding/" xmlns:xsi="http://www.w3.org/1999/XMLSchema-instance" xmlns:xsd="http://www.w3.org/1999/XMLSchema">
<soap:Body>
<echoFloat xmlns="http://tempuri.org/">
<input xsi:type="xsd:float">3.14159</input>
</echoFloat>
</soap:Body>
</soap:Envelope>"#;

/// A SOAP 1.1 envelope whose body element is `<op>`.
pub fn envelope(op: &str) -> String {
    format!(
        r#"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><{op} xmlns="http://tempuri.org/"/></soap:Body></soap:Envelope>"#
    )
}

/// Controls for the blocking operation.
pub struct Gate {
    /// One permit per `block` call that entered the service.
    pub entered: Semaphore,
    /// `block` calls wait for a permit here.
    pub release: Semaphore,
}

impl Default for Gate {
    fn default() -> Self {
        Gate {
            entered: Semaphore::new(0),
            release: Semaphore::new(0),
        }
    }
}

/// The test service: `echoFloat`, `fail` (Client fault), `panic`, `block` (waits on the
/// gate), `slow` (300 ms), `spin` (holds its thread 4 ms, like CPU work), `big` (a large
/// answer), `huge` (16 MB: more than both ends' socket buffers), `action` (answers the action
/// it got).
pub struct TestService {
    pub gate: Arc<Gate>,
}

impl SoapService for TestService {
    fn name(&self) -> &str {
        "TestService"
    }

    fn document(&self, query: &str, endpoint: &str) -> Option<String> {
        match query {
            "wsdl" => Some(format!(
                r#"<definitions xmlns="http://schemas.xmlsoap.org/wsdl/"><service name="TestService"><port><soap:address xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/" location="{endpoint}"/></port></service></definitions>"#
            )),
            "xsd=types" => {
                Some(r#"<xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema"/>"#.to_owned())
            }
            "xsd=panic" => panic!("the test service panics on purpose"),
            _ => None,
        }
    }

    fn call(&self, request: SoapRequest) -> BoxFuture<SoapResponse> {
        let gate = self.gate.clone();
        Box::pin(async move { answer(request, gate).await })
    }
}

fn fault(version: Version, fault: &Fault) -> SoapResponse {
    let mut out = Vec::new();
    soapstone_codec::encode_fault(&mut out, version, fault);
    SoapResponse::new(version, true, None, Bytes::from(out))
}

fn ok(version: Version, op: &'static str, inner: &str) -> SoapResponse {
    let body = format!(
        r#"<?xml version="1.0"?>
<soap:Envelope xmlns:soap="{}" xmlns:soapenc="http://schemas.xmlsoap.org/soap/encoding/" xmlns:xsi="http://www.w3.org/1999/XMLSchema-instance" xmlns:xsd="http://www.w3.org/1999/XMLSchema">
<soap:Body>
<{op}Result xmlns="http://tempuri.org/">
{inner}
</{op}Result>
</soap:Body>
</soap:Envelope>"#,
        version.envelope_ns()
    );
    SoapResponse::new(version, false, Some(op), Bytes::from(body))
}

async fn answer(req: SoapRequest, gate: Arc<Gate>) -> SoapResponse {
    let v = req.version;
    let env = match Envelope::parse(&req.body, &Limits::default()) {
        Ok(env) => env,
        Err(e) if e.is_version_mismatch() => {
            let mut out = Vec::new();
            soapstone_codec::encode_version_mismatch_fault(&mut out, v, &e.to_string());
            return SoapResponse::new(v, true, None, Bytes::from(out));
        }
        Err(e) => return fault(v, &Fault::from(&e)),
    };
    if env.version() != v {
        // The envelope is another version than the media type said.
        let mut out = Vec::new();
        let reason = format!(
            "envelope namespace `{}` does not match the media type",
            env.version().envelope_ns()
        );
        soapstone_codec::encode_version_mismatch_fault(&mut out, v, &reason);
        return SoapResponse::new(v, true, None, Bytes::from(out));
    }
    let Some(op) = env.body_element().map(|q| q.local.clone()) else {
        return fault(v, &Fault::client("empty body"));
    };
    match op.as_str() {
        "echoFloat" => {
            let Some(value) = input_text(&req.body) else {
                return fault(v, &Fault::client("missing `input`"));
            };
            match value.parse::<f32>() {
                Ok(f) => ok(v, "echoFloat", &format!("<result>{f}</result>")),
                Err(_) => fault(v, &Fault::client(format!("`{value}` is not a float"))),
            }
        }
        "fail" => fault(v, &Fault::client("`fail` always fails")),
        "panic" => panic!("the test service panics on purpose"),
        "block" => {
            gate.entered.add_permits(1);
            gate.release.acquire().await.expect("gate open").forget();
            ok(v, "block", "<done/>")
        }
        "slow" => {
            tokio::time::sleep(Duration::from_millis(300)).await;
            ok(v, "slow", "<done/>")
        }
        "spin" => {
            // Blocks the runtime thread on purpose: CPU work that makes others queue.
            std::thread::sleep(Duration::from_millis(4));
            ok(v, "spin", "<done/>")
        }
        "big" => ok(
            v,
            "big",
            &"<item>soapstone compresses well</item>\n".repeat(200),
        ),
        // Larger than the loopback socket buffers of both ends: a client that does not read
        // keeps the server in its write.
        "huge" => ok(v, "huge", &format!("<item>{}</item>", "x".repeat(16 << 20))),
        "action" => ok(
            v,
            "action",
            &format!(
                "<action>{}</action>",
                req.action.as_deref().unwrap_or("(none)")
            ),
        ),
        other => fault(v, &Fault::client(format!("unknown operation `{other}`"))),
    }
}

/// The text of the first `<input ...>` element (the test service's only parameter).
fn input_text(body: &[u8]) -> Option<String> {
    let s = std::str::from_utf8(body).ok()?;
    let start = s.find("<input")?;
    let open_end = start + s[start..].find('>')? + 1;
    let close = open_end + s[open_end..].find("</input>")?;
    Some(s[open_end..close].trim().to_owned())
}

/// The HTTP engine `SOAPSTONE_TEST_HTTP` names, if set.
fn engine_from_env(config: &mut ServerConfig) {
    match std::env::var("SOAPSTONE_TEST_HTTP").as_deref() {
        Ok("hyper") => config.http = soapstone_server::HttpEngine::Hyper,
        Ok("lean") => config.http = soapstone_server::HttpEngine::Lean,
        Ok(other) => panic!("SOAPSTONE_TEST_HTTP: `{other}` is neither `hyper` nor `lean`"),
        Err(_) => {}
    }
}

/// A real server on 127.0.0.1:0, run on its own thread and runtime.
pub struct TestServer {
    pub addr: SocketAddr,
    pub server: Server,
    pub gate: Arc<Gate>,
    shutdown: Option<oneshot::Sender<()>>,
    done: Option<std::sync::mpsc::Receiver<io::Result<()>>>,
}

impl TestServer {
    /// A server with `config`, its HTTP engine chosen by `SOAPSTONE_TEST_HTTP` (`hyper` or
    /// `lean`) when set, so the whole suite runs on either engine, and its blocking
    /// connections by `SOAPSTONE_TEST_BLOCKING`.
    pub fn start(mut config: ServerConfig) -> TestServer {
        engine_from_env(&mut config);
        // `SOAPSTONE_TEST_BLOCKING=N`: the whole suite with N blocking connections.
        if let Ok(n) = std::env::var("SOAPSTONE_TEST_BLOCKING") {
            config.blocking_connections = n.parse().expect("SOAPSTONE_TEST_BLOCKING: a count");
        }
        TestServer::start_exact(config)
    }

    /// As [`TestServer::start`], with every connection on the runtimes
    /// (`SOAPSTONE_TEST_BLOCKING` ignored): for tests of how the runtimes share connections.
    pub fn start_on_runtimes(mut config: ServerConfig) -> TestServer {
        engine_from_env(&mut config);
        TestServer::start_exact(config)
    }

    /// A server with `config` as it is (`SOAPSTONE_TEST_HTTP` ignored).
    pub fn start_exact(config: ServerConfig) -> TestServer {
        let gate = Arc::new(Gate::default());
        let service = Arc::new(TestService { gate: gate.clone() });
        let server = Server::builder()
            .mount("/echo", service)
            .config(config)
            .build();
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let (tx, rx) = oneshot::channel::<()>();
        let serving = server
            .clone()
            .serve_with_shutdown(listener, async {
                let _ = rx.await;
            })
            .unwrap();
        let addr = serving.local_addr();
        let (done_tx, done_rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap();
            let _ = done_tx.send(rt.block_on(serving.into_future()));
        });
        TestServer {
            addr,
            server,
            gate,
            shutdown: Some(tx),
            done: Some(done_rx),
        }
    }

    /// Waits until a `block` call has entered the service (and holds it there until
    /// `gate.release` gets a permit).
    pub fn wait_blocked(&self) {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async { self.gate.entered.acquire().await.unwrap().forget() });
    }

    /// Asks the server to shut down (graceful).
    pub fn begin_shutdown(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
    }

    /// Waits for the serve future to end.
    pub fn wait(&mut self, timeout: Duration) -> io::Result<()> {
        let rx = self.done.take().expect("wait once");
        rx.recv_timeout(timeout)
            .map_err(|_| io::Error::other("server did not stop in time"))?
    }

    /// A connection with a 30 s read timeout: long enough for a loaded machine, and it turns a
    /// hang into an error.
    pub fn connect(&self) -> TcpStream {
        let s = TcpStream::connect(self.addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        s
    }

    /// A connection from the loopback address `ip` (any of 127.0.0.0/8 on Linux).
    pub fn connect_from(&self, ip: [u8; 4]) -> TcpStream {
        let sock =
            socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
        let from = SocketAddr::from((ip, 0));
        sock.bind(&from.into()).unwrap();
        sock.connect(&self.addr.into()).unwrap();
        let s: TcpStream = sock.into();
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        s
    }

    /// The value of an unlabelled metric.
    pub fn metric(&self, name: &str) -> u64 {
        let text = self.server.metrics_text();
        text.lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
            .unwrap_or_else(|| panic!("no metric `{name}` in\n{text}"))
    }

    /// Waits (up to 10 s) until `name` reaches `value`.
    pub fn wait_metric(&self, name: &str, value: u64) {
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while self.metric(name) < value {
            assert!(
                std::time::Instant::now() < deadline,
                "`{name}` stuck at {} below {value}",
                self.metric(name)
            );
            std::thread::sleep(Duration::from_millis(4));
        }
    }

    /// Waits (up to 10 s) until the metric `name` falls to `value` or below: a gauge such as
    /// `soapstone_connections_open` counts an evicted connection until its task has dropped it,
    /// which happens on another thread a moment after the eviction.
    pub fn wait_metric_at_most(&self, name: &str, value: u64) {
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while self.metric(name) > value {
            assert!(
                std::time::Instant::now() < deadline,
                "`{name}` stuck at {} above {value}",
                self.metric(name)
            );
            std::thread::sleep(Duration::from_millis(4));
        }
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.gate.release.add_permits(1000);
        self.begin_shutdown();
    }
}

use std::future::IntoFuture;

/// A SOAP 1.1 POST to `/echo` with a Content-Length.
pub fn post(body: &str, extra_headers: &str) -> Vec<u8> {
    format!(
        "POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/xml; charset=utf-8\r\nSOAPAction: \"http://tempuri.org/echo\"\r\n{extra_headers}Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// A parsed HTTP response.
#[derive(Debug)]
pub struct Resp {
    pub status: u16,
    pub head: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Resp {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// Reads one response framed by its Content-Length or chunked encoding (never to EOF).
pub fn read_response(s: &mut TcpStream) -> io::Result<Resp> {
    let mut buf = Vec::new();
    let head_end = loop {
        if let Some(i) = find(&buf, b"\r\n\r\n") {
            break i + 4;
        }
        read_more(s, &mut buf)?;
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or_default();
    let status = status_line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let headers: Vec<(String, String)> = lines
        .filter(|l| !l.is_empty())
        .filter_map(|l| {
            l.split_once(':')
                .map(|(n, v)| (n.trim().to_owned(), v.trim().to_owned()))
        })
        .collect();
    let mut rest = buf[head_end..].to_vec();
    let get = |n: &str| {
        headers
            .iter()
            .find(|(h, _)| h.eq_ignore_ascii_case(n))
            .map(|(_, v)| v.clone())
    };
    let body = if status == 100 || status == 204 || status == 304 {
        Vec::new()
    } else if let Some(len) = get("content-length") {
        let len: usize = len.parse().unwrap();
        while rest.len() < len {
            read_more(s, &mut rest)?;
        }
        assert_eq!(rest.len(), len, "bytes after the response body");
        rest
    } else if get("transfer-encoding").is_some_and(|t| t.eq_ignore_ascii_case("chunked")) {
        dechunk(s, rest)?
    } else {
        return Err(io::Error::other(format!(
            "response without framing: {head}"
        )));
    };
    Ok(Resp {
        status,
        head,
        headers,
        body,
    })
}

fn dechunk(s: &mut TcpStream, mut buf: Vec<u8>) -> io::Result<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let line_end = loop {
            if let Some(i) = find(&buf, b"\r\n") {
                break i;
            }
            read_more(s, &mut buf)?;
        };
        let size = usize::from_str_radix(std::str::from_utf8(&buf[..line_end]).unwrap().trim(), 16)
            .unwrap();
        buf.drain(..line_end + 2);
        while buf.len() < size + 2 {
            read_more(s, &mut buf)?;
        }
        if size == 0 {
            return Ok(out);
        }
        out.extend_from_slice(&buf[..size]);
        buf.drain(..size + 2);
    }
}

fn read_more(s: &mut TcpStream, buf: &mut Vec<u8>) -> io::Result<()> {
    let mut chunk = [0u8; 8192];
    let n = s.read(&mut chunk)?;
    if n == 0 {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "connection closed",
        ));
    }
    buf.extend_from_slice(&chunk[..n]);
    Ok(())
}

/// Reads until the server closes the connection (errors on the read timeout).
pub fn read_to_close(s: &mut TcpStream) -> io::Result<Vec<u8>> {
    let mut out = Vec::new();
    s.read_to_end(&mut out)?;
    Ok(out)
}

/// True when the server closed (EOF or reset) within the read timeout.
pub fn closed_by_server(s: &mut TcpStream) -> bool {
    let mut b = [0u8; 1024];
    loop {
        match s.read(&mut b) {
            Ok(0) => return true,
            Ok(_) => continue,
            Err(e) if e.kind() == io::ErrorKind::ConnectionReset => return true,
            Err(_) => return false,
        }
    }
}

pub fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// [`ECHO_FLOAT`] posted with a chunked body: its first 100 bytes, then the rest.
pub fn chunked_echo_float() -> String {
    let (a, b) = ECHO_FLOAT.split_at(100);
    format!(
        "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml\r\nTransfer-Encoding: chunked\r\n\r\n{:x}\r\n{a}\r\n{:x}\r\n{b}\r\n0\r\n\r\n",
        a.len(),
        b.len()
    )
}

pub fn send(s: &mut TcpStream, bytes: &[u8]) {
    s.write_all(bytes).unwrap();
}

/// Sends [`ECHO_FLOAT`] on `s` and checks the echoed value comes back.
pub fn echo_float(s: &mut TcpStream) {
    send(s, &post(ECHO_FLOAT, ""));
    let r = read_response(s).unwrap();
    assert!(
        r.text().contains("<result>3.14159</result>"),
        "{}",
        r.text()
    );
}

/// The test service at `/echo` on a server used as a tower `Service` (not listening).
pub fn soap_server() -> Server {
    let gate = Arc::new(Gate::default());
    Server::builder()
        .mount("/echo", Arc::new(TestService { gate }))
        .build()
}
