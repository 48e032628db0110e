//! The seeds' client-side causes in the load generator (`soapstone bench --naive`), so that
//! throughput under each cause can be measured, not only one call's latency (issue 13):
//!
//! - **read to EOF**: `Connection: close`, and the answer ends at the server's FIN whatever its
//!   `Content-Length` says (the thesis's packet 9);
//! - **a connection per call**: HTTP/1.0, a handshake and a slow-started window every call;
//! - **`Expect: 100-continue`**: the head goes alone and the body waits for `100 Continue` (or
//!   [`NaiveCauses::expect_timeout`]), one more round trip (Davis and Parashar's .NET traces).
//!
//! A raw HTTP/1.x exchange of its own, beside the lean one ([`super::http`]), so that the cured path
//! carries none of it; the names and behaviour are those of `soapstone_client::NaiveModes`
//! (`crates/client/src/naive.rs`), which the lab's traces use. This module must never be taken
//! unless a cause was asked for by name ([`NaiveCauses::default`] is all off), never retry, and
//! keeps the cured path's bounds: the call's deadline covers the whole exchange, a response
//! head is at most [`MAX_HEAD`] and a body, however it ends, at most
//! [`NaiveCauses::max_body`]. `TCP_NODELAY` stays on: Nagle is a server cause, not a client's.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;
use tokio::time::Instant;

use super::{connect_tcp, Counting, ErrorKind, IoCounters, Outcome};
use crate::fault::is_soap_fault;
use crate::target::{SoapTarget, SoapVersion};

/// Largest response head read.
pub(crate) const MAX_HEAD: usize = 64 << 10;

/// The client's causes a SOAP target is called with, all off by default. Build with
/// [`NaiveCauses::parse`] or the `with_*` methods.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct NaiveCauses {
    /// Read each answer until the server closes, ignoring `Content-Length` (sends
    /// `Connection: close`, so every call has its own connection). Default: `false`.
    pub read_to_eof: bool,
    /// A new HTTP/1.0 connection for every call. Default: `false`.
    pub connection_per_call: bool,
    /// Send `Expect: 100-continue` and hold the body back until `100 Continue` (or a final
    /// answer). Default: `false`.
    pub expect_continue: bool,
    /// With `expect_continue`, how long the body waits for `100 Continue` before it is sent
    /// anyway (a server owes no `100` to an HTTP/1.0 client). Default: `350 ms` (.NET's).
    pub expect_timeout: Duration,
    /// Largest response body read, however it is framed. Default: `16 MiB`.
    pub max_body: usize,
}

impl Default for NaiveCauses {
    fn default() -> Self {
        NaiveCauses {
            read_to_eof: false,
            connection_per_call: false,
            expect_continue: false,
            expect_timeout: Duration::from_millis(350),
            max_body: 16 << 20,
        }
    }
}

impl NaiveCauses {
    /// Reads answers to EOF.
    pub fn with_read_to_eof(mut self) -> Self {
        self.read_to_eof = true;
        self
    }

    /// A new HTTP/1.0 connection per call.
    pub fn with_connection_per_call(mut self) -> Self {
        self.connection_per_call = true;
        self
    }

    /// Waits for `100 Continue` before each body.
    pub fn with_expect_continue(mut self) -> Self {
        self.expect_continue = true;
        self
    }

    /// Whether any cause is on.
    pub fn any(&self) -> bool {
        self.read_to_eof || self.connection_per_call || self.expect_continue
    }

    /// Parses a comma-separated list: `read-to-eof`, `connection-per-call`, `expect-continue`,
    /// `all` (the three).
    pub fn parse(list: &str) -> Result<Self, String> {
        let mut c = NaiveCauses::default();
        for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            c = match name {
                "read-to-eof" => c.with_read_to_eof(),
                "connection-per-call" => c.with_connection_per_call(),
                "expect-continue" => c.with_expect_continue(),
                "all" => c
                    .with_read_to_eof()
                    .with_connection_per_call()
                    .with_expect_continue(),
                other => {
                    return Err(format!(
                        "unknown client cause `{other}`: expected `read-to-eof`, \
                         `connection-per-call`, `expect-continue` or `all`"
                    ))
                }
            };
        }
        if !c.any() {
            return Err(format!("no client cause in `{list}`"));
        }
        Ok(c)
    }
}

/// A task's connection, called with the causes on.
pub(crate) struct NaiveConn {
    addr: SocketAddr,
    /// The request head up to (not including) the blank line.
    head: Vec<u8>,
    bodies: Vec<Bytes>,
    next: usize,
    causes: NaiveCauses,
    counters: Arc<IoCounters>,
    /// The kept connection, when no cause closes it.
    stream: Option<Counting<TcpStream>>,
}

