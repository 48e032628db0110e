//! Keep-alive connections and their pool.
//!
//! Plain `http://` calls take the lean exchange (`lean`); this is the `https://` path. Each
//! connection is hyper's HTTP/1.1 client connection over a `TCP_NODELAY` socket, built to
//! flatten a request's head and body into one write. Unlike hyper-util's pooled client, the
//! connection is not a spawned task: the calling task drives it while it waits for its
//! answer, so a call costs no task hand-off and no cross-thread wakeup, and an idle connection
//! costs nothing. Responses are framed by `Content-Length` or chunked encoding (hyper); only an
//! answer that declares neither ends at EOF, as HTTP says, and such a connection is not reused.
//!
//! Must never: send a request twice once any of it may have reached the server (POST is not
//! idempotent), or return a connection to the pool before its response was read to the end.

use std::future::{poll_fn, Future};
use std::pin::{pin, Pin};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

use bytes::{Buf as _, Bytes, BytesMut};
use http::{Request, Response};
use http_body_util::{BodyExt as _, Full};
use hyper::client::conn::http1::{self, Connection, SendRequest};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

use crate::tls::{Connector, Stream};
use crate::Error;

type Io = TokioIo<Stream>;

/// One keep-alive connection, driven by whoever uses it.
pub(crate) struct Conn {
    sender: SendRequest<Full<Bytes>>,
    conn: Connection<Io, Full<Bytes>>,
    waker: Arc<LoopWaker>,
    /// The request deadline, one per connection: moving a registered tokio timer later is
    /// free, registering a new one per call is not.
    timer: Pin<Box<tokio::time::Sleep>>,
}

/// Where the timer rests between requests.
const PARKED: Duration = Duration::from_secs(24 * 3600);

/// What an exchange on a connection gave.
// Built once per call and matched at once; boxing the connection would cost more than the move.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Exchange {
    /// A whole response; the connection is reusable if `Some`.
    Done(Response<Bytes>, Option<Conn>),
    /// Nothing of the request was sent; it can go on another connection.
    NotSent(Request<Full<Bytes>>, Error),
}

impl Conn {
    /// Connects to `host:port` (each resolved address in turn), and completes the TLS
    /// handshake when `tls` is given, within `timeout`.
    pub(crate) async fn connect(
        host: &str,
        port: u16,
        tls: Option<&Connector>,
        timeout: Duration,
    ) -> Result<Conn, Error> {
        let label = format!("{host}:{port}");
        let connect = async {
            let stream = connect_tcp(host, port, &label).await?;
            match tls {
                None => Ok(Stream::Plain(stream)),
                Some(tls) => tls.handshake(stream, &label).await,
            }
        };
        let stream = tokio::time::timeout(timeout, connect)
            .await
            .map_err(|_| Error::connect_timeout(&label, timeout))??;
        let (sender, conn) = http1::Builder::new()
            // Head and body in one buffer, one write.
            .writev(false)
            .handshake(TokioIo::new(stream))
            .await
            .map_err(Error::http)?;
        Ok(Conn {
            sender,
            conn,
            waker: Arc::new(LoopWaker::default()),
            timer: Box::pin(tokio::time::sleep(PARKED)),
        })
    }

    /// Waits until the connection can take a request; `false` if it closed meanwhile (the
    /// server's idle timeout) or broke.
    pub(crate) async fn ready(&mut self) -> bool {
        let Conn {
            sender,
            conn,
            waker,
            ..
        } = self;
        poll_looping(waker, |cx| {
            if let Poll::Ready(res) = std::pin::Pin::new(&mut *conn).poll(cx) {
                tracing::debug!(?res, "pooled connection closed");
                return Poll::Ready(false);
            }
            match sender.poll_ready(cx) {
                Poll::Ready(res) => Poll::Ready(res.is_ok()),
                Poll::Pending => Poll::Pending,
            }
        })
        .await
    }

