//! Per-task measurements, merged once at the end.
//!
//! Each generator task owns one [`Recorder`] (no lock, no shared counter on the hot
//! path), the wrk2 / HdrHistogram way; the engine adds them up after the run. Latencies
//! are recorded in microseconds. Only answers have a latency (a timeout or a broken
//! connection is counted as an error, not as a latency sample).
//! It must never read the clock: the engine hands it the instants.

use std::collections::BTreeMap;
use std::time::Duration;

use hdrhistogram::Histogram;

use crate::conn::{ErrorKind, Outcome};

/// Highest latency tracked before the histograms resize: 1 minute.
const HIGHEST_US: u64 = 60_000_000;

pub(crate) fn histogram(sigfig: u8) -> Histogram<u64> {
    let mut h = Histogram::new_with_bounds(1, HIGHEST_US, sigfig).expect("valid histogram bounds");
    h.auto(true);
    h
}

/// Records `us`, growing the histogram if needed (clamping only past `u64` range).
fn put(h: &mut Histogram<u64>, us: u64) {
    if h.record(us).is_err() {
        h.saturating_record(us);
    }
}

pub(crate) fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX).max(1)
}

/// Errors by kind.
#[derive(Clone, Debug, Default)]
pub(crate) struct ErrorTally {
    pub(crate) timeout: u64,
    pub(crate) connect: u64,
    pub(crate) io: u64,
    pub(crate) invalid: u64,
    pub(crate) soap_fault: u64,
    pub(crate) http_status: BTreeMap<u16, u64>,
    pub(crate) grpc_status: BTreeMap<String, u64>,
}

impl ErrorTally {
    fn add(&mut self, kind: &ErrorKind) {
        match kind {
            ErrorKind::Timeout => self.timeout += 1,
            ErrorKind::Connect => self.connect += 1,
            ErrorKind::Io => self.io += 1,
            ErrorKind::Invalid => self.invalid += 1,
            ErrorKind::SoapFault => self.soap_fault += 1,
            ErrorKind::HttpStatus(code) => *self.http_status.entry(*code).or_default() += 1,
            ErrorKind::GrpcStatus(code) => *self.grpc_status.entry(code.clone()).or_default() += 1,
        }
    }

    fn merge(&mut self, other: &ErrorTally) {
        self.timeout += other.timeout;
        self.connect += other.connect;
        self.io += other.io;
        self.invalid += other.invalid;
        self.soap_fault += other.soap_fault;
        for (k, v) in &other.http_status {
            *self.http_status.entry(*k).or_default() += v;
        }
        for (k, v) in &other.grpc_status {
            *self.grpc_status.entry(k.clone()).or_default() += v;
        }
    }
}

/// Counts for one second of the run (or one phase).
#[derive(Clone, Debug, Default)]
pub(crate) struct Tally {
    /// Requests due (open loop) or sent (closed loop) in this interval.
    pub(crate) requests: u64,
    pub(crate) ok: u64,
    pub(crate) errors: u64,
    pub(crate) responses: u64,
    pub(crate) unsent: u64,
    /// Corrected latency of the answers counted here.
    pub(crate) latency: Option<Histogram<u64>>,
}

impl Tally {
    fn record_latency(&mut self, us: u64) {
        put(self.latency.get_or_insert_with(|| histogram(2)), us);
    }

    fn merge(&mut self, other: &Tally) {
        self.requests += other.requests;
        self.ok += other.ok;
        self.errors += other.errors;
        self.responses += other.responses;
        self.unsent += other.unsent;
        if let Some(h) = &other.latency {
            let mine = self.latency.get_or_insert_with(|| histogram(2));
            let _ = mine.add(h);
        }
    }
}

/// One finished request, as offsets from the start of measurement.
pub(crate) struct Sample<'a> {
    /// Index of the measured phase.
    pub(crate) phase: usize,
    /// When it was due (open loop) or sent (closed loop).
    pub(crate) due: Duration,
    /// When its answer (or error) came.
    pub(crate) done: Duration,
    /// Latency from the due time, less the generator's own wake-up lateness.
    pub(crate) corrected: Duration,
    /// Latency from the actual send.
    pub(crate) uncorrected: Duration,
    /// How late the generator sent it while the connection was free.
    pub(crate) lateness: Duration,
    pub(crate) outcome: &'a Outcome,
    pub(crate) bytes_sent: u64,
    pub(crate) bytes_received: u64,
}

/// Everything one task measured.
#[derive(Clone, Debug)]
pub(crate) struct Recorder {
    pub(crate) corrected: Histogram<u64>,
    pub(crate) uncorrected: Histogram<u64>,
    pub(crate) lateness: Histogram<u64>,
    pub(crate) sent: u64,
    pub(crate) responses: u64,
    pub(crate) ok: u64,
    pub(crate) unsent: u64,
    pub(crate) errors: ErrorTally,
    pub(crate) bytes_sent: u64,
    pub(crate) bytes_received: u64,
    pub(crate) seconds: Vec<Tally>,
    pub(crate) phases: Vec<Tally>,
}

impl Recorder {
    pub(crate) fn new(phases: usize) -> Self {
        Recorder {
            corrected: histogram(3),
            uncorrected: histogram(3),
            lateness: histogram(2),
            sent: 0,
            responses: 0,
            ok: 0,
            unsent: 0,
            errors: ErrorTally::default(),
            bytes_sent: 0,
            bytes_received: 0,
            seconds: Vec::new(),
            phases: vec![Tally::default(); phases],
        }
    }

