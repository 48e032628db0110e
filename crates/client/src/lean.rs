//! The lean HTTP/1.1 exchange of plain `http://` keep-alive calls: one buffer written, one
//! buffer read, `httparse` for the head and the chunk sizes, nothing else between the socket
//! and the codec.
//!
//! Why it exists: measured with callgrind on `examples/echo_loop` (echoFloat against the
//! soapstone server), hyper's client connection cost about 12,000 instructions of a call's
//! 41,000 and 8 of its 10 heap allocations (a `HeaderMap` per request and per response, the
//! request's body and `Bytes`, the response's body channel, the read buffer's split), for
//! framing that is one `Content-Length` each way. Here the request head is precomputed per
//! client and action ([`Head`]: only `Content-Length` is written per call), the request is
//! written from a buffer kept by the connection, and the answer is read into a buffer kept by
//! the connection, whose body is handed on as a `Bytes` slice of it (reclaimed in place by the
//! next call once dropped). docs/performance.md has the before/after. `https://` calls take
//! the same exchange over rustls ([`Stream::Tls`]): the request is one `write` of plaintext
//! and a flush, which rustls sends as one record. The framing rules (the answer's head, `Content-Length`, `Connection`) are
//! `soapstone-http1`'s, shared with the server's lean engine (`soapstone-server`).
//!
//! Reads what HTTP/1.1 allows an answer to be: `Content-Length` or chunked framing (trailers
//! read and dropped), or neither (read to EOF, the connection not reused); interim `1xx`
//! answers skipped; `Connection: close` and HTTP/1.0 answers end the connection.
//!
//! Must never: send a request twice once any byte of it may have reached the server (POST is
//! not idempotent; only a write that failed before its first byte is retried), pool a
//! connection before its answer was read to the end or with bytes left over, read a head over
//! [`MAX_HEAD`] or a body over the client's `max_document_bytes` (so a hostile answer costs
//! at most that much memory), or keep more than [`KEEP_BUFFER`] per idle connection.

use std::future::{poll_fn, Future as _};
use std::pin::{pin, Pin};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use bytes::{Buf as _, Bytes, BytesMut};
use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWriteExt as _, ReadBuf};
use tokio::net::TcpStream;

use crate::tls::Stream;
use crate::Error;

mod blocking;
mod head;

pub(crate) use blocking::BlockingConn;

use head::{parse_head, Framing, LastHead};

/// Largest response head (and trailer section) read. Default and only value: `64 KiB`.
pub(crate) const MAX_HEAD: usize = 64 << 10;
/// Room made in the read buffer before each read.
const READ_CHUNK: usize = 8 << 10;
/// A connection's buffers are dropped after an exchange that grew them past this, so an idle
/// connection keeps at most this much of each: `64 KiB`.
pub(crate) const KEEP_BUFFER: usize = 64 << 10;
/// Where the timer rests between requests.
const PARKED: Duration = Duration::from_secs(24 * 3600);

/// One keep-alive connection (plain TCP, or TLS over it) and its buffers.
pub(crate) struct LeanConn {
    stream: Stream,
    /// Bytes read and not yet handed on (empty between exchanges).
    read: BytesMut,
    /// The request being written (head and body).
    write: Vec<u8>,
    /// The last answer's head, for reading the next one by comparison.
    last: LastHead,
    /// The request deadline, one per connection: resetting a registered timer is cheaper
    /// than registering a new one per call.
    timer: Pin<Box<tokio::time::Sleep>>,
}

/// A whole answer.
pub(crate) struct Answer {
    pub(crate) status: u16,
    /// `Content-Type`, only when asked for (it costs an allocation).
    pub(crate) content_type: Option<String>,
    /// `Content-Encoding` unless absent or `identity`.
    pub(crate) content_encoding: Option<Vec<u8>>,
    /// The body as received (still compressed if `content_encoding` says so).
    pub(crate) body: Bytes,
}

