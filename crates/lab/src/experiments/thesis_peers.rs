//! The thesis's Tables 1 and 2 with today's peers: the charging calls `creditControl` (a read)
//! and `credit` (a durable write) on every peer server that carries the charging system (the
//! manifest's `charging`: Axis 1.4 over SOAP, omniORB and JacORB over CORBA, Java RMI, each on
//! its own SQLite file), under the same four loads as soapstone, in the same run.
//!
//! How each kind is driven: a SOAP peer exactly like soapstone (the same `soapstone bench`
//! client, appendix C's envelopes, the same background loads of `credit` from `soapstone bench`
//! on the load CPU). A binary-RPC peer (CORBA, RMI) by its own client program, which also
//! generates its load ([`crate::peers::load`]: five connections sending `credit` in the
//! pattern, on the load CPU), since the bench speaks neither GIOP nor JRMP. Fig 15's pairings:
//! every client against every server of its protocol (omniORB's client calling JacORB's server
//! and the other way round), unloaded.
//!
//! Every peer's answers are checked before any of its points is timed: a read, a credit and a
//! read again (the balance grows by exactly the amount), and a fault for an unknown account.
//! This module must never time a peer whose check failed, nor record a load generator's own
//! calls as the measured client's.

use std::time::Duration;

use anyhow::{bail, Context as _};

use super::thesis::{background, point, LOADS, OPS};
use super::{charging_calls as calls, Lab, READY};
use crate::driver::{self, BenchSpec};
use crate::peers::client::{self, ClientPoint};
use crate::peers::load;
use crate::peers::server::{fill, PeerServer};
use crate::peers::ManifestPeer;

const EXP: &str = "thesis";
/// The traffic pattern's rate over all five load connections: the thesis's CORBA rate, as for
/// soapstone.
const TRAFFIC_RATE: f64 = 200.0;
/// The binary-RPC transports of Table 1, each peer driven by its own client program.
pub(crate) const BINARY_RPC: [&str; 2] = ["corba", "rmi"];
/// Time the loads run before the first measured call.
const SETTLE: Duration = Duration::from_millis(300);

/// Measures every ready peer server with a `charging` entry; a failure becomes a problem.
pub(crate) async fn run(lab: &mut Lab) {
    let soap: Vec<ManifestPeer> = lab
        .peers
        .ready("server", "soap-http")
        .into_iter()
        .filter(|p| p.charging.is_some())
        .collect();
    for peer in soap {
        let r = soap_peer(lab, &peer).await;
        lab.peer_outcome(EXP, &peer.id, r);
    }
    let binary: Vec<ManifestPeer> = BINARY_RPC
        .iter()
        .flat_map(|t| lab.peers.ready("server", t))
        .filter(|p| p.charging.is_some())
        .collect();
    for peer in binary {
        let r = binary_peer(lab, &peer).await;
        lab.peer_outcome(EXP, &peer.id, r);
    }
}

/// The operation id of a Fig 15 pairing: `op` called by the client peer `client`.
pub(crate) fn pairing_op(op: &str, client: &str) -> String {
    format!("{op} from {client}")
}

/// Checks a SOAP peer's charging answers over real HTTP: read, credit, read again, and a fault
/// for account 0.
async fn check_soap(url: &str) -> anyhow::Result<()> {
    let read = calls::envelope("creditControl", &[("id", 8)]);
    let before = calls::call(url, &read).await.context("creditControl(8)")?;
    let cn = calls::call(url, super::thesis::CREDIT)
        .await
        .context("credit(8, 147)")?;
    let after = calls::call(url, &read)
        .await
        .context("creditControl(8) after the credit")?;
    if cn <= 0 {
        bail!("credit answered the transaction number `{cn}`, not a positive one");
    }
    if after != before.wrapping_add(147) {
        bail!("the balance {before} credited with 147 read back as `{after}`");
    }
    match calls::call(url, &calls::envelope("creditControl", &[("id", 0)])).await {
        Ok(v) => bail!("creditControl(0), of no account, answered `{v}` instead of a fault"),
        Err(e) if format!("{e:#}").contains("`500`") => Ok(()),
        Err(e) => Err(e.context("creditControl(0) did not answer a fault with status 500")),
    }
}

