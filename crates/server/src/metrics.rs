//! Prometheus metrics, written in the text exposition format at `/metrics`.
//!
//! Hand-written rather than a metrics crate: the format is a few lines of text, the set of
//! series is fixed (requests, faults, latency buckets, in-flight, shed, connections evicted
//! and refused), and the per-request counting is laid out for many cores, which the crates
//! (an atomic add per counter, or a lock) are not: each thread counts into a shard of its
//! own ([`Shard`]), one row per series (mount, operation, status), with plain loads and
//! stores: no lock and no locked instruction on the request path (a lock's acquire and
//! release were two of about sixteen locked instructions an echoFloat request made, about
//! 20 cycles each, on a line every core serving the mount wrote). A scrape sums the shards.
//!
//! A shard is written by one thread at a time: the thread that claimed it, until the thread
//! ends or lets it go (a thread holds at most [`HELD`] servers' shards), when another may
//! claim it and count on; so a server keeps one shard per thread that counts for it at once,
//! however many threads come and go. A thread's series past [`ROWS`] are counted under a
//! lock ([`Metrics::overflow`]). It must never block a request on a scrape, and a scrape reads
//! each counter once: a histogram's `+Inf` bucket is at least its other buckets' sum even
//! when a request is counted halfway through the read.

use std::cell::RefCell;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

/// Upper bounds of the latency buckets, seconds.
const BUCKETS: [f64; 16] = [
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
    5.0, 10.0,
];

/// Label for requests whose path matched no mount.
const UNMATCHED: &str = "unmatched";

/// Series a thread counts in its shard: a service's operations by the statuses they answer
/// (about 200 bytes a row: 6 KiB a thread and server).
const ROWS: usize = 32;

/// Servers whose shards a thread holds at once; the least recently used is let go past it.
const HELD: usize = 8;