/// How an exchange failed.
pub(crate) enum Failure {
    /// Not a byte of the request was written: it may go on another connection.
    NotSent(Error),
    /// Anything else; the connection is gone.
    Failed(Error),
}

/// What a request's head is made of: the part fixed per client and action, written before
/// `Content-Length`.
pub(crate) struct Head<'a> {
    /// From the request line to the last fixed header, each line ending in CRLF.
    pub(crate) fixed: &'a [u8],
    /// `content-encoding: gzip` when the body is compressed.
    pub(crate) gzip: bool,
}

/// Answer-reading settings of one exchange.
pub(crate) struct Want {
    pub(crate) content_type: bool,
    pub(crate) max_body: usize,
    pub(crate) timeout: Duration,
    /// How long to look for the answer before waiting for it ([`busy_poll`]).
    pub(crate) busy_poll: Duration,
}

/// The longest [`ClientConfig::busy_poll`](crate::ClientConfig::busy_poll).
pub(crate) const MAX_BUSY_POLL: Duration = Duration::from_millis(1);

impl LeanConn {
    /// Wraps a connected `TCP_NODELAY` stream (after its TLS handshake, for `https://`).
    pub(crate) fn new(stream: Stream) -> Self {
        LeanConn {
            stream,
            read: BytesMut::with_capacity(READ_CHUNK),
            write: Vec::with_capacity(2 << 10),
            last: LastHead::default(),
            timer: Box::pin(tokio::time::sleep(PARKED)),
        }
    }

    /// Whether an idle connection can take a request: not closed by the server (its idle
    /// timeout), no stray bytes waiting. Costs no system call unless the socket was reported
    /// readable since the last answer.
    pub(crate) fn is_open(&mut self) -> bool {
        let mut cx = Context::from_waker(Waker::noop());
        let tcp = match &self.stream {
            Stream::Plain(tcp) => tcp,
            Stream::Tls(tls) => tls.get_ref().0,
        };
        match tcp.poll_read_ready(&mut cx) {
            Poll::Pending => true,
            Poll::Ready(Err(_)) => false,
            Poll::Ready(Ok(())) => {
                let mut probe = [0u8; 1];
                match &mut self.stream {
                    Stream::Plain(tcp) => matches!(tcp.try_read(&mut probe),
                        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock),
                    // TLS records wait: rustls reads them. Nothing for the caller (a session
                    // ticket, a key update) leaves the connection open; an end (the server's
                    // close_notify, or the TCP end) or a stray byte of plaintext does not.
                    Stream::Tls(tls) => {
                        let mut buf = ReadBuf::new(&mut probe);
                        Pin::new(&mut **tls)
                            .poll_read(&mut cx, &mut buf)
                            .is_pending()
                    }
                }
            }
        }
    }

    /// Writes the request (`head`, `Content-Length`, `body`) in one write and reads the whole
    /// answer within `want.timeout`; the answer and whether the connection can be reused.
    pub(crate) async fn exchange(
        &mut self,
        head: Head<'_>,
        body: &[u8],
        want: &Want,
    ) -> Result<(Answer, bool), Failure> {
        let LeanConn {
            stream,
            read,
            write,
            last,
            timer,
        } = self;
        let now = tokio::time::Instant::now();
        timer.as_mut().reset(now + want.timeout);
        request_bytes(write, head, body);
        let res = {
            let mut io = pin!(exchange_io(stream, read, last, write, want));
            poll_fn(|cx| {
                if let Poll::Ready(res) = io.as_mut().poll(cx) {
                    return Poll::Ready(res);
                }
                if timer.as_mut().poll(cx).is_ready() {
                    return Poll::Ready(Err(Failure::Failed(Error::timeout(want.timeout))));
                }
                Poll::Pending
            })
            .await
        };
        timer.as_mut().reset(now + PARKED);
        shrink(read, write);
        res
    }
}

