//! Busy-polling a lone connection ([`ServerConfig::busy_poll`](crate::ServerConfig::busy_poll)):
//! after answering, a connection that is the only one its runtime serves looks at its socket
//! for the next request for a short while, yielding the CPU between looks, before it parks.
//!
//! Why it exists: on a virtual machine a CPU with nothing to run halts, and waking it for the
//! next request costs more than the request (about 22 µs each way on the 2-CPU VM of
//! docs/performance.md, "Round seven, wakeups": a blocking ping-pong
//! across CPUs took 53 µs a round trip, 19 µs with the server polling). A thread that keeps
//! looking never halts, so the request is seen as soon as it lands. The price is CPU: up to
//! the budget after every answer, on a CPU that would otherwise sleep. It is off by default.
//!
//! It must never poll a connection that shares its runtime with another (that one would wait
//! for the whole budget), never hold the CPU from another runnable thread (every look that
//! finds nothing yields), never poll longer than the budget (capped at [`MAX_BUSY_POLL`](crate::MAX_BUSY_POLL)), and
//! never read past what the connection's reader would: a look is a one-byte `MSG_PEEK`. A TLS
//! stream is never polled (its records are the rustls reader's).
//!
//! A look that finds bytes is followed by a read straight from the socket ([`Peek::read_now`]),
//! not by the runtime's read: tokio cleared the socket's readiness when the last request was
//! read short, so its read would first park the thread in `epoll_wait` to learn again what the
//! look already knows. The bytes land in the connection's buffer as any read's do, and the
//! connection's clock hears of them ([`crate::timer::Watched::read_now`]); the kernel's event
//! for them is still queued, so the runtime finds it at its next park and at worst tries one
//! read that finds nothing.

use std::io::{self, Read as _};
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::BytesMut;
use tokio::net::TcpStream;

use crate::config::MAX_BUSY_POLL;

/// The connections one accept loop's runtime serves (each holds a [`Member`]).
#[derive(Clone, Default)]
pub(crate) struct Neighbours(Arc<AtomicUsize>);

impl Neighbours {
    /// Counts one more connection until the returned member drops.
    pub(crate) fn join(&self) -> Member {
        self.0.fetch_add(1, Ordering::Relaxed);
        Member(self.0.clone())
    }
}

/// One connection counted among its runtime's [`Neighbours`].
pub(crate) struct Member(Arc<AtomicUsize>);

impl Member {
    /// No other connection shares this runtime now.
    fn alone(&self) -> bool {
        self.0.load(Ordering::Relaxed) == 1
    }
}

impl Drop for Member {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// A socket that can say, without reading, whether bytes wait on it.
pub(crate) trait Peek {
    /// `Some(true)` when bytes (or the end of the stream, or an error) wait; `None` when this
    /// kind of stream cannot tell (it is then never polled).
    fn ready_now(&self) -> Option<bool> {
        None
    }

    /// Reads what waits on the socket now into the spare room of `buf` (at most
    /// [`READ_NOW`] bytes), without asking the runtime whether it is readable: `Ok(0)` at the
    /// end of the stream, `WouldBlock` when nothing waits (or this kind of stream cannot).
    fn read_now(&self, buf: &mut BytesMut) -> io::Result<usize> {
        let _ = buf;
        Err(io::ErrorKind::WouldBlock.into())
    }
}

/// The most one [`Peek::read_now`] reads: an ordinary request fits, a larger one is read on
/// by the runtime.
pub(crate) const READ_NOW: usize = 8 << 10;

impl Peek for TcpStream {
    fn ready_now(&self) -> Option<bool> {
        // The socket is non-blocking (tokio's), so an empty queue is `WouldBlock`.
        let mut one = [MaybeUninit::uninit()];
        match socket2::SockRef::from(self).peek(&mut one) {
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => Some(false),
            _ => Some(true),
        }
    }

