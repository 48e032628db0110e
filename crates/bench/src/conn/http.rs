//! SOAP over one HTTP/1.1 keep-alive connection, over TLS (rustls) for an `https://` target,
//! the certificate verified for the URL's host: a lean exchange of the generator's own.
//!
//! Each request is one write of bytes built once per body (the head, fixed per target, with
//! the body's `Content-Length`, then the body), and the answer is read into a buffer the
//! connection keeps. Its head is framed by `soapstone-http1` (`httparse`, the rules the
//! soapstone Client reads answers by): `Content-Length`, chunked or read to EOF (never by EOF
//! when a length is given), interim `1xx` answers skipped, `Connection: close` and HTTP/1.0
//! honoured. A successful body is dropped as it arrives, whatever its size; an error body is
//! kept (up to 1 MiB) only to tell a SOAP Fault from other errors.
//!
//! Why not hyper's client connection, which this module used before: a load generator's own
//! cost is charged to the server it measures whenever both share a CPU (every one-CPU round
//! trip, and the load runs with the generator beside the server). hyper's cost per call was
//! about 19,700 instructions and a dozen heap allocations (a `HeaderMap` cloned per request,
//! the body's `Bytes`, the response's body channel, the connection's driver task woken through
//! a channel per request): as much as the soapstone server's whole request. docs/performance.md
//! ("Round nine") has the before and after.
//!
//! It must never: retry a request (a failed call is reported; only an idle connection the
//! server closed before the request, seen by [`Io::is_open`], is replaced unused), reuse a
//! connection whose answer was not read to its end or left bytes behind, buffer more than
//! [`MAX_HEAD`] of a head or [`MAX_ERROR_BODY`] of a body.

use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use bytes::{Buf as _, Bytes, BytesMut};
use http::header::HeaderValue;
use rustls_pki_types::ServerName;
use soapstone_http1::response::{self, Framing};
use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWrite, AsyncWriteExt as _, ReadBuf};
use tokio::net::TcpStream;
use tokio::time::Instant;
use tokio_rustls::client::TlsStream;

use super::{connect_tcp, Counting, ErrorKind, IoCounters, Outcome};
use crate::fault::is_soap_fault;
use crate::target::{SoapTarget, SoapVersion};

/// Error bodies longer than this are cut before the fault check.
const MAX_ERROR_BODY: usize = 1 << 20;
/// Largest response head (and chunk size line, and trailer section) read.
const MAX_HEAD: usize = 64 << 10;
/// Room made in the read buffer before each read.
const READ_CHUNK: usize = 16 << 10;

pub(crate) struct HttpConn {
    addr: SocketAddr,
    /// The request head from its request line to its last header before `Content-Length`.
    fixed: Vec<u8>,
    /// Each body's whole request, head and body (built once).
    requests: Vec<Bytes>,
    /// The bodies with a fresh WS-Security token each time, when the target has one (their
    /// requests are built per call into `write`).
    wsse: Option<Arc<crate::wsse::WsseBodies>>,
    /// Index in `requests` of the next request.
    next: usize,
    counters: Arc<IoCounters>,
    io: Option<Io>,
    /// Bytes read and not yet used (empty between exchanges).
    read: BytesMut,
    /// A request built per call (WS-Security).
    write: Vec<u8>,
    /// The TLS connector and server name of an `https://` target.
    tls: Option<(tokio_rustls::TlsConnector, ServerName<'static>)>,
}

impl HttpConn {
    /// The connection of task `idx` (which body it starts the rotation at).
    pub(crate) fn new(
        target: &SoapTarget,
        addr: SocketAddr,
        counters: Arc<IoCounters>,
        idx: usize,
    ) -> Self {
        let fixed = fixed_head(target);
        let requests = target
            .bodies
            .iter()
            .map(|body| Bytes::from(request(&fixed, body)))
            .collect();
        HttpConn {
            addr,
            fixed,
            requests,
            wsse: target.wsse.clone(),
            next: idx % target.bodies.len().max(1),
            counters,
            io: None,
            read: BytesMut::new(),
            write: Vec::new(),
            tls: target.tls.clone().and_then(|config| {
                let host = target
                    .uri
                    .host()?
                    .trim_start_matches('[')
                    .trim_end_matches(']');
                let name = ServerName::try_from(host.to_owned()).ok()?;
                Some((tokio_rustls::TlsConnector::from(config), name))
            }),
        }
    }

