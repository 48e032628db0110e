//! What the emulated LAN's delay line costs and how exact it is, measured side by side in one
//! run (the numbers in docs/lab.md's LAN section come from here):
//!
//! ```text
//! cargo build --release
//! cargo run --release -p soapstone-lab --example lan_cost -- target/release/soapstone [SECONDS]
//! for r in 1 2; do for l in tbf line; do
//!   target/release/examples/lan_cost target/release/soapstone 5 $l; done; done
//! ```
//!
//! 1. Accuracy: for several one-way delays, the link's measured round trip (TCP connect, 1-byte
//!    echo, and `ping` where installed) beside what the link model gives, and how late the
//!    delay line's writes were.
//! 2. Cost: soapstone's echoFloat round trip (`soapstone bench`, one connection, sequential)
//!    across the delay line set to 0 µs of delay against the same rate on the token-bucket link
//!    (a veth pair, no forwarder), alternated twice, server and client on one CPU and on two.
//!    The forwarder's CPU time per call is read from /proc.
//!
//! Needs root; every LAN it makes is removed when it ends (also on a panic).

use std::process::Command;
use std::time::Duration;

use soapstone_lab::netem::{Lan, LanSpec, Side, SERVER_IP};

const BODY: &str = r#"<?xml version="1.0"?>
<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:soapenc="http://schemas.xmlsoap.org/soap/encoding/" xmlns:xsi="http://www.w3.org/1999/XMLSchema-instance" xmlns:xsd="http://www.w3.org/1999/XMLSchema">
<soap:Body>
<echoFloat xmlns="http://tempuri.org/">
<input xsi:type="xsd:float">3.14159</input>
</echoFloat>
</soap:Body>
</soap:Envelope>
"#;

fn ping(lan: &Lan) -> String {
    let mut cmd = lan.exec_prefix(Side::Client);
    cmd.extend(["ping", "-q", "-c", "200", "-i", "0.005", SERVER_IP].map(str::to_owned));
    match Command::new(&cmd[0]).args(&cmd[1..]).output() {
        Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout)
            .lines()
            .find_map(|l| l.strip_prefix("rtt min/avg/max/mdev = "))
            .map(|v| format!("ping min/avg/max/mdev {v}"))
            .unwrap_or_default(),
        _ => "no ping".to_owned(),
    }
}

/// CPU time (user + system) of `pid` and its threads, in seconds.
fn cpu_s(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let rest = stat.rsplit_once(") ").map(|(_, r)| r).unwrap_or("");
    let f: Vec<f64> = rest
        .split_whitespace()
        .map(|w| w.parse().unwrap_or(0.0))
        .collect();
    // Fields 14 and 15 of stat (utime, stime) are 11 and 12 after the state.
    (f.get(11).unwrap_or(&0.0) + f.get(12).unwrap_or(&0.0)) / 100.0
}

/// A child killed and reaped when dropped, also when a point panics.
struct Reaped(std::process::Child);

