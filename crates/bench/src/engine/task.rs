//! One generator task per connection: walks the planned phases, sleeps until each due
//! time, sends, and records into its own recorder.
//!
//! The latency arithmetic of the crate lives here (see the `engine` module doc): corrected
//! = answer time - due time - the generator's own lateness while the connection was free
//! (unless `charge_generator_lateness`), uncorrected = answer time - send time.
//! A task must never share its connection or its recorder.

use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use super::{BenchConfig, Progress};
use crate::conn::{Conn, ErrorKind, IoCounters, Outcome};
use crate::recorder::{Recorder, Sample};
use crate::schedule::arrivals::mix;
use crate::schedule::{burst_windows, open_arrivals, Load, Phase};

/// A phase placed on the run's time line (offsets from the run's start).
pub(super) struct Planned {
    start: Duration,
    pub(super) end: Duration,
    load: Load,
    seed: u64,
    windows: Vec<(Duration, Duration)>,
    /// Index among the measured phases, `None` for the warm-up.
    measured: Option<usize>,
}

/// Everything the tasks of a run share (read only).
pub(super) struct Plan {
    pub(super) phases: Vec<Planned>,
    pub(super) measured_phases: usize,
    pub(super) measure_from: Duration,
    drain_deadline: Duration,
    tasks: usize,
    timeout: Duration,
    backoff: Duration,
    charge_lateness: bool,
    progress: Option<Arc<Progress>>,
}

impl Plan {
    pub(super) fn new(config: &BenchConfig, tasks: usize) -> Plan {
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
            charge_lateness: config.charge_generator_lateness,
            progress: config.progress.clone(),
        }
    }

    /// When the schedule ends (offset from the start).
    pub(super) fn end(&self) -> Duration {
        self.phases.last().map_or(Duration::ZERO, |p| p.end)
    }
}

/// Runs task `idx` from `start`. Returns its recorder and the offset of its last answer.
pub(super) async fn run_task(
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
                    .record_unsent(phase, due.saturating_sub(self.plan.measure_from));
            }
            return;
        }
        let _outcome = self.request(phase, due, false).await;
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
            // A closed-loop warm-up request still in flight when measurement starts holds
            // its worker through the measured window: it is measured (see `request`).
            let outcome = self.request(phase, now, phase.is_none()).await;
            if outcome == Err(ErrorKind::Connect) && !self.plan.backoff.is_zero() {
                let pause = (self.start + self.now() + self.plan.backoff).min(self.start + to);
                tokio::time::sleep_until(pause).await;
            }
        }
    }

    /// Sends one request due at `due` (offset) and records it.
    ///
    /// With `carry`, a warm-up request answered after measurement started is recorded in
    /// the first measured phase: in closed loop it occupied its worker inside the measured
    /// window, and leaving it out would hide a stall (a 1 s SYN retransmit spanning a short
    /// window left the lab a report with nothing sent).
    async fn request(&mut self, phase: Option<usize>, due: Duration, carry: bool) -> Outcome {
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
        let carried = carry && done > self.plan.measure_from && self.plan.measured_phases > 0;
        if let Some(phase) = phase.or(carried.then_some(0)) {
            let (sent_after, received_after) = self.counters.snapshot();
            let from = self.plan.measure_from;
            let from_due = done.saturating_sub(due);
            let corrected = if self.plan.charge_lateness {
                from_due
            } else {
                from_due.saturating_sub(lateness)
            };
            self.recorder.record(Sample {
                phase,
                due: due.saturating_sub(from),
                done: done.saturating_sub(from),
                corrected,
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
