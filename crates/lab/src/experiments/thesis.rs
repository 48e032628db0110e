//! Elfwing and Paulsson (seed 000, 2002), Tables 1 and 2: the response time of the charging
//! system's calls, measured by one sequential client while load generators run one of four
//! patterns: none, stress (5 connections back to back), peak (1 s bursts at full speed, burst
//! starts Poisson with a 2 s mean gap) and traffic (Poisson arrivals).
//!
//! Which calls: a fixed request body is posted again and again, so only calls that stay valid
//! when repeated are measured: `creditControl` (a read) and `credit` (a durable write; the balance
//! grows by 147 per call, far below the `xsd:int` limit in any lab run). `reserve`, `directDebit`
//! and the calls that consume a reservation would drain the account or fault on the second call
//! with the same body. The load generators send `credit` (writes contend with the measured calls
//! for the store). Traffic is 200 calls/s: the thesis's CORBA rate (its SOAP rate of 10/s was
//! what Tomcat could take). The server runs on the server CPU; load generators on the other CPU.
//!
//! Must never report the load generators' own latency as the measured client's.

use std::time::Duration;

use crate::driver::{self, BenchSpec, Load};
use crate::experiments::Lab;
use crate::report::{fmt, pair, Row, Section, Table};
use crate::results::{PlacementKind, Results, Run};
use crate::seeds;

