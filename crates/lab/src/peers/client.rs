//! Runs a peer client (PHP's SoapClient, zeep, SOAP::Lite, node-soap, the CORBA and RMI
//! clients) for one point and turns what it prints into a [`Run`].
//!
//! The protocol (also in `docs/lab.md`): the lab runs `COMMAND... URL OP N WARMUP_S WINDOW_S`;
//! the client calls `OP` (`doNothing`, `getStringOfSize`, `getIntegersOfSize`) with size `N`,
//! one call at a time, for `WARMUP_S` seconds without recording, then for `WINDOW_S` seconds,
//! checks every answer against the contract, and prints one JSON line:
//! `{"ok": 812, "errors": 0, "first_error": null, "samples_us": [412.5, ...]}` (one sample per
//! call that answered correctly, in microseconds, measured around the call in the client's own
//! language). A point with an error (a wrong answer included) is a failed point: it is reported
//! as a problem, never drawn. A JVM client may add `"warmup_calls": 95, "first_call_us": 411128.9`
//! (its untimed calls and how long the very first took): the JIT warm-up the lab reports. This module must never wait on a client without a deadline nor
//! read an unbounded amount of its output.

use std::process::Stdio;
use std::time::Duration;

use anyhow::{bail, Context as _};
use serde::Deserialize;
use tokio::io::AsyncReadExt as _;

use super::server::pinned;
use super::ManifestPeer;
use crate::procs::{log_tail, Launcher};
use crate::results::{Placement, Run, Settings};

/// The most a client may print (a million samples at ~10 bytes each, with room).
const MAX_OUTPUT: u64 = 32 << 20;
/// Start-up allowance on top of warm-up and window (a JVM, PHP parsing the WSDL).
const STARTUP: Duration = Duration::from_secs(60);

/// What a peer client prints.
#[derive(Debug, Deserialize)]
pub(crate) struct ClientReport {
    pub(crate) ok: u64,
    pub(crate) errors: u64,
    #[serde(default)]
    pub(crate) first_error: Option<String>,
    pub(crate) samples_us: Vec<f64>,
    /// Untimed calls made during the warm-up (JVM clients print it).
    #[serde(default)]
    pub(crate) warmup_calls: Option<u64>,
    /// How long the very first call took, cold, in microseconds (JVM clients print it).
    #[serde(default)]
    pub(crate) first_call_us: Option<f64>,
}

/// What a client said about its warm-up: the JIT's, for a JVM client.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Warmup {
    pub(crate) calls: u64,
    pub(crate) first_call_us: f64,
    pub(crate) seconds: f64,
}

impl Warmup {
    fn from_report(r: &ClientReport, seconds: f64) -> Option<Warmup> {
        Some(Warmup {
            calls: r.warmup_calls?,
            first_call_us: r.first_call_us.filter(|v| v.is_finite() && *v >= 0.0)?,
            seconds,
        })
    }

    /// `the first call took 411.1 ms cold, then 95 untimed calls in 1 s`.
    pub(crate) fn describe(&self) -> String {
        format!(
            "the first call took {:.1} ms cold, then {} untimed calls in {} s",
            self.first_call_us / 1000.0,
            self.calls,
            self.seconds
        )
    }
}

/// One client point.
#[derive(Debug, Clone)]
pub(crate) struct ClientPoint<'a> {
    pub(crate) url: &'a str,
    pub(crate) op: &'a str,
    pub(crate) n: u32,
    pub(crate) warmup: Duration,
    pub(crate) window: Duration,
}

