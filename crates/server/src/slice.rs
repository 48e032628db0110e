//! A time slice for the server's own runtime threads ([`ServerConfig::cpu_slice`](crate::ServerConfig::cpu_slice)):
//! a thread that has run answers for longer than the slice without once having nothing to do
//! gives the CPU to the other threads waiting for it (`sched_yield`) before its next request.
//!
//! Why it exists: under a closed-loop load from processes on the same CPUs (a load generator,
//! a proxy, the clients themselves), a per-core thread with many connections always has a
//! request ready, so it never sleeps, and the kernel takes its CPU back only at a scheduler
//! tick. The threads it starves are the ones that would send the next requests and read the
//! answers: measured on the 2-CPU VM of docs/performance.md ("Round seven, wakeups"), 2% of
//! requests at 64 connections waited two ticks (8 ms) for a CPU. Yielding every slice hands the CPU
//! over at request boundaries instead. A thread that sleeps now and then never yields: it
//! gives the CPU away by itself.
//!
//! It must never yield a thread it does not own (the ambient runtime is the application's),
//! never yield inside a request (only between one answer and the next request), and never
//! yield more than once per slice.

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

thread_local! {
    /// When this server thread last woke from having nothing to do; `None` on threads that
    /// are not the server's own (their runtime does not report its parking).
    static AWAKE_SINCE: Cell<Option<Instant>> = const { Cell::new(None) };
}

/// For the server's own runtimes: this thread has just woken with work to do
/// (`tokio::runtime::Builder::on_thread_unpark`).
pub(crate) fn woke() {
    AWAKE_SINCE.with(|c| c.set(Some(Instant::now())));
}

/// Between an answer and the next request (`now` read by the caller): yields the CPU when
/// this thread has been awake for `slice` or longer, and starts a new slice after it. Counts
/// the yields; `true` if it yielded.
pub(crate) fn after_answer(slice: Duration, yields: &AtomicU64, now: Instant) -> bool {
    if slice.is_zero() {
        return false;
    }
    AWAKE_SINCE.with(|c| {
        let Some(since) = c.get() else { return false };
        if now.saturating_duration_since(since) < slice {
            return false;
        }
        std::thread::yield_now();
        yields.fetch_add(1, Ordering::Relaxed);
        c.set(Some(Instant::now()));
        true
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_thread_awake_for_a_slice_yields_and_then_once_per_slice() {
        let yields = AtomicU64::new(0);
        // Not a server thread: never.
        after_answer(Duration::from_nanos(1), &yields, Instant::now());
        assert_eq!(yields.load(Ordering::Relaxed), 0);
        woke();
        after_answer(Duration::from_secs(3600), &yields, Instant::now());
        assert_eq!(yields.load(Ordering::Relaxed), 0, "within the slice");
        std::thread::sleep(Duration::from_millis(2));
        after_answer(Duration::from_millis(1), &yields, Instant::now());
        assert_eq!(yields.load(Ordering::Relaxed), 1, "past the slice");
        after_answer(Duration::from_millis(1), &yields, Instant::now());
        assert_eq!(yields.load(Ordering::Relaxed), 1, "a new slice began");
        after_answer(Duration::ZERO, &yields, Instant::now());
        assert_eq!(yields.load(Ordering::Relaxed), 1, "off");
    }
}
