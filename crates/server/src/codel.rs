//! Shedding on queueing delay: CoDel as servers use it (the "adaptive queue timeout" of
//! Facebook's *Fail at Scale*, folly's `Codel`).
//!
//! `max_in_flight` counts requests already being handled, but under an open-loop overload the
//! backlog does not wait there: it waits in socket buffers, in accepted connections not yet
//! read, and in the runtime's queue of tasks ready to run. What every one of those queues
//! costs a request is time, so the server measures, for each request, how long it *waited*:
//! from when its bytes were available (the reactor woke the connection for them, or the
//! connection was accepted) to when its handler starts (see `timer`). CoDel then decides:
//! the queue is *standing* when even the smallest wait of the last `interval` was above
//! `target` (a burst drains within an interval, a standing queue does not); while it stands,
//! requests that waited more than twice the target are answered `503` at once instead of
//! being handled, which drains the queue; otherwise nothing is shed. It stands until an
//! interval passes with no request to shed: shedding makes the shortest wait drop below the
//! target, and a verdict on that alone let the queue grow back for a whole interval out of
//! every two (folly's rule, measured here against clients that resend at once). The latency
//! of the requests that are served thus stays near the target whatever the overload's
//! shape.
//!
//! It must never shed while the queue is not standing, and never take more than one short
//! lock per request.

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
    /// The smallest wait seen in the current interval.
    min: Option<Duration>,
    /// A queue stands: the last interval's smallest wait was above the target, or it stood
    /// already and requests had to be shed in the last interval.
    standing: bool,
    /// Requests shed in the current interval.
    shed: u64,
}

impl Codel {
    pub(crate) fn new(target: Duration, interval: Duration) -> Self {
        Codel {
            target,
            interval: interval.max(Duration::from_millis(1)),
            state: Mutex::new(State {
                interval_end: Instant::now() + interval,
                min: None,
                standing: false,
                shed: 0,
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
            s.standing = s.min.is_some_and(|m| m > self.target) || (s.standing && s.shed > 0);
            s.min = None;
            s.shed = 0;
            s.interval_end = now + self.interval;
        }
        s.min = Some(s.min.map_or(waited, |m| m.min(waited)));
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
        // long waits, but the interval also saw a short one: no standing queue
        assert!(!c.shed(MS, t0));
        for i in 0..50 {
            assert!(!c.shed(200 * MS, t0 + i * MS));
        }
        // the next interval judges the last: its minimum was 1 ms
        assert!(!c.shed(200 * MS, t0 + 150 * MS));
    }

    #[test]
    fn a_standing_queue_sheds_the_long_waits_until_it_drains() {
        let c = Codel::new(5 * MS, 100 * MS);
        let t0 = Instant::now();
        assert!(!c.shed(30 * MS, t0), "the first interval only measures");
        assert!(!c.shed(40 * MS, t0 + 50 * MS));
        // the interval's smallest wait was 30 ms > 5 ms: standing from now on
        assert!(c.shed(40 * MS, t0 + 150 * MS));
        assert!(
            !c.shed(8 * MS, t0 + 160 * MS),
            "under twice the target: served"
        );
        assert!(c.shed(11 * MS, t0 + 170 * MS));
        assert!(!c.shed(MS, t0 + 200 * MS));
        // a short wait, but requests were shed in the interval: it still stands
        assert!(c.shed(50 * MS, t0 + 260 * MS));
        assert!(!c.shed(MS, t0 + 300 * MS));
        // an interval with short waits and nothing shed ends it
        assert!(!c.shed(MS, t0 + 370 * MS));
        assert!(
            !c.shed(50 * MS, t0 + 480 * MS),
            "the interval that saw only short waits ended the standing queue"
        );
    }
}
