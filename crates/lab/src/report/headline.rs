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
        let mut floor_broken: Vec<String> = Vec::new();
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
            // Faster than the floor means the floor's point was slowed by something else
            // (other work on the pinned CPU): marked, never shown as a plain result.
            let below_floor = |x: f64| *system == "tcp-pingpong" && x > 1.0;
            let ratio_cell = |x: Option<f64>| match x {
                Some(x) if below_floor(x) => format!("⚠ above the floor: {}", fmt::ratio(x)),
                Some(x) => fmt::ratio(x),
                None => "–".to_owned(),
            };
            for (i, p) in PLACEMENTS.iter().enumerate() {
                if let Some(x) = r[i].filter(|x| below_floor(*x)) {
                    floor_broken.push(format!("{} ({})", p.label(), fmt::ratio(x)));
                }
            }
            ratio_rows.push(Row::today(vec![
                format!("soapstone ÷ {system}"),
                ratio_cell(r[0]),
                ratio_cell(r[1]),
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
        if !floor_broken.is_empty() {
            let load = results
                .host
                .load_at_start
                .map(|l| format!(" (load average {l:.2} at the start)"))
                .unwrap_or_default();
            summary.push_str(&format!(
                " ⚠ soapstone measured faster than raw TCP moving the same bytes, which no \
                 protocol can be, {}: that floor point was slowed by other work on the \
                 machine{load}, so these ratios are not a result; rerun on an idle machine.",
                join_and(&floor_broken)
            ));
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::tests::{run, sample};

    #[test]
    fn soapstone_faster_than_the_floor_is_marked_not_reported() {
        let mut results = sample();
        results.host.load_at_start = Some(16.89);
        // The full quick run at load 16.9: soapstone 101 µs a call, raw TCP 147 µs on one CPU.
        results.runs = vec![
            run(
                "soapstone",
                "echo",
                "echoFloat",
                PlacementKind::SameCpu,
                101.0,
            ),
            run(
                "tcp-pingpong",
                "echo",
                "echoFloat",
                PlacementKind::SameCpu,
                147.0,
            ),
            run(
                "soapstone",
                "echo",
                "echoFloat",
                PlacementKind::CrossCpu,
                112.0,
            ),
            run(
                "tcp-pingpong",
                "echo",
                "echoFloat",
                PlacementKind::CrossCpu,
                60.0,
            ),
        ];
        let h = Headline::from_results(&results);
        assert!(
            h.summary.contains(
                "⚠ soapstone measured faster than raw TCP moving the same bytes, which no \
                 protocol can be, same CPU (×1.46)"
            ),
            "{}",
            h.summary
        );
        assert!(h.summary.contains("(load average 16.89 at the start)"));
        let t = h.table.unwrap();
        let row = t
            .rows
            .iter()
            .find(|r| r.cells[0] == "soapstone ÷ tcp-pingpong")
            .unwrap();
        assert_eq!(row.cells[1], "⚠ above the floor: ×1.46");
        assert_eq!(
            row.cells[2], "×0.54",
            "slower than the floor: a plain ratio"
        );
    }
}
