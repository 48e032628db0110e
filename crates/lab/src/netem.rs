//! The emulated LAN of Davis & Parashar's "separate hosts" tables (II, IV, VI): two network
//! namespaces joined by a veth pair, each end shaped to the seeds' 100 Mbit/s with a small
//! one-way delay (`tc qdisc ... netem rate R delay D`). A server started in one namespace and its
//! client in the other talk through two TCP stacks and a shaped link, as two hosts on a switch do,
//! instead of through loopback.
//!
//! Why a module of its own: anything that starts a process can use the LAN (a peer is just a
//! command: `ip netns exec NS cmd`), a packet trace included (`tcpdump` in either namespace), so
//! the lab's experiments share this one piece. Root is needed: where it is not permitted, or the
//! kernel has no `sch_netem`, [`Lan::create`] says exactly why or what it could emulate instead
//! (a `tbf` rate limit without the delay), so the report never claims more than was emulated.
//!
//! What this kernel offers instead of netem was checked (Linux 6.18 without modules: no
//! `/lib/modules`, no `modprobe`; `/proc/config.gz` has `NET_SCH_TBF`, `HTB` and `FIFO` but no
//! `NETEM`, `FQ`, `ETF`, `CAKE` or `NET_ACT_BPF`): `tbf`'s `latency` bounds how long a packet may
//! queue behind the rate, it adds nothing to an idle link; `txqueuelen` is a queue length, not
//! a delay; delaying by timestamps (a BPF program setting `skb->tstamp` for `fq` to honour) needs
//! `fq`; and a userspace proxy between the namespaces would end one TCP connection and start
//! another, so the trace would no longer show one client's stack against one server's (the very
//! thing the causes section traces). A TUN forwarder that holds each IP packet would be honest
//! but is not built. So on such a kernel the link has its rate and no delay, and says so.
//!
//! This module must never leave a namespace behind (a dropped [`Lan`] removes both, which also
//! removes the veth pair), never touch an interface outside the namespaces it created, and never
//! shape a link without saying how ([`Lan::describe`]).

use std::process::Command;

/// What to emulate.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct LanSpec {
    /// Link rate in Mbit/s, each direction. Default: `100` (the seeds' switched Fast Ethernet).
    pub rate_mbit: u32,
    /// Delay added on each side's egress, in µs. Default: `50` (0.1 ms added to a round trip,
    /// a small switched LAN).
    pub delay_us: u32,
}

impl LanSpec {
    /// The same LAN at `mbit` Mbit/s (the seeds ran at 10 and 100).
    pub fn with_rate(mut self, mbit: u32) -> Self {
        self.rate_mbit = mbit;
        self
    }
}

