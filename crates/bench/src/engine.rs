//! The load generator: walks a [`Schedule`] with one task per connection.
//!
//! Open loop (wrk2): each task draws its due times from the schedule, sleeps until the
//! next one, sends, and records the latency from the *due* time; if the connection is
//! still busy with an earlier answer, the request waits and that wait is charged to the
//! server (coordinated omission corrected). The uncorrected latency (from the actual send)
//! is recorded beside it. One correction the other way: when the connection was free, the
//! generator's own wake-up lateness (tokio's timer has 1 ms resolution) is not charged to
//! the server; it is reported as `generator_lateness` instead.
//!
//! Closed loop: a task sends its next request as soon as the previous one is answered; the
//! due time is the send time. Bursts are closed loop inside the burst windows.
//!
//! Requests due after the schedule ends are not sent; requests due before it are sent even
//! if late, until the drain deadline (end + timeout), after which they count as `unsent`.
//! This module must never print, and never measure latency from the actual send time alone
//! in open loop.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use hdrhistogram::Histogram;
use tokio::task::JoinSet;
use tokio::time::Instant;

use crate::conn::{Conn, ErrorKind, IoCounters, Outcome};
use crate::recorder::{Recorder, Sample};
use crate::report::{BenchReport, ReportInput};
use crate::schedule::arrivals::mix;
use crate::schedule::{burst_windows, open_arrivals, Load, Phase, Schedule, ScheduleError};
use crate::target::{Target, TargetError};

/// What to run.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct BenchConfig {
    /// What to send requests to.
    pub target: Target,
    /// The load to offer.
    pub schedule: Schedule,
    /// Connections (one task each) sharing the open-loop rate. Closed and burst phases use
    /// their own worker count; the run opens `max(connections, workers)` connections.
    /// Default: `1`.
    pub connections: usize,
    /// Time spent offering the first phase's load before measuring. Default: `0 s`.
    pub warmup: Duration,
    /// Per-request deadline, connect included. Default: `20 s` (García et al.'s HTTP
    /// connection timeout).
    pub timeout: Duration,
    /// Seed of the Poisson arrival and burst streams. Default: `0x50A950A9`.
    pub seed: u64,
    /// Pause of a closed-loop worker after a failed connect (so a dead server is not
    /// hammered in a tight loop). Default: `10 ms`.
    pub reconnect_backoff: Duration,
    /// Live counters for a progress display. Default: none.
    pub progress: Option<Arc<Progress>>,
}

impl BenchConfig {
    /// A run of `schedule` against `target` with the defaults above.
    pub fn new(target: Target, schedule: Schedule) -> Self {
        BenchConfig {
            target,
            schedule,
            connections: 1,
            warmup: Duration::ZERO,
            timeout: Duration::from_secs(20),
            seed: 0x50A9_50A9,
            reconnect_backoff: Duration::from_millis(10),
            progress: None,
        }
    }

    /// Sets [`connections`](Self::connections).
    pub fn connections(mut self, n: usize) -> Self {
        self.connections = n;
        self
    }

    /// Sets [`warmup`](Self::warmup).
    pub fn warmup(mut self, d: Duration) -> Self {
        self.warmup = d;
        self
    }

    /// Sets [`timeout`](Self::timeout).
    pub fn timeout(mut self, d: Duration) -> Self {
        self.timeout = d;
        self
    }

    /// Sets [`seed`](Self::seed).
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Sets [`reconnect_backoff`](Self::reconnect_backoff).
    pub fn reconnect_backoff(mut self, d: Duration) -> Self {
        self.reconnect_backoff = d;
        self
    }

    /// Sets [`progress`](Self::progress).
    pub fn progress(mut self, progress: Arc<Progress>) -> Self {
        self.progress = Some(progress);
        self
    }
}

/// Live counters of a running benchmark (for a progress bar; warm-up included).
#[derive(Debug, Default)]
pub struct Progress {
    sent: AtomicU64,
    ok: AtomicU64,
    errors: AtomicU64,
}

impl Progress {
    /// Requests finished so far.
    pub fn sent(&self) -> u64 {
        self.sent.load(Ordering::Relaxed)
    }

    /// Successful requests so far.
    pub fn ok(&self) -> u64 {
        self.ok.load(Ordering::Relaxed)
    }

    /// Failed requests so far.
    pub fn errors(&self) -> u64 {
        self.errors.load(Ordering::Relaxed)
    }

    fn count(&self, outcome: &Outcome) {
        self.sent.fetch_add(1, Ordering::Relaxed);
        match outcome {
            Ok(()) => self.ok.fetch_add(1, Ordering::Relaxed),
            Err(_) => self.errors.fetch_add(1, Ordering::Relaxed),
        };
    }
}

