//! The causes section of the report, drawn from the runs and traces of
//! [`super::causes`]: per operation a table (round trip, ratio to cured, packets, the stalls
//! the capture shows, the pcap), loopback's rows (cross-CPU, then one CPU) and then the emulated
//! LAN's at each rate with their ratio to loopback, and a packet figure per network; the
//! throughput under each client cause ([`super::causes_bench`]); the thesis's Tables 4 and 5
//! packet by packet beside today's; Ruby's fixed overhead per message, fitted.
//!
//! Every "today" figure comes from a run or trace of this results file; every stall named here
//! was named by the timeline classification of a capture. This module must never describe a
//! stall the data does not show: the findings test for it before saying it.

use super::causes::{overhead_op, Network, EXP, KINDS, MODES};
use crate::report::ladder::{Ladder, Lane};
use crate::report::svg::{LineChart, LineSeries};
use crate::report::{fmt, Row, Section, Table};
use crate::results::{Results, Run, TraceRecord};
use crate::seeds;
use crate::timeline::{CallTimeline, DELAYED_ACK, FIN_WAIT};

/// A round trip in µs as `85.2 µs` or `44.1 ms`.
pub(crate) fn rt(us: f64) -> String {
    if us < 1000.0 {
        format!("{} µs", fmt::us(us))
    } else {
        format!("{:.1} ms", us / 1e3)
    }
}

/// The trace of `op` under `mode` on `net`.
fn trace_at<'a>(
    results: &'a Results,
    op: &str,
    mode: &str,
    net: Network,
) -> Option<&'a TraceRecord> {
    results.traces.iter().find(|t| {
        t.experiment == EXP && t.operation == op && t.mode == mode && Network::of(t) == net
    })
}

/// The median call of a loopback capture that ran (never the timings-only calls of one that
/// did not).
fn captured<'a>(results: &'a Results, op: &str, mode: &str) -> Option<&'a CallTimeline> {
    captured_on(results, op, mode, Network::Loopback)
}

/// [`captured`] on `net`.
fn captured_on<'a>(
    results: &'a Results,
    op: &str,
    mode: &str,
    net: Network,
) -> Option<&'a CallTimeline> {
    trace_at(results, op, mode, net)
        .filter(|t| t.capture_error.is_none())
        .and_then(|t| t.median_call.as_ref())
}

/// The loopback (cross-CPU) run of `op` under `mode`.
fn run<'a>(results: &'a Results, op: &str, mode: &str) -> Option<&'a Run> {
    run_on(results, op, mode, Network::Loopback)
}

/// The run of `op` under `mode` on `net`.
fn run_on<'a>(results: &'a Results, op: &str, mode: &str, net: Network) -> Option<&'a Run> {
    let id = net.operation(op, mode);
    results
        .runs
        .iter()
        .find(|r| r.experiment == EXP && r.operation == id)
}

/// The stalls of a call: `delayed ACK +41.2 ms`, each with the gap before it.
fn stalls_of(call: &CallTimeline) -> Vec<String> {
    call.packets
        .iter()
        .enumerate()
        .filter_map(|(i, p)| {
            let s = p.stall.as_deref()?;
            let gap = i
                .checked_sub(1)
                .map_or(p.t_ms, |j| p.t_ms - call.packets[j].t_ms);
            let s = if s == crate::timeline::NAGLE {
                "Nagle"
            } else {
                s
            };
            Some(if gap >= 1.0 {
                format!("{s} +{gap:.1} ms")
            } else {
                s.to_owned()
            })
        })
        .collect()
}

fn stall_cell(t: &TraceRecord) -> String {
    if t.capture_error.is_some() {
        return "not captured".to_owned();
    }
    let Some(call) = &t.median_call else {
        return "–".to_owned();
    };
    let named = stalls_of(call);
    if named.is_empty() {
        return "none".to_owned();
    }
    let seen = t.stalls.iter().map(|(_, n)| *n).max().unwrap_or(0);
    format!("{} ({seen} of {} calls)", named.join(", "), t.calls)
}

