//! The report section of the cluster experiment ("beyond one machine"), drawn only from the
//! runs of experiment `cluster` and [`Results::cluster`]. It must never print a figure no run
//! measured: a missing part is a `[failed]` cell or a sentence saying it did not run.

use super::cluster::{CONNECTIONS, COUNTS, EXP};
use crate::report::{fmt, Row, Section, Table};
use crate::results::{ClusterRecord, Failover, PgRestart, PlacementKind, Results, Run};

fn run<'a>(results: &'a Results, op: &str, kind: PlacementKind) -> Option<&'a Run> {
    results.get(EXP, "soapstone", op, kind)
}

/// The replica count after which adding one more gains less than 10 % (`None`: it never bends
/// within the counts measured, or too few were).
pub(crate) fn bend(rates: &[(u32, f64)]) -> Option<u32> {
    rates
        .windows(2)
        .find(|w| w[1].1 < w[0].1 * 1.10)
        .map(|w| w[0].0)
}

pub(crate) fn section(results: &Results) -> Section {
    let rec = results.cluster.clone().unwrap_or_default();
    let mut findings = Vec::new();
    let mut tables = Vec::new();
    if let Some(why) = &rec.not_run {
        findings.push(format!("Not run: {why}."));
    } else {
        tables.push(throughput(results, &mut findings));
        tables.push(hop(results, &mut findings));
        findings.extend(failover_findings(rec.failover.as_ref()));
        findings.extend(pg_findings(results, rec.pg_restart.as_ref()));
    }
    Section {
        id: EXP.to_owned(),
        title: "Beyond one machine: replicas behind HAProxy on PostgreSQL (issue 14)".to_owned(),
        intro: intro(&rec),
        findings,
        tables,
        charts: Vec::new(),
    }
}

fn intro(rec: &ClusterRecord) -> String {
    let mut s = "García et al. chose Erlang for its easy replication; this is soapstone's \
                 answer, on this machine: the charging service as replicas behind HAProxy on one \
                 PostgreSQL, started by `scripts/cluster.sh` as real processes. Measured: \
                 throughput and p99 per replica count, the cost of the balancer hop, a replica \
                 SIGKILLed under keyed load (every acknowledged operation read back from the \
                 ledger), PostgreSQL restarted under load."
        .to_owned();
    if !rec.topology.is_empty() {
        s.push_str(" Topology: ");
        s.push_str(&rec.topology);
        s.push('.');
    }
    s
}

fn throughput(results: &Results, findings: &mut Vec<String>) -> Table {
    let mut rows = Vec::new();
    for (op, label) in [
        ("creditControl", "creditControl (read)"),
        ("credit", "credit (durable write)"),
    ] {
        rows.push(Row::group(label));
        let mut rates = Vec::new();
        for n in COUNTS {
            let cells = match run(results, &format!("{op}@{n}"), PlacementKind::CrossCpu) {
                Some(r) => {
                    rates.push((n, r.throughput_rps));
                    vec![
                        n.to_string(),
                        fmt::count(r.throughput_rps),
                        fmt::us(r.p50_us),
                        fmt::us(r.p99_us),
                        r.errors.to_string(),
                    ]
                }
                None => vec![
                    n.to_string(),
                    "[failed]".to_owned(),
                    String::new(),
                    String::new(),
                    String::new(),
                ],
            };
            rows.push(Row::today(cells));
        }
        if let (Some(first), Some(last)) = (rates.first(), rates.last()) {
            let bent = match bend(&rates) {
                Some(n) => format!(
                    "it bends after {}: past that, more replicas share the same CPUs",
                    replicas(n)
                ),
                None => "it did not bend within the counts measured".to_owned(),
            };
            findings.push(format!(
                "{label}: {} answers/s with {}, {} with {} ({}); {bent}, on {} CPUs that also run HAProxy, PostgreSQL and the load generator.",
                fmt::count(first.1),
                replicas(first.0),
                fmt::count(last.1),
                replicas(last.0),
                fmt::ratio(last.1 / first.1),
                results.host.cpus
            ));
        }
    }
    Table {
        title: "Throughput per replica count, through HAProxy".to_owned(),
        source: "none: no seed measured a cluster (issue 14, item 4)".to_owned(),
        note: format!(
            "closed loop, {CONNECTIONS} connections, load generator unpinned, replicas pinned \
             round robin over both CPUs; p50/p99 in µs"
        ),
        header: ["replicas", "answers/s", "p50 (µs)", "p99 (µs)", "errors"]
            .map(str::to_owned)
            .to_vec(),
        rows,
    }
}

