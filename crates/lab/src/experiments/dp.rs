//! Davis and Parashar (seed 001, 2002), Tables I, III and V: the latency of `doNothing()`,
//! `getString()` of 200/400/800 characters and `getIntegers()` of 200/400/800 integers, one
//! sequential client with the warm-up excluded, on soapstone and on each baseline: TCP connection
//! setup (their "TCP setup time"), raw TCP ping-pong with soapstone's byte counts, an HTTP server
//! answering an empty 200 (their "HTTP to Tomcat/IIS"), and gRPC with the same payloads (standing
//! in for their JavaRMI and CORBA rows).
//!
//! Must never mix placements in one cell pair: every cell is `same CPU / cross-CPU`.

use crate::driver::BenchSpec;
use crate::experiments::{p50_pair, runs_pair, Lab};
use crate::report::suspect::{self, cell_pair, MARK_NOTE};
use crate::report::svg::{BarChart, LineChart, LineSeries};
use crate::report::{fmt, Row, Section, Table};
use crate::results::{PlacementKind, Results};
use crate::seeds::{self, SeedTable};

const EXP: &str = "dp";
const SIZES: [u32; 3] = [200, 400, 800];
/// The service's namespace (Fig. 1 of the paper: `urn:test:soap`).
const NS: &str = "urn:test:soap";

/// The operations measured, as `(operation id, SOAP operation, size)`. The sized calls use the
/// service's stateless `getStringOfSize(n)` / `getIntegersOfSize(n)`: the same answers as the
/// paper's `setSize(n)` followed by `getString()` / `getIntegers()`, in one call.
pub(crate) fn operations() -> Vec<(String, &'static str, Option<u32>)> {
    let mut ops = vec![("doNothing".to_owned(), "doNothing", None)];
    for n in SIZES {
        ops.push((format!("getString/{n}"), "getStringOfSize", Some(n)));
    }
    for n in SIZES {
        ops.push((format!("getIntegers/{n}"), "getIntegersOfSize", Some(n)));
    }
    ops
}

/// An rpc/encoded request like the paper's Fig. 1, with the size as the parameter `n`.
pub(crate) fn request(op: &str, size: Option<u32>) -> String {
    let param = size
        .map(|n| format!("<n xsi:type=\"xsd:int\">{n}</n>"))
        .unwrap_or_default();
    format!(
        "<?xml version='1.0' encoding='UTF-8'?>\n\
         <SOAP-ENV:Envelope xmlns:SOAP-ENV=\"http://schemas.xmlsoap.org/soap/envelope/\" \
         xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" \
         xmlns:xsd=\"http://www.w3.org/2001/XMLSchema\">\n<SOAP-ENV:Body>\n\
         <ns1:{op} xmlns:ns1=\"{NS}\" \
         SOAP-ENV:encodingStyle=\"http://schemas.xmlsoap.org/soap/encoding/\">{param}</ns1:{op}>\n\
         </SOAP-ENV:Body>\n</SOAP-ENV:Envelope>\n"
    )
}

/// The bench flags of the gRPC call matching `op`.
fn grpc_call(op: &str, size: Option<u32>) -> Vec<String> {
    let (call, items) = match op {
        "getStringOfSize" => ("get-string", size),
        "getIntegersOfSize" => ("get-integers", size),
        _ => ("do-nothing", None),
    };
    let mut v = vec!["--grpc-call".to_owned(), call.to_owned()];
    if let Some(n) = items {
        v.extend(["--items".to_owned(), n.to_string()]);
    }
    v
}