    pub(crate) async fn connect(&mut self, deadline: Instant) -> Outcome {
        self.io = None;
        self.read.clear();
        let stream = connect_tcp(self.addr, deadline).await?;
        // Counted at the socket: over TLS, the encrypted bytes.
        let counted = Counting::new(stream, self.counters.clone());
        self.io = Some(match &self.tls {
            None => Io::Plain(counted),
            Some((connector, name)) => {
                let tls =
                    tokio::time::timeout_at(deadline, connector.connect(name.clone(), counted))
                        .await
                        .map_err(|_| ErrorKind::Connect)?
                        .map_err(|e| {
                            tracing::debug!(error = %e, "tls handshake failed");
                            ErrorKind::Connect
                        })?;
                Io::Tls(Box::new(tls))
            }
        });
        Ok(())
    }

    pub(crate) async fn call(&mut self, deadline: Instant) -> Outcome {
        // A keep-alive connection the server closed while idle (or right after its last
        // answer) is seen before anything is sent: no error of this request, so it gets a
        // fresh connection.
        if !self.io.as_mut().is_some_and(Io::is_open) {
            self.connect(deadline).await?;
        }
        let (result, reuse) = match tokio::time::timeout_at(deadline, self.exchange()).await {
            Ok(done) => done,
            Err(_) => (Err(ErrorKind::Timeout), false),
        };
        if !reuse {
            self.io = None;
        }
        if self.read.capacity() > 4 * READ_CHUNK {
            self.read = BytesMut::new();
        }
        result
    }

