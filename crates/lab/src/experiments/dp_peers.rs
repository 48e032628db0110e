//! Davis and Parashar's Tables I, III and V with the peer servers beside soapstone: every SOAP
//! server the peer manifest lists as ready (gSOAP, PHP ext/soap, SOAP::Lite, spyne, node-soap)
//! driven by the same `soapstone bench` client with the same request bodies, and the CORBA and
//! RMI servers driven by their own client (the peer-client protocol), since the bench speaks
//! neither GIOP nor JRMP.
//!
//! Every SOAP server's answer to every operation is checked ([`crate::peers::check`]) before its
//! first point is timed; a server that answers wrongly is not timed at all and is reported as a
//! problem with the reason. This module must never time a peer whose answers were not checked.

use std::time::Duration;

use super::dp::request;
use super::{Lab, READY};
use crate::driver::BenchSpec;
use crate::peers::check::check_http;
use crate::peers::client::{self, ClientPoint};
use crate::peers::server::PeerServer;
use crate::peers::ManifestPeer;

const EXP: &str = "dp";

/// The request body for a peer: the contract's rpc/encoded envelope, or the same without
/// `xsi:type` and `encodingStyle` for a literal-only stack (spyne).
pub(crate) fn body_for(peer: &ManifestPeer, op: &str, size: Option<u32>) -> String {
    let rpc = request(op, size);
    if peer.request.as_deref() == Some("literal") {
        rpc.replace(" xsi:type=\"xsd:int\"", "").replace(
            " SOAP-ENV:encodingStyle=\"http://schemas.xmlsoap.org/soap/encoding/\"",
            "",
        )
    } else {
        rpc
    }
}

/// Measures every ready SOAP server peer and every CORBA/RMI pair on `ops`.
pub(crate) async fn run(lab: &mut Lab, ops: &[(String, &'static str, Option<u32>)]) {
    for peer in lab.peers.ready("server", "soap-http") {
        let result = soap_server(lab, &peer, ops).await;
        lab.peer_outcome(EXP, &peer.id, result);
    }
    for transport in ["corba", "rmi"] {
        for peer in lab.peers.ready("server", transport) {
            let result = binary_server(lab, &peer, ops).await;
            lab.peer_outcome(EXP, &peer.id, result);
        }
    }
}

async fn soap_server(
    lab: &mut Lab,
    peer: &ManifestPeer,
    ops: &[(String, &'static str, Option<u32>)],
) -> anyhow::Result<()> {
    let t = lab.cfg.timing.clone();
    let mut server =
        PeerServer::start(&lab.launcher, peer, Some(&lab.cfg.server_cpu), READY).await?;
    let path = peer.path.clone().unwrap_or_else(|| "/dp".to_owned());
    // Check every answer first: a peer that answers one operation wrongly is not timed.
    for (id, op, size) in ops {
        if let Err(e) =
            check_http(&server.addr(), &path, &body_for(peer, op, *size), op, *size).await
        {
            let state = server.state();
            let _ = server.stop().await;
            anyhow::bail!("its answer to {id} is wrong: {e}\n{state}");
        }
    }
    let url = format!("http://{}{path}", server.addr());
    if let Some(w) = peer.warmup_s.filter(|w| *w > 0.0) {
        // A JVM peer's JIT warm-up: untimed calls over every operation, results dropped.
        let each = Duration::from_secs_f64(w / ops.len() as f64);
        let mut first = true;
        for (id, op, size) in ops {
            let body = lab.body(
                &format!("dp-{}-{}-warmup.xml", peer.id, id.replace('/', "-")),
                &body_for(peer, op, *size),
            )?;
            let mut spec = BenchSpec::sequential(url.clone(), each, Duration::ZERO).with_body(body);
            // The same SOAPAction as the timed calls: ASMX routes on it.
            spec.action = Some(format!("urn:test:soap#{op}"));
            let warm = crate::driver::bench(&lab.launcher, Some(&lab.cfg.other_cpu), &spec)
                .await
                .map_err(|e| anyhow::anyhow!("its warm-up failed: {e:#}"))?;
            if std::mem::take(&mut first) {
                let secs = each.as_secs_f64();
                lab.peers
                    .note_server_warmup(&peer.id, "dp", id, secs, &warm.timeline);
            }
        }
    }
    for (id, op, size) in ops {
        let body = lab.body(
            &format!("dp-{}-{}.xml", peer.id, id.replace('/', "-")),
            &body_for(peer, op, *size),
        )?;
        for pin in lab.pins() {
            let mut spec = BenchSpec::sequential(url.clone(), t.latency_window, t.warmup)
                .with_body(body.clone());
            spec.action = Some(format!("urn:test:soap#{op}"));
            // Slow stacks (a 40 ms delayed-ACK stall per call) get the timeout the lab uses.
            spec.timeout = Some(Duration::from_secs(5));
            // A slow stack (SOAP::Lite's 44 ms a call) gets a window long enough for 30 calls.
            let launcher = lab.launcher.clone();
            lab.measure_enough(&launcher, (&peer.id, EXP, id), pin.placement(None), &spec)
                .await;
        }
    }
    server.stop().await
}

async fn binary_server(
    lab: &mut Lab,
    peer: &ManifestPeer,
    ops: &[(String, &'static str, Option<u32>)],
) -> anyhow::Result<()> {
    let Some(client_peer) = lab.peers.client_of(&peer.id) else {
        anyhow::bail!("no ready client peer calls it (its `-client` peer is missing)");
    };
    let t = lab.cfg.timing.clone();
    let server = PeerServer::start(&lab.launcher, peer, Some(&lab.cfg.server_cpu), READY).await?;
    let url = crate::peers::server::fill(peer.url.as_deref().unwrap_or_default(), &server);
    let mut failures = Vec::new();
    for (id, op, size) in ops {
        for pin in lab.pins() {
            let point = ClientPoint {
                url: &url,
                op,
                n: size.unwrap_or(0),
                warmup: t.warmup,
                window: t.latency_window,
            };
            let placement = pin.placement(None);
            match client::run(
                &lab.launcher,
                &client_peer,
                Some(&pin.client),
                &point,
                (&peer.id, EXP, id),
                placement,
            )
            .await
            {
                Ok((run, warmup)) => {
                    if let Some(w) = warmup {
                        lab.peers.note_warmup(&client_peer.id, id, &w);
                    }
                    lab.runs.push(run);
                }
                Err(e) => {
                    let msg = format!("{id} ({}): {e:#}", pin.kind.label());
                    lab.problem(format!("{EXP}: {} {msg}", peer.id));
                    failures.push(msg);
                }
            }
        }
    }
    server.stop().await?;
    if failures.len() == ops.len() * lab.pins().len() {
        anyhow::bail!("every point failed, first: {}", failures[0]);
    }
    // The client timed these points: it was measured too (else it stays `unmeasured`).
    lab.peers.mark(&client_peer.id, None);
    Ok(())
}
