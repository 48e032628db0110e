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
//! sending nothing is no way to hold a connection.
//!
//! The clock also notes when each request head *arrived*, for queue-delay shedding (`codel`):
//! while a head is awaited, reads go through a waker of our own ([`ReadWake`]) that stamps the
//! time the reactor found bytes on the socket, before the task waits its turn to run. A head's
//! arrival is that stamp, or the accept (first request) or the moment hyper began waiting
//! (later ones) when the bytes were already there. This must never let a connection wait
//! forever, and the read path must stay one atomic load when no head is awaited.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::AtomicU64;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};
use std::time::{Duration, Instant};

use bytes::BytesMut;
use hyper::rt::{Sleep, Timer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use crate::poll::Peek;

/// One connection's view of when its current request head must be complete.
#[derive(Debug)]
pub(crate) struct Clock {
    header: Duration,
    idle: Duration,
    /// A head is awaited and its first byte has not come yet.
    armed: AtomicBool,
    /// When the connection was accepted.
    accepted: Instant,
    wake: Arc<ReadWake>,
    state: Mutex<State>,
    /// The tokio timer of the last head's sleep, kept for the next head: resetting a timer is
    /// free, allocating one per request is not.
    spare: Mutex<Option<Pin<Box<tokio::time::Sleep>>>>,
}

#[derive(Debug)]
struct State {
    start: Instant,
    first_byte: Option<Instant>,
    heads: u64,
    waker: Option<Waker>,
    /// When the current head's bytes were available (see the module doc).
    arrival: Option<Instant>,
}

impl Clock {
    pub(crate) fn new(header: Duration, idle: Duration, accepted: Instant) -> Arc<Self> {
        Arc::new(Clock {
            header,
            idle,
            armed: AtomicBool::new(false),
            accepted,
            wake: Arc::new(ReadWake {
                born: accepted,
                woke_at: AtomicU64::new(0),
                reader: Mutex::new(None),
            }),
            state: Mutex::new(State {
                start: accepted,
                first_byte: None,
                heads: 0,
                waker: None,
                arrival: None,
            }),
            spare: Mutex::new(None),
        })
    }

    /// When the head just read arrived; at the latest, when hyper began waiting for it.
    pub(crate) fn take_arrival(&self) -> Instant {
        let mut s = self.lock();
        let start = s.start;
        s.arrival.take().unwrap_or(start)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// hyper (or the lean loop) starts waiting for a request head.
    pub(crate) fn arm(&self, start: Instant) {
        let mut s = self.lock();
        s.start = start;
        s.first_byte = None;
        s.arrival = None;
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
            // Waiting began at the accept for the first head (the task may have run much
            // later), when hyper armed the clock for the others.
            let waiting_since = if s.heads <= 1 { self.accepted } else { s.start };
            s.arrival = Some(match self.wake.woke_at() {
                Some(woke) if woke > waiting_since => woke,
                _ => waiting_since,
            });
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
                if self.inner.is_none() {
                    let spare = self
                        .clock
                        .spare
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .take();
                    self.inner = spare;
                }
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
        if let Some(sleep) = self.inner.take() {
            *self.clock.spare.lock().unwrap_or_else(|e| e.into_inner()) = Some(sleep);
        }
    }
}

/// The waker a connection reads with while a head is awaited: it stamps when the reactor
/// found bytes, then wakes the connection's task.
#[derive(Debug)]
pub(crate) struct ReadWake {
    born: Instant,
    /// Nanoseconds after `born` of the last wake, plus one; 0: never woken.
    woke_at: AtomicU64,
    reader: Mutex<Option<Waker>>,
}

impl ReadWake {
    fn register(&self, waker: &Waker) {
        let mut r = self.reader.lock().unwrap_or_else(|e| e.into_inner());
        match &*r {
            Some(w) if w.will_wake(waker) => {}
            _ => *r = Some(waker.clone()),
        }
    }

    /// Bytes were found on the socket now.
    fn stamp(&self) {
        let nanos = u64::try_from(self.born.elapsed().as_nanos()).unwrap_or(u64::MAX - 1);
        self.woke_at.store(nanos + 1, Ordering::Release);
    }

    fn woke_at(&self) -> Option<Instant> {
        match self.woke_at.load(Ordering::Acquire) {
            0 => None,
            n => Some(self.born + Duration::from_nanos(n - 1)),
        }
    }
}

impl Wake for ReadWake {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.stamp();
        if let Some(w) = &*self.reader.lock().unwrap_or_else(|e| e.into_inner()) {
            w.wake_by_ref();
        }
    }
}

/// A socket that tells its [`Clock`] when bytes arrive.
#[derive(Debug)]
pub(crate) struct Watched<T> {
    inner: T,
    clock: Arc<Clock>,
    /// A waker over `clock.wake`, made once.
    waker: Waker,
}

impl<T> Watched<T> {
    pub(crate) fn new(inner: T, clock: Arc<Clock>) -> Self {
        let waker = Waker::from(clock.wake.clone());
        Watched {
            inner,
            clock,
            waker,
        }
    }

    /// The socket, for another clock.
    pub(crate) fn into_inner(self) -> T {
        self.inner
    }

    /// The socket, to peek at ([`crate::poll`]).
    pub(crate) fn get_ref(&self) -> &T {
        &self.inner
    }

    /// Reads what waits on the socket now, past the runtime ([`Peek::read_now`]); the clock
    /// hears of the bytes as of any read's, found now.
    pub(crate) fn read_now(&self, buf: &mut BytesMut) -> io::Result<usize>
    where
        T: Peek,
    {
        let n = self.inner.read_now(buf)?;
        if n > 0 {
            self.clock.wake.stamp();
            self.clock.on_read();
        }
        Ok(n)
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for Watched<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        let before = buf.filled().len();
        let res = if this.clock.armed.load(Ordering::Acquire) {
            // A head is awaited: read with the stamping waker (see the module doc).
            this.clock.wake.register(cx.waker());
            let mut stamped = Context::from_waker(&this.waker);
            Pin::new(&mut this.inner).poll_read(&mut stamped, buf)
        } else {
            Pin::new(&mut this.inner).poll_read(cx, buf)
        };
        if buf.filled().len() > before {
            this.clock.on_read();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_head_arrives_when_the_reactor_woke_for_it() {
        let accepted = Instant::now();
        let clock = Clock::new(Duration::from_secs(10), Duration::from_secs(60), accepted);
        // first head, bytes already there at the first read: it arrived by the accept
        clock.arm(accepted + Duration::from_millis(5));
        clock.on_read();
        assert_eq!(clock.take_arrival(), accepted);
        // second head: hyper waits, the reactor wakes the stamping waker, the task reads later
        let armed = Instant::now();
        clock.arm(armed);
        Waker::from(clock.wake.clone()).wake_by_ref();
        let woke = clock.wake.woke_at().expect("stamped");
        assert!(woke >= armed);
        clock.on_read();
        assert_eq!(clock.take_arrival(), woke);
        // a third head already buffered when hyper began waiting: from then
        let armed = Instant::now() + Duration::from_millis(1);
        clock.arm(armed);
        clock.on_read();
        assert_eq!(clock.take_arrival(), armed);
    }
}
