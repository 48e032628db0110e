//! The seeds' causes on purpose (issue 13): one call of each kind (Ruby's echoFloat, the
//! thesis's creditControl) cured, with each cause alone, with the thesis's own setup and with
//! every cause on, its packets captured on loopback (client and server on two CPUs, then on
//! one) and again on the emulated LAN at the seeds' 100 and 10 Mbit/s ([`crate::netem`]: the
//! server in one network namespace, the traced client and its tcpdump on the client's end of the link (veth or TUN)
//! in the other); throughput under each client cause (`soapstone bench --naive`,
//! [`super::causes_bench`]); the omniORB CORBA call beside them when
//! the peer manifest has it; and Ruby's fixed overhead per message redrawn (echoFloat round
//! trip against request size, streaming and with the DOM cause).
//!
//! Each mode is a `soapstone serve --naive ...` (the server's causes) and a `soapstone trace
//! ... --naive ...` (the client's, and the capture), so that every figure and every pcap under
//! `logs/` comes with the command that reproduces it. Where capture is not permitted the calls
//! are still timed and the section says why it has no packets; where the LAN cannot be made
//! the loopback part stands and the section says why. This module must never name a stall the
//! capture did not show, never run a mode without the cured one beside it on the same network,
//! and never leave the LAN's namespaces behind.

use std::path::Path;
use std::time::Duration;

use anyhow::Context as _;

use super::echo::RUBY_REQUEST;
use super::thesis::CREDIT_CONTROL;
use super::{Lab, READY};
use crate::driver::BenchSpec;
use crate::netem::{Lan, Side, SERVER_IP};
use crate::peers::client::{self, ClientPoint};
use crate::peers::server::PeerServer;
use crate::procs::{Launcher, Server};
use crate::results::TraceRecord as Record;
use crate::results::{Placement, PlacementKind, Run, Settings, TraceRecord};
use crate::timeline::{self, CallTimeline};
use crate::trace::TraceFile;

pub(crate) const EXP: &str = "causes";

/// One mode: a name, what it is, the server's causes and the client's.
pub(crate) struct Mode {
    pub(crate) id: &'static str,
    pub(crate) label: &'static str,
    /// The label in the packet figure.
    pub(crate) short: &'static str,
    server: Option<&'static str>,
    client: Option<&'static str>,
}

/// Every mode, in report order. `cured` must stay first: the others are read against it.
pub(crate) const MODES: &[Mode] = &[
    Mode {
        id: "cured",
        short: "cured",
        label: "cured (soapstone as shipped)",
        server: None,
        client: None,
    },
    Mode {
        id: "server",
        short: "server: Nagle, 2 writes",
        label: "server: Nagle on, head and body in two writes",
        server: Some("nagle,split-writes"),
        client: None,
    },
    Mode {
        id: "read-to-eof",
        short: "client: reads to EOF",
        label: "client: reads until the server's FIN",
        server: None,
        client: Some("read-to-eof"),
    },
    Mode {
        id: "connection-per-call",
        short: "client: conn. per call",
        label: "client: a connection per call (HTTP/1.0)",
        server: None,
        client: Some("connection-per-call"),
    },
    Mode {
        id: "expect-continue",
        short: "client: Expect 100",
        label: "client: Expect: 100-continue",
        server: None,
        client: Some("expect-continue"),
    },
    Mode {
        id: "dom",
        short: "server: DOM parse",
        label: "server: a DOM parse before decoding",
        server: Some("dom"),
        client: None,
    },
    Mode {
        id: "thesis",
        short: "the thesis's setup",
        label: "the thesis's setup: server causes, client reads to EOF",
        server: Some("nagle,split-writes"),
        client: Some("read-to-eof"),
    },
    Mode {
        id: "all",
        short: "all causes",
        label: "all causes together",
        server: Some("all,dom"),
        client: Some("all"),
    },
];

/// The operations: id, path, body, SOAPAction.
pub(crate) const KINDS: &[(&str, &str, &str, &str)] = &[
    (
        "echoFloat",
        "/echo",
        RUBY_REQUEST,
        "http://tempuri.org/echoFloat",
    ),
    ("creditControl", "/charging", CREDIT_CONTROL, ""),
];

/// Request sizes of the fixed-overhead sweep: padding bytes added to Ruby's envelope.
const PADS: &[usize] = &[0, 2048, 8192, 32768, 131072];

