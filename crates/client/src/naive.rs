//! The seeds' client-side causes, on purpose: a client that calls like the toolkits the thesis
//! and Davis and Parashar traced.
//!
//! - **read to EOF**: the answer's end is the server's FIN, not its `Content-Length` (the
//!   thesis's packet 9: the call lasts until the server closes);
//! - **a connection per call** (HTTP/1.0): a handshake and a slow-started window every call;
//! - **`Expect: 100-continue`**: the head goes alone and the body waits for `100 Continue`,
//!   one more round trip (Davis and Parashar's .NET traces).
//!
//! This module is a separate raw HTTP/1.x path so that the cured path (`conn`) carries none
//! of it. It must never be taken unless a mode was asked for by name ([`NaiveModes`] is all
//! off by default), and it keeps every bound of the cured path: the request timeout covers the
//! whole exchange, a response head is at most [`MAX_HEAD`], and a body (however it ends) at
//! most the client's `max_document_bytes`.

use std::sync::Mutex;
use std::time::Duration;

use bytes::Bytes;
use http::{Request, Response};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

use crate::Error;

/// Deliberately slow client behaviour for the lab, all off by default. Build with
/// `NaiveModes::default()` and switch causes on one by one with the methods.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct NaiveModes {
    /// Read each answer until the server closes the connection, ignoring its
    /// `Content-Length` (asks for `Connection: close`, so each call has its own connection).
    /// Default: `false`.
    pub read_to_eof: bool,
    /// Open a new connection for every call and speak HTTP/1.0. Default: `false`.
    pub connection_per_call: bool,
    /// Send `Expect: 100-continue` and hold the body back until the server's
    /// `100 Continue` (or its final answer). Default: `false`.
    pub expect_continue: bool,
    /// With `expect_continue`, how long the body waits for `100 Continue` before it is sent
    /// anyway (a server owes no `100` to an HTTP/1.0 client). Default: `350 ms` (.NET's).
    pub expect_timeout: Duration,
}

impl Default for NaiveModes {
    fn default() -> Self {
        NaiveModes {
            read_to_eof: false,
            connection_per_call: false,
            expect_continue: false,
            expect_timeout: Duration::from_millis(350),
        }
    }
}

impl NaiveModes {
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
    /// Every client cause.
    pub fn all() -> Self {
        NaiveModes::default()
            .with_read_to_eof()
            .with_connection_per_call()
            .with_expect_continue()
    }
    /// Whether any cause is on.
    pub fn any(&self) -> bool {
        self.read_to_eof || self.connection_per_call || self.expect_continue
    }
    /// Parses a comma-separated list: `read-to-eof`, `connection-per-call`,
    /// `expect-continue`, `all`.
    pub fn parse(list: &str) -> Result<Self, String> {
        let mut modes = NaiveModes::default();
        for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            modes = match name {
                "read-to-eof" => modes.with_read_to_eof(),
                "connection-per-call" => modes.with_connection_per_call(),
                "expect-continue" => modes.with_expect_continue(),
                "all" => NaiveModes::all(),
                other => {
                    return Err(format!(
                        "unknown client naive mode `{other}`, expected `read-to-eof`, `connection-per-call`, `expect-continue` or `all`"
                    ))
                }
            };
        }
        Ok(modes)
    }
}

/// Largest response head the naive path reads.
pub(crate) const MAX_HEAD: usize = 64 << 10;

/// What the naive path needs of the client.
pub(crate) struct Target<'a> {
    pub(crate) host: &'a str,
    pub(crate) port: u16,
    pub(crate) connect_timeout: Duration,
    pub(crate) request_timeout: Duration,
    pub(crate) max_body: usize,
    pub(crate) modes: NaiveModes,
    /// The one keep-alive connection kept when no mode closes connections.
    pub(crate) idle: &'a Mutex<Option<TcpStream>>,
}

/// Sends `req` the naive way and reads its whole answer.
pub(crate) async fn send(t: &Target<'_>, req: Request<Bytes>) -> Result<Response<Bytes>, Error> {
    let keep_alive = !t.modes.read_to_eof && !t.modes.connection_per_call;
    let pooled = if keep_alive {
        t.idle.lock().unwrap_or_else(|e| e.into_inner()).take()
    } else {
        None
    };
    let mut stream = match pooled {
        Some(s) => s,
        None => connect(t).await?,
    };
    let res = tokio::time::timeout(t.request_timeout, exchange(&mut stream, t, req))
        .await
        .map_err(|_| Error::timeout(t.request_timeout))??;
    let (resp, reusable) = res;
    if keep_alive && reusable {
        *t.idle.lock().unwrap_or_else(|e| e.into_inner()) = Some(stream);
    }
    Ok(resp)
}

async fn connect(t: &Target<'_>) -> Result<TcpStream, Error> {
    let label = format!("{}:{}", t.host, t.port);
    let stream = tokio::time::timeout(t.connect_timeout, TcpStream::connect((t.host, t.port)))
        .await
        .map_err(|_| Error::connect_timeout(&label, t.connect_timeout))?
        .map_err(|e| Error::connect(&label, e))?;
    // Nagle is not one of the client's causes: only the modes asked for slow the call.
    stream
        .set_nodelay(true)
        .map_err(|e| Error::connect(&label, e))?;
    Ok(stream)
}

fn io_err(e: std::io::Error) -> Error {
    Error::body("naive exchange failed", e)
}

