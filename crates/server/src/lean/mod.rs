//! The lean HTTP/1.1 engine ([`HttpEngine::Lean`](crate::HttpEngine::Lean)): a connection
//! loop of our own over `httparse` for the one request shape SOAP clients send (a `POST` with
//! a `Content-Length` body, or a `GET`; HTTP/1.1 keep-alive or 1.0), reading into one buffer
//! and answering from another, both kept for the connection's life.
//!
//! Why it exists: hyper's generic machinery costs allocations and instructions per request
//! that a SOAP server does not need (a body channel per request, the read buffer split off
//! and grown again, a boxed `Sleep` per head through its `Timer` trait, a custom header name
//! copied per request); docs/performance.md has the measurements that justified it. Anything
//! else (chunked bodies, `Expect: 100-continue`, `Upgrade`, absolute-form targets, repeated or
//! odd `Content-Length`s, more headers than fit in place) is handed to hyper with the bytes
//! already read replayed first ([`Rewind`](crate::rewind::Rewind)), for the rest of the
//! connection.
//!
//! The framing rules (the head's parse, `Content-Length`, `Connection`, the answer's head) are
//! `soapstone-http1`'s, shared with the client's lean exchange.
//!
//! It must never parse HTTP by hand (`httparse` does, as in hyper), never frame a body any
//! way but by one valid `Content-Length`, never split an answer that fits one write, never
//! read more than the head and body limits, and never wait without a deadline: the same
//! header-read and idle timeouts, limits, eviction, drain, shedding and metrics as the hyper
//! path (`serve.rs`), which stays selectable beside it so both can be measured.

pub(crate) mod blocking;
mod head;

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

use bytes::{Bytes, BytesMut};
use http::{Response, StatusCode};
use http_body_util::Full;
use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWrite, AsyncWriteExt as _};
use tokio::sync::watch;

use crate::answer::Answer;
use crate::dispatch::{busy as busy_response, handle, text, Inner, ResponseBody, Start};
use crate::poll::{BusyPoll, Peek};
use crate::rewind::Rewind;
use crate::serve::{end, serve_http, Conn, OpenConnection};
use crate::timer::{Clock, Watched};
use crate::ServerConfig;
use head::{parse, Head, Parsed};
use soapstone_http1::After;

/// What a connection's buffers start with and shrink back to after a large request.
pub(super) const BUF: usize = 8 << 10;
/// A buffer grown past this by a large request is replaced after it.
pub(super) const KEEP: usize = 64 << 10;
/// Answers larger than this are written head and body in one vectored write instead of
/// copied into the write buffer.
const COPY_MAX: usize = 64 << 10;

