//! The embedded store: one SQLite file in WAL mode with `synchronous=FULL` (by default; see
//! [`SqliteSync`]), so a committed transaction has reached the disk before the operation is
//! acknowledged.
//!
//! Why a single writer thread and not a pool of writers: SQLite admits one writer at a time
//! anyway, so a pool would only add `SQLITE_BUSY` retries and lock hand-offs. One thread owns the
//! write connection; requests reach it through a bounded channel (back-pressure, not an
//! unbounded queue). It commits in groups: the operations queued while it was busy run in one
//! `BEGIN IMMEDIATE` transaction, each inside its own savepoint (whole or not at all; a refused
//! one is rolled back alone), and one `COMMIT` — one fsync, ~6 ms on the CI disks — makes the
//! group durable before any of them is answered. A lone request waits for nothing; under
//! concurrent load the fsync is shared instead of serializing every client behind its own.
//! Reads (`creditControl`, ledger look-ups, audits) run on a small pool of read-only
//! connections on tokio's blocking threads: WAL lets them read the last committed state while
//! the writer works.
//!
//! Must never: acknowledge before `COMMIT` returned, or run blocking SQLite calls on an async
//! worker thread.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use rusqlite::{params, Connection, OpenFlags, OptionalExtension, TransactionBehavior};
use tokio::sync::{mpsc, oneshot};

use super::once::{now_ms, Applied, Swept, SWEEP_BATCH};
use super::sqlite_once;
use super::{
    check_open, cn_to_i32, Audit, BoxFuture, ChargingError, Op, Receipt, ResState, SeedConfig,
    Store, TxKind, TxRecord, MAX_BALANCE,
};

/// Requests the writer may have queued before senders wait.
const QUEUE: usize = 1024;
/// Most operations committed together (group commit).
const MAX_BATCH: usize = 256;
/// Idle read connections kept.
const MAX_IDLE_READERS: usize = 8;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS accounts (
    id INTEGER PRIMARY KEY,
    initial INTEGER NOT NULL,
    balance INTEGER NOT NULL CHECK (balance >= 0)
);
CREATE TABLE IF NOT EXISTS transactions (
    cn INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL,
    account INTEGER NOT NULL,
    amount INTEGER NOT NULL,
    delta INTEGER NOT NULL,
    res INTEGER,
    confirmed INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS reservations (
    res INTEGER PRIMARY KEY,
    account INTEGER NOT NULL,
    amount INTEGER NOT NULL,
    state INTEGER NOT NULL
);
INSERT OR IGNORE INTO meta (key, value) VALUES ('schema', '1');
";

/// Migration step: who issued each ledger entry (issue 11). Old entries keep `NULL`.
fn migrate_issuer(conn: &Connection) -> Result<(), ChargingError> {
    let has: bool = conn.query_row(
        "SELECT count(*) FROM pragma_table_info('transactions') WHERE name = 'issuer'",
        [],
        |r| r.get::<_, i64>(0).map(|n| n > 0),
    )?;
    if !has {
        conn.execute_batch("ALTER TABLE transactions ADD COLUMN issuer TEXT")?;
    }
    Ok(())
}

enum Job {
    Apply(Op, Applied, oneshot::Sender<Result<Receipt, ChargingError>>),
    Confirm(i32, oneshot::Sender<Result<(), ChargingError>>),
    /// `(now_ms, keys_before_ms)`: see [`Store::sweep`].
    Sweep(i64, i64, oneshot::Sender<Result<Swept, ChargingError>>),
}

/// The SQLite [`Store`].
pub struct SqliteStore {
    path: PathBuf,
    jobs: Option<mpsc::Sender<Job>>,
    writer: Option<JoinHandle<()>>,
    readers: Arc<Mutex<Vec<Connection>>>,
}

impl std::fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteStore")
            .field("path", &self.path)
            .finish()
    }
}

