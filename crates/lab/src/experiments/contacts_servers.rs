//! Zilora and Ketha (seed 003), Tables 4a/4b and 5: does the server software matter, and the
//! server's hardware? Their servers were Sun Application Server (a Java service) and IIS (a C#
//! service); today's are soapstone, Apache CXF (JAX-WS, standing for the Java server) and Mono's
//! ASP.NET web services (ASMX, standing for IIS), all carrying the same contacts calls and driven
//! by the same client (`soapstone bench`, one sequential connection).
//!
//! Table 4: Service 1 (`getContactNames(n)`, a 1-d array) for n = 1 to 1000 on each server.
//! Table 5: scalar (`getContactCount`), 1-d (`getContactNames(1000)`) and 2-d
//! (`getContacts(1000)`) on each server pinned to one CPU, then given both CPUs: the seed's
//! "low-end vs high-end machine" as the one axis of hardware this machine can vary. The client
//! stays on the other CPU in both, so with two CPUs the server shares one with its client.
//!
//! Every peer's answers are checked before its points are timed, and again after each restart.
//! Must never compare points measured with different windows or client placement.

use std::time::Duration;

use super::contacts::{request, NS_LIST};
use super::{Lab, READY};
use crate::driver::BenchSpec;
use crate::peers::answers::check_document;
use crate::peers::server::PeerServer;
use crate::peers::ManifestPeer;
use crate::results::{Placement, PlacementKind};

pub(super) const EXP: &str = "contacts";
/// The array size of Table 5's 1-d and 2-d points.
pub(super) const T5_N: u32 = 1000;
/// Prefix of the operations measured with the server on both CPUs.
pub(super) const TWO_CPUS: &str = "2cpu/";

/// `(operation id, request body)` of Table 4's points.
fn table4_calls() -> Vec<(String, String)> {
    NS_LIST
        .iter()
        .map(|n| {
            (
                format!("getContactNames/{n}"),
                request("getContactNames", Some(("n", *n))),
            )
        })
        .collect()
}

/// `(operation id, request body)` of Table 5's points.
pub(super) fn table5_calls() -> Vec<(String, String)> {
    vec![
        (
            "getContactCount".to_owned(),
            request("getContactCount", None),
        ),
        (
            format!("getContactNames/{T5_N}"),
            request("getContactNames", Some(("n", T5_N))),
        ),
        (
            format!("getContacts/{T5_N}"),
            request("getContacts", Some(("n", T5_N))),
        ),
    ]
}

/// Table 4's points (both placements) and Table 5's one-CPU points (cross-CPU) against `url`.
pub(super) async fn one_cpu_points(lab: &mut Lab, system: &str, url: &str) -> anyhow::Result<()> {
    let t = lab.cfg.timing.clone();
    for (op, xml) in table4_calls() {
        let body = lab.body(&format!("contacts-{}.xml", op.replace('/', "-")), &xml)?;
        for pin in lab.pins() {
            let spec = BenchSpec::sequential(url.to_owned(), t.latency_window, t.warmup)
                .with_body(body.clone());
            lab.measure((system, EXP, &op), pin.placement(None), &spec)
                .await;
        }
    }
    for (op, xml) in table5_calls() {
        if lab.runs.iter().any(|r| {
            r.experiment == EXP
                && r.system == system
                && r.operation == op
                && r.settings.placement.kind == PlacementKind::CrossCpu
        }) {
            continue; // Table 3's or Table 4's point already is this one.
        }
        let body = lab.body(&format!("contacts-{}.xml", op.replace('/', "-")), &xml)?;
        let Some(pin) = lab
            .pins()
            .into_iter()
            .find(|p| p.kind == PlacementKind::CrossCpu)
        else {
            return Ok(());
        };
        let spec =
            BenchSpec::sequential(url.to_owned(), t.latency_window, t.warmup).with_body(body);
        lab.measure((system, EXP, &op), pin.placement(None), &spec)
            .await;
    }
    Ok(())
}

