//! Issue 14's demonstration: `scripts/cluster.sh up` with two replicas behind HAProxy on one
//! PostgreSQL, a keyed charging load through the balancer, one replica SIGKILLed under it.
//! Clients see errors for a moment and retry with their keys; HAProxy marks the replica down;
//! afterwards the ledger holds exactly the acknowledged operations, each once.
//!
//! Needs `haproxy` and the PostgreSQL server binaries: skipped loudly without them, a failure
//! under CI (`.ci/run` installs both). Replicas run on loopback ports here (`--netns off`), so
//! the test needs no root and cannot collide with a cluster a user runs in namespaces.

mod common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::keyed_load;
use common::load::Control;
use soapstone_services::charging::{postgres::PostgresStore, SeedConfig};

const ACCOUNTS: u32 = 50;

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/cluster.sh")
}

fn have(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

fn have_pg() -> bool {
    std::env::var_os("SOAPSTONE_PG_BIN").is_some()
        || std::fs::read_dir("/usr/lib/postgresql")
            .map(|d| d.flatten().any(|e| e.path().join("bin/initdb").exists()))
            .unwrap_or(false)
}

/// `scripts/cluster.sh ARGS --dir DIR`, which must succeed.
fn cluster(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("bash")
        .arg(script())
        .args(args)
        .arg("--dir")
        .arg(dir)
        .output()
        .expect("run scripts/cluster.sh");
    assert!(
        out.status.success(),
        "cluster.sh {args:?} failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Tears the cluster down even when the test fails.
struct Down(PathBuf);

impl Drop for Down {
    fn drop(&mut self) {
        let _ = Command::new("bash")
            .arg(script())
            .args(["down", "--dir"])
            .arg(&self.0)
            .output();
    }
}

fn env_file(dir: &Path) -> HashMap<String, String> {
    std::fs::read_to_string(dir.join("cluster.env"))
        .unwrap()
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_owned(), v.trim_matches('\'').to_owned()))
        .collect()
}

/// HAProxy's view of server `name` (`UP`, `DOWN`, ...), from its CSV statistics.
async fn haproxy_status(stats_url: &str, name: &str) -> Option<String> {
    let out = tokio::process::Command::new("curl")
        .args(["-fsS", "-m", "2", stats_url])
        .output()
        .await
        .ok()?;
    String::from_utf8_lossy(&out.stdout).lines().find_map(|l| {
        let f: Vec<&str> = l.split(',').collect();
        (f.len() > 17 && f[0] == "replicas" && f[1] == name).then(|| f[17].to_owned())
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replica_killed_under_load_loses_and_doubles_nothing() {
    if !have("haproxy") || !have_pg() || !have("curl") {
        common::skip_unless_ci(
            "the failover test needs haproxy, curl and the PostgreSQL server binaries \
             (apt-get install haproxy curl postgresql)",
        );
        return;
    }
    let tmp = tempfile::Builder::new()
        .prefix("soapstone-cluster-")
        .tempdir()
        .unwrap();
    let dir = tmp.path().join("c");
    let _down = Down(dir.clone());
    let accounts = ACCOUNTS.to_string();
    cluster(
        &dir,
        &[
            "up",
            "--replicas",
            "2",
            "--netns",
            "off",
            // A free port, reserved for the cluster until it is down: its URL is in cluster.env.
            "--port",
            "0",
            "--accounts",
            &accounts,
            "--bin",
            env!("CARGO_BIN_EXE_soapstone-serve"),
        ],
    );
    let env = env_file(&dir);
    let stats = env["STATS_URL"].clone();

    let ctl = Arc::new(Control::default());
    let load = tokio::spawn(keyed_load::run(
        env["URL"].clone(),
        (1..=ACCOUNTS as i32).collect(),
        12,
        ctl.clone(),
    ));
    // The kill lands in the middle of a running load (not after a fixed time: a loaded machine
    // may not have answered anything yet).
    ctl.wait_acked(120, Duration::from_secs(60)).await;
    let killed = Instant::now();
    cluster(&dir, &["kill", "1"]);
    // When HAProxy stops sending to it.
    let mut marked_down = None;
    while killed.elapsed() < Duration::from_secs(20) {
        if haproxy_status(&stats, "r1")
            .await
            .is_some_and(|s| s.starts_with("DOWN"))
        {
            marked_down = Some(killed.elapsed());
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let marked_down = marked_down.expect("HAProxy marks the killed replica down within 20 s");
    // The dead replica's port is still the cluster's (reserved until `down`, for `start 1`): a
    // socket binding it as an outgoing connection or a listener without SO_REUSEADDR would is
    // refused.
    let r1: std::net::SocketAddr = env["R1_ADDR"].parse().unwrap();
    let thief = tokio::net::TcpSocket::new_v4().unwrap();
    let refused = thief.bind(r1).unwrap_err();
    assert_eq!(refused.kind(), std::io::ErrorKind::AddrInUse, "{refused}");
    // The load goes on through the survivor before it stops.
    let before = ctl.acked();
    ctl.wait_acked(before + 50, Duration::from_secs(60)).await;
    ctl.stop();
    let seen = tokio::time::timeout(Duration::from_secs(120), load)
        .await
        .expect("clients stop")
        .unwrap();
    let after: Vec<Duration> = seen
        .failures
        .iter()
        .filter_map(|t| t.checked_duration_since(killed))
        .collect();
    let recovered = seen
        .recoveries
        .iter()
        .filter_map(|t| t.checked_duration_since(killed))
        .max();
    eprintln!(
        "failover: {} acknowledged, {} refused; {} first attempts failed (first {:?}, last {:?} after the kill); HAProxy marked r1 down {:?} after the kill; the last retried operation answered {:?} after the kill",
        seen.acked.len(),
        seen.refused,
        seen.retried_ops,
        after.iter().min(),
        after.iter().max(),
        marked_down,
        recovered
    );
    assert!(seen.acked.len() > 100, "the load ran: {}", seen.acked.len());

    // The ledger, read straight from PostgreSQL.
    let store = PostgresStore::connect(&env["PG_URL"], &SeedConfig::with_accounts(ACCOUNTS), 2)
        .await
        .unwrap();
    let seed = SeedConfig::with_accounts(ACCOUNTS);
    common::ledger::assert_exactly_once(&store, &seed, &seen.acked, &seen.deltas).await;
    // The survivor still serves through the balancer.
    let status = cluster(&dir, &["status"]);
    assert!(status.contains("r2: UP"), "{status}");
}
