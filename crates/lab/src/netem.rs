//! The emulated LAN of Davis & Parashar's "separate hosts" tables (II, IV, VI): two network
//! namespaces, a server started in one and its client in the other, talking through two TCP
//! stacks and a link with the seeds' rate and a wire's delay, as two hosts on a switch do,
//! instead of through loopback.
//!
//! Why a module of its own: anything that starts a process can use the LAN (a peer is just a
//! command: `ip netns exec NS cmd`), a packet trace included (`tcpdump` on
//! [`Lan::interface`]), so the lab's experiments share this one piece. Root is needed: where it
//! is not permitted, [`Lan::create`] says exactly why, and the report never claims more than
//! was emulated ([`Lan::describe`]).
//!
//! How the link is made, best first ([`Shaping`]):
//!
//! 1. **netem**: a veth pair, each end shaped by `tc qdisc ... netem rate R delay D`.
//! 2. **the delay line**, where the kernel has no `sch_netem` (this lab's Linux 6.18 without
//!    modules has `tbf`, `htb` and `fifo`, but no `netem`, `fq`, `etf`, `cake` or
//!    `NET_ACT_BPF`, so no qdisc can hold a packet for a time): no veth; a TUN device in each
//!    namespace, the only route to the other's address, and `soapstone lab-delayline`
//!    ([`crate::delayline`]) between them, which holds every IP packet for its serialization at
//!    the rate plus the one-way delay and writes it into the other namespace. TCP stays end to
//!    end between the two stacks (a userspace proxy would end one connection and start
//!    another); captures see the packets on the TUN devices ([`Lan::interface`]).
//! 3. **a token bucket**, only if the delay line cannot start (no `/dev/net/tun`, no
//!    executable): `tbf` at the rate on a veth pair and no delay, said in the description.
//!
//! Whatever the link, [`Lan::create`] measures its round trip (a TCP connect and a 1-byte echo,
//! [`RoundTrip`]) and [`Lan::describe`] reports it beside what was asked.
//!
//! The defaults are Davis & Parashar's own LAN (seed 001, §IV: "a 10 Mbps LAN with only these
//! two hosts") and a one-way delay of 50 µs: their network added about 0.4 ms to a call to IIS
//! (1.1 ms on one host, 1.5 ms on two: Tables I and II), most of which is serializing a request
//! and an answer at 10 Mbit/s; what is left, split over the wire's two directions and the two
//! 2002 NICs' interrupt and driver latencies, is tens of µs each way.
//!
//! This module must never leave a namespace behind (a dropped [`Lan`] kills and reaps the
//! delay line and removes both namespaces; a lab that dies without dropping it leaves the
//! delay line's stdin closed, and the delay line then removes them), never touch an interface
//! outside the namespaces it created, and never shape a link without saying how.

use std::path::PathBuf;
use std::process::Command;

use crate::delayline::LineStats;
pub use crate::netem_line::RoundTrip;
use crate::netem_line::{modelled_echo_us, round_trip, LineProcess};

/// What to emulate.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct LanSpec {
    /// Link rate in Mbit/s, each direction. Default: `10` (Davis & Parashar's "10 Mbps LAN
    /// with only these two hosts"; the causes section also runs the seeds' 100).
    pub rate_mbit: u32,
    /// One-way delay added after each packet's serialization, in µs. Default: `50` (see the
    /// module doc for how it was derived).
    pub delay_us: u32,
    /// The `soapstone` executable whose hidden `lab-delayline` is the delay line where the
    /// kernel has no netem (and the janitor that removes the namespaces if the lab dies).
    /// Default: `None` (no delay line: the link falls back to a rate limit without delay).
    pub delay_line: Option<PathBuf>,
}

impl LanSpec {
    /// The same LAN at `mbit` Mbit/s (the seeds ran at 10 and 100).
    pub fn with_rate(mut self, mbit: u32) -> Self {
        self.rate_mbit = mbit;
        self
    }

    /// The same LAN with `us` µs of one-way delay.
    pub fn with_delay_us(mut self, us: u32) -> Self {
        self.delay_us = us;
        self
    }

    /// The same LAN with `exe lab-delayline` as its delay line where netem is missing.
    pub fn with_delay_line(mut self, exe: impl Into<PathBuf>) -> Self {
        self.delay_line = Some(exe.into());
        self
    }
}

impl Default for LanSpec {
    fn default() -> Self {
        LanSpec {
            rate_mbit: 10,
            delay_us: 50,
            delay_line: None,
        }
    }
}

