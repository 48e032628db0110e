//! The report of García's Figs 14-16 (the response cache, [`super::wsb_cache`]): one table of
//! test2 on news and shop per server and cache state, the paper's figures beside, the cache's
//! effect as one ratio (on ÷ off, correct answers per second), and the test2 timelines binned on
//! the schedule's phases. Draws only from `results.json`; must never pair an `on` point with an
//! `off` point of another server or service.

use super::wsb::{phase_bins, phases_of, step_points, system_label};
use super::wsb_cache::{label, EXP, SERVICES, TEST};
use crate::report::svg::{LineChart, LineSeries};
use crate::report::{fmt, Row, Section, Table};
use crate::results::{Results, Run, Second};
use crate::seeds;

/// test2's full length in the paper (ten 30 s phases): its totals per second.
const SEED_SECONDS: f64 = 300.0;

/// The servers measured here, soapstone first, then the peers in id order.
fn systems(results: &Results) -> Vec<String> {
    let mut peers: Vec<String> = results
        .runs
        .iter()
        .filter(|r| r.experiment == EXP && r.system != "soapstone")
        .map(|r| r.system.clone())
        .chain(axis2_from_wsb(results).then(|| "axis2".to_owned()))
        .collect();
    peers.sort();
    peers.dedup();
    let mut out = vec!["soapstone".to_owned()];
    out.extend(peers);
    out
}

/// Whether Axis2's reference points come from the `wsb` section's test2 (same run).
fn axis2_from_wsb(results: &Results) -> bool {
    !results
        .runs
        .iter()
        .any(|r| r.experiment == EXP && r.system == "axis2")
        && SERVICES.iter().any(|s| {
            !results
                .find("wsb", "axis2", &format!("{TEST}/{s}"))
                .is_empty()
        })
}

/// The point of `system` on `service` with the cache `cache` (`None`: a server without one).
fn point<'a>(
    results: &'a Results,
    system: &str,
    service: &str,
    cache: Option<bool>,
) -> Option<&'a Run> {
    let op = format!("{TEST}/{service}");
    let own = results
        .find(EXP, system, &op)
        .into_iter()
        .find(|r| cache.is_none_or(|c| r.cache.as_deref() == Some(label(c))));
    own.or_else(|| {
        (cache != Some(true) && system == "axis2")
            .then(|| results.find("wsb", system, &op).first().copied())
            .flatten()
    })
}

/// The cache states measured for `system` (`None`: no switch, one point).
fn modes(results: &Results, system: &str) -> Vec<Option<bool>> {
    let switched = results
        .runs
        .iter()
        .any(|r| r.experiment == EXP && r.system == system && r.cache.as_deref() == Some("on"));
    if system == "soapstone" || switched {
        vec![Some(false), Some(true)]
    } else {
        vec![None]
    }
}

/// Correct answers (HTTP 200 to a checked request) per second over the whole test.
fn correct_per_s(r: &Run) -> Option<f64> {
    (r.settings.duration_s > 0.0).then(|| r.ok as f64 / r.settings.duration_s)
}

fn failed(r: &Run) -> u64 {
    r.errors + r.timeouts + r.unsent
}

fn peak(r: &Run) -> Option<f64> {
    r.peak_ok_per_second
        .or_else(|| r.timeline.iter().map(|s| s.ok).max())
        .map(|v| v as f64)
}

/// cache on ÷ off of correct answers per second, for one server and service.
fn on_over_off(results: &Results, system: &str, service: &str) -> Option<f64> {
    let on = correct_per_s(point(results, system, service, Some(true))?)?;
    let off = correct_per_s(point(results, system, service, Some(false))?)?;
    (off > 0.0).then(|| on / off)
}

/// cache on ÷ off of the p50 latency, for one server and service (below 1: faster with it).
fn p50_on_over_off(results: &Results, system: &str, service: &str) -> Option<f64> {
    let on = point(results, system, service, Some(true)).filter(|r| r.ok > 0)?;
    let off = point(results, system, service, Some(false)).filter(|r| r.ok > 0)?;
    (off.p50_us > 0.0).then(|| on.p50_us / off.p50_us)
}

fn cache_cell(mode: Option<bool>) -> &'static str {
    match mode {
        Some(true) => "on",
        Some(false) => "off",
        None => "none (reference)",
    }
}

