//! Points that must not be read as results: too few samples for a median or a 99th percentile
//! to mean anything, or a latency above the request timeout the point ran with (a call the
//! client should have given up on). They are listed in the report beside the problems; the
//! cells still show what was measured, so nothing is hidden. This module must never drop or
//! change a run.

use crate::results::{PlacementKind, Results, Run};

/// Fewer calls than this in a measured window make a point suspect.
pub(crate) const MIN_SAMPLES: u64 = 30;

/// The request timeout a bench point ran with, read from its command line (`--timeout 5s`).
fn timeout_s(run: &Run) -> Option<f64> {
    let cmd = run.settings.command.as_deref()?;
    let mut words = cmd.split_whitespace();
    words.find(|w| *w == "--timeout")?;
    let t = words.next()?;
    crate::config::parse_duration(t)
        .ok()
        .map(|d| d.as_secs_f64())
}

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
                    "suspect point, {at}: only {} calls answered in the {:.1} s window (fewer than \
                     {MIN_SAMPLES}): its p50 and p99 rest on too few samples",
                    one.ok, one.settings.duration_s
                ));
            } else {
                let least = same.iter().map(|o| o.ok).min().unwrap_or(0);
                let most = same.iter().map(|o| o.ok).max().unwrap_or(0);
                out.push(format!(
                    "suspect points, {}: {}: {} points answered only {least} to {most} calls in \
                     their windows (fewer than {MIN_SAMPLES}): their p50 and p99 rest on too few \
                     samples ({})",
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
            }
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
        assert!(s[0].contains("only 1 calls answered"), "{}", s[0]);
        assert!(
            s[1].contains("p99 9.98 s is above the 5 s request timeout"),
            "{}",
            s[1]
        );
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
            s[0].contains(&format!("{flagged} points answered only 3 to 3 calls")),
            "{}",
            s[0]
        );
    }
}
