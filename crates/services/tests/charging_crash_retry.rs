//! The SIGKILL crash test again, with clients that retry with idempotency keys: the charging
//! server (`soapstone-serve`) is killed in the middle of a concurrent keyed load and restarted on
//! the same store while the clients keep retrying. Every operation ends acknowledged or refused
//! (none uncertain), and the ledger holds exactly the acknowledged ones: each once, none twice,
//! every balance explained. On SQLite and on PostgreSQL.
//!
//! The clients keep one address across the restart: a relay the test holds (`common/relay.rs`),
//! in front of a server that binds port 0 each time and says which port it got. Restarting it on
//! its old port instead would race with the other tests for that port while it is down.

mod common;

use std::net::SocketAddr;
use std::path::Path;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use common::keyed_load;
use common::load::Control;
use common::relay::Relay;
use soapstone_services::charging::{
    postgres::PostgresStore, sqlite::SqliteStore, SeedConfig, Store,
};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

const ACCOUNTS: u32 = 20;
const CLIENTS: usize = 12;

/// Starts `soapstone-serve` on `db` and a port of its choosing, and returns the address of its
/// `listening on http://ADDR` line.
async fn start(db: &str) -> (Child, SocketAddr) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_soapstone-serve"))
        .args([
            "--services",
            "charging",
            "--addr",
            "127.0.0.1:0",
            "--db",
            db,
        ])
        .args([
            "--accounts",
            &ACCOUNTS.to_string(),
            "--sqlite-sync",
            "normal",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn soapstone-serve");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let addr = tokio::time::timeout(Duration::from_secs(60), async {
        while let Some(line) = lines.next_line().await.unwrap() {
            if let Some(addr) = line.strip_prefix("listening on http://") {
                return addr.parse().expect("`listening on http://ADDR`");
            }
        }
        panic!("soapstone-serve exited before listening");
    })
    .await
    .expect("soapstone-serve listens within 60 s");
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    (child, addr)
}

async fn crash_with_retries(db: &str, open: impl std::future::Future<Output = Arc<dyn Store>>) {
    let seed = SeedConfig::with_accounts(ACCOUNTS);
    let relay = Relay::start().await;
    let (mut child, served) = start(db).await;
    relay.point_at(Some(served));
    let ctl = Arc::new(Control::default());
    let load = tokio::spawn(keyed_load::run(
        format!("http://{}/charging", relay.addr),
        (1..=ACCOUNTS as i32).collect(),
        CLIENTS,
        ctl.clone(),
    ));
    // The kill lands in the middle of a running load (not after a fixed time: a loaded machine
    // may not have answered anything yet).
    ctl.wait_acked(120, Duration::from_secs(60)).await;
    // Nothing more to the dead server's port: it may be somebody else's once the server is gone.
    relay.point_at(None);
    child.start_kill().expect("SIGKILL");
    assert!(!child.wait().await.unwrap().success());
    // Down for a moment (the clients' connections are closed, and they retry), then back.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (mut child, served) = start(db).await;
    relay.point_at(Some(served));
    // The load goes on against the restarted server before it stops.
    let before = ctl.acked();
    ctl.wait_acked(before + 50, Duration::from_secs(60)).await;
    ctl.stop();
    let seen = tokio::time::timeout(Duration::from_secs(120), load)
        .await
        .expect("clients stop")
        .unwrap();
    child.start_kill().unwrap();
    let _ = child.wait().await;
    eprintln!(
        "{} acknowledged, {} refused, {} retried after the kill",
        seen.acked.len(),
        seen.refused,
        seen.retried_ops
    );
    assert!(seen.acked.len() > 100, "the load ran: {}", seen.acked.len());
    assert!(
        seen.retried_ops > 0,
        "some operations were retried across the kill"
    );

    let store = open.await;
    common::ledger::assert_exactly_once(&*store, &seed, &seen.acked, &seen.deltas).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_with_keyed_retries_applies_each_operation_once_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("charging.db");
    let path = db.to_str().unwrap().to_owned();
    crash_with_retries(&path, open_sqlite(&db)).await;
}

async fn open_sqlite(db: &Path) -> Arc<dyn Store> {
    Arc::new(
        SqliteStore::open_async(db, &SeedConfig::with_accounts(ACCOUNTS))
            .await
            .unwrap(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_with_keyed_retries_applies_each_operation_once_postgres() {
    let Some(pg) = common::pg::PgServer::start() else {
        return;
    };
    let url = pg.create_db("crash_retry").await;
    let open = async {
        let store = PostgresStore::connect(&url, &SeedConfig::with_accounts(ACCOUNTS), 2)
            .await
            .unwrap();
        Arc::new(store) as Arc<dyn Store>
    };
    crash_with_retries(&url, open).await;
}