/// Serves one (plain or TLS) connection until it closes or the server stops.
pub(crate) async fn serve_lean<S>(
    inner: Arc<Inner>,
    stream: S,
    client_cert: Option<soapstone_service::TlsClientCert>,
    mut stop: watch::Receiver<bool>,
    conn: Conn,
) where
    S: AsyncRead + AsyncWrite + Peek + Unpin + Send + 'static,
{
    let Conn {
        peer,
        registered,
        accepted,
        member,
        resumed,
    } = conn;
    let open = OpenConnection::new(&inner.metrics);
    // Declared after `open` so that it is dropped first: once the connection no longer counts
    // as open, it no longer keeps another one on its runtime from polling.
    let poll = BusyPoll::new(inner.config.busy_poll, member);
    let config = &inner.config;
    let clock = Clock::new(config.header_read_timeout, config.idle_timeout, accepted);
    let mut io = Watched::new(stream, clock.clone());
    let mut rbuf = BytesMut::with_capacity(BUF);
    let mut wbuf: Vec<u8> = Vec::with_capacity(BUF);
    let mut head = Head::default();
    let timer = tokio::time::sleep_until(accepted.into());
    tokio::pin!(timer);
    let (table, slot) = (&registered.table, &registered.slot);
    // One waiter on the eviction signal for the connection's life, registered when first
    // polled, instead of one made and dropped per head (each a lock of the `Notify`'s list
    // twice). It borrows its own handle on the slot, so `registered` can still move to hyper.
    let evict_signal = slot.clone();
    let evicted = evict_signal.evicted();
    tokio::pin!(evicted);
    let mut first = !resumed;
    let mut stopping = *stop.borrow();
    loop {
        // The head: `header_read_timeout` from its first byte (from the accept for the first
        // one), `idle_timeout` while nothing comes after an answer.
        let mut waiting_since = Instant::now();
        // Between an answer and the next request, a thread busy for a whole slice yields its
        // CPU (`crate::slice`), reading the clock again only if it did.
        if !first
            && crate::slice::after_answer(config.cpu_slice, &inner.metrics.yields, waiting_since)
        {
            waiting_since = Instant::now();
        }
        clock.arm(waiting_since);
        let idle_deadline = if first {
            accepted + config.header_read_timeout.min(config.idle_timeout)
        } else {
            waiting_since + config.idle_timeout
        };
        let mut first_byte = (!rbuf.is_empty()).then_some(waiting_since);
        loop {
            if !rbuf.is_empty() {
                match parse(
                    &rbuf,
                    config.max_header_bytes,
                    config.max_headers,
                    &mut head,
                ) {
                    Parsed::Complete => break,
                    Parsed::Partial => {}
                    Parsed::TooLarge => {
                        return refuse(&mut io, &mut wbuf, head_too_large(config)).await;
                    }
                    Parsed::Invalid(msg) => {
                        let resp = text(StatusCode::BAD_REQUEST, msg);
                        return refuse(&mut io, &mut wbuf, resp).await;
                    }
                    Parsed::Unusual => {
                        // hyper's loop counts the connection again: it is one.
                        drop(open);
                        inner
                            .metrics
                            .connections_total
                            .fetch_sub(1, Ordering::Relaxed);
                        let pre = rbuf.freeze();
                        let io = Rewind::new(pre, io.into_inner());
                        // Boxed: hyper's connection future is large, and this is the rare path.
                        let hyper = serve_http(
                            inner.clone(),
                            io,
                            peer,
                            client_cert,
                            stop,
                            registered,
                            Instant::now(),
                        );
                        return Box::pin(hyper).await;
                    }
                }
            } else if stopping {
                return end(&mut io).await; // drained: nothing in flight on this connection
            }
            let deadline = match first_byte {
                Some(t) => t + config.header_read_timeout,
                None => idle_deadline,
            };
            timer.as_mut().reset(deadline.into());
            if rbuf.capacity() - rbuf.len() < 1024 {
                rbuf.reserve(BUF);
            }
            // Between requests, a lone connection may look for the next one before parking,
            // and read what it finds at once (`crate::poll`).
            if let (Some(poll), None, false) = (&poll, first_byte, first || stopping) {
                if poll.wait(io.get_ref(), &inner.metrics.polls) {
                    match io.read_now(&mut rbuf) {
                        Ok(0) => return,
                        Ok(_) => {
                            let now = Instant::now();
                            first_byte = Some(now);
                            table.touch(slot, now);
                            // This read did not go through the runtime, so it spent none of
                            // the task's budget: spend it here, or a client that always has
                            // its next request ready could keep the accept loop from running.
                            tokio::task::consume_budget().await;
                            continue;
                        }
                        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                        Err(_) => return,
                    }
                }
            }
            tokio::select! {
                biased;
                r = io.read_buf(&mut rbuf) => match r {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {
                        if first_byte.is_none() {
                            let now = Instant::now();
                            first_byte = Some(now);
                            table.touch(slot, now);
                        }
                    }
                },
                // An idle connection or a head too slow (slowloris): closed without an
                // answer, as hyper does.
                () = &mut timer => return end(&mut io).await,
                () = &mut evicted => {
                    tracing::debug!(%peer, "idle connection evicted to make room");
                    return end(&mut io).await;
                }
                _ = stop.changed(), if !stopping => stopping = true,
            }
        }
        first = false;
        let mut arrival = clock.take_arrival();

        // Not evictable from here until answered. `None`: evicted just as this head came.
        let Some(busy) = table.busy(slot) else {
            return refuse(&mut io, &mut wbuf, evicted_now(config)).await;
        };
        head.take_bytes(&mut rbuf);
        // A declared body over the limit is not read: dispatch answers `413` from the header,
        // and the connection closes after it.
        let unread = head.content_length > config.max_body_bytes as u64;
        let body = if unread || head.content_length == 0 {
            Bytes::new()
        } else {
            let len = head.content_length as usize; // at most max_body_bytes
            if rbuf.len() < len {
                rbuf.reserve(len - rbuf.len());
                let deadline = tokio::time::Instant::now() + config.body_read_timeout;
                let read = async {
                    while rbuf.len() < len {
                        if io.read_buf(&mut rbuf).await? == 0 {
                            return Err(std::io::ErrorKind::UnexpectedEof.into());
                        }
                    }
                    std::io::Result::Ok(())
                };
                match tokio::time::timeout_at(deadline, read).await {
                    // Waiting for a slow body is not queueing: the request is available from
                    // its last byte (`queue_delay_target` counts from there, as on hyper's
                    // path, which reads the body after the shedding check).
                    Ok(Ok(())) => arrival = Instant::now(),
                    Ok(Err(_)) => return,
                    Err(_) => return refuse(&mut io, &mut wbuf, body_too_slow(config)).await,
                }
            }
            rbuf.split_to(len).freeze()
        };
        let head_only = head.method == http::Method::HEAD;
        let view = match head.view(Full::new(body), client_cert.as_ref()) {
            Ok(view) => view,
            Err(msg) => {
                return refuse(&mut io, &mut wbuf, text(StatusCode::BAD_REQUEST, msg)).await
            }
        };
        let (resp, done) = handle(&inner, view, Start::Arrived(arrival), Some(peer)).await;
        // The read buffer is whole again once the body's bytes are dropped (the service has
        // returned), so its next `reserve` reuses it instead of allocating; the head's bytes
        // were copied off it.
        head.clear_bytes();
        // Idle again once answered, as on hyper's path (whose service ends before the write):
        // a client that reads the answer and connects again finds this one evictable.
        busy.idle_at(done);
        stopping |= stop.has_changed().unwrap_or(true);
        let keep = head.keep_alive && !unread && !stopping;
        let after = if keep { After::KeepAlive } else { After::Close };
        let framing = Framing {
            http10: head.http10,
            head_only,
            after,
            now: done,
        };
        let ok = answer(&mut io, &mut wbuf, resp, framing).await;
        if !ok || !keep {
            if ok && unread {
                linger(&mut io).await;
            } else if ok {
                let _ = io.shutdown().await;
            }
            return;
        }
        // Bounded memory: a connection keeps at most `KEEP` bytes of buffer between requests.
        if rbuf.capacity() > KEEP && rbuf.len() <= BUF {
            let mut fresh = BytesMut::with_capacity(BUF);
            fresh.extend_from_slice(&rbuf);
            rbuf = fresh;
        }
        if wbuf.capacity() > KEEP {
            wbuf = Vec::with_capacity(BUF);
        }
    }
}