impl Drop for Reaped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// One sequential echoFloat point: (p50 µs, calls).
fn echo_point(exe: &str, lan: &Lan, cpus: (&str, &str), secs: &str) -> (f64, f64) {
    let dir = std::env::temp_dir().join(format!("lan-cost-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let body = dir.join("echo.xml");
    std::fs::write(&body, BODY).unwrap();
    let mut serve = lan.exec_prefix(Side::Server);
    serve.extend(["taskset", "-c", cpus.0, exe, "serve", "--addr"].map(str::to_owned));
    serve.extend(
        [
            &format!("{SERVER_IP}:0"),
            "--services",
            "echo",
            "--insecure",
        ]
        .map(|s| s.to_owned()),
    );
    let mut server = Reaped(
        Command::new(&serve[0])
            .args(&serve[1..])
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap(),
    );
    // The reader lives as long as the server: dropping it would close the pipe, and the
    // server's next log line would kill it with EPIPE mid-bench.
    let mut out = std::io::BufReader::new(server.0.stdout.take().unwrap());
    let mut line = String::new();
    std::io::BufRead::read_line(&mut out, &mut line).unwrap();
    let url = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap()
        .to_owned()
        + "/echo";
    let json = dir.join("bench.json");
    let mut bench = lan.exec_prefix(Side::Client);
    bench.extend(["taskset", "-c", cpus.1, exe, "bench", &url].map(str::to_owned));
    bench.extend(
        [
            "--body",
            body.to_str().unwrap(),
            "--soap-action",
            "http://tempuri.org/echoFloat",
            "--connections",
            "1",
            "--closed",
            "--duration",
            secs,
            "--warmup",
            "1s",
            "--json",
            json.to_str().unwrap(),
        ]
        .map(str::to_owned),
    );
    let ok = Command::new(&bench[0])
        .args(&bench[1..])
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap()
        .success();
    drop(server);
    drop(out);
    assert!(ok, "the bench failed");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let p50 = v["latency"]["uncorrected"]["p50_us"]
        .as_f64()
        .unwrap_or(f64::NAN);
    let calls = v["requests"]["ok"].as_f64().unwrap_or(f64::NAN);
    (p50, calls)
}

/// A LAN, tried three times (a token-bucket fallback once answered `ip link add`'s `File exists`:
/// the fallback re-added a veth pair that still existed, fixed in f7d4c09).
fn create(spec: &LanSpec) -> Lan {
    let mut last = String::new();
    for _ in 0..3 {
        match Lan::create(spec) {
            Ok(lan) => return lan,
            Err(e) => {
                eprintln!("lan_cost: {e}; trying again");
                last = e;
                std::thread::sleep(Duration::from_millis(500));
            }
        }
    }
    panic!("{last}");
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let exe = args
        .get(1)
        .expect("usage: lan_cost SOAPSTONE_EXE [SECONDS]");
    let secs = args.get(2).map_or("5s".to_owned(), |s| format!("{s}s"));
    if let Some(link) = args.get(3) {
        // One LAN per process, so each link's cost is measured on its own (a token-bucket LAN
        // after delay-line LANs was once refused with `File exists`: the fallback bug fixed in
        // f7d4c09).
        return cost_of_one(exe, &secs, link == "line");
    }
    println!("## accuracy (100 Mbit/s and 10 Mbit/s)");
    for rate in [100, 10] {
        for delay in [0, 50, 500, 2000] {
            let spec = LanSpec::default()
                .with_rate(rate)
                .with_delay_us(delay)
                .with_delay_line(exe);
            let mut lan = create(&spec);
            let p = ping(&lan);
            let stats = lan.delay_line_stats().map(|s| s.unwrap());
            println!(
                "{rate} Mbit/s, {delay} µs: {}; {p}",
                lan.describe()
                    .rsplit_once("; measured ")
                    .map_or("", |x| x.1)
            );
            if let Some(s) = stats {
                println!(
                    "    writes late: mean {:.1} µs, max {:.0} µs over {:?} packets",
                    s.late_mean_us, s.late_max_us, s.forwarded
                );
            }
        }
    }
    println!("## cost: echoFloat p50 (µs), delay line at 0 µs vs token bucket, 100 Mbit/s");
    for (place, cpus) in [("one CPU", ("0", "0")), ("two CPUs", ("0", "1"))] {
        for round in 0..2 {
            let mut row = Vec::new();
            for line in [false, true] {
                let mut spec = LanSpec::default().with_rate(100).with_delay_us(0);
                if line {
                    spec = spec.with_delay_line(exe);
                }
                let lan = create(&spec);
                let pid = lan.delay_line_pid();
                let before = pid.map(cpu_s);
                let (p50, calls) = echo_point(exe, &lan, cpus, &secs);
                let cost = forwarder_cost(pid.zip(before), calls);
                row.push(p50);
                println!(
                    "{place} round {round}: {}: p50 {p50:.0} µs over {calls} calls{cost}",
                    if line { "delay line" } else { "tbf" }
                );
                std::thread::sleep(Duration::from_millis(200));
            }
            println!(
                "{place} round {round}: delay line / tbf = ×{:.2}",
                row[1] / row[0]
            );
        }
    }
}

/// The delay line's CPU time per call since `start` (its pid and CPU seconds then), as a
/// suffix for a result line; empty without a delay line.
fn forwarder_cost(start: Option<(u32, f64)>, calls: f64) -> String {
    start.map_or_else(String::new, |(pid, before)| {
        format!(
            ", forwarder {:.1} µs CPU/call",
            (cpu_s(pid) - before) / calls * 1e6
        )
    })
}

/// `lan_cost EXE SECONDS tbf|line`: one LAN, echoFloat on one CPU and on two.
fn cost_of_one(exe: &str, secs: &str, line: bool) {
    let mut spec = LanSpec::default().with_rate(100).with_delay_us(0);
    if line {
        spec = spec.with_delay_line(exe);
    }
    let lan = create(&spec);
    let pid = lan.delay_line_pid();
    for (place, cpus) in [("one CPU", ("0", "0")), ("two CPUs", ("0", "1"))] {
        let before = pid.map(cpu_s);
        let (p50, calls) = echo_point(exe, &lan, cpus, secs);
        let cost = forwarder_cost(pid.zip(before), calls);
        println!(
            "{place}: {}: p50 {p50:.0} µs over {calls} calls{cost}",
            if line { "delay line" } else { "tbf" }
        );
    }
}
