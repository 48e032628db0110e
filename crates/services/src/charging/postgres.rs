//! The charging store on a PostgreSQL server (`--db postgres://...`).
//!
//! Every operation is ONE statement: a chain of data-modifying CTEs whose first step is a
//! conditional `UPDATE ... WHERE balance >= am` (or `WHERE state = open`). A single statement
//! is its own transaction, the `UPDATE` takes the row lock, and under READ COMMITTED a waiting
//! `UPDATE` re-checks its `WHERE` against the row its competitor committed, so two debits can
//! never both pass on a balance that only covers one. One round trip per operation; the commit
//! is durable with PostgreSQL's default `synchronous_commit = on`. When the statement changes
//! nothing, a second read says precisely why (and the operation is retried if a concurrent
//! credit made it possible meanwhile). Connections come from a `deadpool-postgres` pool with
//! per-connection prepared statements.
//!
//! Must never: split one operation over several transactions, or report a stale reason.

use std::str::FromStr;

use deadpool_postgres::{GenericClient, Manager, Pool};
use tokio_postgres::types::ToSql;
use tokio_postgres::NoTls;

use super::once::{Applied, Swept};
use super::postgres_once;
use super::{
    check_open, Audit, BoxFuture, ChargingError, Op, Receipt, ResState, SeedConfig, Store, TxKind,
    TxRecord,
};

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS charging_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS charging_accounts (
    id INTEGER PRIMARY KEY,
    initial BIGINT NOT NULL,
    balance BIGINT NOT NULL CHECK (balance >= 0)
);
CREATE TABLE IF NOT EXISTS charging_transactions (
    cn INTEGER GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind TEXT NOT NULL,
    account INTEGER NOT NULL,
    amount BIGINT NOT NULL,
    delta BIGINT NOT NULL,
    res INTEGER,
    confirmed BOOLEAN NOT NULL DEFAULT false
);
CREATE TABLE IF NOT EXISTS charging_reservations (
    res INTEGER PRIMARY KEY,
    account INTEGER NOT NULL,
    amount BIGINT NOT NULL,
    state INTEGER NOT NULL
);
INSERT INTO charging_meta (key, value) VALUES ('schema', '1') ON CONFLICT DO NOTHING;
";

/// Migration step: who issued each ledger entry (issue 11). Old entries keep `NULL`.
const MIGRATE_ISSUER: &str =
    "ALTER TABLE charging_transactions ADD COLUMN IF NOT EXISTS issuer TEXT;";

const CREDIT: &str = "
WITH a AS (UPDATE charging_accounts SET balance = balance + $2::int4
           WHERE id = $1::int4 AND balance + $2::int4 <= 2147483647 RETURNING id, balance),
     t AS (INSERT INTO charging_transactions (kind, account, amount, delta, issuer)
           SELECT 'credit', id, $2::int4, $2::int4, $3::text FROM a RETURNING cn)
SELECT t.cn, a.balance FROM t, a";

const DEBIT: &str = "
WITH a AS (UPDATE charging_accounts SET balance = balance - $2::int4
           WHERE id = $1::int4 AND balance >= $2::int4 RETURNING id, balance),
     t AS (INSERT INTO charging_transactions (kind, account, amount, delta, issuer)
           SELECT 'directDebit', id, $2::int4, -$2::int4, $3::text FROM a RETURNING cn)
SELECT t.cn, a.balance FROM t, a";

const RESERVE: &str = "
WITH a AS (UPDATE charging_accounts SET balance = balance - $2::int4
           WHERE id = $1::int4 AND balance >= $2::int4 RETURNING id, balance),
     t AS (INSERT INTO charging_transactions (kind, account, amount, delta, issuer)
           SELECT 'reserve', id, $2::int4, -$2::int4, $4::text FROM a RETURNING cn, account, amount),
     r AS (INSERT INTO charging_reservations (res, account, amount, state, expires)
           SELECT cn, account, amount, 0, $3::int8 FROM t RETURNING res)
SELECT r.res, a.balance FROM r, a";

const DEBIT_RESERVATION: &str = "
WITH r AS (UPDATE charging_reservations SET state = 1
           WHERE res = $3::int4 AND state = 0 AND account = $1::int4 AND amount >= $2::int4
           RETURNING res, account, amount),
     a AS (UPDATE charging_accounts SET balance = balance + r.amount - $2::int4
           FROM r WHERE id = r.account RETURNING balance),
     t AS (INSERT INTO charging_transactions (kind, account, amount, delta, res, issuer)
           SELECT 'debitReservation', account, $2::int4, amount - $2::int4, res, $4::text FROM r RETURNING cn)
SELECT t.cn, a.balance FROM t, a";

