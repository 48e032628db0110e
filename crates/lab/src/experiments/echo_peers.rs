//! Ruby's echoFloat on the peer servers that carry it (Axis2, CXF, Mono ASMX, gSOAP, the Erlang
//! stand-in, and any other peer whose manifest lists an `echo` path): the same envelope, byte
//! for byte, from the same sequential client with the same window and placements as soapstone's
//! point, so the echo table's messages-per-second column compares stacks measured side by side.
//! Each peer's answer is checked ([`crate::peers::answers`]) before it is timed; a JVM or Mono
//! peer gets its warm-up first. Must never time a peer whose answer was not checked.

use std::time::Duration;

use super::echo::RUBY_REQUEST;
use super::{Lab, READY};
use crate::driver::BenchSpec;
use crate::peers::answers::check_document;
use crate::peers::server::PeerServer;
use crate::peers::ManifestPeer;

const EXP: &str = "echo";
const OP: &str = "echoFloat";

/// Times echoFloat on every ready peer that carries it.
pub(crate) async fn run(lab: &mut Lab) {
    for peer in lab.peers.carrying("echo") {
        let result = one(lab, &peer).await;
        lab.peer_outcome(EXP, &peer.id, result);
    }
}

async fn one(lab: &mut Lab, peer: &ManifestPeer) -> anyhow::Result<()> {
    let t = lab.cfg.timing.clone();
    let path = peer.services.get("echo").cloned().unwrap_or_default();
    let mut server =
        PeerServer::start(&lab.launcher, peer, Some(&lab.cfg.server_cpu), READY).await?;
    if let Err(e) = check_document(&server.addr(), &path, RUBY_REQUEST, OP, None).await {
        let state = server.state();
        let _ = server.stop().await;
        anyhow::bail!("its echoFloat answer is wrong: {e}\n{state}");
    }
    let url = format!("http://{}{path}", server.addr());
    let body = lab.body("echoFloat.xml", RUBY_REQUEST)?;
    if let Some(w) = peer.warmup_s.filter(|w| *w > 0.0) {
        let spec = BenchSpec::sequential(url.clone(), Duration::from_secs_f64(w), Duration::ZERO)
            .with_body(body.clone());
        crate::driver::bench(&lab.launcher, Some(&lab.cfg.other_cpu), &spec)
            .await
            .map_err(|e| anyhow::anyhow!("its warm-up failed: {e:#}"))?;
    }
    for pin in lab.pins() {
        let spec =
            BenchSpec::sequential(url.clone(), t.echo_window, t.warmup).with_body(body.clone());
        lab.measure((&peer.id, EXP, OP), pin.placement(None), &spec)
            .await;
    }
    server.stop().await
}
