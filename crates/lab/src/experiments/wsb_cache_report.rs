//! The report of García's Figs 14-16 (the response cache, [`super::wsb_cache`]): per service a
//! table of test2 (its rates raised until the uncached server saturates) on every server and
//! cache state with the paper's figures beside, one table of the cache's gain where each
//! uncached server saturates and at test2's top step, and per service and server a chart of
//! the 200s per second binned on the schedule's phases. Draws only from `results.json`; must
//! never pair an `on` point with an `off` point of another server, service or rate scale.

use super::wsb::{phase_bins, phases_of, step_points, system_label};
use super::wsb_cache::{label, probe_op, EXP, OVERLOAD, SERVICES, TEST};
use crate::report::svg::{LineChart, LineSeries};
use crate::report::{fmt, Row, Section, Table};
use crate::results::{Results, Run, Second};
use crate::seeds;

/// test2's full length in the paper (ten 30 s phases): its totals per second.
const SEED_SECONDS: f64 = 300.0;
/// A step saturates the server when fewer than this share of its offered rate came back as
/// 200s during it.
const SATURATED: f64 = 0.9;

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

/// The uncached capacity probe of `system` on `service`.
fn probe<'a>(results: &'a Results, system: &str, service: &str) -> Option<&'a Run> {
    results
        .find(EXP, system, &probe_op(service))
        .first()
        .copied()
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

/// Correct answers (HTTP 200 to a checked request) that arrived while the schedule ran, per
/// second of it. Not all 200s over its length: a backlog answered after the schedule ended
/// (within the 20 s timeout) would make every server's figure the offered mean, cache or not.
/// Each system that ran `service` both with its cache off and on: the system, then its
/// uncached and cached run.
fn cache_pairs<'a>(results: &'a Results, service: &str) -> Vec<(String, &'a Run, &'a Run)> {
    systems(results)
        .into_iter()
        .filter(|system| modes(results, system).len() == 2)
        .filter_map(|system| {
            let off = point(results, &system, service, Some(false))?;
            let on = point(results, &system, service, Some(true))?;
            Some((system, off, on))
        })
        .collect()
}

fn correct_per_s(r: &Run) -> Option<f64> {
    let d = r.settings.duration_s;
    if d <= 0.0 {
        return None;
    }
    if r.timeline.is_empty() {
        return Some(r.ok as f64 / d);
    }
    let ok: fn(&Second) -> u64 = |x| x.ok;
    phase_bins(&r.timeline, &[(0.0, d)], ok)
        .first()
        .map(|b| b.2)
}

fn failed(r: &Run) -> u64 {
    r.errors + r.timeouts + r.unsent
}

fn peak(r: &Run) -> Option<f64> {
    r.peak_ok_per_second
        .or_else(|| r.timeline.iter().map(|s| s.ok).max())
        .map(|v| v as f64)
}

/// The offered rates of `r`'s steps (requests/s), in order.
fn offered(r: &Run) -> Vec<f64> {
    r.settings
        .schedule
        .chunks_exact(2)
        .map(|p| p[0].1)
        .collect()
}

/// The multiple of test2's rates `r` ran at (its first step over test2's 100/s).
fn scale_of(r: &Run) -> Option<f64> {
    offered(r).first().map(|first| first / 100.0)
}

/// `100 to 1,000 /s (×1)`.
fn steps_cell(r: &Run) -> String {
    let o = offered(r);
    match (o.first(), o.last(), scale_of(r)) {
        (Some(a), Some(b), Some(k)) => {
            let k = if k.fract() == 0.0 {
                format!("{k:.0}")
            } else {
                format!("{k}")
            };
            format!("{} to {} (×{k})", fmt::count(*a), fmt::count(*b))
        }
        _ => "–".to_owned(),
    }
}

/// The 200s per second that came back during each step (the timeline binned on the phases).
fn ok_per_step(r: &Run) -> Vec<f64> {
    let ok: fn(&Second) -> u64 = |x| x.ok;
    phase_bins(&r.timeline, &phases_of(&r.settings.schedule), ok)
        .into_iter()
        .map(|(_, _, v)| v)
        .collect()
}