impl NaiveConn {
    pub(crate) fn new(
        t: &SoapTarget,
        addr: SocketAddr,
        counters: Arc<IoCounters>,
        idx: usize,
    ) -> Self {
        NaiveConn {
            addr,
            head: head(t, &t.naive),
            bodies: t.bodies.clone(),
            next: idx % t.bodies.len().max(1),
            causes: t.naive,
            counters,
            stream: None,
        }
    }

    fn keeps_connection(&self) -> bool {
        !self.causes.read_to_eof && !self.causes.connection_per_call
    }

    pub(crate) async fn connect(&mut self, deadline: Instant) -> Outcome {
        // A connection per call is opened by the call, so that its handshake is timed.
        if self.keeps_connection() {
            let s = connect_tcp(self.addr, deadline).await?;
            self.stream = Some(Counting::new(s, self.counters.clone()));
        }
        Ok(())
    }

    pub(crate) async fn call(&mut self, deadline: Instant) -> Outcome {
        let mut stream = match self.stream.take() {
            Some(s) => s,
            None => Counting::new(
                connect_tcp(self.addr, deadline).await?,
                self.counters.clone(),
            ),
        };
        let body = self.bodies.get(self.next).cloned().unwrap_or_default();
        self.next = (self.next + 1) % self.bodies.len().max(1);
        let exchange = exchange(&mut stream, &self.head, &body, &self.causes);
        let (status, answer, reusable) = tokio::time::timeout_at(deadline, exchange)
            .await
            .map_err(|_| ErrorKind::Timeout)??;
        if reusable && self.keeps_connection() {
            self.stream = Some(stream);
        }
        if (200..300).contains(&status) {
            Ok(())
        } else if (status == 500 || status == 400) && is_soap_fault(&answer) {
            Err(ErrorKind::SoapFault)
        } else {
            Err(ErrorKind::HttpStatus(status))
        }
    }
}

/// The request head without its blank line: the request line, the target's headers and the
/// causes' (`Connection: close`, `Expect: 100-continue`).
fn head(t: &SoapTarget, causes: &NaiveCauses) -> Vec<u8> {
    let path = t.uri.path_and_query().map_or("/", |p| p.as_str());
    let version = if causes.connection_per_call {
        "HTTP/1.0"
    } else {
        "HTTP/1.1"
    };
    let host = t.uri.authority().map_or("", |a| a.as_str());
    let action = t.action.as_deref().unwrap_or("");
    let mut h = format!("POST {path} {version}\r\nhost: {host}\r\nuser-agent: soapstone-bench\r\n");
    match t.version {
        SoapVersion::Soap11 => h.push_str(&format!(
            "content-type: text/xml; charset=utf-8\r\nsoapaction: \"{action}\"\r\n"
        )),
        SoapVersion::Soap12 if action.is_empty() => {
            h.push_str("content-type: application/soap+xml; charset=utf-8\r\n");
        }
        SoapVersion::Soap12 => h.push_str(&format!(
            "content-type: application/soap+xml; charset=utf-8; action=\"{action}\"\r\n"
        )),
    }
    if causes.read_to_eof && !causes.connection_per_call {
        h.push_str("connection: close\r\n");
    }
    if causes.expect_continue {
        h.push_str("expect: 100-continue\r\n");
    }
    h.into_bytes()
}

/// One exchange: the final status, the body read, and whether the connection can be kept.
async fn exchange<S>(
    s: &mut S,
    head: &[u8],
    body: &[u8],
    c: &NaiveCauses,
) -> Result<(u16, Vec<u8>, bool), ErrorKind>
where
    S: AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    let mut out = Vec::with_capacity(head.len() + 32 + body.len());
    out.extend_from_slice(head);
    out.extend_from_slice(format!("content-length: {}\r\n\r\n", body.len()).as_bytes());
    let mut buf = Vec::new();
    if c.expect_continue {
        s.write_all(&out).await.map_err(|_| ErrorKind::Io)?;
        // `read_head` is cancel-safe: what it read stays in `buf`.
        match tokio::time::timeout(c.expect_timeout, read_head(s, &mut buf)).await {
            Err(_) => s.write_all(body).await.map_err(|_| ErrorKind::Io)?,
            Ok(head) => {
                let (status, len) = head?;
                if status != 100 {
                    // A final answer without the body: the request and the connection are over.
                    let (status, answer, _) = read_rest(s, buf, len, false, c).await?;
                    return Ok((status, answer, false));
                }
                buf.drain(..len);
                s.write_all(body).await.map_err(|_| ErrorKind::Io)?;
            }
        }
    } else {
        out.extend_from_slice(body);
        s.write_all(&out).await.map_err(|_| ErrorKind::Io)?;
    }
    loop {
        let (status, len) = read_head(s, &mut buf).await?;
        if (100..200).contains(&status) {
            buf.drain(..len); // another interim answer
            continue;
        }
        return read_rest(s, buf, len, c.read_to_eof, c).await;
    }
}

