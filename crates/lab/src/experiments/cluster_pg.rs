//! The cluster experiment's PostgreSQL restart: a closed-loop `credit` load through HAProxy,
//! `pg_ctl restart -m fast` two seconds into it, and a probe call every 50 ms beside the load
//! that names each failure (a replica's `Server` fault, HAProxy's `503` fault, an I/O error) and
//! times it. It must never report a recovery it did not see: `recovered_s` is the first answered
//! probe after the last failure, or `None`.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context as _;

use super::cluster::{Cluster, EXP, WRITE};
use super::cluster_load::{self as load, Answer};
use super::Lab;
use crate::driver::{self, BenchSpec, Load};
use crate::results::{PgRestart, Placement, PlacementKind};

pub(crate) async fn pg_restart(
    lab: &mut Lab,
    script: &Path,
    dir: &Path,
    serve: &Path,
    write: &Path,
) -> anyhow::Result<PgRestart> {
    let c = Cluster::up(script, dir, serve, &["--replicas".into(), "2".into()]).await?;
    let url = c.get("URL")?.to_owned();
    let warmup = lab.cfg.timing.warmup;
    let window = (lab.cfg.timing.cluster_window * 2).max(Duration::from_secs(8));
    let mut spec = BenchSpec::sequential(url.clone(), window, warmup).with_body(write.to_owned());
    spec.load = Load::Closed {
        connections: 16,
        duration: window,
        warmup,
    };
    let started = Instant::now();
    let bench = driver::start(&lab.launcher, None, &spec)?;
    let at = warmup + Duration::from_secs(2);
    tokio::time::sleep(at).await;
    let stop = Arc::new(AtomicBool::new(false));
    let t0 = Instant::now();
    let probe = tokio::spawn(probe(url, stop.clone(), t0));
    let r = c.run(&["pg-restart".into()]).await;
    let took = t0.elapsed().as_secs_f64();
    let rest = (started + window + warmup).saturating_duration_since(Instant::now());
    tokio::time::sleep(rest).await;
    stop.store(true, Ordering::Relaxed);
    let calls = probe.await.context("the probe panicked")?;
    r?;
    let outcome = bench.finish().await?;
    let placement = Placement {
        kind: PlacementKind::CrossCpu,
        server_cpu: Some(format!("{},{}", lab.cfg.server_cpu, lab.cfg.other_cpu)),
        client_cpu: None,
        load_cpu: None,
    };
    lab.runs
        .push(outcome.into_run("soapstone", EXP, "pg-restart", placement, &spec));
    Ok(summarize_probe(&calls, (at - warmup).as_secs_f64(), took))
}

/// One probe call: seconds after the restart began, latency ms, `None` if answered, else the
/// failure label.
pub(crate) type Probe = (f64, f64, Option<String>);

async fn probe(url: String, stop: Arc<AtomicBool>, t0: Instant) -> Vec<Probe> {
    let Ok((host, path)) = load::split_url(&url) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    while !stop.load(Ordering::Relaxed) {
        let at = t0.elapsed().as_secs_f64();
        let t = Instant::now();
        let a = load::http(&host, "POST", &path, WRITE).await;
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        let failure = match (&a, load::classify(&a)) {
            (_, load::Outcome::Done(_)) => None,
            (Answer::Io(_), _) => Some("i/o error".to_owned()),
            (_, load::Outcome::Retry(l) | load::Outcome::Refused(l)) => Some(l),
        };
        out.push((at, ms, failure));
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    out
}

/// The probe calls reduced to a [`PgRestart`].
pub(crate) fn summarize_probe(calls: &[Probe], restart_at_s: f64, took: f64) -> PgRestart {
    let mut by: Vec<(String, u64)> = Vec::new();
    for (_, _, f) in calls {
        if let Some(f) = f {
            match by.iter_mut().find(|(l, _)| l == f) {
                Some((_, n)) => *n += 1,
                None => by.push((f.clone(), 1)),
            }
        }
    }
    let failed: Vec<&Probe> = calls.iter().filter(|c| c.2.is_some()).collect();
    let last_fail = failed.last().map(|c| c.0);
    PgRestart {
        restart_at_s,
        restart_took_s: took,
        probe_failures: by,
        probe_slowest_failure_ms: failed.iter().map(|c| c.1).reduce(f64::max),
        first_failure_s: failed.first().map(|c| c.0),
        recovered_s: last_fail
            .and_then(|l| calls.iter().find(|c| c.0 > l && c.2.is_none()).map(|c| c.0)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_probe_gives_first_failure_and_recovery() {
        let calls: Vec<Probe> = vec![
            (0.0, 1.0, None),
            (0.1, 3.0, Some("soap:Server 500".into())),
            (0.2, 2.0, Some("soap:Server 503".into())),
            (0.3, 4.0, Some("soap:Server 503".into())),
            (0.4, 1.0, None),
        ];
        let p = summarize_probe(&calls, 2.0, 1.1);
        assert_eq!(
            p.probe_failures,
            vec![
                ("soap:Server 500".to_owned(), 1),
                ("soap:Server 503".to_owned(), 2)
            ]
        );
        assert_eq!(p.probe_slowest_failure_ms, Some(4.0));
        assert_eq!((p.first_failure_s, p.recovered_s), (Some(0.1), Some(0.4)));
        let never = summarize_probe(&calls[..4], 2.0, 1.1);
        assert_eq!(never.recovered_s, None);
        assert_eq!(summarize_probe(&calls[..1], 2.0, 1.1).first_failure_s, None);
    }
}