/// One series: the mount (or the slot after the last mount, for unmatched paths), the
/// operation and the HTTP status.
type Key = (usize, Option<&'static str>, u16);

/// A series' counts, as a scrape sums them (and as the overflow keeps them).
#[derive(Default, Clone)]
struct Counts {
    faults: u64,
    buckets: [u64; BUCKETS.len()],
    sum_seconds: f64,
    count: u64,
}

/// An operation's counts as rendered: a series' counts summed over its statuses.
#[derive(Default)]
struct OpStats {
    by_status: Vec<(u16, u64)>,
    faults: u64,
    buckets: [u64; BUCKETS.len()],
    sum_seconds: f64,
    count: u64,
}

/// One series' counters in a shard: written by the shard's thread alone.
#[derive(Default)]
struct Row {
    /// Set once, by the thread that first counts the series here.
    key: OnceLock<Key>,
    faults: AtomicU64,
    buckets: [AtomicU64; BUCKETS.len()],
    /// An `f64`'s bits.
    sum_seconds: AtomicU64,
    count: AtomicU64,
}

/// Adds `by` to a counter only this thread writes: a load and a store, not a locked add.
#[inline]
fn bump(counter: &AtomicU64, by: u64) {
    counter.store(
        counter.load(Ordering::Relaxed).wrapping_add(by),
        Ordering::Relaxed,
    );
}

impl Row {
    fn count(&self, fault: bool, bucket: usize, secs: f64) {
        if fault {
            bump(&self.faults, 1);
        }
        if let Some(b) = self.buckets.get(bucket) {
            bump(b, 1);
        }
        let sum = f64::from_bits(self.sum_seconds.load(Ordering::Relaxed)) + secs;
        self.sum_seconds.store(sum.to_bits(), Ordering::Relaxed);
        bump(&self.count, 1);
    }

    fn read(&self) -> Counts {
        Counts {
            faults: self.faults.load(Ordering::Relaxed),
            buckets: std::array::from_fn(|i| self.buckets[i].load(Ordering::Relaxed)),
            sum_seconds: f64::from_bits(self.sum_seconds.load(Ordering::Relaxed)),
            count: self.count.load(Ordering::Relaxed),
        }
    }
}

/// A thread's counters for one server.
struct Shard {
    /// Filled from the front; a row's key, once set, never changes.
    rows: Box<[Row]>,
    /// Whether a thread holds the shard (only that one writes it).
    held: AtomicBool,
}

impl Shard {
    fn new() -> Self {
        Shard {
            rows: (0..ROWS).map(|_| Row::default()).collect(),
            held: AtomicBool::new(true),
        }
    }

    /// The row counting `key`, taking a free one for a new series; `None` when full. `hint`
    /// is the row found last (a connection's requests are mostly one series).
    fn row(&self, key: Key, hint: &mut usize) -> Option<&Row> {
        let same = |k: &Key| k.0 == key.0 && k.2 == key.2 && same_op(k.1, key.1);
        if let Some(row) = self.rows.get(*hint) {
            if row.key.get().is_some_and(same) {
                return Some(row);
            }
        }
        for (i, row) in self.rows.iter().enumerate() {
            let found = match row.key.get() {
                Some(k) => same(k),
                // Rows fill from the front: the first free one is this series' (only this
                // thread sets keys in this shard).
                None => row.key.set(key).is_ok(),
            };
            if found {
                *hint = i;
                return Some(row);
            }
        }
        None
    }
}

/// A shard a thread holds: let go when dropped (the thread ends, or holds too many).
struct Held {
    metrics: u64,
    shard: Arc<Shard>,
    /// Whether the server is gone (its shards are then only let go).
    gone: Arc<AtomicBool>,
    hint: usize,
}

impl Drop for Held {
    fn drop(&mut self) {
        // The release orders this thread's counts before the next holder's.
        self.shard.held.store(false, Ordering::Release);
    }
}

thread_local! {
    /// The shards this thread holds, most recently used first; at most [`HELD`].
    static HOLDS: RefCell<Vec<Held>> = const { RefCell::new(Vec::new()) };
}

/// The shards of one server, and its series past a shard's rows.
#[derive(Default)]
struct Shards {
    all: Mutex<Vec<Arc<Shard>>>,
    overflow: Mutex<Vec<(Key, Counts)>>,
}

/// The server's counters.
pub(crate) struct Metrics {
    /// Tells this server's shards from others' in a thread's holds.
    id: u64,
    paths: Vec<String>,
    shards: Shards,
    /// Set when the server's counters are dropped: a thread's hold of its shard is let go.
    gone: Arc<AtomicBool>,
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

/// The server's shards are let go by the threads that hold them as they next count (for any
/// server) or end.
impl Drop for Metrics {
    fn drop(&mut self) {
        self.gone.store(true, Ordering::Relaxed);
    }
}

impl Metrics {
    pub(crate) fn new(paths: Vec<String>) -> Self {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        Metrics {
            id: NEXT.fetch_add(1, Ordering::Relaxed),
            paths,
            shards: Shards::default(),
            gone: Arc::new(AtomicBool::new(false)),
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
        let key = (
            mount.unwrap_or(self.paths.len()).min(self.paths.len()),
            operation,
            status,
        );
        let counted = HOLDS
            .try_with(|holds| {
                // (`None` inside a `record` of this thread's already: none calls another)
                let mut holds = holds.try_borrow_mut().ok()?;
                let held = self.hold(&mut holds);
                let row = held.shard.row(key, &mut held.hint)?;
                row.count(fault, bucket, secs);
                Some(())
            })
            .ok()
            .flatten();
        if counted.is_none() {
            // A thread with a shard full of series, or ending (its holds are gone).
            let mut overflow = self
                .shards
                .overflow
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            let at = overflow
                .iter()
                .position(|(k, _)| k.0 == key.0 && k.2 == key.2 && same_op(k.1, key.1));
            let i = at.unwrap_or_else(|| {
                overflow.push((key, Counts::default()));
                overflow.len() - 1
            });
            let c = &mut overflow[i].1;
            c.faults += u64::from(fault);
            if let Some(b) = c.buckets.get_mut(bucket) {
                *b += 1;
            }
            c.sum_seconds += secs;
            c.count += 1;
        }
    }

    /// This thread's hold of a shard of this server, first in `holds`: the one it holds, or
    /// one let go by a thread before it, or a new one.
    fn hold<'h>(&self, holds: &'h mut Vec<Held>) -> &'h mut Held {
        match holds.iter().position(|h| h.metrics == self.id) {
            Some(0) => {}
            Some(i) => holds[..=i].rotate_right(1),
            None => {
                // Servers gone are let go of first; then the least recently used past `HELD`.
                holds.retain(|h| !h.gone.load(Ordering::Relaxed));
                holds.truncate(HELD - 1);
                let shard = {
                    let mut all = self.shards.all.lock().unwrap_or_else(|e| e.into_inner());
                    let free = all.iter().find(|s| {
                        s.held
                            .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
                            .is_ok()
                    });
                    match free {
                        Some(s) => Arc::clone(s),
                        None => {
                            let s = Arc::new(Shard::new());
                            all.push(Arc::clone(&s));
                            s
                        }
                    }
                };
                holds.insert(
                    0,
                    Held {
                        metrics: self.id,
                        shard,
                        gone: Arc::clone(&self.gone),
                        hint: 0,
                    },
                );
            }
        }
        &mut holds[0]
    }

    /// Every series' counts, summed over the shards and the overflow: by path (escaped) and
    /// operation, with the counts by status.
    fn series(&self) -> Vec<((String, &'static str), OpStats)> {
        let mut by_op: Vec<((usize, Option<&'static str>), OpStats)> = Vec::new();
        let mut add = |key: Key, c: &Counts| {
            let at = by_op
                .iter()
                .position(|((m, op), _)| *m == key.0 && same_op(*op, key.1));
            let i = at.unwrap_or_else(|| {
                by_op.push(((key.0, key.1), OpStats::default()));
                by_op.len() - 1
            });
            let s = &mut by_op[i].1;
            match s.by_status.iter_mut().find(|(st, _)| *st == key.2) {
                Some((_, n)) => *n += c.count,
                None => s.by_status.push((key.2, c.count)),
            }
            s.faults += c.faults;
            for (b, n) in s.buckets.iter_mut().zip(c.buckets) {
                *b += n;
            }
            s.sum_seconds += c.sum_seconds;
            // A request counted while this was read may have its bucket and not its count.
            s.count += c.count.max(c.buckets.iter().sum());
        };
        let shards: Vec<Arc<Shard>> = self
            .shards
            .all
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        for shard in &shards {
            for row in shard.rows.iter() {
                match row.key.get() {
                    Some(&key) => add(key, &row.read()),
                    None => break,
                }
            }
        }
        for (key, c) in self
            .shards
            .overflow
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
        {
            add(*key, c);
        }
        by_op
            .into_iter()
            .map(|((m, op), s)| {
                let path = self.paths.get(m).map_or(UNMATCHED, String::as_str);
                ((escape(path), op.unwrap_or("")), s)
            })
            .collect()
    }

    /// The text exposition.
    pub(crate) fn render(&self) -> String {
        let mut rows = self.series();
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

    fn count_of(text: &str, series: &str) -> u64 {
        text.lines()
            .find_map(|l| l.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
            .unwrap_or(0)
    }

    #[test]
    fn threads_count_into_shards_a_scrape_sums_and_later_threads_reuse() {
        let m = Metrics::new(vec!["/a".into(), "/b".into()]);
        let ops = [Some("one"), Some("two"), None];
        for round in 0..3 {
            std::thread::scope(|scope| {
                let threads: Vec<_> = (0..4)
                    .map(|t| {
                        let m = &m;
                        scope.spawn(move || {
                            for i in 0..500 {
                                let op = ops[(i + t) % 3];
                                let fault = i % 5 == 0;
                                let status = if fault { 500 } else { 200 };
                                m.record(Some(t % 2), op, status, fault, Duration::from_micros(80));
                            }
                        })
                    })
                    .collect();
                // Joined each (not only at the scope's end): the thread has ended, its
                // thread-locals too.
                for t in threads {
                    t.join().unwrap();
                }
            });
            // Each round's threads ended and let their shards go: the next round's take them
            // (fewer than four when a thread ended before another began).
            let shards = m.shards.all.lock().unwrap().len();
            assert!((1..=4).contains(&shards), "round {round}: {shards} shards");
            assert!(m
                .shards
                .all
                .lock()
                .unwrap()
                .iter()
                .all(|s| !s.held.load(Ordering::Acquire)));
        }
        let text = m.render();
        let mut total = 0;
        for path in ["/a", "/b"] {
            for op in ["one", "two", ""] {
                let ok = count_of(
                    &text,
                    &format!("soapstone_requests_total{{path=\"{path}\",operation=\"{op}\",status=\"200\"}}"),
                );
                let failed = count_of(
                    &text,
                    &format!("soapstone_requests_total{{path=\"{path}\",operation=\"{op}\",status=\"500\"}}"),
                );
                let faults = count_of(
                    &text,
                    &format!("soapstone_faults_total{{path=\"{path}\",operation=\"{op}\"}}"),
                );
                let fast = count_of(
                    &text,
                    &format!("soapstone_request_duration_seconds_bucket{{path=\"{path}\",operation=\"{op}\",le=\"0.0001\"}}"),
                );
                assert_eq!(failed, faults, "{path} {op}");
                assert_eq!(fast, ok + failed, "{path} {op}");
                total += ok + failed;
            }
        }
        assert_eq!(total, 3 * 4 * 500);
    }

    #[test]
    fn series_past_a_shards_rows_are_counted_too() {
        let m = Metrics::new(vec!["/a".into()]);
        // Statuses as series: more than a shard holds, each counted twice.
        for _ in 0..2 {
            for status in 200..200 + 2 * ROWS as u16 {
                m.record(Some(0), Some("op"), status, false, Duration::from_millis(1));
            }
        }
        assert!(!m.shards.overflow.lock().unwrap().is_empty());
        let text = m.render();
        for status in 200..200 + 2 * ROWS as u16 {
            let series = format!(
                "soapstone_requests_total{{path=\"/a\",operation=\"op\",status=\"{status}\"}}"
            );
            assert_eq!(count_of(&text, &series), 2, "{series}");
        }
        let count = "soapstone_request_duration_seconds_count{path=\"/a\",operation=\"op\"}";
        assert_eq!(count_of(&text, count), 4 * ROWS as u64);
    }

    #[test]
    fn a_thread_holds_few_servers_shards_and_lets_go_of_those_gone() {
        let kept = Metrics::new(vec!["/a".into()]);
        kept.record(Some(0), None, 200, false, Duration::ZERO);
        for _ in 0..3 * HELD {
            let m = Metrics::new(vec!["/a".into()]);
            m.record(Some(0), None, 200, false, Duration::ZERO);
            assert!(HOLDS.with_borrow(Vec::len) <= HELD);
        }
        // Let go of as it fell out of the thread's holds: its next count takes it again.
        kept.record(Some(0), None, 200, false, Duration::ZERO);
        assert_eq!(kept.shards.all.lock().unwrap().len(), 1);
        let series = "soapstone_requests_total{path=\"/a\",operation=\"\",status=\"200\"}";
        assert_eq!(count_of(&kept.render(), series), 2);
    }

    #[test]
    fn label_values_are_escaped() {
        assert_eq!(escape("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
    }
}