/// One row per mode that ran on `net`; off cross-CPU loopback the fourth cell is the ratio
/// of its median to the same mode's loopback median.
fn mode_rows(results: &Results, op: &str, net: Network) -> Vec<Row> {
    let cured = run_on(results, op, "cured", net).map(|r| r.p50_us);
    MODES
        .iter()
        .filter_map(|m| {
            let r = run_on(results, op, m.id, net)?;
            let t = trace_at(results, op, m.id, net);
            let vs_loopback = if net != Network::Loopback {
                run(results, op, m.id).map_or("–".to_owned(), |l| fmt::ratio(r.p50_us / l.p50_us))
            } else {
                String::new()
            };
            Some(Row::today(vec![
                m.label.to_owned(),
                rt(r.p50_us),
                cured.map_or("–".to_owned(), |c| fmt::ratio(r.p50_us / c)),
                vs_loopback,
                rt(r.p99_us),
                t.and_then(|t| t.packets_per_call)
                    .map_or("–".to_owned(), fmt::count),
                t.map_or("–".to_owned(), stall_cell),
            ]))
        })
        .collect()
}

/// The table of one operation: every mode today, CORBA, the thesis as published.
fn table(results: &Results, op: &str) -> Table {
    let cured = run(results, op, "cured").map(|r| r.p50_us);
    let placement = run(results, op, "cured").map_or("", |r| r.settings.placement.kind.label());
    let mut rows = vec![Row::group(format!(
        "today: soapstone on loopback, {placement} (median of the captured calls)"
    ))];
    rows.extend(mode_rows(results, op, Network::Loopback));
    for net in Network::all().into_iter().skip(1) {
        let block = mode_rows(results, op, net);
        if block.is_empty() {
            continue;
        }
        rows.push(Row::group(match net {
            Network::Lan(r) => format!(
                "today: on the emulated LAN at {r} Mbit/s (server and client in two network \
                 namespaces; × cured against this block's cured call)"
            ),
            _ => "today: on loopback, client and server on one CPU (× cured against this \
                  block's cured call)"
                .to_owned(),
        }));
        rows.extend(block);
    }
    if let Some(t) = results.traces.iter().find(|t| t.mode == "corba") {
        if let Some(r) = results
            .runs
            .iter()
            .find(|r| r.experiment == EXP && r.operation.starts_with("doNothing/"))
        {
            rows.push(Row::group("today: CORBA beside it (its own client)"));
            rows.push(Row::today(vec![
                format!("{} doNothing", r.system),
                rt(r.p50_us),
                cured.map_or("–".to_owned(), |c| fmt::ratio(r.p50_us / c)),
                String::new(),
                rt(r.p99_us),
                t.packets_per_call.map_or("–".to_owned(), fmt::count),
                stall_cell(t),
            ]));
        }
    }
    let t4 = &seeds::THESIS_TABLE_4;
    let t5 = &seeds::THESIS_TABLE_5;
    let gap = |t: &seeds::SeedTable, row: &str| t.value(row, 0).unwrap_or(f64::NAN);
    rows.push(Row::group(
        "published: Elfwing & Paulsson 2002, Axis beta 1 on Tomcat, HTTP/1.0, Windows 2000",
    ));
    rows.push(Row::published(vec![
        "SOAP call as shipped (Table 4, sum of packets 1-12)".into(),
        format!("{} ms", fmt::ms(seeds::THESIS_TABLE_4_SUM_MS)),
        String::new(),
        String::new(),
        String::new(),
        t4.rows.len().to_string(),
        format!(
            "{DELAYED_ACK}s +{} ms (6), +{} ms (8); {FIN_WAIT} +{} ms (9)",
            fmt::ms(gap(t4, "6. TCP ACK")),
            fmt::ms(gap(t4, "8. TCP ACK")),
            fmt::ms(gap(t4, "9. TCP FIN/ACK"))
        ),
    ]));
    rows.push(Row::published(vec![
        "client parses Content-Length and closes (Table 5, to the bold line)".into(),
        format!("{} ms", fmt::ms(seeds::THESIS_TABLE_5_SUMS_MS[0])),
        String::new(),
        String::new(),
        String::new(),
        "7".into(),
        format!("{DELAYED_ACK} +{} ms (6)", fmt::ms(gap(t5, "6. TCP ACK"))),
    ]));
    for (label, v) in [
        ("SOAP, no load (Table 2)", &seeds::THESIS_TABLE_2),
        ("CORBA, no load (Table 1)", &seeds::THESIS_TABLE_1),
    ] {
        if let Some(ms) = v.value("None", 0) {
            rows.push(Row::published(vec![
                label.into(),
                format!("{} ms", fmt::ms(ms)),
                String::new(),
                String::new(),
                String::new(),
                String::new(),
                String::new(),
            ]));
        }
    }
    Table {
        title: format!("One {op} call, each cause alone and all together"),
        source: format!(
            "{}; {}; {}",
            t4.source,
            t5.source,
            seeds::THESIS_TABLE_2.source
        ),
        note: "Round trips as the client measured them (median and 99th percentile of the \
               captured calls, after uncaptured warm-up calls on a kept connection); × cured is \
               the median's ratio to the cured median of the same run. Packets per call and the \
               stalls are read from the capture (a gap of 20 ms or more before a packet, named \
               by what the packet is). The captures are `logs/causes-OPERATION-MODE.pcap` \
               (CORBA: `logs/causes-doNothing-omniorb.pcap`), the command that reproduces each \
               is in `results.json` (`traces[].command`). On one CPU they are \
               `logs/causes-same-cpu-OPERATION-MODE.pcap`; on the emulated LAN \
               `logs/causes-lanRATE-OPERATION-MODE.pcap`, taken on the client's end of the link \
               (its veth end, or the delay line's TUN device) inside its namespace, and each command starts with the `ip netns exec` that runs it \
               there. ÷ loopback is a mode's median over its median on loopback (the first \
               block) in the same run. With every cause on, `--quick` captures a quarter of the \
               calls (each waits 350 ms)."
            .into(),
        header: [
            "mode",
            "median",
            "× cured",
            "÷ loopback",
            "p99",
            "packets per call",
            "stalls in the capture (median call)",
        ]
        .map(str::to_owned)
        .to_vec(),
        rows,
    }
}

