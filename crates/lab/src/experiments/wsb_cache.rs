//! García, Blanco, Blanco and París (seed 004, 2008) §V, Figs 14-16: the Erlang server kept a
//! cache of the answers to identical requests, consulted before a worker process was spawned,
//! and test2 (ten 30 s phases from 100 to 1000 requests/s) was rerun on the news and the online
//! store services with it: fewer errors and more correct answers for the news service.
//!
//! The paper's gain came from a server that could not keep up: the uncached Erlang server
//! answered 30 news requests a second on 2008's hardware while test2 offered up to 1000, the
//! cached one ~150. Today's servers answer test2's 1000/s with or without a cache (a cache
//! then changes nothing in correct answers/s), so the schedule is raised until the uncached
//! server saturates: before the points, each server (pinned to one CPU, as a 2008 server was)
//! is probed uncached with [`PROBE_CONNECTIONS`] closed-loop connections per service, and test2
//! runs with its rates times `k` (`bench --rate-scale k`), `k` set so that the top step offers
//! [`OVERLOAD`] times the probed capacity: the uncached server saturates about half-way, as
//! García's did. The same `k` is used with the cache off and on, so the two points of a server
//! and service differ in the cache only. Points: soapstone off and on (`serve --response-cache
//! news,shop`), the Erlang stand-in off and on (its manifest command's `{cache}` switch), and
//! Axis2 without a cache as the paper's reference (taken from the `wsb` section's test2 at
//! ×1 when that experiment is in the same run). Each server's answers are checked twice before
//! any point is timed, so a cached answer passes the same check as a computed one. The load
//! repeats one request per service, as the seed's clients did, so with the cache on every
//! request after the first is a hit: this measures the hit path (what García measured), not a
//! hit ratio. Must never time a server whose answers were not checked, label a point with a
//! cache state the server was not started with, or compare two points run at different `k`.

use std::time::Duration;

use super::wsb::{request, schedule_spec};
use super::wsb_peers::operation;
use super::{Lab, READY};
use crate::config::Experiment;
use crate::driver::{BenchSpec, Load};
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
/// Closed-loop connections of the capacity probe: the open-loop generator's count, so the
/// probe saturates the server the way test2's steps do.
const PROBE_CONNECTIONS: u32 = 32;
/// The top step of the raised test2 offers this multiple of the uncached server's probed
/// capacity (test2's steps are 1/10 to 10/10 of its top: saturation near step 5).
pub(crate) const OVERLOAD: f64 = 2.0;

/// `k` of `--rate-scale` for a probed capacity: the top step (1000/s × k) at [`OVERLOAD`] ×
/// the capacity, two significant digits, never below test2 itself (k = 1).
pub(crate) fn rate_scale(capacity_per_s: f64) -> f64 {
    let k = OVERLOAD * capacity_per_s / 1000.0;
    if k.is_nan() || k <= 1.0 {
        return 1.0;
    }
    match k.log10().floor() as i32 - 1 {
        e if e >= 0 => (k / 10f64.powi(e)).round() * 10f64.powi(e),
        e => (k * 10f64.powi(-e)).round() / 10f64.powi(-e),
    }
}

/// The operation name of a capacity probe in `results.json`.
pub(crate) fn probe_op(service: &str) -> String {
    format!("capacity/{service}")
}

/// `on` or `off`, as `results.json` writes a point's `cache`.
pub(crate) fn label(cache: bool) -> &'static str {
    if cache {
        "on"
    } else {
        "off"
    }
}