    /// Sends `req` and reads its whole response within `timeout`, decoding nothing.
    pub(crate) async fn exchange(
        mut self,
        req: Request<Full<Bytes>>,
        timeout: Duration,
    ) -> Result<Exchange, Error> {
        let now = tokio::time::Instant::now();
        self.timer.as_mut().reset(now + timeout);
        let deadline = Deadline {
            timer: &mut self.timer,
            after: timeout,
        };
        // Queuing the request wakes the connection's last waker: ours, and we poll the
        // connection next anyway.
        self.waker.state.store(POLLING, Ordering::SeqCst);
        let sent = self.sender.try_send_request(req);
        let resp = match drive(&mut self.conn, &self.waker, deadline, sent).await {
            Ok(Ok(resp)) => resp,
            Ok(Err(mut e)) => {
                return match e.take_message() {
                    Some(req) => Ok(Exchange::NotSent(req, Error::http(e.into_error()))),
                    None => Err(Error::http(e.into_error())),
                };
            }
            Err(e) => return Err(e),
        };
        let (parts, body) = resp.into_parts();
        let keep = parts
            .headers
            .get(http::header::CONNECTION)
            .and_then(|v| v.to_str().ok())
            .is_none_or(|v| !v.split(',').any(|t| t.trim().eq_ignore_ascii_case("close")))
            && parts.version == http::Version::HTTP_11;
        let deadline = Deadline {
            timer: &mut self.timer,
            after: timeout,
        };
        let body = match drive(&mut self.conn, &self.waker, deadline, collect(body)).await {
            Ok(Ok(bytes)) => bytes,
            Ok(Err(e)) => return Err(Error::http(e)),
            Err(e) => return Err(e),
        };
        self.timer.as_mut().reset(now + PARKED);
        let reuse = keep.then_some(self);
        Ok(Exchange::Done(Response::from_parts(parts, body), reuse))
    }
}

/// A `TCP_NODELAY` connection to `host:port`, trying each resolved address in turn (no
/// timeout of its own: callers bound it).
pub(crate) async fn connect_tcp(host: &str, port: u16, label: &str) -> Result<TcpStream, Error> {
    let mut last = None;
    for addr in tokio::net::lookup_host((host, port))
        .await
        .map_err(|e| Error::connect(label, e))?
    {
        match TcpStream::connect(addr).await {
            Ok(s) => {
                // Without it a request split over two segments waits for the server's
                // delayed ACK.
                s.set_nodelay(true).map_err(|e| Error::connect(label, e))?;
                return Ok(s);
            }
            Err(e) => last = Some(e),
        }
    }
    let e = last.unwrap_or_else(|| std::io::Error::new(std::io::ErrorKind::NotFound, "no address"));
    Err(Error::connect(label, e))
}

/// The body's bytes. A body of one data frame (a small answer, read with its head) is handed
/// on as it is, without a copy or an allocation; only a body of several frames is copied into
/// one buffer.
async fn collect<B: hyper::body::Body>(body: B) -> Result<Bytes, B::Error> {
    let mut body = pin!(body);
    let mut first: Option<Bytes> = None;
    let mut rest: Option<BytesMut> = None;
    while let Some(frame) = body.frame().await {
        let Ok(mut data) = frame?.into_data() else {
            continue; // trailers
        };
        let chunk = data.copy_to_bytes(data.remaining());
        match (&mut first, &mut rest) {
            (None, _) => first = Some(chunk),
            (Some(one), None) => {
                let mut all = BytesMut::with_capacity(one.len() + chunk.len());
                all.extend_from_slice(one);
                all.extend_from_slice(&chunk);
                rest = Some(all);
            }
            (Some(_), Some(all)) => all.extend_from_slice(&chunk),
        }
    }
    Ok(match (first, rest) {
        (_, Some(all)) => all.freeze(),
        (Some(one), None) => one,
        (None, None) => Bytes::new(),
    })
}

/// The request's deadline while it is driven.
struct Deadline<'a> {
    timer: &'a mut Pin<Box<tokio::time::Sleep>>,
    after: Duration,
}