/// The two sides of the LAN.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// Where the server runs (address [`SERVER_IP`]).
    Server,
    /// Where the client runs (address [`CLIENT_IP`]).
    Client,
}

/// The server side's address on the link.
pub const SERVER_IP: &str = "10.77.0.1";
/// The client side's address on the link.
pub const CLIENT_IP: &str = "10.77.0.2";

/// How the link ended up shaped.
#[derive(Debug, Clone, PartialEq)]
pub enum Shaping {
    /// netem on a veth pair: the rate and the delay, as asked.
    Netem,
    /// The delay line between two TUN devices ([`crate::delayline`]): the rate and the delay,
    /// as asked. The string says why netem was not used.
    DelayLine(String),
    /// A token-bucket rate limit (`tbf`, a one-packet bucket) on a veth pair and no added
    /// delay. The string says why neither netem nor the delay line was used.
    RateOnly(String),
}

/// Names of the namespaces and interfaces of one LAN (unique per lab process, so two lab runs
/// on one machine do not collide).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Names {
    pub(crate) server_ns: String,
    pub(crate) client_ns: String,
    pub(crate) server_if: String,
    pub(crate) client_if: String,
    pub(crate) server_tun: String,
    pub(crate) client_tun: String,
}

/// The namespaces' prefix (`soapstone-lan-PID-server`).
const PREFIX: &str = "soapstone-lan-";

impl Names {
    /// The names of the `n`th LAN of process `pid` (a process may hold several at once).
    pub(crate) fn for_process(pid: u32, n: u32) -> Names {
        // Interface names are at most 15 bytes: `ssv` + up to 7 pid digits + `x` + up to two
        // digits of `n` + `s`/`c`.
        let id = format!("{}x{}", pid % 10_000_000, n % 100);
        let ns = format!("{PREFIX}{pid}-{n}");
        Names {
            server_ns: format!("{ns}-server"),
            client_ns: format!("{ns}-client"),
            server_if: format!("ssv{id}s"),
            client_if: format!("ssv{id}c"),
            server_tun: format!("sst{id}s"),
            client_tun: format!("sst{id}c"),
        }
    }

    /// The next unused names of this process.
    fn next() -> Names {
        static COUNT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = COUNT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Names::for_process(std::process::id(), n)
    }
}

fn argv(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| (*w).to_owned()).collect()
}

/// The commands that make the two namespaces, loopback up in each.
pub(crate) fn netns_commands(n: &Names) -> Vec<Vec<String>> {
    let mut cmds = Vec::new();
    for ns in [&n.server_ns, &n.client_ns] {
        cmds.push(argv(&["ip", "netns", "add", ns]));
        // IPv4 only: no IPv6 router solicitations or neighbour discovery on the link (nor in
        // its captures); the lab's calls are all to IPv4 addresses.
        cmds.push(argv(&[
            "ip",
            "netns",
            "exec",
            ns,
            "sysctl",
            "-qw",
            "net.ipv6.conf.all.disable_ipv6=1",
            "net.ipv6.conf.default.disable_ipv6=1",
        ]));
        cmds.push(argv(&["ip", "-n", ns, "link", "set", "lo", "up"]));
    }
    cmds
}

/// The commands that join the namespaces by a veth pair with the two addresses, unshaped.
pub(crate) fn veth_commands(n: &Names) -> Vec<Vec<String>> {
    let mut cmds = vec![argv(&[
        "ip",
        "link",
        "add",
        &n.server_if,
        "netns",
        &n.server_ns,
        "type",
        "veth",
        "peer",
        "name",
        &n.client_if,
        "netns",
        &n.client_ns,
    ])];
    for (ns, dev, ip) in [
        (&n.server_ns, &n.server_if, SERVER_IP),
        (&n.client_ns, &n.client_if, CLIENT_IP),
    ] {
        cmds.push(argv(&[
            "ip",
            "-n",
            ns,
            "addr",
            "add",
            &format!("{ip}/24"),
            "dev",
            dev,
        ]));
        cmds.push(argv(&["ip", "-n", ns, "link", "set", dev, "up"]));
    }
    cmds
}