impl Default for LanSpec {
    fn default() -> Self {
        LanSpec {
            rate_mbit: 100,
            delay_us: 50,
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

/// The server side's address on the veth link.
pub const SERVER_IP: &str = "10.77.0.1";
/// The client side's address on the veth link.
pub const CLIENT_IP: &str = "10.77.0.2";

/// How the link ended up shaped.
#[derive(Debug, Clone, PartialEq)]
pub enum Shaping {
    /// netem: the rate and the delay, as asked.
    Netem,
    /// The kernel has no netem: a token-bucket rate limit (`tbf`, a one-packet bucket) and no
    /// added delay. The string says why netem was not used.
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
}

impl Names {
    pub(crate) fn for_process(pid: u32) -> Names {
        // Interface names are at most 15 bytes: `ssv` + up to 7 pid digits + `s`/`c`.
        let id = pid % 10_000_000;
        Names {
            server_ns: format!("soapstone-lan-{id}-server"),
            client_ns: format!("soapstone-lan-{id}-client"),
            server_if: format!("ssv{id}s"),
            client_if: format!("ssv{id}c"),
        }
    }
}

fn argv(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| (*w).to_owned()).collect()
}

/// The commands that build the namespaces and the link, unshaped, in order.
pub(crate) fn link_commands(n: &Names) -> Vec<Vec<String>> {
    let mut cmds = vec![
        argv(&["ip", "netns", "add", &n.server_ns]),
        argv(&["ip", "netns", "add", &n.client_ns]),
        argv(&[
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
        ]),
    ];
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
        cmds.push(argv(&["ip", "-n", ns, "link", "set", "lo", "up"]));
        cmds.push(argv(&["ip", "-n", ns, "link", "set", dev, "up"]));
    }
    cmds
}

/// The `tc` commands shaping both ends: netem with rate and delay, or (`netem == false`) a
/// token bucket of one packet at the same rate.
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

/// The commands that remove the LAN (deleting a namespace deletes its end of the veth pair, and
/// with it the other end).
pub(crate) fn teardown_commands(n: &Names) -> Vec<Vec<String>> {
    vec![
        argv(&["ip", "netns", "del", &n.server_ns]),
        argv(&["ip", "netns", "del", &n.client_ns]),
    ]
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

/// A LAN that exists: removed when dropped.
#[derive(Debug)]
pub struct Lan {
    names: Names,
    spec: LanSpec,
    shaping: Shaping,
}

impl Lan {
    /// Creates the namespaces, the link and its shaping. On any failure what was created is
    /// removed and the error says which command failed and why (`Operation not permitted` when
    /// not root).
    pub fn create(spec: &LanSpec) -> Result<Lan, String> {
        let names = Names::for_process(std::process::id());
        // A namespace left by a killed run of a process with the same pid would make `add` fail.
        for c in teardown_commands(&names) {
            let _ = run(&c);
        }
        let mut lan = Lan {
            names,
            spec: spec.clone(),
            shaping: Shaping::Netem,
        };
        for c in link_commands(&lan.names) {
            run(&c)?; // `lan` drops here on error and removes what exists.
        }
        let netem = shape_commands(&lan.names, spec, true);
        if let Err(why) = run(&netem[0]) {
            lan.shaping = Shaping::RateOnly(why);
            for c in shape_commands(&lan.names, spec, false) {
                run(&c)?;
            }
        } else {
            run(&netem[1])?;
        }
        Ok(lan)
    }

    /// Changes the link's rate in place (both ends), keeping its namespaces, addresses and
    /// whatever runs in them; [`Lan::describe`] then tells the new rate.
    pub fn set_rate(&mut self, mbit: u32) -> Result<(), String> {
        let spec = self.spec.clone().with_rate(mbit);
        let netem = self.shaping == Shaping::Netem;
        for c in reshape_commands(&self.names, &spec, netem) {
            run(&c)?;
        }
        self.spec = spec;
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

    /// `side`'s end of the veth pair (the interface a capture in that namespace listens on).
    pub fn interface(&self, side: Side) -> &str {
        match side {
            Side::Server => &self.names.server_if,
            Side::Client => &self.names.client_if,
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

    /// One sentence saying what was emulated, for the report.
    pub fn describe(&self) -> String {
        let base = format!(
            "two network namespaces (`{}`, `{}`) joined by a veth pair, {SERVER_IP} (server) and \
             {CLIENT_IP} (client)",
            self.names.server_ns, self.names.client_ns
        );
        match &self.shaping {
            Shaping::Netem => format!(
                "{base}; each end shaped by netem to {} Mbit/s with {} µs of delay ({} ms added \
                 to a round trip)",
                self.spec.rate_mbit,
                self.spec.delay_us,
                f64::from(2 * self.spec.delay_us) / 1000.0
            ),
            Shaping::RateOnly(why) => format!(
                "{base}; each end limited to {} Mbit/s by a token bucket (tbf, one packet of \
                 burst) and NO added delay: this kernel has no netem ({why}); a token bucket \
                 holds a packet only while it is short of tokens, so neither a wire's \
                 propagation delay nor its full serialization time is emulated",
                self.spec.rate_mbit
            ),
        }
    }
}

impl Drop for Lan {
    fn drop(&mut self) {
        for c in teardown_commands(&self.names) {
            if let Err(e) = run(&c) {
                eprintln!("lab: could not remove the emulated LAN: {e}");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn joined(cmds: &[Vec<String>]) -> Vec<String> {
        cmds.iter().map(|c| c.join(" ")).collect()
    }

    #[test]
    fn names_fit_the_interface_limit() {
        let n = Names::for_process(4_194_304);
        assert!(n.server_if.len() <= 15 && n.client_if.len() <= 15, "{n:?}");
        assert_ne!(n.server_ns, n.client_ns);
    }

    #[test]
    fn the_link_is_two_namespaces_and_one_veth_pair() {
        let n = Names::for_process(42);
        let cmds = joined(&link_commands(&n));
        assert_eq!(cmds[0], "ip netns add soapstone-lan-42-server");
        assert_eq!(cmds[1], "ip netns add soapstone-lan-42-client");
        assert_eq!(
            cmds[2],
            "ip link add ssv42s netns soapstone-lan-42-server type veth peer name ssv42c \
             netns soapstone-lan-42-client"
        );
        assert!(
            cmds.contains(&"ip -n soapstone-lan-42-server addr add 10.77.0.1/24 dev ssv42s".into())
        );
        assert!(cmds.contains(&"ip -n soapstone-lan-42-client link set ssv42c up".into()));
        assert!(cmds.contains(&"ip -n soapstone-lan-42-client link set lo up".into()));
        // Nothing outside the two namespaces is touched.
        for c in &cmds[3..] {
            assert!(c.starts_with("ip -n soapstone-lan-42-"), "{c}");
        }
    }

    #[test]
    fn shaping_is_netem_rate_and_delay_on_both_ends_or_a_rate_only_fallback() {
        let n = Names::for_process(7);
        let spec = LanSpec::default();
        assert_eq!(
            joined(&shape_commands(&n, &spec, true)),
            [
                "tc -n soapstone-lan-7-server qdisc add dev ssv7s root netem rate 100mbit delay 50us",
                "tc -n soapstone-lan-7-client qdisc add dev ssv7c root netem rate 100mbit delay 50us",
            ]
        );
        let tbf = joined(&shape_commands(&n, &spec, false));
        assert_eq!(
            tbf[1],
            "tc -n soapstone-lan-7-client qdisc add dev ssv7c root tbf rate 100mbit burst 1600 latency 20ms"
        );
        assert_eq!(
            joined(&reshape_commands(&n, &spec.clone().with_rate(10), false))[0],
            "tc -n soapstone-lan-7-server qdisc change dev ssv7s root tbf rate 10mbit burst 1600 latency 20ms"
        );
        assert_eq!(
            joined(&teardown_commands(&n)),
            [
                "ip netns del soapstone-lan-7-server",
                "ip netns del soapstone-lan-7-client"
            ]
        );
    }

    /// Creates a real LAN where permitted (root with `ip` and `tc`); skips loudly otherwise.
    #[test]
    fn a_real_lan_is_created_described_and_removed() {
        let lan = match Lan::create(&LanSpec::default()) {
            Ok(lan) => lan,
            Err(e) => {
                eprintln!("SKIPPED a_real_lan_is_created_described_and_removed: {e}");
                return;
            }
        };
        let ns = lan.namespace(Side::Server).to_owned();
        let d = lan.describe();
        assert!(d.contains("100 Mbit/s"), "{d}");
        // The seeds' other rate, in place: the qdisc says so.
        let mut lan = lan;
        lan.set_rate(10).unwrap();
        assert!(lan.describe().contains("10 Mbit/s"));
        let out = Command::new("tc")
            .args([
                "-n",
                &ns,
                "qdisc",
                "show",
                "dev",
                lan.interface(Side::Server),
            ])
            .output()
            .unwrap();
        let qdisc = String::from_utf8_lossy(&out.stdout);
        assert!(qdisc.contains("rate 10Mbit"), "{qdisc}");
        // A real listener in the server namespace is seen; a closed port is not.
        let mut cmd = lan.exec_prefix(Side::Server);
        cmd.extend(argv(&["python3", "-c", "import socket,time\ns=socket.socket();s.bind(('10.77.0.1',40411));s.listen();time.sleep(30)"]));
        let mut child = Command::new(&cmd[0]).args(&cmd[1..]).spawn().unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while !lan.listening(Side::Server, 40411) {
            assert!(
                std::time::Instant::now() < deadline,
                "the listener never showed"
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        assert!(!lan.listening(Side::Server, 40412));
        let _ = child.kill();
        let _ = child.wait();
        drop(lan);
        let out = Command::new("ip").args(["netns", "list"]).output().unwrap();
        assert!(
            !String::from_utf8_lossy(&out.stdout).contains(&ns),
            "namespace `{ns}` was left behind"
        );
    }
}
