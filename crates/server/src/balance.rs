//! Spreading connections over the per-core runtime threads
//! ([`Runtime::PerCore`](crate::Runtime::PerCore)): a thread that accepts a connection while
//! another thread serves fewer hands it over, so every thread serves its share.
//!
//! Why it exists: the threads accept from one listening socket (or from `SO_REUSEPORT`
//! sockets the kernel picks by hash), and neither spreads a burst. Measured on this 2-CPU
//! machine (8 keep-alive connections of `soapstone bench --closed -c 8 -t 2` opened at once,
//! docs/performance.md "Round six"), three runs of five put all 8 on one thread: one CPU
//! served while the other idled, at 0.73x the requests/s of the runs that split them. A
//! connection stays where it is placed for its life, so the cost is one cross-thread wakeup
//! per *connection*, never per request.
//!
//! It must never move a connection once a request has been read on it, never lose one handed
//! over while the server stops (the receiving thread drains its inbox), and never let the
//! inboxes grow past the connection table, which admitted every connection in them first.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

use tokio::sync::mpsc;

use crate::serve::Registered;

/// The per-core threads' connection counts and inboxes.
pub(crate) struct Threads {
    /// Connections each thread serves, handed-over ones counted from the moment of the decision.
    loads: Box<[AtomicUsize]>,
    inboxes: Box<[mpsc::UnboundedSender<Handoff>]>,
    /// Connections accepted on one thread and served on another.
    pub(crate) handed_over: AtomicU64,
}

/// An admitted connection on its way to the thread that serves it.
pub(crate) struct Handoff {
    pub(crate) stream: std::net::TcpStream,
    pub(crate) peer: SocketAddr,
    pub(crate) accepted: Instant,
    pub(crate) registered: Registered,
    /// Counts the connection on its new thread until it closes.
    pub(crate) load: Load,
}

/// One connection counted on one thread, until dropped.
pub(crate) struct Load {
    threads: Arc<Threads>,
    thread: usize,
}

impl Drop for Load {
    fn drop(&mut self) {
        self.threads.loads[self.thread].fetch_sub(1, Ordering::Relaxed);
    }
}

/// Where a connection accepted by this thread goes.
pub(crate) enum Placed {
    /// Served here.
    Here(Load),
    /// Handed to another thread's inbox.
    There(usize, Load),
}

impl Threads {
    /// `n` threads, and each one's inbox (the `i`th receiver is thread `i`'s).
    pub(crate) fn new(n: usize) -> (Arc<Threads>, Vec<mpsc::UnboundedReceiver<Handoff>>) {
        let (senders, receivers): (Vec<_>, Vec<_>) =
            (0..n).map(|_| mpsc::unbounded_channel()).unzip();
        let threads = Threads {
            loads: (0..n).map(|_| AtomicUsize::new(0)).collect(),
            inboxes: senders.into(),
            handed_over: AtomicU64::new(0),
        };
        (Arc::new(threads), receivers)
    }

    /// Places a connection thread `me` just accepted: on the thread serving the fewest
    /// connections, `me` itself when it is one of them (ties stay, so a balanced server moves
    /// nothing). Two threads placing at the same moment may both pick the same one: the next
    /// placements even it out.
    pub(crate) fn place(self: &Arc<Self>, me: usize) -> Placed {
        let mine = self.loads[me].load(Ordering::Relaxed);
        let (fewest, least) = self
            .loads
            .iter()
            .map(|l| l.load(Ordering::Relaxed))
            .enumerate()
            .min_by_key(|&(_, n)| n)
            .unwrap_or((me, mine));
        let thread = if least < mine { fewest } else { me };
        let load = self.count(thread);
        if thread == me {
            Placed::Here(load)
        } else {
            Placed::There(thread, load)
        }
    }

    /// Counts a connection on thread `thread` without choosing it: where [`Threads::place`]
    /// put it, or where it already is (one a blocking thread handed back to the runtime of
    /// the thread that accepted it).
    pub(crate) fn count(self: &Arc<Self>, thread: usize) -> Load {
        self.loads[thread].fetch_add(1, Ordering::Relaxed);
        Load {
            threads: self.clone(),
            thread,
        }
    }

    /// Sends `handoff` to thread `to`; gives it back if that thread has stopped taking
    /// connections (the server is stopping), for the caller to serve.
    pub(crate) fn hand_over(&self, to: usize, handoff: Handoff) -> Result<(), Handoff> {
        match self.inboxes[to].send(handoff) {
            Ok(()) => {
                self.handed_over.fetch_add(1, Ordering::Relaxed);
                Ok(())
            }
            Err(mpsc::error::SendError(h)) => Err(h),
        }
    }

    /// Connections each thread serves now.
    pub(crate) fn loads(&self) -> Vec<usize> {
        self.loads
            .iter()
            .map(|l| l.load(Ordering::Relaxed))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn thread_of(p: Placed) -> (usize, Load) {
        match p {
            Placed::Here(l) => (l.thread, l),
            Placed::There(t, l) => (t, l),
        }
    }

    #[test]
    fn a_burst_accepted_by_one_thread_is_spread_evenly() {
        let (threads, _inboxes) = Threads::new(2);
        let held: Vec<_> = (0..8).map(|_| thread_of(threads.place(0))).collect();
        assert_eq!(threads.loads(), vec![4, 4]);
        let moved = held.iter().filter(|(t, _)| *t == 1).count();
        assert_eq!(moved, 4);
    }

    #[test]
    fn ties_stay_on_the_accepting_thread() {
        let (threads, _inboxes) = Threads::new(3);
        let (t, _a) = thread_of(threads.place(2));
        assert_eq!(t, 2, "all at zero: no reason to move");
        let (t, _b) = thread_of(threads.place(2));
        assert_ne!(t, 2, "thread 2 serves one, the others none");
    }

    #[test]
    fn a_closed_connection_frees_its_thread() {
        let (threads, _inboxes) = Threads::new(2);
        let (_, a) = thread_of(threads.place(0));
        let (_, b) = thread_of(threads.place(0));
        assert_eq!(threads.loads(), vec![1, 1]);
        drop(b);
        drop(a);
        assert_eq!(threads.loads(), vec![0, 0]);
    }

    #[test]
    fn with_64_threads_a_burst_on_one_reaches_them_all() {
        let (threads, _inboxes) = Threads::new(64);
        let _held: Vec<_> = (0..128).map(|_| thread_of(threads.place(5))).collect();
        assert!(
            threads.loads().iter().all(|&n| n == 2),
            "{:?}",
            threads.loads()
        );
    }
}