    /// Writes the next request and reads its whole answer: the outcome, and whether the
    /// connection can take another request.
    async fn exchange(&mut self) -> (Outcome, bool) {
        let HttpConn {
            fixed,
            requests,
            wsse,
            next,
            io,
            read,
            write,
            ..
        } = self;
        let Some(io) = io.as_mut() else {
            return (Err(ErrorKind::Io), false);
        };
        let request: &[u8] = match wsse {
            None => requests.get(*next).map_or(&[], |r| &r[..]),
            Some(w) => {
                write.clear();
                append_request(write, fixed, &w.body(*next));
                write
            }
        };
        *next = (*next + 1) % requests.len().max(1);
        if io.write_all(request).await.is_err() || io.flush().await.is_err() {
            return (Err(ErrorKind::Io), false);
        }
        match read_answer(io, read).await {
            Ok(answer) => {
                let reuse = !answer.close && read.is_empty();
                (answer.outcome(), reuse)
            }
            Err(kind) => (Err(kind), false),
        }
    }
}

/// The request line and the headers before `Content-Length`: the target's path, `Host`, the
/// generator's `User-Agent`, the SOAP version's content type and action.
fn fixed_head(target: &SoapTarget) -> Vec<u8> {
    let path = target
        .uri
        .path_and_query()
        .map_or("/", |p| p.as_str())
        .to_owned();
    let mut head = format!("POST {path} HTTP/1.1\r\n").into_bytes();
    let mut header = |name: &str, value: &str| {
        // A value that is no valid header value (a control character) is left out, not sent.
        if let Ok(v) = HeaderValue::from_str(value) {
            head.extend_from_slice(name.as_bytes());
            head.extend_from_slice(b": ");
            head.extend_from_slice(v.as_bytes());
            head.extend_from_slice(b"\r\n");
        }
    };
    if let Some(authority) = target.uri.authority() {
        header("host", authority.as_str());
    }
    header("user-agent", "soapstone-bench");
    let action = target.action.as_deref().unwrap_or("");
    match target.version {
        SoapVersion::Soap11 => {
            header("content-type", "text/xml; charset=utf-8");
            header("soapaction", &format!("\"{action}\""));
        }
        SoapVersion::Soap12 if action.is_empty() => {
            header("content-type", "application/soap+xml; charset=utf-8");
        }
        SoapVersion::Soap12 => header(
            "content-type",
            &format!("application/soap+xml; charset=utf-8; action=\"{action}\""),
        ),
    }
    head
}

fn request(fixed: &[u8], body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(fixed.len() + 32 + body.len());
    append_request(&mut out, fixed, body);
    out
}

fn append_request(out: &mut Vec<u8>, fixed: &[u8], body: &[u8]) {
    out.extend_from_slice(fixed);
    out.extend_from_slice(b"content-length: ");
    soapstone_http1::write_decimal(out, body.len());
    out.extend_from_slice(b"\r\n\r\n");
    out.extend_from_slice(body);
}

/// What a whole answer came to.
struct Answer {
    status: u16,
    /// The body of an error answer, up to [`MAX_ERROR_BODY`] (empty for a success).
    kept: Vec<u8>,
    close: bool,
}

impl Answer {
    fn outcome(&self) -> Outcome {
        if (200..300).contains(&self.status) {
            return Ok(());
        }
        let fault_status = self.status == 500 || self.status == 400;
        if fault_status && is_soap_fault(&self.kept) {
            Err(ErrorKind::SoapFault)
        } else {
            Err(ErrorKind::HttpStatus(self.status))
        }
    }
}

/// Reads one whole answer (skipping interim `1xx` ones) from `read`, then `io`. A broken or
/// unframeable answer is [`ErrorKind::Io`].
async fn read_answer(io: &mut Io, read: &mut BytesMut) -> Result<Answer, ErrorKind> {
    let head = loop {
        let head = loop {
            match response::parse(read, |_, _| {}) {
                Ok(Some(head)) => break head,
                Ok(None) if read.len() < MAX_HEAD => fill(io, read).await?,
                Ok(None) | Err(_) => return Err(ErrorKind::Io),
            }
        };
        read.advance(head.len);
        if (100..200).contains(&head.status) && head.status != 101 {
            continue;
        }
        break head;
    };
    let keep = !(200..300).contains(&head.status);
    let mut kept = Vec::new();
    let mut take = |data: &[u8]| {
        if keep {
            let room = MAX_ERROR_BODY.saturating_sub(kept.len());
            kept.extend_from_slice(&data[..data.len().min(room)]);
        }
    };
    match head.framing {
        Framing::Length(mut left) => loop {
            let n = left.min(read.len());
            take(&read[..n]);
            read.advance(n);
            left -= n;
            if left == 0 {
                break;
            }
            fill(io, read).await?;
        },
        Framing::Chunked => {
            let mut chunks = soapstone_http1::chunked::Decoder::new();
            loop {
                let step = chunks.step(read, MAX_HEAD).map_err(|_| ErrorKind::Io)?;
                take(&read[step.data]);
                read.advance(step.consumed);
                if step.done {
                    break;
                }
                if step.consumed == 0 {
                    fill(io, read).await?;
                }
            }
        }
        Framing::Eof => loop {
            take(read);
            read.clear();
            read.reserve(READ_CHUNK);
            if io.read_buf(read).await.map_err(|_| ErrorKind::Io)? == 0 {
                break;
            }
        },
    }
    Ok(Answer {
        status: head.status,
        kept,
        close: head.close,
    })
}

/// One read into the spare room of `read`; the end of the stream is an error (the answer is
/// not whole).
async fn fill(io: &mut Io, read: &mut BytesMut) -> Result<(), ErrorKind> {
    read.reserve(READ_CHUNK);
    match io.read_buf(read).await {
        Ok(0) | Err(_) => Err(ErrorKind::Io),
        Ok(_) => Ok(()),
    }
}

/// A task's socket, plain or TLS, counted underneath.
enum Io {
    Plain(Counting<TcpStream>),
    Tls(Box<TlsStream<Counting<TcpStream>>>),
}

impl Io {
    /// Whether an idle connection can take a request: not closed by the server, no stray
    /// bytes waiting. Costs no system call unless the socket was reported readable since the
    /// last answer (as the soapstone Client's `LeanConn::is_open`).
    fn is_open(&mut self) -> bool {
        let mut cx = Context::from_waker(Waker::noop());
        let tcp = match self {
            Io::Plain(c) => c.get_ref(),
            Io::Tls(tls) => tls.get_ref().0.get_ref(),
        };
        match tcp.poll_read_ready(&mut cx) {
            Poll::Pending => true,
            Poll::Ready(Err(_)) => false,
            Poll::Ready(Ok(())) => {
                let mut probe = [0u8; 1];
                match self {
                    Io::Plain(c) => matches!(c.get_ref().try_read(&mut probe),
                        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock),
                    // TLS records wait: rustls reads them. A session ticket leaves the
                    // connection open; a close_notify, the TCP end or stray plaintext do not.
                    Io::Tls(tls) => {
                        let mut buf = ReadBuf::new(&mut probe);
                        Pin::new(&mut **tls)
                            .poll_read(&mut cx, &mut buf)
                            .is_pending()
                    }
                }
            }
        }
    }
}

impl AsyncRead for Io {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        match self.get_mut() {
            Io::Plain(s) => Pin::new(s).poll_read(cx, buf),
            Io::Tls(s) => Pin::new(&mut **s).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Io {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        match self.get_mut() {
            Io::Plain(s) => Pin::new(s).poll_write(cx, buf),
            Io::Tls(s) => Pin::new(&mut **s).poll_write(cx, buf),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        match self.get_mut() {
            Io::Plain(s) => Pin::new(s).poll_flush(cx),
            Io::Tls(s) => Pin::new(&mut **s).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        match self.get_mut() {
            Io::Plain(s) => Pin::new(s).poll_shutdown(cx),
            Io::Tls(s) => Pin::new(&mut **s).poll_shutdown(cx),
        }
    }
}
