//! Zilora and Ketha (seed 003, 2007), Table 3: getting n contacts (name and phone) as one
//! 2-d array in a single call versus n calls that return one contact each, n = 1, 10, 100, 1000.
//!
//! Both are measured with one sequential client. The one-call figure is the median latency of
//! `getContacts(n)`. The n-call figure is n times the mean latency of `getContact` measured over
//! the window: for a sequential client the time of n calls is the sum of n call latencies, whose
//! expectation is n × mean (the mean, not the median, is the right statistic for a sum).
//! Must never present the n-call figure as one measured stopwatch interval; the report says how it
//! is derived.

use crate::driver::BenchSpec;
use crate::experiments::Lab;
use crate::report::svg::BarChart;
use crate::report::{fmt, pair, Row, Section, Table};
use crate::results::{PlacementKind, Results};
use crate::seeds;

const EXP: &str = "contacts";
const NS: &str = "urn:soapstone:contacts";
pub(crate) const NS_LIST: [u32; 4] = [1, 10, 100, 1000];

/// A document/literal request for `op` with an optional `count` parameter.
pub(crate) fn request(op: &str, param: Option<(&str, u32)>) -> String {
    let p = param
        .map(|(name, v)| format!("<c:{name}>{v}</c:{name}>"))
        .unwrap_or_default();
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\">\
         <soap:Body><c:{op} xmlns:c=\"{NS}\">{p}</c:{op}></soap:Body></soap:Envelope>\n"
    )
}

pub(crate) async fn run(lab: &mut Lab) -> anyhow::Result<()> {
    let t = lab.cfg.timing.clone();
    let pins = lab.pins();
    let server = lab.serve(&["contacts"]).await?;
    let url = format!("{}/contacts", server.base_url());
    for n in NS_LIST {
        let body = lab.body(
            &format!("contacts-getContacts-{n}.xml"),
            &request("getContacts", Some(("n", n))),
        )?;
        for pin in &pins {
            let spec = BenchSpec::sequential(url.clone(), t.latency_window, t.warmup)
                .with_body(body.clone());
            lab.measure(
                ("soapstone", EXP, &format!("getContacts/{n}")),
                pin.placement(None),
                &spec,
            )
            .await;
        }
    }
    let body = lab.body(
        "contacts-getContact.xml",
        &request("getContact", Some(("index", 1))),
    )?;
    for pin in &pins {
        let spec =
            BenchSpec::sequential(url.clone(), t.latency_window, t.warmup).with_body(body.clone());
        lab.measure(("soapstone", EXP, "getContact"), pin.placement(None), &spec)
            .await;
    }
    // Tables 4 and 5: the same server, then the server on both CPUs, then the peers.
    super::contacts_servers::one_cpu_points(lab, "soapstone", &url).await?;
    server.stop().await?;
    super::contacts_servers::soapstone_two_cpus(lab).await?;
    super::contacts_servers::peers(lab).await;
    Ok(())
}

pub(crate) fn section(results: &Results) -> Section {
    let seed = &seeds::ZK_TABLE_3;
    let one = |n: u32, p| {
        results
            .get(EXP, "soapstone", &format!("getContacts/{n}"), p)
            .map(|r| r.p50_us)
    };
    let single = |p| {
        results
            .get(EXP, "soapstone", "getContact", p)
            .map(|r| r.mean_us)
    };
    let mut rows = Vec::new();
    let mut chart = BarChart {
        title: "n contacts: one call vs n calls".to_owned(),
        unit: "µs (lower is better)".to_owned(),
        log: true,
        series: vec![
            "one call, today".to_owned(),
            "n calls, today".to_owned(),
            "one call, C# 2007".to_owned(),
            "n calls, C# 2007".to_owned(),
        ],
        groups: Vec::new(),
    };
    for (i, n) in NS_LIST.iter().enumerate() {
        let row = &seed.rows[i];
        let [same1, cross1] = [PlacementKind::SameCpu, PlacementKind::CrossCpu].map(|p| one(*n, p));
        let [same_n, cross_n] = [PlacementKind::SameCpu, PlacementKind::CrossCpu]
            .map(|p| single(p).map(|m| m * f64::from(*n)));
        let mut cells = vec![n.to_string()];
        cells.extend(
            row.values
                .chunks(2)
                .map(|c| format!("{} / {}", fmt::ms(c[0]), fmt::ms(c[1]))),
        );
        cells.push(pair(same1, cross1, fmt::us));
        cells.push(pair(same_n, cross_n, fmt::us));
        cells.push(match (same1, same_n) {
            (Some(a), Some(b)) => fmt::ratio(b / a),
            _ => "–".to_owned(),
        });
        rows.push(Row::today(cells));
        chart.groups.push((
            format!("n = {n}"),
            vec![
                same1,
                same_n,
                Some(row.values[2] * 1000.0),
                Some(row.values[3] * 1000.0),
            ],
        ));
    }
    let mut header = vec!["contacts n".to_owned()];
    header.extend(["Java", "C#", "PHP"].map(|c| format!("2007 {c} (ms)")));
    header.push("today one call (µs)".to_owned());
    header.push("today n calls (µs)".to_owned());
    header.push("n calls ÷ one call".to_owned());
    let mut findings = Vec::new();
    if let (Some(a), Some(m)) = (
        one(1000, PlacementKind::SameCpu),
        single(PlacementKind::SameCpu),
    ) {
        findings.push(format!(
            "1000 contacts in one call take {} µs; 1000 single calls take {} µs ({}): the \
             published advice (return one large message) still holds.",
            fmt::us(a),
            fmt::us(m * 1000.0),
            fmt::ratio(m * 1000.0 / a)
        ));
    }
    findings.extend(super::contacts_tables::findings(results));
    let (table4, chart4) = super::contacts_tables::table4(results);
    Section {
        id: EXP.to_owned(),
        title: "One large call vs many small ones (Zilora & Ketha 2007)".to_owned(),
        intro: "The contacts service holds a contact list in memory. One sequential client asks \
                for n contacts (name and phone) as one 2-d array in a single call, and \
                separately calls getContact (one contact) in a loop. The n-call time is n × the \
                mean getContact latency: for one sequential client that is the expected time of \
                n calls in a row. Tables 4 and 5 put the same calls to other servers: Apache CXF \
                (JAX-WS) for the seed's Sun Application Server, Mono's ASMX for its IIS, and \
                soapstone, each on one CPU and then on two."
            .to_owned(),
        findings,
        tables: vec![
            Table {
                title: "Table 3: one 2-d array call vs n one-contact calls".to_owned(),
                source: seed.source.to_owned(),
                note:
                    "2007 cells: `one 2-d array call / n one-contact calls`, ms, Tables 3a (Java), \
                   3b (C#) and 3c (PHP) clients against Sun Application Server. Today: µs, \
                   `same CPU / cross-CPU`; one call = median of getContacts(n), n calls = n × \
                   mean of getContact; the ratio is for the same CPU."
                        .to_owned(),
                header,
                rows,
            },
            table4,
            super::contacts_tables::table5(results),
        ],
        charts: vec![chart.render(), chart4],
    }
}
