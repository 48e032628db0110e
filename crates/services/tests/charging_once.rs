//! Exactly-once on both stores: an idempotency key applies its operation once and answers the
//! same again (also after reopening the store), a key reused with other arguments is refused,
//! forgotten keys apply afresh; reservations expire durably, by sweep and at use.

mod common;

use std::sync::Arc;
use std::time::Duration;

use soapstone_services::charging::once::now_ms;
use soapstone_services::charging::{
    postgres::PostgresStore, sqlite::SqliteStore, ChargingError, ChargingPolicy, ChargingSystem,
    IdempotencyKey, Op, ResState, Store, TxKind,
};

fn key(k: &str) -> Option<IdempotencyKey> {
    Some(IdempotencyKey::new(k).unwrap())
}

/// Every rule of the keys on a fresh store; returns the receipts' numbers to check after a
/// reopen.
async fn check_keys(c: &ChargingSystem) -> (i32, i32) {
    let seed = common::small_seed();
    let b3 = common::initial(&seed, 3);
    let first = c
        .apply_keyed(Op::DirectDebit { id: 3, am: 70 }, key("debit-1"))
        .await
        .unwrap();
    assert!(!first.replayed);
    let again = c
        .apply_keyed(Op::DirectDebit { id: 3, am: 70 }, key("debit-1"))
        .await
        .unwrap();
    assert_eq!(
        (again.cn, again.balance, again.replayed),
        (first.cn, b3 - 70, true)
    );
    assert_eq!(c.balance(3).await.unwrap(), b3 - 70, "charged once");

    // The same key with other arguments, or for another operation: the client's mistake.
    let e = c
        .apply_keyed(Op::DirectDebit { id: 3, am: 71 }, key("debit-1"))
        .await
        .unwrap_err();
    assert_eq!(
        e,
        ChargingError::KeyReused {
            key: "debit-1".into(),
            first: "directDebit id=3 am=70".into(),
            now: "directDebit id=3 am=71".into()
        }
    );
    assert!(e.is_client());
    assert_eq!(
        e.to_string(),
        "idempotency key `debit-1` was used for `directDebit id=3 am=70`, not `directDebit id=3 am=71`"
    );
    assert!(matches!(
        c.apply_keyed(Op::Credit { id: 3, am: 70 }, key("debit-1"))
            .await
            .unwrap_err(),
        ChargingError::KeyReused { .. }
    ));

    // A refused operation keeps no key: after a credit makes it possible, its retry applies.
    let b4 = common::initial(&seed, 4);
    let too_much = i32::try_from(b4 + 10).unwrap();
    let refused = c
        .apply_keyed(
            Op::DirectDebit {
                id: 4,
                am: too_much,
            },
            key("debit-2"),
        )
        .await
        .unwrap_err();
    assert!(matches!(refused, ChargingError::InsufficientFunds { .. }));
    c.credit(4, 10).await.unwrap();
    let later = c
        .apply_keyed(
            Op::DirectDebit {
                id: 4,
                am: too_much,
            },
            key("debit-2"),
        )
        .await
        .unwrap();
    assert!(!later.replayed);
    assert_eq!(c.balance(4).await.unwrap(), 0);

    // Reservation operations too: a retried debit of a reservation answers its first answer,
    // not "already debited".
    let res = c
        .apply_keyed(Op::Reserve { id: 5, am: 30 }, key("res-1"))
        .await
        .unwrap();
    let op = Op::DebitReservation {
        id: 5,
        am: 20,
        res: res.cn,
    };
    let d1 = c.apply_keyed(op, key("deb-1")).await.unwrap();
    let d2 = c.apply_keyed(op, key("deb-1")).await.unwrap();
    assert_eq!((d2.cn, d2.replayed), (d1.cn, true));
    assert_eq!(
        c.apply_keyed(op, key("deb-other")).await.unwrap_err(),
        ChargingError::ReservationClosed {
            res: res.cn,
            state: ResState::Debited
        }
    );
    let audit = c.store().audit().await.unwrap();
    assert!(audit.is_clean(), "{audit:?}");
    (first.cn, d1.cn)
}