const RELEASE: &str = "
WITH r AS (UPDATE charging_reservations SET state = 2
           WHERE res = $1::int4 AND state = 0 RETURNING res, account, amount),
     a AS (UPDATE charging_accounts SET balance = balance + r.amount
           FROM r WHERE id = r.account RETURNING balance),
     t AS (INSERT INTO charging_transactions (kind, account, amount, delta, res, issuer)
           SELECT 'releaseRes', account, amount, amount, res, $2::text FROM r RETURNING cn)
SELECT t.cn, a.balance FROM t, a";

/// How often an operation is retried when a concurrent change made a refused operation possible
/// between the attempt and the read that explains the refusal.
pub(super) const RETRIES: usize = 8;

/// The PostgreSQL [`Store`].
pub struct PostgresStore {
    pub(super) pool: Pool,
    describe: String,
    /// Readiness pings go over their own connection, so that they say whether PostgreSQL
    /// answers, not whether the pool has a connection free under load.
    pub(super) health: postgres_once::HealthConn,
}

impl std::fmt::Debug for PostgresStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresStore")
            .field("db", &self.describe)
            .finish()
    }
}

pub(super) fn pool_err(e: deadpool_postgres::PoolError) -> ChargingError {
    ChargingError::Storage(format!("postgresql pool: {e}"))
}

impl PostgresStore {
    /// Connects to `url` (`postgres://user@host:port/db`), creates the tables if needed and seeds
    /// the accounts when there is none. `max_connections` bounds the pool.
    pub async fn connect(
        url: &str,
        seed: &SeedConfig,
        max_connections: usize,
    ) -> Result<Self, ChargingError> {
        let config = tokio_postgres::Config::from_str(url)
            .map_err(|e| ChargingError::Storage(format!("bad postgresql url `{url}`: {e}")))?;
        let describe = describe(&config);
        let health = postgres_once::HealthConn::new(config.clone());
        let pool = Pool::builder(Manager::new(config, NoTls))
            .max_size(max_connections.max(1))
            .build()
            .map_err(|e| ChargingError::Storage(format!("postgresql pool: {e}")))?;
        let store = PostgresStore {
            pool,
            describe,
            health,
        };
        store.init(seed).await?;
        Ok(store)
    }

