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
use serde_json::Value;

use crate::procs::{log_tail, Launcher};
use crate::results::{Placement, Run, Second, Settings};

/// The load a bench point offers.
#[derive(Debug, Clone)]
pub(crate) enum Load {
    /// One connection, each request sent when the previous answer has arrived.
    Sequential {
        duration: Duration,
        warmup: Duration,
    },
    /// A named schedule of the bench (`test1`, `test2`, `stress`, `peak`, `traffic`), its time
    /// scaled by `scale_time` (1 = as published), or run for `duration` if given.
    Schedule {
        name: String,
        scale_time: Option<f64>,
        duration: Option<Duration>,
        rate: Option<f64>,
        workers: Option<u32>,
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
            a.push("--action".into());
            a.push(act.clone());
        }
        a.extend(self.extra.iter().cloned());
        match &self.load {
            Load::Sequential { duration, warmup } => {
                a.extend([
                    "--connections".into(),
                    "1".into(),
                    "--duration".into(),
                    secs(*duration),
                    "--warmup".into(),
                    secs(*warmup),
                ]);
            }
            Load::Schedule {
                name,
                scale_time,
                duration,
                rate,
                workers,
            } => {
                a.push("--schedule".into());
                a.push(name.clone());
                if let Some(s) = scale_time {
                    a.push("--scale-time".into());
                    a.push(format!("{s}"));
                }
                if let Some(d) = duration {
                    a.push("--duration".into());
                    a.push(secs(*d));
                }
                if let Some(r) = rate {
                    a.push("--rate".into());
                    a.push(format!("{r}"));
                }
                if let Some(w) = workers {
                    a.push("--connections".into());
                    a.push(w.to_string());
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
            Load::Sequential { duration, warmup } => *duration + *warmup,
            Load::Schedule {
                name,
                scale_time,
                duration,
                ..
            } => duration.unwrap_or_else(|| {
                let full = match name.as_str() {
                    "test1" | "test2" => 300.0,
                    _ => 60.0,
                };
                Duration::from_secs_f64(full * scale_time.unwrap_or(1.0))
            }),
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
    pub(crate) bytes_sent: Option<u64>,
    pub(crate) bytes_received: Option<u64>,
    pub(crate) percentiles: Vec<(f64, f64)>,
    pub(crate) timeline: Vec<Second>,
    pub(crate) duration_s: f64,
    pub(crate) warmup_s: f64,
    pub(crate) connections: u32,
    pub(crate) rate: Option<f64>,
    pub(crate) schedule: Vec<(f64, f64)>,
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
            bytes_sent: self.bytes_sent,
            bytes_received: self.bytes_received,
            percentiles: self.percentiles,
            timeline: self.timeline,
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
        let value: Value = serde_json::from_str(&text)
            .with_context(|| format!("the bench JSON `{}` does not parse", self.json.display()))?;
        let mut outcome = parse_report(&value)
            .with_context(|| format!("unexpected bench JSON in `{}`", self.json.display()))?;
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

/// Reads the bench's JSON report.
pub(crate) fn parse_report(v: &Value) -> anyhow::Result<Outcome> {
    let num = |paths: &[&str]| {
        paths
            .iter()
            .find_map(|p| pointer(v, p).and_then(Value::as_f64))
    };
    let int = |paths: &[&str]| {
        paths
            .iter()
            .find_map(|p| pointer(v, p).and_then(Value::as_u64))
    };
    let p50_us = num(&["/latency_us/p50", "/latency/p50_us", "/p50_us"])
        .context("no median latency (`latency_us.p50`)")?;
    let p99_us = num(&["/latency_us/p99", "/latency/p99_us", "/p99_us"])
        .context("no p99 latency (`latency_us.p99`)")?;
    let mean_us = num(&["/latency_us/mean", "/latency/mean_us", "/mean_us"]).unwrap_or(p50_us);
    let stdev_us = num(&["/latency_us/stdev", "/latency/stdev_us", "/stdev_us"]);
    let ok = int(&["/requests/ok", "/ok"]).context("no count of successful requests")?;
    let errors = int(&["/requests/errors", "/errors/total", "/errors"]).unwrap_or(0);
    let timeouts = int(&["/requests/timeouts", "/errors/timeout", "/timeouts"]).unwrap_or(0);
    let duration_s = num(&["/duration_secs", "/duration_s", "/measured_secs"]).unwrap_or(0.0);
    let throughput_rps = num(&["/throughput_rps", "/rate/achieved", "/achieved_rps"])
        .unwrap_or_else(|| {
            if duration_s > 0.0 {
                ok as f64 / duration_s
            } else {
                0.0
            }
        });
    let percentiles = pointer(v, "/latency_us/percentiles")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|p| {
                    let q = p.get(0).or_else(|| p.get("percentile"))?.as_f64()?;
                    let us = p.get(1).or_else(|| p.get("us"))?.as_f64()?;
                    Some((q, us))
                })
                .collect()
        })
        .unwrap_or_default();
    let timeline = pointer(v, "/timeline")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|s| {
                    Some(Second {
                        t: s.get("t").or_else(|| s.get("second"))?.as_f64()?,
                        ok: s.get("ok")?.as_u64()?,
                        errors: s.get("errors").and_then(Value::as_u64).unwrap_or(0),
                        timeouts: s.get("timeouts").and_then(Value::as_u64).unwrap_or(0),
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    Ok(Outcome {
        p50_us,
        p99_us,
        mean_us,
        stdev_us,
        throughput_rps,
        ok,
        errors,
        timeouts,
        bytes_sent: int(&["/bytes_sent"]),
        bytes_received: int(&["/bytes_received"]),
        percentiles,
        timeline,
        duration_s,
        warmup_s: num(&["/warmup_secs", "/warmup_s"]).unwrap_or(0.0),
        connections: int(&["/connections"]).unwrap_or(1) as u32,
        rate: num(&["/rate/requested", "/requested_rps"]),
        schedule: Vec::new(),
        command: String::new(),
    })
}

fn pointer<'a>(v: &'a Value, p: &str) -> Option<&'a Value> {
    v.pointer(p).filter(|x| !x.is_null())
}
