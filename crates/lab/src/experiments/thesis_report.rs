//! The thesis's Tables 1 (CORBA: the binary-RPC side, with Java RMI beside the ORBs, labelled as
//! RMI) and 2 (SOAP) redrawn with every system measured in this run (soapstone, Axis 1.4,
//! omniORB, JacORB, Java RMI), and its Fig 15 (response time of client and server
//! implementations) as a table of every client/server pairing measured.
//!
//! One unit per column (the 2002 column in ms, today's in µs); a system that carries the
//! charging calls but was not measured is still listed, with why. Must never put a load
//! generator's calls into a measured cell, nor pool calls of different loads or placements.

use super::thesis::{LOADS, OPS};
use super::thesis_peers::pairing_op;
use crate::report::{fmt, pair, suspect, Row, Table};
use crate::results::{PlacementKind, Results, Run};
use crate::seeds::{self, SeedTable};

const EXP: &str = "thesis";

/// Mean and standard deviation of a call of a client that alternates the operations of `runs`
/// (each operation weighs the same, whatever its call count: the fast read must not drown the
/// slow durable write, as it would if every call counted once), as the thesis averaged "each
/// call" of its client.
pub(crate) fn pooled(runs: &[&Run]) -> Option<(f64, Option<f64>)> {
    let runs: Vec<&&Run> = runs.iter().filter(|r| r.ok > 0).collect();
    if runs.is_empty() {
        return None;
    }
    let k = runs.len() as f64;
    let mean = runs.iter().map(|r| r.mean_us).sum::<f64>() / k;
    let var = runs
        .iter()
        .map(|r| r.stdev_us.map(|s| s * s + (r.mean_us - mean).powi(2)))
        .sum::<Option<f64>>()
        .map(|v| (v / k).sqrt());
    Some((mean, var))
}

/// `system`'s creditControl and credit under `load` at placement `p`, pooled; `client` names a
/// Fig 15 pairing (another client than the system's own), `None` the system's own client.
pub(crate) fn pooled_at(
    results: &Results,
    system: &str,
    client: Option<&str>,
    load: &str,
    p: PlacementKind,
) -> Option<(f64, Option<f64>)> {
    pooled(&runs_at(results, system, client, load, p)?)
}

/// The runs [`pooled_at`] pools, or `None` unless every operation has one.
fn runs_at<'a>(
    results: &'a Results,
    system: &str,
    client: Option<&str>,
    load: &str,
    p: PlacementKind,
) -> Option<Vec<&'a Run>> {
    let runs: Vec<&Run> = OPS
        .iter()
        .filter_map(|(op, _)| {
            let id = client.map_or_else(|| (*op).to_owned(), |c| pairing_op(op, c));
            results.get_with_background(EXP, system, &id, p, load)
        })
        .collect();
    (runs.len() == OPS.len()).then_some(runs)
}

/// A pooled cell, `⚠ why: value` when one of its runs is a suspect point (too few calls, ...).
fn cell(
    results: &Results,
    system: &str,
    client: Option<&str>,
    load: &str,
    p: PlacementKind,
    with_sd: bool,
) -> String {
    let Some(runs) = runs_at(results, system, client, load, p) else {
        return "–".to_owned();
    };
    let value = match pooled(&runs) {
        Some((m, Some(s))) if with_sd => format!("{} ± {}", fmt::us(m), fmt::us(s)),
        Some((m, _)) => fmt::us(m),
        None => return "–".to_owned(),
    };
    match runs.iter().find_map(|r| suspect::flag(r)) {
        Some(why) => format!("⚠ {why}: {value}"),
        None => value,
    }
}

fn capital(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
        .unwrap_or_default()
}