/// How SQLite makes a commit durable (`PRAGMA synchronous` in WAL mode).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum SqliteSync {
    /// `FULL`: the WAL is fsynced at every commit; an acknowledged operation survives a crash
    /// of the process, of the OS and a power loss. The default.
    #[default]
    Full,
    /// `NORMAL`: the WAL is fsynced at checkpoints only; an acknowledged operation survives a
    /// crash of the process (SIGKILL), but the last ones may roll back on an OS crash or power
    /// loss. For measuring the protocol without the disk's fsync (~6 ms here) in every write.
    Normal,
}

impl SqliteStore {
    /// Opens (creating if needed) the store at `path` with [`SqliteSync::Full`], and seeds it
    /// when it has no account. Blocking: call it from a blocking context or use
    /// [`SqliteStore::open_async`].
    pub fn open(path: impl AsRef<Path>, seed: &SeedConfig) -> Result<Self, ChargingError> {
        SqliteStore::open_with(path, seed, SqliteSync::Full)
    }

    /// [`SqliteStore::open`] with a choice of durability.
    pub fn open_with(
        path: impl AsRef<Path>,
        seed: &SeedConfig,
        sync: SqliteSync,
    ) -> Result<Self, ChargingError> {
        let path = path.as_ref().to_path_buf();
        let mut conn = Connection::open(&path).map_err(|e| {
            ChargingError::Storage(format!("cannot open `{}`: {e}", path.display()))
        })?;
        let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(ChargingError::Storage(format!(
                "`{}` cannot use WAL (journal mode `{mode}`)",
                path.display()
            )));
        }
        conn.execute_batch(match sync {
            SqliteSync::Full => "PRAGMA synchronous = FULL; PRAGMA busy_timeout = 5000;",
            SqliteSync::Normal => "PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000;",
        })?;
        conn.execute_batch(SCHEMA)?;
        migrate_issuer(&conn)?;
        sqlite_once::migrate(&mut conn)?;
        seed_if_empty(&mut conn, seed)?;
        let (tx, rx) = mpsc::channel(QUEUE);
        let writer = std::thread::Builder::new()
            .name("charging-sqlite-writer".into())
            .spawn(move || writer_loop(conn, rx))
            .map_err(|e| ChargingError::Storage(format!("cannot start the writer thread: {e}")))?;
        Ok(SqliteStore {
            path,
            jobs: Some(tx),
            writer: Some(writer),
            readers: Arc::new(Mutex::new(Vec::new())),
        })
    }

    /// [`SqliteStore::open`] on a blocking thread.
    pub async fn open_async(
        path: impl AsRef<Path>,
        seed: &SeedConfig,
    ) -> Result<Self, ChargingError> {
        SqliteStore::open_async_with(path, seed, SqliteSync::Full).await
    }

    /// [`SqliteStore::open_with`] on a blocking thread.
    pub async fn open_async_with(
        path: impl AsRef<Path>,
        seed: &SeedConfig,
        sync: SqliteSync,
    ) -> Result<Self, ChargingError> {
        let (path, seed) = (path.as_ref().to_path_buf(), seed.clone());
        tokio::task::spawn_blocking(move || SqliteStore::open_with(path, &seed, sync))
            .await
            .map_err(|e| ChargingError::Storage(format!("open task failed: {e}")))?
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    async fn send<T>(
        &self,
        make: impl FnOnce(oneshot::Sender<Result<T, ChargingError>>) -> Job,
    ) -> Result<T, ChargingError> {
        let (tx, rx) = oneshot::channel();
        let jobs = self
            .jobs
            .as_ref()
            .ok_or_else(|| ChargingError::Storage("store is closed".into()))?;
        jobs.send(make(tx))
            .await
            .map_err(|_| ChargingError::Storage("the writer thread stopped".into()))?;
        rx.await
            .map_err(|_| ChargingError::Storage("the writer thread stopped".into()))?
    }

    async fn read<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Connection) -> Result<T, ChargingError> + Send + 'static,
    ) -> Result<T, ChargingError> {
        let (pool, path) = (self.readers.clone(), self.path.clone());
        tokio::task::spawn_blocking(move || {
            let idle = pool.lock().unwrap_or_else(|p| p.into_inner()).pop();
            let conn = match idle {
                Some(c) => c,
                None => Connection::open_with_flags(
                    &path,
                    OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
                )?,
            };
            let out = f(&conn);
            let mut idle = pool.lock().unwrap_or_else(|p| p.into_inner());
            if idle.len() < MAX_IDLE_READERS {
                idle.push(conn);
            }
            out
        })
        .await
        .map_err(|e| ChargingError::Storage(format!("read task failed: {e}")))?
    }
}