    fn second(&mut self, at: Duration) -> &mut Tally {
        let i = at.as_secs() as usize;
        if self.seconds.len() <= i {
            self.seconds.resize_with(i + 1, Tally::default);
        }
        &mut self.seconds[i]
    }

    pub(crate) fn record(&mut self, s: Sample<'_>) {
        self.sent += 1;
        self.bytes_sent += s.bytes_sent;
        self.bytes_received += s.bytes_received;
        self.second(s.due).requests += 1;
        self.phases[s.phase].requests += 1;
        let answered = match s.outcome {
            Ok(()) => true,
            Err(kind) => kind.is_response(),
        };
        if answered {
            let corrected = micros(s.corrected);
            self.responses += 1;
            put(&mut self.corrected, corrected);
            put(&mut self.uncorrected, micros(s.uncorrected));
            put(&mut self.lateness, micros(s.lateness));
            self.second(s.done).record_latency(corrected);
            self.second(s.done).responses += 1;
            let phase = &mut self.phases[s.phase];
            phase.responses += 1;
            phase.record_latency(corrected);
        }
        match s.outcome {
            Ok(()) => {
                self.ok += 1;
                self.second(s.done).ok += 1;
                self.phases[s.phase].ok += 1;
            }
            Err(kind) => {
                self.errors.add(kind);
                self.second(s.done).errors += 1;
                self.phases[s.phase].errors += 1;
            }
        }
    }

    /// A request that was due but never sent before the drain deadline.
    pub(crate) fn record_unsent(&mut self, phase: usize, due: Duration) {
        self.unsent += 1;
        self.second(due).unsent += 1;
        self.phases[phase].unsent += 1;
    }

    pub(crate) fn merge(&mut self, other: &Recorder) {
        let _ = self.corrected.add(&other.corrected);
        let _ = self.uncorrected.add(&other.uncorrected);
        let _ = self.lateness.add(&other.lateness);
        self.sent += other.sent;
        self.responses += other.responses;
        self.ok += other.ok;
        self.unsent += other.unsent;
        self.errors.merge(&other.errors);
        self.bytes_sent += other.bytes_sent;
        self.bytes_received += other.bytes_received;
        if self.seconds.len() < other.seconds.len() {
            self.seconds
                .resize_with(other.seconds.len(), Tally::default);
        }
        for (mine, theirs) in self.seconds.iter_mut().zip(&other.seconds) {
            mine.merge(theirs);
        }
        for (mine, theirs) in self.phases.iter_mut().zip(&other.phases) {
            mine.merge(theirs);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(phase: usize, due_ms: u64, latency_ms: u64, outcome: &Outcome) -> Sample<'_> {
        Sample {
            phase,
            due: Duration::from_millis(due_ms),
            done: Duration::from_millis(due_ms + latency_ms),
            corrected: Duration::from_millis(latency_ms),
            uncorrected: Duration::from_millis(latency_ms / 2),
            lateness: Duration::ZERO,
            outcome,
            bytes_sent: 10,
            bytes_received: 20,
        }
    }

    #[test]
    fn per_task_recorders_merge_into_the_sum() {
        let ok: Outcome = Ok(());
        let e503: Outcome = Err(ErrorKind::HttpStatus(503));
        let timeout: Outcome = Err(ErrorKind::Timeout);
        let mut a = Recorder::new(2);
        let mut b = Recorder::new(2);
        for i in 0..100 {
            a.record(sample(0, i * 10, 2, &ok));
        }
        for i in 0..50 {
            b.record(sample(1, 1500 + i * 10, 400, &ok));
        }
        b.record(sample(1, 1000, 5, &e503));
        b.record(sample(1, 1000, 5, &timeout));
        b.record_unsent(1, Duration::from_millis(1990));
        a.merge(&b);
        assert_eq!(a.sent, 152);
        assert_eq!(a.ok, 150);
        assert_eq!(a.responses, 151);
        assert_eq!(a.unsent, 1);
        assert_eq!(a.errors.timeout, 1);
        assert_eq!(a.errors.http_status.get(&503), Some(&1));
        assert_eq!(a.bytes_sent, 1520);
        assert_eq!(a.bytes_received, 3040);
        // 151 latencies: 100 of 2 ms, one of 5 ms, 50 of 400 ms.
        assert_eq!(a.corrected.len(), 151);
        assert_eq!(a.corrected.value_at_quantile(0.5) / 1000, 2);
        assert_eq!(a.corrected.max() / 1000, 400);
        assert_eq!(a.uncorrected.max() / 1000, 200);
        // Timeline: second 0 holds a's 100 requests, second 1 b's 52 requests.
        assert_eq!(a.seconds[0].requests, 100);
        assert_eq!(a.seconds[1].requests, 52);
        assert_eq!(a.seconds[1].unsent, 1);
        assert_eq!(a.seconds[1].errors + a.seconds[2].errors, 2);
        assert_eq!(a.phases[0].ok, 100);
        assert_eq!(a.phases[1].ok, 50);
        assert_eq!(a.phases[1].errors, 2);
    }
}