/// Why a run could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BenchError {
    /// The target is unusable.
    #[error(transparent)]
    Target(#[from] TargetError),
    /// The schedule is unusable.
    #[error(transparent)]
    Schedule(#[from] ScheduleError),
    /// The target's host name did not resolve.
    #[error("cannot resolve `{host}`: {source}")]
    Resolve {
        /// The `host:port` that failed.
        host: String,
        /// The resolver's error.
        source: std::io::Error,
    },
    /// A configuration value out of range.
    #[error("{0}")]
    Config(String),
}

/// A finished run: the report and the merged histograms (microseconds).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct BenchRun {
    /// The numbers.
    pub report: BenchReport,
    /// Corrected latency of every answer (from the due time).
    pub corrected: Histogram<u64>,
    /// Uncorrected latency of every answer (from the send time).
    pub uncorrected: Histogram<u64>,
}

/// A phase placed on the run's time line (offsets from the run's start).
struct Planned {
    start: Duration,
    end: Duration,
    load: Load,
    seed: u64,
    windows: Vec<(Duration, Duration)>,
    /// Index among the measured phases, `None` for the warm-up.
    measured: Option<usize>,
}

struct Plan {
    phases: Vec<Planned>,
    measured_phases: usize,
    measure_from: Duration,
    drain_deadline: Duration,
    tasks: usize,
    timeout: Duration,
    backoff: Duration,
    progress: Option<Arc<Progress>>,
}

impl Plan {
    fn new(config: &BenchConfig, tasks: usize) -> Plan {
        let phases = config.schedule.with_warmup(config.warmup);
        let warm = usize::from(!config.warmup.is_zero());
        let mut start = Duration::ZERO;
        let planned = phases
            .iter()
            .enumerate()
            .map(|(i, phase): (usize, &Phase)| {
                let end = start + phase.duration;
                let seed = mix(config.seed, i as u64);
                let windows = match phase.load {
                    Load::Bursts {
                        burst, mean_gap, ..
                    } => burst_windows(start, end, burst, mean_gap, seed),
                    _ => Vec::new(),
                };
                let p = Planned {
                    start,
                    end,
                    load: phase.load,
                    seed,
                    windows,
                    measured: i.checked_sub(warm),
                };
                start = end;
                p
            })
            .collect();
        Plan {
            phases: planned,
            measured_phases: config.schedule.phases().len(),
            measure_from: config.warmup,
            drain_deadline: start + config.timeout,
            tasks,
            timeout: config.timeout,
            backoff: config.reconnect_backoff,
            progress: config.progress.clone(),
        }
    }
}

/// Runs the benchmark described by `config` on the current tokio runtime.
pub async fn run(config: BenchConfig) -> Result<BenchRun, BenchError> {
    config.target.check()?;
    if config.connections == 0 {
        return Err(BenchError::Config("connections must be at least 1".into()));
    }
    if config.timeout.is_zero() {
        return Err(BenchError::Config("timeout must be positive".into()));
    }
    let authority = config.target.authority();
    let addr = resolve(&authority).await?;
    let tasks = config.connections.max(config.schedule.max_workers());
    let plan = Arc::new(Plan::new(&config, tasks));

    // Connect every task before the clock starts (a connect that fails here is retried,
    // and counted, at the task's first request).
    let mut connecting = JoinSet::new();
    for idx in 0..tasks {
        let counters = Arc::new(IoCounters::default());
        let mut conn = Conn::new(&config.target, addr, counters.clone());
        let deadline = Instant::now() + config.timeout;
        connecting.spawn(async move {
            let _ = conn.connect(deadline).await;
            (idx, conn, counters)
        });
    }
    let mut conns: Vec<_> = connecting.join_all().await;
    conns.sort_by_key(|(idx, _, _)| *idx);

    let start = Instant::now();
    let mut running = JoinSet::new();
    for (idx, conn, counters) in conns {
        running.spawn(run_task(plan.clone(), idx, conn, counters, start));
    }
    let mut merged = Recorder::new(plan.measured_phases);
    let mut last_done = Duration::ZERO;
    while let Some(joined) = running.join_next().await {
        let (recorder, done) =
            joined.map_err(|e| BenchError::Config(format!("generator task failed: {e}")))?;
        merged.merge(&recorder);
        last_done = last_done.max(done);
    }
    // A schedule that ends idle still lasts its full length.
    let end = plan.phases.last().map_or(Duration::ZERO, |p| p.end);
    tokio::time::sleep_until(start + end).await;
    let elapsed = last_done.max(end).saturating_sub(plan.measure_from);

    let report = BenchReport::build(ReportInput {
        target: config.target.to_string(),
        connections: tasks,
        phases: config.schedule.phases(),
        warmup_secs: config.warmup.as_secs_f64(),
        elapsed_secs: elapsed.as_secs_f64(),
        recorder: &merged,
    });
    Ok(BenchRun {
        report,
        corrected: merged.corrected,
        uncorrected: merged.uncorrected,
    })
}

