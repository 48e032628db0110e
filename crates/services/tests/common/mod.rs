//! Helpers shared by the integration tests.
#![allow(dead_code, unreachable_pub)]

pub mod keyed_load;
pub mod ledger;
pub mod load;
pub mod pg;
pub mod port;
pub mod relay;
pub mod server;
pub mod xml;

use soapstone_services::charging::{ChargingError, ChargingSystem, ResState, SeedConfig, TxKind};

/// A message printed in a seed study, from the codec's golden copies
/// (`crates/codec/tests/documents`, whose README cites the seed and line of each).
pub fn seed_document(name: &str) -> String {
    let path = format!(
        "{}/../codec/tests/documents/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// A missing tool (zeep, curl, PostgreSQL) skips a test loudly on a developer's machine; under CI
/// (`CI` set, as `.ci/run` runs) it is a failure, since `.ci/run` installs everything the tests
/// need.
pub fn skip_unless_ci(why: &str) {
    if std::env::var_os("CI").is_some() {
        panic!("{why} (CI is set: .ci/run installs it, so its absence is a failure)");
    }
    eprintln!("SKIPPED: {why}");
}

/// The seed the store tests use: 20 accounts.
pub fn small_seed() -> SeedConfig {
    SeedConfig::with_accounts(20)
}

/// The initial balance of `id` under `seed`.
pub fn initial(seed: &SeedConfig, id: i32) -> i64 {
    seed.accounts().find(|&(i, _)| i == id).unwrap().1
}

/// Every rule of the charging system, on a freshly seeded store.
pub async fn check_semantics(c: &ChargingSystem, seed: &SeedConfig) {
    // creditControl sees the seeded balance.
    let b2 = initial(seed, 2);
    assert_eq!(c.balance(2).await.unwrap(), b2);

    // credit and directDebit.
    let b8 = initial(seed, 8);
    let r = c.credit(8, 147).await.unwrap();
    assert_eq!(r.balance, b8 + 147);
    let d = c.direct_debit(8, 438).await.unwrap();
    assert_eq!(d.balance, b8 + 147 - 438);
    assert!(d.cn > r.cn, "transaction numbers grow");
    assert_eq!(c.balance(8).await.unwrap(), b8 + 147 - 438);

    // Refusals change nothing and say why.
    let b8 = c.balance(8).await.unwrap();
    let e = c.direct_debit(8, (b8 + 1) as i32).await.unwrap_err();
    assert_eq!(
        e,
        ChargingError::InsufficientFunds {
            account: 8,
            balance: b8,
            requested: (b8 + 1) as i32
        }
    );
    assert_eq!(
        e.to_string(),
        format!(
            "insufficient funds: account `8` has balance `{b8}`, `{}` requested",
            b8 + 1
        )
    );
    assert!(e.is_client());
    assert_eq!(c.reserve(8, (b8 + 1) as i32).await.unwrap_err(), e);
    assert_eq!(c.balance(8).await.unwrap(), b8);
    for e in [
        c.credit(99_999, 1).await.unwrap_err(),
        c.direct_debit(99_999, 1).await.unwrap_err(),
        c.reserve(99_999, 1).await.unwrap_err(),
        c.balance(99_999).await.unwrap_err(),
    ] {
        assert_eq!(e, ChargingError::UnknownAccount(99_999));
        assert_eq!(e.to_string(), "unknown account `99999`");
    }
    for e in [
        c.credit(8, 0).await.unwrap_err(),
        c.direct_debit(8, 0).await.unwrap_err(),
        c.reserve(8, 0).await.unwrap_err(),
    ] {
        assert_eq!(e, ChargingError::NonPositiveAmount(0));
    }
    assert_eq!(
        c.credit(8, -5).await.unwrap_err().to_string(),
        "amount must be positive, got `-5`"
    );
    let big = c.credit(8, i32::MAX).await.unwrap_err();
    assert_eq!(
        big,
        ChargingError::BalanceOverflow {
            account: 8,
            am: i32::MAX
        }
    );
    assert_eq!(c.balance(8).await.unwrap(), b8);

    // reserve holds, debitReservation consumes (the rest comes back), once.
    let res = c.reserve(2, 520).await.unwrap();
    assert_eq!(res.balance, b2 - 520);
    assert_eq!(c.balance(2).await.unwrap(), b2 - 520);
    assert_eq!(
        c.debit_reservation(3, 500, res.cn).await.unwrap_err(),
        ChargingError::WrongAccount {
            res: res.cn,
            owner: 2,
            account: 3
        }
    );
    assert_eq!(
        c.debit_reservation(2, 521, res.cn).await.unwrap_err(),
        ChargingError::ExceedsReservation {
            res: res.cn,
            reserved: 520,
            am: 521
        }
    );
    assert_eq!(
        c.debit_reservation(2, 0, res.cn).await.unwrap_err(),
        ChargingError::NonPositiveAmount(0)
    );
    let deb = c.debit_reservation(2, 500, res.cn).await.unwrap();
    assert_eq!(deb.balance, b2 - 500);
    let again = c.debit_reservation(2, 500, res.cn).await.unwrap_err();
    assert_eq!(
        again,
        ChargingError::ReservationClosed {
            res: res.cn,
            state: ResState::Debited
        }
    );
    assert_eq!(
        again.to_string(),
        format!("reservation `{}` was already debited", res.cn)
    );
    assert_eq!(c.release(res.cn).await.unwrap_err(), again);
    assert_eq!(c.balance(2).await.unwrap(), b2 - 500);

    // releaseRes restores, once.
    let res2 = c.reserve(2, 100).await.unwrap();
    assert_eq!(c.balance(2).await.unwrap(), b2 - 600);
    let rel = c.release(res2.cn).await.unwrap();
    assert_eq!(rel.balance, b2 - 500);
    let closed = ChargingError::ReservationClosed {
        res: res2.cn,
        state: ResState::Released,
    };
    assert_eq!(c.release(res2.cn).await.unwrap_err(), closed);
    assert_eq!(
        c.debit_reservation(2, 1, res2.cn).await.unwrap_err(),
        closed
    );
    assert_eq!(
        c.release(77_777).await.unwrap_err(),
        ChargingError::UnknownReservation(77_777)
    );
    assert_eq!(
        c.debit_reservation(2, 1, 77_777)
            .await
            .unwrap_err()
            .to_string(),
        "unknown reservation `77777`"
    );
    // A transaction number that is not a reservation is not a reservation.
    assert_eq!(
        c.release(r.cn).await.unwrap_err(),
        ChargingError::UnknownReservation(r.cn)
    );
    assert_eq!(c.balance(2).await.unwrap(), b2 - 500);

    // confirmAction is idempotent and knows its numbers.
    c.confirm(r.cn).await.unwrap();
    c.confirm(r.cn).await.unwrap();
    assert_eq!(
        c.confirm(1_000_000).await.unwrap_err().to_string(),
        "unknown transaction number `1000000`"
    );
    let store = c.store();
    let rec = store.transaction(r.cn).await.unwrap().unwrap();
    assert_eq!(
        (rec.kind, rec.account, rec.amount, rec.delta, rec.confirmed),
        (TxKind::Credit, 8, 147, 147, true)
    );
    let rec = store.transaction(deb.cn).await.unwrap().unwrap();
    assert_eq!(
        (
            rec.kind,
            rec.account,
            rec.amount,
            rec.delta,
            rec.res,
            rec.confirmed
        ),
        (TxKind::DebitReservation, 2, 500, 20, Some(res.cn), false)
    );
    let rec = store.transaction(rel.cn).await.unwrap().unwrap();
    assert_eq!(
        (rec.kind, rec.amount, rec.delta, rec.res),
        (TxKind::Release, 100, 100, Some(res2.cn))
    );
    assert!(store.transaction(1_000_000).await.unwrap().is_none());

    // The ledger explains every balance.
    let audit = store.audit().await.unwrap();
    assert!(audit.is_clean(), "{audit:?}");
    assert_eq!(audit.accounts, u64::from(seed.accounts));
    assert_eq!(audit.transactions, 6);
}
