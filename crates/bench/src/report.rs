//! The result of a run: a serde value for `--json` and the lab, and its text summary.
//!
//! Every latency is in microseconds. "Corrected" latencies count from the time a request
//! was due (open loop; in closed loop the due time is the send time, so both agree);
//! "uncorrected" ones from the moment it was actually written. Both are always reported,
//! beside the requested and the achieved rate, so a generator that fell behind shows it.
//! This module must never measure anything: it only turns a merged recorder into numbers.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

use crate::recorder::{ErrorTally, Recorder, Tally};
use crate::schedule::{Load, Phase};

/// Summary statistics of one latency histogram (microseconds).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Percentiles {
    /// Number of samples.
    pub count: u64,
    /// Smallest sample.
    pub min_us: u64,
    /// Mean.
    pub mean_us: f64,
    /// Standard deviation.
    pub stdev_us: f64,
    /// Median.
    pub p50_us: u64,
    /// 90th percentile.
    pub p90_us: u64,
    /// 99th percentile.
    pub p99_us: u64,
    /// 99.9th percentile.
    pub p999_us: u64,
    /// Largest sample.
    pub max_us: u64,
}

impl Percentiles {
    /// Summarizes a histogram of microseconds.
    pub fn of(h: &Histogram<u64>) -> Self {
        if h.is_empty() {
            return Percentiles::default();
        }
        Percentiles {
            count: h.len(),
            min_us: h.min(),
            mean_us: h.mean(),
            stdev_us: h.stdev(),
            p50_us: h.value_at_quantile(0.5),
            p90_us: h.value_at_quantile(0.9),
            p99_us: h.value_at_quantile(0.99),
            p999_us: h.value_at_quantile(0.999),
            max_us: h.max(),
        }
    }
}

/// The three latency views of a run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct LatencyReport {
    /// From the due time (coordinated omission corrected).
    pub corrected: Percentiles,
    /// From the actual send time.
    pub uncorrected: Percentiles,
    /// How late the generator itself sent requests while their connection was free
    /// (timer granularity, CPU contention); excluded from `corrected`, shown so a busy
    /// generator is visible.
    pub generator_lateness: Percentiles,
}

/// Request counts.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RequestCounts {
    /// Requests the open-loop phases ask for on average (`rate * duration`); `None` when
    /// no phase is open loop.
    pub expected: Option<f64>,
    /// Requests sent (each ends as exactly one of ok or an error).
    pub sent: u64,
    /// Requests that got an answer of any status.
    pub responses: u64,
    /// Requests answered with success (HTTP 2xx, gRPC OK, the full ping-pong answer).
    pub ok: u64,
    /// Requests that failed (see [`ErrorCounts`]).
    pub errors: u64,
    /// Requests that were due but still unsent when the run's drain deadline (end of
    /// schedule + timeout) passed: the generator could not keep up.
    pub unsent: u64,
}

/// Errors by kind.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ErrorCounts {
    /// All errors.
    pub total: u64,
    /// No complete answer within the timeout.
    pub timeout: u64,
    /// The connection could not be opened.
    pub connect: u64,
    /// The connection broke during an exchange.
    pub io: u64,
    /// An answer that is not what was asked for (gRPC payload of the wrong size).
    pub invalid: u64,
    /// HTTP 500 (or SOAP 1.2's 400) carrying a SOAP Fault envelope.
    pub soap_fault: u64,
    /// Other non-2xx HTTP answers by status code.
    pub http_status: BTreeMap<u16, u64>,
    /// gRPC statuses other than OK, by code name.
    pub grpc_status: BTreeMap<String, u64>,
}

impl ErrorCounts {
    fn from_tally(t: &ErrorTally) -> Self {
        let total = t.timeout
            + t.connect
            + t.io
            + t.invalid
            + t.soap_fault
            + t.http_status.values().sum::<u64>()
            + t.grpc_status.values().sum::<u64>();
        ErrorCounts {
            total,
            timeout: t.timeout,
            connect: t.connect,
            io: t.io,
            invalid: t.invalid,
            soap_fault: t.soap_fault,
            http_status: t.http_status.clone(),
            grpc_status: t.grpc_status.clone(),
        }
    }
}