impl Drop for SqliteStore {
    fn drop(&mut self) {
        // Closing the channel ends the writer loop after the job in hand; joining lets its
        // connection close (and checkpoint) before the process goes on.
        self.jobs.take();
        if let Some(w) = self.writer.take() {
            let _ = w.join();
        }
    }
}

impl Store for SqliteStore {
    fn apply_with(&self, op: Op, at: Applied) -> BoxFuture<'_, Result<Receipt, ChargingError>> {
        Box::pin(self.send(move |tx| Job::Apply(op, at, tx)))
    }

    fn sweep(
        &self,
        now_ms: i64,
        keys_before_ms: i64,
    ) -> BoxFuture<'_, Result<Swept, ChargingError>> {
        Box::pin(self.send(move |tx| Job::Sweep(now_ms, keys_before_ms, tx)))
    }

    fn ping(&self) -> BoxFuture<'_, Result<(), ChargingError>> {
        Box::pin(async move {
            if self.jobs.as_ref().is_none_or(|j| j.is_closed()) {
                return Err(ChargingError::Storage("the writer thread stopped".into()));
            }
            self.read(|c| Ok(c.query_row("SELECT count(*) FROM meta", [], |r| r.get::<_, i64>(0))?))
                .await
                .map(drop)
        })
    }

    fn confirm(&self, cn: i32) -> BoxFuture<'_, Result<(), ChargingError>> {
        Box::pin(self.send(move |tx| Job::Confirm(cn, tx)))
    }

    fn balance(&self, id: i32) -> BoxFuture<'_, Result<i64, ChargingError>> {
        Box::pin(self.read(move |c| balance_of(c, id)))
    }

    fn transaction(&self, cn: i32) -> BoxFuture<'_, Result<Option<TxRecord>, ChargingError>> {
        Box::pin(self.read(move |c| {
            let row = c
                .prepare_cached("SELECT kind, account, amount, delta, res, confirmed, issuer FROM transactions WHERE cn = ?1")?
                .query_row([cn], |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        r.get::<_, i32>(1)?,
                        r.get::<_, i64>(2)?,
                        r.get::<_, i64>(3)?,
                        r.get::<_, Option<i32>>(4)?,
                        r.get::<_, bool>(5)?,
                        r.get::<_, Option<String>>(6)?,
                    ))
                })
                .optional()?;
            row.map(|(kind, account, amount, delta, res, confirmed, issuer)| {
                let kind = TxKind::parse(&kind)
                    .ok_or_else(|| ChargingError::Storage(format!("unknown ledger kind `{kind}` at `{cn}`")))?;
                Ok(TxRecord { cn, kind, account, amount, delta, res, confirmed, issuer })
            })
            .transpose()
        }))
    }

    fn audit(&self) -> BoxFuture<'_, Result<Audit, ChargingError>> {
        Box::pin(self.read(audit))
    }

    fn describe(&self) -> String {
        format!("sqlite:{}", self.path.display())
    }
}

fn seed_if_empty(conn: &mut Connection, seed: &SeedConfig) -> Result<(), ChargingError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let n: i64 = tx.query_row("SELECT count(*) FROM accounts", [], |r| r.get(0))?;
    if n == 0 {
        {
            let mut ins =
                tx.prepare("INSERT INTO accounts (id, initial, balance) VALUES (?1, ?2, ?2)")?;
            for (id, balance) in seed.accounts() {
                ins.execute(params![id, balance])?;
            }
        }
        tx.execute(
            "INSERT OR REPLACE INTO meta (key, value) VALUES ('seed', ?1)",
            [format!("accounts={} seed={}", seed.accounts, seed.seed)],
        )?;
    }
    tx.commit()?;
    Ok(())
}