/// A packet of today's call as `-> P. 342` with its gap to the previous one.
fn today_packets(call: Option<&CallTimeline>) -> Vec<(String, f64)> {
    let Some(call) = call else {
        return Vec::new();
    };
    let mut prev = 0.0;
    call.packets
        .iter()
        .map(|p| {
            let gap = p.t_ms - prev;
            prev = p.t_ms;
            let dir = if p.to_server { "->" } else { "<-" };
            let stall = p
                .stall
                .as_deref()
                .map_or(String::new(), |s| format!(" ({s})"));
            (format!("{dir} {} {}{stall}", p.flags, p.len), gap)
        })
        .collect()
}

/// The thesis's packets, row by row, beside today's thesis setup and today's server causes.
fn packets_table(results: &Results) -> Option<Table> {
    let thesis = today_packets(captured(results, "echoFloat", "thesis"));
    let server = today_packets(captured(results, "echoFloat", "server"));
    if thesis.is_empty() && server.is_empty() {
        return None;
    }
    let (t4, t5) = (&seeds::THESIS_TABLE_4, &seeds::THESIS_TABLE_5);
    let n = t4.rows.len().max(thesis.len()).max(server.len());
    let seed = |t: &seeds::SeedTable, i: usize| {
        t.rows.get(i).map_or(String::new(), |r| {
            format!("{}: {}", r.label, fmt::ms(r.values[0]))
        })
    };
    let today = |v: &[(String, f64)], i: usize| {
        v.get(i)
            .map_or(String::new(), |(d, gap)| format!("{d}: {gap:.3}"))
    };
    let rows = (0..n)
        .map(|i| {
            Row::today(vec![
                (i + 1).to_string(),
                seed(t4, i),
                seed(t5, i),
                today(&thesis, i),
                today(&server, i),
            ])
        })
        .collect();
    Some(Table {
        title: "The thesis's packets beside today's (echoFloat, ms since the previous packet)"
            .into(),
        source: format!("{}; {}", t4.source, t5.source),
        note: "Published: mean inter-arrival times on the thesis's LAN. Today: the median \
               call of the thesis's setup (the server's two causes and a client reading to \
               EOF, hence a connection per call) and of the server's causes alone on a kept \
               connection, each packet as direction, TCP flags and payload bytes."
            .into(),
        header: [
            "#",
            "Table 4: Axis beta 1",
            "Table 5: client closes",
            "today: the thesis's setup",
            "today: server causes, kept connection",
        ]
        .map(str::to_owned)
        .to_vec(),
        rows,
    })
}

/// Least-squares line through (x, y): (intercept, slope).
pub(crate) fn fit(points: &[(f64, f64)]) -> Option<(f64, f64)> {
    let n = points.len() as f64;
    if points.len() < 2 {
        return None;
    }
    let (mx, my) = points
        .iter()
        .fold((0.0, 0.0), |(a, b), (x, y)| (a + x / n, b + y / n));
    let sxx: f64 = points.iter().map(|(x, _)| (x - mx).powi(2)).sum();
    let sxy: f64 = points.iter().map(|(x, y)| (x - mx) * (y - my)).sum();
    (sxx > 0.0).then(|| (my - sxy / sxx * mx, sxy / sxx))
}

