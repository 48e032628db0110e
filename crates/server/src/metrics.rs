//! Prometheus metrics, written in the text exposition format at `/metrics`.
//!
//! Hand-written rather than a metrics crate: the format is a few lines of text, the set of
//! series is fixed (requests, faults, latency buckets, in-flight, shed, connections evicted
//! and refused) and one
//! short uncontended lock per request is all the hot path pays. It must never block a request
//! on a scrape for longer than copying the counters.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

/// Upper bounds of the latency buckets, seconds.
const BUCKETS: [f64; 16] = [
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
    5.0, 10.0,
];

/// Label for requests whose path matched no mount.
const UNMATCHED: &str = "unmatched";

#[derive(Default)]
struct OpStats {
    by_status: Vec<(u16, u64)>,
    faults: u64,
    buckets: [u64; BUCKETS.len()],
    sum_seconds: f64,
    count: u64,
}

/// One mount's operations (few: a linear scan beats hashing).
type Slot = Mutex<Vec<(Option<&'static str>, OpStats)>>;

/// The server's counters.
pub(crate) struct Metrics {
    paths: Vec<String>,
    /// One slot per mount, then one for unmatched paths.
    slots: Vec<Slot>,
    pub(crate) in_flight: AtomicUsize,
    pub(crate) shed: AtomicU64,
    pub(crate) shed_queue_delay: AtomicU64,
    pub(crate) connections_evicted: AtomicU64,
    pub(crate) connections_refused: AtomicU64,
    pub(crate) connections_open: AtomicUsize,
    pub(crate) connections_total: AtomicU64,
    pub(crate) panics: AtomicU64,
    /// The per-core threads, once a per-core server runs: each one's connections.
    pub(crate) threads: OnceLock<Arc<crate::balance::Threads>>,
    /// How busy polls of lone connections ended ([`crate::poll`]).
    pub(crate) polls: crate::poll::PollCounts,
    /// Times a runtime thread gave its CPU away at the end of a slice ([`crate::slice`]).
    pub(crate) yields: AtomicU64,
    /// Connections served by a blocking thread now, and ever ([`crate::lean::blocking`]).
    pub(crate) blocking_open: AtomicUsize,
    pub(crate) blocking_total: AtomicU64,
    /// Blocking connections handed back to a runtime because others were there.
    pub(crate) blocking_handed_back: AtomicU64,
}

impl Metrics {
    pub(crate) fn new(paths: Vec<String>) -> Self {
        Metrics {
            slots: (0..=paths.len()).map(|_| Mutex::new(Vec::new())).collect(),
            paths,
            in_flight: AtomicUsize::new(0),
            shed: AtomicU64::new(0),
            shed_queue_delay: AtomicU64::new(0),
            connections_evicted: AtomicU64::new(0),
            connections_refused: AtomicU64::new(0),
            connections_open: AtomicUsize::new(0),
            connections_total: AtomicU64::new(0),
            panics: AtomicU64::new(0),
            threads: OnceLock::new(),
            polls: crate::poll::PollCounts::default(),
            yields: AtomicU64::new(0),
            blocking_open: AtomicUsize::new(0),
            blocking_total: AtomicU64::new(0),
            blocking_handed_back: AtomicU64::new(0),
        }
    }

    /// Records one answered request. `mount` is `None` for an unmatched path.
    pub(crate) fn record(
        &self,
        mount: Option<usize>,
        operation: Option<&'static str>,
        status: u16,
        fault: bool,
        elapsed: Duration,
    ) {
        let secs = elapsed.as_secs_f64();
        let bucket = BUCKETS
            .iter()
            .position(|&b| secs <= b)
            .unwrap_or(BUCKETS.len());
        let slot = &self.slots[mount.unwrap_or(self.paths.len()).min(self.paths.len())];
        let mut ops = slot.lock().unwrap_or_else(|e| e.into_inner());
        let i = match ops.iter().position(|&(op, _)| same_op(op, operation)) {
            Some(i) => i,
            None => {
                ops.push((operation, OpStats::default()));
                ops.len() - 1
            }
        };
        let s = &mut ops[i].1;
        match s.by_status.iter_mut().find(|(st, _)| *st == status) {
            Some((_, n)) => *n += 1,
            None => s.by_status.push((status, 1)),
        }
        s.faults += u64::from(fault);
        if bucket < BUCKETS.len() {
            s.buckets[bucket] += 1;
        }
        s.sum_seconds += secs;
        s.count += 1;
    }

    /// The text exposition.
    pub(crate) fn render(&self) -> String {
        let mut rows: Vec<((String, &'static str), OpStats)> = Vec::new();
        for (m, slot) in self.slots.iter().enumerate() {
            let path = self.paths.get(m).map_or(UNMATCHED, String::as_str);
            let ops = slot.lock().unwrap_or_else(|e| e.into_inner());
            rows.extend(ops.iter().map(|&(op, ref s)| {
                let copy = OpStats {
                    by_status: s.by_status.clone(),
                    faults: s.faults,
                    buckets: s.buckets,
                    sum_seconds: s.sum_seconds,
                    count: s.count,
                };
                ((escape(path), op.unwrap_or("")), copy)
            }));
        }
        rows.sort_by(|a, b| a.0.cmp(&b.0));
        let mut out = String::with_capacity(2048);
        let w = &mut out;
        header(
            w,
            "soapstone_requests_total",
            "counter",
            "Requests answered, by path, operation and HTTP status.",
        );
        for ((path, op), s) in &rows {
            let mut statuses = s.by_status.clone();
            statuses.sort_unstable();
            for (status, n) in statuses {
                let _ = writeln!(
                    w,
                    "soapstone_requests_total{{path=\"{path}\",operation=\"{op}\",status=\"{status}\"}} {n}"
                );
            }
        }
        header(
            w,
            "soapstone_faults_total",
            "counter",
            "SOAP faults answered, by path and operation.",
        );
        for ((path, op), s) in &rows {
            let _ = writeln!(
                w,
                "soapstone_faults_total{{path=\"{path}\",operation=\"{op}\"}} {}",
                s.faults
            );
        }
        header(
            w,
            "soapstone_request_duration_seconds",
            "histogram",
            "Time from the request head to the response, by path and operation.",
        );
        for ((path, op), s) in &rows {
            let mut cumulative = 0;
            for (le, n) in BUCKETS.iter().zip(s.buckets) {
                cumulative += n;
                let _ = writeln!(
                    w,
                    "soapstone_request_duration_seconds_bucket{{path=\"{path}\",operation=\"{op}\",le=\"{le}\"}} {cumulative}"
                );
            }
            let _ = writeln!(
                w,
                "soapstone_request_duration_seconds_bucket{{path=\"{path}\",operation=\"{op}\",le=\"+Inf\"}} {}",
                s.count
            );
            let _ = writeln!(
                w,
                "soapstone_request_duration_seconds_sum{{path=\"{path}\",operation=\"{op}\"}} {}",
                s.sum_seconds
            );
            let _ = writeln!(
                w,
                "soapstone_request_duration_seconds_count{{path=\"{path}\",operation=\"{op}\"}} {}",
                s.count
            );
        }
        gauge(
            w,
            "soapstone_requests_in_flight",
            "gauge",
            "Requests being read or handled.",
            self.in_flight.load(Ordering::Relaxed) as u64,
        );
        gauge(
            w,
            "soapstone_requests_shed_total",
            "counter",
            "Requests refused with 503 at the concurrency limit or for their queueing delay.",
            self.shed.load(Ordering::Relaxed),
        );
        gauge(
            w,
            "soapstone_requests_shed_queue_delay_total",
            "counter",
            "Requests refused with 503 because they waited too long while a queue stood (CoDel).",
            self.shed_queue_delay.load(Ordering::Relaxed),
        );
        gauge(
            w,
            "soapstone_handler_panics_total",
            "counter",
            "Service calls that panicked (answered with a Server fault).",
            self.panics.load(Ordering::Relaxed),
        );
        gauge(
            w,
            "soapstone_connections_open",
            "gauge",
            "Open client connections.",
            self.connections_open.load(Ordering::Relaxed) as u64,
        );
        gauge(
            w,
            "soapstone_connections_total",
            "counter",
            "Connections accepted.",
            self.connections_total.load(Ordering::Relaxed),
        );
        gauge(
            w,
            "soapstone_connections_evicted_total",
            "counter",
            "Idle connections closed to make room for a new one (table full or per-peer cap).",
            self.connections_evicted.load(Ordering::Relaxed),
        );
        gauge(
            w,
            "soapstone_connections_refused_total",
            "counter",
            "New connections answered 503 and closed because every connection in the way was busy.",
            self.connections_refused.load(Ordering::Relaxed),
        );
        let (caught, expired) = (
            self.polls.caught.load(Ordering::Relaxed),
            self.polls.expired.load(Ordering::Relaxed),
        );
        if caught + expired > 0 {
            header(
                w,
                "soapstone_busy_polls_total",
                "counter",
                "Busy polls of a lone connection after an answer (`busy_poll`): `caught` saw the next request within the budget, `expired` parked after it.",
            );
            let _ = writeln!(
                w,
                "soapstone_busy_polls_total{{outcome=\"caught\"}} {caught}"
            );
            let _ = writeln!(
                w,
                "soapstone_busy_polls_total{{outcome=\"expired\"}} {expired}"
            );
        }
        let yields = self.yields.load(Ordering::Relaxed);
        if yields > 0 {
            gauge(
                w,
                "soapstone_cpu_yields_total",
                "counter",
                "Times a runtime thread busy for a whole `cpu_slice` yielded its CPU before its next request.",
                yields,
            );
        }
        let blocking_total = self.blocking_total.load(Ordering::Relaxed);
        if blocking_total > 0 {
            gauge(
                w,
                "soapstone_blocking_connections_open",
                "gauge",
                "Open connections served each by a thread of its own with blocking reads (`blocking_connections`).",
                self.blocking_open.load(Ordering::Relaxed) as u64,
            );
            gauge(
                w,
                "soapstone_blocking_connections_total",
                "counter",
                "Connections served by a blocking thread (`blocking_connections`), counted when the thread takes them.",
                blocking_total,
            );
            gauge(
                w,
                "soapstone_blocking_connections_handed_back_total",
                "counter",
                "Blocking connections handed to a runtime between two requests because other connections were on the runtimes.",
                self.blocking_handed_back.load(Ordering::Relaxed),
            );
        }
        if let Some(threads) = self.threads.get() {
            header(
                w,
                "soapstone_thread_connections_open",
                "gauge",
                "Open client connections served by each runtime thread of a per-core server.",
            );
            for (i, n) in threads.loads().into_iter().enumerate() {
                let _ = writeln!(w, "soapstone_thread_connections_open{{thread=\"{i}\"}} {n}");
            }
            gauge(
                w,
                "soapstone_connections_handed_over_total",
                "counter",
                "Connections accepted by one per-core thread and served by another with fewer.",
                threads.handed_over.load(Ordering::Relaxed),
            );
        }
        out
    }
}

fn header(w: &mut String, name: &str, kind: &str, help: &str) {
    let _ = writeln!(w, "# HELP {name} {help}\n# TYPE {name} {kind}");
}

fn gauge(w: &mut String, name: &str, kind: &str, help: &str, value: u64) {
    header(w, name, kind, help);
    let _ = writeln!(w, "{name} {value}");
}

/// Escapes a label value.
fn escape(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// Two operation names: the same static (the generated code's), usually, so the address says
/// it before the bytes are compared (a `memcmp` call a request).
#[inline]
fn same_op(a: Option<&'static str>, b: Option<&'static str>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => std::ptr::eq(a, b) || a == b,
        (a, b) => a.is_none() && b.is_none(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_counters_and_cumulative_buckets() {
        let m = Metrics::new(vec!["/echo".into()]);
        m.record(
            Some(0),
            Some("echoFloat"),
            200,
            false,
            Duration::from_micros(50),
        );
        m.record(
            Some(0),
            Some("echoFloat"),
            200,
            false,
            Duration::from_millis(3),
        );
        m.record(Some(0), Some("fail"), 500, true, Duration::from_millis(20));
        m.record(None, None, 404, false, Duration::from_micros(10));
        let text = m.render();
        assert!(text.contains("soapstone_requests_total{path=\"/echo\",operation=\"echoFloat\",status=\"200\"} 2\n"), "{text}");
        assert!(text.contains("soapstone_faults_total{path=\"/echo\",operation=\"fail\"} 1\n"));
        assert!(text.contains(
            "soapstone_requests_total{path=\"unmatched\",operation=\"\",status=\"404\"} 1\n"
        ));
        assert!(text.contains(
            "soapstone_request_duration_seconds_bucket{path=\"/echo\",operation=\"echoFloat\",le=\"0.0001\"} 1\n"
        ));
        assert!(text.contains(
            "soapstone_request_duration_seconds_bucket{path=\"/echo\",operation=\"echoFloat\",le=\"0.005\"} 2\n"
        ));
        assert!(text.contains(
            "soapstone_request_duration_seconds_count{path=\"/echo\",operation=\"echoFloat\"} 2\n"
        ));
        assert!(text.contains(
            "# TYPE soapstone_requests_in_flight gauge\nsoapstone_requests_in_flight 0\n"
        ));
    }

    #[test]
    fn label_values_are_escaped() {
        assert_eq!(escape("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
    }
}