/// The whole request into `write`: the fixed head, `Content-Length`, the body (one write).
fn request_bytes(write: &mut Vec<u8>, head: Head<'_>, body: &[u8]) {
    write.clear();
    write.extend_from_slice(head.fixed);
    if head.gzip {
        write.extend_from_slice(b"content-encoding: gzip\r\n");
    }
    write.extend_from_slice(b"content-length: ");
    soapstone_http1::write_decimal(write, body.len());
    write.extend_from_slice(b"\r\n\r\n");
    write.extend_from_slice(body);
}

/// Drops a connection's buffers that an exchange grew past [`KEEP_BUFFER`].
fn shrink(read: &mut BytesMut, write: &mut Vec<u8>) {
    if write.capacity() > KEEP_BUFFER {
        *write = Vec::with_capacity(2 << 10);
    }
    if read.capacity() > KEEP_BUFFER {
        *read = BytesMut::with_capacity(READ_CHUNK);
    }
}

fn io_failed(e: std::io::Error) -> Error {
    Error::http(e)
}

fn eof() -> Error {
    Error::body(
        "connection closed before the message ended",
        "unexpected eof",
    )
}

async fn exchange_io(
    stream: &mut Stream,
    read: &mut BytesMut,
    last: &mut LastHead,
    write: &[u8],
    want: &Want,
) -> Result<(Answer, bool), Failure> {
    // A plain write that fails before its first byte sent nothing: the caller may retry
    // elsewhere. Over TLS a failed write may have sent a record already, so no failure there
    // is `NotSent` (a pooled connection the server closed is told apart before, by `is_open`).
    let plain = matches!(stream, Stream::Plain(_));
    let mut sent = 0;
    while sent < write.len() {
        match stream.write(&write[sent..]).await {
            Ok(0) => {
                return Err(Failure::Failed(io_failed(
                    std::io::ErrorKind::WriteZero.into(),
                )))
            }
            Ok(n) => sent += n,
            Err(e) if sent == 0 && plain => return Err(Failure::NotSent(io_failed(e))),
            Err(e) => return Err(Failure::Failed(io_failed(e))),
        }
    }
    match stream {
        // rustls holds the records until flushed.
        Stream::Tls(_) => stream
            .flush()
            .await
            .map_err(|e| Failure::Failed(io_failed(e)))?,
        Stream::Plain(tcp) => {
            if busy_poll(tcp, want.busy_poll) {
                read_now(tcp, read).map_err(|e| Failure::Failed(io_failed(e)))?;
            }
        }
    }
    read_answer(stream, read, last, want)
        .await
        .map_err(Failure::Failed)
}

/// Looks at `stream` for up to `budget` until bytes (or the end, or an error) wait on it,
/// yielding the CPU between one-byte peeks ([`ClientConfig::busy_poll`](crate::ClientConfig::busy_poll)).
/// True when something waits: [`read_now`] then takes it. A socket found empty at the end is
/// waited for as usual.
fn busy_poll(stream: &TcpStream, budget: Duration) -> bool {
    if budget.is_zero() {
        return false;
    }
    let end = std::time::Instant::now() + budget;
    let socket = socket2::SockRef::from(stream);
    let mut one = [std::mem::MaybeUninit::uninit()];
    loop {
        match socket.peek(&mut one) {
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            _ => return true,
        }
        if std::time::Instant::now() >= end {
            return false;
        }
        std::thread::yield_now();
    }
}

