//! Idempotency keys belong to the principal that sent them (issue 11): principal B sending the
//! key A used gets its own fresh operation, never A's receipt, and the ledger shows both
//! entries with their issuers; A's retry still answers A's first receipt. Over the wire
//! (UsernameToken digest and the key header as raw bytes on a real TcpStream), on both stores,
//! and for a store whose keys were global before: the migration gives each old key the issuer
//! of the entry it answered, so a retry across the upgrade is still applied once.

mod common;

use std::sync::Arc;
use std::time::SystemTime;

use common::server::{post, text_of, TestServer};
use soapstone_services::charging::{
    postgres::PostgresStore, sqlite::SqliteStore, ChargingSystem, IdempotencyKey, Op,
};
use soapstone_services::{Auth, Db, ServiceKind, ServicesConfig};
use soapstone_wssec::{UsernameTokenHeader, UsersFile, WsseConfig};

const SOAP11: &str = "http://schemas.xmlsoap.org/soap/envelope/";

fn users() -> Arc<UsersFile> {
    let text = "[users.alice]\npermissions = [\"move\", \"read\"]\ndigest_secret = \"alice-d\"\n\
                [users.bob]\npermissions = [\"move\", \"read\"]\ndigest_secret = \"bob-d\"\n";
    Arc::new(UsersFile::parse(text).unwrap())
}

/// A keyed `credit(id, am)` from `user`, with a fresh nonce.
fn keyed_credit(user: &str, secret: &str, nonce: u8, key: &str, id: i32, am: i32) -> String {
    let token = UsernameTokenHeader::digest(user, secret).block_at(&[nonce; 16], SystemTime::now());
    let key = IdempotencyKey::new(key).unwrap().header_xml(SOAP11);
    format!(
        r#"<soap:Envelope xmlns:soap="{SOAP11}"><soap:Header>{token}{key}</soap:Header><soap:Body><c:credit xmlns:c="urn:soapstone:charging"><id>{id}</id><am>{am}</am></c:credit></soap:Body></soap:Envelope>"#
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_principal_replaying_a_key_gets_its_own_operation() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = ServicesConfig::default();
    c.services = vec![ServiceKind::Charging];
    c.db = Db::Sqlite(dir.path().join("charging.db"));
    c.seed = common::small_seed();
    c.auth = Some(Auth::new(users(), WsseConfig::default()));
    let s = TestServer::start(c).await;
    let store = s.services.charging().unwrap().store().clone();
    let before = store.balance(3).await.unwrap();

    let cn = |body: &str| -> i32 { text_of(body, "return").unwrap().parse().unwrap() };
    let a = post(
        s.addr,
        "/charging",
        "",
        &keyed_credit("alice", "alice-d", 1, "order-1", 3, 10),
    )
    .await;
    assert_eq!(a.status, 200, "{}", a.body);
    let b = post(
        s.addr,
        "/charging",
        "",
        &keyed_credit("bob", "bob-d", 2, "order-1", 3, 10),
    )
    .await;
    assert_eq!(b.status, 200, "{}", b.body);
    let (a_cn, b_cn) = (cn(&a.body), cn(&b.body));
    assert_ne!(a_cn, b_cn, "bob got alice's receipt");
    // Alice's retry is still alice's first answer; bob's retry is bob's.
    let a2 = post(
        s.addr,
        "/charging",
        "",
        &keyed_credit("alice", "alice-d", 3, "order-1", 3, 10),
    )
    .await;
    assert_eq!((a2.status, cn(&a2.body)), (200, a_cn), "{}", a2.body);
    let b2 = post(
        s.addr,
        "/charging",
        "",
        &keyed_credit("bob", "bob-d", 4, "order-1", 3, 10),
    )
    .await;
    assert_eq!((b2.status, cn(&b2.body)), (200, b_cn), "{}", b2.body);

    // Two credits applied, one each, and the ledger names who issued each.
    assert_eq!(store.balance(3).await.unwrap(), before + 20);
    for (cn, who) in [(a_cn, "alice"), (b_cn, "bob")] {
        let entry = store.transaction(cn).await.unwrap().unwrap();
        assert_eq!(entry.issuer.as_deref(), Some(who), "{entry:?}");
        assert_eq!((entry.account, entry.delta), (3, 10));
    }
    assert!(store.audit().await.unwrap().is_clean());
    s.stop().await;
}

/// The scope rules on one store: alice, bob and the anonymous scope each apply `k` once.
async fn check_scopes(c: &ChargingSystem) {
    let key = || Some(IdempotencyKey::new("shared-key").unwrap());
    let op = Op::Credit { id: 2, am: 7 };
    let before = c.balance(2).await.unwrap();
    let a = c.apply_keyed_as(op, key(), Some("alice")).await.unwrap();
    let b = c.apply_keyed_as(op, key(), Some("bob")).await.unwrap();
    let anon = c.apply_keyed_as(op, key(), None).await.unwrap();
    assert!(!a.replayed && !b.replayed && !anon.replayed);
    assert_ne!(a.cn, b.cn);
    assert_ne!(b.cn, anon.cn);
    for (who, first) in [(Some("alice"), a), (Some("bob"), b), (None, anon)] {
        let again = c.apply_keyed_as(op, key(), who).await.unwrap();
        assert_eq!((again.cn, again.replayed), (first.cn, true), "{who:?}");
        let entry = c.store().transaction(first.cn).await.unwrap().unwrap();
        assert_eq!(entry.issuer.as_deref(), who);
    }
    // Other arguments under bob's key are bob's mistake, whatever alice did with hers.
    assert!(c
        .apply_keyed_as(Op::Credit { id: 2, am: 8 }, key(), Some("bob"))
        .await
        .unwrap_err()
        .is_client());
    assert_eq!(c.balance(2).await.unwrap(), before + 21);
}

#[tokio::test]
async fn sqlite_keys_are_scoped_per_principal() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open_async(dir.path().join("c.db"), &common::small_seed())
        .await
        .unwrap();
    check_scopes(&ChargingSystem::new(Arc::new(store))).await;
}