const EXP: &str = "thesis";
/// Background loads, as in the thesis's tables.
pub(crate) const LOADS: [&str; 4] = ["none", "stress", "peak", "traffic"];
/// Calls measured: (operation, appendix C body).
const OPS: [(&str, &str); 2] = [("creditControl", CREDIT_CONTROL), ("credit", CREDIT)];

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
fn background(name: &str, d: Duration) -> Load {
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

pub(crate) async fn run(lab: &mut Lab) -> anyhow::Result<()> {
    let t = lab.cfg.timing.clone();
    let pins = lab.pins();
    let load_cpu = lab.load_cpu();
    let server = lab.serve(&["charging"]).await?;
    let url = format!("{}/charging", server.base_url());
    let mut bodies = Vec::new();
    for (op, text) in OPS {
        bodies.push((op, lab.body(&format!("charging-{op}.xml"), text)?));
    }
    let load_body = bodies[1].1.clone();
    let settle = Duration::from_millis(300);
    for pin in &pins {
        for load in LOADS {
            // The load runs through every measured point plus a margin for process start-up.
            let span = (t.thesis_window + t.warmup + Duration::from_millis(400)) * OPS.len() as u32
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
            for (op, body) in &bodies {
                let mut spec = BenchSpec::sequential(url.clone(), t.thesis_window, t.warmup)
                    .with_body(body.clone());
                spec.background = Some(load.to_owned());
                lab.measure(
                    ("soapstone", EXP, op),
                    pin.placement(
                        Some(&load_cpu)
                            .filter(|_| load != "none")
                            .map(|s| s.as_str()),
                    ),
                    &spec,
                )
                .await;
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
    Ok(())
}

/// Mean and standard deviation over all measured calls of every operation (pooled), as the
/// thesis averaged "each SOAP call".
fn pooled(runs: &[&Run]) -> Option<(f64, Option<f64>)> {
    let n: f64 = runs.iter().map(|r| r.ok as f64).sum();
    if n <= 0.0 {
        return None;
    }
    let mean = runs.iter().map(|r| r.mean_us * r.ok as f64).sum::<f64>() / n;
    let var = runs
        .iter()
        .map(|r| {
            r.stdev_us
                .map(|s| r.ok as f64 * (s * s + (r.mean_us - mean).powi(2)))
        })
        .sum::<Option<f64>>()
        .map(|v| (v / n).sqrt());
    Some((mean, var))
}

fn pooled_at(results: &Results, load: &str, p: PlacementKind) -> Option<(f64, Option<f64>)> {
    let runs: Vec<&Run> = OPS
        .iter()
        .filter_map(|(op, _)| results.get_with_background(EXP, "soapstone", op, p, load))
        .collect();
    if runs.len() < OPS.len() {
        return None;
    }
    pooled(&runs)
}

fn mean_std(v: Option<(f64, Option<f64>)>) -> String {
    match v {
        Some((m, Some(s))) => format!("{} ± {}", fmt::us(m), fmt::us(s)),
        Some((m, None)) => fmt::us(m),
        None => "–".to_owned(),
    }
}

fn capital(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
        .unwrap_or_default()
}

pub(crate) fn section(results: &Results) -> Section {
    let corba = &seeds::THESIS_TABLE_1;
    let soap = &seeds::THESIS_TABLE_2;
    let mut rows = Vec::new();
    for load in LOADS {
        let label = capital(load);
        let c = corba.rows.iter().find(|r| r.label == label);
        let s = soap.rows.iter().find(|r| r.label == label);
        let bg = |p| {
            results
                .get(EXP, "soapstone", &format!("background/{load}"), p)
                .map(|r| r.throughput_rps)
        };
        rows.push(Row::today(vec![
            label.clone(),
            c.map(|r| format!("{} ± {}", fmt::ms(r.values[0]), fmt::ms(r.values[1])))
                .unwrap_or_default(),
            s.map(|r| format!("{} ± {}", fmt::ms(r.values[0]), fmt::ms(r.values[1])))
                .unwrap_or_default(),
            mean_std(pooled_at(results, load, PlacementKind::SameCpu)),
            mean_std(pooled_at(results, load, PlacementKind::CrossCpu)),
            if load == "none" {
                "0".to_owned()
            } else {
                pair(
                    bg(PlacementKind::SameCpu),
                    bg(PlacementKind::CrossCpu),
                    fmt::count,
                )
            },
        ]));
    }
    let main = Table {
        title: "Tables 1 and 2: response time per call under background load".to_owned(),
        source: format!(
            "{} (CORBA) and {} (SOAP, Apache Axis beta 1)",
            corba.source, soap.source
        ),
        note: "2002: ms, average ± standard deviation per call, over a 100 Mbps LAN. Today: µs, \
               mean ± standard deviation over every creditControl and credit call of the one \
               sequential client, on loopback; same CPU = client on the server's CPU, cross-CPU = \
               client on the other CPU (the load generators always run on the other CPU). The \
               last column is the rate the load generators achieved (same CPU / cross-CPU runs)."
            .to_owned(),
        header: vec![
            "interference".to_owned(),
            "2002 CORBA (ms)".to_owned(),
            "2002 SOAP (ms)".to_owned(),
            "today soapstone, same CPU (µs)".to_owned(),
            "today soapstone, cross-CPU (µs)".to_owned(),
            "background load (calls/s)".to_owned(),
        ],
        rows,
    };
    let mut detail_rows = Vec::new();
    for (op, _) in OPS {
        for load in LOADS {
            let get = |p| results.get_with_background(EXP, "soapstone", op, p, load);
            let (a, b) = (get(PlacementKind::SameCpu), get(PlacementKind::CrossCpu));
            detail_rows.push(Row::today(vec![
                format!("{op}, {load}"),
                pair(a.map(|r| r.p50_us), b.map(|r| r.p50_us), fmt::us),
                pair(a.map(|r| r.p99_us), b.map(|r| r.p99_us), fmt::us),
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
               timeouts of the measured client."
            .to_owned(),
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
            "With client and server on one CPU, stress makes the mean call {:.2} times the \
             unloaded one ({} vs {} µs); the thesis saw 1.93 times for CORBA and 1.10 for SOAP.",
            stress / none,
            fmt::us(stress),
            fmt::us(none)
        ));
    }
    if let Some((none, _)) = pooled_at(results, "none", PlacementKind::SameCpu) {
        findings.push(format!(
            "Unloaded, a charging call takes {} µs against 679.2 ms for SOAP and 1.63 ms for \
             CORBA in 2002 ({} and {} faster).",
            fmt::us(none),
            fmt::ratio(679_200.0 / none),
            fmt::ratio(1630.0 / none)
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
                and credit (durable write) envelopes; the generators send credit."
            .to_owned(),
        findings,
        tables: vec![main, detail],
        charts: Vec::new(),
    }
}