/// Runs `peer`'s client for one point, pinned to `cpu`, and returns the measured run and the
/// warm-up the client reported, if it did.
pub(crate) async fn run(
    launcher: &Launcher,
    peer: &ManifestPeer,
    cpu: Option<&str>,
    point: &ClientPoint<'_>,
    ids: (&str, &str, &str),
    placement: Placement,
) -> anyhow::Result<(Run, Option<Warmup>)> {
    if peer.command.is_empty() {
        bail!("the manifest gives `{}` no command", peer.id);
    }
    let mut argv = peer.command.clone();
    argv.extend([
        point.url.to_owned(),
        point.op.to_owned(),
        point.n.to_string(),
        format!("{}", point.warmup.as_secs_f64()),
        format!("{}", point.window.as_secs_f64()),
    ]);
    let log = launcher.log_path(&format!("client-{}", peer.id));
    let stderr = std::fs::File::create(&log)
        .with_context(|| format!("cannot create `{}`", log.display()))?;
    let (mut cmd, command) = pinned(launcher, cpu, &argv);
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .with_context(|| format!("cannot start `{command}`"))?;
    let mut stdout = child.stdout.take().context("the client has no stdout")?;
    let deadline = point.warmup + point.window + STARTUP;
    let work = async {
        let mut out = Vec::new();
        (&mut stdout)
            .take(MAX_OUTPUT + 1)
            .read_to_end(&mut out)
            .await?;
        let status = child.wait().await?;
        Ok::<_, std::io::Error>((out, status))
    };
    let (out, status) = match tokio::time::timeout(deadline, work).await {
        Ok(r) => r.context("cannot read the client's output")?,
        Err(_) => bail!(
            "`{command}` did not finish within {deadline:?}; its log: {}{}",
            log.display(),
            log_tail(&log)
        ),
    };
    if out.len() as u64 > MAX_OUTPUT {
        bail!("`{command}` printed more than {MAX_OUTPUT} bytes");
    }
    if !status.success() {
        bail!(
            "`{command}` failed ({status}); its log: {}{}",
            log.display(),
            log_tail(&log)
        );
    }
    let text = String::from_utf8_lossy(&out);
    let line = text
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .with_context(|| format!("`{command}` printed nothing"))?;
    let report: ClientReport = serde_json::from_str(line)
        .with_context(|| format!("`{command}` printed `{}`, not the client JSON", short(line)))?;
    let warmup = Warmup::from_report(&report, point.warmup.as_secs_f64());
    Ok((into_run(report, point, ids, placement, command)?, warmup))
}

fn short(s: &str) -> String {
    s.chars().take(120).collect()
}