/// The first step (0-based) in which `r`'s server answered fewer than [`SATURATED`] of the
/// offered rate: where the server stopped keeping up.
fn saturation_step(r: &Run) -> Option<usize> {
    offered(r)
        .iter()
        .zip(ok_per_step(r))
        .position(|(rate, ok)| ok < SATURATED * rate)
}

/// Step `i`'s 99th percentile of `r` in milliseconds (the requests due in it, queueing
/// included).
fn step_p99_ms(r: &Run, i: usize) -> Option<f64> {
    r.phases.get(i)?.p99_us.map(|v| v / 1000.0)
}

fn cache_cell(mode: Option<bool>) -> &'static str {
    match mode {
        Some(true) => "on",
        Some(false) => "off",
        None => "none (reference)",
    }
}

/// A point's flag, except the queueing one: these schedules overload the uncached server on
/// purpose, so its long p99 is the result, not a measurement fault.
fn flag(r: &Run) -> Option<String> {
    crate::report::suspect::flag(r).filter(|why| !why.starts_with("p99 longer than its window"))
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
                "{server}, {} (2008, Fig. 11)",
                if j == 0 { "off" } else { "none" }
            ),
            "100 to 1,000 (×1)".to_owned(),
            fmt::count(v(1) / SEED_SECONDS),
            format!("{:.1}", v(0)),
            fmt::count(v(2)),
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
            "Erlang, on (2008, §V text on Fig. {}: {said})",
            fig_of(service)
        ),
        "100 to 1,000 (×1)".to_owned(),
        String::new(),
        peak.to_owned(),
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

/// The header of [`table`]: one unit per column.
const HEADER: [&str; 7] = [
    "server, response cache",
    "test2 steps (requests/s)",
    "correct answers during the test (/s)",
    "highest rate (HTTP 200s in one second)",
    "errors + timeouts + unsent (count)",
    "p50 latency (ms)",
    "p99 latency (ms)",
];

/// One service's table: every server and cache state over the whole (raised) test2.
fn table(results: &Results, service: &str) -> Table {
    let header: Vec<String> = HEADER.map(str::to_owned).to_vec();
    let dash = || "–".to_owned();
    let mut rows = published(service);
    let mut length = None;
    for system in systems(results) {
        for mode in modes(results, &system) {
            let mut name = format!("{}, {} (today)", system_label(&system), cache_cell(mode));
            let Some(r) = point(results, &system, service, mode) else {
                let mut cells = vec![format!("{name}: not measured (see the problems)")];
                cells.resize(header.len(), dash());
                rows.push(Row::today(cells));
                continue;
            };
            if r.experiment != EXP {
                name.push_str(", from the wsb section");
            }
            if let Some(why) = flag(r) {
                name = format!("{name} ⚠ {why}");
            }
            length = Some(r.settings.duration_s).filter(|d| *d > 0.0);
            let ms = |v: f64| {
                if r.ok > 0 {
                    fmt::us(v / 1000.0)
                } else {
                    dash()
                }
            };
            rows.push(Row::today(vec![
                name,
                steps_cell(r),
                correct_per_s(r).map(fmt::count).unwrap_or_else(dash),
                peak(r).map(fmt::count).unwrap_or_else(dash),
                fmt::count(failed(r) as f64),
                ms(r.p50_us),
                ms(r.p99_us),
            ]));
        }
    }
    Table {
        title: format!(
            "García et al. 2008, Fig. {}: {TEST} on {service} with its rates raised past the \
             uncached server's capacity, response cache off and on",
            fig_of(service)
        ),
        source: "García et al. 2008, Fig. 11 and §V (Figs 15-16 are plots; their cached figures \
                 are the text's)"
            .to_owned(),
        note: format!(
            "2008: the Erlang server with and without its cache and Axis2 (no cache), a 300 s \
             test2 (100 to 1000 requests/s) on a 100 Mbps LAN, which the uncached Erlang server \
             could not keep up with; correct answers/s = the figure's HTTP 200 total / 300 s. \
             Today: each server pinned to one CPU, the load generator on the other; each \
             server's uncached capacity on {service} probed first (32 closed-loop connections), \
             then test2's ten steps with every rate times k so that the top step offers \
             {OVERLOAD:.0}× that capacity (the same k with the cache off and on; Axis2, \
             without a cache, is the wsb section's unraised test2 when that section ran, and \
             raised like the others otherwise), its phases shortened to a {} s run; correct \
             answers/s = the HTTP 200s that arrived while the schedule ran, per second of it \
             (a backlog answered after it, within the 20 s timeout, is not counted here but is \
             not an error either). Each server's answers were checked twice (computed, \
             then repeated: possibly cached) before timing. Latencies are from the scheduled \
             send time (queueing included), in milliseconds: past saturation they are the \
             backlog's wait, which is what the cache removes. The load repeats one request, as \
             the seed's did, so with the cache on every answer after the first is a hit.",
            length.map(fmt::count).unwrap_or_else(dash)
        ),
        header,
        rows,
    }
}

