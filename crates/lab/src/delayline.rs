//! `soapstone lab-delayline` (hidden): the wire of the emulated LAN where the kernel has no
//! `sch_netem` ([`crate::netem`]). Two TUN devices, one in the client's network namespace and
//! one in the server's, each the only route to the other side's address; this process reads
//! every IP packet one namespace's stack sends, holds it for the link's serialization time and
//! one-way delay, and writes it, unchanged, into the other namespace's stack at its due time.
//!
//! Why a packet forwarder and not a proxy: TCP stays end to end between the client's kernel and
//! the server's (the handshake, Nagle, delayed ACK, the window, the FIN: every cause the lab
//! traces); a userspace TCP proxy would end one connection and start another. Why TUN and not
//! a qdisc: this kernel has none that delays (no `netem`, `fq` or `NET_ACT_BPF`). Why the `tun`
//! crate and `nix`: `TUNSETIFF`, `setns` and `clock_nanosleep` are ioctls and system calls, and
//! this workspace forbids `unsafe`; those two crates wrap them and add little else.
//!
//! The link model, one per direction (each end of a full-duplex switched Ethernet port): a
//! packet read at `t` starts on the wire at `max(t, wire free)`, occupies it for its
//! serialization time, `(IP bytes + 38 bytes of Ethernet framing: header, FCS, preamble and
//! gap) × 8 / rate`, and arrives the one-way delay after its last bit. Arrivals keep the
//! sending order. At most `queue` packets are held per direction (default [`DEFAULT_QUEUE`],
//! Linux's default `txqueuelen`); a packet arriving at a full line is
//! dropped (drop-tail) and counted. Nothing else is emulated: no loss, no jitter, no
//! reordering, no duplex collisions.
//!
//! Timing: each direction has a reader thread (timestamps, admits or drops) and a writer thread
//! that sleeps with `clock_nanosleep` on `CLOCK_MONOTONIC` to an absolute time `spin` before the
//! due time (timer slack set to 1 ns) and busy-waits the rest, so a packet leaves within a few
//! µs of its due time; the busy-wait is bounded by `--spin-us` (default [`DEFAULT_SPIN_US`]) per
//! packet. `stats` on stdin prints how late the writes were.
//!
//! It must never outlive the lab: it runs in its own process group (a Ctrl-C to the lab's
//! terminal does not reach it first), and when its stdin closes (the lab exited, was killed or
//! dropped the [`crate::netem::Lan`]) it removes the two namespaces it was given and exits; the
//! lab's `Lan` also kills and reaps it when dropped. It never touches an interface outside the
//! namespaces named on its command line.

use std::fs::File;
use std::io::{BufRead, Read, Write};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::{mpsc, Arc};

use anyhow::{bail, Context as _};
use nix::sched::{setns, CloneFlags};
use nix::time::{clock_gettime, clock_nanosleep, ClockId, ClockNanosleepFlags};
use serde::{Deserialize, Serialize};

/// Packets held per direction before drop-tail: Linux's default `txqueuelen`. A TUN device
/// gives the sending stack no backpressure (a packet leaves the socket's accounting as soon as
/// the delay line reads it), so this queue stands for the sender's NIC queue and the part of
/// its socket buffer a real NIC would have held back; at 100 packets (a 2002 card's queue)
/// Axis's 140-packet `getIntegers(800)` answers overflowed it on every call.
pub const DEFAULT_QUEUE: usize = 1000;
/// Busy-wait before a due time, in µs (the rest of the wait sleeps).
pub const DEFAULT_SPIN_US: u32 = 50;
/// Bytes an Ethernet frame adds to an IP packet on the wire: 14 header, 4 FCS, 8 preamble and
/// start delimiter, 12 inter-frame gap.
pub const FRAMING_BYTES: u64 = 38;
/// The largest packet read (the TUN's MTU is 1500; a larger read is a bug, never truncated).
const MAX_PACKET: usize = 65_536;

