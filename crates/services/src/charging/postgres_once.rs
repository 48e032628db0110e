//! The PostgreSQL side of exactly-once (see [`super::once`]): the `charging_idempotency`
//! table and the reservations' `expires` column (a migration step of its own, schema key
//! `exactly-once`), the keys' principal scope (migration step `key-scope`), the keyed apply
//! and the expiry of reservations. A key is unique per (principal, key): the same key from
//! another principal is another key.
//!
//! A keyed operation runs in one transaction: insert the key (`ON CONFLICT DO NOTHING`: a
//! concurrent attempt with the same key waits on the unique index until the first commits or
//! rolls back), apply the operation's statement, write its receipt on the key, commit. So the
//! key is committed exactly with the ledger entry, whichever replica ran it; a refused
//! operation rolls the key back with it. A second attempt finds the committed key and returns
//! its receipt.
//!
//! Must never: commit a key without its operation or an operation without its key, or expire a
//! reservation without giving its amount back and writing the ledger entry in one statement.

use deadpool_postgres::GenericClient;
use tokio_postgres::NoTls;

use super::once::{fingerprint, Applied, Swept, SWEEP_BATCH};
use super::postgres::{pool_err, PostgresStore, RETRIES};
use super::{ChargingError, Op, Receipt};

const MIGRATE: &str = "
CREATE TABLE IF NOT EXISTS charging_idempotency (
    principal TEXT NOT NULL,
    key TEXT NOT NULL,
    op TEXT NOT NULL,
    cn INTEGER,
    balance BIGINT,
    created BIGINT NOT NULL,
    PRIMARY KEY (principal, key)
);
CREATE INDEX IF NOT EXISTS charging_idempotency_created ON charging_idempotency (created);
ALTER TABLE charging_reservations ADD COLUMN IF NOT EXISTS expires BIGINT;
CREATE INDEX IF NOT EXISTS charging_reservations_open_expiry
    ON charging_reservations (expires) WHERE state = 0;
INSERT INTO charging_meta (key, value) VALUES ('exactly-once', '1') ON CONFLICT DO NOTHING;
";

/// Migration step `key-scope`: a table of global keys gets the `principal` column and the
/// primary key (principal, key); each old key takes the issuer of the ledger entry it answered
/// (its receipt's `cn`), so a retry after the upgrade still finds it, and keys of anonymous
/// entries the anonymous scope (`''`). Needs the ledger's `issuer` column.
const MIGRATE_KEY_SCOPE: &str = "
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM information_schema.columns
                   WHERE table_schema = current_schema()
                     AND table_name = 'charging_idempotency' AND column_name = 'principal') THEN
        ALTER TABLE charging_idempotency ADD COLUMN principal TEXT NOT NULL DEFAULT '';
        UPDATE charging_idempotency k SET principal = t.issuer
            FROM charging_transactions t WHERE t.cn = k.cn AND t.issuer IS NOT NULL;
        ALTER TABLE charging_idempotency ALTER COLUMN principal DROP DEFAULT;
        ALTER TABLE charging_idempotency DROP CONSTRAINT charging_idempotency_pkey;
        ALTER TABLE charging_idempotency ADD PRIMARY KEY (principal, key);
    END IF;
END
$$;
INSERT INTO charging_meta (key, value) VALUES ('key-scope', '1') ON CONFLICT DO NOTHING;
";

/// Releases open reservations expired by `$1` (at most `$2`): state 3 (`Expired`), the amount
/// back to each account (summed per account: a statement may update a row once), one
/// `expireRes` ledger entry each.
const EXPIRE: &str = "
WITH due AS (SELECT res FROM charging_reservations
             WHERE state = 0 AND expires <= $1::int8 ORDER BY expires LIMIT $2::int8
             FOR UPDATE SKIP LOCKED),
     r AS (UPDATE charging_reservations c SET state = 3 FROM due
           WHERE c.res = due.res AND c.state = 0 RETURNING c.res, c.account, c.amount),
     a AS (UPDATE charging_accounts c SET balance = c.balance + s.total
           FROM (SELECT account, sum(amount) AS total FROM r GROUP BY account) s
           WHERE c.id = s.account RETURNING c.id),
     t AS (INSERT INTO charging_transactions (kind, account, amount, delta, res)
           SELECT 'expireRes', account, amount, amount, res FROM r RETURNING cn)
SELECT count(*) FROM t";

/// Adds what exactly-once needs to a store of any earlier version (idempotent; run under the
/// schema's advisory lock).
pub(super) async fn migrate(tx: &deadpool_postgres::Transaction<'_>) -> Result<(), ChargingError> {
    tx.batch_execute(MIGRATE).await?;
    tx.batch_execute(MIGRATE_KEY_SCOPE).await?;
    Ok(())
}

async fn expire_due(client: &impl GenericClient, now: i64) -> Result<u64, ChargingError> {
    let st = client.prepare_cached(EXPIRE).await?;
    let n: i64 = client.query_one(&st, &[&now, &SWEEP_BATCH]).await?.get(0);
    Ok(u64::try_from(n).unwrap_or(0))
}