pub(crate) async fn run(lab: &mut Lab) -> anyhow::Result<()> {
    let t = lab.cfg.timing.clone();
    let pins = lab.pins();
    let ops = operations();
    // soapstone first: its byte counts size the ping-pong baseline.
    let mut wire: Vec<Option<(u64, u64)>> = vec![None; ops.len()];
    let server = lab.serve(&["dp"]).await?;
    let url = format!("{}/dp", server.base_url());
    for (i, (id, op, size)) in ops.iter().enumerate() {
        let body = lab.body(
            &format!("dp-{}.xml", id.replace('/', "-")),
            &request(op, *size),
        )?;
        for pin in &pins {
            let spec = BenchSpec::sequential(url.clone(), t.latency_window, t.warmup)
                .with_body(body.clone());
            if let Some(k) = lab
                .measure(("soapstone", EXP, id), pin.placement(None), &spec)
                .await
            {
                let r = &lab.runs[k];
                let n = r.ok + r.errors;
                if let (Some(s), Some(rcv), true) = (r.bytes_sent, r.bytes_received, n > 0) {
                    wire[i].get_or_insert((s / n, rcv / n));
                }
            }
        }
    }
    server.stop().await?;

    super::dp_peers::run(lab, &ops).await;
    super::dp_lan::run(lab, &ops).await;

    let server = lab.baseline("tcp-connect").await?;
    for pin in &pins {
        // No warm-up: the bench's tcp-connect client sends nothing after a warm-up (reported to
        // soapstone-bench); a connect + close has no connection state to warm anyway.
        let spec = BenchSpec::sequential(
            format!("tcp-connect://{}", server.addr),
            t.latency_window,
            std::time::Duration::ZERO,
        );
        lab.measure(
            ("tcp-connect", EXP, "doNothing"),
            pin.placement(None),
            &spec,
        )
        .await;
    }
    server.stop().await?;

    for (i, (id, _, _)) in ops.iter().enumerate() {
        let Some((req, resp)) = wire[i] else {
            lab.problem(format!(
                "dp: tcp-pingpong {id} skipped: no soapstone byte counts to copy"
            ));
            continue;
        };
        let payload = lab.body(
            &format!("dp-{}-pingpong.bin", id.replace('/', "-")),
            &"x".repeat(req as usize),
        )?;
        let server = lab.pingpong(req, resp).await?;
        for pin in &pins {
            let mut spec =
                BenchSpec::sequential(format!("tcp://{}", server.addr), t.latency_window, t.warmup)
                    .with_body(payload.clone());
            spec.extra = vec!["--response-size".into(), resp.to_string()];
            lab.measure(("tcp-pingpong", EXP, id), pin.placement(None), &spec)
                .await;
        }
        server.stop().await?;
    }

    let server = lab.baseline("http-noop").await?;
    let body = lab.body("dp-doNothing.xml", &request("doNothing", None))?;
    for pin in &pins {
        let spec = BenchSpec::sequential(
            format!("{}/", server.base_url()),
            t.latency_window,
            t.warmup,
        )
        .with_body(body.clone());
        lab.measure(("http-noop", EXP, "doNothing"), pin.placement(None), &spec)
            .await;
    }
    server.stop().await?;

    let server = lab.baseline("grpc").await?;
    for (id, op, size) in &ops {
        for pin in &pins {
            let mut spec = BenchSpec::sequential(
                format!("grpc://{}", server.addr),
                t.latency_window,
                t.warmup,
            );
            spec.extra = grpc_call(op, *size);
            lab.measure(("grpc", EXP, id), pin.placement(None), &spec)
                .await;
        }
    }
    server.stop().await?;
    Ok(())
}

/// Today's systems: (id, label, the 2002 row it stands beside).
const TODAY: &[(&str, &str)] = &[
    ("soapstone", "soapstone (SOAP, HTTP/1.1)"),
    ("grpc", "grpc (binary RPC, for JavaRMI/CORBA)"),
    ("http-noop", "http-noop (for HTTP to Tomcat/IIS)"),
    ("tcp-connect", "tcp-connect (for TCP setup time)"),
    ("tcp-pingpong", "tcp-pingpong (same bytes, raw TCP)"),
];