/// The seeds' link rates in Mbit/s: the thesis's and García's 100 Mbit/s Ethernet (seeds 000,
/// 004) and Davis & Parashar's 10 Mbit/s LAN (001). The LAN runs at the configured rate first
/// (default 10), then at the others.
pub(crate) const SEED_RATES_MBIT: [u32; 2] = [100, 10];

/// Where one pass of the modes runs: the key of its runs, traces and files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Network {
    /// Loopback, the client on the other CPU where there are two (a cross-CPU wake-up each
    /// way, as between two machines).
    Loopback,
    /// Loopback, client and server on one CPU.
    SameCpu,
    /// The emulated LAN at this many Mbit/s.
    Lan(u32),
}

impl Network {
    /// Every network a results file can hold, in report order.
    pub(crate) fn all() -> Vec<Network> {
        let mut v = vec![Network::Loopback, Network::SameCpu];
        v.extend(SEED_RATES_MBIT.map(Network::Lan));
        v
    }

    /// The operation id of a mode's run: `echoFloat/server`, `echoFloat/server@same-cpu`,
    /// `echoFloat/server@lan-10mbit`.
    pub(crate) fn operation(self, op: &str, mode: &str) -> String {
        match self {
            Network::Loopback => format!("{op}/{mode}"),
            Network::SameCpu => format!("{op}/{mode}@same-cpu"),
            Network::Lan(r) => format!("{op}/{mode}@lan-{r}mbit"),
        }
    }

    /// The file name of a capture, server database or log: `causes[-same-cpu|-lanR]-NAME`.
    pub(crate) fn file(self, name: &str) -> String {
        match self {
            Network::Loopback => format!("causes-{name}"),
            Network::SameCpu => format!("causes-same-cpu-{name}"),
            Network::Lan(r) => format!("causes-lan{r}-{name}"),
        }
    }

    /// The network a trace was captured on.
    pub(crate) fn of(t: &Record) -> Network {
        match (t.lan, t.rate_mbit, t.same_cpu) {
            (true, r, _) => Network::Lan(r.unwrap_or(100)),
            (false, _, true) => Network::SameCpu,
            (false, _, false) => Network::Loopback,
        }
    }

    /// How the report names it after a figure: `on loopback, one CPU`.
    pub(crate) fn label(self) -> String {
        match self {
            Network::Loopback => "on loopback".to_owned(),
            Network::SameCpu => "on loopback, one CPU".to_owned(),
            Network::Lan(r) => format!("on the emulated LAN at {r} Mbit/s"),
        }
    }
}

pub(crate) async fn run(lab: &mut Lab) -> anyhow::Result<()> {
    modes_on(lab, &Net::loopback(lab, Network::Loopback)).await?;
    if lab.pins().len() > 1 {
        // The first pass was cross-CPU; on one CPU it was this one already.
        modes_on(lab, &Net::loopback(lab, Network::SameCpu)).await?;
    }
    corba(lab).await;
    on_lan(lab).await;
    Ok(())
}

/// Every mode of every kind on `net`; on loopback Ruby's overhead sweep as well.
async fn modes_on(lab: &mut Lab, net: &Net) -> anyhow::Result<()> {
    let mut servers: Vec<Option<&str>> = Vec::new();
    for m in MODES {
        if !servers.contains(&m.server) {
            servers.push(m.server);
        }
    }
    let kinds: Vec<_> = KINDS
        .iter()
        .filter(|(op, ..)| net.every_kind || *op == "echoFloat")
        .collect();
    for naive in servers {
        let (server, serve_cmd) = match serve(lab, net, naive).await {
            Ok(s) => s,
            // On the LAN a server that does not start is a problem of that part only.
            Err(e) if net.lan() => {
                lab.problem(format!("{EXP}: on the emulated LAN: {e:#}"));
                continue;
            }
            Err(e) => return Err(e),
        };
        for mode in MODES.iter().filter(|m| m.server == naive) {
            for (op, path, body, action) in &kinds {
                let url = format!("{}{path}", server.base_url());
                let target = Target {
                    url: &url,
                    body,
                    action,
                    serve: &serve_cmd,
                };
                if let Err(e) = trace(lab, net, mode, op, &target).await {
                    lab.problem(format!(
                        "{EXP}: {op} ({} {}) was not traced: {e:#}",
                        mode.id,
                        net.network.label()
                    ));
                }
            }
        }
        if net.network == Network::Loopback && matches!(naive, None | Some("dom")) {
            overhead(lab, &server, naive.is_some()).await;
        }
        if net.network == Network::Loopback && naive.is_none() {
            super::causes_bench::run(lab, &server).await;
        }
        server.stop().await?;
    }
    Ok(())
}