/// Arguments of `soapstone lab-delayline` (started by [`crate::netem::Lan::create`]).
#[derive(Debug, Clone, clap::Args)]
#[non_exhaustive]
pub struct DelayLineArgs {
    /// The server's network namespace (a name under /var/run/netns).
    #[arg(long, value_name = "NAME")]
    pub server_netns: String,
    /// The client's network namespace.
    #[arg(long, value_name = "NAME")]
    pub client_netns: String,
    /// The TUN device to create in the server's namespace; with `--client-tun`. Without both,
    /// the process only removes the namespaces when its stdin closes (the lab's janitor).
    #[arg(long, value_name = "IF")]
    pub server_tun: Option<String>,
    /// The TUN device to create in the client's namespace.
    #[arg(long, value_name = "IF")]
    pub client_tun: Option<String>,
    /// Link rate in Mbit/s, each direction.
    #[arg(long, default_value_t = 10)]
    pub rate_mbit: u32,
    /// One-way delay in µs, added after each packet's serialization.
    #[arg(long, default_value_t = 50)]
    pub delay_us: u32,
    /// Packets held per direction before drop-tail.
    #[arg(long, default_value_t = DEFAULT_QUEUE)]
    pub queue: usize,
    /// Busy-wait this many µs before each due time instead of sleeping.
    #[arg(long, default_value_t = DEFAULT_SPIN_US)]
    pub spin_us: u32,
}

/// What `stats` prints (one JSON line after `stats `): per direction, client to server first.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LineStats {
    /// Packets written out.
    pub forwarded: [u64; 2],
    /// Packets dropped at a full line (drop-tail).
    pub dropped: [u64; 2],
    /// Packets the far TUN device refused (it was down: only while the link is being made).
    pub unwritable: [u64; 2],
    /// The latest a write left after its due time, µs.
    pub late_max_us: f64,
    /// The mean lateness of the writes, µs.
    pub late_mean_us: f64,
}

/// The wire of one direction: when it is next free.
#[derive(Debug, Default)]
pub(crate) struct Wire {
    free_at_ns: u64,
}

impl Wire {
    /// The due time (ns) of a packet of `len` IP bytes read at `now_ns`, and the wire busy
    /// until its last bit is sent.
    pub(crate) fn admit(&mut self, now_ns: u64, len: usize, rate_bps: u64, delay_ns: u64) -> u64 {
        let bits = (len as u64 + FRAMING_BYTES) * 8;
        let serialization = (bits * 1_000_000_000).div_ceil(rate_bps.max(1));
        self.free_at_ns = self.free_at_ns.max(now_ns) + serialization;
        self.free_at_ns + delay_ns
    }
}

/// The settings both directions read per packet (changed at run time from stdin).
struct Settings {
    rate_bps: AtomicU64,
    delay_ns: AtomicU64,
    queue: usize,
    spin_ns: u64,
}

#[derive(Default)]
struct Counters {
    held: [AtomicUsize; 2],
    forwarded: [AtomicU64; 2],
    dropped: [AtomicU64; 2],
    unwritable: [AtomicU64; 2],
    late_max_ns: AtomicU64,
    late_sum_ns: AtomicU64,
}

fn now_ns() -> u64 {
    let t = clock_gettime(ClockId::CLOCK_MONOTONIC).expect("CLOCK_MONOTONIC is always readable");
    t.tv_sec() as u64 * 1_000_000_000 + t.tv_nsec() as u64
}

/// Sleeps to `spin_ns` before `due_ns`, then busy-waits to it.
fn wait_until(due_ns: u64, spin_ns: u64) {
    let wake = due_ns.saturating_sub(spin_ns);
    if now_ns() < wake {
        let ts = nix::sys::time::TimeSpec::new(
            (wake / 1_000_000_000) as i64,
            (wake % 1_000_000_000) as i64,
        );
        // Interrupted (EINTR) or not, the busy-wait below ends at the due time.
        let _ = clock_nanosleep(
            ClockId::CLOCK_MONOTONIC,
            ClockNanosleepFlags::TIMER_ABSTIME,
            &ts,
        );
    }
    while now_ns() < due_ns {
        std::hint::spin_loop();
    }
}