/// soapstone, then every server peer the results list (measured, failed or missing: a missing
/// one shows `–` and its reason is in the systems table), then the baselines.
fn today_systems(results: &Results) -> Vec<(String, String)> {
    let mut out = vec![(TODAY[0].0.to_owned(), TODAY[0].1.to_owned())];
    for s in results
        .systems
        .iter()
        .filter(|s| s.role == "server" && s.id != "soapstone")
    {
        let how = match s.transport.as_str() {
            "soap-http" => "SOAP, timed by soapstone bench",
            "corba" => "CORBA, timed by its own client",
            "rmi" => "RMI, timed by its own client",
            _ => "",
        };
        let status = if s.status == "ready" {
            String::new()
        } else {
            format!(", {}", s.status)
        };
        out.push((s.id.clone(), format!("{} ({how}{status})", s.name)));
    }
    out.extend(
        TODAY[1..]
            .iter()
            .map(|(a, b)| ((*a).to_owned(), (*b).to_owned())),
    );
    out
}

fn published_rows(t: &SeedTable, today_cols: usize) -> Vec<Row> {
    let mut rows = vec![Row::group(format!(
        "published ({}; same host, ms, average of 200 calls)",
        t.source
    ))];
    for r in t.rows {
        let mut cells = vec![r.label.to_owned()];
        cells.extend(r.values.iter().map(|v| fmt::ms(*v)));
        cells.resize(1 + r.values.len() + today_cols, String::new());
        rows.push(Row::published(cells));
    }
    rows
}

/// Table I: doNothing.
fn table_i(results: &Results) -> Table {
    let t = &seeds::DP_TABLE_I;
    let mut rows = published_rows(t, 2);
    rows.push(Row::group(
        "today (p50 / p99 in µs; each cell same CPU / cross-CPU)",
    ));
    for (sys, label) in today_systems(results) {
        let runs = runs_pair(results, EXP, &sys, "doNothing");
        rows.push(Row::today(vec![
            label,
            String::new(),
            cell_pair(runs, |r| r.p50_us, fmt::us),
            cell_pair(runs, |r| r.p99_us, fmt::us),
        ]));
    }
    Table {
        title: "Table I: doNothing(), client and server on the same host".to_owned(),
        source: t.source.to_owned(),
        note: "Published: ms, average over 200 calls with a 10 ms timer. Today: µs, median \
               and 99th percentile of all calls in the measured window; same CPU = client and \
               server pinned to one CPU, cross-CPU = pinned to two. "
            .to_owned()
            + MARK_NOTE,
        header: vec![
            "system".to_owned(),
            "2002 latency (ms)".to_owned(),
            "today p50 (µs)".to_owned(),
            "today p99 (µs)".to_owned(),
        ],
        rows,
    }
}

/// Tables III and V: getString / getIntegers by size. One unit per column: each size has a
/// published column (ms) and a today column (µs).
fn sized_table(results: &Results, t: &SeedTable, op: &str, title: &str) -> Table {
    let mut rows = vec![Row::group(format!(
        "published ({}; same host, ms, average of 200 calls)",
        t.source
    ))];
    for r in t.rows {
        let mut cells = vec![r.label.to_owned()];
        for v in r.values {
            cells.push(fmt::ms(*v));
            cells.push(String::new());
        }
        cells.resize(1 + 2 * SIZES.len(), String::new());
        rows.push(Row::published(cells));
    }
    rows.push(Row::group(
        "today (µs, median; each cell same CPU / cross-CPU)",
    ));
    for (sys, label) in today_systems(results) {
        if matches!(sys.as_str(), "tcp-connect" | "http-noop") {
            continue;
        }
        let mut cells = vec![label];
        for n in SIZES {
            let runs = runs_pair(results, EXP, &sys, &format!("{op}/{n}"));
            cells.push(String::new());
            cells.push(cell_pair(runs, |r| r.p50_us, fmt::us));
        }
        rows.push(Row::today(cells));
    }
    let mut header = vec!["system".to_owned()];
    for c in t.columns {
        header.push(format!("{c}: 2002 (ms)"));
        header.push(format!("{c}: today p50 (µs)"));
    }
    Table {
        title: title.to_owned(),
        source: t.source.to_owned(),
        note: "Published: ms, average of 200 calls († = the implementation returned an XML \
               node list). Today: µs, median, `same CPU / cross-CPU`; tcp-pingpong moves \
               exactly soapstone's request and response bytes for each size. "
            .to_owned()
            + MARK_NOTE,
        header,
        rows,
    }
}