/// The same modes again with the server in one network namespace and `soapstone trace` (and
/// its tcpdump, on the client's end of the link: its veth end, or its TUN device where the
/// delay line is the link) in the other, where the LAN can be made: at the
/// configured rate, then at the seeds' other rate (the link reshaped in place).
async fn on_lan(lab: &mut Lab) {
    let Some(spec) = lab.cfg.lan.clone() else {
        lab.lan
            .get_or_insert_with(|| "not run (`--lan off`)".to_owned());
        return;
    };
    let mut lan = match Lan::create(&spec) {
        Ok(lan) => lan,
        Err(e) => {
            lab.lan.get_or_insert_with(|| format!("not emulated: {e}"));
            lab.problem(format!(
                "{EXP}: the causes were traced on loopback only: the emulated LAN could not be \
                 created (root is needed): {e}"
            ));
            return;
        }
    };
    if lab.lan.as_deref().is_none_or(|l| l.starts_with("not ")) {
        lab.lan = Some(lan.describe());
    }
    let mut rates = vec![spec.rate_mbit];
    rates.extend(SEED_RATES_MBIT.iter().filter(|r| **r != spec.rate_mbit));
    for (i, rate) in rates.into_iter().enumerate() {
        if i > 0 {
            if let Err(e) = lan.set_rate(rate) {
                lab.problem(format!(
                    "{EXP}: the emulated LAN could not be reshaped to {rate} Mbit/s: {e}"
                ));
                break;
            }
        }
        eprintln!("lab: causes on the emulated LAN: {}", lan.describe());
        // Both ops at the configured rate; in `--quick` echoFloat alone at the other.
        let net = Net::on(lab, &lan, i == 0 || !lab.cfg.quick);
        if let Err(e) = modes_on(lab, &net).await {
            lab.problem(format!(
                "{EXP}: on the emulated LAN at {rate} Mbit/s: {e:#}"
            ));
        }
    }
    drop(lan);
}

/// Where the calls go: loopback, or across the emulated LAN.
pub(crate) struct Net {
    /// Starts the server (in the server's namespace on the LAN).
    server: Launcher,
    /// Starts `soapstone trace` (in the client's namespace on the LAN).
    client: Launcher,
    /// The address the server binds.
    host: &'static str,
    /// The interface tcpdump listens on, on the client's side.
    interface: String,
    /// Which network this is.
    pub(crate) network: Network,
    /// Both operations, or echoFloat alone (the extra passes of `--quick`, to keep the
    /// section under a minute).
    every_kind: bool,
}

impl Net {
    fn loopback(lab: &Lab, network: Network) -> Net {
        Net {
            server: lab.launcher.clone(),
            client: lab.launcher.clone(),
            host: "127.0.0.1",
            interface: "lo".to_owned(),
            network,
            every_kind: network == Network::Loopback || !lab.cfg.quick,
        }
    }

    fn on(lab: &Lab, lan: &Lan, every_kind: bool) -> Net {
        Net {
            server: lab.launcher.wrapped(lan.exec_prefix(Side::Server)),
            client: lab.launcher.wrapped(lan.exec_prefix(Side::Client)),
            host: SERVER_IP,
            interface: lan.interface(Side::Client).to_owned(),
            network: Network::Lan(lan.rate_mbit()),
            every_kind,
        }
    }

    /// On the emulated LAN.
    pub(crate) fn lan(&self) -> bool {
        matches!(self.network, Network::Lan(_))
    }

    /// The file name of a mode's capture, server database and log.
    pub(crate) fn file(&self, name: &str) -> String {
        self.network.file(name)
    }
}

/// What a trace calls, and the command line of the server that answers (for the record).
struct Target<'a> {
    url: &'a str,
    body: &'a str,
    action: &'a str,
    serve: &'a str,
}

