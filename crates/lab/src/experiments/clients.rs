//! Zilora and Ketha (seed 003), Tables 1a/1b and 2 in spirit: the client language varies, the
//! server stays the same (here `soapstone serve`'s `/dp`). Each ready client peer of the
//! manifest (PHP's SoapClient, zeep, SOAP::Lite, node-soap) times its own sequential calls
//! through the peer-client protocol and checks every answer; soapstone's row is `soapstone
//! bench` on the same calls.
//!
//! The seed measured its contacts service (a scalar, 1-d and 2-d arrays); the peers carry Davis
//! and Parashar's operations so far, so this table uses `doNothing` (their scalar case is the
//! nearest) and the 800-item string and integer array. It must never draw a client row whose
//! answers were not all correct.

use super::{p50_pair, runs_pair, Lab};
use crate::driver::BenchSpec;
use crate::experiments::dp::request;
use crate::peers::client::{self, ClientPoint};
use crate::report::suspect::cell_pair;
use crate::report::{fmt, Row, Section, Table};
use crate::results::Results;

const EXP: &str = "clients";

/// (operation id, SOAP operation, size).
const OPS: [(&str, &str, Option<u32>); 3] = [
    ("doNothing", "doNothing", None),
    ("getString/800", "getStringOfSize", Some(800)),
    ("getIntegers/800", "getIntegersOfSize", Some(800)),
];

pub(crate) async fn run(lab: &mut Lab) -> anyhow::Result<()> {
    let t = lab.cfg.timing.clone();
    let server = lab.serve(&["dp"]).await?;
    let url = format!("{}/dp", server.base_url());
    for (id, op, size) in OPS {
        let body = lab.body(
            &format!("clients-{}.xml", id.replace('/', "-")),
            &request(op, size),
        )?;
        for pin in lab.pins() {
            let spec = BenchSpec::sequential(url.clone(), t.latency_window, t.warmup)
                .with_body(body.clone());
            lab.measure(("soapstone", EXP, id), pin.placement(None), &spec)
                .await;
        }
    }
    for peer in lab.peers.ready("client", "soap-http") {
        let mut failed = None;
        for (id, op, size) in OPS {
            for pin in lab.pins() {
                let point = ClientPoint {
                    url: &url,
                    op,
                    n: size.unwrap_or(0),
                    warmup: t.warmup,
                    window: t.latency_window,
                };
                match client::run(
                    &lab.launcher,
                    &peer,
                    Some(&pin.client),
                    &point,
                    (&peer.id, EXP, id),
                    pin.placement(None),
                )
                .await
                {
                    Ok((run, warmup)) => {
                        if let Some(w) = warmup {
                            lab.peers.note_warmup(&peer.id, id, &w);
                        }
                        lab.runs.push(run);
                    }
                    Err(e) => {
                        let msg = format!("{id} ({}): {e:#}", pin.kind.label());
                        lab.problem(format!("{EXP}: client {} {msg}", peer.id));
                        failed.get_or_insert(msg);
                    }
                }
            }
        }
        lab.peers.mark(&peer.id, failed);
    }
    server.stop().await
}

pub(crate) fn section(results: &Results) -> Section {
    let mut rows = vec![Row::group(
        "today: server soapstone serve /dp (p50 in µs; each cell same CPU / cross-CPU)",
    )];
    let mut clients = vec![(
        "soapstone".to_owned(),
        "soapstone bench (Rust, raw HTTP; the answer is checked for status, not decoded)"
            .to_owned(),
    )];
    for s in results
        .systems
        .iter()
        .filter(|s| s.role == "client" && s.transport == "soap-http")
    {
        clients.push((s.id.clone(), format!("{} [{}]", s.name, s.status)));
    }
    for (id, label) in &clients {
        let mut cells = vec![label.clone()];
        for (op, ..) in OPS {
            let runs = runs_pair(results, EXP, id, op);
            cells.push(cell_pair(runs, |r| r.p50_us, fmt::us));
        }
        rows.push(Row::today(cells));
    }
    let mut findings = Vec::new();
    let base = p50_pair(results, EXP, "soapstone", "doNothing")[0];
    for (id, _) in clients.iter().skip(1) {
        if let (Some(b), Some(v)) = (base, p50_pair(results, EXP, id, "doNothing")[0]) {
            findings.push(format!(
                "doNothing from {id}: {} µs on one CPU, {} soapstone bench's {} µs.",
                fmt::us(v),
                fmt::ratio(v / b),
                fmt::us(b)
            ));
        }
    }
    Section {
        id: EXP.to_owned(),
        title: "Client language varies, one server (after Zilora & Ketha 2007, Tables 1a/1b)"
            .to_owned(),
        intro: "Each client calls soapstone's Davis & Parashar service one call at a time over \
                its own keep-alive connection (SOAP::Lite's and PHP's as their HTTP stacks do \
                it) and times each call in its own language; every answer is checked against \
                the contract and a single wrong answer fails the point. The seed compared Java, \
                C# and PHP clients of a contacts service on IIS and Sun App Server (ms); the \
                peers here carry Davis & Parashar's operations, so the columns are those. \
                Missing clients are listed in the peers table with the reason."
            .to_owned(),
        findings,
        tables: vec![Table {
            title: "Client software × operation, server soapstone".to_owned(),
            source: "Zilora & Ketha 2007, Tables 1a/1b (layout)".to_owned(),
            note: "µs, median of the calls in the measured window after the warm-up; \
                   `same CPU / cross-CPU`; `[failed]` means a point failed (see Problems). "
                .to_owned()
                + crate::report::suspect::MARK_NOTE,
            header: vec![
                "client".to_owned(),
                "doNothing p50 (µs)".to_owned(),
                "getString(800) p50 (µs)".to_owned(),
                "getIntegers(800) p50 (µs)".to_owned(),
            ],
            rows,
        }],
        charts: Vec::new(),
    }
}
