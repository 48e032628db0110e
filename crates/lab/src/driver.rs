//! Runs one measurement by spawning `soapstone bench ... --json FILE` (pinned with `taskset`)
//! and turns the JSON it writes into a [`Run`].
//!
//! This is the lab's only contact with the load generator, so a change of the bench command line
//! or of its JSON shows up here and nowhere else. It must never retry a failed measurement
//! silently or substitute a value: a bench that exits non-zero, times out or writes JSON without
//! latency figures is an error with the command line and the end of its log.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use anyhow::{bail, Context as _};
use soapstone_bench::{BenchReport, Load as BenchLoad};

use crate::procs::{log_tail, Launcher};
use crate::results::{PhaseStat, Placement, Run, Second, Settings};

/// The load a bench point offers.
#[derive(Debug, Clone)]
pub(crate) enum Load {
    /// One connection, each request sent when the previous answer has arrived.
    Sequential {
        duration: Duration,
        warmup: Duration,
    },
    /// One of the thesis's load patterns (`stress`, `peak`, `traffic`) for `duration`.
    Pattern {
        pattern: &'static str,
        duration: Duration,
        connections: Option<u32>,
        rate: Option<f64>,
    },
    /// A named schedule of the bench (`test1`, `test2`), its time scaled by `scale`.
    Schedule {
        name: String,
        scale: f64,
        connections: Option<u32>,
    },
    /// `connections` closed-loop connections, each sending as soon as its answer arrives.
    Closed {
        connections: u32,
        duration: Duration,
        warmup: Duration,
    },
}

/// One bench invocation.
#[derive(Debug, Clone)]
pub(crate) struct BenchSpec {
    /// `http://...`, `tcp://host:port`, `tcp-connect://host:port`, `grpc://host:port`.
    pub(crate) url: String,
    /// Request body file (SOAP envelope, or the ping-pong payload).
    pub(crate) body: Option<PathBuf>,
    /// SOAPAction.
    pub(crate) action: Option<String>,
    /// Target-specific flags (response size, gRPC call).
    pub(crate) extra: Vec<String>,
    pub(crate) load: Load,
    /// Per-request timeout.
    pub(crate) timeout: Option<Duration>,
    /// Request size in bytes (for the settings).
    pub(crate) request_bytes: Option<u64>,
    /// Background load label for the settings (`none`, `stress`, ...).
    pub(crate) background: Option<String>,
}

impl BenchSpec {
    /// A sequential one-connection point.
    pub(crate) fn sequential(url: String, duration: Duration, warmup: Duration) -> BenchSpec {
        BenchSpec {
            url,
            body: None,
            action: None,
            extra: Vec::new(),
            load: Load::Sequential { duration, warmup },
            timeout: Some(Duration::from_secs(5)),
            request_bytes: None,
            background: None,
        }
    }

    /// Sets the body file and remembers its size.
    pub(crate) fn with_body(mut self, body: PathBuf) -> BenchSpec {
        self.request_bytes = std::fs::metadata(&body).ok().map(|m| m.len());
        self.body = Some(body);
        self
    }

    /// The bench command-line arguments (after the executable), writing JSON to `json`.
    pub(crate) fn args(&self, json: &std::path::Path) -> Vec<String> {
        let mut a: Vec<String> = vec!["bench".into(), self.url.clone()];
        if let Some(b) = &self.body {
            a.push("--body".into());
            a.push(b.display().to_string());
        }
        if let Some(act) = &self.action {
            a.push("--soap-action".into());
            a.push(act.clone());
        }
        a.extend(self.extra.iter().cloned());
        match &self.load {
            Load::Sequential { duration, warmup } => {
                a.extend([
                    "--connections".into(),
                    "1".into(),
                    "--closed".into(),
                    "--duration".into(),
                    secs(*duration),
                    "--warmup".into(),
                    secs(*warmup),
                ]);
            }
            Load::Pattern {
                pattern,
                duration,
                connections,
                rate,
            } => {
                a.extend([
                    "--pattern".into(),
                    (*pattern).to_owned(),
                    "--duration".into(),
                    secs(*duration),
                ]);
                if let Some(c) = connections {
                    a.extend(["--connections".into(), c.to_string()]);
                }
                if let Some(r) = rate {
                    a.extend(["--rate".into(), format!("{r}")]);
                }
            }
            Load::Closed {
                connections,
                duration,
                warmup,
            } => {
                a.extend([
                    "--connections".into(),
                    connections.to_string(),
                    "--closed".into(),
                    "--duration".into(),
                    secs(*duration),
                    "--warmup".into(),
                    secs(*warmup),
                ]);
            }
            Load::Schedule {
                name,
                scale,
                connections,
            } => {
                a.extend([
                    "--schedule".into(),
                    name.clone(),
                    "--scale".into(),
                    format!("{scale}"),
                ]);
                if let Some(c) = connections {
                    a.extend(["--connections".into(), c.to_string()]);
                }
            }
        }
        if let Some(t) = self.timeout {
            a.push("--timeout".into());
            a.push(secs(t));
        }
        a.push("--json".into());
        a.push(json.display().to_string());
        a
    }