fn overhead_points(results: &Results, dom: bool) -> Vec<(f64, f64)> {
    let prefix = overhead_op(dom, 0);
    let prefix = prefix.trim_end_matches('0');
    let mut pts: Vec<(f64, f64)> = results
        .runs
        .iter()
        .filter(|r| r.experiment == EXP && r.operation.starts_with(prefix))
        .filter_map(|r| Some((r.settings.request_bytes? as f64, r.p50_us)))
        .collect();
    pts.sort_by(|a, b| a.0.total_cmp(&b.0));
    pts
}

/// Ruby's fixed overhead, redrawn: table, chart and one finding.
fn overhead(results: &Results, findings: &mut Vec<String>) -> (Option<Table>, Option<String>) {
    let streaming = overhead_points(results, false);
    let dom = overhead_points(results, true);
    if streaming.is_empty() {
        return (None, None);
    }
    let ruby = &seeds::RUBY_FIXED;
    let mut rows = vec![Row::group(
        "published: Ruby 2001 (Tomcat 3.3, Xerces 1 DOM)",
    )];
    for r in ruby.rows {
        rows.push(Row::published(vec![
            r.label.into(),
            fmt::thousands(r.values[0]),
            String::new(),
        ]));
    }
    rows.push(Row::group(
        "today: soapstone, echoFloat padded in a header block",
    ));
    let fits = [("streaming codec", &streaming), ("DOM parse first", &dom)];
    let mut series = Vec::new();
    for (i, (name, pts)) in fits.iter().enumerate() {
        let Some((a, b)) = fit(pts) else { continue };
        rows.push(Row::today(vec![
            format!("{name} (fit over {} sizes)", pts.len()),
            fmt::us(a),
            format!("{:.2}", b * 1024.0),
        ]));
        series.push(LineSeries {
            name: (*name).into(),
            points: pts.to_vec(),
            ..Default::default()
        });
        let last = pts.last().map_or(0.0, |p| p.0);
        series.push(LineSeries {
            name: format!("{name}: fit"),
            points: vec![(0.0, a), (last, a + b * last)],
            dashed: true,
            ..Default::default()
        });
        if i == 0 {
            if let Some(axis) = ruby.value("Apache xml-axis", 0) {
                findings.push(format!(
                    "Ruby's fixed overhead per message, redrawn: soapstone's is {} µs (the \
                     intercept of its round trip against request size, then {:.2} µs per \
                     further KiB), against {} µs for Axis in 2001 ({}).",
                    fmt::us(a),
                    b * 1024.0,
                    fmt::thousands(axis),
                    fmt::ratio(axis / a)
                ));
            }
        }
    }
    let chart = LineChart {
        title: "echoFloat round trip against request size (same CPU)".into(),
        x_label: "request bytes".into(),
        y_label: "median round trip, µs".into(),
        series,
        ..Default::default()
    }
    .render();
    let table = Table {
        title: "Fixed overhead per message (intercept) and cost per KiB (slope)".into(),
        source: ruby.source.into(),
        note: "Today: the median round trip of a one-client sequential bench at each request \
               size, a least-squares line through them; the intercept is the cost of a message \
               of no size. Ruby subtracted his fixed cost the same way."
            .into(),
        header: ["system", "fixed overhead (µs)", "µs per KiB"]
            .map(str::to_owned)
            .to_vec(),
        rows,
    };
    (Some(table), Some(chart))
}

