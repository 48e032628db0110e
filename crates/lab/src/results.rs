//! The measured results: what `results.json` holds and what the report is drawn from.
//!
//! A [`Run`] is one measurement of one operation on one system with one set of settings. The
//! report renders only what is in these structs, so a number in the report can always be traced
//! back to a run in `results.json`. This module must never invent or patch a value: a field that
//! was not measured stays `None` (or empty), it is not filled with a default.

use serde::{Deserialize, Serialize};

/// Where the client and the server ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PlacementKind {
    /// Client and server pinned to the same CPU (no cross-CPU wakeups).
    SameCpu,
    /// Client and server pinned to different CPUs (a cross-CPU wakeup each way).
    CrossCpu,
    /// In-process measurement, the lab process pinned to one CPU.
    InProcess,
    /// Server and client in two network namespaces joined by a shaped link (the emulated LAN
    /// of [`crate::netem`]: netem, the delay line, or a rate limit), each pinned to its own CPU.
    Lan,
}

impl PlacementKind {
    /// The short label used in tables (`same CPU`, `cross-CPU`).
    pub fn label(self) -> &'static str {
        match self {
            PlacementKind::SameCpu => "same CPU",
            PlacementKind::CrossCpu => "cross-CPU",
            PlacementKind::InProcess => "in-process",
            PlacementKind::Lan => "emulated LAN",
        }
    }
}

/// CPU placement of a run: which CPU each side was pinned to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Placement {
    /// Same CPU, cross-CPU, or in-process.
    pub kind: PlacementKind,
    /// The CPU list the server was pinned to (`taskset -c` syntax), if any.
    pub server_cpu: Option<String>,
    /// The CPU list the measuring client was pinned to, if any.
    pub client_cpu: Option<String>,
    /// The CPU list the background load generators were pinned to, if any ran.
    pub load_cpu: Option<String>,
}

/// The settings a run was measured with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// CPU placement.
    pub placement: Placement,
    /// Measured window in seconds (warm-up excluded).
    pub duration_s: f64,
    /// Warm-up in seconds before the measured window (its calls are not counted).
    pub warmup_s: f64,
    /// Concurrent connections (1 for the sequential-client experiments).
    pub connections: u32,
    /// Requested rate in requests per second for open-loop runs; `None` for closed loop.
    pub rate: Option<f64>,
    /// The rate schedule for load tests: (seconds from start, requests per second) steps.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub schedule: Vec<(f64, f64)>,
    /// Background load running during the measurement (`none`, `stress`, `peak`, `traffic`).
    pub background: Option<String>,
    /// Request body size in bytes, when known.
    pub request_bytes: Option<u64>,
    /// The command line that produced the numbers (to rerun one point by hand).
    pub command: Option<String>,
}

/// One second of a run: requests due or sent, successes and errors.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Second {
    /// Seconds since the start of the measurement (start of the interval).
    pub t: f64,
    /// Requests due (open loop) or sent (closed loop) in this second.
    pub requests: u64,
    /// Successful answers that arrived in this second (HTTP 200 for HTTP systems).
    pub ok: u64,
    /// Errors of any kind in this second, timeouts included.
    pub errors: u64,
}