    fn read_now(&self, buf: &mut BytesMut) -> io::Result<usize> {
        let filled = buf.len();
        let room = (buf.capacity() - filled).clamp(1, READ_NOW);
        // Zeroed first: reading into spare capacity would need `unsafe` (forbidden here), and
        // zeroing a few kilobytes costs less than the `epoll_wait` this read saves.
        buf.resize(filled + room, 0);
        let socket = socket2::SockRef::from(self);
        let read = (&*socket).read(&mut buf[filled..]);
        buf.truncate(filled + *read.as_ref().unwrap_or(&0));
        read
    }
}

/// A blocking connection's socket (`crate::lean::blocking`): looked at with `MSG_DONTWAIT`, so
/// that the look does not wait; what it finds is read by the connection's blocking read.
impl Peek for std::net::TcpStream {
    #[cfg(unix)]
    fn ready_now(&self) -> Option<bool> {
        let mut one = [MaybeUninit::uninit()];
        let flags = libc::MSG_PEEK | libc::MSG_DONTWAIT;
        match socket2::SockRef::from(self).recv_with_flags(&mut one, flags) {
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => Some(false),
            _ => Some(true),
        }
    }
}

impl<T> Peek for tokio_rustls::server::TlsStream<T> {}
impl<T: Peek + ?Sized> Peek for Box<T> {
    fn ready_now(&self) -> Option<bool> {
        (**self).ready_now()
    }

    fn read_now(&self, buf: &mut BytesMut) -> io::Result<usize> {
        (**self).read_now(buf)
    }
}

/// How polls ended, for `/metrics`.
#[derive(Default)]
pub(crate) struct PollCounts {
    /// The next request came within the budget (or was there already).
    pub(crate) caught: AtomicU64,
    /// The budget ran out first: the connection parked as without polling.
    pub(crate) expired: AtomicU64,
}

/// One connection's poller: its budget and its place among its runtime's connections.
pub(crate) struct BusyPoll {
    budget: Duration,
    member: Member,
}

impl BusyPoll {
    /// A poller for a connection counted by `member`; `None` when `budget` is zero (off).
    pub(crate) fn new(budget: Duration, member: Member) -> Option<Self> {
        (!budget.is_zero()).then(|| BusyPoll {
            budget: budget.min(MAX_BUSY_POLL),
            member,
        })
    }

    /// Looks at `socket` until bytes wait on it or the budget is spent, yielding the CPU
    /// after every empty look; does nothing when another connection shares the runtime or
    /// the socket cannot be peeked. True when bytes wait (read them with
    /// [`Peek::read_now`]).
    pub(crate) fn wait(&self, socket: &impl Peek, counts: &PollCounts) -> bool {
        if !self.member.alone() {
            return false;
        }
        let end = match socket.ready_now() {
            None => return false,
            Some(true) => return count(&counts.caught, true),
            Some(false) => Instant::now() + self.budget,
        };
        loop {
            std::thread::yield_now();
            if socket.ready_now() != Some(false) {
                return count(&counts.caught, true);
            }
            if Instant::now() >= end {
                return count(&counts.expired, false);
            }
        }
    }
}

fn count(n: &AtomicU64, caught: bool) -> bool {
    n.fetch_add(1, Ordering::Relaxed);
    caught
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_member_is_alone_only_while_no_other_connection_counts() {
        let n = Neighbours::default();
        let a = n.join();
        assert!(a.alone());
        let b = n.join();
        assert!(!a.alone() && !b.alone());
        drop(b);
        assert!(a.alone());
    }

    #[test]
    fn a_zero_budget_is_off_and_a_long_one_is_capped() {
        let n = Neighbours::default();
        assert!(BusyPoll::new(Duration::ZERO, n.join()).is_none());
        let p = BusyPoll::new(Duration::from_secs(5), n.join()).expect("on");
        assert_eq!(p.budget, MAX_BUSY_POLL);
    }
}
