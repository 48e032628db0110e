//! Points that must not be read as results: too few samples for a median or a 99th percentile
//! to mean anything; a latency above the request timeout the point ran with (a call the client
//! should have given up on, yet no timeout was counted); a 99th percentile longer than the
//! window it was measured in with no error recorded (the calls queued behind an overloaded
//! server, so the figure is queueing, not a call's time). They are flagged in the table cells
//! themselves ([`cell`]: `⚠` and the reason before the value) and listed beside the problems;
//! the value measured is still shown, so nothing is hidden. This module must never drop or
//! change a run.

use crate::results::{PlacementKind, Results, Run};

/// Fewer calls than this in a measured window make a point suspect.
pub(crate) const MIN_SAMPLES: u64 = 30;

/// The bench's request timeout when its command line gives none (`soapstone bench`'s default).
const BENCH_DEFAULT_TIMEOUT_S: f64 = 20.0;

/// The request timeout a bench point ran with, read from its command line (`--timeout 5s`;
/// the bench's default when a bench command has none).
fn timeout_s(run: &Run) -> Option<f64> {
    let cmd = run.settings.command.as_deref()?;
    let mut words = cmd.split_whitespace();
    if words.clone().any(|w| w == "--timeout") {
        words.find(|w| *w == "--timeout")?;
        let t = words.next()?;
        return crate::config::parse_duration(t)
            .ok()
            .map(|d| d.as_secs_f64());
    }
    words
        .any(|w| w == "bench")
        .then_some(BENCH_DEFAULT_TIMEOUT_S)
}

/// Why `run` must not be read as a result, in a few words for a table cell (`3 calls`,
/// `p99 above the 5 s timeout`), or `None` for a sound point.
pub(crate) fn flag(run: &Run) -> Option<String> {
    if run.settings.placement.kind == PlacementKind::InProcess {
        return None;
    }
    if run.ok < MIN_SAMPLES {
        return Some(format!(
            "{} call{}",
            run.ok,
            if run.ok == 1 { "" } else { "s" }
        ));
    }
    if let Some(t) = timeout_s(run) {
        if run.p99_us > t * 1e6 {
            return Some(format!("p99 above the {t} s timeout"));
        }
    }
    if queued(run) {
        return Some("p99 longer than its window, 0 errors".to_owned());
    }
    None
}

/// A p99 longer than the whole measured window with no error: calls waited in a queue. Not
/// for the response cache's points (`wsb_cache`), whose schedule is raised past the uncached
/// server's capacity on purpose: their backlog's wait is the result that section reports.
fn queued(run: &Run) -> bool {
    run.experiment != crate::experiments::wsb_cache::EXP
        && run.errors == 0
        && run.timeouts == 0
        && run.settings.duration_s > 0.0
        && run.p99_us > run.settings.duration_s * 1e6
}

/// A table cell for one statistic of an optional run: the value formatted with `f`, `–` when
/// there is no run, and `⚠ reason: value` for a suspect point.
pub(crate) fn cell(run: Option<&Run>, stat: fn(&Run) -> f64, f: fn(f64) -> String) -> String {
    match run {
        None => "–".to_owned(),
        Some(r) => match flag(r) {
            Some(why) => format!("⚠ {why}: {}", f(stat(r))),
            None => f(stat(r)),
        },
    }
}

/// A `same CPU / cross-CPU` pair of [`cell`]s.
pub(crate) fn cell_pair(
    runs: [Option<&Run>; 2],
    stat: fn(&Run) -> f64,
    f: fn(f64) -> String,
) -> String {
    format!("{} / {}", cell(runs[0], stat, f), cell(runs[1], stat, f))
}

/// The percentiles of `run` its calls can support, for a percentile chart: p0 and every p with
/// at least one call beyond it (p ≤ 100 × (1 − 1/calls): p99 needs 100 calls, p99.9 1,000).
/// SOAP::Lite's 42 echoFloat calls drew a p99.9 that was only their slowest call. The dropped
/// points stay in `results.json`; the chart just ends where this series' data end.
pub(crate) fn plotted_percentiles(run: &Run) -> Vec<(f64, f64)> {
    let n = run.ok.max(1) as f64;
    let top = 100.0 * (1.0 - 1.0 / n) + 1e-9;
    run.percentiles
        .iter()
        .copied()
        .filter(|(p, _)| *p == 0.0 || *p <= top)
        .collect()
}