/// The commands that give the delay line's TUN devices (which it created) their point-to-point
/// addresses: each namespace's only route to the other's address is its TUN device.
pub(crate) fn tun_commands(n: &Names) -> Vec<Vec<String>> {
    let mut cmds = Vec::new();
    for (ns, dev, ip, peer) in [
        (&n.server_ns, &n.server_tun, SERVER_IP, CLIENT_IP),
        (&n.client_ns, &n.client_tun, CLIENT_IP, SERVER_IP),
    ] {
        cmds.push(argv(&[
            "ip", "-n", ns, "addr", "add", ip, "peer", peer, "dev", dev,
        ]));
        cmds.push(argv(&["ip", "-n", ns, "link", "set", dev, "up"]));
    }
    cmds
}

/// The `tc` commands shaping both veth ends: netem with rate and delay, or (`netem == false`)
/// a token bucket of one packet at the same rate.
pub(crate) fn shape_commands(n: &Names, spec: &LanSpec, netem: bool) -> Vec<Vec<String>> {
    let rate = format!("{}mbit", spec.rate_mbit);
    let delay = format!("{}us", spec.delay_us);
    [(&n.server_ns, &n.server_if), (&n.client_ns, &n.client_if)]
        .into_iter()
        .map(|(ns, dev)| {
            let mut c = argv(&["tc", "-n", ns, "qdisc", "add", "dev", dev, "root"]);
            if netem {
                c.extend(argv(&["netem", "rate", &rate, "delay", &delay]));
            } else {
                c.extend(argv(&[
                    "tbf", "rate", &rate, "burst", "1600", "latency", "20ms",
                ]));
            }
            c
        })
        .collect()
}

/// The `tc` commands changing both ends' shaping in place to `spec` (same qdisc kind).
pub(crate) fn reshape_commands(n: &Names, spec: &LanSpec, netem: bool) -> Vec<Vec<String>> {
    let mut cmds = shape_commands(n, spec, netem);
    for c in &mut cmds {
        c[4] = "change".to_owned(); // tc -n NS qdisc add ...
    }
    cmds
}

/// The commands that remove the LAN (deleting a namespace deletes the interfaces in it).
pub(crate) fn teardown_commands(n: &Names) -> Vec<Vec<String>> {
    vec![
        argv(&["ip", "netns", "del", &n.server_ns]),
        argv(&["ip", "netns", "del", &n.client_ns]),
    ]
}

/// The namespaces in `listing` (`ip netns list`) left by lab processes that no longer run
/// (`alive(pid)` false): a lab killed before its delay line could clean up, or one run before
/// the delay line existed.
pub(crate) fn stale_namespaces(listing: &str, alive: impl Fn(u32) -> bool) -> Vec<String> {
    listing
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|ns| {
            let Some(rest) = ns.strip_prefix(PREFIX) else {
                return false;
            };
            let side = rest.rsplit('-').next();
            let pid = rest.split('-').next().and_then(|p| p.parse::<u32>().ok());
            matches!(side, Some("server" | "client")) && pid.is_some_and(|pid| !alive(pid))
        })
        .map(str::to_owned)
        .collect()
}