/// The check at use: before a reservation is debited or released, the expired ones are
/// released (only when reservations expire at all under the caller's policy).
pub(super) async fn expire_before_use(
    store: &PostgresStore,
    op: Op,
    at: &Applied,
) -> Result<(), ChargingError> {
    if at.reservation_expires_ms.is_some()
        && matches!(op, Op::DebitReservation { .. } | Op::Release { .. })
    {
        let client = store.pool.get().await.map_err(pool_err)?;
        expire_due(&client, at.now_ms).await?;
    }
    Ok(())
}

/// A sweep: expired reservations released, old keys forgotten.
pub(super) async fn sweep(
    store: &PostgresStore,
    now: i64,
    keys_before: i64,
) -> Result<Swept, ChargingError> {
    let client = store.pool.get().await.map_err(pool_err)?;
    let expired_reservations = expire_due(&client, now).await?;
    let st = client
        .prepare_cached("DELETE FROM charging_idempotency WHERE created < $1::int8")
        .await?;
    let forgotten_keys = client.execute(&st, &[&keys_before]).await?;
    Ok(Swept {
        expired_reservations,
        forgotten_keys,
    })
}

/// Applies `op` once for `at.key` in the principal's scope (see the module documentation).
pub(super) async fn apply_keyed(
    store: &PostgresStore,
    op: Op,
    at: &Applied,
) -> Result<Receipt, ChargingError> {
    let Some(key) = at.key.as_ref() else {
        return Err(ChargingError::Storage("a keyed apply without a key".into()));
    };
    let print = fingerprint(&op);
    let scope = at.key_scope();
    for _ in 0..RETRIES {
        let mut client = store.pool.get().await.map_err(pool_err)?;
        let tx = client.transaction().await?;
        // A key older than the retention is forgotten: this use starts afresh.
        let st = tx
            .prepare_cached(
                "DELETE FROM charging_idempotency
                 WHERE principal = $1 AND key = $2 AND created < $3::int8",
            )
            .await?;
        tx.execute(&st, &[&scope, &key.as_str(), &at.keys_valid_after_ms])
            .await?;
        let st = tx
            .prepare_cached(
                "INSERT INTO charging_idempotency (principal, key, op, created)
                 VALUES ($1, $2, $3, $4::int8)
                 ON CONFLICT (principal, key) DO NOTHING RETURNING 1",
            )
            .await?;
        let fresh = tx
            .query_opt(&st, &[&scope, &key.as_str(), &print, &at.now_ms])
            .await?
            .is_some();
        if !fresh {
            let st = tx
                .prepare_cached(
                    "SELECT op, cn, balance FROM charging_idempotency
                     WHERE principal = $1 AND key = $2",
                )
                .await?;
            let row = tx.query_opt(&st, &[&scope, &key.as_str()]).await?;
            tx.rollback().await?;
            let Some(row) = row else {
                continue; // forgotten by a sweep meanwhile: try again
            };
            let (first, cn, balance): (String, Option<i32>, Option<i64>) =
                (row.get(0), row.get(1), row.get(2));
            if first != print {
                return Err(ChargingError::KeyReused {
                    key: key.to_string(),
                    first,
                    now: print,
                });
            }
            let (Some(cn), Some(balance)) = (cn, balance) else {
                return Err(ChargingError::Storage(format!(
                    "idempotency key `{key}` has no receipt"
                )));
            };
            return Ok(Receipt {
                cn,
                balance,
                replayed: true,
            });
        }
        match PostgresStore::attempt_on(&tx, op, at.reservation_expires_ms, at.issuer.as_deref())
            .await?
        {
            Some(receipt) => {
                let st = tx
                    .prepare_cached(
                        "UPDATE charging_idempotency SET cn = $3::int4, balance = $4::int8
                         WHERE principal = $1 AND key = $2",
                    )
                    .await?;
                tx.execute(&st, &[&scope, &key.as_str(), &receipt.cn, &receipt.balance])
                    .await?;
                tx.commit().await?;
                return Ok(receipt);
            }
            None => {
                tx.rollback().await?;
                drop(client);
                if let Some(why) = store.refusal(op).await? {
                    return Err(why);
                }
            }
        }
    }
    Err(ChargingError::Storage(format!(
        "{} kept conflicting with concurrent operations",
        op.kind()
    )))
}

/// One connection kept for readiness pings (reconnected after a failure).
pub(crate) struct HealthConn {
    config: tokio_postgres::Config,
    client: tokio::sync::Mutex<Option<tokio_postgres::Client>>,
}

impl HealthConn {
    pub(super) fn new(mut config: tokio_postgres::Config) -> Self {
        config.connect_timeout(std::time::Duration::from_secs(1));
        HealthConn {
            config,
            client: tokio::sync::Mutex::new(None),
        }
    }

    /// `SELECT 1` on the health connection, connecting first if needed.
    pub(super) async fn ping(&self) -> Result<(), ChargingError> {
        let mut slot = self.client.lock().await;
        if slot.as_ref().is_none_or(|c| c.is_closed()) {
            let (client, connection) = self.config.connect(NoTls).await?;
            tokio::spawn(async move {
                let _ = connection.await;
            });
            *slot = Some(client);
        }
        let Some(client) = slot.as_ref() else {
            return Err(ChargingError::Storage("no health connection".into()));
        };
        if let Err(e) = client.simple_query("SELECT 1").await {
            *slot = None;
            return Err(e.into());
        }
        Ok(())
    }
}