/// Table 5's points with the server on `cpus` (both CPUs), the client on the other CPU.
pub(super) async fn two_cpu_points(
    lab: &mut Lab,
    system: &str,
    url: &str,
    cpus: &str,
) -> anyhow::Result<()> {
    let t = lab.cfg.timing.clone();
    for (op, xml) in table5_calls() {
        let body = lab.body(&format!("contacts-{}.xml", op.replace('/', "-")), &xml)?;
        let placement = Placement {
            kind: PlacementKind::CrossCpu,
            server_cpu: Some(cpus.to_owned()),
            client_cpu: Some(lab.cfg.other_cpu.clone()),
            load_cpu: None,
        };
        let spec =
            BenchSpec::sequential(url.to_owned(), t.latency_window, t.warmup).with_body(body);
        lab.measure((system, EXP, &format!("{TWO_CPUS}{op}")), placement, &spec)
            .await;
    }
    Ok(())
}

/// soapstone on both CPUs (its one-CPU points ran with Table 3's).
pub(super) async fn soapstone_two_cpus(lab: &mut Lab) -> anyhow::Result<()> {
    let Some(cpus) = lab.both_cpus() else {
        return Ok(());
    };
    let server = lab.serve_on(&["contacts"], &cpus).await?;
    let url = format!("{}/contacts", server.base_url());
    two_cpu_points(lab, "soapstone", &url, &cpus).await?;
    server.stop().await
}

/// Every ready peer that carries the contacts calls (CXF, Mono ASMX), on one CPU then on two.
pub(super) async fn peers(lab: &mut Lab) {
    for peer in lab.peers.carrying("contacts") {
        let result = peer_points(lab, &peer).await;
        lab.peer_outcome(EXP, &peer.id, result);
    }
}

async fn peer_points(lab: &mut Lab, peer: &ManifestPeer) -> anyhow::Result<()> {
    let mut placements = vec![lab.cfg.server_cpu.clone()];
    placements.extend(lab.both_cpus());
    for (i, cpus) in placements.iter().enumerate() {
        let server = PeerServer::start(&lab.launcher, peer, Some(cpus), READY).await?;
        let path = peer.services.get("contacts").cloned().unwrap_or_default();
        let url = format!("http://{}{path}", server.addr());
        if let Err(e) = check(&server.addr(), &path).await {
            let _ = server.stop().await;
            anyhow::bail!("its answer is wrong (server on CPUs {cpus}): {e}");
        }
        if let Some(w) = peer.warmup_s.filter(|w| *w > 0.0) {
            warm_up(lab, &url, w).await?;
        }
        if i == 0 {
            one_cpu_points(lab, &peer.id, &url).await?;
        } else {
            two_cpu_points(lab, &peer.id, &url, cpus).await?;
        }
        server.stop().await?;
    }
    Ok(())
}

/// Checks every call the tables make (sizes as measured, and the one-contact call).
async fn check(addr: &str, path: &str) -> Result<(), String> {
    let mut calls: Vec<(&str, Option<u32>)> = vec![
        ("getContactCount", None),
        ("getContact", None),
        ("getContacts", Some(T5_N)),
    ];
    calls.extend(NS_LIST.iter().map(|n| ("getContactNames", Some(*n))));
    for (op, n) in calls {
        let body = match (op, n) {
            ("getContact", _) => request(op, Some(("index", 1))),
            (_, Some(n)) => request(op, Some(("n", n))),
            _ => request(op, None),
        };
        check_document(addr, path, &body, op, n)
            .await
            .map_err(|e| {
                format!(
                    "{op}{}: {e}",
                    n.map(|n| format!("({n})")).unwrap_or_default()
                )
            })?;
    }
    Ok(())
}

/// A JVM's or Mono's JIT warm-up: untimed calls over Table 5's three calls, results dropped.
async fn warm_up(lab: &mut Lab, url: &str, seconds: f64) -> anyhow::Result<()> {
    let calls = table5_calls();
    let each = Duration::from_secs_f64(seconds / calls.len() as f64);
    for (op, xml) in calls {
        let body = lab.body(
            &format!("contacts-{}-warmup.xml", op.replace('/', "-")),
            &xml,
        )?;
        let spec = BenchSpec::sequential(url.to_owned(), each, Duration::ZERO).with_body(body);
        crate::driver::bench(&lab.launcher, Some(&lab.cfg.other_cpu), &spec)
            .await
            .map_err(|e| anyhow::anyhow!("its warm-up failed: {e:#}"))?;
    }
    Ok(())
}
