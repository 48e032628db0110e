//! The charging rules on both stores, called directly (no HTTP): same scenario, same answers.

mod common;

use std::sync::Arc;

use soapstone_services::charging::{
    postgres::PostgresStore, sqlite::SqliteStore, ChargingSystem, SeedConfig,
};

#[tokio::test]
async fn sqlite_semantics() {
    let dir = tempfile::tempdir().unwrap();
    let seed = common::small_seed();
    let store = SqliteStore::open_async(dir.path().join("c.db"), &seed)
        .await
        .unwrap();
    common::check_semantics(&ChargingSystem::new(Arc::new(store)), &seed).await;
}

#[tokio::test]
async fn sqlite_survives_reopen_and_seeds_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.db");
    let seed = common::small_seed();
    let cn = {
        let c = ChargingSystem::new(Arc::new(
            SqliteStore::open_async(&path, &seed).await.unwrap(),
        ));
        c.credit(5, 1000).await.unwrap().cn
    };
    // Reopening with another seed must not reseed a store that has accounts.
    let other = SeedConfig::with_accounts(3);
    let c = ChargingSystem::new(Arc::new(
        SqliteStore::open_async(&path, &other).await.unwrap(),
    ));
    assert_eq!(
        c.balance(5).await.unwrap(),
        common::initial(&seed, 5) + 1000
    );
    assert_eq!(c.balance(20).await.unwrap(), common::initial(&seed, 20));
    c.confirm(cn).await.unwrap();
    assert!(c.store().audit().await.unwrap().is_clean());
}

#[tokio::test]
async fn sqlite_open_error_is_clear() {
    let err = SqliteStore::open_async("/nonexistent-dir/x/c.db", &common::small_seed())
        .await
        .unwrap_err();
    assert!(
        err.to_string()
            .starts_with("storage failed: cannot open `/nonexistent-dir/x/c.db`"),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_semantics() {
    let Some(pg) = common::pg::PgServer::start() else {
        return;
    };
    let url = pg.create_db("semantics").await;
    let seed = common::small_seed();
    let store = PostgresStore::connect(&url, &seed, 4).await.unwrap();
    common::check_semantics(&ChargingSystem::new(Arc::new(store)), &seed).await;
    // A second connect finds the accounts and does not reseed.
    let again = ChargingSystem::new(Arc::new(
        PostgresStore::connect(&url, &SeedConfig::with_accounts(3), 2)
            .await
            .unwrap(),
    ));
    assert_eq!(again.balance(20).await.unwrap(), common::initial(&seed, 20));
    assert!(again.store().audit().await.unwrap().is_clean());
}

#[tokio::test]
async fn postgres_bad_url_is_clear() {
    let err = PostgresStore::connect("postgres://127.0.0.1:1/x", &common::small_seed(), 1)
        .await
        .unwrap_err();
    assert!(
        err.to_string().starts_with("storage failed: postgresql"),
        "{err}"
    );
}
