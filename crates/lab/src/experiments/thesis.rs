//! Elfwing and Paulsson (seed 000, 2002), Tables 1 and 2: the response time of the charging
//! system's calls, measured by one sequential client while load generators run one of four
//! patterns: none, stress (5 connections back to back), peak (1 s bursts at full speed, burst
//! starts Poisson with a 2 s mean gap) and traffic (Poisson arrivals).
//!
//! Which calls: all of the tables' charging calls, each its own point. `creditControl` (a read)
//! and `credit` (a durable write) repeat one fixed body; `directDebit` and `reserve` rotate over
//! 2,000 accounts each with amount 3 (no account is drained); `confirmAction` rotates over the
//! transaction numbers of 50 reservations made at start; `debitReservation` and `releaseRes`
//! use each id of a pool of reservations made (plain HTTP, appendix C.1) before the point once,
//! sized from the window and the fastest durable write measured unloaded on the same placement
//! (`credit`, `directDebit`, `reserve`; an fsync's time varies tenfold between points, so one
//! write's rate is not the next one's). A point that sent as many calls as its pool held ran out
//! (its faults are the lab's): it is dropped, measured again once with a pool sized from its own
//! rate, and dropped with a problem if it runs out again, never reported with faults the lab
//! caused. In `--quick` only `creditControl` and `credit` run under the loads.
//! The load generators send `credit` (writes contend with the measured calls for the store). Traffic is 200 calls/s: the thesis's CORBA rate (its SOAP rate of 10/s was
//! what Tomcat could take). The server runs on the server CPU; load generators on the other CPU.
//!
//! The same two calls on the peers that carry the charging system are in [`super::thesis_peers`],
//! the redrawn Tables 1 and 2 and Fig 15 in [`super::thesis_report`].
//!
//! Must never report the load generators' own latency as the measured client's.

use std::path::PathBuf;
use std::time::Duration;

use crate::driver::{self, BenchSpec, Load};
use crate::experiments::{charging_calls as calls, thesis_pool as pool, Lab};
use crate::report::suspect::cell_pair;
use crate::report::{fmt, pair, Row, Section, Table};
use crate::results::{PlacementKind, Results};

const EXP: &str = "thesis";
/// Background loads, as in the thesis's tables.
pub(crate) const LOADS: [&str; 4] = ["none", "stress", "peak", "traffic"];
/// Calls measured: (operation, appendix C body).
pub(crate) const OPS: [(&str, &str); 2] = [("creditControl", CREDIT_CONTROL), ("credit", CREDIT)];

/// Appendix C.4 of the thesis.
pub(crate) const CREDIT_CONTROL: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<SOAP-ENV:Envelope SOAP-ENV:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"
  xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/"
  xmlns:xsd="http://www.w3.org/2001/XMLSchema"
  xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
  xmlns:SOAP-ENC="http://schemas.xmlsoap.org/soap/encoding/">
  <SOAP-ENV:Body>
    <creditControl>
      <id xsi:type="xsd:int">6</id>
    </creditControl>
  </SOAP-ENV:Body>
</SOAP-ENV:Envelope>
"#;

/// Appendix C.5 of the thesis.
pub(crate) const CREDIT: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<SOAP-ENV:Envelope SOAP-ENV:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"
  xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/"
  xmlns:xsd="http://www.w3.org/2001/XMLSchema"
  xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
  xmlns:SOAP-ENC="http://schemas.xmlsoap.org/soap/encoding/">
  <SOAP-ENV:Body>
    <credit>
      <id xsi:type="xsd:int">8</id>
      <am xsi:type="xsd:int">147</am>
    </credit>
  </SOAP-ENV:Body>
</SOAP-ENV:Envelope>
"#;

/// The background load of one pattern, lasting `d`.
pub(crate) fn background(name: &str, d: Duration) -> Load {
    match name {
        "stress" => Load::Pattern {
            pattern: "stress",
            duration: d,
            connections: Some(5),
            rate: None,
        },
        "peak" => Load::Pattern {
            pattern: "peak",
            duration: d,
            connections: Some(5),
            rate: None,
        },
        _ => Load::Pattern {
            pattern: "traffic",
            duration: d,
            connections: Some(5),
            rate: Some(200.0),
        },
    }
}

/// How one operation's bodies are made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Bodies {
    /// One fixed envelope, valid when repeated.
    Fixed(&'static str),
    /// A directory written once per run, rotated over (accounts, or transaction numbers).
    Rotating,
    /// A directory of fresh reservations written before each point, each used once.
    Pool,
}

