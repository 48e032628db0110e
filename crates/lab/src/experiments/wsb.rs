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
use crate::results::{Placement, PlacementKind, Results, Run, Second};
use crate::seeds::{self, SeedTable};

const EXP: &str = "wsb";
pub(crate) const SERVICES: [&str; 3] = ["shop", "card", "news"];
pub(crate) const TESTS: [(&str, &SeedTable); 2] = [
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

/// The open-loop point of `test` against `url`: the schedule scaled by `scale`, [`CONNECTIONS`]
/// connections, the seed's 20 s timeout. soapstone and every peer get exactly this.
pub(crate) fn schedule_spec(url: String, test: &str, scale: f64) -> BenchSpec {
    BenchSpec {
        load: Load::Schedule {
            name: test.to_owned(),
            scale,
            connections: Some(CONNECTIONS),
        },
        timeout: Some(Duration::from_secs(20)),
        ..BenchSpec::sequential(url, Duration::ZERO, Duration::ZERO)
    }
}

pub(crate) async fn run(lab: &mut Lab) -> anyhow::Result<()> {
    let scale = lab.cfg.timing.wsb_scale;
    let server = lab.serve(&["wsb"]).await?;
    let client_cpu = lab.load_cpu();
    for (test, _) in TESTS {
        for service in SERVICES {
            let body = lab.body(&format!("wsb-{service}.xml"), &request(service))?;
            let spec = schedule_spec(format!("{}/wsb/{service}", server.base_url()), test, scale)
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
    super::wsb_peers::run(lab).await;
    Ok(())
}

fn peak(r: &Run) -> Option<f64> {
    r.peak_ok_per_second
        .or_else(|| r.timeline.iter().map(|s| s.ok).max())
        .map(|v| v as f64)
}

fn table(results: &Results, test: &str, seed: &SeedTable) -> Table {
    // One row per (service, server); the published rows' metrics are the seed's rows.
    let header = [
        "service, server",
        "http-200 highest rate (/s)",
        "http-200 total",
        "errors (timeout)",
        "other errors",
        "MB sent",
        "MB received",
        "http-200 total scaled to 300 s",
        "p99 latency (ms)",
    ]
    .map(str::to_owned)
    .to_vec();
    let mut rows = Vec::new();
    let mut length = None;
    for (k, service) in SERVICES.iter().enumerate() {
        for (j, server) in ["Erlang", "Axis2"].iter().enumerate() {
            let v = |metric: usize| seed.rows[metric].values[2 * k + j];
            rows.push(Row::published(vec![
                format!("{service}, {server} (2008)"),
                format!("{:.1}", v(0)),
                fmt::count(v(1)),
                fmt::count(v(2)),
                String::new(),
                format!("{:.2}", v(3)),
                format!("{:.2}", v(4)),
                String::new(),
                String::new(),
            ]));
        }
        for system in systems(results) {
            let label = format!("{service}, {} (today)", system_label(&system));
            let run = results
                .find(EXP, &system, &format!("{test}/{service}"))
                .first()
                .copied();
            let dash = || "–".to_owned();
            let Some(r) = run else {
                let mut cells = vec![format!("{label}: not measured (see the problems)")];
                cells.resize(header.len(), dash());
                rows.push(Row::today(cells));
                continue;
            };
            length = Some(r.settings.duration_s).filter(|d| *d > 0.0);
            let mut other = fmt::count(r.errors as f64);
            if r.unsent > 0 {
                other = format!("{other} (+{} due, unsent)", fmt::count(r.unsent as f64));
            }
            // A suspect run (its p99 longer than the run with 0 errors: calls queued) is flagged
            // in its row, not read as a result.
            let label = match crate::report::suspect::flag(r) {
                Some(why) => format!("{label} ⚠ {why}"),
                None => label,
            };
            rows.push(Row::today(vec![
                label,
                peak(r).map(fmt::count).unwrap_or_else(dash),
                fmt::count(r.ok as f64),
                fmt::count(r.timeouts as f64),
                other,
                r.bytes_sent.map(fmt::mb).unwrap_or_else(dash),
                r.bytes_received.map(fmt::mb).unwrap_or_else(dash),
                length
                    .map(|d| fmt::count(r.ok as f64 * 300.0 / d))
                    .unwrap_or_else(dash),
                if r.ok > 0 {
                    // Milliseconds, formatted like every other magnitude of the report.
                    fmt::us(r.p99_us / 1000.0)
                } else {
                    dash()
                },
            ]));
        }
    }
    Table {
        title: format!("{}: {test} on shop, card and news", seed.source),
        source: seed.source.to_owned(),
        note: format!(
            "2008: Erlang and Axis2 servers on a 100 Mbps LAN, two client machines, a 300 s test. \
             Today: each server (soapstone, and the Axis2 and Erlang peers where built) pinned to \
             one CPU in turn, the load generator on the other, the same request rates with the \
             phases shortened to a {} s run, so totals are that fraction of a full-length run \
             (the \"scaled to 300 s\" column scales them back: derived, not measured). Highest \
             rate = most HTTP 200s in one second; MB = 10^6 bytes counted by the client, HTTP \
             headers included; p99 from the scheduled send time (queueing included). The peers \
             generate their own headlines and offers (same counts and sizes, other words).",
            length.map(fmt::count).unwrap_or_else(|| "–".into())
        ),
        header,
        rows,
    }
}

/// The schedule's phases as `(start, end)` seconds, from its `(start, rate), (end, rate)` pairs.
pub(crate) fn phases_of(schedule: &[(f64, f64)]) -> Vec<(f64, f64)> {
    schedule
        .chunks_exact(2)
        .map(|p| (p[0].0, p[1].0))
        .filter(|(a, b)| b > a)
        .collect()
}

/// Per-phase mean rates `(start, end, per second)` of `count` over the one-second `timeline`: a
/// second that straddles a phase boundary is shared in proportion to its overlap (exact when
/// every boundary falls on a whole second, as in the full preset). Without phases, the seconds
/// themselves.
pub(crate) fn phase_bins(
    timeline: &[Second],
    phases: &[(f64, f64)],
    count: fn(&Second) -> u64,
) -> Vec<(f64, f64, f64)> {
    if phases.is_empty() {
        return timeline
            .iter()
            .map(|x| (x.t, x.t + 1.0, count(x) as f64))
            .collect();
    }
    phases
        .iter()
        .map(|&(a, b)| {
            let n: f64 = timeline
                .iter()
                .map(|x| {
                    let overlap = (b.min(x.t + 1.0) - a.max(x.t)).max(0.0);
                    count(x) as f64 * overlap
                })
                .sum();
            (a, b, n / (b - a))
        })
        .collect()
}

/// Flat segments drawn as a line: `(start, v), (end, v)` for each bin.
pub(crate) fn step_points(bins: &[(f64, f64, f64)]) -> Vec<(f64, f64)> {
    bins.iter()
        .flat_map(|&(a, b, v)| [(a, v), (b, v)])
        .collect()
}

/// The servers measured in this section: soapstone first, then the peers in id order.
fn systems(results: &Results) -> Vec<String> {
    let mut out = vec!["soapstone".to_owned()];
    let mut peers: Vec<String> = results
        .runs
        .iter()
        .filter(|r| r.experiment == EXP && r.system != "soapstone")
        .map(|r| r.system.clone())
        .collect();
    peers.sort();
    peers.dedup();
    out.extend(peers);
    out
}

/// A server's short name in the tables and charts.
pub(crate) fn system_label(id: &str) -> &str {
    match id {
        "axis2" => "Axis2 2.0",
        "erlang" => "Erlang (inets stand-in)",
        other => other,
    }
}

fn chart(results: &Results, test: &str, system: &str) -> Option<String> {
    let mut c = LineChart {
        title: format!(
            "{test} on {}: HTTP 200s per second, and errors (mean of each phase)",
            system_label(system)
        ),
        x_label: "seconds from start".to_owned(),
        y_label: "per second".to_owned(),
        x_nines: false,
        y_log: false,
        series: Vec::new(),
    };
    let mut requested: Option<Vec<(f64, f64)>> = None;
    let mut errors: Vec<(f64, f64, f64)> = Vec::new();
    for s in SERVICES {
        let Some(r) = results
            .find(EXP, system, &format!("{test}/{s}"))
            .first()
            .copied()
        else {
            continue;
        };
        if r.timeline.is_empty() {
            continue;
        }
        // Bins are the schedule's phases (a phase of 0.6 s in `--quick` would straddle the
        // bench's one-second bins), each the phase's mean rate.
        let phases = phases_of(&r.settings.schedule);
        let ok = phase_bins(&r.timeline, &phases, |x| x.ok);
        let err = phase_bins(&r.timeline, &phases, |x| x.errors);
        c.series.push(LineSeries {
            name: format!("{s} 200s"),
            points: step_points(&ok),
            step: false,
            ..Default::default()
        });
        for (i, e) in err.iter().enumerate() {
            match errors.get_mut(i) {
                Some(p) => p.2 += e.2,
                None => errors.push(*e),
            }
        }
        if requested.is_none() && !r.settings.schedule.is_empty() {
            requested = Some(r.settings.schedule.clone());
        }
    }
    if !errors.is_empty() {
        c.series.push(LineSeries {
            name: "errors + timeouts (all services)".to_owned(),
            points: step_points(&errors),
            step: false,
            ..Default::default()
        });
    }
    if c.series.is_empty() {
        return None;
    }
    if let Some(points) = requested {
        // (start, rate), (end, rate) pairs: straight segments draw the steps.
        c.series.push(LineSeries {
            name: "requested rate".to_owned(),
            points,
            dashed: true,
            step: false,
        });
    }
    Some(c.render())
}

pub(crate) fn section(results: &Results) -> Section {
    let mut findings = Vec::new();
    for (test, _) in TESTS {
        let mut parts = Vec::new();
        for system in systems(results) {
            let runs: Vec<&Run> = SERVICES
                .iter()
                .filter_map(|s| {
                    results
                        .find(EXP, &system, &format!("{test}/{s}"))
                        .first()
                        .copied()
                })
                .collect();
            if runs.is_empty() {
                continue;
            }
            let failed: u64 = runs.iter().map(|r| r.errors + r.timeouts + r.unsent).sum();
            let ok: u64 = runs.iter().map(|r| r.ok).sum();
            let worst = runs.iter().map(|r| r.p99_us).fold(0.0, f64::max);
            parts.push(format!(
                "{} {} HTTP 200s, {} errors, timeouts or unsent, worst p99 {} ms",
                system_label(&system),
                fmt::count(ok as f64),
                fmt::count(failed as f64),
                fmt::us(worst / 1000.0)
            ));
        }
        if !parts.is_empty() {
            findings.push(format!(
                "{test}, over the three services: {}.",
                parts.join("; ")
            ));
        }
    }
    Section {
        id: EXP.to_owned(),
        title: "Web-service benchmark load tests (García et al. 2008)".to_owned(),
        intro: "The card (small request, boolean answer), news (small query, large answer) and \
                shop (medium both ways) services take García et al.'s open-loop load: requests \
                leave on schedule whether or not earlier ones were answered. test1 alternates 100 \
                and 240 requests/s; test2 climbs from 100 to 1000 requests/s in ten steps. The \
                same schedules run, one server at a time, against soapstone and against the \
                peers standing for the seed's servers: Axis2 2.0 and an Erlang/OTP server (inets \
                httpd + xmerl, a stand-in for yaws's SOAP), each answer checked before timing."
            .to_owned(),
        findings,
        tables: TESTS.iter().map(|(t, s)| table(results, t, s)).collect(),
        charts: TESTS
            .iter()
            .flat_map(|(t, _)| {
                systems(results)
                    .into_iter()
                    .filter_map(move |sys| chart(results, t, &sys))
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn second(t: f64, ok: u64) -> Second {
        Second {
            t,
            requests: ok,
            ok,
            errors: 0,
        }
    }

    #[test]
    fn bins_are_the_schedules_phases() {
        // `--quick` test2: 0.6 s phases at 100 then 200 requests/s; the bench's seconds straddle
        // them. Seconds: [0,1) 140 answers, [1,2) 200.
        let schedule = [(0.0, 100.0), (0.6, 100.0), (0.6, 200.0), (1.2, 200.0)];
        let phases = phases_of(&schedule);
        assert_eq!(phases, [(0.0, 0.6), (0.6, 1.2)]);
        let timeline = [second(0.0, 140), second(1.0, 200)];
        let bins = phase_bins(&timeline, &phases, |x| x.ok);
        assert_eq!(bins.len(), 2);
        assert_eq!((bins[0].0, bins[0].1), (0.0, 0.6));
        assert!((bins[0].2 - 140.0).abs() < 1e-9, "{bins:?}");
        // (0.4 s of 140 + 0.2 s of 200) / 0.6 s.
        assert!(
            (bins[1].2 - (0.4 * 140.0 + 0.2 * 200.0) / 0.6).abs() < 1e-9,
            "{bins:?}"
        );
        // Steps start and end exactly on the phase boundaries.
        let pts = step_points(&bins);
        assert_eq!(pts[1].0, 0.6);
        assert_eq!(pts[2].0, 0.6);
        // Whole-second phases (the full preset) give each second's own count.
        let whole = phase_bins(&timeline, &[(0.0, 1.0), (1.0, 2.0)], |x| x.ok);
        assert_eq!(
            whole.iter().map(|b| b.2).collect::<Vec<_>>(),
            [140.0, 200.0]
        );
    }
}
