//! Davis and Parashar's Tables II, IV and VI ("client and server on separate hosts") on the
//! emulated LAN ([`crate::netem`]): the server in one network namespace, `soapstone bench` in the
//! other, the link between them (netem, or the delay line where the kernel has none) at the
//! seeds' 10 Mbit/s with a wire's delay. soapstone, the TCP connect baseline
//! (their "TCP setup time") and every SOAP peer that passed its answer check on loopback earlier
//! in this run and whose command takes a `{host}` (a peer is just a process started with
//! `ip netns exec`); the CORBA and RMI servers likewise, timed by their own client run in the
//! client's namespace.
//!
//! Where the LAN cannot be created (not root, no `ip`), the reason goes into `results.json`
//! (`lan`) and the problems, and the section says so; the other tables are unaffected. This
//! module must never time a peer that was not checked, and never leave the namespaces behind
//! (the [`Lan`] is dropped on every path).

use super::dp_peers::body_for;
use super::{Lab, READY};
use crate::driver::BenchSpec;
use crate::netem::{Lan, Side, SERVER_IP};
use crate::peers::client::{self, ClientPoint};
use crate::peers::server::PeerServer;
use crate::peers::ManifestPeer;
use crate::procs::{Launcher, Server};
use crate::report::suspect::{cell, MARK_NOTE};
use crate::report::{fmt, Row, Table};
use crate::results::{Placement, PlacementKind, Results};
use crate::seeds::{self, SeedTable};

const EXP: &str = "dp";

