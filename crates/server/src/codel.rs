//! Shedding on queueing delay: CoDel as servers use it (the "adaptive queue timeout" of
//! Facebook's *Fail at Scale*, folly's `Codel`), with a verdict that suits an event loop.
//!
//! `max_in_flight` counts requests already being handled, but under an open-loop overload the
//! backlog does not wait there: it waits in socket buffers, in accepted connections not yet
//! read, and in the runtime's queue of tasks ready to run. What every one of those queues
//! costs a request is time, so the server measures, for each request, how long it *waited*:
//! from when its bytes were available (the reactor woke the connection for them, or the
//! connection was accepted) to when its handler starts (see `timer`).
//!
//! The decision: the queue is *standing* when most requests of the last `interval` waited
//! more than `target` (a burst drains within an interval, a standing queue does not); while it
//! stands, requests that waited more than twice the target are answered `503` at once instead
//! of being handled, which drains the queue; otherwise nothing is shed. It stands until an
//! interval passes with no request to shed. Two departures from folly, both measured:
//! - CoDel judges on the *smallest* wait of an interval, right for one FIFO. But a runtime
//!   reads the reactor in batches: the first task woken after each reactor turn waits almost
//!   nothing even in a deep backlog, so the minimum stayed near zero and nothing was ever
//!   shed (32 connections each keeping a 2 ms request queued: minimum 45 µs, median 35 ms).
//!   The majority is robust to that.
//! - Once shedding drains the queue, the next interval's waits look healthy; dropping the
//!   verdict then let the queue grow back for a whole interval out of every two against
//!   clients that resend at once. So a standing queue ends only after an interval in which
//!   nothing had to be shed.
//!
//! The latency of the requests that are served thus stays near twice the target whatever the
//! overload's shape. It must never shed while the queue is not standing, and never take more
//! than one short lock per request.

use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The queue-delay shedder of one server.
#[derive(Debug)]
pub(crate) struct Codel {
    target: Duration,
    interval: Duration,
    state: Mutex<State>,
}

#[derive(Debug)]
struct State {
    interval_end: Instant,
    /// Requests seen in the current interval.
    seen: u64,
    /// Of which waited more than the target.
    late: u64,
    /// Of which were shed.
    shed: u64,
    /// The verdict on the last interval (see the module doc).
    standing: bool,
}

impl Codel {
    pub(crate) fn new(target: Duration, interval: Duration) -> Self {
        let interval = interval.max(Duration::from_millis(1));
        Codel {
            target,
            interval,
            state: Mutex::new(State {
                interval_end: Instant::now() + interval,
                seen: 0,
                late: 0,
                shed: 0,
                standing: false,
            }),
        }
    }

    /// The largest wait a request may have had while the queue stands.
    pub(crate) fn slough(&self) -> Duration {
        self.target * 2
    }

    /// Notes a request that waited `waited` before its handler started at `now`; true if it
    /// should be shed.
    pub(crate) fn shed(&self, waited: Duration, now: Instant) -> bool {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if now >= s.interval_end {
            s.standing = s.late * 2 > s.seen || (s.standing && s.shed > 0);
            (s.seen, s.late, s.shed) = (0, 0, 0);
            s.interval_end = now + self.interval;
        }
        s.seen += 1;
        s.late += u64::from(waited > self.target);
        let shed = s.standing && waited > self.slough();
        s.shed += u64::from(shed);
        shed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn a_burst_within_one_interval_is_not_shed() {
        let c = Codel::new(5 * MS, 100 * MS);
        let t0 = Instant::now();
        // long waits, but most of the interval's requests waited little: no standing queue
        for i in 0..60 {
            assert!(!c.shed(MS, t0 + i * MS));
        }
        for i in 60..100 {
            assert!(!c.shed(200 * MS, t0 + i * MS));
        }
        assert!(
            !c.shed(200 * MS, t0 + 150 * MS),
            "judged on the last interval"
        );
    }

    #[test]
    fn a_standing_queue_sheds_the_long_waits_until_it_drains() {
        let c = Codel::new(5 * MS, 100 * MS);
        let t0 = Instant::now();
        assert!(!c.shed(30 * MS, t0), "the first interval only measures");
        assert!(!c.shed(MS, t0 + 20 * MS), "one short wait in a backlog");
        assert!(!c.shed(40 * MS, t0 + 50 * MS));
        // most of the interval waited more than 5 ms: standing from now on
        assert!(c.shed(40 * MS, t0 + 150 * MS));
        assert!(
            !c.shed(8 * MS, t0 + 160 * MS),
            "under twice the target: served"
        );
        assert!(c.shed(11 * MS, t0 + 170 * MS));
        assert!(!c.shed(MS, t0 + 200 * MS));
        assert!(!c.shed(MS, t0 + 210 * MS));
        assert!(!c.shed(MS, t0 + 220 * MS));
        // short waits now, but requests were shed in the interval: it still stands
        assert!(c.shed(50 * MS, t0 + 260 * MS));
        assert!(!c.shed(MS, t0 + 300 * MS));
        assert!(!c.shed(MS, t0 + 310 * MS));
        // an interval with short waits and nothing shed ends it
        assert!(!c.shed(MS, t0 + 370 * MS));
        assert!(
            !c.shed(50 * MS, t0 + 480 * MS),
            "the interval that saw only short waits ended the standing queue"
        );
    }
}