/// After a poll that found bytes: reads them straight from the socket into `read`'s spare
/// room (at most [`READ_CHUNK`]), not through tokio, whose readiness for the socket was
/// cleared by the last short read and would first cost an `epoll_wait` to learn again what
/// the poll knows. An end of stream or an error reads nothing here and is met by the usual
/// read after it; the kernel's event for these bytes is still queued, so tokio at worst tries
/// one read that finds nothing later. (The server's `poll.rs` does the same; no crate both
/// share does socket I/O.)
fn read_now(stream: &TcpStream, read: &mut BytesMut) -> std::io::Result<()> {
    use std::io::Read as _;
    read.reserve(READ_CHUNK);
    let filled = read.len();
    // Zeroed first: reading into spare capacity would need `unsafe` (forbidden here).
    read.resize(filled + READ_CHUNK, 0);
    let socket = socket2::SockRef::from(stream);
    let got = (&*socket).read(&mut read[filled..]);
    read.truncate(filled + *got.as_ref().unwrap_or(&0));
    match got {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => Ok(()),
        Err(e) => Err(e),
    }
}

/// Reads one whole answer (skipping interim `1xx` ones) from `read` and then `stream` (tokio's
/// socket or TLS stream, or a blocking one that never returns `Pending`: `blocking.rs`).
async fn read_answer<S: AsyncRead + Unpin + ?Sized>(
    stream: &mut S,
    read: &mut BytesMut,
    last: &mut LastHead,
    want: &Want,
) -> Result<(Answer, bool), Error> {
    let meta = loop {
        let meta = loop {
            if let Some(meta) = parse_head(read, want, last)? {
                break meta;
            }
            if read.len() >= MAX_HEAD {
                return Err(Error::http(format!(
                    "response head over `{MAX_HEAD}` bytes"
                )));
            }
            if fill(stream, read).await? == 0 {
                return Err(eof());
            }
        };
        if (100..200).contains(&meta.status) && meta.status != 101 {
            read.advance(meta.head_len);
            continue;
        }
        break meta;
    };
    read.advance(meta.head_len);
    let body = match meta.framing {
        Framing::Length(n) => {
            if n > want.max_body {
                return Err(too_large(want.max_body));
            }
            while read.len() < n {
                read.reserve(n - read.len());
                if stream.read_buf(read).await.map_err(io_failed)? == 0 {
                    return Err(eof());
                }
            }
            read.split_to(n).freeze()
        }
        Framing::Chunked => read_chunked(stream, read, want.max_body).await?,
        Framing::Eof => {
            while fill(stream, read).await? != 0 {
                if read.len() > want.max_body {
                    return Err(too_large(want.max_body));
                }
            }
            read.split().freeze()
        }
    };
    // Bytes after the answer were not asked for: the connection's state is unknown.
    let reuse = !meta.close && read.is_empty();
    Ok((
        Answer {
            status: meta.status,
            content_type: meta.content_type,
            content_encoding: meta.content_encoding,
            body,
        },
        reuse,
    ))
}

fn too_large(limit: usize) -> Error {
    Error::body("response body too large", format!("over `{limit}` bytes"))
}

/// One read into the spare room of `read`; 0 at EOF.
async fn fill<S: AsyncRead + Unpin + ?Sized>(
    stream: &mut S,
    read: &mut BytesMut,
) -> Result<usize, Error> {
    read.reserve(READ_CHUNK);
    stream.read_buf(read).await.map_err(io_failed)
}

/// A chunked body, its chunks joined (at most `max_body` bytes) and its trailers dropped.
async fn read_chunked<S: AsyncRead + Unpin + ?Sized>(
    stream: &mut S,
    read: &mut BytesMut,
    max_body: usize,
) -> Result<Bytes, Error> {
    let mut body = BytesMut::new();
    let mut chunks = soapstone_http1::chunked::Decoder::new();
    loop {
        let step = chunks.step(read, MAX_HEAD).map_err(Error::http)?;
        // Refused as soon as its size line says so, before its data is read.
        if step.data.len() as u64 + chunks.chunk_left() > (max_body - body.len()) as u64 {
            return Err(too_large(max_body));
        }
        body.extend_from_slice(&read[step.data]);
        read.advance(step.consumed);
        if step.done {
            return Ok(body.freeze());
        }
        if step.consumed == 0 && fill(stream, read).await? == 0 {
            return Err(eof());
        }
    }
}