/// What a table note says about the `⚠` mark.
pub(crate) const MARK_NOTE: &str = "⚠ marks a suspect point (too few calls, a p99 above the \
     request timeout, or a p99 longer than its window with no error): its value is shown but is \
     not a result; the problems box says why.";

/// One sentence per suspect point; the few-sample points of one system in one experiment share
/// a sentence (a slow peer such as SOAP::Lite has a dozen, and the problems box is for reading).
pub(crate) fn suspect_points(results: &Results) -> Vec<String> {
    let measured = || {
        results
            .runs
            .iter()
            .filter(|r| r.settings.placement.kind != PlacementKind::InProcess)
    };
    let few = |r: &Run| r.ok < MIN_SAMPLES;
    let mut out = Vec::new();
    let mut grouped: Vec<(&str, &str)> = Vec::new();
    for r in measured() {
        let at = format!(
            "{}: {} {} ({})",
            r.experiment,
            r.system,
            r.operation,
            r.settings.placement.kind.label()
        );
        let key = (r.experiment.as_str(), r.system.as_str());
        if few(r) && !grouped.contains(&key) {
            grouped.push(key);
            let same: Vec<&Run> = measured()
                .filter(|o| few(o) && (o.experiment.as_str(), o.system.as_str()) == key)
                .collect();
            if let [one] = same.as_slice() {
                out.push(format!(
                    "suspect point, {at}: only {} answered in the {:.1} s window (fewer than \
                     {MIN_SAMPLES}): its p50 and p99 rest on too few samples",
                    match one.ok {
                        1 => "1 call".to_owned(),
                        n => format!("{n} calls"),
                    },
                    one.settings.duration_s
                ));
            } else {
                let least = same.iter().map(|o| o.ok).min().unwrap_or(0);
                let most = same.iter().map(|o| o.ok).max().unwrap_or(0);
                let calls = if least == most {
                    format!("{least} calls each")
                } else {
                    format!("{least} to {most} calls")
                };
                // Why so few: the calls' own length against the window (a slow system), not a
                // failure; the reader should see which.
                let p50 =
                    |f: fn(f64, f64) -> f64, init| same.iter().map(|o| o.p50_us).fold(init, f);
                let (lo, hi) = (p50(f64::min, f64::INFINITY), p50(f64::max, 0.0));
                let median = if super::fmt::us(lo) == super::fmt::us(hi) {
                    format!("{} µs", super::fmt::us(lo))
                } else {
                    format!("{} to {} µs", super::fmt::us(lo), super::fmt::us(hi))
                };
                out.push(format!(
                    "suspect points, {}: {}: {} points answered only {calls} in their windows \
                     (fewer than {MIN_SAMPLES}; their median calls took {median}): their p50 and \
                     p99 rest on too few samples ({})",
                    r.experiment,
                    r.system,
                    same.len(),
                    same.iter()
                        .map(|o| format!("{} {}", o.operation, o.settings.placement.kind.label()))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
        }
        if let Some(t) = timeout_s(r) {
            if r.p99_us > t * 1e6 {
                out.push(format!(
                    "suspect point, {at}: p99 {:.2} s is above the {t} s request timeout, yet \
                     {} timeouts were recorded",
                    r.p99_us / 1e6,
                    r.timeouts
                ));
                continue;
            }
        }
        if !few(r) && queued(r) {
            out.push(format!(
                "suspect point, {at}: p99 {:.2} s is longer than the {:.1} s window it was \
                 measured in, with 0 errors and 0 timeouts: the calls queued behind the server, so \
                 the figure is queueing time, not a call's",
                r.p99_us / 1e6,
                r.settings.duration_s
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn few_samples_and_latency_above_the_timeout_are_flagged() {
        let mut r = crate::report::tests::sample();
        assert!(suspect_points(&r).is_empty(), "{:?}", suspect_points(&r));
        r.runs[0].ok = 1;
        r.runs[1].p99_us = 9.98e6;
        r.runs[1].settings.command = Some("soapstone bench http://x --timeout 5s --json f".into());
        let s = suspect_points(&r);
        assert_eq!(s.len(), 2, "{s:?}");
        assert!(s[0].contains("only 1 call answered"), "{}", s[0]);
        assert!(
            s[1].contains("p99 9.98 s is above the 5 s request timeout"),
            "{}",
            s[1]
        );
    }

    #[test]
    fn suspect_cells_carry_the_mark_and_the_reason() {
        let mut r = crate::report::tests::sample();
        let p50 = |r: &Run| r.p50_us;
        let sound = r.runs[1].clone();
        assert_eq!(flag(&sound), None);
        assert_eq!(
            cell(Some(&sound), p50, |v| format!("{v}")),
            format!("{}", sound.p50_us)
        );
        assert_eq!(cell(None, p50, |v| format!("{v}")), "–");
        // One call: too few.
        r.runs[0].ok = 1;
        assert_eq!(flag(&r.runs[0]).as_deref(), Some("1 call"));
        assert!(cell(Some(&r.runs[0]), p50, |v| format!("{v}")).starts_with("⚠ 1 call: "));
        // The thesis point: p50 = p99 = 9.98 s under a 5 s timeout, 0 timeouts.
        let mut t = sound.clone();
        t.p99_us = 9.98e6;
        t.settings.command = Some("soapstone bench http://x --timeout 5s".into());
        assert_eq!(flag(&t).as_deref(), Some("p99 above the 5 s timeout"));
        // The bench's default timeout applies when the command gives none.
        t.settings.command = Some("taskset -c 1 soapstone bench http://x --json f".into());
        t.p99_us = 21e6;
        assert_eq!(flag(&t).as_deref(), Some("p99 above the 20 s timeout"));
        // The shop point: p99 9.3 s in a 6 s window with 0 errors.
        let mut q = sound.clone();
        q.settings.command = None;
        q.settings.duration_s = 6.0;
        q.p99_us = 9.3e6;
        q.errors = 0;
        q.timeouts = 0;
        assert_eq!(
            flag(&q).as_deref(),
            Some("p99 longer than its window, 0 errors")
        );
        q.errors = 3;
        assert_eq!(flag(&q), None, "errors recorded: the long p99 is explained");
        let pair = cell_pair([Some(&sound), None], p50, |v| format!("{v}"));
        assert!(pair.ends_with(" / –"), "{pair}");
    }

    #[test]
    fn few_sample_points_of_one_system_share_a_sentence() {
        let mut r = crate::report::tests::sample();
        let mut second = r.runs[0].clone();
        second.operation = format!("{} again", second.operation);
        r.runs.push(second);
        let (system, experiment) = (r.runs[0].system.clone(), r.runs[0].experiment.clone());
        for run in &mut r.runs {
            if run.system == system && run.experiment == experiment {
                run.ok = 3;
            }
        }
        let flagged = r
            .runs
            .iter()
            .filter(|run| run.system == system && run.experiment == experiment)
            .count();
        assert!(flagged >= 2);
        let s = suspect_points(&r);
        assert_eq!(s.len(), 1, "{s:?}");
        assert!(
            s[0].contains(&format!(
                "{flagged} points answered only 3 calls each in their windows (fewer than 30; \
                 their median calls took"
            )),
            "{}",
            s[0]
        );
        // Different counts read as a range, and the calls' length says why there are so few.
        for (i, run) in r
            .runs
            .iter_mut()
            .filter(|run| run.system == system && run.experiment == experiment)
            .enumerate()
        {
            run.ok = 6 + i as u64;
            run.p50_us = 44_000.0 + 1000.0 * i as f64;
        }
        let s = suspect_points(&r);
        assert!(
            s[0].contains(&format!(
                "answered only 6 to {} calls in their windows (fewer than 30; their median calls \
                 took 44,000 to {} µs)",
                5 + flagged,
                crate::report::fmt::us(44_000.0 + 1000.0 * (flagged - 1) as f64)
            )),
            "{}",
            s[0]
        );
    }

    #[test]
    fn a_percentile_curve_ends_where_its_calls_support_it() {
        let mut r = crate::report::tests::sample().runs[0].clone();
        r.percentiles = vec![
            (0.0, 1.0),
            (50.0, 2.0),
            (90.0, 3.0),
            (99.0, 4.0),
            (99.9, 5.0),
        ];
        r.ok = 42;
        let ps: Vec<f64> = plotted_percentiles(&r).iter().map(|(p, _)| *p).collect();
        assert_eq!(ps, [0.0, 50.0, 90.0]);
        r.ok = 100;
        assert_eq!(plotted_percentiles(&r).len(), 4);
        r.ok = 1000;
        assert_eq!(plotted_percentiles(&r).len(), 5);
    }
}