/// `soapstone serve` with the echo and charging services and `naive` causes, and its command
/// line with the port it got.
async fn serve(lab: &Lab, net: &Net, naive: Option<&str>) -> anyhow::Result<(Server, String)> {
    let name = net.file(&naive.unwrap_or("cured").replace(',', "-"));
    // Beside the mode's capture and log, not at the top of the report's directory.
    let db = lab.cfg.out.join("logs").join(format!("{name}.sqlite"));
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", db.display()));
    }
    let mut args: Vec<String> = [
        "serve",
        "--addr",
        &format!("{}:0", net.host),
        "--services",
        "echo,charging",
        "--db",
    ]
    .map(str::to_owned)
    .to_vec();
    args.push(db.display().to_string());
    if !net.host.starts_with("127.") {
        // The emulated LAN is a private link on this machine: beyond loopback, but nobody
        // else's network, so no TLS or authentication (docs/security.md).
        args.push("--insecure".into());
    }
    if let Some(n) = naive {
        args.push("--naive".into());
        args.push(n.into());
    }
    let server = Server::start(
        &net.server,
        &format!("{name}-serve"),
        Some(&lab.cfg.server_cpu),
        &args,
        READY,
    )
    .await?;
    args[2] = server.addr.clone();
    let command = net.server.display(Some(&lab.cfg.server_cpu), &args);
    Ok((server, command))
}

/// The client's CPU: the other one when there are two (a cross-CPU wake-up each way, as
/// between two machines), else the server's.
fn client_pin(lab: &Lab) -> (PlacementKind, String) {
    match lab.pins().pop() {
        Some(p) => (p.kind, p.client),
        None => (PlacementKind::SameCpu, lab.cfg.server_cpu.clone()),
    }
}

/// Where the traced client of `net` runs: the server's CPU on [`Network::SameCpu`].
fn trace_pin(lab: &Lab, net: &Net) -> (PlacementKind, String) {
    match net.network {
        Network::SameCpu => (PlacementKind::SameCpu, lab.cfg.server_cpu.clone()),
        Network::Lan(_) => (PlacementKind::Lan, client_pin(lab).1),
        Network::Loopback => client_pin(lab),
    }
}

/// Calls captured under `mode`: in `--quick` a quarter (at least 8) with every cause on, each
/// of which costs the 350 ms `100 Continue` wait, so that four networks fit the section's
/// minute (the report marks those points as resting on few calls).
fn calls_of(mode: &Mode, calls: usize, quick: bool) -> usize {
    if quick && mode.id == "all" {
        (calls / 4).max(8).min(calls)
    } else {
        calls
    }
}

/// What one `soapstone trace` of the section is asked.
pub(crate) struct TraceCall<'a> {
    pub(crate) url: &'a str,
    pub(crate) calls: usize,
    pub(crate) warmup: usize,
    pub(crate) body: &'a Path,
    pub(crate) action: &'a str,
    pub(crate) interface: &'a str,
    pub(crate) pcap: &'a Path,
    pub(crate) json: &'a Path,
    pub(crate) naive: Option<&'a str>,
}

/// The arguments of `soapstone trace` for `c` (`--interface` only off loopback, so that the
/// loopback commands read as before).
pub(crate) fn trace_args(c: &TraceCall<'_>) -> Vec<String> {
    let mut args: Vec<String> = vec![
        "trace".into(),
        c.url.into(),
        "--calls".into(),
        c.calls.to_string(),
        "--warmup".into(),
        c.warmup.to_string(),
        "--body".into(),
        c.body.display().to_string(),
        "--action".into(),
        c.action.into(),
    ];
    if c.interface != "lo" {
        args.push("--interface".into());
        args.push(c.interface.into());
    }
    args.extend([
        "--pcap".into(),
        c.pcap.display().to_string(),
        "--json".into(),
        c.json.display().to_string(),
        "--timings-without-capture".into(),
    ]);
    if let Some(n) = c.naive {
        args.push("--naive".into());
        args.push(n.into());
    }
    args
}

