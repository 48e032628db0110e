//! García et al.'s load tests on the peers that carry card, news and shop (Axis2, the Erlang
//! stand-in): each peer server is started pinned like soapstone's, its three answers are checked
//! ([`crate::peers::answers`]), a JVM gets its untimed warm-up, and then the same schedules run
//! against it as against soapstone, with the same client, connections and timeout, so Fig. 6 and
//! Fig. 11 put the three servers side by side from one run. This module must never time a peer
//! whose answers were not checked, and never run a peer's point with settings soapstone's did
//! not have.

use std::time::Duration;

use super::wsb::{request, schedule_spec, SERVICES, TESTS};
use super::{Lab, READY};
use crate::driver::BenchSpec;
use crate::peers::answers::check_document;
use crate::peers::server::PeerServer;
use crate::peers::ManifestPeer;
use crate::results::{Placement, PlacementKind};

const EXP: &str = "wsb";

/// The operation each service's request calls.
pub(crate) fn operation(service: &str) -> &'static str {
    match service {
        "card" => "authorize",
        "news" => "getHeadlines",
        _ => "findOffers",
    }
}

/// Runs both tests on every ready peer that carries `wsb`.
pub(crate) async fn run(lab: &mut Lab) {
    for peer in lab.peers.carrying("wsb") {
        let result = one(lab, &peer).await;
        lab.peer_outcome(EXP, &peer.id, result);
    }
}

async fn one(lab: &mut Lab, peer: &ManifestPeer) -> anyhow::Result<()> {
    let scale = lab.cfg.timing.wsb_scale;
    let template = peer.services.get("wsb").cloned().unwrap_or_default();
    let server = PeerServer::start(&lab.launcher, peer, Some(&lab.cfg.server_cpu), READY).await?;
    let path = |service: &str| template.replace("{service}", service);
    for service in SERVICES {
        if let Err(e) = check_document(
            &server.addr(),
            &path(service),
            &request(service),
            operation(service),
            None,
        )
        .await
        {
            let _ = server.stop().await;
            anyhow::bail!("its answer to {service} is wrong: {e}");
        }
    }
    let url = |service: &str| format!("http://{}{}", server.addr(), path(service));
    let client_cpu = lab.load_cpu();
    if let Some(w) = peer.warmup_s.filter(|w| *w > 0.0) {
        // A JVM's JIT warm-up: untimed sequential calls over the three services.
        let each = Duration::from_secs_f64(w / SERVICES.len() as f64);
        for service in SERVICES {
            let body = lab.body(&format!("wsb-{service}.xml"), &request(service))?;
            let spec = BenchSpec::sequential(url(service), each, Duration::ZERO).with_body(body);
            crate::driver::bench(&lab.launcher, Some(&client_cpu), &spec)
                .await
                .map_err(|e| anyhow::anyhow!("its warm-up failed: {e:#}"))?;
        }
    }
    for (test, _) in TESTS {
        for service in SERVICES {
            let body = lab.body(&format!("wsb-{service}.xml"), &request(service))?;
            let spec = schedule_spec(url(service), test, scale).with_body(body);
            let placement = Placement {
                kind: PlacementKind::CrossCpu,
                server_cpu: Some(lab.cfg.server_cpu.clone()),
                client_cpu: Some(client_cpu.clone()),
                load_cpu: None,
            };
            lab.measure(
                (&peer.id, EXP, &format!("{test}/{service}")),
                placement,
                &spec,
            )
            .await;
        }
    }
    server.stop().await
}