    async fn init(&self, seed: &SeedConfig) -> Result<(), ChargingError> {
        let mut client = self.pool.get().await.map_err(pool_err)?;
        let tx = client.transaction().await?;
        // Two servers starting on one empty database must not both seed it.
        tx.execute("SELECT pg_advisory_xact_lock(7907223472)", &[])
            .await?;
        tx.batch_execute(SCHEMA).await?;
        tx.batch_execute(MIGRATE_ISSUER).await?;
        postgres_once::migrate(&tx).await?;
        let n: i64 = tx
            .query_one("SELECT count(*) FROM charging_accounts", &[])
            .await?
            .get(0);
        if n == 0 {
            let (ids, balances): (Vec<i32>, Vec<i64>) = seed.accounts().unzip();
            tx.execute(
                "INSERT INTO charging_accounts (id, initial, balance)
                 SELECT * FROM unnest($1::int4[], $2::int8[], $2::int8[])",
                &[&ids, &balances],
            )
            .await?;
            tx.execute(
                "INSERT INTO charging_meta (key, value) VALUES ('seed', $1)
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                &[&format!("accounts={} seed={}", seed.accounts, seed.seed)],
            )
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// One try of `op` on `client` (a pooled connection or a transaction); `None` when its
    /// condition did not hold and nothing changed. `expires`: a reservation's expiry;
    /// `issuer`: who issued the entry (the principal's name).
    pub(super) async fn attempt_on(
        client: &impl GenericClient,
        op: Op,
        expires: Option<i64>,
        issuer: Option<&str>,
    ) -> Result<Option<Receipt>, ChargingError> {
        let (sql, params): (&str, Vec<i32>) = match op {
            Op::Credit { id, am } => (CREDIT, vec![id, am]),
            Op::DirectDebit { id, am } => (DEBIT, vec![id, am]),
            Op::Reserve { id, am } => (RESERVE, vec![id, am]),
            Op::DebitReservation { id, am, res } => (DEBIT_RESERVATION, vec![id, am, res]),
            Op::Release { res } => (RELEASE, vec![res]),
        };
        let st = client.prepare_cached(sql).await?;
        let mut refs: Vec<&(dyn ToSql + Sync)> =
            params.iter().map(|p| p as &(dyn ToSql + Sync)).collect();
        if matches!(op, Op::Reserve { .. }) {
            refs.push(&expires);
        }
        // The last parameter of every statement: who issued the entry.
        refs.push(&issuer);
        let row = client.query_opt(&st, &refs).await?;
        Ok(row.map(|r| Receipt {
            cn: r.get::<_, i32>(0),
            balance: r.get::<_, i64>(1),
            replayed: false,
        }))
    }

    /// Why `op` changed nothing; `None` when it would now succeed (retry).
    pub(super) async fn refusal(&self, op: Op) -> Result<Option<ChargingError>, ChargingError> {
        let client = self.pool.get().await.map_err(pool_err)?;
        let balance = |id: i32| {
            let client = &client;
            async move {
                let st = client
                    .prepare_cached("SELECT balance FROM charging_accounts WHERE id = $1::int4")
                    .await?;
                client
                    .query_opt(&st, &[&id])
                    .await?
                    .map(|r| r.get::<_, i64>(0))
                    .ok_or(ChargingError::UnknownAccount(id))
            }
        };
        let reservation = |res: i32| {
            let client = &client;
            async move {
                let st = client
                    .prepare_cached("SELECT account, amount, state FROM charging_reservations WHERE res = $1::int4")
                    .await?;
                let row = client
                    .query_opt(&st, &[&res])
                    .await?
                    .ok_or(ChargingError::UnknownReservation(res))?;
                let state = row.get::<_, i32>(2);
                let state = ResState::from_code(state).ok_or_else(|| {
                    ChargingError::Storage(format!(
                        "reservation `{res}` has unknown state `{state}`"
                    ))
                })?;
                Ok::<_, ChargingError>((row.get::<_, i32>(0), row.get::<_, i64>(1), state))
            }
        };
        Ok(match op {
            Op::Credit { id, am } => match balance(id).await {
                Err(e) => Some(e),
                Ok(b) if b + i64::from(am) > super::MAX_BALANCE => {
                    Some(ChargingError::BalanceOverflow { account: id, am })
                }
                Ok(_) => None,
            },
            Op::DirectDebit { id, am } | Op::Reserve { id, am } => match balance(id).await {
                Err(e) => Some(e),
                Ok(b) if b < i64::from(am) => Some(ChargingError::InsufficientFunds {
                    account: id,
                    balance: b,
                    requested: am,
                }),
                Ok(_) => None,
            },
            // Reservations only ever go from open to closed, and their owner and amount never
            // change, so this explanation cannot be stale.
            Op::DebitReservation { id, am, res } => match reservation(res).await {
                Err(e) => Some(e),
                Ok((owner, reserved, state)) => Some(match check_open(res, state) {
                    Err(e) => e,
                    Ok(()) if owner != id => ChargingError::WrongAccount {
                        res,
                        owner,
                        account: id,
                    },
                    Ok(()) if i64::from(am) > reserved => {
                        ChargingError::ExceedsReservation { res, reserved, am }
                    }
                    Ok(()) => return Ok(None),
                }),
            },
            Op::Release { res } => match reservation(res).await {
                Err(e) => Some(e),
                Ok((_, _, state)) => check_open(res, state).err(),
            },
        })
    }
}

fn describe(config: &tokio_postgres::Config) -> String {
    use tokio_postgres::config::Host;
    let host = match config.get_hosts().first() {
        Some(Host::Tcp(h)) => h.clone(),
        Some(Host::Unix(p)) => p.display().to_string(),
        None => "localhost".into(),
    };
    let port = config.get_ports().first().copied().unwrap_or(5432);
    format!(
        "postgresql:{host}:{port}/{}",
        config.get_dbname().unwrap_or("")
    )
}

impl Store for PostgresStore {
    fn apply_with(&self, op: Op, at: Applied) -> BoxFuture<'_, Result<Receipt, ChargingError>> {
        Box::pin(async move {
            op.validate()?;
            postgres_once::expire_before_use(self, op, &at).await?;
            if at.key.is_some() {
                return postgres_once::apply_keyed(self, op, &at).await;
            }
            for _ in 0..RETRIES {
                let client = self.pool.get().await.map_err(pool_err)?;
                if let Some(receipt) =
                    Self::attempt_on(&client, op, at.reservation_expires_ms, at.issuer.as_deref())
                        .await?
                {
                    return Ok(receipt);
                }
                drop(client);
                if let Some(why) = self.refusal(op).await? {
                    return Err(why);
                }
            }
            Err(ChargingError::Storage(format!(
                "{} kept conflicting with concurrent operations",
                op.kind()
            )))
        })
    }

    fn sweep(
        &self,
        now_ms: i64,
        keys_before_ms: i64,
    ) -> BoxFuture<'_, Result<Swept, ChargingError>> {
        Box::pin(postgres_once::sweep(self, now_ms, keys_before_ms))
    }