/// One measurement of one operation on one system.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Run {
    /// The system measured: `soapstone`, `tcp-connect`, `tcp-pingpong`, `http-noop`, `grpc`, or a
    /// parser name for the parse experiment.
    pub system: String,
    /// The experiment id (`dp`, `thesis`, `echo`, `contacts`, `wsb`, `parse`).
    pub experiment: String,
    /// The operation (`doNothing`, `getString/200`, `echoFloat`, `test1/card`, ...).
    pub operation: String,
    /// Median latency in microseconds.
    pub p50_us: f64,
    /// 99th-percentile latency in microseconds (`null` in JSON when not measured).
    #[serde(deserialize_with = "nan_if_null")]
    pub p99_us: f64,
    /// Mean latency in microseconds.
    pub mean_us: f64,
    /// Standard deviation of the latency in microseconds, if measured.
    pub stdev_us: Option<f64>,
    /// Successful operations per second over the measured window.
    pub throughput_rps: f64,
    /// Successful operations in the measured window.
    pub ok: u64,
    /// Failed operations (errors other than timeouts) in the measured window.
    pub errors: u64,
    /// Timed-out operations in the measured window.
    pub timeouts: u64,
    /// Requests that were due but never sent: the load generator could not keep up.
    #[serde(default)]
    pub unsent: u64,
    /// Bytes the client sent (requests), if measured.
    pub bytes_sent: Option<u64>,
    /// Bytes the client received (responses), if measured.
    pub bytes_received: Option<u64>,
    /// Latency distribution as (percentile, microseconds) points, for the plots.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub percentiles: Vec<(f64, f64)>,
    /// Per-second timeline (load tests).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub timeline: Vec<Second>,
    /// The most successful answers in one second, if measured (García et al.'s "http-200
    /// (Highest Rate)").
    #[serde(default)]
    pub peak_ok_per_second: Option<u64>,
    /// The settings used.
    pub settings: Settings,
    /// The server's response cache (`on` or `off`) in the experiments that switch it (García's
    /// Figs 15-16, `wsb_cache`); absent elsewhere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<String>,
    /// Each phase of a scheduled load test, as the bench counted it by the requests' scheduled
    /// phase (García's test2 steps); empty for a point without a schedule.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub phases: Vec<PhaseStat>,
}

/// One phase of a scheduled load test: what was offered and what became of the requests due
/// in it (however late their answers came).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PhaseStat {
    /// Seconds from the start of the measurement.
    pub start_s: f64,
    /// Length in seconds.
    pub duration_s: f64,
    /// The offered rate in requests per second (`None`: not an open-loop phase).
    pub rate: Option<f64>,
    /// Requests due in the phase (sent or not).
    pub requests: u64,
    /// Of those, answered with success.
    pub ok: u64,
    /// Of those, failed (timeouts included).
    pub errors: u64,
    /// Of those, never sent.
    pub unsent: u64,
    /// Median latency from the scheduled send time of the phase's answered requests, if any.
    pub p50_us: Option<f64>,
    /// 99th percentile of the same, if any.
    pub p99_us: Option<f64>,
}

/// Reads a number, taking `null` (how serde_json writes NaN) as NaN: "not measured".
fn nan_if_null<'de, D: serde::Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
}

/// The whole `results.json` document.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Results {
    /// soapstone version that ran the lab.
    pub version: String,
    /// Whether `--quick` was used.
    pub quick: bool,
    /// Unix time (seconds) when the lab started.
    pub started_unix: u64,
    /// Wall-clock seconds the whole lab took.
    pub elapsed_s: f64,
    /// Facts about the machine (CPU count, model, kernel).
    pub host: Host,
    /// Experiments that were run (ids).
    pub experiments: Vec<String>,
    /// Problems met on the way (an experiment that could not run, a failed point), each a
    /// sentence; they are shown in the report too.
    #[serde(default)]
    pub problems: Vec<String>,
    /// Every measurement.
    pub runs: Vec<Run>,
    /// Every system the runs name (`system`), with its version and how it was set up, and
    /// every third-party peer the lab knows, measured or not (a missing one with the reason).
    #[serde(default)]
    pub systems: Vec<crate::peers::SystemInfo>,
    /// Seconds `lab/peers/setup.sh` took when it wrote the manifest used, if one was.
    #[serde(default)]
    pub peer_setup_s: Option<f64>,
    /// The packet captures of the causes section, one per operation and mode.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub traces: Vec<TraceRecord>,
    /// The commit of the tree the lab ran from (`git rev-parse --short HEAD`, `-dirty` with
    /// uncommitted changes), if it ran in a git checkout.
    #[serde(default)]
    pub commit: Option<String>,
    /// What the separate-host tables ran on: the emulated LAN as created
    /// ([`crate::netem::Lan::describe`]), or why it was not (`None`: no experiment used it).
    #[serde(default)]
    pub lan: Option<String>,
    /// The "beyond one machine" experiment's failover and restart timelines, or why it did
    /// not run (its throughput and hop points are ordinary [`Run`]s of experiment `cluster`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster: Option<ClusterRecord>,
    /// The Round 2 interop checks: each (system, echo) answer, right or wrong with the reason.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub interop: Vec<InteropCheck>,
}