/// Turns a client's report into a run; any error makes the point fail.
pub(crate) fn into_run(
    report: ClientReport,
    point: &ClientPoint<'_>,
    ids: (&str, &str, &str),
    placement: Placement,
    command: String,
) -> anyhow::Result<Run> {
    if report.errors > 0 {
        bail!(
            "{} of {} calls failed or answered wrongly (first: `{}`)",
            report.errors,
            report.errors + report.ok,
            report.first_error.as_deref().unwrap_or("?")
        );
    }
    let mut s = report.samples_us;
    s.retain(|v| v.is_finite() && *v >= 0.0);
    if report.ok == 0 || s.is_empty() {
        bail!(
            "no call completed within the {:.2} s window",
            point.window.as_secs_f64()
        );
    }
    s.sort_by(f64::total_cmp);
    let pct = |p: f64| {
        let i = ((p / 100.0) * s.len() as f64).ceil() as usize;
        s[i.clamp(1, s.len()) - 1]
    };
    let n = s.len() as f64;
    let mean = s.iter().sum::<f64>() / n;
    let var = s.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n;
    let (system, experiment, operation) = ids;
    Ok(Run {
        system: system.to_owned(),
        experiment: experiment.to_owned(),
        operation: operation.to_owned(),
        p50_us: pct(50.0),
        p99_us: pct(99.0),
        mean_us: mean,
        stdev_us: Some(var.sqrt()),
        throughput_rps: report.ok as f64 / point.window.as_secs_f64(),
        ok: report.ok,
        errors: 0,
        timeouts: 0,
        unsent: 0,
        bytes_sent: None,
        bytes_received: None,
        percentiles: vec![
            (0.0, s[0]),
            (50.0, pct(50.0)),
            (90.0, pct(90.0)),
            (99.0, pct(99.0)),
            (99.9, pct(99.9)),
        ],
        timeline: Vec::new(),
        peak_ok_per_second: None,
        cache: None,
        phases: Vec::new(),
        settings: Settings {
            placement,
            duration_s: point.window.as_secs_f64(),
            warmup_s: point.warmup.as_secs_f64(),
            connections: 1,
            rate: None,
            schedule: Vec::new(),
            background: None,
            request_bytes: None,
            command: Some(command),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::PlacementKind;

    fn point() -> ClientPoint<'static> {
        ClientPoint {
            url: "http://127.0.0.1:1/dp",
            op: "doNothing",
            n: 0,
            warmup: Duration::from_millis(100),
            window: Duration::from_secs(2),
        }
    }

    fn placement() -> Placement {
        Placement {
            kind: PlacementKind::SameCpu,
            server_cpu: Some("0".into()),
            client_cpu: Some("0".into()),
            load_cpu: None,
        }
    }

    #[test]
    fn samples_become_percentiles() {
        let samples: Vec<f64> = (1..=100).rev().map(f64::from).collect();
        let r = ClientReport {
            ok: 100,
            errors: 0,
            first_error: None,
            samples_us: samples,
            warmup_calls: None,
            first_call_us: None,
        };
        let run = into_run(
            r,
            &point(),
            ("zeep", "clients", "doNothing"),
            placement(),
            "c".into(),
        )
        .unwrap();
        assert_eq!((run.p50_us, run.p99_us), (50.0, 99.0));
        assert_eq!(run.percentiles[0], (0.0, 1.0));
        assert_eq!(run.percentiles[4], (99.9, 100.0));
        assert!((run.mean_us - 50.5).abs() < 1e-9);
        assert_eq!(run.throughput_rps, 50.0);
        assert_eq!(run.settings.command.as_deref(), Some("c"));
    }

    #[test]
    fn a_wrong_answer_fails_the_point() {
        let r = ClientReport {
            ok: 10,
            errors: 1,
            first_error: Some("wrong integers".into()),
            samples_us: vec![1.0; 10],
            warmup_calls: None,
            first_call_us: None,
        };
        let e = into_run(r, &point(), ("x", "y", "z"), placement(), String::new()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "1 of 11 calls failed or answered wrongly (first: `wrong integers`)"
        );
        let r = ClientReport {
            ok: 0,
            errors: 0,
            first_error: None,
            samples_us: vec![],
            warmup_calls: None,
            first_call_us: None,
        };
        let e = into_run(r, &point(), ("x", "y", "z"), placement(), String::new()).unwrap_err();
        assert!(e.to_string().contains("no call completed"), "{e}");
    }

    #[tokio::test]
    async fn a_real_client_process_is_run_with_the_protocol_arguments() {
        let dir = tempfile::tempdir().unwrap();
        let launcher = Launcher {
            exe: "/bin/false".into(),
            taskset: None,
            log_dir: dir.path().to_owned(),
            wrap: Vec::new(),
        };
        // Echoes its arguments back inside the JSON so the test sees what the lab passed.
        let script = "import json,sys; a=sys.argv[1:]; \
                      print('noise'); print(json.dumps({'ok':3,'errors':0,'first_error':None,\
                      'samples_us':[float(len(x)) for x in a]}))";
        let peer: ManifestPeer = serde_json::from_value(serde_json::json!({
            "id": "fake", "status": "ready", "command": ["python3", "-c", script]
        }))
        .unwrap();
        let (run, warmup) = run(
            &launcher,
            &peer,
            None,
            &point(),
            ("fake", "clients", "doNothing"),
            placement(),
        )
        .await
        .unwrap();
        assert_eq!(warmup, None);
        // URL, OP, N, WARMUP_S, WINDOW_S: 21, 9, 1, 3 ("0.1") and 1 ("2") characters.
        assert_eq!(run.percentiles[0].1, 1.0);
        assert_eq!(run.percentiles[4].1, 21.0);
        assert_eq!(run.ok, 3);
        let cmd = run.settings.command.unwrap();
        assert!(
            cmd.ends_with("http://127.0.0.1:1/dp doNothing 0 0.1 2"),
            "{cmd}"
        );
    }

    #[tokio::test]
    async fn a_jvm_clients_warm_up_is_returned() {
        let dir = tempfile::tempdir().unwrap();
        let launcher = Launcher {
            exe: "/bin/false".into(),
            taskset: None,
            log_dir: dir.path().to_owned(),
            wrap: Vec::new(),
        };
        let script = "import json; print(json.dumps({'ok':2,'errors':0,'first_error':None,\
                      'warmup_calls':95,'first_call_us':411128.9,'samples_us':[5.0,6.0]}))";
        let peer: ManifestPeer = serde_json::from_value(serde_json::json!({
            "id": "fake", "status": "ready", "command": ["python3", "-c", script]
        }))
        .unwrap();
        let (run, warmup) = run(
            &launcher,
            &peer,
            None,
            &point(),
            ("fake", "clients", "doNothing"),
            placement(),
        )
        .await
        .unwrap();
        assert_eq!(run.ok, 2);
        let w = warmup.unwrap();
        assert_eq!(
            w.describe(),
            "the first call took 411.1 ms cold, then 95 untimed calls in 0.1 s"
        );
    }
}