/// One exchange; the answer and whether the connection can take another request.
async fn exchange(
    s: &mut TcpStream,
    t: &Target<'_>,
    req: Request<Bytes>,
) -> Result<(Response<Bytes>, bool), Error> {
    let (parts, body) = req.into_parts();
    let version = if t.modes.connection_per_call {
        "HTTP/1.0"
    } else {
        "HTTP/1.1"
    };
    let mut head = format!("POST {} {version}\r\n", parts.uri).into_bytes();
    for (name, value) in &parts.headers {
        head.extend_from_slice(name.as_str().as_bytes());
        head.extend_from_slice(b": ");
        head.extend_from_slice(value.as_bytes());
        head.extend_from_slice(b"\r\n");
    }
    head.extend_from_slice(format!("content-length: {}\r\n", body.len()).as_bytes());
    if t.modes.read_to_eof && !t.modes.connection_per_call {
        head.extend_from_slice(b"connection: close\r\n");
    }
    if t.modes.expect_continue {
        head.extend_from_slice(b"expect: 100-continue\r\n");
    }
    head.extend_from_slice(b"\r\n");
    let mut buf = Vec::new();
    if t.modes.expect_continue {
        s.write_all(&head).await.map_err(io_err)?;
        // `read_head` is cancel-safe: what it read stays in `buf`.
        match tokio::time::timeout(t.modes.expect_timeout, read_head(s, &mut buf)).await {
            Err(_) => s.write_all(&body).await.map_err(io_err)?,
            Ok(Err(e)) => return Err(e),
            Ok(Ok((100, head_len))) => {
                buf.drain(..head_len);
                s.write_all(&body).await.map_err(io_err)?;
            }
            Ok(Ok((_, head_len))) => {
                // A final answer without the body: the request is over, the connection too.
                let (resp, _) = read_rest(s, t, buf, head_len, false).await?;
                return Ok((resp, false));
            }
        }
    } else {
        head.extend_from_slice(&body);
        s.write_all(&head).await.map_err(io_err)?;
    }
    let (_, head_len) = read_head(s, &mut buf).await?;
    read_rest(s, t, buf, head_len, t.modes.read_to_eof).await
}

/// Reads until `buf` holds a whole response head; its status and length.
async fn read_head(s: &mut TcpStream, buf: &mut Vec<u8>) -> Result<(u16, usize), Error> {
    loop {
        let mut headers = [httparse::EMPTY_HEADER; 100];
        let mut resp = httparse::Response::new(&mut headers);
        match resp.parse(buf) {
            Ok(httparse::Status::Complete(len)) => return Ok((resp.code.unwrap_or(0), len)),
            Ok(httparse::Status::Partial) => {}
            Err(e) => return Err(Error::http(format!("malformed response head: {e}"))),
        }
        if buf.len() >= MAX_HEAD {
            return Err(Error::http(format!(
                "response head over `{MAX_HEAD}` bytes"
            )));
        }
        let mut chunk = [0u8; 8192];
        let n = s.read(&mut chunk).await.map_err(io_err)?;
        if n == 0 {
            return Err(Error::body(
                "connection closed before the message ended",
                "unexpected eof in the response head",
            ));
        }
        buf.extend_from_slice(&chunk[..n]);
    }
}

/// Reads the body after a head of `head_len` bytes at the start of `buf`: to EOF when `to_eof`
/// (or when the answer has no `Content-Length`), else `Content-Length` bytes.
async fn read_rest(
    s: &mut TcpStream,
    t: &Target<'_>,
    mut buf: Vec<u8>,
    head_len: usize,
    to_eof: bool,
) -> Result<(Response<Bytes>, bool), Error> {
    let mut headers = [httparse::EMPTY_HEADER; 100];
    let mut parsed = httparse::Response::new(&mut headers);
    parsed
        .parse(&buf)
        .map_err(|e| Error::http(format!("malformed response head: {e}")))?;
    let mut builder = Response::builder().status(parsed.code.unwrap_or(0));
    let mut length = None;
    let mut close = parsed.version == Some(0);
    for h in parsed.headers.iter() {
        if h.name.eq_ignore_ascii_case("content-length") {
            let text = std::str::from_utf8(h.value).unwrap_or("");
            length =
                Some(text.trim().parse::<usize>().map_err(|_| {
                    Error::http(format!("invalid content-length `{}`", text.trim()))
                })?);
        } else if h.name.eq_ignore_ascii_case("transfer-encoding") {
            return Err(Error::http(
                "the naive client reads no `transfer-encoding`; answer with content-length",
            ));
        } else if h.name.eq_ignore_ascii_case("connection") {
            close |= h.value.eq_ignore_ascii_case(b"close");
        }
        builder = builder.header(h.name, h.value);
    }
    let builder = builder;
    buf.drain(..head_len);
    let mut chunk = [0u8; 16384];
    let eof = to_eof || length.is_none();
    loop {
        if !eof && length.is_some_and(|l| buf.len() >= l) {
            break;
        }
        if buf.len() > t.max_body {
            return Err(Error::body(
                "response body too large",
                format!("over `{}` bytes", t.max_body),
            ));
        }
        let n = s.read(&mut chunk).await.map_err(io_err)?;
        if n == 0 {
            if eof {
                break;
            }
            return Err(Error::body(
                "connection closed before the message ended",
                "unexpected eof",
            ));
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    if let (false, Some(l)) = (eof, length) {
        buf.truncate(l);
    }
    let resp = builder
        .body(Bytes::from(buf))
        .map_err(|e| Error::http(format!("bad response header: {e}")))?;
    Ok((resp, !eof && !close))
}
