//! García, Blanco, Blanco and París (seed 004, 2008), Fig. 6 and Fig. 11: the web-service
//! benchmark's card, news and shop services under their load tests. test1: 100, 240, 100, 240,
//! 100 requests/s in one-minute phases; test2: ten 30 s phases from 100 to 1000 requests/s. Their
//! tables: highest rate of HTTP 200s in one second, total 200s, timeouts, MB sent and received.
//!
//! The schedules keep their rates but their phases are shortened by `--wsb-scale` (the full run
//! plays each test in 60 s instead of 300 s, `--quick` in 6 s), so totals are that fraction of a
//! full-length run; the report prints both the measured totals and the totals scaled back to
//! five minutes, labelled as such. The client runs on the other CPU with a 20 s timeout, as
//! theirs. Must never present a scaled total as measured.

use std::time::Duration;

use crate::driver::{BenchSpec, Load};
use crate::experiments::Lab;
use crate::report::svg::{LineChart, LineSeries};
use crate::report::{fmt, Row, Section, Table};
use crate::results::{Placement, PlacementKind, Results, Run};
use crate::seeds::{self, SeedTable};

const EXP: &str = "wsb";
pub(crate) const SERVICES: [&str; 3] = ["shop", "card", "news"];
const TESTS: [(&str, &SeedTable); 2] = [
    ("test1", &seeds::GARCIA_FIG_6),
    ("test2", &seeds::GARCIA_FIG_11),
];
/// Connections of the open-loop generator: enough that a slow answer never holds back a due
/// request at 1000/s (each connection sends its next request when free; latency counts from the
/// due time either way).
const CONNECTIONS: u32 = 32;

/// A request for each service, sized like the benchmark's: the card takes a small payment
/// and answers a boolean; the news takes a one-day query over six sources and answers ~28 KB of
/// headlines (the seed's average answer: 1,078 MB over 38,973 answers); the shop takes a product
/// key with 20 properties and answers a medium list of offers.
pub(crate) fn request(service: &str) -> String {
    let body = match service {
        "card" => "<w:authorize xmlns:w=\"urn:soapstone:wsb:card\"><w:account>4111111111111111</w:account>\
             <w:holder>Ana Garcia</w:holder><w:userId>user-1001</w:userId><w:amount>125.5</w:amount>\
             <w:currency>EUR</w:currency><w:expiry>2009-06</w:expiry></w:authorize>"
            .to_owned(),
        "news" => {
            let sources: String = [
                "coruna-herald",
                "atlantic-wire",
                "galicia-daily",
                "iberian-post",
                "morning-ledger",
                "harbor-times",
            ]
            .iter()
            .map(|s| format!("<w:sources>{s}</w:sources>"))
            .collect();
            format!(
                "<w:getHeadlines xmlns:w=\"urn:soapstone:wsb:news\"><w:from>2008-01-14</w:from>\
                 <w:to>2008-01-14</w:to>{sources}</w:getHeadlines>"
            )
        }
        _ => {
            let props: String = (0..20)
                .map(|i| {
                    format!(
                        "<w:properties><w:name>property-{i}</w:name><w:value>value-{i}</w:value></w:properties>"
                    )
                })
                .collect();
            format!(
                "<w:findOffers xmlns:w=\"urn:soapstone:wsb:shop\"><w:productKey>SKU-12345</w:productKey>\
                 {props}<w:expires>2008-06-30</w:expires></w:findOffers>"
            )
        }
    };
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\">\
         <soap:Body>{body}</soap:Body></soap:Envelope>\n"
    )
}