/// The operation of the thesis's tables measured, in order, and how its bodies are made.
const ALL: [(&str, Bodies); 7] = [
    ("creditControl", Bodies::Fixed(CREDIT_CONTROL)),
    ("credit", Bodies::Fixed(CREDIT)),
    ("directDebit", Bodies::Rotating),
    ("reserve", Bodies::Rotating),
    ("confirmAction", Bodies::Rotating),
    ("debitReservation", Bodies::Pool),
    ("releaseRes", Bodies::Pool),
];

/// The operations measured under `load`: all of them, except in `--quick` where the loaded
/// points keep to [`OPS`] (the quick run's time budget).
fn ops_under(quick: bool, load: &str) -> Vec<(&'static str, Bodies)> {
    ALL.iter()
        .copied()
        .filter(|(op, _)| !quick || load == "none" || OPS.iter().any(|(o, _)| o == op))
        .collect()
}

/// One bench point's spec posting `body` (a file or a directory of `bytes`-sized envelopes).
pub(crate) fn point(
    url: &str,
    t: &crate::config::Timing,
    body: PathBuf,
    bytes: Option<u64>,
) -> BenchSpec {
    let mut spec = BenchSpec::sequential(url.to_owned(), t.thesis_window, t.warmup).with_body(body);
    if bytes.is_some() {
        spec.request_bytes = bytes;
    }
    spec
}

pub(crate) async fn run(lab: &mut Lab) -> anyhow::Result<()> {
    let t = lab.cfg.timing.clone();
    let quick = lab.cfg.quick;
    let pins = lab.pins();
    let load_cpu = lab.load_cpu();
    let server = lab.serve(&["charging"]).await?;
    let url = format!("{}/charging", server.base_url());
    let mut fixed = Vec::new();
    for (op, text) in OPS {
        fixed.push((op, lab.body(&format!("charging-{op}.xml"), text)?));
    }
    let load_body = fixed[1].1.clone();
    // Rotating bodies: debits and reservations over many accounts; confirmations of the
    // transaction numbers of a few reservations made now.
    let mut rotating = Vec::new();
    let confirmable = match calls::reserve_pool(&url, 50, 0).await {
        Ok(pool) => pool
            .iter()
            .map(|r| calls::envelope("confirmAction", &[("cn", r.res)]))
            .collect(),
        Err(e) => {
            lab.problem(format!(
                "thesis: no transaction to confirm, confirmAction is not measured: {e:#}"
            ));
            Vec::new()
        }
    };
    for (op, bodies) in [
        (
            "directDebit",
            calls::per_account("directDebit", calls::DEBIT_ACCOUNTS),
        ),
        (
            "reserve",
            calls::per_account("reserve", calls::RESERVE_ACCOUNTS),
        ),
        ("confirmAction", confirmable),
    ] {
        if bodies.is_empty() {
            continue;
        }
        let dir = calls::point_dir(&lab.bodies, op, "all");
        let bytes = calls::write_dir(&dir, &bodies)?;
        rotating.push((op, dir, bytes));
    }
    let settle = Duration::from_millis(300);
    let mut pool_start = 50;
    for pin in &pins {
        for load in LOADS {
            let ops = ops_under(quick, load);
            let placement = pin.placement(
                Some(&load_cpu)
                    .filter(|_| load != "none")
                    .map(|s| s.as_str()),
            );
            let tag = format!("{}-{load}", placement.kind.label().replace(' ', "-"));
            // Reservations for this point are made before the background load starts, sized
            // from the unloaded `reserve` point of this placement (the fastest window).
            let mut pools: Vec<pool::Pool> = Vec::new();
            let needs_pool = ops.iter().any(|(_, b)| *b == Bodies::Pool);
            if needs_pool && load != "none" {
                let n = pool::pool_need(lab, pin.kind, &t);
                pools = pool::make_pools(lab, &url, n, &mut pool_start, &tag).await;
            }
            // The load runs through every measured point plus a margin for process start-up.
            let span = (t.thesis_window + t.warmup + Duration::from_millis(400)) * ops.len() as u32
                + settle
                + Duration::from_secs(1);
            let bg = if load == "none" {
                None
            } else {
                let mut spec = BenchSpec::sequential(url.clone(), span, Duration::ZERO)
                    .with_body(load_body.clone());
                spec.load = background(load, span);
                spec.background = Some(load.to_owned());
                match driver::start(&lab.launcher, Some(&load_cpu), &spec) {
                    Ok(running) => Some((running, spec)),
                    Err(e) => {
                        lab.problem(format!("thesis: the {load} load did not start: {e:#}"));
                        continue;
                    }
                }
            };
            if bg.is_some() {
                tokio::time::sleep(settle).await;
            }
            for (op, kind) in ops {
                let source = match kind {
                    Bodies::Fixed(_) => fixed
                        .iter()
                        .find(|(o, _)| *o == op)
                        .map(|(_, p)| (p.clone(), None)),
                    Bodies::Rotating => rotating
                        .iter()
                        .find(|(o, _, _)| *o == op)
                        .map(|(_, d, b)| (d.clone(), Some(*b))),
                    Bodies::Pool => {
                        if pools.is_empty() && load == "none" {
                            let n = pool::pool_need(lab, pin.kind, &t);
                            pools = pool::make_pools(lab, &url, n, &mut pool_start, &tag).await;
                        }
                        pools
                            .iter()
                            .find(|p| p.op == op)
                            .map(|p| (p.dir.clone(), Some(p.bytes)))
                    }
                };
                let Some((body, bytes)) = source else {
                    continue;
                };
                let mut spec = point(&url, &t, body, bytes);
                spec.background = Some(load.to_owned());
                let problems = lab.problems.len();
                let at = lab
                    .measure(("soapstone", EXP, op), placement.clone(), &spec)
                    .await;
                if kind == Bodies::Pool {
                    let held = pools.iter().find(|p| p.op == op).map_or(0, |p| p.n);
                    let label = format!("{op} ({}, {load} load)", placement.kind.label());
                    let m = pool::Measured {
                        op,
                        placement: placement.clone(),
                        at,
                        problems,
                        held,
                        label: &label,
                    };
                    pool::remeasure_if_overrun(lab, &url, m, &mut pool_start, &tag, &spec).await;
                }
            }
            if let Some((running, spec)) = bg {
                match running.finish().await {
                    Ok(outcome) => {
                        let run = outcome.into_run(
                            "soapstone",
                            EXP,
                            &format!("background/{load}"),
                            pin.placement(Some(&load_cpu)),
                            &spec,
                        );
                        lab.runs.push(run);
                    }
                    Err(e) => lab.problem(format!("thesis: the {load} load failed: {e:#}")),
                }
            }
        }
    }
    server.stop().await?;
    // The same calls on the peers that carry the charging system (Axis 1.4, omniORB, JacORB,
    // Java RMI).
    super::thesis_peers::run(lab).await;
    Ok(())
}