fn writer_loop(mut conn: Connection, mut jobs: mpsc::Receiver<Job>) {
    let mut batch = Vec::with_capacity(MAX_BATCH);
    while let Some(first) = jobs.blocking_recv() {
        batch.push(first);
        while batch.len() < MAX_BATCH {
            match jobs.try_recv() {
                Ok(job) => batch.push(job),
                Err(_) => break,
            }
        }
        run_batch(&mut conn, &mut batch);
    }
}

/// What a job answers, kept until the batch is committed.
enum Answer {
    Apply(
        oneshot::Sender<Result<Receipt, ChargingError>>,
        Result<Receipt, ChargingError>,
    ),
    Confirm(
        oneshot::Sender<Result<(), ChargingError>>,
        Result<(), ChargingError>,
    ),
    Sweep(
        oneshot::Sender<Result<Swept, ChargingError>>,
        Result<Swept, ChargingError>,
    ),
}

/// Group commit: the jobs waiting in the queue run in one transaction, each inside its own
/// savepoint (so each is whole or not at all: a refused or failed one is rolled back alone),
/// and one `COMMIT` (one fsync) makes them all durable. Only then are they answered; if the
/// commit fails, every job in the batch is answered with the error and none happened. A lone
/// request waits for nothing: the batch is whatever is queued when the writer is free.
fn run_batch(conn: &mut Connection, batch: &mut Vec<Job>) {
    let mut jobs = std::mem::take(batch).into_iter();
    let mut answers = Vec::with_capacity(jobs.len());
    let committed = (|| -> Result<(), ChargingError> {
        let mut tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        // Reservations whose time ran out are released before anything else in the batch, so
        // none is debited after its expiry even between two sweeps (the check at use).
        let mut expired = sqlite_once::expire_due(&tx, now_ms(), SWEEP_BATCH)?;
        for job in jobs.by_ref() {
            let sp = tx.savepoint()?;
            answers.push(match job {
                Job::Apply(op, at, reply) => {
                    let issuer = at.issuer.clone();
                    let r = sqlite_once::apply_keyed(&sp, op, &at, |c, op| {
                        apply(c, op)
                            .and_then(|receipt| record_issuer(c, receipt, issuer.as_deref()))
                    })
                    .and_then(|receipt| Ok(sp.commit().map(|()| receipt)?));
                    Answer::Apply(reply, r)
                }
                Job::Sweep(now, keys_before, reply) => {
                    let r = sqlite_once::sweep(&sp, now, keys_before)
                        .map(|mut s| {
                            s.expired_reservations += std::mem::take(&mut expired);
                            s
                        })
                        .and_then(|s| Ok(sp.commit().map(|()| s)?));
                    Answer::Sweep(reply, r)
                }
                Job::Confirm(cn, reply) => {
                    let r = confirm(&sp, cn).and_then(|()| Ok(sp.commit()?));
                    Answer::Confirm(reply, r)
                }
            });
        }
        tx.commit()?;
        Ok(())
    })();
    // A dropped receiver (the client went away) does not undo a committed operation:
    // unacknowledged operations may or may not have happened, acknowledged ones have.
    for answer in answers {
        match (answer, &committed) {
            (Answer::Apply(reply, r), Ok(())) => drop(reply.send(r)),
            (Answer::Confirm(reply, r), Ok(())) => drop(reply.send(r)),
            (Answer::Sweep(reply, r), Ok(())) => drop(reply.send(r)),
            (Answer::Apply(reply, _), Err(e)) => drop(reply.send(Err(e.clone()))),
            (Answer::Confirm(reply, _), Err(e)) => drop(reply.send(Err(e.clone()))),
            (Answer::Sweep(reply, _), Err(e)) => drop(reply.send(Err(e.clone()))),
        }
    }
    // Jobs never reached (the transaction or a savepoint could not start) get the error too.
    if let Err(e) = &committed {
        for job in jobs {
            match job {
                Job::Apply(_, _, reply) => drop(reply.send(Err(e.clone()))),
                Job::Confirm(_, reply) => drop(reply.send(Err(e.clone()))),
                Job::Sweep(_, _, reply) => drop(reply.send(Err(e.clone()))),
            }
        }
    }
}