/// The findings of one operation on `net`.
fn op_findings(results: &Results, op: &str, net: Network, out: &mut Vec<String>) {
    let run = |op: &str, mode: &str| run_on(results, op, mode, net);
    let captured = |op: &str, mode: &str| captured_on(results, op, mode, net);
    let on = if net == Network::Loopback {
        String::new()
    } else {
        format!(" {}", net.label())
    };
    let (Some(cured), Some(server)) = (run(op, "cured"), run(op, "server")) else {
        return;
    };
    let ack = captured(op, "server").and_then(|c| {
        let i = c
            .packets
            .iter()
            .position(|p| p.stall.as_deref() == Some(DELAYED_ACK))?;
        Some(c.packets[i].t_ms - i.checked_sub(1).map_or(0.0, |j| c.packets[j].t_ms))
    });
    out.push(match ack {
        Some(gap) => format!(
            "{op}{on}: cured {}; with the server's Nagle and two writes {} ({}): the capture \
             shows the client's ACK of the head held {gap:.1} ms (Linux's delayed ACK; the \
             thesis's Windows 2000 stack held it 100-200 ms, 152.7 ms on average) and the \
             body Nagle kept until that ACK.",
            rt(cured.p50_us),
            rt(server.p50_us),
            fmt::ratio(server.p50_us / cured.p50_us)
        ),
        None => format!(
            "{op}{on}: cured {}; with the server's Nagle and two writes {} ({}); the capture \
             shows no delayed ACK in the median call.",
            rt(cured.p50_us),
            rt(server.p50_us),
            fmt::ratio(server.p50_us / cured.p50_us)
        ),
    });
    if let Some(all) = run(op, "all") {
        let stalls = captured(op, "all").map(stalls_of).unwrap_or_default();
        out.push(format!(
            "{op}{on} with every cause on: {} ({} cured){}.",
            rt(all.p50_us),
            fmt::ratio(all.p50_us / cured.p50_us),
            if stalls.is_empty() {
                String::new()
            } else {
                format!("; the capture shows {}", stalls.join(", "))
            }
        ));
    }
}

/// The cured call against the normal path: the same-CPU cured trace of echoFloat beside the
/// same envelope through `soapstone bench` on the same CPU (the fixed-overhead sweep's smallest
/// point), both from this run.
fn cured_vs_normal(results: &Results) -> Option<String> {
    let traced = run_on(results, "echoFloat", "cured", Network::SameCpu)?;
    let (bytes, bench) = *overhead_points(results, false).first()?;
    let ratio = traced.p50_us / bench;
    Some(format!(
        "Cured against the normal path, echoFloat on one CPU: {} per captured call (`soapstone \
         trace`, {} calls, tcpdump running) against {} per call through `soapstone bench` ({} \
         request bytes, no capture), {}{}",
        rt(traced.p50_us),
        traced.ok,
        rt(bench),
        bytes as u64,
        fmt::ratio(ratio),
        if ratio > 1.2 {
            ": the capture and the trace's client cost the difference, so each × cured above \
             compares captured calls with captured calls."
        } else {
            ": the same within noise."
        }
    ))
}

fn findings(results: &Results) -> Vec<String> {
    let mut out = Vec::new();
    for (op, ..) in KINDS {
        op_findings(results, op, Network::Loopback, &mut out);
    }
    for (op, net) in Network::all()
        .into_iter()
        .skip(1)
        .flat_map(|n| KINDS.iter().map(move |(op, ..)| (*op, n)))
    {
        op_findings(results, op, net, &mut out);
        let (Some(l), Some(c)) = (run_on(results, op, "cured", net), run(results, op, "cured"))
        else {
            continue;
        };
        let mut ratios = Vec::new();
        for m in MODES.iter().skip(1) {
            if let (Some(a), Some(b)) = (run_on(results, op, m.id, net), run(results, op, m.id)) {
                ratios.push(format!("{} {}", m.id, fmt::ratio(a.p50_us / b.p50_us)));
            }
        }
        out.push(format!(
            "{op} {} against loopback (median over median): cured {}{}.",
            net.label(),
            fmt::ratio(l.p50_us / c.p50_us),
            if ratios.is_empty() {
                String::new()
            } else {
                format!(", {}", ratios.join(", "))
            }
        ));
    }
    if let Some(f) = cured_vs_normal(results) {
        out.push(f);
    }
    if let Some(t) = results.trace(EXP, "echoFloat", "thesis") {
        if t.capture_error.is_none() && !t.stalls.iter().any(|(s, _)| s == DELAYED_ACK) {
            out.push(
                "The thesis's own setup (server causes, a client reading to EOF on a connection \
                 per call) shows no delayed ACK on Linux: a new connection starts in quick-ACK \
                 mode, so its few segments are ACKed at once; the stall needs a kept connection."
                    .into(),
            );
        }
    }
    if let Some(e) = results.traces.iter().find_map(|t| t.capture_error.as_ref()) {
        out.push(format!(
            "Packet capture could not run, so the tables give the timings without packets: {e}."
        ));
    }
    out
}

