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

/// The pooled point just measured (`at`) sent as many calls as its `held` reservations: its
/// faults are the lab's. The run is dropped and the point measured once more with a pool sized
/// from its own rate; a second overrun drops that run too, with a problem.
#[allow(clippy::too_many_arguments)]
pub(crate) async fn remeasure_if_overrun(
    lab: &mut Lab,
    url: &str,
    at: Option<usize>,
    held: usize,
    pool_start: &mut usize,
    tag: &str,
    label: &str,
    spec: &BenchSpec,
) {
    let t = lab.cfg.timing.clone();
    let Some(i) = at else { return };
    let overrun = |r: &crate::results::Run| {
        r.errors + r.timeouts > 0
            && calls::pool_overrun(
                r.ok + r.errors + r.timeouts,
                held,
                t.thesis_window,
                t.warmup,
            )
    };
    if !overrun(&lab.runs[i]) {
        return;
    }
    let run = lab.runs.remove(i);
    let sent = run.ok + run.errors + run.timeouts;
    let rate = sent as f64 / t.thesis_window.as_secs_f64().max(1e-3);
    let n = calls::pool_size(Some(rate), t.thesis_window, t.warmup);
    lab.problem(format!(
        "thesis: {label} sent {sent} calls against a pool of {held} reservations (it ran out: \
         {} faults the lab caused); dropped and measured again with {n}",
        run.errors + run.timeouts
    ));
    let Some(pool) = make_pool(
        lab,
        url,
        run_op(&run),
        n,
        pool_start,
        &format!("{tag}-again"),
    )
    .await
    else {
        return;
    };
    let mut again = spec.clone();
    again.body = Some(pool.dir.clone());
    again.request_bytes = Some(pool.bytes);
    let placement = run.settings.placement.clone();
    let Some(j) = lab
        .measure(("soapstone", EXP, pool.op), placement, &again)
        .await
    else {
        return;
    };
    let r = &lab.runs[j];
    if r.errors + r.timeouts > 0
        && calls::pool_overrun(
            r.ok + r.errors + r.timeouts,
            pool.n,
            t.thesis_window,
            t.warmup,
        )
    {
        let sent = r.ok + r.errors + r.timeouts;
        lab.runs.remove(j);
        lab.problem(format!(
            "thesis: {label} ran out of {} reservations again ({sent} calls); not reported",
            pool.n
        ));
    }
}

/// The pooled operation of a run, as the static name [`make_pool`] takes.
fn run_op(run: &crate::results::Run) -> &'static str {
    if run.operation == "releaseRes" {
        "releaseRes"
    } else {
        "debitReservation"
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
