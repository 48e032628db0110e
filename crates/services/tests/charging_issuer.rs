//! Who issued each ledger entry (issue 11), on both stores: every kind of money operation
//! records the principal it was applied for, an unauthenticated one records none, and a store
//! created before the column existed is migrated on open with its old entries kept.

mod common;

use std::sync::Arc;

use soapstone_services::charging::{
    postgres::PostgresStore, sqlite::SqliteStore, ChargingSystem, Op, Store,
};

async fn check_issuers(c: &ChargingSystem) {
    let store = c.store().clone();
    let by = Some("operator-7");
    let credit = c.apply_as(Op::Credit { id: 4, am: 50 }, by).await.unwrap();
    let debit = c
        .apply_as(Op::DirectDebit { id: 4, am: 5 }, by)
        .await
        .unwrap();
    let res = c.apply_as(Op::Reserve { id: 4, am: 10 }, by).await.unwrap();
    let dr = c
        .apply_as(
            Op::DebitReservation {
                id: 4,
                am: 3,
                res: res.cn,
            },
            by,
        )
        .await
        .unwrap();
    let res2 = c.apply_as(Op::Reserve { id: 4, am: 2 }, by).await.unwrap();
    let rel = c.apply_as(Op::Release { res: res2.cn }, by).await.unwrap();
    for r in [credit, debit, res, dr, res2, rel] {
        let entry = store.transaction(r.cn).await.unwrap().unwrap();
        assert_eq!(entry.issuer.as_deref(), by, "{entry:?}");
    }
    let anonymous = c.credit(4, 1).await.unwrap();
    let entry = store.transaction(anonymous.cn).await.unwrap().unwrap();
    assert_eq!(entry.issuer, None, "{entry:?}");
    // A refused operation writes no entry, with or without an issuer.
    let before = store.audit().await.unwrap();
    assert!(c
        .apply_as(
            Op::DirectDebit {
                id: 4,
                am: i32::MAX
            },
            by
        )
        .await
        .is_err());
    assert_eq!(store.audit().await.unwrap(), before);
    assert!(before.is_clean(), "{before:?}");
}

#[tokio::test]
async fn sqlite_records_the_issuer() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open_async(dir.path().join("c.db"), &common::small_seed())
        .await
        .unwrap();
    check_issuers(&ChargingSystem::new(Arc::new(store))).await;
}

#[tokio::test]
async fn sqlite_store_of_the_old_schema_is_migrated() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    {
        // The schema before issue 11, with one entry in it.
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch(
            "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
             CREATE TABLE accounts (id INTEGER PRIMARY KEY, initial INTEGER NOT NULL,
                 balance INTEGER NOT NULL CHECK (balance >= 0));
             CREATE TABLE transactions (cn INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL,
                 account INTEGER NOT NULL, amount INTEGER NOT NULL, delta INTEGER NOT NULL,
                 res INTEGER, confirmed INTEGER NOT NULL DEFAULT 0);
             CREATE TABLE reservations (res INTEGER PRIMARY KEY, account INTEGER NOT NULL,
                 amount INTEGER NOT NULL, state INTEGER NOT NULL);
             INSERT INTO meta VALUES ('schema', '1');
             INSERT INTO accounts VALUES (1, 100, 110);
             INSERT INTO transactions (kind, account, amount, delta) VALUES ('credit', 1, 10, 10);",
        )
        .unwrap();
    }
    let store = SqliteStore::open_async(&path, &common::small_seed())
        .await
        .unwrap();
    let old = store.transaction(1).await.unwrap().unwrap();
    assert_eq!(old.issuer, None);
    let c = ChargingSystem::new(Arc::new(store));
    let r = c
        .apply_as(Op::Credit { id: 1, am: 1 }, Some("after"))
        .await
        .unwrap();
    let entry = c.store().transaction(r.cn).await.unwrap().unwrap();
    assert_eq!(entry.issuer.as_deref(), Some("after"));
    drop(c);
    // Opening again does not try to add the column twice.
    let again = SqliteStore::open_async(&path, &common::small_seed())
        .await
        .unwrap();
    assert_eq!(
        again
            .transaction(r.cn)
            .await
            .unwrap()
            .unwrap()
            .issuer
            .as_deref(),
        Some("after")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_records_the_issuer_and_migrates() {
    let Some(pg) = common::pg::PgServer::start() else {
        return;
    };
    let url = pg.create_db("issuer").await;
    {
        // The table before issue 11, with one entry in it.
        let (client, conn) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
            .await
            .unwrap();
        let task = tokio::spawn(conn);
        client
            .batch_execute(
                "CREATE TABLE charging_transactions (
                    cn INTEGER GENERATED ALWAYS AS IDENTITY PRIMARY KEY, kind TEXT NOT NULL,
                    account INTEGER NOT NULL, amount BIGINT NOT NULL, delta BIGINT NOT NULL,
                    res INTEGER, confirmed BOOLEAN NOT NULL DEFAULT false);
                 INSERT INTO charging_transactions (kind, account, amount, delta)
                    VALUES ('credit', 1, 0, 0);",
            )
            .await
            .unwrap();
        drop(client);
        let _ = task.await;
    }
    let store = PostgresStore::connect(&url, &common::small_seed(), 2)
        .await
        .unwrap();
    assert_eq!(store.transaction(1).await.unwrap().unwrap().issuer, None);
    let c = ChargingSystem::new(Arc::new(store));
    check_issuers(&c).await;
    drop(c);
    // Connecting again does not try to add the column twice.
    let again = PostgresStore::connect(&url, &common::small_seed(), 1)
        .await
        .unwrap();
    assert_eq!(again.transaction(1).await.unwrap().unwrap().issuer, None);
}
