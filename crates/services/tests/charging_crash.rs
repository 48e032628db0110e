//! The charging server process (`soapstone-serve`) is killed with SIGKILL in the middle of a
//! concurrent load and restarted on the same SQLite file. Every acknowledged operation is still
//! there, and nothing is half-applied: each balance is the model of the acknowledged operations
//! plus some of the operations that were in flight (each one whole or not at all), and the
//! ledger explains every balance. Then a SIGTERM stops the restarted server cleanly.

mod common;

use std::collections::HashMap;
use std::path::Path;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use common::load;
use soapstone_services::charging::{sqlite::SqliteStore, ChargingClient, SeedConfig, Store};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

const ACCOUNTS: u32 = 20;
const CLIENTS: usize = 16;

/// Starts `soapstone-serve` on `db` and waits for its `listening on` line.
async fn start(db: &Path, sync: &str) -> (Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_soapstone-serve"))
        .args(["--sqlite-sync", sync])
        .args([
            "--services",
            "charging",
            "--addr",
            "127.0.0.1:0",
            "--accounts",
            &ACCOUNTS.to_string(),
            "--db",
        ])
        .arg(db)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn soapstone-serve");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let url = tokio::time::timeout(Duration::from_secs(60), async {
        while let Some(line) = lines.next_line().await.unwrap() {
            if let Some(url) = line.strip_prefix("listening on ") {
                return url.to_string();
            }
        }
        panic!("soapstone-serve exited before listening");
    })
    .await
    .expect("soapstone-serve listens within 60 s");
    // Keep draining stdout so the server never blocks on a full pipe.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    (child, url)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_mid_load_loses_no_acknowledged_operation() {
    crash_and_check("full").await;
}

/// `--sqlite-sync normal` promises to survive a process crash (not a power loss): check it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_with_sync_normal_loses_nothing_either() {
    crash_and_check("normal").await;
}

async fn crash_and_check(sync: &str) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("charging.db");
    let seed = SeedConfig::with_accounts(ACCOUNTS);
    let (mut child, base) = start(&db, sync).await;
    let url = format!("{base}/charging");
    let accounts: Vec<i32> = (1..=ACCOUNTS as i32).collect();

    let ctl = Arc::new(load::Control::default());
    let load = tokio::spawn(load::run(
        url.clone(),
        accounts.clone(),
        CLIENTS,
        usize::MAX,
        ctl.clone(),
    ));
    // The kill lands in the middle of a running load (not after a fixed time: a loaded machine
    // may not have answered anything yet).
    ctl.wait_acked(120, Duration::from_secs(60)).await;
    child.start_kill().expect("SIGKILL"); // Child::start_kill sends SIGKILL on Unix.
    let status = child.wait().await.unwrap();
    assert!(!status.success(), "killed, not exited: {status:?}");
    let seen = tokio::time::timeout(Duration::from_secs(60), load)
        .await
        .expect("clients stop")
        .unwrap();
    assert!(
        seen.succeeded > 100,
        "the load ran before the kill: {} acknowledged",
        seen.succeeded
    );
    assert!(
        !seen.uncertain.is_empty(),
        "some operations were in flight at the kill"
    );
    eprintln!(
        "before the kill: {} acknowledged, {} refused, {} in flight",
        seen.succeeded,
        seen.refused,
        seen.uncertain.len()
    );

    // Restart on the same file: acknowledged operations are all there, in-flight ones whole or not.
    let (mut child, base) = start(&db, sync).await;
    let c = ChargingClient::new(&format!("{base}/charging")).unwrap();
    let mut uncertain: HashMap<i32, Vec<i64>> = HashMap::new();
    for (account, delta) in &seen.uncertain {
        uncertain.entry(*account).or_default().push(*delta);
    }
    for id in accounts {
        let initial = seed.accounts().find(|a| a.0 == id).unwrap().1;
        let acknowledged = initial + seen.deltas.get(&id).copied().unwrap_or(0);
        let balance = i64::from(c.credit_control(id).await.unwrap());
        let maybe = uncertain.get(&id).cloned().unwrap_or_default();
        assert!(
            load::subset_sum(&maybe, balance - acknowledged),
            "account {id}: balance {balance}, acknowledged model {acknowledged}, in-flight deltas {maybe:?}"
        );
    }
    // The restarted server works, and stops cleanly on SIGTERM.
    c.credit(1, 10).await.unwrap();
    let pid = child.id().unwrap().to_string();
    let term = Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .await
        .unwrap();
    assert!(term.success());
    let status = tokio::time::timeout(Duration::from_secs(30), child.wait())
        .await
        .expect("stops")
        .unwrap();
    assert!(status.success(), "clean exit on SIGTERM: {status:?}");

    // The ledger: every acknowledged transaction, and every balance explained by it.
    let store = SqliteStore::open_async(&db, &seed).await.unwrap();
    common::ledger::assert_acked_are_durable(&store, &seen.acked).await;
    let audit = store.audit().await.unwrap();
    assert!(
        audit.transactions as usize > seen.succeeded,
        "the acknowledged ones and the credit after the restart"
    );
}
