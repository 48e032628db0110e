//! The reservations the thesis's `debitReservation` and `releaseRes` points consume: each pool
//! is made before its point (plain HTTP, appendix C.1), sized from the window and the fastest
//! durable write measured on the same placement, and a point that still sent as many calls as
//! its pool held is dropped and measured again with a pool sized from its own rate.
//!
//! Must never let a point be reported with faults caused by a pool that ran out.

use std::path::PathBuf;

use super::charging_calls as calls;
use super::Lab;
use crate::driver::BenchSpec;
use crate::results::PlacementKind;

const EXP: &str = "thesis";

/// Reservations one pooled point needs: from the fastest durable write measured unloaded on
/// this placement (see [`calls::pool_size`]).
pub(crate) fn pool_need(lab: &Lab, kind: PlacementKind, t: &crate::config::Timing) -> usize {
    let rate = lab
        .runs
        .iter()
        .filter(|r| {
            r.experiment == EXP
                && r.system == "soapstone"
                && ["credit", "directDebit", "reserve"].contains(&r.operation.as_str())
                && r.settings.placement.kind == kind
                && r.settings.background.as_deref() == Some("none")
        })
        .map(|r| r.throughput_rps)
        .fold(None, |m: Option<f64>, r| Some(m.map_or(r, |m| m.max(r))));
    calls::pool_size(rate, t.thesis_window, t.warmup)
}

/// A directory of bodies each using one fresh reservation once.
pub(crate) struct Pool {
    pub(crate) op: &'static str,
    pub(crate) dir: PathBuf,
    pub(crate) bytes: u64,
    /// Reservations it holds.
    pub(crate) n: usize,
}

/// What became of a pooled point's measurement: its calls (`Some(sent, failed)`), or `None`
/// when the bench failed outright (every call faulted: `no request succeeded`).
pub(crate) type Outcome = Option<(u64, u64)>;

/// The pool to measure a pooled point again with, if its faults may be the lab's: it failed
/// outright (sized from `fastest`, the fastest call rate measured on this placement, a read
/// included: a bound on any write), or it faulted after sending as many calls as its `held`
/// reservations (sized from its own rate, fast faults included). `None`: keep the point.
pub(crate) fn retry_pool(
    outcome: Outcome,
    held: usize,
    fastest: Option<f64>,
    t: &crate::config::Timing,
) -> Option<usize> {
    let (w, u) = (t.thesis_window, t.warmup);
    match outcome {
        None => Some(calls::pool_size(
            Some(fastest.unwrap_or(0.0)).filter(|r| *r > 0.0),
            w,
            u,
        )),
        Some((sent, failed)) if failed > 0 && calls::pool_overrun(sent, held, w, u) => {
            let rate = sent as f64 / w.as_secs_f64().max(1e-3);
            Some(calls::pool_size(Some(rate), w, u))
        }
        Some(_) => None,
    }
}

/// The fastest call rate of any soapstone thesis point measured so far on this placement.
fn fastest_rate(lab: &Lab, kind: PlacementKind) -> Option<f64> {
    lab.runs
        .iter()
        .filter(|r| {
            r.experiment == EXP && r.system == "soapstone" && r.settings.placement.kind == kind
        })
        .map(|r| r.throughput_rps)
        .fold(None, |m: Option<f64>, r| Some(m.map_or(r, |m| m.max(r))))
}

/// One pooled point as measured: `at` is its run (or `None` if the bench failed), `problems`
/// how many problems the lab had before it, `held` the reservations its pool had.
pub(crate) struct Measured<'a> {
    pub(crate) op: &'static str,
    pub(crate) placement: crate::results::Placement,
    pub(crate) at: Option<usize>,
    pub(crate) problems: usize,
    pub(crate) held: usize,
    pub(crate) label: &'a str,
}