/// The gain table: for each server with both states and each service, the step where the
/// uncached server saturated and test2's top step, cache off beside cache on.
fn gain_table(results: &Results) -> Option<Table> {
    let header = [
        "service, server, test2 step",
        "offered (requests/s)",
        "correct answers, cache off (/s)",
        "correct answers, cache on (/s)",
        "cache on ÷ off (correct answers/s)",
        "p99 latency, cache off (ms)",
        "p99 latency, cache on (ms)",
    ]
    .map(str::to_owned)
    .to_vec();
    let dash = || "–".to_owned();
    let mut rows = Vec::new();
    for service in SERVICES {
        for (system, off, on) in cache_pairs(results, service) {
            let who = format!("{service}, {}", system_label(&system));
            if scale_of(off) != scale_of(on) {
                let mut cells = vec![format!(
                    "{who}: not compared (cache off and on ran at different rates)"
                )];
                cells.resize(header.len(), dash());
                rows.push(Row::today(cells));
                continue;
            }
            let rates = offered(off);
            let top = rates.len().saturating_sub(1);
            let steps: Vec<(usize, &str)> = match saturation_step(off) {
                Some(i) if i < top => vec![(i, "saturation"), (top, "top")],
                Some(i) => vec![(i, "saturation and top")],
                None => vec![(top, "top: the uncached server never saturated")],
            };
            let (ok_off, ok_on) = (ok_per_step(off), ok_per_step(on));
            for (i, what) in steps {
                let (a, b) = (ok_off.get(i).copied(), ok_on.get(i).copied());
                let ms = |r: &Run| step_p99_ms(r, i).map(fmt::us).unwrap_or_else(dash);
                rows.push(Row::today(vec![
                    format!("{who}, step {} ({what})", i + 1),
                    rates.get(i).copied().map(fmt::count).unwrap_or_else(dash),
                    a.map(fmt::count).unwrap_or_else(dash),
                    b.map(fmt::count).unwrap_or_else(dash),
                    match (a, b) {
                        (Some(a), Some(b)) if a > 0.0 => fmt::ratio(b / a),
                        _ => dash(),
                    },
                    ms(off),
                    ms(on),
                ]));
            }
        }
    }
    (!rows.is_empty()).then(|| Table {
        title: format!("The cache's gain where the uncached server saturates ({TEST} raised)"),
        source: "García et al. 2008 §V: news on the Erlang server from ~30 to ~150 correct \
                 answers/s with the cache"
            .to_owned(),
        note: format!(
            "A step saturates the server when fewer than {:.0}% of its offered rate came back \
             as HTTP 200s during it; the first such step of the uncached run is compared with \
             the same step of the cached run (same server, service and rates), and so is the \
             top step ({OVERLOAD:.0}× the uncached capacity). Correct answers/s = the 200s \
             that arrived during the step, per second of it; p99 = the 99th percentile latency \
             of the requests due in the step, from their scheduled send time, in \
             milliseconds. The ratio is always cache on ÷ cache off.",
            SATURATED * 100.0
        ),
        header,
        rows,
    })
}