async fn resolve(authority: &str) -> Result<SocketAddr, BenchError> {
    let mut addrs =
        tokio::net::lookup_host(authority)
            .await
            .map_err(|source| BenchError::Resolve {
                host: authority.to_string(),
                source,
            })?;
    addrs.next().ok_or_else(|| BenchError::Resolve {
        host: authority.to_string(),
        source: std::io::Error::new(std::io::ErrorKind::NotFound, "no address"),
    })
}

/// One generator task: its connection, its arrivals, its recorder. Returns the recorder
/// and the offset of its last answer.
async fn run_task(
    plan: Arc<Plan>,
    idx: usize,
    conn: Conn,
    counters: Arc<IoCounters>,
    start: Instant,
) -> (Recorder, Duration) {
    let mut task = Task {
        recorder: Recorder::new(plan.measured_phases),
        plan: plan.clone(),
        conn,
        counters,
        start,
        free_at: Duration::ZERO,
    };
    for phase in &plan.phases {
        match phase.load {
            Load::Idle => {}
            Load::Open { rate, arrivals } => {
                let dues = open_arrivals(
                    phase.start,
                    phase.end,
                    rate,
                    arrivals,
                    idx,
                    plan.tasks,
                    phase.seed,
                );
                for due in dues {
                    task.open_request(phase.measured, due).await;
                }
            }
            Load::Closed { workers } if idx < workers => {
                task.closed_until(phase.measured, phase.start, phase.end)
                    .await;
            }
            Load::Bursts { workers, .. } if idx < workers => {
                for &(from, to) in &phase.windows {
                    task.closed_until(phase.measured, from, to).await;
                }
            }
            Load::Closed { .. } | Load::Bursts { .. } => {}
        }
    }
    let done = task.free_at;
    (task.recorder, done)
}

struct Task {
    recorder: Recorder,
    plan: Arc<Plan>,
    conn: Conn,
    counters: Arc<IoCounters>,
    start: Instant,
    /// Offset at which the connection last became free.
    free_at: Duration,
}

impl Task {
    fn now(&self) -> Duration {
        self.start.elapsed()
    }

    async fn open_request(&mut self, phase: Option<usize>, due: Duration) {
        let due_at = self.start + due;
        if Instant::now() < due_at {
            tokio::time::sleep_until(due_at).await;
        }
        if self.now() > self.plan.drain_deadline {
            if let Some(phase) = phase {
                self.recorder
                    .record_unsent(phase, due - self.plan.measure_from);
            }
            return;
        }
        let _outcome = self.request(phase, due).await;
    }

    async fn closed_until(&mut self, phase: Option<usize>, from: Duration, to: Duration) {
        if Instant::now() < self.start + from {
            tokio::time::sleep_until(self.start + from).await;
        }
        loop {
            let now = self.now();
            if now >= to {
                return;
            }
            let outcome = self.request(phase, now).await;
            if outcome == Err(ErrorKind::Connect) && !self.plan.backoff.is_zero() {
                let pause = (self.start + self.now() + self.plan.backoff).min(self.start + to);
                tokio::time::sleep_until(pause).await;
            }
        }
    }

    /// Sends one request due at `due` (offset) and records it.
    async fn request(&mut self, phase: Option<usize>, due: Duration) -> Outcome {
        let (sent_before, received_before) = self.counters.snapshot();
        let sent_at = Instant::now();
        let sent = sent_at - self.start;
        let outcome = self.conn.call(sent_at + self.plan.timeout).await;
        let done_at = Instant::now();
        let done = done_at - self.start;
        if let Some(progress) = &self.plan.progress {
            progress.count(&outcome);
        }
        // An ideal generator sends at max(due, connection free); anything later is ours.
        let ideal = due.max(self.free_at);
        let lateness = sent.saturating_sub(ideal);
        self.free_at = done;
        if let Some(phase) = phase {
            let (sent_after, received_after) = self.counters.snapshot();
            let from = self.plan.measure_from;
            self.recorder.record(Sample {
                phase,
                due: due.saturating_sub(from),
                done: done.saturating_sub(from),
                corrected: (done - due.min(done)).saturating_sub(lateness),
                uncorrected: done_at - sent_at,
                lateness,
                outcome: &outcome,
                bytes_sent: sent_after - sent_before,
                bytes_received: received_after - received_before,
            });
        }
        outcome
    }
}