/// After a reopen the keys still answer; a sweep forgets them.
async fn check_after_reopen(c: &ChargingSystem, (debit, deb): (i32, i32)) {
    let again = c
        .apply_keyed(Op::DirectDebit { id: 3, am: 70 }, key("debit-1"))
        .await
        .unwrap();
    assert_eq!((again.cn, again.replayed), (debit, true));
    let transactions = c.store().audit().await.unwrap().transactions;
    let swept = c.store().sweep(now_ms(), now_ms() + 1).await.unwrap();
    assert!(swept.forgotten_keys >= 4, "{swept:?}");
    // Forgotten: the same key applies again (a new transaction).
    let fresh = c
        .apply_keyed(Op::DirectDebit { id: 3, am: 70 }, key("debit-1"))
        .await
        .unwrap();
    assert!(!fresh.replayed && fresh.cn != debit && fresh.cn != deb);
    let audit = c.store().audit().await.unwrap();
    assert_eq!(audit.transactions, transactions + 1);
    assert!(audit.is_clean(), "{audit:?}");
}

/// Reservations expire: by sweep, at use, and with a ledger entry that the audit accepts.
async fn check_expiry(store: Arc<dyn Store>) {
    let seed = common::small_seed();
    // Long enough that "not yet due" holds on a loaded machine; the check at use below takes
    // a short one and waits past it.
    let mut policy = ChargingPolicy::default();
    policy.reservation_ttl = Some(Duration::from_secs(30));
    let c = ChargingSystem::new(store.clone()).with_policy(policy);
    let mut short = ChargingPolicy::default();
    short.reservation_ttl = Some(Duration::from_millis(200));
    let short = ChargingSystem::new(store.clone()).with_policy(short);
    let b6 = common::initial(&seed, 6);
    let res = c.reserve(6, 100).await.unwrap();
    assert_eq!(c.balance(6).await.unwrap(), b6 - 100);
    // Not yet due: a sweep at "now" leaves it open.
    assert_eq!(
        store
            .sweep(now_ms(), i64::MIN)
            .await
            .unwrap()
            .expired_reservations,
        0
    );
    // Due: a sweep one minute later releases it, with an `expireRes` entry.
    let swept = store.sweep(now_ms() + 60_000, i64::MIN).await.unwrap();
    assert_eq!(swept.expired_reservations, 1);
    assert_eq!(c.balance(6).await.unwrap(), b6);
    let e = c.debit_reservation(6, 10, res.cn).await.unwrap_err();
    assert_eq!(
        e,
        ChargingError::ReservationClosed {
            res: res.cn,
            state: ResState::Expired
        }
    );
    assert_eq!(
        e.to_string(),
        format!("reservation `{}` was already expired", res.cn)
    );

    // At use: no sweep ran, the time passed, the debit is refused and the amount is back.
    let res2 = short.reserve(6, 50).await.unwrap();
    tokio::time::sleep(Duration::from_millis(400)).await;
    let e = short.release(res2.cn).await.unwrap_err();
    assert_eq!(
        e,
        ChargingError::ReservationClosed {
            res: res2.cn,
            state: ResState::Expired
        }
    );
    assert_eq!(c.balance(6).await.unwrap(), b6);
    // Without a TTL nothing expires.
    let forever = ChargingSystem::new(store.clone()).with_policy({
        let mut p = ChargingPolicy::default();
        p.reservation_ttl = None;
        p
    });
    let res3 = forever.reserve(6, 5).await.unwrap();
    assert_eq!(
        store
            .sweep(now_ms() + 3_600_000, i64::MIN)
            .await
            .unwrap()
            .expired_reservations,
        0
    );
    forever.release(res3.cn).await.unwrap();
    let audit = store.audit().await.unwrap();
    assert!(audit.is_clean(), "{audit:?}");
    let mut expired = 0;
    for cn in 1..=audit.transactions as i32 + 5 {
        if let Some(t) = store.transaction(cn).await.unwrap() {
            if t.kind == TxKind::Expire {
                assert_eq!((t.account, t.delta), (6, t.amount));
                expired += 1;
            }
        }
    }
    assert_eq!(expired, 2);
}

