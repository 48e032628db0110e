//! Zilora and Ketha (seed 003), Tables 1a/1b and 2 in spirit: the client language varies, the
//! server stays the same (here `soapstone serve`'s `/dp`). Each ready client peer of the
//! manifest (PHP's SoapClient, zeep, SOAP::Lite, node-soap, the Java and C# clients) times its
//! own sequential calls through the peer-client protocol and checks every answer; soapstone's
//! row is what a user of soapstone writes, the typed `DpClient` (`soapstone lab-client`,
//! [`crate::lab_client`]), run and checked through the same protocol. `soapstone bench` on the
//! same calls is a separate row, labelled as the load generator it is (fixed request bytes, the
//! answer's status checked, never decoded).
//!
//! The seed measured its contacts service (a scalar, 1-d and 2-d arrays); the peers carry Davis
//! and Parashar's operations so far, so this table uses `doNothing` (their scalar case is the
//! nearest) and the 800-item string and integer array. It must never draw a client row whose
//! answers were not all correct.

use super::{p50_pair, runs_pair, Lab};
use crate::driver::BenchSpec;
use crate::experiments::dp::request;
use crate::peers::client::{self, ClientPoint};
use crate::peers::ManifestPeer;
use crate::report::suspect::cell_pair;
use crate::report::{fmt, Row, Section, Table};
use crate::results::Results;

const EXP: &str = "clients";
/// The system id of soapstone's typed client row (`results.json`).
pub(crate) const TYPED: &str = "soapstone-client";
/// The system id of the `soapstone bench` row.
const BENCH: &str = "soapstone";

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
    let typed = typed_client(lab);
    let mut clients = vec![typed];
    clients.extend(lab.peers.ready("client", "soap-http"));
    for peer in clients {
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
        if peer.id == TYPED {
            if let Some(why) = failed {
                lab.problem(format!("{EXP}: soapstone's typed client failed: {why}"));
            }
        } else {
            lab.peers.mark(&peer.id, failed);
        }
    }
    server.stop().await
}

/// soapstone's typed client as a client "peer": this lab's own executable, `lab-client`.
fn typed_client(lab: &Lab) -> ManifestPeer {
    serde_json::from_value(serde_json::json!({
        "id": TYPED, "role": "client", "transport": "soap-http", "status": "ready",
        "command": [lab.launcher.exe.display().to_string(), "lab-client"],
    }))
    .expect("a fixed manifest entry parses")
}

pub(crate) fn section(results: &Results) -> Section {
    let mut rows = vec![Row::group(
        "today: server soapstone serve /dp (p50 in µs; each cell same CPU / cross-CPU)",
    )];
    let mut clients = vec![(
        TYPED.to_owned(),
        "soapstone Client (Rust: the typed DpClient #[service] generates; answers decoded and \
         checked)"
            .to_owned(),
    )];
    for s in results
        .systems
        .iter()
        .filter(|s| s.role == "client" && s.transport == "soap-http" && s.id != TYPED)
    {
        clients.push((s.id.clone(), format!("{} [{}]", s.name, s.status)));
    }
    clients.push((
        BENCH.to_owned(),
        "soapstone bench: the load generator, not a client program (fixed request bytes; \
         the answer's status checked, never decoded)"
            .to_owned(),
    ));
    for (id, label) in &clients {
        let mut cells = vec![label.clone()];
        for (op, ..) in OPS {
            let runs = runs_pair(results, EXP, id, op);
            cells.push(cell_pair(runs, |r| r.p50_us, fmt::us));
        }
        rows.push(Row::today(cells));
    }
    let mut findings = Vec::new();
    let base = p50_pair(results, EXP, TYPED, "doNothing")[0];
    for (id, _) in clients.iter().skip(1) {
        if let (Some(b), Some(v)) = (base, p50_pair(results, EXP, id, "doNothing")[0]) {
            let id = if id == BENCH { "soapstone bench" } else { id };
            findings.push(format!(
                "doNothing from {id}: {} µs on one CPU, {} soapstone's typed Client's {} µs.",
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::tests::{run, sample};
    use crate::results::PlacementKind;

    #[test]
    fn the_typed_client_is_soapstones_row_and_bench_is_labelled_apart() {
        let mut r = sample();
        for (sys, p50) in [(TYPED, 50.0), (BENCH, 30.0), ("zeep", 500.0)] {
            for (op, ..) in OPS {
                for kind in [PlacementKind::SameCpu, PlacementKind::CrossCpu] {
                    r.runs.push(run(sys, EXP, op, kind, p50));
                }
            }
        }
        r.systems.retain(|s| s.id != "zeep");
        r.systems.push(crate::peers::SystemInfo {
            id: "zeep".into(),
            name: "zeep 4.3".into(),
            role: "client".into(),
            transport: "soap-http".into(),
            stands_for: String::new(),
            status: "ready".into(),
            reason: String::new(),
            version: "4.3".into(),
            installed_via: String::new(),
            build: String::new(),
            config: String::new(),
        });
        let s = section(&r);
        let rows = &s.tables[0].rows;
        let labels: Vec<&str> = rows.iter().map(|row| row.cells[0].as_str()).collect();
        assert!(labels[1].starts_with("soapstone Client"), "{labels:?}");
        assert!(labels[2].starts_with("zeep 4.3"), "{labels:?}");
        assert!(
            labels[3].starts_with("soapstone bench: the load generator"),
            "{labels:?}"
        );
        assert_eq!(rows.len(), 4, "{labels:?}");
        assert!(rows[1].cells[1].contains("50"), "{:?}", rows[1].cells);
        // Ratios are taken against the typed client, the figure a user gets.
        assert!(
            s.findings
                .iter()
                .any(|f| f.contains("doNothing from zeep") && f.contains("×10")),
            "{:?}",
            s.findings
        );
    }
}