fn replicas(n: u32) -> String {
    if n == 1 {
        "1 replica".to_owned()
    } else {
        format!("{n} replicas")
    }
}

fn hop(results: &Results, findings: &mut Vec<String>) -> Table {
    let mut rows = Vec::new();
    for kind in [PlacementKind::SameCpu, PlacementKind::CrossCpu] {
        let d = run(results, "hop-direct", kind);
        let h = run(results, "hop-haproxy", kind);
        for (path, r) in [("direct", d), ("HAProxy", h)] {
            rows.push(Row::today(match r {
                Some(r) => vec![
                    kind.label().to_owned(),
                    path.to_owned(),
                    fmt::us(r.p50_us),
                    fmt::us(r.p99_us),
                    fmt::count(r.throughput_rps),
                ],
                None => vec![
                    kind.label().to_owned(),
                    path.to_owned(),
                    "[failed]".to_owned(),
                    String::new(),
                    String::new(),
                ],
            }));
        }
        if let (Some(d), Some(h)) = (d, h) {
            findings.push(format!(
                "The balancer hop ({}): {} µs through HAProxy against {} µs direct at p50, {} the latency.",
                kind.label(),
                fmt::us(h.p50_us),
                fmt::us(d.p50_us),
                fmt::ratio(h.p50_us / d.p50_us)
            ));
        }
    }
    Table {
        title: "The balancer hop: one connection, creditControl, direct vs through HAProxy"
            .to_owned(),
        source: "none: no seed measured a balancer (issue 14, item 4)".to_owned(),
        note: "one replica; same CPU: client, HAProxy and replica on one CPU; cross-CPU: replica \
               on one, client and HAProxy on the other; µs"
            .to_owned(),
        header: ["placement", "path", "p50 (µs)", "p99 (µs)", "calls/s"]
            .map(str::to_owned)
            .to_vec(),
        rows,
    }
}

fn ms(v: Option<f64>) -> String {
    v.map(|v| format!("{} ms", fmt::count(v)))
        .unwrap_or_else(|| "never".to_owned())
}

pub(crate) fn failover_findings(f: Option<&Failover>) -> Vec<String> {
    let Some(f) = f else {
        return vec!["The failover part did not run (see Problems).".to_owned()];
    };
    let verdict = if f.ledger_missing == 0 && f.ledger_extra == 0 && f.unanswered == 0 {
        "every acknowledged operation is in the ledger once and nothing else is".to_owned()
    } else {
        format!(
            "LEDGER MISMATCH: {} acknowledged operations missing or different, {} entries nobody acknowledged, {} operations unanswered",
            f.ledger_missing, f.ledger_extra, f.unanswered
        )
    };
    vec![format!(
        "Replica r1 of {} SIGKILLed after {:.1} s of keyed load ({} clients): first client error {} after the kill, HAProxy marked it down {} after, last failed attempt {} after, last retried operation answered {} after; {} operations acknowledged, {} retried with their key; {} ({} of {} found).",
        f.replicas,
        f.load_before_kill_s,
        f.clients,
        ms(f.first_error_ms),
        ms(f.marked_down_ms),
        ms(f.last_error_ms),
        ms(f.recovered_ms),
        f.acked,
        f.retried,
        verdict,
        f.ledger_found,
        f.acked
    )]
}