fn pooled_at(results: &Results, load: &str, p: PlacementKind) -> Option<(f64, Option<f64>)> {
    super::thesis_report::pooled_at(results, "soapstone", None, load, p)
}

pub(crate) fn section(results: &Results) -> Section {
    let [table_1, table_2] = super::thesis_report::tables_1_and_2(results);
    let fig_15 = super::thesis_report::fig_15(results);
    let mut per_op_rows = Vec::new();
    for (op, _) in ALL {
        let mut cells = vec![op.to_owned()];
        for load in LOADS {
            let get = |p| results.get_with_background(EXP, "soapstone", op, p, load);
            // Flagged like every other cell: a suspect point's mean is not a result either.
            cells.push(cell_pair(
                [get(PlacementKind::SameCpu), get(PlacementKind::CrossCpu)],
                |r| r.mean_us,
                fmt::us,
            ));
        }
        per_op_rows.push(Row::today(cells));
    }
    let per_op = Table {
        title: "Per call: mean response time under each load".to_owned(),
        source: String::new(),
        note: "µs; each cell `same CPU / cross-CPU`; – = not measured (in `--quick` the calls \
               beyond creditControl and credit run without background load only). The thesis \
               published one figure per load over all calls (table above), none per call. \
               directDebit and reserve rotate over 2,000 accounts each; confirmAction over \
               50 transaction numbers; debitReservation and releaseRes use each of a pool of \
               reservations made before the point once. "
            .to_owned()
            + crate::report::suspect::MARK_NOTE,
        // The unit in every header, as in every other table.
        header: std::iter::once("call".to_owned())
            .chain(LOADS.iter().map(|l| format!("{l}: mean (µs)")))
            .collect(),
        rows: per_op_rows,
    };
    let mut detail_rows = Vec::new();
    for (op, _) in ALL {
        for load in LOADS {
            let get = |p| results.get_with_background(EXP, "soapstone", op, p, load);
            let (a, b) = (get(PlacementKind::SameCpu), get(PlacementKind::CrossCpu));
            if a.is_none() && b.is_none() && load != "none" {
                continue; // not measured under this load (`--quick`)
            }
            detail_rows.push(Row::today(vec![
                format!("{op}, {load}"),
                cell_pair([a, b], |r| r.p50_us, fmt::us),
                cell_pair([a, b], |r| r.p99_us, fmt::us),
                pair(
                    a.map(|r| (r.errors + r.timeouts) as f64),
                    b.map(|r| (r.errors + r.timeouts) as f64),
                    fmt::count,
                ),
            ]));
        }
    }
    let detail = Table {
        title: "Per call: median and 99th percentile under each load".to_owned(),
        source: String::new(),
        note: "µs; each cell `same CPU / cross-CPU`. errors counts faults, HTTP errors and \
               timeouts of the measured client. "
            .to_owned()
            + crate::report::suspect::MARK_NOTE,
        header: vec![
            "call, background".to_owned(),
            "p50 (µs)".to_owned(),
            "p99 (µs)".to_owned(),
            "errors".to_owned(),
        ],
        rows: detail_rows,
    };
    let mut findings = Vec::new();
    if let (Some((none, _)), Some((stress, _))) = (
        pooled_at(results, "none", PlacementKind::SameCpu),
        pooled_at(results, "stress", PlacementKind::SameCpu),
    ) {
        findings.push(format!(
            "With client and server on one CPU, the mean call under stress is {} the unloaded \
             one ({} vs {} µs); the thesis saw ×1.93 for CORBA and ×1.10 for SOAP.",
            fmt::ratio(stress / none),
            fmt::us(stress),
            fmt::us(none)
        ));
    }
    if let Some((none, _)) = pooled_at(results, "none", PlacementKind::SameCpu) {
        // One way round: "×N faster" or "×N slower", N ≥ 1.
        let versus = |then_us: f64| {
            let r = then_us / none;
            if r >= 1.0 {
                format!("{} faster", fmt::ratio(r))
            } else {
                format!("{} slower", fmt::ratio(1.0 / r))
            }
        };
        findings.push(format!(
            "Unloaded, a charging call takes {} µs against 679.2 ms for SOAP and 1.63 ms for \
             CORBA in 2002 ({} and {}).",
            fmt::us(none),
            versus(679_200.0),
            versus(1630.0)
        ));
    }
    let credit = |load| {
        results
            .get_with_background(EXP, "soapstone", "credit", PlacementKind::SameCpu, load)
            .map(|r| r.mean_us)
    };
    if let (Some(idle), Some(busy)) = (credit("none"), credit("stress")) {
        if idle > 2.0 * busy {
            findings.push(format!(
                "The durable write is slower unloaded than under stress (credit: {} vs {} µs, \
                 same CPU), on every system: its commit waits for an fsync, and on this VM an \
                 fsync returns in milliseconds to an idle CPU but in about 0.1 ms to a busy one \
                 (docs/lab.md). Compare systems across a row, not loads down a column.",
                fmt::us(idle),
                fmt::us(busy)
            ));
        }
    }
    let peers: Vec<String> = ["omniorb", "jacorb", "java-rmi", "axis1"]
        .iter()
        .filter_map(|id| {
            let m =
                super::thesis_report::pooled_at(results, id, None, "none", PlacementKind::SameCpu)?;
            let name = results
                .systems
                .iter()
                .find(|s| s.id == *id)
                .map_or(*id, |s| s.name.as_str());
            Some(format!("{name} {} µs", fmt::us(m.0)))
        })
        .collect();
    if let (false, Some((none, _))) = (
        peers.is_empty(),
        pooled_at(results, "none", PlacementKind::SameCpu),
    ) {
        findings.push(format!(
            "Unloaded, with client and server on one CPU, the same two calls on today's peers \
             take: {}; soapstone {} µs.",
            peers.join(", "),
            fmt::us(none)
        ));
    }
    Section {
        id: EXP.to_owned(),
        title: "Charging calls under load (Elfwing & Paulsson 2002)".to_owned(),
        intro: "The thesis's charging service (SQLite store) answers one sequential client \
                while load generators run the thesis's patterns: none; stress = 5 connections \
                sending back to back; peak = 1 s bursts at full speed from 5 connections, burst \
                starts Poisson with a mean gap of 2 s; traffic = Poisson arrivals at 200 calls/s \
                (the thesis's CORBA rate). The client repeats appendix C's creditControl (read) \
                and credit (durable write) envelopes, and the other charging calls with bodies \
                rotated over accounts and fresh reservations; the generators send credit. \
                The peers that carry the charging system (Axis 1.4 over SOAP, omniORB and \
                JacORB over CORBA, Java RMI, each on its own SQLite file with a commit per \
                write) answer \
                the same creditControl and credit calls under the same loads, in the same run \
                (Tables 1 and 2); Fig 15 pairs every client with every server it can call."
            .to_owned(),
        findings,
        tables: vec![table_1, table_2, fig_15, per_op, detail],
        charts: Vec::new(),
    }
}