pub(crate) async fn run(lab: &mut Lab) -> anyhow::Result<()> {
    let scale = lab.cfg.timing.wsb_scale;
    let server = lab.serve(&["wsb"]).await?;
    let client_cpu = lab.load_cpu();
    for (test, _) in TESTS {
        for service in SERVICES {
            let body = lab.body(&format!("wsb-{service}.xml"), &request(service))?;
            let spec = BenchSpec {
                load: Load::Schedule {
                    name: test.to_owned(),
                    scale,
                    connections: Some(CONNECTIONS),
                },
                timeout: Some(Duration::from_secs(20)),
                ..BenchSpec::sequential(
                    format!("{}/wsb/{service}", server.base_url()),
                    Duration::ZERO,
                    Duration::ZERO,
                )
            }
            .with_body(body);
            let placement = Placement {
                kind: PlacementKind::CrossCpu,
                server_cpu: Some(lab.cfg.server_cpu.clone()),
                client_cpu: Some(client_cpu.clone()),
                load_cpu: None,
            };
            lab.measure(
                ("soapstone", EXP, &format!("{test}/{service}")),
                placement,
                &spec,
            )
            .await;
        }
    }
    server.stop().await?;
    Ok(())
}

fn peak(r: &Run) -> Option<f64> {
    r.peak_ok_per_second
        .or_else(|| r.timeline.iter().map(|s| s.ok).max())
        .map(|v| v as f64)
}

fn table(results: &Results, test: &str, seed: &SeedTable) -> Table {
    let mut header = vec!["metric".to_owned()];
    for s in SERVICES {
        header.push(format!("{s} Erlang 2008"));
        header.push(format!("{s} Axis2 2008"));
        header.push(format!("{s} soapstone today"));
    }
    let runs: Vec<Option<&Run>> = SERVICES
        .iter()
        .map(|s| {
            results
                .find(EXP, "soapstone", &format!("{test}/{s}"))
                .first()
                .copied()
        })
        .collect();
    let length = runs
        .iter()
        .flatten()
        .next()
        .map(|r| r.settings.duration_s)
        .filter(|d| *d > 0.0);
    type Metric = (usize, fn(&Run) -> Option<String>);
    let metrics: [Metric; 5] = [
        (0, |r| peak(r).map(fmt::count)),
        (1, |r| Some(fmt::count(r.ok as f64))),
        (2, |r| Some(fmt::count(r.timeouts as f64))),
        (3, |r| r.bytes_sent.map(fmt::mb)),
        (4, |r| r.bytes_received.map(fmt::mb)),
    ];
    let mut rows = Vec::new();
    for (i, f) in metrics {
        let srow = &seed.rows[i];
        let mut cells = vec![srow.label.to_owned()];
        for (k, run) in runs.iter().enumerate() {
            cells.push(fmt_seed(srow.values[2 * k], i));
            cells.push(fmt_seed(srow.values[2 * k + 1], i));
            cells.push(run.and_then(f).unwrap_or_else(|| "–".to_owned()));
        }
        rows.push(Row::today(cells));
    }
    let mut other = vec!["errors (other than timeout), today".to_owned()];
    let mut sent = vec!["requests sent, today".to_owned()];
    let mut scaled = vec!["http-200 (total) scaled to the published length".to_owned()];
    for run in &runs {
        other.extend([String::new(), String::new()]);
        sent.extend([String::new(), String::new()]);
        scaled.extend([String::new(), String::new()]);
        other.push(
            run.map(|r| fmt::count(r.errors as f64))
                .unwrap_or_else(|| "–".into()),
        );
        sent.push(
            run.map(|r| {
                let sent = fmt::count((r.ok + r.errors + r.timeouts) as f64);
                if r.unsent > 0 {
                    format!("{sent} ({} due but unsent)", fmt::count(r.unsent as f64))
                } else {
                    sent
                }
            })
            .unwrap_or_else(|| "–".into()),
        );
        scaled.push(
            run.filter(|r| r.settings.duration_s > 0.0)
                .map(|r| fmt::count(r.ok as f64 * 300.0 / r.settings.duration_s))
                .unwrap_or_else(|| "–".into()),
        );
    }
    rows.push(Row::today(other));
    rows.push(Row::today(sent));
    rows.push(Row::today(scaled));
    Table {
        title: format!("{}: {test} on card, news and shop", seed.source),
        source: seed.source.to_owned(),
        note: format!(
            "2008: Erlang and Axis2 servers, 100 Mbps LAN, two client machines, 300 s test. \
             Today: one soapstone server pinned to one CPU, the load generator on the other, \
             the same request rates with phases shortened to a {} s run{}; highest rate = most \
             HTTP 200s in one second; MB = 10^6 bytes as counted by the client, HTTP headers \
             included.",
            length.map(fmt::count).unwrap_or_else(|| "–".into()),
            if length.is_some() {
                ", so totals are that fraction of the published ones (the last row scales them back)"
            } else {
                ""
            }
        ),
        header,
        rows,
    }
}

