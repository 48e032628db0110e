//! The SQLite side of exactly-once (see [`super::once`]): the `idempotency_keys` table and the
//! reservations' `expires` column (a migration step of its own, schema key `exactly-once`),
//! the keys' principal scope (migration step `key-scope`), the keyed apply and the expiry of
//! reservations. Everything here runs on the writer thread
//! inside the batch's transaction, in the operation's own savepoint, so a key is stored exactly
//! when its operation is.
//!
//! Must never: store a key outside its operation's savepoint, or expire a reservation without
//! giving its amount back and writing the ledger entry in the same transaction.

use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};

use super::once::{fingerprint, Applied, Swept};
use super::sqlite::{balance_of, close_reservation, ledger, set_balance};
use super::{ChargingError, Op, Receipt, ResState, TxKind};

/// Adds what exactly-once needs to a store of any earlier version (idempotent).
pub(super) fn migrate(conn: &mut Connection) -> Result<(), ChargingError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    tx.execute_batch(
        "CREATE TABLE IF NOT EXISTS idempotency_keys (
            principal TEXT NOT NULL,
            key TEXT NOT NULL,
            op TEXT NOT NULL,
            cn INTEGER NOT NULL,
            balance INTEGER NOT NULL,
            created INTEGER NOT NULL,
            PRIMARY KEY (principal, key)
        );
        CREATE INDEX IF NOT EXISTS idempotency_keys_created ON idempotency_keys (created);",
    )?;
    let has_expires = tx
        .prepare("SELECT 1 FROM pragma_table_info('reservations') WHERE name = 'expires'")?
        .exists([])?;
    if !has_expires {
        tx.execute_batch("ALTER TABLE reservations ADD COLUMN expires INTEGER")?;
    }
    tx.execute_batch(
        "CREATE INDEX IF NOT EXISTS reservations_open_expiry ON reservations (expires) WHERE state = 0;
         INSERT OR IGNORE INTO meta (key, value) VALUES ('exactly-once', '1');",
    )?;
    migrate_key_scope(&tx)?;
    tx.commit()?;
    Ok(())
}

/// Migration step `key-scope`: a key belongs to the principal that sent it. A store whose
/// keys were global gets the table rebuilt with the `principal` column in the primary key;
/// each old key takes the issuer of the ledger entry it answered (its receipt's `cn`), so a
/// retry after the upgrade still finds it; keys of anonymous entries get the anonymous scope.
/// Needs the ledger's `issuer` column (run after that step).
fn migrate_key_scope(tx: &Connection) -> Result<(), ChargingError> {
    let scoped = tx
        .prepare("SELECT 1 FROM pragma_table_info('idempotency_keys') WHERE name = 'principal'")?
        .exists([])?;
    if !scoped {
        tx.execute_batch(
            "CREATE TABLE idempotency_keys_scoped (
                principal TEXT NOT NULL,
                key TEXT NOT NULL,
                op TEXT NOT NULL,
                cn INTEGER NOT NULL,
                balance INTEGER NOT NULL,
                created INTEGER NOT NULL,
                PRIMARY KEY (principal, key)
            );
            INSERT INTO idempotency_keys_scoped (principal, key, op, cn, balance, created)
                SELECT coalesce((SELECT t.issuer FROM transactions t WHERE t.cn = k.cn), ''),
                       k.key, k.op, k.cn, k.balance, k.created
                FROM idempotency_keys k;
            DROP TABLE idempotency_keys;
            ALTER TABLE idempotency_keys_scoped RENAME TO idempotency_keys;
            CREATE INDEX IF NOT EXISTS idempotency_keys_created ON idempotency_keys (created);",
        )?;
    }
    tx.execute_batch("INSERT OR IGNORE INTO meta (key, value) VALUES ('key-scope', '1');")?;
    Ok(())
}

/// Applies `op` with `apply` unless its key is stored in the principal's scope
/// ([`Applied::key_scope`]); stores the key with the receipt in that scope.
pub(super) fn apply_keyed(
    c: &Connection,
    op: Op,
    at: &Applied,
    apply: impl FnOnce(&Connection, Op) -> Result<Receipt, ChargingError>,
) -> Result<Receipt, ChargingError> {
    let print = at.key.as_ref().map(|_| fingerprint(&op));
    if let (Some(key), Some(print)) = (&at.key, &print) {
        let stored = c
            .prepare_cached(
                "SELECT op, cn, balance, created FROM idempotency_keys
                 WHERE principal = ?1 AND key = ?2",
            )?
            .query_row([at.key_scope(), key.as_str()], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, i32>(1)?,
                    r.get::<_, i64>(2)?,
                    r.get::<_, i64>(3)?,
                ))
            })
            .optional()?;
        if let Some((first, cn, balance, created)) = stored {
            if created >= at.keys_valid_after_ms {
                if first != *print {
                    return Err(ChargingError::KeyReused {
                        key: key.to_string(),
                        first,
                        now: print.clone(),
                    });
                }
                return Ok(Receipt {
                    cn,
                    balance,
                    replayed: true,
                });
            }
        }
    }
    let receipt = apply(c, op)?;
    if let (Op::Reserve { .. }, Some(expires)) = (op, at.reservation_expires_ms) {
        c.prepare_cached("UPDATE reservations SET expires = ?2 WHERE res = ?1")?
            .execute(params![receipt.cn, expires])?;
    }
    if let (Some(key), Some(print)) = (&at.key, print) {
        c.prepare_cached(
            "INSERT OR REPLACE INTO idempotency_keys (principal, key, op, cn, balance, created)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )?
        .execute(params![
            at.key_scope(),
            key.as_str(),
            print,
            receipt.cn,
            receipt.balance,
            at.now_ms
        ])?;
    }
    Ok(receipt)
}

/// Releases up to `limit` open reservations expired by `now`: the amount back to the balance,
/// state `Expired`, an `expireRes` ledger entry. Returns how many.
pub(super) fn expire_due(c: &Connection, now: i64, limit: i64) -> Result<u64, ChargingError> {
    let due: Vec<(i32, i32, i64)> = c
        .prepare_cached(
            "SELECT res, account, amount FROM reservations
             WHERE state = 0 AND expires <= ?1 ORDER BY expires LIMIT ?2",
        )?
        .query_map(params![now, limit], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })?
        .collect::<Result<_, _>>()?;
    for &(res, account, amount) in &due {
        let balance = balance_of(c, account)? + amount;
        set_balance(c, account, balance)?;
        close_reservation(c, res, ResState::Expired)?;
        ledger(c, TxKind::Expire, account, amount, amount, Some(res))?;
    }
    Ok(due.len() as u64)
}

/// A sweep: expired reservations released, keys created before `keys_before` forgotten.
pub(super) fn sweep(c: &Connection, now: i64, keys_before: i64) -> Result<Swept, ChargingError> {
    let expired_reservations = expire_due(c, now, super::once::SWEEP_BATCH)?;
    let forgotten_keys = c
        .prepare_cached("DELETE FROM idempotency_keys WHERE created < ?1")?
        .execute([keys_before])? as u64;
    Ok(Swept {
        expired_reservations,
        forgotten_keys,
    })
}