/// The paper's rows for `service`: Fig. 11 (no cache) and §V's text (cache on).
fn published(service: &str) -> Vec<Row> {
    let fig = &seeds::GARCIA_FIG_11;
    // GARCIA_COLUMNS: shop Erlang, shop Axis2, card Erlang, card Axis2, news Erlang, news Axis2.
    let k = if service == "news" { 4 } else { 0 };
    let mut rows = Vec::new();
    for (j, server) in ["Erlang", "Axis2"].iter().enumerate() {
        let v = |metric: usize| fig.rows[metric].values[k + j];
        rows.push(Row::published(vec![
            format!(
                "{service}, {server}, {} (2008, Fig. 11)",
                if j == 0 { "off" } else { "none" }
            ),
            fmt::count(v(1) / SEED_SECONDS),
            format!("{:.1}", v(0)),
            fmt::count(v(2)),
            String::new(),
            String::new(),
            String::new(),
            String::new(),
        ]));
    }
    // §V gives the cached runs in words only (Figs 15-16 are plots without a table).
    let (peak, said) = match service {
        "news" => ("~150", "fewer errors, more correct answers"),
        _ => ("~700", "Axis2 ~200 at the end of the test"),
    };
    rows.push(Row::published(vec![
        format!(
            "{service}, Erlang, on (2008, §V text on Fig. {}: {said})",
            fig_of(service)
        ),
        String::new(),
        peak.to_owned(),
        String::new(),
        String::new(),
        String::new(),
        String::new(),
        String::new(),
    ]));
    rows
}

fn fig_of(service: &str) -> u32 {
    if service == "news" {
        15
    } else {
        16
    }
}

fn table(results: &Results) -> Table {
    let header = [
        "service, server, response cache",
        "correct answers (/s, mean over test2)",
        "highest rate (HTTP 200s in one second)",
        "errors + timeouts + unsent (count)",
        "p50 latency (ms)",
        "p99 latency (ms)",
        "cache on ÷ off (correct answers/s)",
        "cache on ÷ off (p50 latency)",
    ]
    .map(str::to_owned)
    .to_vec();
    let dash = || "–".to_owned();
    let mut rows = Vec::new();
    let mut length = None;
    for service in SERVICES {
        rows.push(Row::group(format!("{service} (Fig. {})", fig_of(service))));
        rows.extend(published(service));
        for system in systems(results) {
            for mode in modes(results, &system) {
                let mut name = format!(
                    "{service}, {}, {} (today)",
                    system_label(&system),
                    cache_cell(mode)
                );
                let Some(r) = point(results, &system, service, mode) else {
                    let mut cells = vec![format!("{name}: not measured (see the problems)")];
                    cells.resize(header.len(), dash());
                    rows.push(Row::today(cells));
                    continue;
                };
                if r.experiment != EXP {
                    name.push_str(", from the wsb section's test2");
                }
                if let Some(why) = crate::report::suspect::flag(r) {
                    name = format!("{name} ⚠ {why}");
                }
                length = Some(r.settings.duration_s).filter(|d| *d > 0.0);
                let ratio = |f: fn(&Results, &str, &str) -> Option<f64>| match mode {
                    Some(true) => f(results, &system, service)
                        .map(fmt::ratio)
                        .unwrap_or_else(dash),
                    _ => String::new(),
                };
                let ms = |v: f64| {
                    if r.ok > 0 {
                        fmt::us(v / 1000.0)
                    } else {
                        dash()
                    }
                };
                rows.push(Row::today(vec![
                    name,
                    correct_per_s(r).map(fmt::count).unwrap_or_else(dash),
                    peak(r).map(fmt::count).unwrap_or_else(dash),
                    fmt::count(failed(r) as f64),
                    ms(r.p50_us),
                    ms(r.p99_us),
                    ratio(on_over_off),
                    ratio(p50_on_over_off),
                ]));
            }
        }
    }
    Table {
        title: format!("García et al. 2008, Figs 14-16: {TEST} on news and shop, response cache off and on"),
        source: "García et al. 2008, Fig. 11 and §V (Figs 15-16 are plots; their cached figures are the text's)".to_owned(),
        note: format!(
            "2008: the Erlang server with and without its cache and Axis2 (no cache), a 300 s \
             test2 on a 100 Mbps LAN; correct answers/s = the figure's HTTP 200 total / 300 s. \
             Today: each server pinned to one CPU, the load generator on the other, test2's \
             rates (100 to 1000 requests/s) with its phases shortened to a {} s run; correct \
             answers/s = HTTP 200s / the run's length, each server's answers having been \
             checked twice (computed, then repeated: possibly cached) before timing. \
             Latencies are from the scheduled send time (queueing included), in milliseconds. \
             The ratio is always cache on ÷ cache off, of the same server and service in \
             this run (a server that answers every request on time has ×1.00 answers/s \
             whatever its cache: the offered rate; the p50 ratio then shows the cache). The \
             load repeats one request per service, as the seed's did, so with \
             the cache on every answer after the first is a hit.",
            length.map(fmt::count).unwrap_or_else(dash)
        ),
        header,
        rows,
    }
}

