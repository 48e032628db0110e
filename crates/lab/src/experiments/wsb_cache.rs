//! García, Blanco, Blanco and París (seed 004, 2008) §V, Figs 14-16: the Erlang server kept a
//! cache of the answers to identical requests, consulted before a worker process was spawned,
//! and test2 (ten 30 s phases from 100 to 1000 requests/s) was rerun on the news and the online
//! store services with it: fewer errors and more correct answers for the news service.
//!
//! Here test2 runs on news and shop, in one run and one after the other, against soapstone with
//! its response cache off and on (`serve --response-cache news,shop`), against the Erlang
//! stand-in off and on (its manifest command's `{cache}` switch), and against Axis2, which had
//! no cache, as the paper's reference (taken from the `wsb` section's test2 points when that
//! experiment is in the same run: the same schedule, client and settings). Each server's
//! answers are checked twice before any point is timed, so a cached answer passes the same
//! check as a computed one. The load repeats one request per service, as the seed's clients
//! did, so with the cache on every request after the first is a hit: this measures the hit path
//! (what García measured), not a hit ratio. Must never time a server whose answers were not
//! checked, nor label a point with a cache state the server was not started with.

use super::wsb::{request, schedule_spec};
use super::wsb_peers::operation;
use super::{Lab, READY};
use crate::config::Experiment;
use crate::driver::BenchSpec;
use crate::peers::answers::check_document;
use crate::peers::server::{with_cache_on, PeerServer};
use crate::peers::ManifestPeer;
use crate::procs::Server;
use crate::results::{Placement, PlacementKind};

pub(crate) use super::wsb_cache_report::section;

pub(crate) const EXP: &str = "wsb_cache";
/// García reran test2 only (Figs 15 and 16).
pub(crate) const TEST: &str = "test2";
/// The services of Figs 15 (news) and 16 (online store); the card is never cached.
pub(crate) const SERVICES: [&str; 2] = ["news", "shop"];

/// `on` or `off`, as `results.json` writes a point's `cache`.
pub(crate) fn label(cache: bool) -> &'static str {
    if cache {
        "on"
    } else {
        "off"
    }
}

pub(crate) async fn run(lab: &mut Lab) -> anyhow::Result<()> {
    for cache in [false, true] {
        if let Err(e) = soapstone(lab, cache).await {
            lab.problem(format!(
                "{EXP}: soapstone with its response cache {} was not measured: {e:#}",
                label(cache)
            ));
        }
    }
    // Axis2 (no switch) is measured here only when the wsb section does not measure the
    // same test2 points in this run.
    let wsb_runs = lab.cfg.experiments.contains(&Experiment::Wsb);
    for peer in lab.peers.carrying("wsb") {
        if peer.id == "erlang" && with_cache_on(&peer).is_none() {
            lab.problem(format!(
                "{EXP}: the erlang peer's manifest command has no `{{cache}}` switch (built before \
                 it existed): rerun `lab/peers/setup.sh --only erlang`; it ran without a cache only"
            ));
        }
        let modes: &[bool] = match with_cache_on(&peer) {
            Some(_) => &[false, true],
            None if wsb_runs && peer.id != "erlang" => continue,
            None => &[false],
        };
        let mut result = Ok(());
        for &cache in modes {
            result = result.and(peer_points(lab, &peer, cache).await);
        }
        lab.peer_outcome(EXP, &peer.id, result);
    }
    Ok(())
}

/// Checks `addr`'s answers to both services twice (the second may come from the cache).
async fn check(addr: &str, path: impl Fn(&str) -> String) -> anyhow::Result<()> {
    for service in SERVICES {
        for attempt in ["first", "repeated"] {
            check_document(
                addr,
                &path(service),
                &request(service),
                operation(service),
                None,
            )
            .await
            .map_err(|e| anyhow::anyhow!("its {attempt} answer to {service} is wrong: {e}"))?;
        }
    }
    Ok(())
}

/// Times test2 on both services at `url(service)` and labels the points with `cache`.
async fn points(lab: &mut Lab, system: &str, cache: bool, url: impl Fn(&str) -> String) {
    let scale = lab.cfg.timing.wsb_scale;
    let client_cpu = lab.load_cpu();
    for service in SERVICES {
        let body = match lab.body(&format!("wsb-{service}.xml"), &request(service)) {
            Ok(b) => b,
            Err(e) => {
                lab.problem(format!("{EXP}: {e:#}"));
                continue;
            }
        };
        let spec = schedule_spec(url(service), TEST, scale).with_body(body);
        let placement = Placement {
            kind: PlacementKind::CrossCpu,
            server_cpu: Some(lab.cfg.server_cpu.clone()),
            client_cpu: Some(client_cpu.clone()),
            load_cpu: None,
        };
        let op = format!("{TEST}/{service}");
        if let Some(i) = lab.measure((system, EXP, &op), placement, &spec).await {
            lab.runs[i].cache = Some(label(cache).to_owned());
        }
    }
}

async fn soapstone(lab: &mut Lab, cache: bool) -> anyhow::Result<()> {
    let mut args: Vec<String> = ["serve", "--addr", "127.0.0.1:0", "--services", "wsb"]
        .map(str::to_owned)
        .to_vec();
    if cache {
        args.extend(["--response-cache".to_owned(), SERVICES.join(",")]);
    }
    let server = Server::start(
        &lab.launcher,
        &format!("serve-wsb-cache-{}", label(cache)),
        Some(&lab.cfg.server_cpu.clone()),
        &args,
        READY,
    )
    .await?;
    if let Err(e) = check(&server.addr, |s| format!("/wsb/{s}")).await {
        let _ = server.stop().await;
        return Err(e);
    }
    let base = server.base_url();
    points(lab, "soapstone", cache, |s| format!("{base}/wsb/{s}")).await;
    server.stop().await
}

async fn peer_points(lab: &mut Lab, peer: &ManifestPeer, cache: bool) -> anyhow::Result<()> {
    let started = match cache {
        true => {
            with_cache_on(peer).ok_or_else(|| anyhow::anyhow!("it has no `{{cache}}` switch"))?
        }
        false => peer.clone(),
    };
    let template = peer.services.get("wsb").cloned().unwrap_or_default();
    let path = |service: &str| template.replace("{service}", service);
    let server =
        PeerServer::start(&lab.launcher, &started, Some(&lab.cfg.server_cpu), READY).await?;
    if let Err(e) = check(&server.addr(), path).await {
        let _ = server.stop().await;
        anyhow::bail!("with its cache {}: {e:#}", label(cache));
    }
    let addr = server.addr();
    let url = |service: &str| format!("http://{addr}{}", path(service));
    if let Some(w) = peer.warmup_s.filter(|w| *w > 0.0) {
        // A JVM's JIT warm-up: untimed sequential calls over the two services.
        let each = std::time::Duration::from_secs_f64(w / SERVICES.len() as f64);
        let client_cpu = lab.load_cpu();
        for service in SERVICES {
            let body = lab.body(&format!("wsb-{service}.xml"), &request(service))?;
            let spec = BenchSpec::sequential(url(service), each, std::time::Duration::ZERO)
                .with_body(body);
            if let Err(e) = crate::driver::bench(&lab.launcher, Some(&client_cpu), &spec).await {
                let _ = server.stop().await;
                anyhow::bail!("its warm-up failed: {e:#}");
            }
        }
    }
    points(lab, &peer.id, cache, url).await;
    server.stop().await
}
