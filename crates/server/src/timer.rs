//! The per-connection clock behind the header-read and idle timeouts.
//!
//! hyper has one timer for both: it starts its header-read timeout when it *begins waiting*
//! for a request head, so an idle keep-alive connection and a slowloris client look the same
//! to it. We want a short limit on how long a head may take to arrive once it has started
//! (slowloris) and a longer one on idle keep-alive connections. So the [`Timer`] we hand hyper
//! ignores hyper's deadline and asks the connection's [`Clock`]: the IO wrapper [`Watched`]
//! notes the first byte that arrives after hyper started waiting, and the sleep ends at
//! `first byte + header_read_timeout`, or `start + idle_timeout` while nothing came. The first
//! request on a connection gets `header_read_timeout` from the accept, so connecting and
//! sending nothing is no way to hold a connection. This must never let a connection wait
//! forever, and the read path must stay one atomic load when no head is awaited.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use hyper::rt::{Sleep, Timer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// One connection's view of when its current request head must be complete.
#[derive(Debug)]
pub(crate) struct Clock {
    header: Duration,
    idle: Duration,
    /// A head is awaited and its first byte has not come yet.
    armed: AtomicBool,
    state: Mutex<State>,
}

#[derive(Debug)]
struct State {
    start: Instant,
    first_byte: Option<Instant>,
    heads: u64,
    waker: Option<Waker>,
}

impl Clock {
    pub(crate) fn new(header: Duration, idle: Duration) -> Arc<Self> {
        Arc::new(Clock {
            header,
            idle,
            armed: AtomicBool::new(false),
            state: Mutex::new(State {
                start: Instant::now(),
                first_byte: None,
                heads: 0,
                waker: None,
            }),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// hyper starts waiting for a request head.
    fn arm(&self, start: Instant) {
        let mut s = self.lock();
        s.start = start;
        s.first_byte = None;
        s.heads += 1;
        s.waker = None;
        self.armed.store(true, Ordering::Release);
    }

    fn disarm(&self) {
        self.armed.store(false, Ordering::Release);
    }

    /// Bytes arrived: if a head is awaited, its clock starts now.
    fn on_read(&self) {
        if !self.armed.swap(false, Ordering::AcqRel) {
            return;
        }
        let mut s = self.lock();
        if s.first_byte.is_none() {
            s.first_byte = Some(Instant::now());
        }
        if let Some(w) = s.waker.take() {
            w.wake();
        }
    }

    /// The current deadline; registers `waker` to hear of a first byte.
    fn deadline(&self, waker: &Waker) -> Instant {
        let mut s = self.lock();
        match &s.waker {
            Some(w) if w.will_wake(waker) => {}
            _ => s.waker = Some(waker.clone()),
        }
        match s.first_byte {
            Some(t) => t + self.header,
            None if s.heads > 1 => s.start + self.idle,
            None => s.start + self.header.min(self.idle),
        }
    }
}

/// The [`Timer`] given to hyper for one connection.
#[derive(Debug, Clone)]
pub(crate) struct ConnTimer(pub(crate) Arc<Clock>);

impl Timer for ConnTimer {
    fn sleep(&self, duration: Duration) -> Pin<Box<dyn Sleep>> {
        Box::pin(PlainSleep(Box::pin(tokio::time::sleep(duration))))
    }

    fn sleep_until(&self, deadline: Instant) -> Pin<Box<dyn Sleep>> {
        // hyper only sleeps on a connection to time a request head (see the module doc); it
        // asks for `now + header_read_timeout`, which gives us `now` without reading the clock.
        let start = deadline.checked_sub(self.0.header).unwrap_or(deadline);
        self.0.arm(start);
        Box::pin(HeadSleep {
            clock: self.0.clone(),
            armed_at: None,
            inner: None,
        })
    }
}

struct PlainSleep(Pin<Box<tokio::time::Sleep>>);

impl Future for PlainSleep {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        self.0.as_mut().poll(cx)
    }
}

impl Sleep for PlainSleep {}

/// Ends when the awaited head is late. The tokio timer is made on the first poll: a head
/// already in the buffer never needs one.
struct HeadSleep {
    clock: Arc<Clock>,
    armed_at: Option<Instant>,
    inner: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl Future for HeadSleep {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        loop {
            let deadline = self.clock.deadline(cx.waker());
            if self.armed_at != Some(deadline) {
                self.armed_at = Some(deadline);
                match &mut self.inner {
                    Some(sleep) => sleep.as_mut().reset(deadline.into()),
                    None => self.inner = Some(Box::pin(tokio::time::sleep_until(deadline.into()))),
                }
            }
            let sleep = self.inner.as_mut().expect("armed above");
            if sleep.as_mut().poll(cx).is_pending() {
                return Poll::Pending;
            }
            // The timer fired: done, unless a first byte moved the deadline meanwhile.
            if self.clock.deadline(cx.waker()) == deadline {
                return Poll::Ready(());
            }
        }
    }
}

impl Sleep for HeadSleep {}

impl Drop for HeadSleep {
    fn drop(&mut self) {
        // The head was read (or the connection ends): later reads are not a head's.
        self.clock.disarm();
    }
}

/// A socket that tells its [`Clock`] when bytes arrive.
#[derive(Debug)]
pub(crate) struct Watched<T> {
    inner: T,
    clock: Arc<Clock>,
}

impl<T> Watched<T> {
    pub(crate) fn new(inner: T, clock: Arc<Clock>) -> Self {
        Watched { inner, clock }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for Watched<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let res = Pin::new(&mut self.inner).poll_read(cx, buf);
        if buf.filled().len() > before {
            self.clock.on_read();
        }
        res
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for Watched<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }
    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }
    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }
    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}