/// Runs one command; its stderr is the error.
fn run(cmd: &[String]) -> Result<(), String> {
    let out = Command::new(&cmd[0])
        .args(&cmd[1..])
        .output()
        .map_err(|e| format!("cannot run `{}`: {e}", cmd[0]))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "`{}` failed: {}",
            cmd.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// Whether this machine lets the lab make a LAN at all: `ip` runs, a network namespace can be
/// added and removed, and `/dev/net/tun` exists. Tests skip (loudly) where it does not (a
/// container without `CAP_SYS_ADMIN`, even as root) and fail where it does but
/// [`Lan::create`] still cannot make its link: that is a bug of the lab, not of the machine.
pub fn permitted() -> Result<(), String> {
    let probe = format!("soapstone-probe-{}", std::process::id());
    run(&argv(&["ip", "netns", "add", &probe]))?;
    let _ = run(&argv(&["ip", "netns", "del", &probe]));
    if !std::path::Path::new("/dev/net/tun").exists() {
        return Err("no `/dev/net/tun`".to_owned());
    }
    Ok(())
}

/// A LAN that exists: removed when dropped.
#[derive(Debug)]
pub struct Lan {
    names: Names,
    spec: LanSpec,
    shaping: Shaping,
    /// The delay line, or (on netem and tbf links) the janitor alone.
    line: Option<LineProcess>,
    /// The measured round trip, or why it could not be measured.
    round_trip: Result<RoundTrip, String>,
}

impl Lan {
    /// Creates the namespaces, the link and its shaping, then measures its round trip. On any
    /// failure what was created is removed and the error says which command failed and why
    /// (`Operation not permitted` when not root).
    pub fn create(spec: &LanSpec) -> Result<Lan, String> {
        let names = Names::next();
        if let Ok(out) = Command::new("ip").args(["netns", "list"]).output() {
            let listing = String::from_utf8_lossy(&out.stdout);
            let alive = |pid: u32| std::path::Path::new(&format!("/proc/{pid}")).exists();
            for ns in stale_namespaces(&listing, alive) {
                let _ = run(&argv(&["ip", "netns", "del", &ns]));
            }
        }
        // A namespace left by a killed run of a process with the same pid would make `add` fail.
        for c in teardown_commands(&names) {
            let _ = run(&c);
        }
        let mut lan = Lan {
            names,
            spec: spec.clone(),
            shaping: Shaping::Netem,
            line: None,
            round_trip: Err("not measured".to_owned()),
        };
        for c in netns_commands(&lan.names)
            .into_iter()
            .chain(veth_commands(&lan.names))
        {
            run(&c)?; // `lan` drops here on error and removes what exists.
        }
        let netem = shape_commands(&lan.names, spec, true);
        if let Err(no_netem) = run(&netem[0]) {
            lan.shaping = match lan.start_delay_line() {
                Ok(()) => Shaping::DelayLine(no_netem),
                Err(why) => {
                    lan.line = None;
                    // The veth pair again only if the delay line's start had removed it.
                    let n = &lan.names;
                    let show = argv(&["ip", "-n", &n.server_ns, "link", "show", &n.server_if]);
                    let veth = if run(&show).is_err() {
                        veth_commands(n)
                    } else {
                        Vec::new()
                    };
                    for c in veth.into_iter().chain(shape_commands(n, spec, false)) {
                        run(&c)?;
                    }
                    Shaping::RateOnly(format!("{no_netem}; the delay line failed: {why}"))
                }
            };
        } else {
            run(&netem[1])?;
        }
        if lan.line.is_none() {
            if let Some(exe) = &spec.delay_line {
                let ns = [lan.names.server_ns.as_str(), &lan.names.client_ns];
                // The janitor only matters if the lab dies before dropping the LAN.
                match LineProcess::spawn(exe, ns, None, spec) {
                    Ok(j) => lan.line = Some(j),
                    Err(e) => eprintln!("lab: the emulated LAN runs without its janitor: {e}"),
                }
            }
        }
        lan.measure();
        Ok(lan)
    }

    /// Replaces the veth pair by the delay line's two TUN devices.
    fn start_delay_line(&mut self) -> Result<(), String> {
        let Some(exe) = self.spec.delay_line.clone() else {
            return Err("no delay line executable was given".to_owned());
        };
        let n = &self.names;
        run(&argv(&[
            "ip",
            "-n",
            &n.server_ns,
            "link",
            "del",
            &n.server_if,
        ]))?;
        let ns = [n.server_ns.as_str(), &n.client_ns];
        let tuns = [n.server_tun.as_str(), &n.client_tun];
        self.line = Some(LineProcess::spawn(&exe, ns, Some(tuns), &self.spec)?);
        for c in tun_commands(&self.names) {
            run(&c)?;
        }
        Ok(())
    }

    fn measure(&mut self) {
        self.round_trip = round_trip(&self.names.server_ns, &self.names.client_ns);
    }

    /// Changes the link's rate in place, keeping its namespaces, addresses and whatever runs in
    /// them, and measures the round trip again; [`Lan::describe`] then tells the new rate.
    pub fn set_rate(&mut self, mbit: u32) -> Result<(), String> {
        let spec = self.spec.clone().with_rate(mbit);
        match (&self.shaping, &mut self.line) {
            (Shaping::DelayLine(_), Some(line)) => {
                line.command(&format!("rate {mbit}"))?;
            }
            (shaping, _) => {
                let netem = *shaping == Shaping::Netem;
                for c in reshape_commands(&self.names, &spec, netem) {
                    run(&c)?;
                }
            }
        }
        self.spec = spec;
        self.measure();
        Ok(())
    }

    /// The link's rate in Mbit/s.
    pub fn rate_mbit(&self) -> u32 {
        self.spec.rate_mbit
    }

    /// The namespace of `side`.
    pub fn namespace(&self, side: Side) -> &str {
        match side {
            Side::Server => &self.names.server_ns,
            Side::Client => &self.names.client_ns,
        }
    }

    /// `side`'s end of the link, the interface a capture in that namespace listens on: the
    /// veth end, or the delay line's TUN device (raw IP, no link header).
    pub fn interface(&self, side: Side) -> &str {
        let tun = matches!(self.shaping, Shaping::DelayLine(_));
        match (side, tun) {
            (Side::Server, false) => &self.names.server_if,
            (Side::Client, false) => &self.names.client_if,
            (Side::Server, true) => &self.names.server_tun,
            (Side::Client, true) => &self.names.client_tun,
        }
    }

    /// The words that run a command in `side`'s namespace: `ip netns exec NS`.
    pub fn exec_prefix(&self, side: Side) -> Vec<String> {
        argv(&["ip", "netns", "exec", self.namespace(side)])
    }

    /// How the link is shaped.
    pub fn shaping(&self) -> &Shaping {
        &self.shaping
    }

    /// The round trip measured when the link was made or last reshaped.
    pub fn round_trip(&self) -> Result<RoundTrip, &str> {
        self.round_trip.as_ref().copied().map_err(String::as_str)
    }

    /// The process id of the delay line (or the janitor), if one runs.
    pub fn delay_line_pid(&self) -> Option<u32> {
        self.line.as_ref().map(LineProcess::pid)
    }

    /// What the delay line forwarded, dropped, and how late it was (`None` on other links).
    pub fn delay_line_stats(&mut self) -> Option<Result<LineStats, String>> {
        match (&self.shaping, &mut self.line) {
            (Shaping::DelayLine(_), Some(line)) => Some(line.stats()),
            _ => None,
        }
    }

    /// Whether something listens on TCP `port` in `side`'s namespace (the lab's own sockets
    /// cannot reach into it, so readiness is read with `ss`).
    pub fn listening(&self, side: Side, port: u16) -> bool {
        let mut cmd = self.exec_prefix(side);
        cmd.extend(argv(&["ss", "-Hltn", &format!("sport = :{port}")]));
        Command::new(&cmd[0])
            .args(&cmd[1..])
            .output()
            .is_ok_and(|o| o.status.success() && !o.stdout.is_empty())
    }

    /// One sentence saying what was emulated and the round trip measured, for the report.
    pub fn describe(&self) -> String {
        let s = &self.spec;
        let base = format!(
            "two network namespaces (`{}`, `{}`), {SERVER_IP} (server) and {CLIENT_IP} (client)",
            self.names.server_ns, self.names.client_ns
        );
        let link = match &self.shaping {
            Shaping::Netem => format!(
                "{base}, joined by a veth pair shaped at each end by netem to {} Mbit/s plus {} \
                 µs one way",
                s.rate_mbit, s.delay_us
            ),
            Shaping::DelayLine(_) => format!(
                "{base}, joined by a delay line (`soapstone lab-delayline` between a TUN device \
                 in each: every IP packet held for its serialization at {} Mbit/s, Ethernet \
                 framing counted, plus {} µs one way, in order, drop-tail past {} packets, {}; \
                 this kernel has no netem)",
                s.rate_mbit,
                s.delay_us,
                crate::delayline::DEFAULT_QUEUE,
                if self.line.as_ref().is_some_and(LineProcess::realtime) {
                    "at real-time priority (SCHED_FIFO 50)"
                } else {
                    "at normal priority (`chrt -f` was refused: late packets on a busy machine)"
                }
            ),
            Shaping::RateOnly(why) => format!(
                "{base}, joined by a veth pair limited to {} Mbit/s by a token bucket (tbf, one \
                 packet of burst) and NO added delay ({why}); a token bucket holds a packet only \
                 while it is short of tokens, so neither a wire's delay nor its full \
                 serialization time is emulated",
                s.rate_mbit
            ),
        };
        let measured = match &self.round_trip {
            Ok(rt) => format!(
                "; measured round trip: TCP connect {:.0} µs, 1-byte TCP echo {:.0} µs (the \
                 link model alone: {:.0} µs)",
                rt.connect_us,
                rt.echo_us,
                match self.shaping {
                    Shaping::RateOnly(_) => 0.0,
                    _ => modelled_echo_us(s),
                }
            ),
            Err(why) => format!("; round trip not measured: {why}"),
        };
        link + &measured
    }
}

impl Drop for Lan {
    fn drop(&mut self) {
        // The delay line first (killed and reaped), so nothing holds the TUN devices.
        self.line = None;
        for c in teardown_commands(&self.names) {
            if let Err(e) = run(&c) {
                eprintln!("lab: could not remove the emulated LAN: {e}");
            }
        }
    }
}

#[cfg(test)]
#[path = "netem_tests.rs"]
mod tests;
