//! Sam Ruby's echoFloat test (seed 002, 2001): messages per second with one client, each request
//! fully processed before the next, on soapstone and on three baselines carrying the same call:
//! raw TCP ping-pong with the same byte counts (the floor), gRPC `EchoFloat`, and an HTTP server
//! that answers the same POST with an empty 200; then on the peer servers that carry echoFloat
//! ([`super::echo_peers`]). These runs feed the report's headline.
//!
//! The soapstone point runs first; the ping-pong baseline then sends and receives exactly as many
//! bytes per call as soapstone did on the wire (HTTP headers included), as the bench measured.
//! Must never compare systems measured with different placements or windows.

use crate::driver::BenchSpec;
use crate::experiments::{Lab, Pin};
use crate::report::svg::{LineChart, LineSeries};
use crate::report::{fmt, pair, Row, Section, Table};
use crate::results::{PlacementKind, Results};
use crate::seeds;

/// Ruby's request, as printed in the seed (whitespace kept).
pub(crate) const RUBY_REQUEST: &str = r#"<?xml version="1.0"?>
<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:soapenc="http://schemas.xmlsoap.org/soap/encoding/" xmlns:xsi="http://www.w3.org/1999/XMLSchema-instance" xmlns:xsd="http://www.w3.org/1999/XMLSchema">
<soap:Body>
<echoFloat xmlns="http://tempuri.org/">
<input xsi:type="xsd:float">3.14159</input>
</echoFloat>
</soap:Body>
</soap:Envelope>
"#;

/// Ruby's response, as printed in the seed (used by the parse experiment).
pub(crate) const RUBY_RESPONSE: &str = r#"<?xml version="1.0"?>
<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:soapenc="http://schemas.xmlsoap.org/soap/encoding/" xmlns:xsi="http://www.w3.org/1999/XMLSchema-instance" xmlns:xsd="http://www.w3.org/1999/XMLSchema">
<soap:Body>
<echoFloatResult xmlns="http://tempuri.org/">
<result>3.14159</result>
</echoFloatResult>
</soap:Body>
</soap:Envelope>
"#;

const EXP: &str = "echo";
const OP: &str = "echoFloat";

pub(crate) async fn run(lab: &mut Lab) -> anyhow::Result<()> {
    let t = lab.cfg.timing.clone();
    let body = lab.body("echoFloat.xml", RUBY_REQUEST)?;
    let pins = lab.pins();
    // soapstone
    let server = lab.serve(&["echo"]).await?;
    let url = format!("{}/echo", server.base_url());
    let mut wire: Option<(u64, u64)> = None;
    for pin in &pins {
        let spec =
            BenchSpec::sequential(url.clone(), t.echo_window, t.warmup).with_body(body.clone());
        if let Some(i) = lab
            .measure(("soapstone", EXP, OP), pin.placement(None), &spec)
            .await
        {
            let r = &lab.runs[i];
            if let (Some(s), Some(rcv)) = (r.bytes_sent, r.bytes_received) {
                let n = r.ok + r.errors;
                if n > 0 && wire.is_none() {
                    wire = Some((s / n, rcv / n));
                }
            }
        }
    }
    server.stop().await?;
    baselines(lab, &pins, &body, wire, t.echo_window, t.warmup).await?;
    super::echo_peers::run(lab).await;
    Ok(())
}