/// Traces `op` under `mode` with `soapstone trace` and records the run and the trace.
async fn trace(
    lab: &mut Lab,
    net: &Net,
    mode: &Mode,
    op: &str,
    target: &Target<'_>,
) -> anyhow::Result<()> {
    let (url, body, action) = (target.url, target.body, target.action);
    let t = lab.cfg.timing.clone();
    let name = net.file(&format!("{op}-{}", mode.id));
    let body_path = lab.body(&format!("causes-{op}-{}.xml", mode.id), body)?;
    let pcap = lab.cfg.out.join("logs").join(format!("{name}.pcap"));
    let json = lab.cfg.out.join("logs").join(format!("{name}.json"));
    // Warm-up matters only on a kept connection (it leaves Linux's quick-ACK mode).
    let keeps_connection = mode.client.is_none() || mode.client == Some("expect-continue");
    let warmup = if keeps_connection { t.causes_warmup } else { 0 };
    let calls = calls_of(mode, t.causes_calls, lab.cfg.quick);
    let args = trace_args(&TraceCall {
        url,
        calls,
        warmup,
        body: &body_path,
        action,
        interface: &net.interface,
        pcap: &pcap,
        json: &json,
        naive: mode.client,
    });
    let (kind, cpu) = trace_pin(lab, net);
    let command = net.client.display(Some(&cpu), &args);
    let log = net.client.log_path(&name);
    let stdout = std::fs::File::create(&log)
        .with_context(|| format!("cannot create `{}`", log.display()))?;
    let stderr = stdout.try_clone()?;
    let mut child = net
        .client
        .command(Some(&cpu), &args)
        .stdout(stdout)
        .stderr(stderr)
        .spawn()
        .with_context(|| format!("cannot start `{command}`"))?;
    // Every call may take its request timeout; tcpdump's start and stop on top.
    let deadline = Duration::from_secs(30 + 2 * (calls + warmup) as u64);
    let status = match tokio::time::timeout(deadline, child.wait()).await {
        Ok(s) => s?,
        Err(_) => {
            let _ = child.kill().await;
            anyhow::bail!("`{command}` did not finish within {deadline:?}");
        }
    };
    if !status.success() {
        anyhow::bail!(
            "`{command}` failed ({status}); its output: {}{}",
            log.display(),
            crate::procs::log_tail(&log)
        );
    }
    let file: TraceFile = serde_json::from_str(
        &std::fs::read_to_string(&json)
            .with_context(|| format!("cannot read `{}`", json.display()))?,
    )
    .with_context(|| format!("`{}` is not a trace file", json.display()))?;
    let placement = Placement {
        kind,
        server_cpu: Some(lab.cfg.server_cpu.clone()),
        client_cpu: Some(cpu),
        load_cpu: None,
    };
    let pcap = file.pcap.as_ref().map(|_| format!("logs/{name}.pcap"));
    let operation = net.network.operation(op, mode.id);
    let on = format!(" {}", net.network.label());
    let failed = file.calls.iter().filter(|c| !c.answered()).count();
    if failed > 0 {
        let first = file.calls.iter().find(|c| !c.answered());
        lab.problem(format!(
            "{EXP}: {failed} of {} {op} calls ({}{on}) got no 2xx answer, first: {}",
            file.calls.len(),
            mode.id,
            first
                .and_then(|c| c.error.clone().or(c.status.map(|s| format!("HTTP {s}"))))
                .unwrap_or_default()
        ));
    }
    if let Some(run) = run_of(&file.calls, &operation, placement, &command, body.len()) {
        lab.runs.push(run);
    }
    // The record's command reproduces the capture: the server, then the traced calls.
    let both = format!("{} & {command}", target.serve);
    let mut record = record(op, mode.id, both, pcap, file.capture_error, &file.calls);
    record.lan = net.lan();
    record.same_cpu = net.network == Network::SameCpu;
    record.rate_mbit = match net.network {
        Network::Lan(r) => Some(r),
        _ => None,
    };
    if let Some(e) = &record.capture_error {
        let said = format!("{EXP}: no packets{on}, timings only: ");
        if !lab.problems.iter().any(|p| p.starts_with(&said)) {
            lab.problem(format!("{said}{e}"));
        }
    }
    lab.traces.push(record);
    Ok(())
}