fn fmt_seed(v: f64, metric: usize) -> String {
    match metric {
        3 | 4 => format!("{v:.2}"),
        0 => format!("{v:.1}"),
        _ => fmt::count(v),
    }
}

fn chart(results: &Results, test: &str) -> Option<String> {
    let mut c = LineChart {
        title: format!("{test}: HTTP 200s per second, and errors"),
        x_label: "seconds from start".to_owned(),
        y_label: "per second".to_owned(),
        x_nines: false,
        y_log: false,
        series: Vec::new(),
    };
    let mut requested: Option<Vec<(f64, f64)>> = None;
    let mut errors: Vec<(f64, f64)> = Vec::new();
    for s in SERVICES {
        let Some(r) = results
            .find(EXP, "soapstone", &format!("{test}/{s}"))
            .first()
            .copied()
        else {
            continue;
        };
        if r.timeline.is_empty() {
            continue;
        }
        c.series.push(LineSeries {
            name: format!("{s} 200s"),
            points: r.timeline.iter().map(|x| (x.t, x.ok as f64)).collect(),
            step: true,
            ..Default::default()
        });
        for (i, x) in r.timeline.iter().enumerate() {
            let e = x.errors as f64;
            match errors.get_mut(i) {
                Some(p) => p.1 += e,
                None => errors.push((x.t, e)),
            }
        }
        if requested.is_none() && !r.settings.schedule.is_empty() {
            requested = Some(r.settings.schedule.clone());
        }
    }
    if c.series.is_empty() {
        return None;
    }
    c.series.push(LineSeries {
        name: "errors + timeouts (all services)".to_owned(),
        points: errors,
        step: true,
        ..Default::default()
    });
    if let Some(points) = requested {
        c.series.push(LineSeries {
            name: "requested rate".to_owned(),
            points,
            dashed: true,
            step: true,
        });
    }
    Some(c.render())
}

pub(crate) fn section(results: &Results) -> Section {
    let mut findings = Vec::new();
    for (test, _) in TESTS {
        let runs: Vec<&Run> = SERVICES
            .iter()
            .filter_map(|s| {
                results
                    .find(EXP, "soapstone", &format!("{test}/{s}"))
                    .first()
                    .copied()
            })
            .collect();
        if runs.is_empty() {
            continue;
        }
        let failed: u64 = runs.iter().map(|r| r.errors + r.timeouts).sum();
        let ok: u64 = runs.iter().map(|r| r.ok).sum();
        findings.push(format!(
            "{test}: {} HTTP 200s and {} errors or timeouts over the three services.",
            fmt::count(ok as f64),
            fmt::count(failed as f64)
        ));
    }
    Section {
        id: EXP.to_owned(),
        title: "Web-service benchmark load tests (García et al. 2008)".to_owned(),
        intro: "The card (small request, boolean answer), news (small query, large answer) and \
                shop (medium both ways) services take García et al.'s open-loop load: requests \
                leave on schedule whether or not earlier ones were answered. test1 alternates 100 \
                and 240 requests/s; test2 climbs from 100 to 1000 requests/s in ten steps."
            .to_owned(),
        findings,
        tables: TESTS.iter().map(|(t, s)| table(results, t, s)).collect(),
        charts: TESTS
            .iter()
            .filter_map(|(t, _)| chart(results, t))
            .collect(),
    }
}