/// Creates TUN device `name` in namespace `ns` (this thread enters it, then returns).
fn tun_in(ns: &str, name: &str) -> anyhow::Result<tun::Device> {
    let home = File::open("/proc/thread-self/ns/net").context("cannot open this thread's netns")?;
    let target = File::open(format!("/var/run/netns/{ns}"))
        .with_context(|| format!("no network namespace `{ns}`"))?;
    setns(&target, CloneFlags::CLONE_NEWNET)
        .with_context(|| format!("cannot enter network namespace `{ns}`"))?;
    let mut cfg = tun::Configuration::default();
    // No packet-information header (IFF_NO_PI): the crate's default.
    cfg.tun_name(name).platform_config(|p| {
        // Addresses and routes are set by the lab with `ip`, where they can be read back.
        p.ensure_root_privileges(false);
    });
    let dev = tun::create(&cfg).with_context(|| format!("cannot create TUN device `{name}`"));
    setns(&home, CloneFlags::CLONE_NEWNET).context("cannot return to this thread's netns")?;
    dev
}

/// One direction: `dir` 0 is client to server, 1 server to client.
fn forward(
    dir: usize,
    mut from: tun::Reader,
    mut to: tun::Writer,
    s: Arc<Settings>,
    c: Arc<Counters>,
) -> std::io::Result<()> {
    let (tx, rx) = mpsc::channel::<(u64, Vec<u8>)>();
    let (ws, wc) = (s.clone(), c.clone());
    std::thread::Builder::new()
        .name(format!("delayline-out-{dir}"))
        .spawn(move || {
            // Without this the kernel may wake the sleep up to 50 µs late.
            let _ = nix::sys::prctl::set_timerslack(1);
            while let Ok((due, packet)) = rx.recv() {
                wait_until(due, ws.spin_ns);
                let late = now_ns().saturating_sub(due);
                wc.late_max_ns.fetch_max(late, Relaxed);
                wc.late_sum_ns.fetch_add(late, Relaxed);
                // A write fails only when the far interface is down: the packet is lost.
                if to.write(&packet).is_ok() {
                    wc.forwarded[dir].fetch_add(1, Relaxed);
                } else {
                    wc.unwritable[dir].fetch_add(1, Relaxed);
                }
                wc.held[dir].fetch_sub(1, Relaxed);
            }
        })?;
    let mut wire = Wire::default();
    let mut buf = vec![0u8; MAX_PACKET];
    loop {
        let n = from.read(&mut buf)?;
        let now = now_ns();
        if n == 0 {
            continue;
        }
        if c.held[dir].load(Relaxed) >= s.queue {
            c.dropped[dir].fetch_add(1, Relaxed);
            continue;
        }
        let due = wire.admit(now, n, s.rate_bps.load(Relaxed), s.delay_ns.load(Relaxed));
        c.held[dir].fetch_add(1, Relaxed);
        if tx.send((due, buf[..n].to_vec())).is_err() {
            return Ok(());
        }
    }
}

fn stats(c: &Counters) -> LineStats {
    let forwarded = [0, 1].map(|d| c.forwarded[d].load(Relaxed));
    let n = forwarded.iter().sum::<u64>().max(1);
    LineStats {
        forwarded,
        dropped: [0, 1].map(|d| c.dropped[d].load(Relaxed)),
        unwritable: [0, 1].map(|d| c.unwritable[d].load(Relaxed)),
        late_max_us: c.late_max_ns.load(Relaxed) as f64 / 1000.0,
        late_mean_us: c.late_sum_ns.load(Relaxed) as f64 / n as f64 / 1000.0,
    }
}

/// Removes the namespaces (the lab is gone or dropped its LAN).
fn remove_namespaces(args: &DelayLineArgs) {
    for ns in [&args.server_netns, &args.client_netns] {
        let _ = std::process::Command::new("ip")
            .args(["netns", "del", ns])
            .stderr(std::process::Stdio::null())
            .status();
    }
}

fn rate_bps(mbit: u32) -> anyhow::Result<u64> {
    if !(1..=100_000).contains(&mbit) {
        bail!("rate `{mbit}` Mbit/s is out of range `1..=100000`");
    }
    Ok(u64::from(mbit) * 1_000_000)
}