/// The `431` for a head over the limits.
fn head_too_large(config: &ServerConfig) -> Response<ResponseBody> {
    let msg = format!(
        "request head larger than the limit of `{}` bytes or `{}` headers",
        config.max_header_bytes, config.max_headers
    );
    text(StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE, msg)
}

/// The `408` for a body slower than `body_read_timeout`.
fn body_too_slow(config: &ServerConfig) -> Response<ResponseBody> {
    let msg = format!(
        "request body not received within `{:?}`",
        config.body_read_timeout
    );
    text(StatusCode::REQUEST_TIMEOUT, msg)
}

/// The `503` for a head that came just as its connection was evicted.
fn evicted_now(config: &ServerConfig) -> Response<ResponseBody> {
    let msg = "connection closed to make room for others, retry".to_owned();
    busy_response(msg, config)
}

/// How an answer goes out: what its request asked for (HTTP/1.0, `HEAD`), what the connection
/// does after it, and a recent instant, for its `date`.
#[derive(Debug, Clone, Copy)]
struct Framing {
    http10: bool,
    head_only: bool,
    after: After,
    now: Instant,
}

impl Framing {
    /// A refusal's: HTTP/1.1, with its body, then the connection closes.
    fn refusal() -> Self {
        Framing {
            http10: false,
            head_only: false,
            after: After::Close,
            now: Instant::now(),
        }
    }
}

