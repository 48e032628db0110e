//! The emulated LAN's delay line, end to end: the real `soapstone lab-delayline` between two
//! network namespaces holds every packet for the configured delay (a TCP round trip across it
//! can never be shorter than twice that), and it never outlives the lab: dropping the `Lan`
//! kills and reaps it and removes the namespaces, and a lab process SIGKILLed mid-run (so
//! nothing of it is dropped) leaves neither the namespaces nor the delay line behind.
//!
//! Creating namespaces needs root (and `ip`, `/dev/net/tun`): where that is not permitted each
//! test says `SKIPPED` and why, and passes, like the LAN test of `soapstone_lab::netem`.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use soapstone_lab::netem::{Lan, LanSpec, Shaping, Side};

const EXE: &str = env!("CARGO_BIN_EXE_soapstone");
/// Set in the child that plays a lab killed mid-run.
const CHILD: &str = "SOAPSTONE_TEST_LAN_CHILD";

fn lan(spec: LanSpec, test: &str) -> Option<Lan> {
    match Lan::create(&spec.with_delay_line(EXE)) {
        Ok(lan) => Some(lan),
        Err(e) => {
            // Where the machine permits a LAN, one that cannot be made is a failure, not a skip.
            if let Err(why) = soapstone_lab::netem::permitted() {
                eprintln!("SKIPPED {test}: {why} ({e})");
                return None;
            }
            panic!("this machine permits a LAN, yet: {e}");
        }
    }
}

fn namespaces() -> String {
    let out = Command::new("ip").args(["netns", "list"]).output().unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Whether `pid` still runs (a zombie has exited: its parent is gone or has not reaped it yet).
fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| s.rsplit_once(") ").map(|(_, rest)| rest.to_owned()))
        .is_some_and(|rest| !rest.starts_with('Z') && !rest.starts_with('X'))
}

fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !done() {
        assert!(Instant::now() < deadline, "{what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn the_delay_line_holds_every_packet_for_the_configured_delay() {
    let test = "the_delay_line_holds_every_packet_for_the_configured_delay";
    // 2 ms each way: far above this machine's scheduling noise, so the bound below is firm.
    let Some(mut lan) = lan(LanSpec::default().with_rate(100).with_delay_us(2000), test) else {
        return;
    };
    let d = lan.describe();
    if let Shaping::RateOnly(why) = lan.shaping() {
        eprintln!("SKIPPED {test}: neither netem nor the delay line: {why}");
        return;
    }
    let rt = lan.round_trip().unwrap_or_else(|e| panic!("{e}: {d}"));
    // A connect is one round trip, an echo another: each at least 2 × 2 ms.
    assert!(rt.connect_us >= 4000.0, "{rt:?}: {d}");
    assert!(rt.echo_us >= 4000.0, "{rt:?}: {d}");
    if let Shaping::DelayLine(_) = lan.shaping() {
        assert!(d.contains("delay line") && d.contains("2000 µs"), "{d}");
        assert!(lan.interface(Side::Client).starts_with("sst"), "{d}");
        // The line forwarded the probe's packets both ways and dropped none.
        let stats = lan.delay_line_stats().unwrap().unwrap();
        assert!(
            stats.forwarded[0] >= 40 && stats.forwarded[1] >= 40,
            "{stats:?}"
        );
        assert_eq!(stats.dropped, [0, 0], "{stats:?}");
        assert_eq!(stats.unwritable, [0, 0], "{stats:?}");
        // Reshaped in place: the delay line takes the new rate and says so.
        lan.set_rate(10).unwrap();
        assert!(lan.describe().contains("10 Mbit/s"));
    }
}

#[test]
fn a_dropped_lan_leaves_no_delay_line_and_no_namespace() {
    let test = "a_dropped_lan_leaves_no_delay_line_and_no_namespace";
    let Some(lan) = lan(LanSpec::default(), test) else {
        return;
    };
    let ns = [Side::Server, Side::Client].map(|s| lan.namespace(s).to_owned());
    let pid = lan
        .delay_line_pid()
        .expect("a delay line or its janitor runs");
    assert!(running(pid));
    assert!(namespaces().contains(&ns[0]));
    drop(lan);
    // Killed and reaped by the drop: not even a zombie is left.
    assert!(
        !std::path::Path::new(&format!("/proc/{pid}")).exists(),
        "the delay line {pid} outlived its Lan"
    );
    let left = namespaces();
    assert!(
        !left.contains(&ns[0]) && !left.contains(&ns[1]),
        "left behind: {left}"
    );
}

/// In the child: make a LAN, say its names and the delay line's pid, and wait to be killed.
#[test]
fn lan_child_waits_to_be_killed() {
    if std::env::var_os(CHILD).is_none() {
        return; // only the child of the test below runs this
    }
    let lan = Lan::create(&LanSpec::default().with_delay_line(EXE)).unwrap();
    println!(
        "lan {} {} {}",
        lan.namespace(Side::Server),
        lan.namespace(Side::Client),
        lan.delay_line_pid().unwrap()
    );
    std::thread::sleep(Duration::from_secs(120));
}

#[test]
fn a_killed_lab_leaves_no_delay_line_and_no_namespace() {
    let test = "a_killed_lab_leaves_no_delay_line_and_no_namespace";
    // Permitted here? (The child's own failure would otherwise read as a test failure.)
    let Some(probe) = lan(LanSpec::default(), test) else {
        return;
    };
    drop(probe);
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "lan_child_waits_to_be_killed", "--nocapture"])
        .env(CHILD, "1")
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let out = BufReader::new(child.stdout.take().unwrap());
    let line = out
        .lines()
        .map_while(Result::ok)
        .find(|l| l.starts_with("lan "))
        .expect("the child made no LAN");
    let words: Vec<&str> = line.split_whitespace().collect();
    let (server_ns, client_ns) = (words[1].to_owned(), words[2].to_owned());
    let pid: u32 = words[3].parse().unwrap();
    assert!(namespaces().contains(&server_ns));
    assert!(running(pid));
    // SIGKILL: no destructor of the "lab" runs; the delay line sees its stdin close.
    child.kill().unwrap();
    child.wait().unwrap();
    wait_for("the namespaces outlived the killed lab", || {
        let left = namespaces();
        !left.contains(&server_ns) && !left.contains(&client_ns)
    });
    wait_for("the delay line outlived the killed lab", || !running(pid));
}