/// Reads until `buf` holds a whole response head: its status and length.
async fn read_head<S: AsyncRead + Unpin>(
    s: &mut S,
    buf: &mut Vec<u8>,
) -> Result<(u16, usize), ErrorKind> {
    loop {
        let mut headers = [httparse::EMPTY_HEADER; 64];
        let mut resp = httparse::Response::new(&mut headers);
        match resp.parse(buf) {
            Ok(httparse::Status::Complete(len)) => return Ok((resp.code.unwrap_or(0), len)),
            Ok(httparse::Status::Partial) if buf.len() < MAX_HEAD => {}
            Ok(httparse::Status::Partial) | Err(_) => return Err(ErrorKind::Invalid),
        }
        let mut chunk = [0u8; 8192];
        match s.read(&mut chunk).await {
            Ok(0) | Err(_) => return Err(ErrorKind::Io),
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
}

/// Reads the body after a head of `len` bytes at the start of `buf`: to EOF when `to_eof` or
/// when the answer has no `Content-Length`, else `Content-Length` bytes. A chunked answer is
/// refused as invalid (the naive client, like the toolkits it stands for, reads none).
async fn read_rest<S: AsyncRead + Unpin>(
    s: &mut S,
    mut buf: Vec<u8>,
    len: usize,
    to_eof: bool,
    c: &NaiveCauses,
) -> Result<(u16, Vec<u8>, bool), ErrorKind> {
    let mut headers = [httparse::EMPTY_HEADER; 64];
    let mut resp = httparse::Response::new(&mut headers);
    resp.parse(&buf).map_err(|_| ErrorKind::Invalid)?;
    let status = resp.code.unwrap_or(0);
    let mut length = None;
    let mut close = resp.version == Some(0);
    for h in resp.headers.iter() {
        if h.name.eq_ignore_ascii_case("content-length") {
            let v = std::str::from_utf8(h.value).unwrap_or("").trim();
            length = Some(v.parse::<usize>().map_err(|_| ErrorKind::Invalid)?);
        } else if h.name.eq_ignore_ascii_case("transfer-encoding") {
            return Err(ErrorKind::Invalid);
        } else if h.name.eq_ignore_ascii_case("connection") {
            close |= h.value.eq_ignore_ascii_case(b"close");
        }
    }
    buf.drain(..len);
    let eof = to_eof || length.is_none();
    let mut chunk = [0u8; 16384];
    while eof || length.is_some_and(|l| buf.len() < l) {
        if buf.len() > c.max_body {
            return Err(ErrorKind::Invalid);
        }
        match s.read(&mut chunk).await {
            Ok(0) if eof => break,
            Ok(0) | Err(_) => return Err(ErrorKind::Io),
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
    if let (false, Some(l)) = (eof, length) {
        buf.truncate(l);
    }
    Ok((status, buf, !eof && !close))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::target::Target;

    fn soap(causes: &str) -> SoapTarget {
        let Target::Soap(t) = Target::soap("http://127.0.0.1:9/echo", "<x/>")
            .unwrap()
            .with_action("urn:a")
            .with_naive(NaiveCauses::parse(causes).unwrap())
            .unwrap()
        else {
            unreachable!()
        };
        t
    }

    #[test]
    fn causes_parse_by_name_only() {
        let all = NaiveCauses::parse("all").unwrap();
        assert!(all.read_to_eof && all.connection_per_call && all.expect_continue);
        let one = NaiveCauses::parse("expect-continue").unwrap();
        assert!(one.expect_continue && !one.read_to_eof && !one.connection_per_call);
        let e = NaiveCauses::parse("read-to-eof,nagle").unwrap_err();
        assert!(e.contains("`nagle`"), "{e}");
        assert!(NaiveCauses::parse(" , ").is_err());
        assert!(!NaiveCauses::default().any());
    }

    #[test]
    fn each_cause_shows_in_the_request_head() {
        let h = String::from_utf8(head(&soap("read-to-eof"), &soap("read-to-eof").naive)).unwrap();
        assert!(h.starts_with("POST /echo HTTP/1.1\r\n"), "{h}");
        assert!(h.contains("connection: close\r\n") && !h.contains("expect"));
        assert!(h.contains("soapaction: \"urn:a\"\r\n"));
        let t = soap("connection-per-call,expect-continue");
        let h = String::from_utf8(head(&t, &t.naive)).unwrap();
        assert!(h.starts_with("POST /echo HTTP/1.0\r\n"), "{h}");
        assert!(h.contains("expect: 100-continue\r\n") && !h.contains("connection:"));
    }
}