pub(crate) async fn run(lab: &mut Lab) -> anyhow::Result<()> {
    let mut scales = None;
    for cache in [false, true] {
        match soapstone(lab, cache, scales.as_ref()).await {
            Ok(k) => scales = scales.or(k),
            Err(e) => lab.problem(format!(
                "{EXP}: soapstone with its response cache {} was not measured: {e:#}",
                label(cache)
            )),
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
        let mut scales = None;
        for &cache in modes {
            match peer_points(lab, &peer, cache, scales.as_ref()).await {
                Ok(k) => scales = scales.or(k),
                Err(e) => result = result.and(Err(e)),
            }
        }
        lab.peer_outcome(EXP, &peer.id, result);
    }
    Ok(())
}

/// Each service's `k`, from the uncached probe of one server.
type Scales = Vec<(&'static str, f64)>;

/// Probes each service's capacity at `url(service)` (the server's cache off), records the
/// probes, and returns each service's `k`.
async fn probe(lab: &mut Lab, system: &str, url: &dyn Fn(&str) -> String) -> Scales {
    let client_cpu = lab.load_cpu();
    let window = lab.cfg.timing.latency_window.max(Duration::from_secs(1));
    let warmup = lab.cfg.timing.warmup;
    let mut out = Vec::new();
    for service in SERVICES {
        let body = match lab.body(&format!("wsb-{service}.xml"), &request(service)) {
            Ok(b) => b,
            Err(e) => {
                lab.problem(format!("{EXP}: {e:#}"));
                continue;
            }
        };
        let spec = BenchSpec {
            load: Load::Closed {
                connections: PROBE_CONNECTIONS,
                duration: window,
                warmup,
            },
            timeout: Some(Duration::from_secs(20)),
            ..BenchSpec::sequential(url(service), Duration::ZERO, Duration::ZERO)
        }
        .with_body(body);
        let placement = Placement {
            kind: PlacementKind::CrossCpu,
            server_cpu: Some(lab.cfg.server_cpu.clone()),
            client_cpu: Some(client_cpu.clone()),
            load_cpu: None,
        };
        let Some(i) = lab
            .measure((system, EXP, &probe_op(service)), placement, &spec)
            .await
        else {
            continue;
        };
        lab.runs[i].cache = Some(label(false).to_owned());
        out.push((service, rate_scale(lab.runs[i].throughput_rps)));
    }
    out
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

/// Times test2 (rates × each service's `k`) on both services at `url(service)` and labels the
/// points with `cache`.
async fn points(
    lab: &mut Lab,
    system: &str,
    cache: bool,
    scales: &Scales,
    url: impl Fn(&str) -> String,
) {
    let scale = lab.cfg.timing.wsb_scale;
    let client_cpu = lab.load_cpu();
    for service in SERVICES {
        let Some(&(_, k)) = scales.iter().find(|(s, _)| *s == service) else {
            lab.problem(format!(
                "{EXP}: {system} {service} with the cache {} not timed: its uncached capacity \
                 was not probed",
                label(cache)
            ));
            continue;
        };
        let body = match lab.body(&format!("wsb-{service}.xml"), &request(service)) {
            Ok(b) => b,
            Err(e) => {
                lab.problem(format!("{EXP}: {e:#}"));
                continue;
            }
        };
        let mut spec = schedule_spec(url(service), TEST, scale).with_body(body);
        spec.extra = vec!["--rate-scale".to_owned(), format!("{k}")];
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

/// soapstone with its cache `cache`: probed first when uncached (`scales` is `None`), then
/// test2 × `k`. Returns the probe's `k`s.
async fn soapstone(
    lab: &mut Lab,
    cache: bool,
    scales: Option<&Scales>,
) -> anyhow::Result<Option<Scales>> {
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
    let url = |s: &str| format!("{base}/wsb/{s}");
    let probed = match (scales, cache) {
        (Some(_), _) => None,
        (None, false) => Some(probe(lab, "soapstone", &url).await),
        (None, true) => {
            let _ = server.stop().await;
            anyhow::bail!("its uncached capacity was not probed, so test2's rates are not set");
        }
    };
    let scales = scales.or(probed.as_ref()).expect("probed or given");
    points(lab, "soapstone", cache, scales, url).await;
    server.stop().await?;
    Ok(probed)
}

async fn peer_points(
    lab: &mut Lab,
    peer: &ManifestPeer,
    cache: bool,
    scales: Option<&Scales>,
) -> anyhow::Result<Option<Scales>> {
    let started = match cache {
        true => {
            with_cache_on(peer).ok_or_else(|| anyhow::anyhow!("it has no `{{cache}}` switch"))?
        }
        false => peer.clone(),
    };
    if cache && scales.is_none() {
        anyhow::bail!("with its cache on: its uncached capacity was not probed");
    }
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
        let each = Duration::from_secs_f64(w / SERVICES.len() as f64);
        let client_cpu = lab.load_cpu();
        for service in SERVICES {
            let body = lab.body(&format!("wsb-{service}.xml"), &request(service))?;
            let spec = BenchSpec::sequential(url(service), each, Duration::ZERO).with_body(body);
            if let Err(e) = crate::driver::bench(&lab.launcher, Some(&client_cpu), &spec).await {
                let _ = server.stop().await;
                anyhow::bail!("its warm-up failed: {e:#}");
            }
        }
    }
    let probed = match scales {
        Some(_) => None,
        None => Some(probe(lab, &peer.id, &url).await),
    };
    let scales = scales.or(probed.as_ref()).expect("probed or given");
    points(lab, &peer.id, cache, scales, url).await;
    server.stop().await?;
    Ok(probed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_top_step_is_twice_the_uncached_capacity() {
        // soapstone's news on one CPU answered ~16,700/s uncached: steps 3,300 to 33,000/s.
        assert_eq!(rate_scale(16_667.0), 33.0);
        // The Erlang stand-in's news, ~1,700/s: ×3.4, steps 340 to 3,400/s.
        assert_eq!(rate_scale(1_696.0), 3.4);
        assert_eq!(rate_scale(123_456.0), 250.0);
        // Below test2's own top (García's 2008 servers): test2 as published.
        assert_eq!(rate_scale(30.0), 1.0);
        assert_eq!(rate_scale(499.0), 1.0);
        assert_eq!(rate_scale(f64::NAN), 1.0);
    }
}