/// One chart per service and metric: every server and cache state on the test2 phases.
fn chart(results: &Results, service: &str, errors: bool) -> Option<String> {
    let (what, count): (&str, fn(&Second) -> u64) = if errors {
        ("errors + timeouts per second", |x| x.errors)
    } else {
        ("HTTP 200s per second", |x| x.ok)
    };
    let mut c = LineChart {
        title: format!(
            "Fig. {} redrawn: {TEST} on {service}, {what} (mean of each phase), cache off and on",
            fig_of(service)
        ),
        x_label: "seconds from start".to_owned(),
        y_label: "per second".to_owned(),
        x_nines: false,
        y_log: false,
        series: Vec::new(),
    };
    let mut requested = None;
    for system in systems(results) {
        for mode in modes(results, &system) {
            let Some(r) = point(results, &system, service, mode) else {
                continue;
            };
            if r.timeline.is_empty() {
                continue;
            }
            let bins = phase_bins(&r.timeline, &phases_of(&r.settings.schedule), count);
            c.series.push(LineSeries {
                name: format!("{}, cache {}", system_label(&system), cache_cell(mode)),
                points: step_points(&bins),
                dashed: mode == Some(false),
                step: false,
            });
            if requested.is_none() && !r.settings.schedule.is_empty() {
                requested = Some(r.settings.schedule.clone());
            }
        }
    }
    // No series, or an errors chart of zeros only (nothing to draw: its axis would be empty).
    let drawn = c.series.iter().flat_map(|s| &s.points).any(|p| p.1 > 0.0);
    if c.series.is_empty() || (errors && !drawn) {
        return None;
    }
    if let (Some(points), false) = (requested, errors) {
        c.series.push(LineSeries {
            name: "requested rate".to_owned(),
            points,
            dashed: true,
            step: false,
        });
    }
    Some(c.render())
}

fn findings(results: &Results) -> Vec<String> {
    let mut out = Vec::new();
    for service in SERVICES {
        let mut parts = Vec::new();
        for system in systems(results) {
            if modes(results, &system).len() < 2 {
                continue;
            }
            let (Some(off), Some(on)) = (
                point(results, &system, service, Some(false)),
                point(results, &system, service, Some(true)),
            ) else {
                continue;
            };
            parts.push(format!(
                "{} {} → {} correct answers/s (cache on ÷ off {}), errors {} → {}, p50 {} → {} ms",
                system_label(&system),
                correct_per_s(off)
                    .map(fmt::count)
                    .unwrap_or_else(|| "–".into()),
                correct_per_s(on)
                    .map(fmt::count)
                    .unwrap_or_else(|| "–".into()),
                on_over_off(results, &system, service)
                    .map(fmt::ratio)
                    .unwrap_or_else(|| "–".into()),
                fmt::count(failed(off) as f64),
                fmt::count(failed(on) as f64),
                fmt::us(off.p50_us / 1000.0),
                fmt::us(on.p50_us / 1000.0),
            ));
        }
        if !parts.is_empty() {
            out.push(format!(
                "{TEST} on {service}, cache off → on: {}.",
                parts.join("; ")
            ));
        }
    }
    out
}