    /// An upper bound on how long the bench may take before the lab gives up on it.
    fn deadline(&self) -> Duration {
        let base = match &self.load {
            Load::Sequential { duration, warmup }
            | Load::Closed {
                duration, warmup, ..
            } => *duration + *warmup,
            Load::Pattern { duration, .. } => *duration,
            Load::Schedule { name, scale, .. } => {
                let full = match name.as_str() {
                    "test1" | "test2" => 300.0,
                    _ => 600.0,
                };
                Duration::from_secs_f64(full * scale)
            }
        };
        base + self.timeout.unwrap_or(Duration::from_secs(20)) + Duration::from_secs(30)
    }
}

fn secs(d: Duration) -> String {
    format!("{}s", d.as_secs_f64())
}

/// What a bench run reported, already reduced to the lab's fields.
#[derive(Debug, Clone, Default)]
pub(crate) struct Outcome {
    pub(crate) p50_us: f64,
    pub(crate) p99_us: f64,
    pub(crate) mean_us: f64,
    pub(crate) stdev_us: Option<f64>,
    pub(crate) throughput_rps: f64,
    pub(crate) ok: u64,
    pub(crate) errors: u64,
    pub(crate) timeouts: u64,
    pub(crate) unsent: u64,
    pub(crate) bytes_sent: Option<u64>,
    pub(crate) bytes_received: Option<u64>,
    pub(crate) percentiles: Vec<(f64, f64)>,
    pub(crate) timeline: Vec<Second>,
    pub(crate) peak_ok_per_second: Option<u64>,
    pub(crate) duration_s: f64,
    pub(crate) warmup_s: f64,
    pub(crate) connections: u32,
    pub(crate) rate: Option<f64>,
    pub(crate) schedule: Vec<(f64, f64)>,
    pub(crate) phases: Vec<PhaseStat>,
    pub(crate) command: String,
}

impl Outcome {
    pub(crate) fn into_run(
        self,
        system: &str,
        experiment: &str,
        operation: &str,
        placement: Placement,
        spec: &BenchSpec,
    ) -> Run {
        Run {
            system: system.to_owned(),
            experiment: experiment.to_owned(),
            operation: operation.to_owned(),
            p50_us: self.p50_us,
            p99_us: self.p99_us,
            mean_us: self.mean_us,
            stdev_us: self.stdev_us,
            throughput_rps: self.throughput_rps,
            ok: self.ok,
            errors: self.errors,
            timeouts: self.timeouts,
            unsent: self.unsent,
            bytes_sent: self.bytes_sent,
            bytes_received: self.bytes_received,
            percentiles: self.percentiles,
            timeline: self.timeline,
            peak_ok_per_second: self.peak_ok_per_second,
            cache: None,
            phases: self.phases,
            settings: Settings {
                placement,
                duration_s: self.duration_s,
                warmup_s: self.warmup_s,
                connections: self.connections,
                rate: self.rate,
                schedule: self.schedule,
                background: spec.background.clone(),
                request_bytes: spec.request_bytes,
                command: Some(self.command),
            },
        }
    }
}

/// A bench process started in the background (for the thesis's load generators).
pub(crate) struct Running {
    child: tokio::process::Child,
    json: PathBuf,
    log: PathBuf,
    command: String,
    deadline: Duration,
}

impl Running {
    /// Waits for the bench to finish and parses its result.
    pub(crate) async fn finish(mut self) -> anyhow::Result<Outcome> {
        let status = match tokio::time::timeout(self.deadline, self.child.wait()).await {
            Ok(s) => s.context("cannot wait for the bench")?,
            Err(_) => {
                let _ = self.child.kill().await;
                bail!(
                    "`{}` did not finish within {:?}; its log: {}{}",
                    self.command,
                    self.deadline,
                    self.log.display(),
                    log_tail(&self.log)
                );
            }
        };
        if !status.success() {
            bail!(
                "`{}` failed ({status}); its log: {}{}",
                self.command,
                self.log.display(),
                log_tail(&self.log)
            );
        }
        let text = std::fs::read_to_string(&self.json).with_context(|| {
            format!(
                "`{}` wrote no JSON at `{}`",
                self.command,
                self.json.display()
            )
        })?;
        let report: BenchReport = serde_json::from_str(&text)
            .with_context(|| format!("the bench JSON `{}` does not parse", self.json.display()))?;
        let mut outcome =
            from_report(&report).with_context(|| format!("`{}` measured nothing", self.command))?;
        outcome.command = self.command;
        Ok(outcome)
    }
}

