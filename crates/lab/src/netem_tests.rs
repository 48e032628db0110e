//! The emulated LAN's commands, and (where root is permitted) a real LAN made, used and
//! removed. The delay line itself is tested end to end by the root package's `tests/lan.rs`,
//! which has the `soapstone` executable it runs.

use super::*;

/// Whether this machine permits a LAN ([`permitted`]): there a LAN that cannot be made is a
/// failure, not a skip.
pub(crate) fn lan_permitted() -> bool {
    permitted().is_ok()
}

fn joined(cmds: &[Vec<String>]) -> Vec<String> {
    cmds.iter().map(|c| c.join(" ")).collect()
}

#[test]
fn names_fit_the_interface_limit() {
    let n = Names::for_process(4_194_304, 99);
    for i in [&n.server_if, &n.client_if, &n.server_tun, &n.client_tun] {
        assert!(i.len() <= 15, "{n:?}");
    }
    assert_ne!(n.server_ns, n.client_ns);
    assert_ne!(n.server_tun, n.server_if);
}

#[test]
fn the_link_is_two_namespaces_and_one_veth_pair() {
    let n = Names::for_process(42, 3);
    let ns = joined(&netns_commands(&n));
    assert_eq!(ns[0], "ip netns add soapstone-lan-42-3-server");
    assert_eq!(ns[3], "ip netns add soapstone-lan-42-3-client");
    assert_eq!(
        ns[1],
        "ip netns exec soapstone-lan-42-3-server sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
         net.ipv6.conf.default.disable_ipv6=1"
    );
    assert!(ns.contains(&"ip -n soapstone-lan-42-3-client link set lo up".into()));
    let cmds = joined(&veth_commands(&n));
    assert_eq!(
        cmds[0],
        "ip link add ssv42x3s netns soapstone-lan-42-3-server type veth peer name ssv42x3c \
         netns soapstone-lan-42-3-client"
    );
    assert!(
        cmds.contains(&"ip -n soapstone-lan-42-3-server addr add 10.77.0.1/24 dev ssv42x3s".into())
    );
    assert!(cmds.contains(&"ip -n soapstone-lan-42-3-client link set ssv42x3c up".into()));
    // Nothing outside the two namespaces is touched.
    for c in cmds[1..].iter().chain(&ns) {
        assert!(
            c.starts_with("ip -n soapstone-lan-42-3-")
                || c.starts_with("ip netns add soapstone-lan-42-3-")
                || c.starts_with("ip netns exec soapstone-lan-42-3-"),
            "{c}"
        );
    }
}

#[test]
fn the_delay_lines_tun_devices_are_each_sides_only_route_to_the_other() {
    let n = Names::for_process(42, 3);
    assert_eq!(
        joined(&tun_commands(&n)),
        [
            "ip -n soapstone-lan-42-3-server addr add 10.77.0.1 peer 10.77.0.2 dev sst42x3s",
            "ip -n soapstone-lan-42-3-server link set sst42x3s up",
            "ip -n soapstone-lan-42-3-client addr add 10.77.0.2 peer 10.77.0.1 dev sst42x3c",
            "ip -n soapstone-lan-42-3-client link set sst42x3c up",
        ]
    );
}

#[test]
fn shaping_is_netem_rate_and_delay_on_both_ends_or_a_rate_only_fallback() {
    let n = Names::for_process(7, 0);
    let spec = LanSpec::default().with_rate(100);
    assert_eq!(
        joined(&shape_commands(&n, &spec, true)),
        [
            "tc -n soapstone-lan-7-0-server qdisc add dev ssv7x0s root netem rate 100mbit delay 50us",
            "tc -n soapstone-lan-7-0-client qdisc add dev ssv7x0c root netem rate 100mbit delay 50us",
        ]
    );
    let tbf = joined(&shape_commands(&n, &spec, false));
    assert_eq!(
        tbf[1],
        "tc -n soapstone-lan-7-0-client qdisc add dev ssv7x0c root tbf rate 100mbit burst 1600 latency 20ms"
    );
    assert_eq!(
        joined(&reshape_commands(&n, &spec.clone().with_rate(10), false))[0],
        "tc -n soapstone-lan-7-0-server qdisc change dev ssv7x0s root tbf rate 10mbit burst 1600 latency 20ms"
    );
    assert_eq!(
        joined(&teardown_commands(&n)),
        [
            "ip netns del soapstone-lan-7-0-server",
            "ip netns del soapstone-lan-7-0-client"
        ]
    );
}

#[test]
fn only_the_namespaces_of_dead_lab_processes_are_stale() {
    let listing = "soapstone-lan-12-0-server (id: 3)\nsoapstone-lan-12-client\n\
                   soapstone-lan-13-1-server\nsoapstone-lan-x-server\nsslan-12-server\n\
                   soapstone-lan-12-0-other\n";
    assert_eq!(
        stale_namespaces(listing, |pid| pid == 13),
        ["soapstone-lan-12-0-server", "soapstone-lan-12-client"]
    );
}

#[test]
fn the_defaults_are_davis_and_parashars_10_mbit_lan_with_50_us_each_way() {
    let spec = LanSpec::default();
    assert_eq!((spec.rate_mbit, spec.delay_us), (10, 50));
    // Two 91-byte frames at 10 Mbit/s (72.8 µs each) and 50 µs each way.
    let model = crate::netem_line::modelled_echo_us(&spec);
    assert!((model - 245.6).abs() < 0.01, "{model}");
}

/// Creates a real LAN where permitted (root with `ip` and `tc`); skips loudly otherwise. With
/// no delay line executable in a unit test, the link is netem's or the token bucket's.
#[test]
fn a_real_lan_is_created_described_and_removed() {
    let lan = match Lan::create(&LanSpec::default().with_rate(100)) {
        Ok(lan) => lan,
        Err(e) => {
            assert!(!lan_permitted(), "this machine permits a LAN, yet: {e}");
            eprintln!("SKIPPED a_real_lan_is_created_described_and_removed: {e}");
            return;
        }
    };
    let ns = lan.namespace(Side::Server).to_owned();
    let d = lan.describe();
    assert!(d.contains("100 Mbit/s"), "{d}");
    assert!(d.contains("measured round trip: TCP connect"), "{d}");
    assert!(lan.round_trip().is_ok(), "{d}");
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

/// Where the delay line cannot start, the link falls back to the token bucket and says why
/// (root only; skips loudly otherwise, and where the kernel has netem).
#[test]
fn a_delay_line_that_cannot_start_falls_back_to_a_rate_limit_that_says_why() {
    let spec = LanSpec::default().with_delay_line("/nonexistent/soapstone");
    let lan = match Lan::create(&spec) {
        Ok(lan) => lan,
        Err(e) => {
            assert!(!lan_permitted(), "this machine permits a LAN, yet: {e}");
            eprintln!("SKIPPED a_delay_line_that_cannot_start...: {e}");
            return;
        }
    };
    match lan.shaping() {
        Shaping::Netem => eprintln!("SKIPPED a_delay_line_that_cannot_start...: netem exists"),
        Shaping::RateOnly(why) => {
            assert!(
                why.contains("the delay line failed: cannot start `/nonexistent/soapstone"),
                "{why}"
            );
            assert!(lan.describe().contains("NO added delay"));
            assert!(lan.interface(Side::Client).starts_with("ssv"));
            assert!(lan.round_trip().is_ok(), "{}", lan.describe());
        }
        Shaping::DelayLine(_) => panic!("a delay line from a missing executable"),
    }
}