pub(crate) fn section(results: &Results) -> Section {
    Section {
        id: EXP.to_owned(),
        title: "A response cache under test2 (García et al. 2008, Figs 14-16)".to_owned(),
        intro: "García et al. gave their Erlang server a cache of the answers to identical \
                requests, consulted before a process was spawned for the request, and reran \
                test2 on the news and online store services. Here the same test2 runs on \
                soapstone with its response cache off and on (`serve --response-cache \
                news,shop`: answers keyed on the canonical request, at most 1,024 answers and \
                32 MiB per operation by default, faults never kept, the card never cached), on \
                the Erlang stand-in off and on (an ETS table keyed on the request body, 1,024 \
                entries and 32 MiB), and on Axis2 without a cache as the paper's reference."
            .to_owned(),
        findings: findings(results),
        tables: vec![table(results)],
        charts: SERVICES
            .iter()
            .flat_map(|s| [chart(results, s, false), chart(results, s, true)])
            .flatten()
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::tests::run as fake;
    use crate::results::PlacementKind;

    fn point_of(system: &str, service: &str, cache: Option<&str>, ok: u64, errors: u64) -> Run {
        let mut r = fake(
            system,
            EXP,
            &format!("{TEST}/{service}"),
            PlacementKind::CrossCpu,
            1000.0,
        );
        r.ok = ok;
        r.errors = errors;
        r.timeouts = 0;
        r.unsent = 0;
        r.settings.duration_s = 10.0;
        r.cache = cache.map(str::to_owned);
        r
    }

    #[test]
    fn ratios_pair_the_same_server_and_service_and_axis2_comes_from_wsb() {
        let mut results = crate::report::tests::sample();
        results.experiments = vec!["wsb".into(), EXP.into()];
        results.runs = vec![
            point_of("soapstone", "news", Some("off"), 1000, 0),
            point_of("soapstone", "news", Some("on"), 3000, 0),
            point_of("erlang", "news", Some("off"), 100, 400),
            point_of("erlang", "news", Some("on"), 500, 10),
            point_of("soapstone", "shop", Some("off"), 2000, 0),
            point_of("soapstone", "shop", Some("on"), 2000, 0),
        ];
        let mut axis = point_of("axis2", "news", None, 800, 5);
        axis.experiment = "wsb".into();
        results.runs.push(axis);
        // results.json: `cache` on the switched points only.
        let json = serde_json::to_value(&results.runs).unwrap();
        assert_eq!(json[1]["cache"], "on");
        assert_eq!(json[0]["cache"], "off");
        assert!(json[6].get("cache").is_none(), "{}", json[6]);
        assert_eq!(on_over_off(&results, "soapstone", "news"), Some(3.0));
        assert_eq!(on_over_off(&results, "erlang", "news"), Some(5.0));
        assert_eq!(on_over_off(&results, "soapstone", "shop"), Some(1.0));
        assert_eq!(
            on_over_off(&results, "erlang", "shop"),
            None,
            "not measured"
        );
        assert_eq!(systems(&results), ["soapstone", "axis2", "erlang"]);
        assert_eq!(modes(&results, "axis2"), [None]);
        let t = table(&results);
        let cells = |prefix: &str| {
            t.rows
                .iter()
                .find(|r| r.cells[0].starts_with(prefix))
                .unwrap_or_else(|| panic!("no row `{prefix}`"))
                .cells
                .clone()
        };
        let on = cells("news, soapstone, on (today)");
        assert_eq!((on[1].as_str(), on[6].as_str()), ("300", "×3.00"));
        let erl = cells("news, Erlang (inets stand-in), on (today)");
        assert_eq!((erl[3].as_str(), erl[6].as_str()), ("10", "×5.00"));
        let axis = cells("news, Axis2 2.0, none (reference) (today), from the wsb");
        assert_eq!(axis[1], "80");
        assert!(cells("shop, Erlang (inets stand-in), off (today): not measured")[1] == "–");
        // The paper's rows: Fig. 11's news Erlang total over 300 s, and §V's cached peak.
        assert_eq!(cells("news, Erlang, off (2008, Fig. 11)")[1], "57");
        assert_eq!(cells("news, Erlang, on (2008, §V")[2], "~150");
        assert!(t
            .rows
            .iter()
            .all(|r| r.cells.len() == 1 || r.cells.len() == t.header.len()));
        // p50 ratio: the fake runs share one p50.
        assert_eq!(on[7], "×1.00");
        let f = findings(&results);
        assert!(
            f[0].contains("soapstone 100 → 300 correct answers/s (cache on ÷ off ×3.00)"),
            "{f:?}"
        );
        // No error in any timeline: only the two 200s charts are drawn.
        assert_eq!(section(&results).charts.len(), 2);
        for r in &mut results.runs {
            r.timeline = vec![Second {
                t: 0.0,
                requests: 10,
                ok: 10,
                errors: u64::from(r.system == "erlang"),
            }];
        }
        // news: 200s and errors (Erlang's); shop: 200s only.
        assert_eq!(section(&results).charts.len(), 3);
    }
}