/// Starts a bench process pinned to `cpu` without waiting for it.
pub(crate) fn start(
    launcher: &Launcher,
    cpu: Option<&str>,
    spec: &BenchSpec,
) -> anyhow::Result<Running> {
    let log = launcher.log_path("bench");
    let json = log.with_extension("json");
    let args = spec.args(&json);
    let command = launcher.display(cpu, &args);
    let stderr = std::fs::File::create(&log)
        .with_context(|| format!("cannot create `{}`", log.display()))?;
    let child = launcher
        .command(cpu, &args)
        .stdout(Stdio::null())
        .stderr(stderr)
        .spawn()
        .with_context(|| format!("cannot start `{command}`"))?;
    Ok(Running {
        child,
        json,
        log,
        command,
        deadline: spec.deadline(),
    })
}

/// Runs one bench point pinned to `cpu` and returns what it measured.
pub(crate) async fn bench(
    launcher: &Launcher,
    cpu: Option<&str>,
    spec: &BenchSpec,
) -> anyhow::Result<Outcome> {
    start(launcher, cpu, spec)?.finish().await
}

/// Reduces the bench's JSON report to the lab's fields.
pub(crate) fn from_report(r: &BenchReport) -> anyhow::Result<Outcome> {
    let lat = &r.latency.corrected;
    if lat.count == 0 && r.requests.sent == 0 && r.elapsed_secs > 0.0 {
        bail!(
            "no call was sent and answered within the {:.1} s window ({:.1} s elapsed): the one \
             in flight when the warm-up ended was still unanswered, so the server stalled for \
             longer than the window",
            r.duration_secs,
            r.elapsed_secs
        );
    }
    if lat.count == 0 {
        bail!(
            "the bench measured no latency ({} sent, {} ok, {} errors)",
            r.requests.sent,
            r.requests.ok,
            r.errors.total
        );
    }
    let percentiles = vec![
        (0.0, lat.min_us as f64),
        (50.0, lat.p50_us as f64),
        (90.0, lat.p90_us as f64),
        (99.0, lat.p99_us as f64),
        (99.9, lat.p999_us as f64),
    ];
    let timeline = r
        .timeline
        .iter()
        .map(|s| Second {
            t: s.second as f64,
            requests: s.requests,
            ok: s.ok,
            errors: s.errors,
        })
        .collect();
    let mut schedule = Vec::new();
    for p in &r.phases {
        let rate = match p.load {
            BenchLoad::Open { rate, .. } => rate,
            _ => 0.0,
        };
        schedule.push((p.start_secs, rate));
        schedule.push((p.start_secs + p.duration_secs, rate));
    }
    if !r.phases.iter().any(|p| p.load.is_open()) {
        schedule.clear();
    }
    let phases = match schedule.is_empty() {
        true => Vec::new(),
        false => r
            .phases
            .iter()
            .map(|p| PhaseStat {
                start_s: p.start_secs,
                duration_s: p.duration_secs,
                rate: match p.load {
                    BenchLoad::Open { rate, .. } => Some(rate),
                    _ => None,
                },
                requests: p.requests,
                ok: p.ok,
                errors: p.errors,
                unsent: p.unsent,
                p50_us: p.p50_us.map(|v| v as f64),
                p99_us: p.p99_us.map(|v| v as f64),
            })
            .collect(),
    };
    Ok(Outcome {
        p50_us: lat.p50_us as f64,
        p99_us: lat.p99_us as f64,
        mean_us: lat.mean_us,
        stdev_us: Some(lat.stdev_us),
        throughput_rps: r.ok_rate,
        ok: r.requests.ok,
        errors: r.errors.total - r.errors.timeout,
        timeouts: r.errors.timeout,
        unsent: r.requests.unsent,
        bytes_sent: Some(r.bytes_sent),
        bytes_received: Some(r.bytes_received),
        percentiles,
        timeline,
        peak_ok_per_second: Some(r.peak_ok_per_second),
        duration_s: r.duration_secs,
        warmup_s: r.warmup_secs,
        connections: r.connections as u32,
        rate: r.requested_rate,
        schedule,
        phases,
        command: String::new(),
    })
}