/// One chart per service and server with both states: 200s per second on the phases.
fn chart(results: &Results, service: &str, system: &str) -> Option<String> {
    let k = point(results, system, service, Some(false))
        .or_else(|| point(results, system, service, None))
        .and_then(scale_of)
        .map(|k| format!(" ×{k}"))
        .unwrap_or_default();
    // Short enough for a half-width chart at 1280 px (the phases' binning is in the note).
    let mut c = LineChart {
        title: format!(
            "Fig. {}: {service} on {}, {TEST}{k}: HTTP 200s and errors /s",
            fig_of(service),
            system_label(system)
        ),
        x_label: "seconds from start".to_owned(),
        y_label: "per second".to_owned(),
        x_nines: false,
        y_log: false,
        series: Vec::new(),
    };
    let mut requested = None;
    for mode in modes(results, system) {
        let Some(r) = point(results, system, service, mode) else {
            continue;
        };
        if r.timeline.is_empty() || r.experiment != EXP {
            continue;
        }
        let phases = phases_of(&r.settings.schedule);
        let bins = phase_bins(&r.timeline, &phases, |x| x.ok);
        c.series.push(LineSeries {
            name: format!("200s, cache {}", cache_cell(mode)),
            points: step_points(&bins),
            dashed: mode == Some(false),
            step: false,
        });
        let errors = phase_bins(&r.timeline, &phases, |x| x.errors);
        if errors.iter().any(|b| b.2 > 0.0) {
            c.series.push(LineSeries {
                name: format!("errors + timeouts, cache {}", cache_cell(mode)),
                points: step_points(&errors),
                dashed: true,
                step: false,
            });
        }
        if requested.is_none() && !r.settings.schedule.is_empty() {
            requested = Some(r.settings.schedule.clone());
        }
    }
    if c.series.is_empty() {
        return None;
    }
    if let Some(points) = requested {
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
        for (system, off, on) in cache_pairs(results, service) {
            let capacity = probe(results, &system, service)
                .map(|p| format!("uncached capacity {}/s, ", fmt::count(p.throughput_rps)))
                .unwrap_or_default();
            let at =
                match saturation_step(off) {
                    Some(i) => {
                        let (a, b) = (ok_per_step(off), ok_per_step(on));
                        format!(
                        "at step {} ({}/s offered, where the uncached server saturated) {} → {} \
                         correct answers/s, p99 {} → {} ms",
                        i + 1,
                        offered(off).get(i).copied().map(fmt::count).unwrap_or_default(),
                        a.get(i).copied().map(fmt::count).unwrap_or_default(),
                        b.get(i).copied().map(fmt::count).unwrap_or_default(),
                        step_p99_ms(off, i).map(fmt::us).unwrap_or_else(|| "–".into()),
                        step_p99_ms(on, i).map(fmt::us).unwrap_or_else(|| "–".into()),
                    )
                    }
                    None => "the uncached server never saturated".to_owned(),
                };
            parts.push(format!(
                "{} ({capacity}{}): {at}; during the whole test {} → {} correct answers/s, \
                 errors {} → {}",
                system_label(&system),
                steps_cell(off),
                correct_per_s(off)
                    .map(fmt::count)
                    .unwrap_or_else(|| "–".into()),
                correct_per_s(on)
                    .map(fmt::count)
                    .unwrap_or_else(|| "–".into()),
                fmt::count(failed(off) as f64),
                fmt::count(failed(on) as f64),
            ));
        }
        if !parts.is_empty() {
            out.push(format!(
                "{TEST} raised on {service}, cache off → on: {}.",
                parts.join("; ")
            ));
        }
    }
    out
}