/// The pooled point just measured may have run out of reservations (see [`retry_pool`]): its
/// run, or the problem its failed bench left, is dropped and the point measured once more with
/// a bigger pool; if that one also runs out, its run is dropped too, with a problem. A point is
/// never reported with faults of the lab's making.
pub(crate) async fn remeasure_if_overrun(
    lab: &mut Lab,
    url: &str,
    m: Measured<'_>,
    pool_start: &mut usize,
    tag: &str,
    spec: &BenchSpec,
) {
    let t = lab.cfg.timing.clone();
    let outcome = m.at.map(|i| {
        let r = &lab.runs[i];
        (r.ok + r.errors + r.timeouts, r.errors + r.timeouts)
    });
    let fastest = fastest_rate(lab, m.placement.kind);
    let Some(n) = retry_pool(outcome, m.held, fastest, &t) else {
        return;
    };
    let why = match (m.at, outcome) {
        (Some(i), Some((sent, failed))) => {
            lab.runs.remove(i);
            format!(
                "sent {sent} calls against a pool of {} reservations ({failed} faults: it ran out)",
                m.held
            )
        }
        _ => {
            // The bench's own problem ("no request succeeded") is replaced by this one.
            lab.problems.truncate(m.problems);
            format!(
                "failed outright with a pool of {} reservations (every call faulted: it ran out)",
                m.held
            )
        }
    };
    lab.problem(format!(
        "thesis: {} {why}; dropped and measured again with {n}",
        m.label
    ));
    let Some(pool) = make_pool(lab, url, m.op, n, pool_start, &format!("{tag}-again")).await else {
        return;
    };
    let mut again = spec.clone();
    again.body = Some(pool.dir.clone());
    again.request_bytes = Some(pool.bytes);
    let Some(j) = lab
        .measure(("soapstone", EXP, pool.op), m.placement, &again)
        .await
    else {
        return;
    };
    let r = &lab.runs[j];
    let (sent, failed) = (r.ok + r.errors + r.timeouts, r.errors + r.timeouts);
    if retry_pool(Some((sent, failed)), pool.n, fastest, &t).is_some() {
        lab.runs.remove(j);
        lab.problem(format!(
            "thesis: {} ran out of {} reservations again ({sent} calls); not reported",
            m.label, pool.n
        ));
    }
}

/// Makes `n` reservations for each of `debitReservation` and `releaseRes` and writes their
/// body directories; a failure becomes a problem and leaves those operations unmeasured.
pub(crate) async fn make_pools(
    lab: &mut Lab,
    url: &str,
    n: usize,
    start: &mut usize,
    tag: &str,
) -> Vec<Pool> {
    let mut out = Vec::new();
    for op in ["debitReservation", "releaseRes"] {
        out.extend(make_pool(lab, url, op, n, start, tag).await);
    }
    out
}

/// Makes `n` reservations for `op` (from account offset `start`, advanced past them) and
/// writes its body directory; a failure becomes a problem.
async fn make_pool(
    lab: &mut Lab,
    url: &str,
    op: &'static str,
    n: usize,
    start: &mut usize,
    tag: &str,
) -> Option<Pool> {
    let made = match calls::reserve_pool(url, n, *start).await {
        Ok(pool) => pool,
        Err(e) => {
            lab.problem(format!(
                "thesis: reservations for {op} ({tag}) could not be made: {e:#}"
            ));
            return None;
        }
    };
    *start += n;
    let bodies = if op == "releaseRes" {
        calls::release_bodies(&made)
    } else {
        calls::debit_bodies(&made)
    };
    let dir = calls::point_dir(&lab.bodies, op, tag);
    match calls::write_dir(&dir, &bodies) {
        Ok(bytes) => Some(Pool {
            op,
            dir,
            bytes,
            n: made.len(),
        }),
        Err(e) => {
            lab.problem(format!("thesis: {e:#}"));
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_point_is_measured_again_only_when_its_pool_may_have_run_out() {
        let t = crate::config::Timing::quick(); // 0.5 s after 0.2 s
                                                // A second quick run: 185 reservations (sized from a 96 calls/s credit on an idle
                                                // CPU's fsync), the warm-up used them all, and every timed call faulted: the bench
                                                // failed outright. Sized again from the fastest rate measured (the read's).
        let n = retry_pool(None, 185, Some(19_000.0), &t).unwrap();
        assert!(n >= 19_000 * 7 / 10, "{n}");
        // Ran out: 2,000 calls sent against 400 reservations, with faults.
        let n = retry_pool(Some((2000, 1700)), 400, None, &t).unwrap();
        assert_eq!(n, calls::pool_size(Some(4000.0), t.thesis_window, t.warmup));
        // Faults that are not the pool's (it held far more than was sent): kept as measured.
        assert_eq!(retry_pool(Some((100, 3)), 5000, None, &t), None);
        // Every reservation used and no fault: kept.
        assert_eq!(retry_pool(Some((5000, 0)), 400, None, &t), None);
        // Nothing measured yet to size from: a quarter of the most.
        assert_eq!(retry_pool(None, 185, None, &t), Some(calls::MAX_POOL / 4));
    }
}