/// One second of the run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SecondReport {
    /// Seconds since the start of measurement.
    pub second: u64,
    /// Requests due (open loop) or sent (closed loop) in this second.
    pub requests: u64,
    /// Successful answers that arrived in this second.
    pub ok: u64,
    /// Errors that happened in this second.
    pub errors: u64,
    /// Requests due in this second that were never sent.
    pub unsent: u64,
    /// 99th percentile of the corrected latency of the answers of this second.
    pub p99_us: Option<u64>,
}

/// One phase of the schedule.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PhaseReport {
    /// Start, seconds since the start of measurement.
    pub start_secs: f64,
    /// Length in seconds.
    pub duration_secs: f64,
    /// The load offered.
    pub load: Load,
    /// Requests the phase asks for on average (open loop only).
    pub expected: Option<f64>,
    /// Requests due (open loop) or sent (closed loop) during the phase.
    pub requests: u64,
    /// Of those, answered with success.
    pub ok: u64,
    /// Of those, failed.
    pub errors: u64,
    /// Of those, never sent.
    pub unsent: u64,
    /// Answers (any status) to the phase's requests per second of its scheduled length.
    pub achieved_rate: f64,
    /// Median corrected latency of the phase's answers.
    pub p50_us: Option<u64>,
    /// 99th percentile corrected latency of the phase's answers.
    pub p99_us: Option<u64>,
}

/// Everything a run measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct BenchReport {
    /// The target, as given.
    pub target: String,
    /// Connections (generator tasks) used.
    pub connections: usize,
    /// The measured phases (warm-up excluded).
    pub schedule: Vec<Phase>,
    /// Warm-up before measurement, seconds.
    pub warmup_secs: f64,
    /// Scheduled length of the measurement, seconds.
    pub duration_secs: f64,
    /// Actual length: from the start of measurement until the last answer, or the
    /// scheduled end if that is later. Longer than `duration_secs` when answers arrived
    /// after the window (a slow last answer, a 1 s SYN retransmit). Informational only:
    /// no rate divides by it.
    pub elapsed_secs: f64,
    /// Requests per second asked for, when every sending phase is open loop.
    pub requested_rate: Option<f64>,
    /// Answers (any status) per second of the scheduled window `duration_secs`. Answers
    /// that arrive after the window still count (here and in the latencies) but do not
    /// stretch the denominator, so a stall shows as high latency, not as a lower rate.
    pub achieved_rate: f64,
    /// Successful answers per second of the scheduled window `duration_secs` (counted as
    /// in `achieved_rate`).
    pub ok_rate: f64,
    /// The most successful answers in one second (García et al.'s "http-200 (Highest Rate)").
    pub peak_ok_per_second: u64,
    /// Request counts.
    pub requests: RequestCounts,
    /// Latency distributions.
    pub latency: LatencyReport,
    /// Errors by kind.
    pub errors: ErrorCounts,
    /// Bytes written to the sockets (HTTP headers and framing included).
    pub bytes_sent: u64,
    /// Bytes read from the sockets.
    pub bytes_received: u64,
    /// Per-second timeline.
    pub timeline: Vec<SecondReport>,
    /// Per-phase summary.
    pub phases: Vec<PhaseReport>,
}

fn p(h: &Option<Histogram<u64>>, q: f64) -> Option<u64> {
    h.as_ref()
        .filter(|h| !h.is_empty())
        .map(|h| h.value_at_quantile(q))
}

pub(crate) struct ReportInput<'a> {
    pub(crate) target: String,
    pub(crate) connections: usize,
    pub(crate) phases: &'a [Phase],
    pub(crate) warmup_secs: f64,
    pub(crate) elapsed_secs: f64,
    pub(crate) recorder: &'a Recorder,
}