async fn baselines(
    lab: &mut Lab,
    pins: &[Pin],
    body: &std::path::Path,
    wire: Option<(u64, u64)>,
    window: std::time::Duration,
    warmup: std::time::Duration,
) -> anyhow::Result<()> {
    // tcp-pingpong: the same bytes each way as soapstone put on the wire.
    match wire {
        Some((req, resp)) => {
            let server = lab.pingpong(req, resp).await?;
            let payload = lab.body("echoFloat-pingpong.bin", &"x".repeat(req as usize))?;
            for pin in pins {
                let mut spec =
                    BenchSpec::sequential(format!("tcp://{}", server.addr), window, warmup)
                        .with_body(payload.clone());
                spec.extra = vec!["--response-size".into(), resp.to_string()];
                lab.measure(("tcp-pingpong", EXP, OP), pin.placement(None), &spec)
                    .await;
            }
            server.stop().await?;
        }
        None => lab.problem(
            "echo: tcp-pingpong skipped: the soapstone point did not report its bytes on the wire"
                .to_owned(),
        ),
    }
    let server = lab.baseline("grpc").await?;
    for pin in pins {
        let mut spec = BenchSpec::sequential(format!("grpc://{}", server.addr), window, warmup);
        spec.extra = vec!["--grpc-call".into(), "echo-float".into()];
        lab.measure(("grpc", EXP, OP), pin.placement(None), &spec)
            .await;
    }
    server.stop().await?;
    let server = lab.baseline("http-noop").await?;
    for pin in pins {
        let spec = BenchSpec::sequential(format!("{}/", server.base_url()), window, warmup)
            .with_body(body.to_owned());
        lab.measure(("http-noop", EXP, OP), pin.placement(None), &spec)
            .await;
    }
    server.stop().await?;
    Ok(())
}

/// Where soapstone's same-CPU rate stands among the peer SOAP servers of this run.
fn peers_finding(results: &Results, peers: &[(String, String)]) -> Option<String> {
    let rate = |sys: &str| {
        results
            .get(EXP, sys, OP, PlacementKind::SameCpu)
            .map(|r| r.throughput_rps)
    };
    let own = rate("soapstone")?;
    let mut measured: Vec<(&str, f64)> = peers
        .iter()
        .filter_map(|(id, _)| rate(id).map(|r| (id.as_str(), r)))
        .collect();
    measured.sort_by(|a, b| b.1.total_cmp(&a.1));
    let (fastest, slowest) = (measured.first()?, measured.last()?);
    Some(format!(
        "Among {} peer SOAP servers carrying the same call on one CPU, the fastest ({}) answers {} \
         per second and the slowest ({}) {}: soapstone's rate is {} the fastest peer's and {} \
         the slowest's.",
        measured.len(),
        fastest.0,
        fmt::count(fastest.1),
        slowest.0,
        fmt::count(slowest.1),
        fmt::ratio(own / fastest.1),
        fmt::ratio(own / slowest.1)
    ))
}

const SYSTEMS: &[(&str, &str)] = &[
    ("soapstone", "soapstone (SOAP 1.1, HTTP/1.1)"),
    ("tcp-pingpong", "tcp-pingpong (same bytes, raw TCP)"),
    ("grpc", "grpc (tonic EchoFloat)"),
    ("http-noop", "http-noop (same POST, empty reply)"),
];