#[tokio::test]
async fn sqlite_keys_apply_once_across_a_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("c.db");
    let seed = common::small_seed();
    let store = SqliteStore::open_async(&db, &seed).await.unwrap();
    let numbers = check_keys(&ChargingSystem::new(Arc::new(store))).await;
    let store = SqliteStore::open_async(&db, &seed).await.unwrap();
    check_after_reopen(&ChargingSystem::new(Arc::new(store)), numbers).await;
}

#[tokio::test]
async fn sqlite_reservations_expire_durably() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("c.db");
    let seed = common::small_seed();
    let store = SqliteStore::open_async(&db, &seed).await.unwrap();
    check_expiry(Arc::new(store)).await;
    // A reservation made before a restart expires after it.
    let mut policy = ChargingPolicy::default();
    policy.reservation_ttl = Some(Duration::from_millis(100));
    let store: Arc<dyn Store> = Arc::new(SqliteStore::open_async(&db, &seed).await.unwrap());
    let c = ChargingSystem::new(store.clone()).with_policy(policy);
    let before = c.balance(7).await.unwrap();
    c.reserve(7, 9).await.unwrap();
    drop((c, store));
    let store: Arc<dyn Store> = Arc::new(SqliteStore::open_async(&db, &seed).await.unwrap());
    let swept = store.sweep(now_ms() + 1_000, i64::MIN).await.unwrap();
    assert_eq!(swept.expired_reservations, 1);
    assert_eq!(store.balance(7).await.unwrap(), before);
}

#[tokio::test]
async fn postgres_keys_and_expiry() {
    let Some(pg) = common::pg::PgServer::start() else {
        return;
    };
    let seed = common::small_seed();
    let url = pg.create_db("once_keys").await;
    let store = PostgresStore::connect(&url, &seed, 4).await.unwrap();
    let numbers = check_keys(&ChargingSystem::new(Arc::new(store))).await;
    let store = PostgresStore::connect(&url, &seed, 4).await.unwrap();
    check_after_reopen(&ChargingSystem::new(Arc::new(store)), numbers).await;

    let url = pg.create_db("once_expiry").await;
    let store = PostgresStore::connect(&url, &seed, 4).await.unwrap();
    check_expiry(Arc::new(store)).await;
}

/// Many concurrent attempts with one key (a client retrying while its first attempt is still
/// running, through two replicas): exactly one applies, all answer the same.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_attempts_with_one_key_apply_once() {
    let dir = tempfile::tempdir().unwrap();
    let seed = common::small_seed();
    let sqlite: Arc<dyn Store> = Arc::new(
        SqliteStore::open_async(dir.path().join("c.db"), &seed)
            .await
            .unwrap(),
    );
    let pg = common::pg::PgServer::start();
    let mut stores = vec![("sqlite", sqlite)];
    if let Some(pg) = &pg {
        let url = pg.create_db("once_race").await;
        stores.push((
            "postgresql",
            Arc::new(PostgresStore::connect(&url, &seed, 8).await.unwrap()),
        ));
    }
    for (name, store) in stores {
        let c = ChargingSystem::new(store.clone());
        let before = c.balance(9).await.unwrap();
        let tasks: Vec<_> = (0..16)
            .map(|_| {
                let c = c.clone();
                tokio::spawn(async move {
                    c.apply_keyed(Op::DirectDebit { id: 9, am: 3 }, key("race"))
                        .await
                        .unwrap()
                })
            })
            .collect();
        let mut receipts = Vec::new();
        for t in tasks {
            receipts.push(t.await.unwrap());
        }
        assert_eq!(
            receipts.iter().filter(|r| !r.replayed).count(),
            1,
            "{name}: {receipts:?}"
        );
        assert!(receipts.iter().all(|r| r.cn == receipts[0].cn), "{name}");
        assert_eq!(c.balance(9).await.unwrap(), before - 3, "{name}");
    }
}