/// One SOAPBuilders Round 2 echo sent to one system, its answer checked against the request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InteropCheck {
    /// The system asked (`soapstone` or a peer id).
    pub system: String,
    /// The echo (`echoString`, ...).
    pub operation: String,
    /// Whether the answer echoed the request's value.
    pub ok: bool,
    /// Why the answer is wrong (a fault, a changed value, an HTTP error), when it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// An equal value in another lexical form (`342.23` as `342.230011`), when it came back so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Sent in the literal form (a JAX-WS peer: the request without `xsi:type` and SOAP-ENC
    /// array attributes), not the recorded rpc/encoded one.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub literal: bool,
}

/// What the cluster experiment saw beyond its bench runs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ClusterRecord {
    /// Why the experiment did not run (haproxy or PostgreSQL missing, the cluster did not
    /// start); `None` when it ran.
    pub not_run: Option<String>,
    /// The cluster as started: replicas, balancer and database versions, network.
    pub topology: String,
    /// A replica SIGKILLed under keyed load, if that part ran.
    pub failover: Option<Failover>,
    /// PostgreSQL restarted under load, if that part ran.
    pub pg_restart: Option<PgRestart>,
}

/// A replica SIGKILLed under keyed load: the timeline (milliseconds after the kill) and the
/// ledger read back from PostgreSQL.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Failover {
    /// Replicas behind HAProxy before the kill.
    pub replicas: u32,
    /// Concurrent keyed clients (each a `Connection: close` call at a time).
    pub clients: u32,
    /// Seconds of load before the kill.
    pub load_before_kill_s: f64,
    /// The first call that failed after the kill (and was retried with its key).
    pub first_error_ms: Option<f64>,
    /// The last call that failed after the kill.
    pub last_error_ms: Option<f64>,
    /// When HAProxy's statistics first showed the killed replica `DOWN`.
    pub marked_down_ms: Option<f64>,
    /// When the last retried operation was answered.
    pub recovered_ms: Option<f64>,
    /// Operations acknowledged (a transaction number) to the clients.
    pub acked: u64,
    /// Operations whose first attempt failed and that were retried with the same key.
    pub retried: u64,
    /// Operations never answered after every retry (or refused with a Client fault).
    pub unanswered: u64,
    /// Acknowledged operations found in the ledger once, with their kind, account and amount.
    pub ledger_found: u64,
    /// Acknowledged operations missing from the ledger or different there.
    pub ledger_missing: u64,
    /// Ledger entries no client had acknowledged (an operation applied twice).
    pub ledger_extra: u64,
}

/// PostgreSQL restarted (`pg_ctl restart -m fast`) under a closed-loop write load; the load's
/// per-second answers and errors are the [`Run`] `cluster`/`pg-restart`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PgRestart {
    /// Seconds into the measured window when the restart began.
    pub restart_at_s: f64,
    /// How long `pg_ctl restart` took, seconds.
    pub restart_took_s: f64,
    /// Probe calls (one `credit` every 50 ms, beside the load) that failed, by answer:
    /// (`Server fault 500`, count), (`i/o`, count), ...
    pub probe_failures: Vec<(String, u64)>,
    /// The slowest failed probe call, ms (a fast fault, not a hang).
    pub probe_slowest_failure_ms: Option<f64>,
    /// Seconds after the restart began when the first probe call failed and when one
    /// succeeded again after the last failure.
    pub first_failure_s: Option<f64>,
    pub recovered_s: Option<f64>,
}