/// The systems of one table: soapstone (SOAP only) and the peers of `transports` that carry the
/// charging calls, as (id, label); a peer that was not measured says why in its label.
fn systems(results: &Results, transports: &[&str]) -> Vec<(String, String)> {
    let transport = transports[0];
    let mut out = Vec::new();
    if transport == "soap-http" {
        out.push(("soapstone".to_owned(), "soapstone".to_owned()));
    }
    for s in results
        .systems
        .iter()
        .filter(|s| {
            s.role == "server" && transports.contains(&s.transport.as_str()) && s.id != "soapstone"
        })
        .filter(|s| CHARGING_PEERS.contains(&s.id.as_str()))
    {
        let measured = results
            .runs
            .iter()
            .any(|r| r.experiment == EXP && r.system == s.id);
        let why = if measured {
            String::new()
        } else if !s.reason.is_empty() {
            format!(" (not measured: {})", s.reason)
        } else {
            format!(" (not measured: {})", s.status)
        };
        out.push((s.id.clone(), format!("{}{why}", s.name)));
    }
    out
}

/// The peers that carry the charging calls (`charging` in their manifest entry).
const CHARGING_PEERS: [&str; 4] = ["axis1", "omniorb", "jacorb", "java-rmi"];

fn published_cell(t: &SeedTable, load: &str) -> String {
    t.rows
        .iter()
        .find(|r| r.label == capital(load))
        .map(|r| format!("{} ± {}", fmt::ms(r.values[0]), fmt::ms(r.values[1])))
        .unwrap_or_default()
}

/// Table 1 or 2: a group of four load rows per system.
fn table(
    results: &Results,
    seed: &SeedTable,
    transports: &[&str],
    title: &str,
    then: &str,
) -> Table {
    let mut rows = Vec::new();
    let mut systems = systems(results, transports);
    if systems.is_empty() {
        // The published column is shown all the same (`--peers none`, or no manifest).
        systems.push((
            String::new(),
            "no peer of this protocol in this run (lab/peers/setup.sh builds them)".to_owned(),
        ));
    }
    for (id, label) in systems {
        rows.push(Row::group(label));
        for load in LOADS {
            let bg = |p| {
                results
                    .get(EXP, &id, &format!("background/{load}"), p)
                    .map(|r| r.throughput_rps)
            };
            rows.push(Row::today(vec![
                capital(load),
                published_cell(seed, load),
                cell(results, &id, None, load, PlacementKind::SameCpu, true),
                cell(results, &id, None, load, PlacementKind::CrossCpu, true),
                if load == "none" {
                    "0".to_owned()
                } else {
                    pair(
                        bg(PlacementKind::SameCpu),
                        bg(PlacementKind::CrossCpu),
                        fmt::count,
                    )
                },
            ]));
        }
    }
    Table {
        title: title.to_owned(),
        source: seed.source.to_owned(),
        note: format!(
            "2002: ms, average ± standard deviation per call ({then}, over a 100 Mbps LAN), \
             repeated in each group. Today: µs, mean ± standard deviation over every \
             creditControl (read) and credit (durable write: one SQLite commit) call of the one \
             sequential client, on loopback; same CPU = client on the server's CPU, cross-CPU = \
             client on the other CPU (the load generators always run on the other CPU). The last \
             column is the rate the load generators achieved (same CPU / cross-CPU runs): \
             `soapstone bench` for SOAP servers, the peer's own client in its load mode \
             (five connections) for CORBA and RMI servers.{} {}",
            if transports.contains(&"rmi") {
                " Java RMI is not CORBA: it is here as the other binary RPC of the seeds \
                 (Davis & Parashar's JavaRMI row), over JRMP, with the same calls and store."
            } else {
                ""
            },
            suspect::MARK_NOTE
        ),
        header: vec![
            "interference".to_owned(),
            "2002 (ms)".to_owned(),
            "today, same CPU (µs)".to_owned(),
            "today, cross-CPU (µs)".to_owned(),
            "background load (calls/s)".to_owned(),
        ],
        rows,
    }
}