/// One sentence: where soapstone's doNothing median (same CPU) stands among every server
/// measured in this run, SOAP peers and CORBA/RMI alike, with the nearest one as a ratio.
pub(crate) fn standing(results: &Results) -> Option<String> {
    let mut all: Vec<(String, f64)> = today_systems(results)
        .into_iter()
        .filter(|(id, _)| !TODAY[1..].iter().any(|(b, _)| b == id))
        .filter_map(|(id, _)| {
            let r = results.get(EXP, &id, "doNothing", PlacementKind::SameCpu)?;
            Some((id, r.p50_us))
        })
        .collect();
    if all.len() < 2 {
        return None;
    }
    all.sort_by(|a, b| a.1.total_cmp(&b.1));
    let rank = all.iter().position(|(id, _)| id == "soapstone")? + 1;
    let me = all[rank - 1].1;
    let is_soap = |id: &str| {
        id == "soapstone"
            || results
                .systems
                .iter()
                .any(|s| s.id == id && s.transport == "soap-http")
    };
    let soap: Vec<&(String, f64)> = all.iter().filter(|(id, _)| is_soap(id)).collect();
    let soap_servers = soap.len();
    let soap_rank = soap.iter().position(|(id, _)| id == "soapstone")? + 1;
    let (other, v) = if rank == 1 { &all[1] } else { &all[0] };
    let relation = if rank == 1 {
        format!(
            "the next, {other}, takes {} soapstone's time",
            fmt::ratio(v / me)
        )
    } else {
        format!(
            "the fastest, {other}, takes {} soapstone's time",
            fmt::ratio(v / me)
        )
    };
    let binary = match all.len() - soap_servers {
        0 => String::new(),
        n => format!(", plus {n} CORBA/RMI"),
    };
    let flagged = all
        .iter()
        .filter(|(id, _)| {
            results
                .get(EXP, id, "doNothing", PlacementKind::SameCpu)
                .is_some_and(|r| suspect::flag(r).is_some())
        })
        .map(|(id, _)| id.as_str())
        .collect::<Vec<_>>();
    let flagged = match flagged.as_slice() {
        [] => String::new(),
        ids => format!(
            " (ranked as measured, though flagged ⚠ in Table I: {})",
            ids.join(", ")
        ),
    };
    Some(format!(
        "Among the {} servers measured with doNothing in this run ({soap_servers} SOAP stacks, \
         soapstone included{binary}), soapstone's median round trip on one CPU ({} µs) \
         ranks {rank} of {} ({soap_rank} of {soap_servers} among the SOAP stacks); \
         {relation}{flagged}.",
        all.len(),
        fmt::us(me),
        all.len()
    ))
}