pub(crate) fn section(results: &Results) -> Section {
    let mut findings = findings(results);
    let mut tables = Vec::new();
    let mut charts = Vec::new();
    for (op, ..) in KINDS {
        if !MODES.iter().any(|m| run(results, op, m.id).is_some()) {
            continue;
        }
        tables.push(table(results, op));
        for net in Network::all() {
            let mut lanes: Vec<Lane> = MODES
                .iter()
                .filter_map(|m| Some(lane(m.short, trace_at(results, op, m.id, net)?)))
                .collect();
            if lanes.is_empty() {
                continue;
            }
            if net == Network::Loopback {
                if let Some(t) = results.traces.iter().find(|t| t.mode == "corba") {
                    lanes.push(lane("CORBA doNothing", t));
                }
            }
            let title = match net {
                Network::Loopback => {
                    format!("The packets of one {op} call per mode (the median call)")
                }
                _ => format!(
                    "The packets of one {op} call per mode {} (the median call)",
                    net.label()
                ),
            };
            charts.push(Ladder { title, lanes }.render());
        }
    }
    tables.extend(super::causes_bench::table(results, &mut findings));
    tables.extend(packets_table(results));
    let (t, c) = overhead(results, &mut findings);
    tables.extend(t);
    charts.extend(c);
    Section {
        id: EXP.to_owned(),
        title: "The seeds' causes, on purpose and cured (thesis Tables 4-5)".to_owned(),
        intro: "Each cause the seeds traced is switched on by name (`soapstone serve --naive`, \
                `soapstone trace --naive`): the server's Nagle with head and body in two writes \
                (the thesis's packets 5-8), a client reading until the server's FIN (packet 9), \
                a connection per call, `Expect: 100-continue` (Davis and Parashar), a DOM parse \
                before decoding (thesis Table 3, Ruby); then the thesis's own setup and all of \
                them together. Each mode's calls are captured with tcpdump on loopback and cut \
                into per-call timelines, with client and server on two CPUs and again on one. \
                On Linux the delayed ACK waits 40 ms at least; the thesis's Windows 2000 and \
                Solaris stacks waited up to 200 ms. Then the same modes on the emulated LAN at \
                the seeds' 100 and 10 Mbit/s: the server in one network namespace, the traced \
                client and its tcpdump in the other. The client's causes are also run under \
                load (`soapstone bench --naive`). "
            .to_owned()
            + &lan_intro(results),
        findings,
        tables,
        charts,
    }
}

/// What the LAN part ran on, or why it did not run.
fn lan_intro(results: &Results) -> String {
    let ran = results.traces.iter().any(|t| t.experiment == EXP && t.lan);
    match (&results.lan, ran) {
        (Some(what), true) => format!("The emulated LAN: {what}."),
        (Some(why), false) => format!("The LAN part did not run ({why})."),
        (None, _) => "The LAN part did not run in this lab run.".to_owned(),
    }
}