/// Tables 1 and 2 with every system measured.
pub(crate) fn tables_1_and_2(results: &Results) -> [Table; 2] {
    [
        table(
            results,
            &seeds::THESIS_TABLE_1,
            &super::thesis_peers::BINARY_RPC,
            "Table 1: CORBA (and Java RMI) response time per call under background load",
            "a Java ORB of 2002",
        ),
        table(
            results,
            &seeds::THESIS_TABLE_2,
            &["soap-http"],
            "Table 2: SOAP response time per call under background load",
            "Apache Axis beta 1 on Tomcat",
        ),
    ]
}

/// Fig 15 as a table: each client implementation against each server, unloaded.
pub(crate) fn fig_15(results: &Results) -> Table {
    let servers = ["soapstone", "axis1", "omniorb", "jacorb", "java-rmi"];
    let name = |id: &str| {
        results
            .systems
            .iter()
            .find(|s| s.id == id)
            .map_or_else(|| id.to_owned(), |s| s.name.clone())
    };
    // (client id, label, protocol, its own server)
    let clients = [
        ("bench", "soapstone bench (SOAP)".to_owned(), "soap", ""),
        ("omniorb-client", name("omniorb-client"), "corba", "omniorb"),
        ("jacorb-client", name("jacorb-client"), "corba", "jacorb"),
        (
            "java-rmi-client",
            name("java-rmi-client"),
            "rmi",
            "java-rmi",
        ),
    ];
    let protocol = |server: &str| match server {
        "omniorb" | "jacorb" => "corba",
        "java-rmi" => "rmi",
        _ => "soap",
    };
    let mut rows = Vec::new();
    for (client, label, proto, own) in &clients {
        let mut cells = vec![label.clone()];
        for server in servers {
            if protocol(server) != *proto {
                cells.push("n/a".to_owned());
                continue;
            }
            let by = (*proto != "soap" && server != *own).then_some(*client);
            cells.push(format!(
                "{} / {}",
                cell(results, server, by, "none", PlacementKind::SameCpu, false),
                cell(results, server, by, "none", PlacementKind::CrossCpu, false)
            ));
        }
        rows.push(Row::today(cells));
    }
    Table {
        title: "Fig 15: response time of client and server implementations".to_owned(),
        source: "Elfwing & Paulsson 2002, Fig. 15".to_owned(),
        note: "µs, mean over creditControl and credit, no background load; each cell \
               `same CPU / cross-CPU`; n/a = no common protocol; – = not measured. The CORBA \
               clients call both ORBs' servers (omniORB's client against JacORB's server and \
               the other way round); Java RMI's client calls its own server only. 2002 (Fig. 15, ms, from the text): the charging prototype \
               with Axis beta 1's client 680, a socket client copying its behaviour 660, a \
               client that parses Content-Length and closes the socket 200. "
            .to_owned()
            + suspect::MARK_NOTE,
        header: std::iter::once("client".to_owned())
            .chain(servers.iter().map(|s| format!("{} (µs)", name(s))))
            .collect(),
        rows,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(mean: f64, sd: f64, ok: u64) -> Run {
        let mut r: Run = serde_json::from_value(serde_json::json!({
            "system": "x", "experiment": "thesis", "operation": "credit",
            "p50_us": mean, "p99_us": mean, "mean_us": mean, "stdev_us": sd,
            "throughput_rps": 1.0, "ok": ok, "errors": 0, "timeouts": 0,
            "settings": {"placement": {"kind": "same-cpu"}, "duration_s": 1.0,
                         "warmup_s": 0.0, "connections": 1}
        }))
        .unwrap();
        r.ok = ok;
        r
    }

    #[test]
    fn each_operation_weighs_the_same() {
        // 1,000 reads of 100 µs and 10 writes of 2,100 µs: a client alternating them sees
        // 1,100 µs per call, not the 119.8 µs a per-call pool would give.
        let (a, b) = (run(100.0, 0.0, 1000), run(2100.0, 0.0, 10));
        let (m, sd) = pooled(&[&a, &b]).unwrap();
        assert_eq!(m, 1100.0);
        assert_eq!(sd, Some(1000.0));
        assert_eq!(pooled(&[&run(5.0, 1.0, 0)]), None);
    }
}