/// The packets of one operation under one mode (the causes section): how the capture went,
/// where it is kept, and the timeline of the call whose duration was the median.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TraceRecord {
    /// The experiment id (`causes`).
    pub experiment: String,
    /// The operation (`echoFloat`, `creditControl`, `doNothing`).
    pub operation: String,
    /// The mode (`cured`, `server`, `read-to-eof`, ..., `corba`).
    pub mode: String,
    /// The command that reproduces the capture.
    pub command: String,
    /// The pcap file (relative to the output directory), when the capture ran.
    pub pcap: Option<String>,
    /// Why there are no packets, when the capture could not run.
    pub capture_error: Option<String>,
    /// Calls captured.
    pub calls: usize,
    /// The median number of packets per call.
    pub packets_per_call: Option<f64>,
    /// Each stall name and in how many of the calls it was seen.
    pub stalls: Vec<(String, usize)>,
    /// The call whose duration was the median, with its packets.
    pub median_call: Option<crate::timeline::CallTimeline>,
    /// Captured on the emulated LAN (server and client in two network namespaces, tcpdump on
    /// the client's veth end) rather than on loopback. Default: `false` (older results).
    #[serde(default)]
    pub lan: bool,
    /// On the emulated LAN, its rate in Mbit/s. Default: `None` (loopback; older results'
    /// LAN traces were at 100).
    #[serde(default)]
    pub rate_mbit: Option<u32>,
    /// On loopback with client and server on one CPU (the other loopback traces are
    /// cross-CPU where the machine has two). Default: `false`.
    #[serde(default)]
    pub same_cpu: bool,
}

/// The machine the lab ran on.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Host {
    /// Logical CPUs available.
    pub cpus: usize,
    /// CPU model name from `/proc/cpuinfo`, if readable.
    pub cpu_model: Option<String>,
    /// Kernel release from `/proc/sys/kernel/osrelease`, if readable.
    pub kernel: Option<String>,
    /// 1-minute load average when the lab started (other work on the machine skews every
    /// figure; a value near the CPU count means the numbers are not clean).
    #[serde(default)]
    pub load_at_start: Option<f64>,
}

impl Host {
    /// Reads the host facts; missing files leave fields empty.
    pub fn detect() -> Host {
        let cpus = std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1);
        let cpu_model = std::fs::read_to_string("/proc/cpuinfo").ok().and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_owned())
        });
        let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease")
            .ok()
            .map(|s| s.trim().to_owned());
        let load_at_start = std::fs::read_to_string("/proc/loadavg")
            .ok()
            .and_then(|s| s.split_whitespace().next()?.parse().ok());
        Host {
            cpus,
            cpu_model,
            kernel,
            load_at_start,
        }
    }
}

impl Run {
    fn is(&self, experiment: &str, system: &str, operation: &str) -> bool {
        self.experiment == experiment && self.system == system && self.operation == operation
    }
}

impl Results {
    /// The runs matching `experiment`, `system` and `operation` (any placement).
    pub fn find(&self, experiment: &str, system: &str, operation: &str) -> Vec<&Run> {
        self.runs
            .iter()
            .filter(|r| r.is(experiment, system, operation))
            .collect()
    }

    /// The first run matching experiment, system, operation and placement, if measured.
    pub fn get(
        &self,
        experiment: &str,
        system: &str,
        operation: &str,
        placement: PlacementKind,
    ) -> Option<&Run> {
        self.runs
            .iter()
            .find(|r| r.is(experiment, system, operation) && r.settings.placement.kind == placement)
    }

    /// The loopback trace of `operation` under `mode` in `experiment`, if captured.
    pub fn trace(&self, experiment: &str, operation: &str, mode: &str) -> Option<&TraceRecord> {
        self.trace_on(experiment, operation, mode, false)
    }

    /// The trace of `operation` under `mode` in `experiment` on the emulated LAN (`lan`) or
    /// on loopback, if captured.
    pub fn trace_on(
        &self,
        experiment: &str,
        operation: &str,
        mode: &str,
        lan: bool,
    ) -> Option<&TraceRecord> {
        self.traces.iter().find(|t| {
            t.experiment == experiment && t.operation == operation && t.mode == mode && t.lan == lan
        })
    }

    /// Like [`Results::get`], also matching the background load.
    pub fn get_with_background(
        &self,
        experiment: &str,
        system: &str,
        operation: &str,
        placement: PlacementKind,
        background: &str,
    ) -> Option<&Run> {
        self.runs.iter().find(|r| {
            r.is(experiment, system, operation)
                && r.settings.placement.kind == placement
                && r.settings.background.as_deref() == Some(background)
        })
    }
}
