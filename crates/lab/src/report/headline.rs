//! The report's first screen: soapstone's echoFloat rate against the raw TCP floor, gRPC and an
//! empty HTTP reply, same-CPU and cross-CPU, as ratios. Built only from the `echo` experiment's
//! runs; when those are missing the headline says so instead of showing anything else.

use super::svg::BarChart;
use super::{fmt, Row, Table};
use crate::results::{PlacementKind, Results};
use crate::seeds;

/// The systems of the headline comparison: (system id, description).
pub(crate) const BASELINES: &[(&str, &str)] = &[
    ("tcp-pingpong", "raw TCP round trip, same bytes: the floor"),
    ("grpc", "gRPC (tonic, HTTP/2 + protobuf)"),
    ("http-noop", "HTTP/1.1 server (hyper) with an empty reply"),
];

const PLACEMENTS: [PlacementKind; 2] = [PlacementKind::SameCpu, PlacementKind::CrossCpu];

/// The headline block.
#[derive(Debug, Clone)]
pub(crate) struct Headline {
    /// One or two sentences a person reads first.
    pub(crate) summary: String,
    /// The ratios (empty when the echo experiment did not run).
    pub(crate) table: Option<Table>,
    pub(crate) chart: Option<String>,
}

fn rate(results: &Results, system: &str, p: PlacementKind) -> Option<f64> {
    results
        .get("echo", system, "echoFloat", p)
        .map(|r| r.throughput_rps)
        .filter(|v| *v > 0.0)
}

impl Headline {
    pub(crate) fn from_results(results: &Results) -> Headline {
        let soap = PLACEMENTS.map(|p| rate(results, "soapstone", p));
        if soap.iter().all(Option::is_none) {
            return Headline {
                summary: "The echoFloat experiment (`echo`) did not run or produced no \
                          soapstone measurement, so there is no headline; the tables below \
                          show what was measured."
                    .to_owned(),
                table: None,
                chart: None,
            };
        }
        let mut rows = vec![Row::group("messages per second (mean round trip in µs)")];
        let cell = |v: Option<f64>| match v {
            Some(v) => format!("{} ({} µs)", fmt::count(v), fmt::us(1e6 / v)),
            None => "–".to_owned(),
        };
        rows.push(Row::today(vec![
            "soapstone: SOAP 1.1 over HTTP/1.1".to_owned(),
            cell(soap[0]),
            cell(soap[1]),
        ]));
        let mut chart = BarChart {
            title: "echoFloat: messages per second, one client, one call at a time".to_owned(),
            unit: "messages per second (higher is better)".to_owned(),
            log: false,
            series: PLACEMENTS.iter().map(|p| p.label().to_owned()).collect(),
            groups: vec![("soapstone".to_owned(), soap.to_vec())],
        };
        let mut ratio_rows = vec![Row::group(
            "soapstone's rate ÷ the other's (1.00 = as fast; above 1 = soapstone faster)",
        )];
        let mut parts: [Vec<String>; 2] = [Vec::new(), Vec::new()];
        let mut ratios: Vec<[Option<f64>; 2]> = Vec::new();
        for (system, what) in BASELINES {
            let other = PLACEMENTS.map(|p| rate(results, system, p));
            rows.push(Row::today(vec![
                format!("{system}: {what}"),
                cell(other[0]),
                cell(other[1]),
            ]));
            chart.groups.push(((*system).to_owned(), other.to_vec()));
            let r = [0, 1].map(|i| match (soap[i], other[i]) {
                (Some(s), Some(o)) => Some(s / o),
                _ => None,
            });
            ratio_rows.push(Row::today(vec![
                format!("soapstone ÷ {system}"),
                r[0].map(fmt::ratio).unwrap_or_else(|| "–".to_owned()),
                r[1].map(fmt::ratio).unwrap_or_else(|| "–".to_owned()),
            ]));
            for i in 0..2 {
                if let Some(x) = r[i] {
                    parts[i].push(format!("{} {}", fmt::ratio(x), phrase(system)));
                }
            }
            ratios.push(r);
        }
        let axis = seeds::RUBY_ECHO.value("Apache xml-axis", 0);
        if let Some(axis) = axis {
            ratio_rows.push(Row::published(vec![
                format!(
                    "soapstone ÷ Apache Axis in 2001 ({} msg/s, Ruby 2001)",
                    fmt::ms(axis)
                ),
                soap[0]
                    .map(|s| fmt::ratio(s / axis))
                    .unwrap_or_else(|| "–".to_owned()),
                soap[1]
                    .map(|s| fmt::ratio(s / axis))
                    .unwrap_or_else(|| "–".to_owned()),
            ]));
        }
        rows.extend(ratio_rows);
        let (where_, value, i) = match soap {
            [Some(s), _] => ("on one CPU", s, 0),
            [None, Some(s)] => ("across two CPUs", s, 1),
            [None, None] => unreachable!("checked above"),
        };
        let mut summary = format!(
            "soapstone answers {} echoFloat calls per second {where_}",
            fmt::count(value)
        );
        if !parts[i].is_empty() {
            summary.push_str(&format!(": {}", join_and(&parts[i])));
        }
        summary.push('.');
        if let (0, Some(c)) = (i, soap[1]) {
            summary.push_str(&format!(" Across two CPUs: {} per second", fmt::count(c)));
            let short: Vec<String> = BASELINES
                .iter()
                .zip(&ratios)
                .filter_map(|((sys, _), r)| r[1].map(|x| format!("{} {sys}", fmt::ratio(x))))
                .collect();
            if !short.is_empty() {
                summary.push_str(&format!(", {}", join_and(&short)));
            }
            summary.push('.');
        }
        summary.push_str(
            " (Sam Ruby's test: one client, each call answered before the next is sent; \
             each ratio is soapstone's rate ÷ the other system's.)",
        );
        Headline {
            summary,
            table: Some(Table {
                title: "Headline: echoFloat round trips".to_owned(),
                source: String::new(),
                note: "same CPU: client and server pinned with `taskset -c` to one CPU; \
                       cross-CPU: pinned to two different CPUs."
                    .to_owned(),
                header: vec![
                    "system".to_owned(),
                    PlacementKind::SameCpu.label().to_owned(),
                    PlacementKind::CrossCpu.label().to_owned(),
                ],
                rows,
            }),
            chart: Some(chart.render()),
        }
    }
}

/// How the summary names a baseline's rate.
fn phrase(system: &str) -> &'static str {
    match system {
        "tcp-pingpong" => "raw TCP moving the same bytes (the floor)",
        "grpc" => "gRPC",
        "http-noop" => "an HTTP/1.1 server sending an empty reply",
        _ => "the baseline",
    }
}

fn join_and(parts: &[String]) -> String {
    match parts {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}