pub(crate) fn section(results: &Results) -> Section {
    let mut findings: Vec<String> = standing(results).into_iter().collect();
    let soap = results.get(EXP, "soapstone", "doNothing", PlacementKind::SameCpu);
    if let (Some(s), Some(axis)) = (soap, seeds::DP_TABLE_I.value("Apache Axis", 0)) {
        findings.push(format!(
            "doNothing: soapstone's median round trip is {} µs on one CPU, against 15.6 ms for \
             Apache Axis in 2002: {} faster.",
            fmt::us(s.p50_us),
            fmt::ratio(axis * 1000.0 / s.p50_us)
        ));
    }
    if let (Some(s), Some(f)) = (
        soap,
        results.get(EXP, "tcp-pingpong", "doNothing", PlacementKind::SameCpu),
    ) {
        findings.push(format!(
            "Over the raw TCP floor with the same bytes ({} µs), soapstone adds {} µs per call \
             (HTTP framing, XML decoding and encoding, dispatch).",
            fmt::us(f.p50_us),
            fmt::us(s.p50_us - f.p50_us)
        ));
    }
    // 2002 vs today on a log scale.
    let mut chart = BarChart {
        title: "doNothing round trip: 2002 (same host) vs today".to_owned(),
        unit: "µs, median today / average 2002 (lower is better)".to_owned(),
        log: true,
        series: vec![
            "2002".to_owned(),
            "today, same CPU".to_owned(),
            "today, cross-CPU".to_owned(),
        ],
        groups: Vec::new(),
    };
    for label in [
        "Apache Axis",
        "MS SOAP Toolkit",
        "JavaRMI",
        "CORBA",
        "TCP setup time",
        "HTTP to IIS",
    ] {
        if let Some(v) = seeds::DP_TABLE_I.value(label, 0) {
            chart.groups.push((
                format!("{label} (2002)"),
                vec![Some(v * 1000.0), None, None],
            ));
        }
    }
    for (sys, _) in today_systems(results) {
        let p = p50_pair(results, EXP, &sys, "doNothing");
        if p.iter().any(Option::is_some) {
            chart.groups.push((sys, vec![None, p[0], p[1]]));
        }
    }
    let mut dist = LineChart {
        title: "getIntegers(800) latency distribution, same CPU".to_owned(),
        x_label: "percentile".to_owned(),
        y_label: "round trip, µs".to_owned(),
        x_nines: true,
        y_log: true,
        series: Vec::new(),
    };
    for (sys, _) in today_systems(results) {
        if let Some(r) = results.get(EXP, &sys, "getIntegers/800", PlacementKind::SameCpu) {
            if !r.percentiles.is_empty() {
                dist.series.push(LineSeries {
                    name: sys.clone(),
                    points: suspect::plotted_percentiles(r),
                    ..Default::default()
                });
            }
        }
    }
    let mut charts = vec![chart.render()];
    let lan_tables = super::dp_lan::tables(results);
    match (&results.lan, lan_tables.is_empty()) {
        (Some(lan), true) => findings.push(format!(
            "Tables II, IV and VI (separate hosts) were not measured: the emulated LAN was {lan}."
        )),
        (Some(_), false) => {
            if let (Some(lan), Some(lo)) = (
                results.get(EXP, "soapstone", "doNothing", PlacementKind::Lan),
                results.get(EXP, "soapstone", "doNothing", PlacementKind::CrossCpu),
            ) {
                findings.push(format!(
                    "Separate hosts (emulated LAN): soapstone's doNothing median is {} µs, {} its \
                     cross-CPU loopback median ({} µs); Davis & Parashar's Apache SOAP, MS SOAP \
                     and SOAP::Lite took about 200 ms there (Nagle and delayed ACK).",
                    fmt::us(lan.p50_us),
                    fmt::ratio(lan.p50_us / lo.p50_us),
                    fmt::us(lo.p50_us)
                ));
            }
        }
        (None, _) => {}
    }
    if !dist.series.is_empty() {
        charts.push(dist.render());
    }
    Section {
        id: EXP.to_owned(),
        title: "Latency of doNothing, getString, getIntegers (Davis & Parashar 2002)".to_owned(),
        intro: "One client calls each operation in a loop, one call at a time, over one \
                keep-alive connection; the warm-up calls are not counted. The baselines carry the \
                same calls: TCP connect+close for their \"TCP setup time\", an HTTP server \
                returning an empty 200 for \"HTTP to Tomcat/IIS\", gRPC with the same payloads for \
                JavaRMI/CORBA, and raw TCP ping-pong moving soapstone's exact byte counts (the \
                floor no protocol can beat)."
            .to_owned(),
        findings,
        tables: [
            table_i(results),
            sized_table(
                results,
                &seeds::DP_TABLE_III,
                "getString",
                "Table III: getString(), client and server on the same host",
            ),
            sized_table(
                results,
                &seeds::DP_TABLE_V,
                "getIntegers",
                "Table V: getIntegers(), client and server on the same host",
            ),
        ]
        .into_iter()
        .chain(lan_tables)
        .collect(),
        charts,
    }
}