/// Entry point of `soapstone lab-delayline`: prints `ready` once the TUN devices exist, then
/// obeys stdin (`rate MBIT`, `delay US`, `stats`) until it closes.
pub fn run_delay_line(args: DelayLineArgs) -> anyhow::Result<()> {
    if args.delay_us > 1_000_000 {
        bail!("delay `{}` µs is out of range `0..=1000000`", args.delay_us);
    }
    if args.queue == 0 {
        bail!("queue `0` would drop every packet");
    }
    let settings = Arc::new(Settings {
        rate_bps: AtomicU64::new(rate_bps(args.rate_mbit)?),
        delay_ns: AtomicU64::new(u64::from(args.delay_us) * 1000),
        queue: args.queue,
        spin_ns: u64::from(args.spin_us) * 1000,
    });
    let counters = Arc::new(Counters::default());
    let devices = match (&args.client_tun, &args.server_tun) {
        // On failure the namespaces stay: the lab falls back to a token bucket in them.
        (Some(c), Some(s)) => Some((
            tun_in(&args.client_netns, c)?,
            tun_in(&args.server_netns, s)?,
        )),
        (None, None) => None,
        _ => bail!("`--client-tun` and `--server-tun` go together"),
    };
    if let Some((client, server)) = devices {
        let (client_in, client_out) = client.split();
        let (server_in, server_out) = server.split();
        for (dir, from, to) in [(0, client_in, server_out), (1, server_in, client_out)] {
            let (s, c) = (settings.clone(), counters.clone());
            std::thread::Builder::new()
                .name(format!("delayline-in-{dir}"))
                .spawn(move || {
                    if let Err(e) = forward(dir, from, to, s, c) {
                        eprintln!("lab-delayline: direction {dir} stopped: {e}");
                    }
                })?;
        }
    }
    let mut out = std::io::stdout().lock();
    writeln!(out, "ready")?;
    out.flush()?;
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        let words: Vec<&str> = line.split_whitespace().collect();
        let reply = match words.as_slice() {
            ["rate", m] => match m.parse().map_err(anyhow::Error::from).and_then(rate_bps) {
                Ok(bps) => {
                    settings.rate_bps.store(bps, Relaxed);
                    format!("ok rate {m}")
                }
                Err(e) => format!("error invalid rate `{m}`: {e}"),
            },
            ["delay", us] => match us.parse::<u32>() {
                Ok(d) if d <= 1_000_000 => {
                    settings.delay_ns.store(u64::from(d) * 1000, Relaxed);
                    format!("ok delay {d}")
                }
                _ => format!("error invalid delay `{us}`: expected µs in `0..=1000000`"),
            },
            ["stats"] => format!("stats {}", serde_json::to_string(&stats(&counters))?),
            _ => format!("error unknown command `{line}`"),
        };
        writeln!(out, "{reply}")?;
        out.flush()?;
    }
    remove_namespaces(&args);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_packet_is_due_after_its_serialization_and_the_delay() {
        let mut w = Wire::default();
        // 1462 IP bytes + 38 framing = 1500 bytes = 12000 bits: 120 µs at 100 Mbit/s.
        assert_eq!(
            w.admit(1_000, 1462, 100_000_000, 50_000),
            1_000 + 120_000 + 50_000
        );
        // A second packet read at once waits for the first to leave the wire.
        assert_eq!(
            w.admit(1_000, 1462, 100_000_000, 50_000),
            1_000 + 240_000 + 50_000
        );
        // One read after the wire went idle starts at once.
        assert_eq!(w.admit(10_000_000, 62, 10_000_000, 0), 10_000_000 + 80_000);
    }

    #[test]
    fn due_times_keep_the_sending_order_whatever_the_rate_changes() {
        let mut w = Wire::default();
        let mut last = 0;
        for (i, rate) in [10_000_000, 100_000_000, 1_000_000_000, 10_000_000]
            .into_iter()
            .enumerate()
        {
            let due = w.admit(i as u64 * 10, 1500, rate, 50_000);
            assert!(due > last, "{due} after {last}");
            last = due;
        }
    }

    #[test]
    fn a_rate_out_of_range_is_refused_with_the_token() {
        assert_eq!(
            rate_bps(0).unwrap_err().to_string(),
            "rate `0` Mbit/s is out of range `1..=100000`"
        );
        assert_eq!(rate_bps(100).unwrap(), 100_000_000);
    }

    #[test]
    fn waiting_never_returns_before_the_due_time() {
        for spin in [0, 50_000] {
            let due = now_ns() + 300_000;
            wait_until(due, spin);
            assert!(now_ns() >= due);
        }
    }
}