pub(crate) fn section(results: &Results) -> Section {
    let mut tables: Vec<Table> = gain_table(results).into_iter().collect();
    tables.extend(SERVICES.iter().map(|s| table(results, s)));
    Section {
        id: EXP.to_owned(),
        title: "A response cache under test2 (García et al. 2008, Figs 14-16)".to_owned(),
        intro: "García et al. gave their Erlang server a cache of the answers to identical \
                requests, consulted before a process was spawned for the request, and reran \
                test2 on the news and online store services: the uncached server could not keep \
                up with test2, the cached one answered about five times as many news requests. \
                Today's servers answer test2's 1000 requests/s with or without a cache, so each \
                server's test2 is raised (every rate times the same k) until its uncached top \
                step offers twice what it answered in a closed-loop probe, and run with the \
                cache off and on: soapstone (`serve --response-cache news,shop`: answers keyed \
                on the canonical request, at most 1,024 answers and 32 MiB per operation, kept \
                60 s by default, faults never kept, the card never cached), the Erlang stand-in \
                (an ETS table keyed on the request body, 1,024 entries and 32 MiB), and Axis2 \
                without a cache as the paper's reference."
            .to_owned(),
        findings: findings(results),
        tables,
        charts: SERVICES
            .iter()
            .flat_map(|s| {
                systems(results)
                    .into_iter()
                    .filter_map(move |sys| chart(results, s, &sys))
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::tests::run as fake;
    use crate::results::{PhaseStat, PlacementKind};

    /// A raised test2 point: ten 1 s steps at `k` × 100..1000/s; the server answered
    /// `min(offered, capacity)` 200s in each second, each step's p99 given.
    fn point_of(system: &str, service: &str, cache: Option<&str>, k: f64, capacity: f64) -> Run {
        let mut r = fake(
            system,
            EXP,
            &format!("{TEST}/{service}"),
            PlacementKind::CrossCpu,
            1000.0,
        );
        r.settings.duration_s = 10.0;
        r.cache = cache.map(str::to_owned);
        r.errors = 0;
        r.timeouts = 0;
        r.unsent = 0;
        r.settings.schedule = (0..10)
            .flat_map(|i| {
                let rate = k * 100.0 * f64::from(i + 1);
                [(f64::from(i), rate), (f64::from(i + 1), rate)]
            })
            .collect();
        r.timeline = (0..10)
            .map(|i| Second {
                t: f64::from(i),
                requests: (k * 100.0 * f64::from(i + 1)) as u64,
                ok: (k * 100.0 * f64::from(i + 1)).min(capacity) as u64,
                errors: 0,
            })
            .collect();
        r.ok = r.timeline.iter().map(|s| s.ok).sum();
        r.phases = (0..10)
            .map(|i| {
                let rate = k * 100.0 * f64::from(i + 1);
                PhaseStat {
                    start_s: f64::from(i),
                    duration_s: 1.0,
                    rate: Some(rate),
                    requests: rate as u64,
                    ok: rate as u64,
                    errors: 0,
                    unsent: 0,
                    p50_us: Some(1000.0),
                    // Past capacity the backlog grows: 100 ms more per step.
                    p99_us: Some(if rate > capacity {
                        1e5 * f64::from(i)
                    } else {
                        2000.0
                    }),
                }
            })
            .collect();
        r
    }

    #[test]
    fn the_gain_is_read_where_the_uncached_server_saturates() {
        let mut results = crate::report::tests::sample();
        results.experiments = vec!["wsb".into(), EXP.into()];
        results.runs = vec![
            // ×30: steps 3,000 to 30,000/s; uncached capacity 15,000/s saturates at step 6.
            point_of("soapstone", "news", Some("off"), 30.0, 15_000.0),
            point_of("soapstone", "news", Some("on"), 30.0, 45_000.0),
            point_of("erlang", "news", Some("off"), 3.4, 1_700.0),
            point_of("erlang", "news", Some("on"), 3.4, 9_000.0),
            // Different rates off and on: never compared.
            point_of("soapstone", "shop", Some("off"), 60.0, 30_000.0),
            point_of("soapstone", "shop", Some("on"), 20.0, 30_000.0),
        ];
        let mut axis = point_of("axis2", "news", None, 1.0, 800.0);
        axis.experiment = "wsb".into();
        results.runs.push(axis);
        let json = serde_json::to_value(&results.runs).unwrap();
        assert_eq!(json[1]["cache"], "on");
        assert!(json[6].get("cache").is_none(), "{}", json[6]);
        assert_eq!(json[0]["phases"][5]["rate"], 18_000.0);

        let off = &results.runs[0];
        assert_eq!(
            saturation_step(off),
            Some(5),
            "18,000/s offered, 15,000 answered"
        );
        assert_eq!(saturation_step(&results.runs[1]), None);
        assert_eq!(steps_cell(off), "3,000 to 30,000 (×30)");
        assert_eq!(steps_cell(&results.runs[2]), "340 to 3,400 (×3.4)");

        let g = gain_table(&results).expect("a gain table");
        let row = |prefix: &str| {
            g.rows
                .iter()
                .find(|r| r.cells[0].starts_with(prefix))
                .unwrap_or_else(|| panic!("no row `{prefix}` in {:?}", g.rows))
                .cells
                .clone()
        };
        let sat = row("news, soapstone, step 6 (saturation)");
        assert_eq!(
            sat[1..],
            ["18,000", "15,000", "18,000", "×1.20", "500", "2.00"].map(str::to_owned)
        );
        let top = row("news, soapstone, step 10 (top)");
        assert_eq!(top[2..5], ["15,000", "30,000", "×2.00"].map(str::to_owned));
        // Erlang: 1,700/s against steps of 340: saturates at step 5 (1,700 offered: kept up),
        // no, at step 6 (2,040 offered).
        let erl = row("news, Erlang (inets stand-in), step 6 (saturation)");
        assert_eq!(erl[4], "×1.20");
        assert!(row("shop, soapstone: not compared")[1] == "–");
        assert!(g.rows.iter().all(|r| r.cells.len() == g.header.len()));

        // One table per service, one unit per column, no wider than seven columns.
        let t = table(&results, "news");
        assert_eq!(t.header.len(), 7);
        let cells = |prefix: &str| {
            t.rows
                .iter()
                .find(|r| r.cells[0].starts_with(prefix))
                .unwrap_or_else(|| panic!("no row `{prefix}`"))
                .cells
                .clone()
        };
        assert_eq!(cells("soapstone, on (today)")[1], "3,000 to 30,000 (×30)");
        assert_eq!(
            cells("Axis2 2.0, none (reference) (today), from the wsb section")[1],
            "100 to 1,000 (×1)"
        );
        assert_eq!(cells("Erlang, off (2008, Fig. 11)")[2], "57");
        assert_eq!(cells("Erlang, on (2008, §V")[3], "~150");
        assert!(t.rows.iter().all(|r| r.cells.len() == t.header.len()));
        // The backlog answered after the schedule ended is not counted as answered during it.
        let mut late = results.runs[0].clone();
        late.timeline.push(Second {
            t: 10.0,
            requests: 0,
            ok: 99_000,
            errors: 0,
        });
        assert_eq!(correct_per_s(&late), correct_per_s(&results.runs[0]));
        // The deliberate overload is not flagged as a queueing fault.
        let mut slow = results.runs[0].clone();
        slow.p99_us = 15e6;
        assert_eq!(flag(&slow), None);

        let f = findings(&results);
        assert!(
            f[0].contains(
                "at step 6 (18,000/s offered, where the uncached server saturated) \
                           15,000 → 18,000 correct answers/s, p99 500 → 2.00 ms"
            ),
            "{f:?}"
        );
        // Charts: soapstone and Erlang on news, soapstone on shop (Axis2's is the wsb
        // section's).
        assert_eq!(section(&results).charts.len(), 3);
        assert_eq!(section(&results).tables.len(), 3);
    }
}