/// Writes who issued the entry `receipt` names, in the operation's own savepoint.
fn record_issuer(
    c: &Connection,
    receipt: Receipt,
    issuer: Option<&str>,
) -> Result<Receipt, ChargingError> {
    if let Some(issuer) = issuer {
        c.prepare_cached("UPDATE transactions SET issuer = ?2 WHERE cn = ?1")?
            .execute(params![receipt.cn, issuer])?;
    }
    Ok(receipt)
}

pub(super) fn balance_of(c: &Connection, id: i32) -> Result<i64, ChargingError> {
    c.prepare_cached("SELECT balance FROM accounts WHERE id = ?1")?
        .query_row([id], |r| r.get(0))
        .optional()?
        .ok_or(ChargingError::UnknownAccount(id))
}

pub(super) fn set_balance(c: &Connection, id: i32, balance: i64) -> Result<(), ChargingError> {
    c.prepare_cached("UPDATE accounts SET balance = ?2 WHERE id = ?1")?
        .execute(params![id, balance])?;
    Ok(())
}

pub(super) fn ledger(
    c: &Connection,
    kind: TxKind,
    account: i32,
    amount: i64,
    delta: i64,
    res: Option<i32>,
) -> Result<i32, ChargingError> {
    c.prepare_cached(
        "INSERT INTO transactions (kind, account, amount, delta, res) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![kind.as_str(), account, amount, delta, res])?;
    cn_to_i32(c.last_insert_rowid())
}

fn reservation(c: &Connection, res: i32) -> Result<(i32, i64, ResState), ChargingError> {
    let (account, amount, state) = c
        .prepare_cached("SELECT account, amount, state FROM reservations WHERE res = ?1")?
        .query_row([res], |r| {
            Ok((
                r.get::<_, i32>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, i32>(2)?,
            ))
        })
        .optional()?
        .ok_or(ChargingError::UnknownReservation(res))?;
    let state = ResState::from_code(state).ok_or_else(|| {
        ChargingError::Storage(format!("reservation `{res}` has unknown state `{state}`"))
    })?;
    Ok((account, amount, state))
}

pub(super) fn close_reservation(
    c: &Connection,
    res: i32,
    state: ResState,
) -> Result<(), ChargingError> {
    c.prepare_cached("UPDATE reservations SET state = ?2 WHERE res = ?1")?
        .execute(params![res, state.code()])?;
    Ok(())
}

/// Takes `am` from `id`'s balance, or says why not.
fn withdraw(c: &Connection, id: i32, am: i32) -> Result<i64, ChargingError> {
    let balance = balance_of(c, id)?;
    if balance < i64::from(am) {
        return Err(ChargingError::InsufficientFunds {
            account: id,
            balance,
            requested: am,
        });
    }
    let new = balance - i64::from(am);
    set_balance(c, id, new)?;
    Ok(new)
}

/// Applies `op` on `tx` (a savepoint of the batch's transaction); refusals change nothing.
pub(super) fn apply(tx: &Connection, op: Op) -> Result<Receipt, ChargingError> {
    op.validate()?;
    let kind = op.kind();
    let receipt = match op {
        Op::Credit { id, am } => {
            let balance = balance_of(tx, id)?;
            let new = balance + i64::from(am);
            if new > MAX_BALANCE {
                return Err(ChargingError::BalanceOverflow { account: id, am });
            }
            set_balance(tx, id, new)?;
            Receipt {
                cn: ledger(tx, kind, id, am.into(), am.into(), None)?,
                balance: new,
                replayed: false,
            }
        }
        Op::DirectDebit { id, am } => {
            let new = withdraw(tx, id, am)?;
            Receipt {
                cn: ledger(tx, kind, id, am.into(), -i64::from(am), None)?,
                balance: new,
                replayed: false,
            }
        }
        Op::Reserve { id, am } => {
            let new = withdraw(tx, id, am)?;
            let cn = ledger(tx, kind, id, am.into(), -i64::from(am), None)?;
            tx.prepare_cached(
                "INSERT INTO reservations (res, account, amount, state) VALUES (?1, ?2, ?3, 0)",
            )?
            .execute(params![cn, id, am])?;
            Receipt {
                cn,
                balance: new,
                replayed: false,
            }
        }
        Op::DebitReservation { id, am, res } => {
            let (owner, reserved, state) = reservation(tx, res)?;
            check_open(res, state)?;
            if owner != id {
                return Err(ChargingError::WrongAccount {
                    res,
                    owner,
                    account: id,
                });
            }
            if i64::from(am) > reserved {
                return Err(ChargingError::ExceedsReservation { res, reserved, am });
            }
            let refund = reserved - i64::from(am);
            let new = balance_of(tx, owner)? + refund;
            set_balance(tx, owner, new)?;
            close_reservation(tx, res, ResState::Debited)?;
            Receipt {
                cn: ledger(tx, kind, owner, am.into(), refund, Some(res))?,
                balance: new,
                replayed: false,
            }
        }
        Op::Release { res } => {
            let (owner, reserved, state) = reservation(tx, res)?;
            check_open(res, state)?;
            let new = balance_of(tx, owner)? + reserved;
            set_balance(tx, owner, new)?;
            close_reservation(tx, res, ResState::Released)?;
            Receipt {
                cn: ledger(tx, kind, owner, reserved, reserved, Some(res))?,
                balance: new,
                replayed: false,
            }
        }
    };
    Ok(receipt)
}

fn confirm(conn: &Connection, cn: i32) -> Result<(), ChargingError> {
    let changed = conn
        .prepare_cached("UPDATE transactions SET confirmed = 1 WHERE cn = ?1 AND confirmed = 0")?
        .execute([cn])?;
    if changed == 0 {
        let exists: Option<i64> = conn
            .prepare_cached("SELECT cn FROM transactions WHERE cn = ?1")?
            .query_row([cn], |r| r.get(0))
            .optional()?;
        if exists.is_none() {
            return Err(ChargingError::UnknownTransaction(cn));
        }
    }
    Ok(())
}

fn audit(c: &Connection) -> Result<Audit, ChargingError> {
    // One read transaction so that every query sees the same snapshot.
    c.execute_batch("BEGIN")?;
    let out = audit_in_snapshot(c);
    c.execute_batch("COMMIT")?;
    out
}

fn audit_in_snapshot(c: &Connection) -> Result<Audit, ChargingError> {
    let mut audit = Audit {
        accounts: c.query_row("SELECT count(*) FROM accounts", [], |r| r.get::<_, i64>(0))? as u64,
        transactions: c.query_row("SELECT count(*) FROM transactions", [], |r| {
            r.get::<_, i64>(0)
        })? as u64,
        ..Audit::default()
    };
    let mut st = c.prepare(
        "SELECT a.id, a.balance, a.initial + COALESCE(t.sum, 0)
         FROM accounts a LEFT JOIN (SELECT account, sum(delta) AS sum FROM transactions GROUP BY account) t
         ON t.account = a.id
         WHERE a.balance != a.initial + COALESCE(t.sum, 0) OR a.balance < 0
         ORDER BY a.id",
    )?;
    let rows = st.query_map([], |r| {
        Ok((
            r.get::<_, i32>(0)?,
            r.get::<_, i64>(1)?,
            r.get::<_, i64>(2)?,
        ))
    })?;
    for row in rows {
        let (id, balance, expected) = row?;
        if balance != expected {
            audit.mismatched.push((id, balance, expected));
        }
        if balance < 0 {
            audit.negative.push(id);
        }
    }
    let mut st = c.prepare(
        "SELECT r.res FROM reservations r
         LEFT JOIN transactions t ON t.cn = r.res
         LEFT JOIN (SELECT res, count(*) AS n FROM transactions
                    WHERE kind IN ('debitReservation', 'releaseRes', 'expireRes') GROUP BY res) c ON c.res = r.res
         WHERE t.cn IS NULL OR t.kind != 'reserve' OR t.account != r.account OR t.amount != r.amount
            OR COALESCE(c.n, 0) != (CASE r.state WHEN 0 THEN 0 ELSE 1 END)
         ORDER BY r.res",
    )?;
    for row in st.query_map([], |r| r.get::<_, i32>(0))? {
        audit.inconsistent_reservations.push(row?);
    }
    Ok(audit)
}