async fn soap_peer(lab: &mut Lab, peer: &ManifestPeer) -> anyhow::Result<()> {
    let t = lab.cfg.timing.clone();
    let load_cpu = lab.load_cpu();
    let server = PeerServer::start(&lab.launcher, peer, Some(&lab.cfg.server_cpu), READY).await?;
    let path = peer.charging.clone().unwrap_or_default();
    let url = format!("http://{}{path}", server.addr());
    if let Err(e) = check_soap(&url).await {
        let _ = server.stop().await;
        bail!("its charging answers are wrong: {e:#}");
    }
    let mut bodies = Vec::new();
    for (op, text) in OPS {
        bodies.push((op, lab.body(&format!("charging-{op}.xml"), text)?));
    }
    if let Some(w) = peer.warmup_s.filter(|w| *w > 0.0) {
        // A JVM peer's JIT warm-up: untimed calls of both operations, results dropped.
        let each = Duration::from_secs_f64(w / OPS.len() as f64);
        let mut first = true;
        for (op, body) in &bodies {
            let spec =
                BenchSpec::sequential(url.clone(), each, Duration::ZERO).with_body(body.clone());
            let warm = driver::bench(&lab.launcher, Some(&lab.cfg.other_cpu), &spec)
                .await
                .map_err(|e| anyhow::anyhow!("its warm-up failed: {e:#}"))?;
            if std::mem::take(&mut first) {
                let secs = each.as_secs_f64();
                lab.peers
                    .note_server_warmup(&peer.id, EXP, op, secs, &warm.timeline);
            }
        }
    }
    let load_body = bodies[1].1.clone();
    for pin in lab.pins() {
        for load in LOADS {
            let placement = pin.placement(
                Some(&load_cpu)
                    .filter(|_| load != "none")
                    .map(|s| s.as_str()),
            );
            let span = (t.thesis_window + t.warmup + Duration::from_millis(400)) * OPS.len() as u32
                + SETTLE
                + Duration::from_secs(1);
            let bg = if load == "none" {
                None
            } else {
                let mut spec = BenchSpec::sequential(url.clone(), span, Duration::ZERO)
                    .with_body(load_body.clone());
                spec.load = background(load, span);
                spec.background = Some(load.to_owned());
                match driver::start(&lab.launcher, Some(&load_cpu), &spec) {
                    Ok(running) => Some((running, spec)),
                    Err(e) => {
                        lab.problem(format!(
                            "{EXP}: {}: the {load} load did not start: {e:#}",
                            peer.id
                        ));
                        continue;
                    }
                }
            };
            if bg.is_some() {
                tokio::time::sleep(SETTLE).await;
            }
            for (op, body) in &bodies {
                let mut spec = point(&url, &t, body.clone(), None);
                spec.background = Some(load.to_owned());
                // A stalled stack gets the lab's usual timeout, not the bench's default.
                spec.timeout = Some(Duration::from_secs(5));
                lab.measure((&peer.id, EXP, op), placement.clone(), &spec)
                    .await;
            }
            if let Some((running, spec)) = bg {
                match running.finish().await {
                    Ok(outcome) => {
                        let run = outcome.into_run(
                            &peer.id,
                            EXP,
                            &format!("background/{load}"),
                            pin.placement(Some(&load_cpu)),
                            &spec,
                        );
                        lab.runs.push(run);
                    }
                    Err(e) => {
                        lab.problem(format!("{EXP}: {}: the {load} load failed: {e:#}", peer.id))
                    }
                }
            }
        }
    }
    server.stop().await
}