    fn ping(&self) -> BoxFuture<'_, Result<(), ChargingError>> {
        Box::pin(self.health.ping())
    }

    fn confirm(&self, cn: i32) -> BoxFuture<'_, Result<(), ChargingError>> {
        Box::pin(async move {
            let client = self.pool.get().await.map_err(pool_err)?;
            let st = client
                .prepare_cached(
                    "WITH u AS (UPDATE charging_transactions SET confirmed = true
                                WHERE cn = $1::int4 AND NOT confirmed RETURNING cn)
                     SELECT EXISTS (SELECT 1 FROM u) OR EXISTS (SELECT 1 FROM charging_transactions WHERE cn = $1::int4)",
                )
                .await?;
            let known: bool = client.query_one(&st, &[&cn]).await?.get(0);
            if known {
                Ok(())
            } else {
                Err(ChargingError::UnknownTransaction(cn))
            }
        })
    }

    fn balance(&self, id: i32) -> BoxFuture<'_, Result<i64, ChargingError>> {
        Box::pin(async move {
            let client = self.pool.get().await.map_err(pool_err)?;
            let st = client
                .prepare_cached("SELECT balance FROM charging_accounts WHERE id = $1::int4")
                .await?;
            client
                .query_opt(&st, &[&id])
                .await?
                .map(|r| r.get(0))
                .ok_or(ChargingError::UnknownAccount(id))
        })
    }

    fn transaction(&self, cn: i32) -> BoxFuture<'_, Result<Option<TxRecord>, ChargingError>> {
        Box::pin(async move {
            let client = self.pool.get().await.map_err(pool_err)?;
            let st = client
                .prepare_cached(
                    "SELECT kind, account, amount, delta, res, confirmed, issuer FROM charging_transactions WHERE cn = $1::int4",
                )
                .await?;
            let Some(r) = client.query_opt(&st, &[&cn]).await? else {
                return Ok(None);
            };
            let kind: String = r.get(0);
            let kind = TxKind::parse(&kind).ok_or_else(|| {
                ChargingError::Storage(format!("unknown ledger kind `{kind}` at `{cn}`"))
            })?;
            Ok(Some(TxRecord {
                cn,
                kind,
                account: r.get(1),
                amount: r.get(2),
                delta: r.get(3),
                res: r.get(4),
                confirmed: r.get(5),
                issuer: r.get(6),
            }))
        })
    }

    fn audit(&self) -> BoxFuture<'_, Result<Audit, ChargingError>> {
        Box::pin(async move {
            let mut client = self.pool.get().await.map_err(pool_err)?;
            let tx = client
                .build_transaction()
                .isolation_level(tokio_postgres::IsolationLevel::RepeatableRead)
                .read_only(true)
                .start()
                .await?;
            let count = |n: i64| u64::try_from(n).unwrap_or(0);
            let mut audit = Audit {
                accounts: count(
                    tx.query_one("SELECT count(*) FROM charging_accounts", &[])
                        .await?
                        .get(0),
                ),
                transactions: count(
                    tx.query_one("SELECT count(*) FROM charging_transactions", &[])
                        .await?
                        .get(0),
                ),
                ..Audit::default()
            };
            let rows = tx
                .query(
                    "SELECT a.id, a.balance, a.initial + COALESCE(t.sum, 0)::int8
                     FROM charging_accounts a
                     LEFT JOIN (SELECT account, sum(delta) AS sum FROM charging_transactions GROUP BY account) t
                     ON t.account = a.id
                     WHERE a.balance != a.initial + COALESCE(t.sum, 0) OR a.balance < 0
                     ORDER BY a.id",
                    &[],
                )
                .await?;
            for r in rows {
                let (id, balance, expected): (i32, i64, i64) = (r.get(0), r.get(1), r.get(2));
                if balance != expected {
                    audit.mismatched.push((id, balance, expected));
                }
                if balance < 0 {
                    audit.negative.push(id);
                }
            }
            let rows = tx
                .query(
                    "SELECT r.res FROM charging_reservations r
                     LEFT JOIN charging_transactions t ON t.cn = r.res
                     LEFT JOIN (SELECT res, count(*) AS n FROM charging_transactions
                                WHERE kind IN ('debitReservation', 'releaseRes', 'expireRes') GROUP BY res) c ON c.res = r.res
                     WHERE t.cn IS NULL OR t.kind != 'reserve' OR t.account != r.account OR t.amount != r.amount
                        OR COALESCE(c.n, 0) != (CASE r.state WHEN 0 THEN 0 ELSE 1 END)
                     ORDER BY r.res",
                    &[],
                )
                .await?;
            audit.inconsistent_reservations = rows.iter().map(|r| r.get(0)).collect();
            tx.commit().await?;
            Ok(audit)
        })
    }

    fn describe(&self) -> String {
        self.describe.clone()
    }
}