/// A trace record from captured calls (the median call's timeline, the stalls seen).
fn record(
    op: &str,
    mode: &str,
    command: String,
    pcap: Option<String>,
    capture_error: Option<String>,
    calls: &[CallTimeline],
) -> TraceRecord {
    let mut stalls: Vec<(String, usize)> = Vec::new();
    for c in calls {
        let mut seen: Vec<&str> = Vec::new();
        for s in c.stalls() {
            if !seen.contains(&s) {
                seen.push(s);
            }
        }
        for s in seen {
            match stalls.iter_mut().find(|(n, _)| n == s) {
                Some((_, k)) => *k += 1,
                None => stalls.push((s.to_owned(), 1)),
            }
        }
    }
    let mut counts: Vec<usize> = calls
        .iter()
        .filter(|c| c.answered())
        .map(|c| c.packets.iter().filter(|p| !p.after_call).count())
        .collect();
    counts.sort_unstable();
    let packets_per_call =
        (capture_error.is_none() && !counts.is_empty()).then(|| counts[counts.len() / 2] as f64);
    TraceRecord {
        experiment: EXP.to_owned(),
        operation: op.to_owned(),
        mode: mode.to_owned(),
        command,
        pcap,
        capture_error,
        calls: calls.len(),
        packets_per_call,
        stalls,
        median_call: timeline::median_call(calls).cloned(),
        lan: false,
        rate_mbit: None,
        same_cpu: false,
    }
}

/// The run of the calls that answered: latency statistics from the client's own timings.
fn run_of(
    calls: &[CallTimeline],
    operation: &str,
    placement: Placement,
    command: &str,
    request_bytes: usize,
) -> Option<Run> {
    let mut us: Vec<f64> = calls
        .iter()
        .filter(|c| c.answered())
        .map(|c| c.ms * 1e3)
        .collect();
    if us.is_empty() {
        return None;
    }
    us.sort_by(f64::total_cmp);
    let n = us.len() as f64;
    let mean = us.iter().sum::<f64>() / n;
    let var = us.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n;
    let rank = |q: f64| us[((q * n).ceil() as usize).clamp(1, us.len()) - 1];
    let total_s: f64 = calls.iter().map(|c| c.ms / 1e3).sum();
    Some(Run {
        system: "soapstone".to_owned(),
        experiment: EXP.to_owned(),
        operation: operation.to_owned(),
        p50_us: rank(0.5),
        p99_us: rank(0.99),
        mean_us: mean,
        stdev_us: Some(var.sqrt()),
        throughput_rps: us.len() as f64 / total_s,
        ok: us.len() as u64,
        errors: (calls.len() - us.len()) as u64,
        timeouts: 0,
        unsent: 0,
        bytes_sent: None,
        bytes_received: None,
        percentiles: Vec::new(),
        timeline: Vec::new(),
        peak_ok_per_second: None,
        cache: None,
        phases: Vec::new(),
        settings: Settings {
            placement,
            duration_s: total_s,
            warmup_s: 0.0,
            connections: 1,
            rate: None,
            schedule: Vec::new(),
            background: None,
            request_bytes: Some(request_bytes as u64),
            command: Some(command.to_owned()),
        },
    })
}

/// Ruby's envelope padded with `pad` bytes in a header block the service ignores.
pub(crate) fn padded(pad: usize) -> String {
    if pad == 0 {
        return RUBY_REQUEST.to_owned();
    }
    RUBY_REQUEST.replacen(
        "<soap:Body>",
        &format!(
            "<soap:Header><pad xmlns=\"urn:soapstone:lab\">{}</pad></soap:Header>\n<soap:Body>",
            "x".repeat(pad)
        ),
        1,
    )
}

/// The operation id of a fixed-overhead point.
pub(crate) fn overhead_op(dom: bool, bytes: usize) -> String {
    format!("overhead{}/{bytes}", if dom { "-dom" } else { "" })
}

/// Ruby's fixed overhead: echoFloat round trips against request size, same CPU.
async fn overhead(lab: &mut Lab, server: &Server, dom: bool) {
    let t = lab.cfg.timing.clone();
    let url = format!("{}/echo", server.base_url());
    let Some(pin) = lab.pins().into_iter().next() else {
        return;
    };
    for pad in PADS {
        let text = padded(*pad);
        let body = match lab.body(&format!("causes-overhead-{pad}.xml"), &text) {
            Ok(b) => b,
            Err(e) => {
                lab.problem(format!("{EXP}: {e:#}"));
                return;
            }
        };
        let mut spec =
            BenchSpec::sequential(url.clone(), t.latency_window / 2, t.warmup / 2).with_body(body);
        spec.action = Some("http://tempuri.org/echoFloat".to_owned());
        spec.request_bytes = Some(text.len() as u64);
        let op = overhead_op(dom, text.len());
        lab.measure(("soapstone", EXP, &op), pin.placement(None), &spec)
            .await;
    }
}