/// After the upgrade, the old keys answer in their issuer's scope: `by-alice` (ledger entry
/// 1, issuer alice) replays for alice and is fresh for bob; `anon` (entry 2, no issuer)
/// replays for the anonymous scope.
async fn check_migrated(c: &ChargingSystem) {
    let k = |s: &str| Some(IdempotencyKey::new(s).unwrap());
    let op = Op::Credit { id: 1, am: 10 };
    let a = c.apply_keyed_as(op, k("by-alice"), Some("alice")).await;
    assert_eq!(a.unwrap().cn, 1);
    let anon = c.apply_keyed_as(op, k("anon"), None).await.unwrap();
    assert_eq!((anon.cn, anon.replayed), (2, true));
    let b = c
        .apply_keyed_as(op, k("by-alice"), Some("bob"))
        .await
        .unwrap();
    assert!(!b.replayed && b.cn > 2, "{b:?}");
}

#[tokio::test]
async fn sqlite_global_keys_are_migrated_into_their_issuers_scope() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    drop(
        SqliteStore::open_async(&path, &common::small_seed())
            .await
            .unwrap(),
    );
    {
        // Put the keys table back as it was before keys had a scope, with two keys in it.
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch(
            "DROP TABLE idempotency_keys;
             DELETE FROM meta WHERE key = 'key-scope';
             CREATE TABLE idempotency_keys (key TEXT PRIMARY KEY, op TEXT NOT NULL,
                 cn INTEGER NOT NULL, balance INTEGER NOT NULL, created INTEGER NOT NULL);
             UPDATE accounts SET balance = balance + 20 WHERE id = 1;
             INSERT INTO transactions (kind, account, amount, delta, issuer)
                 VALUES ('credit', 1, 10, 10, 'alice'), ('credit', 1, 10, 10, NULL);",
        )
        .unwrap();
        let now = soapstone_services::charging::once::now_ms();
        for (key, cn) in [("by-alice", 1), ("anon", 2)] {
            c.execute(
                "INSERT INTO idempotency_keys VALUES (?1, 'credit id=1 am=10', ?2, 0, ?3)",
                rusqlite::params![key, cn, now],
            )
            .unwrap();
        }
    }
    let store = SqliteStore::open_async(&path, &common::small_seed())
        .await
        .unwrap();
    let c = ChargingSystem::new(Arc::new(store));
    check_migrated(&c).await;
    assert!(c.store().audit().await.unwrap().is_clean());
    drop(c);
    // Opening again leaves the migrated table alone.
    let again = SqliteStore::open_async(&path, &common::small_seed())
        .await
        .unwrap();
    check_scopes(&ChargingSystem::new(Arc::new(again))).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_keys_are_scoped_per_principal_and_migrated() {
    let Some(pg) = common::pg::PgServer::start() else {
        return;
    };
    let url = pg.create_db("scope").await;
    let store = PostgresStore::connect(&url, &common::small_seed(), 2)
        .await
        .unwrap();
    check_scopes(&ChargingSystem::new(Arc::new(store))).await;

    let old = pg.create_db("scope_old").await;
    drop(
        PostgresStore::connect(&old, &common::small_seed(), 1)
            .await
            .unwrap(),
    );
    {
        let (client, conn) = tokio_postgres::connect(&old, tokio_postgres::NoTls)
            .await
            .unwrap();
        let task = tokio::spawn(conn);
        client
            .batch_execute(
                "DROP TABLE charging_idempotency;
                 DELETE FROM charging_meta WHERE key = 'key-scope';
                 CREATE TABLE charging_idempotency (key TEXT PRIMARY KEY, op TEXT NOT NULL,
                     cn INTEGER, balance BIGINT, created BIGINT NOT NULL);
                 UPDATE charging_accounts SET balance = balance + 20 WHERE id = 1;
                 INSERT INTO charging_transactions (kind, account, amount, delta, issuer)
                     VALUES ('credit', 1, 10, 10, 'alice'), ('credit', 1, 10, 10, NULL);",
            )
            .await
            .unwrap();
        let now = soapstone_services::charging::once::now_ms();
        for (key, cn) in [("by-alice", 1i32), ("anon", 2)] {
            client
                .execute(
                    "INSERT INTO charging_idempotency VALUES ($1, 'credit id=1 am=10', $2, 0, $3)",
                    &[&key, &cn, &now],
                )
                .await
                .unwrap();
        }
        drop(client);
        let _ = task.await;
    }
    let store = PostgresStore::connect(&old, &common::small_seed(), 2)
        .await
        .unwrap();
    let c = ChargingSystem::new(Arc::new(store));
    check_migrated(&c).await;
    assert!(c.store().audit().await.unwrap().is_clean());
    drop(c);
    let again = PostgresStore::connect(&old, &common::small_seed(), 1)
        .await
        .unwrap();
    check_scopes(&ChargingSystem::new(Arc::new(again))).await;
}
