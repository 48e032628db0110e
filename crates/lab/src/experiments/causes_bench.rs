//! Throughput under each client cause (issue 13): `soapstone bench --naive CAUSES` against the
//! cured server on loopback, a few closed-loop connections, echoFloat; then the table of the
//! causes section that reads those runs.
//!
//! The traces of [`super::causes`] time one call at a time; a cause's cost under load (a
//! handshake per call, a FIN to wait for, a `100 Continue` round trip) is a rate, measured by
//! the load generator with the same causes (`crates/bench/src/conn/naive.rs`). Cured and each
//! cause run back to back in one lab run, so the table's ratios compare like with like. This
//! module must never report a cause's rate without the cured rate of the same run beside it.

use super::causes::EXP;
use super::echo::RUBY_REQUEST;
use super::Lab;
use crate::driver::{BenchSpec, Load};
use crate::procs::Server;
use crate::report::{fmt, Row, Table};
use crate::results::{Results, Run};

/// The client's causes the bench runs with: id, `--naive` list, label. `cured` first.
pub(crate) const CLIENT_MODES: &[(&str, Option<&str>, &str)] = &[
    ("cured", None, "cured (soapstone bench as shipped)"),
    ("read-to-eof", Some("read-to-eof"), "client: reads to EOF"),
    (
        "connection-per-call",
        Some("connection-per-call"),
        "client: a connection per call (HTTP/1.0)",
    ),
    (
        "expect-continue",
        Some("expect-continue"),
        "client: Expect: 100-continue",
    ),
    ("all", Some("all"), "all three client causes"),
];

/// Closed-loop connections of each point: more than one, so that a connection's stall leaves
/// the others working, as a pooled client's would.
pub(crate) const CONNECTIONS: u32 = 4;

/// The operation id of a bench point.
pub(crate) fn operation(id: &str) -> String {
    format!("bench-echoFloat/{id}")
}

/// Every client mode against `server` (the cured one), cross-CPU where there are two CPUs.
pub(crate) async fn run(lab: &mut Lab, server: &Server) {
    let t = lab.cfg.timing.clone();
    let Some(pin) = lab.pins().pop() else {
        return;
    };
    let body = match lab.body("causes-bench-echoFloat.xml", RUBY_REQUEST) {
        Ok(b) => b,
        Err(e) => {
            lab.problem(format!("{EXP}: {e:#}"));
            return;
        }
    };
    for (id, causes, _) in CLIENT_MODES {
        let mut spec = BenchSpec::sequential(
            format!("{}/echo", server.base_url()),
            t.latency_window,
            t.warmup,
        )
        .with_body(body.clone());
        // Half a latency window each (0.3 s in `--quick`): five points in the section's minute.
        spec.load = Load::Closed {
            connections: CONNECTIONS,
            duration: t.latency_window / 2,
            warmup: t.warmup / 2,
        };
        spec.action = Some("http://tempuri.org/echoFloat".to_owned());
        if let Some(c) = causes {
            spec.extra = vec!["--naive".to_owned(), (*c).to_owned()];
        }
        lab.measure(
            ("soapstone", EXP, &operation(id)),
            pin.placement(None),
            &spec,
        )
        .await;
    }
}

/// A share of the cured rate: `×0.25`, and with its first significant digits below 1%
/// (`×0.0030`), so that a cause that all but stops the calls does not read as `×0.00`.
fn share(x: f64) -> String {
    if x > 0.0 && x < 0.01 {
        format!("×{x:.4}")
    } else {
        fmt::ratio(x)
    }
}

fn run_of<'a>(results: &'a Results, id: &str) -> Option<&'a Run> {
    let op = operation(id);
    results
        .runs
        .iter()
        .find(|r| r.experiment == EXP && r.operation == op)
}

/// The throughput table, if the bench points ran; and one finding per cause.
pub(crate) fn table(results: &Results, findings: &mut Vec<String>) -> Option<Table> {
    let cured = run_of(results, "cured")?;
    let mut rows = vec![Row::group(format!(
        "today: soapstone bench, {CONNECTIONS} connections in closed loop, echoFloat, the cured \
         server on loopback ({})",
        cured.settings.placement.kind.label()
    ))];
    let mut said = Vec::new();
    for (id, _, label) in CLIENT_MODES {
        let Some(r) = run_of(results, id) else {
            continue;
        };
        let x = r.throughput_rps / cured.throughput_rps;
        rows.push(Row::today(vec![
            (*label).to_owned(),
            fmt::count(r.throughput_rps),
            share(x),
            super::causes_report::rt(r.p50_us),
            fmt::ratio(r.p50_us / cured.p50_us),
            r.ok.to_string(),
        ]));
        if *id != "cured" {
            said.push(format!("{id} {}", share(x)));
        }
    }
    if !said.is_empty() {
        findings.push(format!(
            "Throughput under each client cause (`soapstone bench --naive`, {CONNECTIONS} \
             connections): cured {} calls/s; as a share of it: {}.",
            fmt::count(cured.throughput_rps),
            said.join(", ")
        ));
    }
    Some(Table {
        title: "Throughput under each client cause (soapstone bench --naive)".into(),
        source: String::new(),
        note: format!(
            "Each row one `soapstone bench` run of the same window, back to back in this lab \
             run; × cured is its rate (or median) over the cured run's. The command of each is \
             in `results.json` (`runs[].settings.command`): the cured one is `{}`, the others \
             add `--naive CAUSES`.",
            cured
                .settings
                .command
                .as_deref()
                .unwrap_or("soapstone bench ...")
        ),
        header: ["client", "calls/s", "× cured", "median", "× cured", "calls"]
            .map(str::to_owned)
            .to_vec(),
        rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::tests::sample;

    #[test]
    fn each_cause_is_read_against_the_cured_rate_of_the_same_run() {
        let mut r = sample();
        let mut findings = Vec::new();
        assert!(table(&r, &mut findings).is_none());
        for (id, rps, p50) in [
            ("cured", 8000.0, 400.0),
            ("connection-per-call", 2000.0, 1600.0),
        ] {
            let mut run = r.runs[0].clone();
            run.experiment = EXP.into();
            run.operation = operation(id);
            run.throughput_rps = rps;
            run.p50_us = p50;
            r.runs.push(run);
        }
        let t = table(&r, &mut findings).unwrap();
        let per_call = t
            .rows
            .iter()
            .find(|r| r.cells[0].contains("connection per call"))
            .unwrap();
        assert_eq!(per_call.cells[1..5], ["2,000", "×0.25", "1.6 ms", "×4.00"]);
        assert!(
            findings[0].contains("connection-per-call ×0.25"),
            "{findings:?}"
        );
        assert_eq!(share(20.0 / 6682.0), "×0.0030");
        // No row for a cause that did not run.
        assert!(!t.rows.iter().any(|r| r.cells[0].contains("EOF")));
    }
}
