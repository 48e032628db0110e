//! When each request of an open-loop phase is due, and when the peak pattern's bursts run.
//!
//! Pure functions of the phase and a seed: every connection (task) draws its own arrivals,
//! so no task waits on another to learn when to send. With `tasks` connections sharing a
//! rate `r`, each task gets rate `r / tasks`: uniform arrivals interleave (task `i` starts
//! at `i / r`), and Poisson arrivals stay Poisson because a sum of independent Poisson
//! processes of rates `r / tasks` is a Poisson process of rate `r`.
//! Burst windows are drawn once per phase and shared by all tasks (a burst is global).

use std::time::Duration;

use rand::rngs::StdRng;
use rand::SeedableRng;
use rand_distr::{Distribution, Exp};

use super::Arrivals;

/// Mixes a seed with a stream number (splitmix64), so tasks and phases draw independent
/// streams from one configured seed.
pub(crate) fn mix(seed: u64, stream: u64) -> u64 {
    let mut z = seed ^ stream.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The due times of one task's requests in an open-loop phase `[start, end)`.
///
/// `rate` is the phase's total rate over `tasks` tasks; this task (`task` in
/// `0..tasks`) gets `rate / tasks` of it. `seed` selects the Poisson stream (it is mixed
/// with `task`, so give every task the same phase seed).
pub fn open_arrivals(
    start: Duration,
    end: Duration,
    rate: f64,
    arrivals: Arrivals,
    task: usize,
    tasks: usize,
    seed: u64,
) -> OpenArrivals {
    let tasks = tasks.max(1) as f64;
    let kind = match arrivals {
        Arrivals::Uniform => Kind::Uniform {
            first: start.as_secs_f64() + task as f64 / rate,
            period: tasks / rate,
            k: 0,
        },
        Arrivals::Poisson => Kind::Poisson {
            rng: Box::new(StdRng::seed_from_u64(mix(seed, task as u64))),
            gap: Exp::new(rate / tasks)
                .unwrap_or_else(|_| Exp::new(1.0).expect("1 is a valid rate")),
            t: start.as_secs_f64(),
        },
    };
    OpenArrivals {
        end: end.as_secs_f64(),
        kind,
    }
}

/// Iterator over one task's due times (offsets from the start of the run).
#[derive(Debug)]
pub struct OpenArrivals {
    end: f64,
    kind: Kind,
}

#[derive(Debug)]
enum Kind {
    Uniform {
        first: f64,
        period: f64,
        k: u64,
    },
    Poisson {
        rng: Box<StdRng>,
        gap: Exp<f64>,
        t: f64,
    },
}

impl Iterator for OpenArrivals {
    type Item = Duration;

    fn next(&mut self) -> Option<Duration> {
        let t = match &mut self.kind {
            Kind::Uniform { first, period, k } => {
                // Multiply rather than add so that a long phase does not drift.
                let t = *first + *k as f64 * *period;
                *k += 1;
                t
            }
            Kind::Poisson { rng, gap, t } => {
                *t += gap.sample(rng.as_mut());
                *t
            }
        };
        // Compare in whole nanoseconds (a `Duration`'s resolution): `0.3 + 60 * 0.01` is a
        // hair below `0.9` in floating point, which would send a request the next phase
        // also sends.
        let ns = (t * 1e9).round();
        (ns < (self.end * 1e9).round()).then(|| Duration::from_nanos(ns as u64))
    }
}

/// Burst start times in `[start, end)`: a Poisson process with mean gap `mean_gap`.
pub fn burst_starts(
    start: Duration,
    end: Duration,
    mean_gap: Duration,
    seed: u64,
) -> Vec<Duration> {
    let mut rng = StdRng::seed_from_u64(mix(seed, u64::MAX));
    let gap = Exp::new(1.0 / mean_gap.as_secs_f64().max(1e-9)).expect("positive rate");
    let mut t = start.as_secs_f64();
    let mut starts = Vec::new();
    loop {
        t += gap.sample(&mut rng);
        if t >= end.as_secs_f64() {
            return starts;
        }
        starts.push(Duration::from_secs_f64(t));
    }
}

/// The windows during which the peak pattern sends: each burst start of
/// [`burst_starts`] opens a window of length `burst`; overlapping windows merge and the
/// last is cut at `end`.
pub fn burst_windows(
    start: Duration,
    end: Duration,
    burst: Duration,
    mean_gap: Duration,
    seed: u64,
) -> Vec<(Duration, Duration)> {
    let mut windows: Vec<(Duration, Duration)> = Vec::new();
    for s in burst_starts(start, end, mean_gap, seed) {
        let e = (s + burst).min(end);
        match windows.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => windows.push((s, e)),
        }
    }
    windows
}