pub(crate) fn section(results: &Results) -> Section {
    let ruby = &seeds::RUBY_ECHO;
    let mut rows = vec![Row::group(
        "published (Ruby 2001; Pentium III 550 MHz, JDK 1.3, Tomcat 3.3)",
    )];
    for r in ruby.rows {
        rows.push(Row::published(vec![
            r.label.to_owned(),
            fmt::ms(r.values[0]),
            fmt::count(r.values[1]),
            String::new(),
        ]));
    }
    rows.push(Row::group(
        "today: messages per second (same CPU / cross-CPU)",
    ));
    let mut lines = Vec::new();
    // The peer servers that carried echoFloat in this run, after soapstone and the baselines.
    let mut peers: Vec<(String, String)> = results
        .runs
        .iter()
        .filter(|r| r.experiment == EXP && !SYSTEMS.iter().any(|(s, _)| *s == r.system))
        .map(|r| {
            let name = results
                .systems
                .iter()
                .find(|s| s.id == r.system)
                .map(|s| s.name.clone())
                .unwrap_or_else(|| r.system.clone());
            (r.system.clone(), format!("{} ({name})", r.system))
        })
        .collect();
    peers.sort();
    peers.dedup();
    let all: Vec<(&str, &str)> = SYSTEMS
        .iter()
        .copied()
        .chain(peers.iter().map(|(a, b)| (a.as_str(), b.as_str())))
        .collect();
    for (sys, label) in all {
        let get = |p| results.get(EXP, sys, OP, p);
        let same = get(PlacementKind::SameCpu);
        let cross = get(PlacementKind::CrossCpu);
        rows.push(Row::today(vec![
            label.to_owned(),
            pair(
                same.map(|r| r.throughput_rps),
                cross.map(|r| r.throughput_rps),
                fmt::count,
            ),
            pair(
                same.map(|r| 1e6 / r.throughput_rps),
                cross.map(|r| 1e6 / r.throughput_rps),
                fmt::us,
            ),
            pair(same.map(|r| r.p99_us), cross.map(|r| r.p99_us), fmt::us),
        ]));
        if let Some(r) = same {
            if !r.percentiles.is_empty() {
                lines.push(LineSeries {
                    name: sys.to_owned(),
                    points: crate::report::suspect::plotted_percentiles(r),
                    ..Default::default()
                });
            }
        }
    }
    let mut findings = Vec::new();
    if let (Some(s), Some(axis)) = (
        results.get(EXP, "soapstone", OP, PlacementKind::SameCpu),
        ruby.value("Apache xml-axis", 0),
    ) {
        findings.push(format!(
            "soapstone answers {} echoFloat calls per second on one CPU, {} Apache Axis's 93.7 \
             in 2001 (a 550 MHz Pentium III then, one core of this VM now).",
            fmt::count(s.throughput_rps),
            fmt::ratio(s.throughput_rps / axis)
        ));
    }
    if let Some(f) = peers_finding(results, &peers) {
        findings.push(f);
    }
    let mut charts = Vec::new();
    if !lines.is_empty() {
        charts.push(
            LineChart {
                title: "echoFloat latency distribution, same CPU".to_owned(),
                x_label: "percentile".to_owned(),
                y_label: "round trip, µs".to_owned(),
                x_nines: true,
                y_log: true,
                series: lines,
            }
            .render(),
        );
    }
    Section {
        id: EXP.to_owned(),
        title: "echoFloat messages per second (Ruby 2001)".to_owned(),
        intro: "One client sends Sam Ruby's echoFloat envelope (seed 002, byte for byte) and \
                waits for each answer before sending the next; the count over the measured \
                window gives messages per second (Ruby counted 10 s after a 1 s warm-up). The \
                same calls go to three baselines: raw TCP ping-pong with soapstone's exact byte \
                counts per call, gRPC EchoFloat, and an HTTP server that answers the same POST \
                with an empty 200; and to every peer SOAP server that carries echoFloat (Axis2, \
                CXF, Mono ASMX, the Erlang stand-in, ...), its answer checked before timing."
            .to_owned(),
        findings,
        tables: vec![Table {
            title: "echoFloat, one client, request fully processed before the next".to_owned(),
            source: ruby.source.to_owned(),
            note: "Each today cell is `same CPU / cross-CPU`: client and server pinned to one \
                   CPU, then to two. µs per message = 1 / rate; p99 is the 99th-percentile \
                   round trip."
                .to_owned(),
            header: vec![
                "system".to_owned(),
                "messages per second".to_owned(),
                "µs per message".to_owned(),
                "p99 µs".to_owned(),
            ],
            rows,
        }],
        charts,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::tests::{run, sample};

    #[test]
    fn peers_are_rows_and_a_finding() {
        let mut r = sample();
        for (sys, p50) in [("axis2", 100.0), ("soaplite-server", 45_000.0)] {
            r.runs.push(run(sys, EXP, OP, PlacementKind::SameCpu, p50));
        }
        let s = section(&r);
        let cells: Vec<&String> = s.tables[0].rows.iter().flat_map(|r| &r.cells).collect();
        assert!(cells.iter().any(|c| c.starts_with("axis2 (")), "{cells:?}");
        let f = s
            .findings
            .iter()
            .find(|f| f.starts_with("Among 2 peer SOAP servers"))
            .unwrap_or_else(|| panic!("{:?}", s.findings));
        // soapstone's p50 is 41 µs against axis2's 100 and SOAP::Lite's 45,000.
        assert!(
            f.contains("fastest (axis2)") && f.contains("slowest (soaplite-server)"),
            "{f}"
        );
        assert!(f.contains("×2.44 the fastest peer's"), "{f}");
    }
}