/// The omniORB call beside them: its `doNothing`, timed by its own client, captured.
async fn corba(lab: &mut Lab) {
    let Some(peer) = lab.peers.ready("server", "corba").into_iter().next() else {
        return;
    };
    let result = corba_with(lab, &peer).await;
    lab.peer_outcome(EXP, &peer.id, result);
    if let Some(client) = lab.peers.client_of(&peer.id) {
        if lab.traces.iter().any(|t| t.mode == "corba") {
            lab.peers.mark(&client.id, None);
        }
    }
}

async fn corba_with(lab: &mut Lab, peer: &crate::peers::ManifestPeer) -> anyhow::Result<()> {
    let Some(client_peer) = lab.peers.client_of(&peer.id) else {
        anyhow::bail!("no ready client peer calls it");
    };
    let server = PeerServer::start(&lab.launcher, peer, Some(&lab.cfg.server_cpu), READY).await?;
    let url = crate::peers::server::fill(peer.url.as_deref().unwrap_or_default(), &server);
    let name = format!("causes-doNothing-{}", peer.id);
    let pcap = lab.cfg.out.join("logs").join(format!("{name}.pcap"));
    let capture = crate::capture::Capture::start("lo", server.port, &pcap).await;
    let (kind, cpu) = client_pin(lab);
    // A short window: a CORBA call is tens of microseconds, a longer capture would be large.
    let point = ClientPoint {
        url: &url,
        op: "doNothing",
        n: 0,
        warmup: Duration::from_millis(50),
        window: Duration::from_millis(200),
    };
    let placement = Placement {
        kind,
        server_cpu: Some(lab.cfg.server_cpu.clone()),
        client_cpu: Some(cpu.clone()),
        load_cpu: None,
    };
    let op = format!("doNothing/{}", peer.id);
    let measured = client::run(
        &lab.launcher,
        &client_peer,
        Some(&cpu),
        &point,
        (&peer.id, EXP, &op),
        placement,
    )
    .await;
    let (packets, capture_error) = match capture {
        Ok(c) => (c.stop(None).await?, None),
        Err(why) => (Vec::new(), Some(why)),
    };
    let port = server.port;
    server.stop().await?;
    let (run, _warmup) = measured?;
    let calls = timeline::timelines(&timeline::calls_from_packets(&packets, false), &packets);
    let command = format!(
        "tcpdump -i lo -U -w {name}.pcap tcp port {} & {} {url} doNothing 0 {} {}",
        port,
        client_peer.command.join(" "),
        point.warmup.as_secs_f64(),
        point.window.as_secs_f64()
    );
    let pcap = capture_error.is_none().then(|| format!("logs/{name}.pcap"));
    lab.traces.push(record(
        "doNothing",
        "corba",
        command,
        pcap,
        capture_error,
        &calls,
    ));
    lab.runs.push(run);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timeline::TimelinePacket;

    fn call(ms: f64, stalls: &[&str]) -> CallTimeline {
        CallTimeline {
            ms,
            status: Some(200),
            error: None,
            packets: stalls
                .iter()
                .map(|s| TimelinePacket {
                    t_ms: 1.0,
                    to_server: true,
                    flags: ".".into(),
                    len: 0,
                    stall: Some((*s).to_owned()),
                    after_call: false,
                })
                .collect(),
        }
    }

    #[test]
    fn a_stall_counts_once_per_call_and_only_answered_calls_are_timed() {
        let (ack, nagle) = (timeline::DELAYED_ACK, timeline::NAGLE);
        let mut calls = vec![
            call(44.0, &[ack, nagle, ack]),
            call(45.0, &[ack, nagle]),
            call(0.1, &[]),
        ];
        calls.push(CallTimeline {
            status: Some(500),
            ..call(1.0, &[])
        });
        let r = record("echoFloat", "server", "cmd".into(), None, None, &calls);
        assert_eq!(r.stalls, [(ack.to_owned(), 2), (nagle.to_owned(), 2)]);
        assert_eq!(r.median_call.map(|c| c.ms), Some(44.0));
        let placement = Placement {
            kind: PlacementKind::SameCpu,
            server_cpu: None,
            client_cpu: None,
            load_cpu: None,
        };
        let run = run_of(&calls, "echoFloat/server", placement, "cmd", 300).unwrap();
        assert_eq!((run.ok, run.errors), (3, 1));
        assert_eq!(run.p50_us, 44_000.0);
    }

    #[test]
    fn a_lan_trace_names_the_client_veth_and_a_loopback_one_reads_as_before() {
        let (body, pcap, json) = (
            Path::new("bodies/b.xml"),
            Path::new("logs/causes-lan-echoFloat-server.pcap"),
            Path::new("logs/x.json"),
        );
        let call = |interface| TraceCall {
            url: "http://10.77.0.1:4000/echo",
            calls: 30,
            warmup: 5,
            body,
            action: "http://tempuri.org/echoFloat",
            interface,
            pcap,
            json,
            naive: Some("read-to-eof"),
        };
        assert_eq!(
            trace_args(&call("ssv42c")).join(" "),
            "trace http://10.77.0.1:4000/echo --calls 30 --warmup 5 --body bodies/b.xml \
             --action http://tempuri.org/echoFloat --interface ssv42c --pcap \
             logs/causes-lan-echoFloat-server.pcap --json logs/x.json \
             --timings-without-capture --naive read-to-eof"
        );
        let lo = trace_args(&call("lo"));
        assert!(!lo.contains(&"--interface".to_owned()), "{lo:?}");
        // The LAN's files never overwrite loopback's.
        let launcher = Launcher {
            exe: "soapstone".into(),
            taskset: None,
            log_dir: "logs".into(),
            wrap: Vec::new(),
        };
        let net = |network| Net {
            server: launcher.clone(),
            client: launcher.clone(),
            host: "127.0.0.1",
            interface: "lo".into(),
            network,
            every_kind: true,
        };
        let files: Vec<String> = Network::all()
            .into_iter()
            .map(|n| net(n).file("echoFloat-cured"))
            .collect();
        assert_eq!(
            files,
            [
                "causes-echoFloat-cured",
                "causes-same-cpu-echoFloat-cured",
                "causes-lan100-echoFloat-cured",
                "causes-lan10-echoFloat-cured"
            ]
        );
        // Each network's runs have their own operation id, and a trace says where it was.
        let ops: Vec<String> = Network::all()
            .into_iter()
            .map(|n| n.operation("echoFloat", "all"))
            .collect();
        assert_eq!(
            ops,
            [
                "echoFloat/all",
                "echoFloat/all@same-cpu",
                "echoFloat/all@lan-100mbit",
                "echoFloat/all@lan-10mbit"
            ]
        );
        let mut t = record("echoFloat", "all", "cmd".into(), None, None, &[]);
        assert_eq!(Network::of(&t), Network::Loopback);
        t.same_cpu = true;
        assert_eq!(Network::of(&t), Network::SameCpu);
        (t.lan, t.rate_mbit) = (true, Some(10));
        assert_eq!(Network::of(&t), Network::Lan(10));
        t.rate_mbit = None; // older results: the LAN was 100 Mbit/s
        assert_eq!(Network::of(&t), Network::Lan(100));
    }

    #[test]
    fn every_cause_on_captures_a_quarter_of_the_calls_in_quick() {
        let all = MODES.iter().find(|m| m.id == "all").unwrap();
        assert_eq!(
            [30, 60, 5].map(|n| calls_of(all, n, true)),
            [8, 15, 5],
            "at least 8, never more than asked"
        );
        assert_eq!(calls_of(&MODES[0], 30, true), 30);
        assert_eq!(calls_of(all, 60, false), 60, "all of them in a full run");
    }

    #[test]
    fn padding_goes_in_an_ignored_header_block() {
        assert_eq!(padded(0), RUBY_REQUEST);
        let p = padded(100);
        assert!(p.contains(&format!(">{}</pad>", "x".repeat(100))));
        assert!(p.find("<soap:Header>") < p.find("<soap:Body>"));
        assert!(p.contains("<soap:Header><pad xmlns=\"urn:soapstone:lab\">x"));
        assert!(roxmltree::Document::parse(&p).is_ok());
    }
}
