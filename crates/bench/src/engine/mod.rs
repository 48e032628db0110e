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
//! due time is the send time. Bursts are closed loop inside the burst windows. A
//! closed-loop warm-up request still unanswered when measurement starts is measured (in
//! the first measured phase): it held its worker during the window.
//!
//! Requests due after the schedule ends are not sent; requests due before it are sent even
//! if late, until the drain deadline (end + timeout), after which they count as `unsent`.
//!
//! The tasks run on `threads` dedicated OS threads, each with its own single-threaded
//! tokio runtime (wrk's design): a task, its connection's driver and tonic's workers share
//! one thread, so no answer pays a cross-thread wake-up, and the generator does not
//! compete with the caller's runtime (which may be serving the very server under test).
//! Connections are opened before the clock starts.
//!
//! This module must never print, and never measure latency from the actual send time alone
//! in open loop.

mod task;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

use hdrhistogram::Histogram;
use tokio::sync::oneshot;
use tokio::task::JoinSet;
use tokio::time::Instant;

use crate::conn::{Conn, IoCounters, Outcome};
use crate::recorder::Recorder;
use crate::report::{BenchReport, ReportInput};
use crate::schedule::{Schedule, ScheduleError};
use crate::target::{Target, TargetError};
use task::{run_task, Plan};

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
    /// Generator threads; connections are spread over them round-robin. Default: `1`.
    pub threads: usize,
    /// Charge the generator's own lateness (a late timer while the connection was free)
    /// to the corrected latency, as wrk2 does. Default: `false` (reported apart as
    /// `generator_lateness`; tokio's 1 ms timer would otherwise add up to 1 ms to every
    /// open-loop request).
    pub charge_generator_lateness: bool,
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
            threads: 1,
            charge_generator_lateness: false,
            progress: None,
        }
    }

    /// Sets [`threads`](Self::threads).
    pub fn threads(mut self, n: usize) -> Self {
        self.threads = n;
        self
    }

    /// Sets [`charge_generator_lateness`](Self::charge_generator_lateness).
    pub fn charge_generator_lateness(mut self, charge: bool) -> Self {
        self.charge_generator_lateness = charge;
        self
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

    pub(crate) fn count(&self, outcome: &Outcome) {
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

/// Runs the benchmark described by `config`; the generator runs on its own threads and
/// this future only waits for it (dropping it does not stop a run that has started).
pub async fn run(config: BenchConfig) -> Result<BenchRun, BenchError> {
    config.target.check()?;
    if config.connections == 0 {
        return Err(BenchError::Config("connections must be at least 1".into()));
    }
    if config.threads == 0 {
        return Err(BenchError::Config("threads must be at least 1".into()));
    }
    if config.timeout.is_zero() {
        return Err(BenchError::Config("timeout must be positive".into()));
    }
    let authority = config.target.authority();
    let addr = resolve(&authority).await?;
    let tasks = config.connections.max(config.schedule.max_workers());
    let plan = Arc::new(Plan::new(&config, tasks));
    let threads = config.threads.min(tasks);

    let mut ready = Vec::with_capacity(threads);
    let mut go = Vec::with_capacity(threads);
    let mut done = Vec::with_capacity(threads);
    for t in 0..threads {
        let (ready_tx, ready_rx) = oneshot::channel();
        let (go_tx, go_rx) = mpsc::channel();
        let (done_tx, done_rx) = oneshot::channel();
        let thread = GeneratorThread {
            plan: plan.clone(),
            target: config.target.clone(),
            addr,
            indices: (t..tasks).step_by(threads).collect(),
            timeout: config.timeout,
        };
        std::thread::Builder::new()
            .name(format!("soapstone-bench-{t}"))
            .spawn(move || thread.run(ready_tx, go_rx, done_tx))
            .map_err(|e| BenchError::Config(format!("cannot start a generator thread: {e}")))?;
        ready.push(ready_rx);
        go.push(go_tx);
        done.push(done_rx);
    }
    for r in ready {
        r.await.map_err(|_| thread_failed())?;
    }
    let start = Instant::now();
    for g in &go {
        let _ = g.send(start);
    }
    let mut merged = Recorder::new(plan.measured_phases);
    let mut last_done = Duration::ZERO;
    for d in done {
        for (recorder, finished) in d.await.map_err(|_| thread_failed())? {
            merged.merge(&recorder);
            last_done = last_done.max(finished);
        }
    }
    // A schedule that ends idle still lasts its full length.
    let end = plan.end();
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

fn thread_failed() -> BenchError {
    BenchError::Config("a generator thread failed".into())
}

type TaskResult = (Recorder, Duration);

/// One generator thread: a current-thread runtime running some of the tasks.
struct GeneratorThread {
    plan: Arc<Plan>,
    target: Target,
    addr: SocketAddr,
    indices: Vec<usize>,
    timeout: Duration,
}

impl GeneratorThread {
    /// Connects, reports ready, waits for the common start, runs its tasks and sends their
    /// recorders. Any failure drops a channel, which the caller reports.
    fn run(
        self,
        ready: oneshot::Sender<()>,
        go: mpsc::Receiver<Instant>,
        done: oneshot::Sender<Vec<TaskResult>>,
    ) {
        let Ok(rt) = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        else {
            return;
        };
        // Connect every task before the clock starts (a connect that fails here is
        // retried, and counted, at the task's first request).
        let conns = rt.block_on(async {
            let mut connecting = JoinSet::new();
            for &idx in &self.indices {
                let counters = Arc::new(IoCounters::default());
                let mut conn = Conn::new(&self.target, self.addr, counters.clone(), idx);
                let deadline = Instant::now() + self.timeout;
                connecting.spawn(async move {
                    let _ = conn.connect(deadline).await;
                    (idx, conn, counters)
                });
            }
            let mut conns = Vec::new();
            while let Some(joined) = connecting.join_next().await {
                conns.push(joined.ok()?);
            }
            Some(conns)
        });
        let Some(conns) = conns else { return };
        if ready.send(()).is_err() {
            return;
        }
        let Ok(start) = go.recv() else { return };
        let results = rt.block_on(async {
            let mut running = JoinSet::new();
            for (idx, conn, counters) in conns {
                running.spawn(run_task(self.plan.clone(), idx, conn, counters, start));
            }
            let mut results = Vec::new();
            while let Some(joined) = running.join_next().await {
                results.push(joined.ok()?);
            }
            Some(results)
        });
        if let Some(results) = results {
            let _ = done.send(results);
        }
    }
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