/// Writes `resp` (head and body in one write); `false` if the connection failed.
async fn answer<S: AsyncWrite + Unpin>(
    io: &mut S,
    wbuf: &mut Vec<u8>,
    resp: impl Into<Answer>,
    framing: Framing,
) -> bool {
    let rest = compose(wbuf, resp, framing);
    if rest.is_empty() {
        return io.write_all(wbuf).await.is_ok();
    }
    write_two(io, wbuf, &rest).await.is_ok()
}

/// Puts `resp`'s head into `wbuf`, and its body after it when the body is small (at most
/// [`COPY_MAX`]); returns the body still to write after `wbuf` (empty when copied, or for a
/// `HEAD`).
fn compose(wbuf: &mut Vec<u8>, resp: impl Into<Answer>, framing: Framing) -> Bytes {
    wbuf.clear();
    let Framing {
        http10,
        head_only,
        after,
        now,
    } = framing;
    let body = resp.into().write_head(wbuf, http10, after, now);
    if head_only {
        return Bytes::new();
    }
    if body.len() <= COPY_MAX {
        wbuf.extend_from_slice(&body);
        return Bytes::new();
    }
    body
}

/// `a` then `b` in as few writes as the socket takes: one, for an answer the kernel has room
/// for.
async fn write_two<S: AsyncWrite + Unpin>(io: &mut S, a: &[u8], b: &[u8]) -> std::io::Result<()> {
    let (mut a, mut b) = (a, b);
    while !a.is_empty() {
        let n = io
            .write_vectored(&[std::io::IoSlice::new(a), std::io::IoSlice::new(b)])
            .await?;
        if n == 0 {
            return Err(std::io::ErrorKind::WriteZero.into());
        }
        let from_a = n.min(a.len());
        a = &a[from_a..];
        b = &b[n - from_a..];
    }
    io.write_all(b).await
}

/// Answers `resp` and closes, without reading what else the client sent.
async fn refuse<S: AsyncRead + AsyncWrite + Unpin>(
    io: &mut S,
    wbuf: &mut Vec<u8>,
    resp: Response<ResponseBody>,
) {
    if answer(io, wbuf, resp, Framing::refusal()).await {
        linger(io).await;
    }
}

/// Stops writing, then reads and drops what the client still sends for a moment (at most
/// `LINGER` and `LINGER_BYTES`): closing with unread bytes would reset the connection and
/// could destroy the answer in flight.
async fn linger<S: AsyncRead + AsyncWrite + Unpin>(io: &mut S) {
    let _ = tokio::time::timeout(LINGER, async {
        io.shutdown().await?;
        let mut buf = [0u8; 4096];
        let mut discarded = 0;
        while discarded < LINGER_BYTES {
            match io.read(&mut buf).await? {
                0 => break,
                n => discarded += n,
            }
        }
        std::io::Result::Ok(())
    })
    .await;
}

pub(super) const LINGER: std::time::Duration = std::time::Duration::from_secs(1);
pub(super) const LINGER_BYTES: usize = 64 << 10;