impl BenchReport {
    pub(crate) fn build(input: ReportInput<'_>) -> Self {
        let rec = input.recorder;
        let duration_secs: f64 = input.phases.iter().map(|p| p.duration.as_secs_f64()).sum();
        let expected: f64 = input
            .phases
            .iter()
            .map(|p| match p.load {
                Load::Open { rate, .. } => rate * p.duration.as_secs_f64(),
                _ => 0.0,
            })
            .sum();
        let any_open = input.phases.iter().any(|p| p.load.is_open());
        let all_open = input
            .phases
            .iter()
            .all(|p| matches!(p.load, Load::Open { .. } | Load::Idle));
        // Rates are over the scheduled window, never the actual one (see `elapsed_secs`).
        let window = duration_secs.max(f64::MIN_POSITIVE);
        let errors = ErrorCounts::from_tally(&rec.errors);

        let seconds = (duration_secs.ceil() as usize).max(rec.seconds.len());
        let empty = Tally::default();
        let timeline: Vec<SecondReport> = (0..seconds)
            .map(|i| {
                let t = rec.seconds.get(i).unwrap_or(&empty);
                SecondReport {
                    second: i as u64,
                    requests: t.requests,
                    ok: t.ok,
                    errors: t.errors,
                    unsent: t.unsent,
                    p99_us: p(&t.latency, 0.99),
                }
            })
            .collect();

        let mut start = 0.0;
        let phases = input
            .phases
            .iter()
            .zip(&rec.phases)
            .map(|(phase, t)| {
                let d = phase.duration.as_secs_f64();
                let report = PhaseReport {
                    start_secs: start,
                    duration_secs: d,
                    load: phase.load,
                    expected: match phase.load {
                        Load::Open { rate, .. } => Some(rate * d),
                        _ => None,
                    },
                    requests: t.requests + t.unsent,
                    ok: t.ok,
                    errors: t.errors,
                    unsent: t.unsent,
                    achieved_rate: t.responses as f64 / d,
                    p50_us: p(&t.latency, 0.5),
                    p99_us: p(&t.latency, 0.99),
                };
                start += d;
                report
            })
            .collect();

        BenchReport {
            target: input.target,
            connections: input.connections,
            schedule: input.phases.to_vec(),
            warmup_secs: input.warmup_secs,
            duration_secs,
            elapsed_secs: input.elapsed_secs,
            requested_rate: (any_open && all_open).then(|| expected / duration_secs),
            achieved_rate: rec.responses as f64 / window,
            ok_rate: rec.ok as f64 / window,
            peak_ok_per_second: timeline.iter().map(|s| s.ok).max().unwrap_or(0),
            requests: RequestCounts {
                expected: any_open.then_some(expected),
                sent: rec.sent,
                responses: rec.responses,
                ok: rec.ok,
                errors: errors.total,
                unsent: rec.unsent,
            },
            latency: LatencyReport {
                corrected: Percentiles::of(&rec.corrected),
                uncorrected: Percentiles::of(&rec.uncorrected),
                generator_lateness: Percentiles::of(&rec.lateness),
            },
            errors,
            bytes_sent: rec.bytes_sent,
            bytes_received: rec.bytes_received,
            timeline,
            phases,
        }
    }