async fn binary_peer(lab: &mut Lab, peer: &ManifestPeer) -> anyhow::Result<()> {
    let Some(own) = lab.peers.client_of(&peer.id) else {
        bail!("no ready client peer calls it (its `-client` peer is missing)");
    };
    let t = lab.cfg.timing.clone();
    let load_cpu = lab.load_cpu();
    let server = PeerServer::start(&lab.launcher, peer, Some(&lab.cfg.server_cpu), READY).await?;
    let url = fill(peer.charging.as_deref().unwrap_or_default(), &server);
    // The check: the client's `check` call (read, credit, read again, two faults) a few times.
    let check = ClientPoint {
        url: &url,
        op: "check",
        n: 0,
        warmup: Duration::ZERO,
        window: Duration::ZERO,
    };
    let pins = lab.pins();
    let at = pins[0].placement(None);
    if let Err(e) = client::run(
        &lab.launcher,
        &own,
        Some(&lab.cfg.other_cpu),
        &check,
        (&peer.id, EXP, "check"),
        at,
    )
    .await
    {
        let _ = server.stop().await;
        bail!("its charging answers are wrong: {e:#}");
    }
    if let Some(w) = peer.warmup_s.filter(|w| *w > 0.0) {
        // A JVM server's JIT warm-up: untimed calls of both operations from its own client on
        // the other CPU, results dropped (a wrong answer still fails the peer).
        for (op, _) in OPS {
            let p = ClientPoint {
                url: &url,
                op,
                n: 0,
                warmup: Duration::from_secs_f64(w / OPS.len() as f64),
                window: Duration::ZERO,
            };
            let at = pins[0].placement(None);
            let ids = (peer.id.as_str(), EXP, "warm-up");
            match client::run(&lab.launcher, &own, Some(&lab.cfg.other_cpu), &p, ids, at).await {
                Ok((_, Some(w))) => lab.peers.note_warmup(&peer.id, op, &w),
                Ok(_) => {}
                Err(e) => {
                    let _ = server.stop().await;
                    bail!("its warm-up failed: {e:#}");
                }
            }
        }
    }
    let mut failures = Vec::new();
    let mut points = 0;
    for pin in &pins {
        for load in LOADS {
            let placement = pin.placement(
                Some(&load_cpu)
                    .filter(|_| load != "none")
                    .map(|s| s.as_str()),
            );
            let bg = if load == "none" {
                None
            } else {
                // A bound only: the load is told to stop once the points are measured.
                let max = (t.thesis_window + t.warmup + Duration::from_secs(60)) * OPS.len() as u32;
                match load::start(
                    &lab.launcher,
                    &own,
                    Some(&load_cpu),
                    &url,
                    load,
                    TRAFFIC_RATE,
                    max,
                )
                .await
                {
                    Ok(running) => Some(running),
                    Err(e) => {
                        lab.problem(format!(
                            "{EXP}: {}: the {load} load did not start: {e:#}",
                            peer.id
                        ));
                        continue;
                    }
                }
            };
            if bg.is_some() {
                tokio::time::sleep(SETTLE).await;
            }
            for (op, _) in OPS {
                points += 1;
                let p = ClientPoint {
                    url: &url,
                    op,
                    n: 0,
                    warmup: t.warmup,
                    window: t.thesis_window,
                };
                match client::run(
                    &lab.launcher,
                    &own,
                    Some(&pin.client),
                    &p,
                    (&peer.id, EXP, op),
                    placement.clone(),
                )
                .await
                {
                    Ok((mut run, warmup)) => {
                        if let Some(w) = warmup {
                            lab.peers.note_warmup(&own.id, op, &w);
                        }
                        run.settings.background = Some(load.to_owned());
                        lab.runs.push(run);
                    }
                    Err(e) => {
                        let msg = format!("{op} ({}, {load} load): {e:#}", pin.kind.label());
                        lab.problem(format!("{EXP}: {} {msg}", peer.id));
                        failures.push(msg);
                    }
                }
            }
            if let Some(running) = bg {
                match running
                    .finish(
                        (&peer.id, EXP, &format!("background/{load}")),
                        pin.placement(Some(&load_cpu)),
                    )
                    .await
                {
                    Ok(mut run) => {
                        run.settings.background = Some(load.to_owned());
                        lab.runs.push(run);
                    }
                    Err(e) => {
                        lab.problem(format!("{EXP}: {}: the {load} load failed: {e:#}", peer.id))
                    }
                }
            }
        }
    }
    // Fig 15: the other clients of its protocol against this server, unloaded.
    let others: Vec<ManifestPeer> = lab
        .peers
        .ready("client", &peer.transport)
        .into_iter()
        .filter(|c| c.client_of.as_deref() != Some(peer.id.as_str()))
        .collect();
    for other in others {
        for pin in &pins {
            for (op, _) in OPS {
                let p = ClientPoint {
                    url: &url,
                    op,
                    n: 0,
                    warmup: t.warmup,
                    window: t.thesis_window,
                };
                let id = pairing_op(op, &other.id);
                match client::run(
                    &lab.launcher,
                    &other,
                    Some(&pin.client),
                    &p,
                    (&peer.id, EXP, &id),
                    pin.placement(None),
                )
                .await
                {
                    Ok((mut run, _)) => {
                        run.settings.background = Some("none".to_owned());
                        lab.runs.push(run);
                    }
                    Err(e) => lab.problem(format!(
                        "{EXP}: {} called by {} {op} ({}): {e:#}",
                        peer.id,
                        other.id,
                        pin.kind.label()
                    )),
                }
            }
        }
    }
    server.stop().await?;
    if points > 0 && failures.len() == points {
        bail!("every point failed, first: {}", failures[0]);
    }
    lab.peers.mark(&own.id, None);
    Ok(())
}