fn lane(label: &str, t: &TraceRecord) -> Lane {
    match (&t.capture_error, &t.median_call) {
        (Some(_), _) | (None, None) => Lane {
            label: label.to_owned(),
            note: Some("no capture (see the problems above)".into()),
            ..Lane::default()
        },
        (None, Some(c)) => Lane {
            label: format!("{label} ({} ms)", fmt::ms((c.ms * 100.0).round() / 100.0)),
            answered_ms: Some(c.ms),
            packets: c
                .packets
                .iter()
                .filter(|p| !p.after_call)
                .cloned()
                .collect(),
            note: None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::tests::sample;
    use crate::results::PlacementKind;
    use crate::timeline::{TimelinePacket, NAGLE};

    fn packet(t_ms: f64, to_server: bool, len: usize, stall: Option<&str>) -> TimelinePacket {
        TimelinePacket {
            t_ms,
            to_server,
            flags: if len > 0 { "P." } else { "." }.into(),
            len,
            stall: stall.map(str::to_owned),
            after_call: false,
        }
    }

    fn with(results: &mut Results, mode: &str, p50_us: f64, packets: Vec<TimelinePacket>) {
        let mut r = results.runs[0].clone();
        r.experiment = EXP.into();
        r.operation = format!("echoFloat/{mode}");
        r.p50_us = p50_us;
        r.settings.placement.kind = PlacementKind::CrossCpu;
        results.runs.push(r);
        let call = CallTimeline {
            ms: p50_us / 1e3,
            status: Some(200),
            error: None,
            packets,
        };
        results.traces.push(TraceRecord {
            experiment: EXP.into(),
            operation: "echoFloat".into(),
            mode: mode.into(),
            command: format!("soapstone trace URL --naive {mode}"),
            pcap: Some(format!("logs/causes-echoFloat-{mode}.pcap")),
            capture_error: None,
            calls: 10,
            packets_per_call: Some(call.packets.len() as f64),
            stalls: call.stalls().iter().map(|s| (s.to_string(), 9)).collect(),
            median_call: Some(call),
            lan: false,
            rate_mbit: None,
            same_cpu: false,
        });
    }

    #[test]
    fn names_only_the_stalls_the_capture_shows() {
        let mut r = sample();
        r.experiments.push(EXP.into());
        with(
            &mut r,
            "cured",
            50.0,
            vec![
                packet(0.01, true, 300, None),
                packet(0.04, false, 400, None),
            ],
        );
        with(
            &mut r,
            "server",
            41_000.0,
            vec![
                packet(0.01, true, 300, None),
                packet(0.05, false, 116, None),
                packet(40.85, true, 0, Some(DELAYED_ACK)),
                packet(40.9, false, 274, Some(NAGLE)),
            ],
        );
        let s = section(&r);
        let f = s.findings.join("\n");
        assert!(f.contains("held 40.8 ms"), "{f}");
        assert!(f.contains("×820"), "{f}");
        let t = &s.tables[0];
        let server = t
            .rows
            .iter()
            .find(|r| r.cells[0].starts_with("server"))
            .unwrap();
        assert_eq!(server.cells[1], "41.0 ms");
        assert!(
            server.cells[6].contains("delayed ACK +40.8 ms, Nagle"),
            "{:?}",
            server.cells
        );
        assert!(server.cells[6].contains("(9 of 10 calls)"));
        let cured = t
            .rows
            .iter()
            .find(|r| r.cells[0].starts_with("cured"))
            .unwrap();
        assert_eq!(cured.cells[6], "none");
        // The published rows are there, and a chart per operation.
        assert!(t.rows.iter().any(|r| r.cells[0].contains("Table 4")));
        assert_eq!(s.charts.len(), 1);
        // No capture: said so, and no stall named.
        for t in &mut r.traces {
            t.capture_error = Some("packet capture not permitted on `lo`".into());
        }
        let s = section(&r);
        let f = s.findings.join("\n");
        assert!(
            f.contains("could not run") && !f.contains("held 40.8"),
            "{f}"
        );
        let server = s.tables[0]
            .rows
            .iter()
            .find(|r| r.cells[0].starts_with("server"))
            .unwrap();
        assert_eq!(server.cells[6], "not captured");
    }

    #[test]
    fn the_lan_rows_and_lanes_stand_beside_loopback_with_their_ratio() {
        let mut r = sample();
        r.experiments.push(EXP.into());
        let answer = || vec![packet(0.01, true, 300, None), packet(0.2, false, 400, None)];
        with(&mut r, "cured", 50.0, answer());
        with(&mut r, "server", 41_000.0, answer());
        // Without LAN records: no LAN block, no LAN chart, and the intro says why.
        r.lan = Some("not run (`--lan off`)".into());
        let s = section(&r);
        assert!(!s.tables[0].rows.iter().any(|r| r.cells[0].contains("LAN")));
        assert_eq!(s.charts.len(), 1);
        assert!(
            s.intro.contains("did not run (not run (`--lan off`))"),
            "{}",
            s.intro
        );
        let n = r.runs.len();
        let t = r.traces.len();
        with(&mut r, "cured", 200.0, answer());
        with(&mut r, "server", 42_000.0, answer());
        for run in &mut r.runs[n..] {
            run.settings.placement.kind = PlacementKind::Lan;
            run.operation = format!("{}@lan-100mbit", run.operation);
        }
        for trace in &mut r.traces[t..] {
            (trace.lan, trace.rate_mbit) = (true, Some(100));
            trace.pcap = trace
                .pcap
                .as_ref()
                .map(|p| p.replace("causes-", "causes-lan100-"));
        }
        // The 10 Mbit/s point and the same-CPU captures, each a block of its own.
        for (net, cured_us) in [(Network::Lan(10), 300.0), (Network::SameCpu, 40.0)] {
            let (n, t) = (r.runs.len(), r.traces.len());
            with(&mut r, "cured", cured_us, answer());
            for run in &mut r.runs[n..] {
                run.operation = net.operation("echoFloat", "cured");
            }
            for trace in &mut r.traces[t..] {
                trace.lan = net != Network::SameCpu;
                trace.rate_mbit = trace.lan.then_some(10);
                trace.same_cpu = net == Network::SameCpu;
            }
        }
        r.lan = Some("two network namespaces joined by a veth pair".into());
        let s = section(&r);
        let rows = &s.tables[0].rows;
        let at = rows
            .iter()
            .position(|r| r.cells[0].contains("emulated LAN at 100 Mbit/s"))
            .expect("a LAN block");
        let same = rows
            .iter()
            .position(|r| r.cells[0].contains("one CPU"))
            .expect("a same-CPU block");
        assert!(same < at, "loopback's blocks come first");
        assert_eq!(rows[same + 1].cells[1..4], ["40.0 µs", "×1.00", "×0.80"]);
        let ten = rows
            .iter()
            .position(|r| r.cells[0].contains("emulated LAN at 10 Mbit/s"))
            .expect("a 10 Mbit/s block");
        assert_eq!(rows[ten + 1].cells[1..4], ["300 µs", "×1.00", "×6.00"]);
        let lan_cured = &rows[at + 1].cells;
        assert!(lan_cured[0].starts_with("cured"), "{lan_cured:?}");
        assert_eq!(lan_cured[1], "200 µs");
        assert_eq!(lan_cured[3], "×4.00");
        let lan_server = &rows[at + 2].cells;
        assert_eq!(lan_server[2], "×210");
        // Loopback rows keep their own cured and leave the LAN column empty.
        let lo_server = rows
            .iter()
            .find(|r| r.cells[0].starts_with("server"))
            .unwrap();
        assert_eq!(
            (lo_server.cells[2].as_str(), lo_server.cells[3].as_str()),
            ("×820", "")
        );
        assert!(rows
            .iter()
            .all(|r| r.cells.len() == 7 || r.cells.len() == 1));
        assert_eq!(s.charts.len(), 4);
        assert!(s.charts[1].contains("one CPU"), "{}", s.charts[1]);
        assert!(s.charts[2].contains("emulated LAN at 100 Mbit/s"));
        assert!(s.charts[3].contains("emulated LAN at 10 Mbit/s"));
        let f = s.findings.join("\n");
        assert!(
            f.contains("echoFloat on the emulated LAN at 100 Mbit/s against loopback (median over median): cured ×4.00, server ×1.02"),
            "{f}"
        );
        assert!(f.contains("echoFloat on the emulated LAN at 10 Mbit/s against loopback (median over median): cured ×6.00."), "{f}");
        assert!(
            s.intro.contains("The emulated LAN: two network namespaces"),
            "{}",
            s.intro
        );
    }

    #[test]
    fn the_cured_call_is_set_beside_the_normal_path() {
        let mut r = sample();
        with(&mut r, "cured", 38.0, Vec::new());
        assert_eq!(cured_vs_normal(&r), None, "no same-CPU trace, no sweep");
        r.runs.last_mut().unwrap().operation = Network::SameCpu.operation("echoFloat", "cured");
        let mut bench = r.runs[0].clone();
        bench.experiment = EXP.into();
        bench.operation = overhead_op(false, 389);
        bench.settings.request_bytes = Some(389);
        bench.p50_us = 20.0;
        r.runs.push(bench);
        let f = cured_vs_normal(&r).unwrap();
        assert!(f.contains("38.0 µs per captured call"), "{f}");
        assert!(
            f.contains("against 20.0 µs per call through `soapstone bench` (389 request bytes"),
            "{f}"
        );
        assert!(f.contains("×1.90: the capture"), "{f}");
        r.runs.last_mut().unwrap().p50_us = 36.0;
        assert!(cured_vs_normal(&r)
            .unwrap()
            .ends_with("the same within noise."));
    }

    #[test]
    fn the_fixed_overhead_is_the_intercept() {
        let (a, b) = fit(&[(200.0, 60.0), (1224.0, 70.0), (4296.0, 100.0)]).unwrap();
        assert!(
            (b - 10.0 / 1024.0).abs() < 1e-9 && (a - 58.046_875).abs() < 1e-6,
            "{a} {b}"
        );
        assert_eq!(fit(&[(1.0, 2.0)]), None);
        assert_eq!(fit(&[(1.0, 2.0), (1.0, 3.0)]), None);
    }
}