    /// A human-readable summary (what `soapstone bench` prints).
    pub fn summary(&self) -> String {
        let mut out = String::new();
        let w = &mut out;
        let _ = writeln!(w, "target       {}", self.target);
        let _ = writeln!(
            w,
            "run          {:.1} s scheduled (last answer at {:.1} s, {:.1} s warm-up), {} connection(s)",
            self.duration_secs, self.elapsed_secs, self.warmup_secs, self.connections
        );
        let requested = match self.requested_rate {
            Some(r) => format!("requested {r:.1}/s, "),
            None => "closed loop, ".to_string(),
        };
        let _ = writeln!(
            w,
            "rate         {requested}achieved {:.1}/s, ok {:.1}/s, best second {} ok",
            self.achieved_rate, self.ok_rate, self.peak_ok_per_second
        );
        let r = &self.requests;
        let _ = writeln!(
            w,
            "requests     {} sent, {} answered, {} ok, {} errors, {} unsent",
            r.sent, r.responses, r.ok, r.errors, r.unsent
        );
        let (c, u) = (&self.latency.corrected, &self.latency.uncorrected);
        let _ = writeln!(w, "latency (ms) {:>12} {:>12}", "corrected", "uncorrected");
        for (name, a, b) in [
            ("p50", c.p50_us, u.p50_us),
            ("p90", c.p90_us, u.p90_us),
            ("p99", c.p99_us, u.p99_us),
            ("p99.9", c.p999_us, u.p999_us),
            ("max", c.max_us, u.max_us),
        ] {
            let _ = writeln!(w, "  {name:<10} {:>12.3} {:>12.3}", ms(a), ms(b));
        }
        let _ = writeln!(
            w,
            "  {:<10} {:>12.3} {:>12.3}",
            "mean",
            c.mean_us / 1000.0,
            u.mean_us / 1000.0
        );
        if self.latency.generator_lateness.p99_us >= 1000 {
            let _ = writeln!(
                w,
                "note         the generator itself ran late (p99 {:.3} ms): it may be short of CPU",
                ms(self.latency.generator_lateness.p99_us)
            );
        }
        let e = &self.errors;
        let mut kinds = vec![
            format!("timeout {}", e.timeout),
            format!("connect {}", e.connect),
            format!("io {}", e.io),
            format!("soap fault {}", e.soap_fault),
        ];
        if e.invalid > 0 {
            kinds.push(format!("invalid {}", e.invalid));
        }
        kinds.extend(e.http_status.iter().map(|(k, v)| format!("http {k} {v}")));
        kinds.extend(e.grpc_status.iter().map(|(k, v)| format!("grpc {k} {v}")));
        let _ = writeln!(w, "errors       {}", kinds.join(", "));
        let _ = writeln!(
            w,
            "bytes        sent {}, received {}",
            human_bytes(self.bytes_sent),
            human_bytes(self.bytes_received)
        );
        if self.phases.len() > 1 {
            let _ = writeln!(
                w,
                "phases {:>9} {:<22} {:>9} {:>9} {:>7} {:>7}",
                "start s", "load", "ok/s", "p99 ms", "errors", "unsent"
            );
            for ph in &self.phases {
                let _ = writeln!(
                    w,
                    "       {:>9.1} {:<22} {:>9.1} {:>9.3} {:>7} {:>7}",
                    ph.start_secs,
                    describe(&ph.load),
                    ph.ok as f64 / ph.duration_secs,
                    ms(ph.p99_us.unwrap_or(0)),
                    ph.errors,
                    ph.unsent
                );
            }
        }
        if self.timeline.len() <= 60 {
            let _ = writeln!(
                w,
                "second {:>9} {:>9} {:>9} {:>9}",
                "requests", "ok", "errors", "p99 ms"
            );
            for s in &self.timeline {
                let _ = writeln!(
                    w,
                    "{:>6} {:>9} {:>9} {:>9} {:>9.3}",
                    s.second,
                    s.requests,
                    s.ok,
                    s.errors,
                    ms(s.p99_us.unwrap_or(0))
                );
            }
        } else {
            let _ = writeln!(
                w,
                "timeline     {} seconds (in the --json output)",
                self.timeline.len()
            );
        }
        out
    }
}

fn ms(us: u64) -> f64 {
    us as f64 / 1000.0
}

fn describe(load: &Load) -> String {
    match load {
        Load::Idle => "idle".into(),
        Load::Open { rate, arrivals } => format!("rate {rate} {arrivals:?}").to_lowercase(),
        Load::Closed { workers } => format!("closed {workers}"),
        Load::Bursts { workers, .. } => format!("bursts {workers}"),
    }
}

fn human_bytes(n: u64) -> String {
    if n >= 1 << 20 {
        format!("{:.2} MiB", n as f64 / f64::from(1u32 << 20))
    } else if n >= 1 << 10 {
        format!("{:.1} KiB", n as f64 / 1024.0)
    } else {
        format!("{n} B")
    }
}
