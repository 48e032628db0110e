//! Many clients over real HTTP doing random credit / directDebit / reserve / debitReservation /
//! releaseRes / confirmAction on a few shared accounts. Afterwards every balance equals the
//! model built from the acknowledged operations, none is negative, and the ledger explains
//! every balance. On SQLite and on a real (throwaway) PostgreSQL server.

mod common;

use std::sync::Arc;

use common::load;
use common::server::TestServer;
use soapstone_services::charging::{ChargingClient, SeedConfig};
use soapstone_services::{Db, ServiceKind, ServicesConfig};

const CLIENTS: usize = 24;
const OPS: usize = 120;
const ACCOUNTS: i32 = 12;

fn seed() -> SeedConfig {
    let mut s = SeedConfig::with_accounts(ACCOUNTS as u32);
    // Small balances, so debits and reservations are refused now and then.
    s.min_balance = 2_000;
    s.max_balance = 20_000;
    s
}

async fn check(db: Db) {
    let mut config = ServicesConfig::default();
    config.services = vec![ServiceKind::Charging];
    config.db = db;
    config.seed = seed();
    config.pg_connections = 8;
    let server = TestServer::start(config).await;
    let url = server.url("/charging");
    let accounts: Vec<i32> = (1..=ACCOUNTS).collect();
    let seen = load::run(url.clone(), accounts.clone(), CLIENTS, OPS, Arc::default()).await;
    assert!(
        seen.uncertain.is_empty(),
        "the server answered every request"
    );
    assert!(
        seen.succeeded > CLIENTS * OPS / 3,
        "mostly successes: {seen:?}"
    );
    assert!(
        seen.refused > 0,
        "some refusals (insufficient funds, used reservations)"
    );

    let c = ChargingClient::new(&url).unwrap();
    for id in accounts {
        let initial = seed().accounts().find(|a| a.0 == id).unwrap().1;
        let expected = initial + seen.deltas.get(&id).copied().unwrap_or(0);
        let balance = i64::from(c.credit_control(id).await.unwrap());
        assert!(balance >= 0, "account {id} is negative: {balance}");
        assert_eq!(
            balance, expected,
            "account {id}: the model of acknowledged operations"
        );
    }
    let store = server.services.charging().unwrap().store().clone();
    for a in &seen.acked {
        let rec = store
            .transaction(a.cn)
            .await
            .unwrap()
            .unwrap_or_else(|| panic!("acknowledged {a:?} not in the ledger"));
        assert_eq!(
            (rec.kind, rec.account, rec.amount),
            (a.kind, a.account, a.amount),
            "ledger entry {}",
            a.cn
        );
    }
    let audit = store.audit().await.unwrap();
    assert!(audit.is_clean(), "{audit:?}");
    assert_eq!(audit.transactions as usize, seen.succeeded);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_clients_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    check(Db::Sqlite(dir.path().join("charging.db"))).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_clients_postgres() {
    let Some(pg) = common::pg::PgServer::start() else {
        return;
    };
    let url = pg.create_db("concurrency").await;
    check(Db::Postgres(url)).await;
}