/// Measures the separate-host points, if the LAN can be made.
pub(crate) async fn run(lab: &mut Lab, ops: &[(String, &'static str, Option<u32>)]) {
    let Some(spec) = lab.cfg.lan.clone() else {
        lab.lan = Some("not run (`--lan off`)".to_owned());
        return;
    };
    let mut lan = match Lan::create(&spec) {
        Ok(lan) => lan,
        Err(e) => {
            lab.lan = Some(format!("not emulated: {e}"));
            lab.problem(format!(
                "dp: the separate-host tables (II, IV, VI) were not measured: the emulated LAN \
                 could not be created (root is needed): {e}"
            ));
            return;
        }
    };
    lab.lan = Some(lan.describe());
    eprintln!("lab: dp on the emulated LAN: {}", lan.describe());
    let server_side = lab.launcher.wrapped(lan.exec_prefix(Side::Server));
    let client_side = lab.launcher.wrapped(lan.exec_prefix(Side::Client));
    if let Err(e) = soapstone(lab, &server_side, &client_side, ops).await {
        lab.problem(format!("dp: soapstone on the emulated LAN: {e:#}"));
    }
    if let Err(e) = tcp_connect(lab, &server_side, &client_side).await {
        lab.problem(format!("dp: tcp-connect on the emulated LAN: {e:#}"));
    }
    // Only peers whose answers were checked (and timed) on loopback in this run, and that can
    // listen on the LAN address (`{host}`); the tables name the others.
    let checked: Vec<ManifestPeer> = ["soap-http", "corba", "rmi"]
        .into_iter()
        .flat_map(|t| lab.peers.ready("server", t))
        .filter(|p| p.command.iter().any(|a| a.contains("{host}")))
        .filter(|p| {
            lab.peers
                .systems
                .iter()
                .any(|s| s.id == p.id && s.status == "ready")
        })
        .collect();
    for peer in checked {
        let r = if peer.transport == "soap-http" {
            peer_server(lab, &lan, &client_side, &peer, ops).await
        } else {
            binary_server(lab, &lan, &client_side, &peer, ops).await
        };
        if let Err(e) = r {
            lab.problem(format!(
                "dp: peer {} was not measured on the emulated LAN: {e:#}",
                peer.id
            ));
        }
    }
    match lan.delay_line_stats() {
        Some(Ok(s)) if s.dropped != [0, 0] || s.unwritable != [0, 0] => lab.problem(format!(
            "dp: the emulated LAN's delay line dropped packets (drop-tail past its queue: \
             {:?} client to server, server to client; refused by a TUN device: {:?}): TCP \
             retransmissions are in these points",
            s.dropped, s.unwritable
        )),
        Some(Ok(s)) => eprintln!(
            "lab: dp's delay line forwarded {:?} packets, none dropped; writes late by {:.1} µs \
             on average, {:.0} µs at most",
            s.forwarded, s.late_mean_us, s.late_max_us
        ),
        Some(Err(e)) => lab.problem(format!("dp: the delay line's counters: {e}")),
        None => {}
    }
    drop(lan);
}

fn placement(lab: &Lab) -> Placement {
    Placement {
        kind: PlacementKind::Lan,
        server_cpu: Some(lab.cfg.server_cpu.clone()),
        client_cpu: Some(lab.cfg.other_cpu.clone()),
        load_cpu: None,
    }
}

async fn soapstone(
    lab: &mut Lab,
    server_side: &Launcher,
    client_side: &Launcher,
    ops: &[(String, &'static str, Option<u32>)],
) -> anyhow::Result<()> {
    let t = lab.cfg.timing.clone();
    let args: Vec<String> = [
        "serve",
        "--addr",
        &format!("{SERVER_IP}:0"),
        "--services",
        "dp",
        // The emulated LAN is a private link on this machine: beyond loopback, but
        // nobody else's network, so no TLS or authentication (docs/security.md).
        "--insecure",
    ]
    .map(str::to_owned)
    .to_vec();
    let server = Server::start(
        server_side,
        "serve-dp-lan",
        Some(&lab.cfg.server_cpu),
        &args,
        READY,
    )
    .await?;
    let url = format!("{}/dp", server.base_url());
    for (id, op, size) in ops {
        let body = lab.body(
            &format!("dp-{}.xml", id.replace('/', "-")),
            &super::dp::request(op, *size),
        )?;
        let spec = BenchSpec::sequential(url.clone(), t.latency_window, t.warmup).with_body(body);
        let at = placement(lab);
        lab.measure_on(client_side, ("soapstone", EXP, id), at, &spec)
            .await;
    }
    server.stop().await
}

async fn tcp_connect(
    lab: &mut Lab,
    server_side: &Launcher,
    client_side: &Launcher,
) -> anyhow::Result<()> {
    let t = lab.cfg.timing.clone();
    let args: Vec<String> = [
        "baseline",
        "tcp-connect",
        "--addr",
        &format!("{SERVER_IP}:0"),
    ]
    .map(str::to_owned)
    .to_vec();
    let server = Server::start(
        server_side,
        "baseline-tcp-connect-lan",
        Some(&lab.cfg.server_cpu),
        &args,
        READY,
    )
    .await?;
    let spec = BenchSpec::sequential(
        format!("tcp-connect://{}", server.addr),
        t.latency_window,
        std::time::Duration::ZERO,
    );
    let at = placement(lab);
    lab.measure_on(client_side, ("tcp-connect", EXP, "doNothing"), at, &spec)
        .await;
    server.stop().await
}

async fn peer_server(
    lab: &mut Lab,
    lan: &Lan,
    client_side: &Launcher,
    peer: &ManifestPeer,
    ops: &[(String, &'static str, Option<u32>)],
) -> anyhow::Result<()> {
    let t = lab.cfg.timing.clone();
    let server = PeerServer::start_on(
        &lab.launcher,
        peer,
        Some(&lab.cfg.server_cpu),
        READY,
        Some(lan),
    )
    .await?;
    let path = peer.path.clone().unwrap_or_else(|| "/dp".to_owned());
    let url = format!("http://{}{path}", server.addr());
    if let Some(w) = peer.warmup_s.filter(|w| *w > 0.0) {
        // The same JIT warm-up as on loopback: a fresh process starts cold.
        let each = std::time::Duration::from_secs_f64(w / ops.len() as f64);
        for (id, op, size) in ops {
            let body = lab.body(
                &format!("dp-{}-{}-warmup.xml", peer.id, id.replace('/', "-")),
                &body_for(peer, op, *size),
            )?;
            let mut spec =
                BenchSpec::sequential(url.clone(), each, std::time::Duration::ZERO).with_body(body);
            spec.action = Some(format!("urn:test:soap#{op}"));
            crate::driver::bench(client_side, Some(&lab.cfg.other_cpu), &spec)
                .await
                .map_err(|e| anyhow::anyhow!("its warm-up failed: {e:#}"))?;
        }
    }
    for (id, op, size) in ops {
        let body = lab.body(
            &format!("dp-{}-{}.xml", peer.id, id.replace('/', "-")),
            &body_for(peer, op, *size),
        )?;
        let mut spec =
            BenchSpec::sequential(url.clone(), t.latency_window, t.warmup).with_body(body);
        spec.action = Some(format!("urn:test:soap#{op}"));
        spec.timeout = Some(std::time::Duration::from_secs(5));
        let at = placement(lab);
        lab.measure_enough(client_side, (&peer.id, EXP, id), at, &spec)
            .await;
    }
    server.stop().await
}

/// A CORBA or RMI server in the server's namespace, timed by its own client in the client's.
async fn binary_server(
    lab: &mut Lab,
    lan: &Lan,
    client_side: &Launcher,
    peer: &ManifestPeer,
    ops: &[(String, &'static str, Option<u32>)],
) -> anyhow::Result<()> {
    let Some(client_peer) = lab.peers.client_of(&peer.id) else {
        anyhow::bail!("no ready client peer calls it (its `-client` peer is missing)");
    };
    let t = lab.cfg.timing.clone();
    let server = PeerServer::start_on(
        &lab.launcher,
        peer,
        Some(&lab.cfg.server_cpu),
        READY,
        Some(lan),
    )
    .await?;
    let url = crate::peers::server::fill(peer.url.as_deref().unwrap_or_default(), &server);
    for (id, op, size) in ops {
        let point = ClientPoint {
            url: &url,
            op,
            n: size.unwrap_or(0),
            warmup: t.warmup,
            window: t.latency_window,
        };
        let at = placement(lab);
        match client::run(
            client_side,
            &client_peer,
            Some(&lab.cfg.other_cpu),
            &point,
            (&peer.id, EXP, id),
            at,
        )
        .await
        {
            Ok((run, _)) => lab.runs.push(run),
            Err(e) => lab.problem(format!(
                "{EXP}: {} {id} on the emulated LAN: {e:#}",
                peer.id
            )),
        }
    }
    server.stop().await
}

/// Today's rows of the separate-host tables: soapstone, every SOAP, CORBA and RMI server peer
/// the results list, and (for doNothing only) the TCP connect baseline.
fn lan_systems(results: &Results, with_baseline: bool) -> Vec<(String, String)> {
    let mut out = vec![(
        "soapstone".to_owned(),
        "soapstone (SOAP, HTTP/1.1)".to_owned(),
    )];
    for s in results.systems.iter().filter(|s| {
        s.role == "server"
            && ["soap-http", "corba", "rmi"].contains(&s.transport.as_str())
            && s.id != "soapstone"
    }) {
        let measured = results
            .runs
            .iter()
            .any(|r| r.system == s.id && r.settings.placement.kind == PlacementKind::Lan);
        let why = if measured {
            String::new()
        } else if s.status != "ready" {
            format!(", {}", s.status)
        } else {
            ", not on the LAN: its command binds loopback only".to_owned()
        };
        out.push((s.id.clone(), format!("{}{why}", s.name)));
    }
    if with_baseline {
        out.push((
            "tcp-connect".to_owned(),
            "tcp-connect (for TCP setup time)".to_owned(),
        ));
    }
    out
}

fn published(t: &SeedTable, interleave: bool, width: usize) -> Vec<Row> {
    let mut rows = vec![Row::group(format!(
        "published ({}; separate hosts on a 10 Mbit/s two-host LAN, ms, average of 200 calls)",
        t.source
    ))];
    for r in t.rows {
        let mut cells = vec![r.label.to_owned()];
        for v in r.values {
            cells.push(fmt::ms(*v));
            if interleave {
                cells.push(String::new());
            }
        }
        cells.resize(width, String::new());
        rows.push(Row::published(cells));
    }
    rows
}

/// The emulation in a few words for a table's title, from [`Lan::describe`]'s sentence
/// (`results.json`'s `lan`): how the link was made and its rate.
fn caption(what: &str) -> String {
    let how = if what.contains("joined by a delay line") {
        "a TUN delay line"
    } else if what.contains("shaped at each end by netem") {
        "netem"
    } else {
        "a token bucket, no delay"
    };
    let rate = what
        .split(" Mbit/s")
        .next()
        .and_then(|s| s.rsplit(' ').next())
        .filter(|r| r.parse::<u32>().is_ok());
    let delay = what
        .split(" µs one way")
        .next()
        .and_then(|s| s.rsplit(' ').next())
        .filter(|d| d.parse::<u32>().is_ok() && what.contains(" µs one way"));
    match (rate, delay) {
        (Some(r), Some(d)) => format!("emulated LAN: {r} Mbit/s, {d} µs each way, {how}"),
        (Some(r), None) => format!("emulated LAN: {r} Mbit/s, {how}"),
        _ => format!("emulated LAN, {how}"),
    }
}

/// Tables II, IV and VI: empty (none) when no point ran on the LAN.
pub(crate) fn tables(results: &Results) -> Vec<Table> {
    let on_lan = |sys: &str, op: &str| results.get(EXP, sys, op, PlacementKind::Lan);
    if !results
        .runs
        .iter()
        .any(|r| r.experiment == EXP && r.settings.placement.kind == PlacementKind::Lan)
    {
        return Vec::new();
    }
    let what = results.lan.clone().unwrap_or_default();
    let note = |extra: &str| {
        format!(
            "Published: ms, average of 200 calls, two hosts on a 10 Mbit/s LAN (seed 001, §IV). \
             Today: µs, \
             on the emulated LAN: {what}. Server pinned to CPU A in one namespace, soapstone bench \
             (for CORBA and RMI servers, their own client) to CPU B in the other. {extra}{MARK_NOTE}"
        )
    };
    let mut out = Vec::new();
    let t = &seeds::DP_TABLE_II;
    let mut rows = published(t, false, 4);
    rows.push(Row::group("today on the emulated LAN (µs)"));
    for (sys, label) in lan_systems(results, true) {
        let r = on_lan(&sys, "doNothing");
        rows.push(Row::today(vec![
            label,
            String::new(),
            cell(r, |r| r.p50_us, fmt::us),
            cell(r, |r| r.p99_us, fmt::us),
        ]));
    }
    out.push(Table {
        title: format!(
            "Table II: doNothing(), client and server on separate hosts ({})",
            caption(&what)
        ),
        source: t.source.to_owned(),
        note: note(""),
        header: [
            "system",
            "2002 latency (ms)",
            "LAN p50 (µs)",
            "LAN p99 (µs)",
        ]
        .map(str::to_owned)
        .to_vec(),
        rows,
    });
    for (t, op, title) in [
        (
            &seeds::DP_TABLE_IV,
            "getString",
            "Table IV: getString(), client and server on separate hosts",
        ),
        (
            &seeds::DP_TABLE_VI,
            "getIntegers",
            "Table VI: getIntegers(), client and server on separate hosts",
        ),
    ] {
        let mut rows = published(t, true, 1 + 2 * t.columns.len());
        rows.push(Row::group("today on the emulated LAN (µs, median)"));
        for (sys, label) in lan_systems(results, false) {
            let mut cells = vec![label];
            for n in [200, 400, 800] {
                cells.push(String::new());
                cells.push(cell(
                    on_lan(&sys, &format!("{op}/{n}")),
                    |r| r.p50_us,
                    fmt::us,
                ));
            }
            rows.push(Row::today(cells));
        }
        let mut header = vec!["system".to_owned()];
        for c in t.columns {
            header.push(format!("{c}: 2002 (ms)"));
            header.push(format!("{c}: LAN p50 (µs)"));
        }
        out.push(Table {
            title: format!("{title} ({})", caption(&what)),
            source: t.source.to_owned(),
            note: note("† = the 2002 implementation returned an XML node list. "),
            header,
            rows,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::caption;

    #[test]
    fn a_tables_title_names_the_emulation_its_rate_and_delay() {
        assert_eq!(
            caption(
                "two network namespaces (...), joined by a delay line (`soapstone \
                 lab-delayline` between a TUN device in each: every IP packet held for its \
                 serialization at 10 Mbit/s, Ethernet framing counted, plus 50 µs one way, ...)"
            ),
            "emulated LAN: 10 Mbit/s, 50 µs each way, a TUN delay line"
        );
        assert_eq!(
            caption("..., joined by a veth pair shaped at each end by netem to 100 Mbit/s plus 20 µs one way"),
            "emulated LAN: 100 Mbit/s, 20 µs each way, netem"
        );
        assert_eq!(
            caption("..., joined by a veth pair limited to 10 Mbit/s by a token bucket (tbf, one packet of burst) and NO added delay (no netem; the delay line failed: ...)"),
            "emulated LAN: 10 Mbit/s, a token bucket, no delay"
        );
    }
}