/// Polls `fut` while driving the connection that serves it, until `deadline`.
async fn drive<F: Future>(
    conn: &mut Connection<Io, Full<Bytes>>,
    waker: &Arc<LoopWaker>,
    deadline: Deadline<'_>,
    fut: F,
) -> Result<F::Output, Error> {
    let mut fut = pin!(fut);
    let mut closed: Option<Result<(), hyper::Error>> = None;
    poll_looping(waker, |cx| {
        if let Poll::Ready(out) = fut.as_mut().poll(cx) {
            return Poll::Ready(Ok(out));
        }
        if deadline.timer.as_mut().poll(cx).is_ready() {
            return Poll::Ready(Err(Error::timeout(deadline.after)));
        }
        if closed.is_none() {
            if let Poll::Ready(res) = std::pin::Pin::new(&mut *conn).poll(cx) {
                closed = Some(res);
                // The connection ended: the request's future learns it now.
                if let Poll::Ready(out) = fut.as_mut().poll(cx) {
                    return Poll::Ready(Ok(out));
                }
            } else {
                return Poll::Pending;
            }
        }
        match closed.take() {
            Some(Err(e)) => Poll::Ready(Err(Error::http(e))),
            _ => Poll::Ready(Err(Error::body(
                "connection closed before the message ended",
                "unexpected eof",
            ))),
        }
    })
    .await
}

/// Polls `f` with a waker that turns wakes happening *during* the poll into another round of
/// this loop instead of a wake of the task.
///
/// hyper's connection hands the response to the request's future through channels that wake
/// the polling task; driven inline, that task is ours, so every exchange would end with the
/// task waking itself and the runtime going through one more scheduling round (an extra
/// `epoll_wait` per call, measured with strace). Wakes from outside the poll (the reactor)
/// go to the task as usual.
async fn poll_looping<T>(
    waker: &Arc<LoopWaker>,
    mut f: impl FnMut(&mut Context<'_>) -> Poll<T>,
) -> T {
    let proxy = Waker::from(waker.clone());
    poll_fn(|cx| {
        waker
            .task
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone_from(cx.waker());
        let mut inner = Context::from_waker(&proxy);
        loop {
            waker.state.store(POLLING, Ordering::SeqCst);
            let res = f(&mut inner);
            if waker.state.swap(IDLE, Ordering::SeqCst) == POLLING_WOKEN && res.is_pending() {
                continue;
            }
            return res;
        }
    })
    .await
}

const IDLE: u8 = 0;
const POLLING: u8 = 1;
const POLLING_WOKEN: u8 = 2;

/// The waker behind [`poll_looping`].
pub(crate) struct LoopWaker {
    state: AtomicU8,
    task: Mutex<Waker>,
}

impl Default for LoopWaker {
    fn default() -> Self {
        LoopWaker {
            state: AtomicU8::new(IDLE),
            task: Mutex::new(Waker::noop().clone()),
        }
    }
}

impl Wake for LoopWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }
    fn wake_by_ref(self: &Arc<Self>) {
        if self
            .state
            .compare_exchange(POLLING, POLLING_WOKEN, Ordering::SeqCst, Ordering::SeqCst)
            .is_err()
            && self.state.load(Ordering::SeqCst) != POLLING_WOKEN
        {
            self.task
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .wake_by_ref();
        }
    }
}

/// Idle connections, most recently used last.
pub(crate) struct Pool<C> {
    idle: Mutex<Vec<C>>,
    max_idle: usize,
}

impl<C> Pool<C> {
    pub(crate) fn new(max_idle: usize) -> Self {
        Pool {
            idle: Mutex::new(Vec::new()),
            max_idle,
        }
    }

    /// The most recently used idle connection, unchecked.
    pub(crate) fn take(&self) -> Option<C> {
        self.idle.lock().unwrap_or_else(|e| e.into_inner()).pop()
    }

    pub(crate) fn put(&self, conn: C) {
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        if idle.len() < self.max_idle {
            idle.push(conn);
        }
    }

    pub(crate) fn idle_len(&self) -> usize {
        self.idle.lock().unwrap_or_else(|e| e.into_inner()).len()
    }
}

impl Pool<Conn> {
    /// An idle connection that is still open, if any.
    pub(crate) async fn checkout(&self) -> Option<Conn> {
        loop {
            let mut conn = self.take()?;
            if conn.ready().await {
                return Some(conn);
            }
        }
    }
}