fn pg_findings(results: &Results, p: Option<&PgRestart>) -> Vec<String> {
    let Some(p) = p else {
        return vec!["The PostgreSQL restart part did not run (see Problems).".to_owned()];
    };
    let mut out = Vec::new();
    let kinds = if p.probe_failures.is_empty() {
        "no probe call failed".to_owned()
    } else {
        p.probe_failures
            .iter()
            .map(|(l, n)| format!("{n} × {l}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    out.push(format!(
        "PostgreSQL restarted (`pg_ctl restart -m fast`, {:.2} s) {:.1} s into a 16-connection credit load: probe calls failed with {kinds}, the slowest failure in {}; first failure {} s, answered again {} s after the restart began.",
        p.restart_took_s,
        p.restart_at_s,
        ms(p.probe_slowest_failure_ms),
        p.first_failure_s.map(|v| format!("{v:.2}")).unwrap_or_else(|| "–".to_owned()),
        p.recovered_s.map(|v| format!("{v:.2}")).unwrap_or_else(|| "never".to_owned()),
    ));
    if let Some(r) = run(results, "pg-restart", PlacementKind::CrossCpu) {
        let secs: Vec<String> = r
            .timeline
            .iter()
            .map(|s| format!("{}/{}", s.ok, s.errors))
            .collect();
        out.push(format!(
            "The load's answers/errors per second: {} ({} answers, {} errors in all).",
            secs.join(", "),
            r.ok,
            r.errors
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bend_is_where_one_more_replica_gains_under_ten_percent() {
        assert_eq!(bend(&[(1, 1000.0), (2, 1800.0), (3, 1850.0)]), Some(2));
        assert_eq!(bend(&[(1, 1000.0), (2, 1050.0), (3, 1900.0)]), Some(1));
        assert_eq!(bend(&[(1, 1000.0), (2, 1800.0), (3, 2500.0)]), None);
        assert_eq!(bend(&[(1, 1000.0)]), None);
    }

    #[test]
    fn throughput_and_hop_are_drawn_from_the_runs() {
        use crate::report::tests::run;
        let mut r = crate::report::tests::sample();
        r.experiments.push(EXP.to_owned());
        r.cluster = Some(ClusterRecord::default());
        // p50 100 µs → 9,091/s; 2 replicas 95 µs (+5 %: bent), 3 replicas 50 µs.
        for (n, p50) in [(1, 100.0), (2, 95.0), (3, 50.0)] {
            for op in ["creditControl", "credit"] {
                let op = format!("{op}@{n}");
                r.runs
                    .push(run("soapstone", EXP, &op, PlacementKind::CrossCpu, p50));
            }
        }
        for (kind, d, h) in [
            (PlacementKind::SameCpu, 40.0, 80.0),
            (PlacementKind::CrossCpu, 80.0, 120.0),
        ] {
            r.runs.push(run("soapstone", EXP, "hop-direct", kind, d));
            r.runs.push(run("soapstone", EXP, "hop-haproxy", kind, h));
        }
        let s = section(&r);
        let f = s.findings.join("\n");
        assert!(f.contains("9,091 answers/s with 1 replica, 18,182 with 3 replicas (×2.00); it bends after 1 replica:"), "{f}");
        assert!(f.contains("The balancer hop (same CPU): 80.0 µs through HAProxy against 40.0 µs direct at p50, ×2.00"), "{f}");
        assert!(
            f.contains("(cross-CPU): 120 µs through HAProxy against 80.0 µs direct at p50, ×1.50"),
            "{f}"
        );
        assert_eq!(s.tables[0].rows[1].cells[1], "9,091");
    }

    #[test]
    fn not_run_is_said_with_the_reason() {
        let mut r = crate::report::tests::sample();
        r.experiments.push(EXP.to_owned());
        r.cluster = Some(ClusterRecord {
            not_run: Some("haproxy is not installed (apt-get install haproxy)".to_owned()),
            ..ClusterRecord::default()
        });
        let s = section(&r);
        assert!(s.tables.is_empty());
        assert!(
            s.findings[0].contains("Not run: haproxy is not installed"),
            "{:?}",
            s.findings
        );
    }

    #[test]
    fn a_ledger_mismatch_is_loud() {
        let f = Failover {
            replicas: 2,
            acked: 10,
            ledger_found: 9,
            ledger_missing: 1,
            ..Failover::default()
        };
        let t = &failover_findings(Some(&f))[0];
        assert!(t.contains("LEDGER MISMATCH: 1 acknowledged"), "{t}");
        let ok = Failover {
            acked: 10,
            ledger_found: 10,
            marked_down_ms: Some(512.0),
            ..f
        };
        let ok = Failover {
            ledger_missing: 0,
            ..ok
        };
        let t = &failover_findings(Some(&ok))[0];
        assert!(
            t.contains("once and nothing else") && t.contains("down 512 ms after"),
            "{t}"
        );
    }

    #[test]
    fn missing_runs_are_failed_cells_not_numbers() {
        let mut r = crate::report::tests::sample();
        r.experiments.push(EXP.to_owned());
        r.cluster = Some(ClusterRecord::default());
        let s = section(&r);
        let cells: Vec<&String> = s.tables[0].rows.iter().flat_map(|r| &r.cells).collect();
        assert!(cells.iter().any(|c| *c == "[failed]"));
        assert!(s
            .findings
            .iter()
            .any(|f| f.contains("failover part did not run")));
    }
}
