//! The charging system of Elfving and Paulsson's thesis (seed 000, appendices B and C): prepaid
//! accounts that are credited, debited directly, or debited through a reservation that holds part
//! of the balance until it is debited or released; every money operation returns a transaction
//! number that the client acknowledges with `confirmAction`.
//!
//! This module holds the domain (operations, outcomes, errors, validation) and the [`Store`]
//! trait; [`sqlite`] and [`postgres`] implement it. The SOAP face is in `service`; idempotency
//! keys and reservation expiry (exactly-once) in [`once`], the clients (keyed by default, and
//! the retrying one) in `client`.
//!
//! Must never: acknowledge an operation before it is durable, apply part of an operation, let a
//! balance go negative, or lose an update under concurrency.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

mod client;
pub mod once;
pub mod postgres;
mod postgres_once;
pub mod seed;
mod service;
pub mod sqlite;
mod sqlite_once;

pub use client::{is_retryable, ChargingClient, KeyedChargingClient, RetryPolicy};
pub use once::{Applied, ChargingPolicy, IdempotencyKey, Swept};
pub use seed::SeedConfig;
/// The client `#[service]` generates for [`Charging`]: one attempt, no idempotency key (see
/// [`ChargingClient`], which sends one by default).
pub use service::ChargingClient as ChargingStub;
pub use service::{charging_model, Charging, ChargingServer, MOVE, NAMESPACE, READ};

/// A boxed, sendable future (stores are used as `Arc<dyn Store>`).
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The largest balance an account may hold: balances travel as `xsd:int`.
pub const MAX_BALANCE: i64 = i32::MAX as i64;

/// One state-changing operation on the accounts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// Deposit `am` on account `id`.
    Credit {
        /// Account.
        id: i32,
        /// Amount, positive.
        am: i32,
    },
    /// Withdraw `am` from account `id` without a reservation.
    DirectDebit {
        /// Account.
        id: i32,
        /// Amount, positive.
        am: i32,
    },
    /// Hold `am` of account `id`'s balance; the reservation's id is the transaction number.
    Reserve {
        /// Account.
        id: i32,
        /// Amount, positive.
        am: i32,
    },
    /// Consume reservation `res` of account `id`, charging `am` (at most the reserved amount);
    /// the rest of the reservation goes back to the balance.
    DebitReservation {
        /// Account that owns the reservation.
        id: i32,
        /// Amount charged, positive, at most the reserved amount.
        am: i32,
        /// Reservation id (the transaction number `reserve` returned).
        res: i32,
    },
    /// Give reservation `res` back to the balance.
    Release {
        /// Reservation id.
        res: i32,
    },
}

impl Op {
    /// The kind written in the ledger.
    pub fn kind(&self) -> TxKind {
        match self {
            Op::Credit { .. } => TxKind::Credit,
            Op::DirectDebit { .. } => TxKind::DirectDebit,
            Op::Reserve { .. } => TxKind::Reserve,
            Op::DebitReservation { .. } => TxKind::DebitReservation,
            Op::Release { .. } => TxKind::Release,
        }
    }

    /// Checks what can be checked without the store: amounts are positive.
    pub fn validate(&self) -> Result<(), ChargingError> {
        match *self {
            Op::Credit { am, .. }
            | Op::DirectDebit { am, .. }
            | Op::Reserve { am, .. }
            | Op::DebitReservation { am, .. }
                if am <= 0 =>
            {
                Err(ChargingError::NonPositiveAmount(am))
            }
            _ => Ok(()),
        }
    }
}

/// The kind of a ledger entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TxKind {
    /// `credit`.
    Credit,
    /// `directDebit`.
    DirectDebit,
    /// `reserve`.
    Reserve,
    /// `debitReservation`.
    DebitReservation,
    /// `releaseRes`.
    Release,
    /// `expireRes`: the store released a reservation whose time ran out.
    Expire,
}

impl TxKind {
    /// The name stored in the ledger.
    pub fn as_str(self) -> &'static str {
        match self {
            TxKind::Credit => "credit",
            TxKind::DirectDebit => "directDebit",
            TxKind::Reserve => "reserve",
            TxKind::DebitReservation => "debitReservation",
            TxKind::Release => "releaseRes",
            TxKind::Expire => "expireRes",
        }
    }

    /// Parses a stored name.
    pub fn parse(s: &str) -> Option<TxKind> {
        Some(match s {
            "credit" => TxKind::Credit,
            "directDebit" => TxKind::DirectDebit,
            "reserve" => TxKind::Reserve,
            "debitReservation" => TxKind::DebitReservation,
            "releaseRes" => TxKind::Release,
            "expireRes" => TxKind::Expire,
            _ => return None,
        })
    }
}

impl fmt::Display for TxKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What an acknowledged money operation returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Receipt {
    /// The transaction number to confirm (for `reserve`, also the reservation id).
    pub cn: i32,
    /// The account's balance after the operation (reserved amounts are not part of it); for a
    /// replayed answer, the balance right after the first application.
    pub balance: i64,
    /// Whether this is the stored answer of an earlier application with the same idempotency
    /// key (nothing was applied now).
    pub replayed: bool,
}

/// One ledger entry, as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TxRecord {
    /// Transaction number.
    pub cn: i32,
    /// Operation.
    pub kind: TxKind,
    /// Account touched.
    pub account: i32,
    /// The operation's amount (`am`; for `releaseRes`, the amount released).
    pub amount: i64,
    /// The change of the balance the operation made.
    pub delta: i64,
    /// The reservation involved, if any.
    pub res: Option<i32>,
    /// Whether the client confirmed it.
    pub confirmed: bool,
    /// Who issued it: the authenticated principal's name, `None` when the service ran
    /// without authentication (and for entries written before the column existed).
    pub issuer: Option<String>,
}

/// The state of a reservation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResState {
    /// Holding its amount.
    Open,
    /// Consumed by `debitReservation`.
    Debited,
    /// Given back by `releaseRes`.
    Released,
    /// Given back by the store when its time ran out.
    Expired,
}

impl ResState {
    /// Stored code.
    pub fn code(self) -> i32 {
        match self {
            ResState::Open => 0,
            ResState::Debited => 1,
            ResState::Released => 2,
            ResState::Expired => 3,
        }
    }
    /// From a stored code.
    pub fn from_code(c: i32) -> Option<ResState> {
        Some(match c {
            0 => ResState::Open,
            1 => ResState::Debited,
            2 => ResState::Released,
            3 => ResState::Expired,
            _ => return None,
        })
    }
    fn past_tense(self) -> &'static str {
        match self {
            ResState::Open => "open",
            ResState::Debited => "debited",
            ResState::Released => "released",
            ResState::Expired => "expired",
        }
    }
}

/// What an audit of the whole store found (see [`Store::audit`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Audit {
    /// Accounts in the store.
    pub accounts: u64,
    /// Ledger entries.
    pub transactions: u64,
    /// Accounts whose balance is not their initial balance plus their ledger deltas:
    /// `(id, balance, initial + sum of deltas)`.
    pub mismatched: Vec<(i32, i64, i64)>,
    /// Accounts with a negative balance.
    pub negative: Vec<i32>,
    /// Reservations that disagree with the ledger: no `reserve` entry of the same account and
    /// amount, or an open one that was debited/released, or a closed one that was not (exactly once).
    pub inconsistent_reservations: Vec<i32>,
}

impl Audit {
    /// No inconsistency found.
    pub fn is_clean(&self) -> bool {
        self.mismatched.is_empty()
            && self.negative.is_empty()
            && self.inconsistent_reservations.is_empty()
    }
}

/// Why an operation was refused. Every variant but [`ChargingError::Storage`] is the client's
/// doing and becomes a `Client` fault; nothing changed in the store.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChargingError {
    /// No account with this id.
    #[error("unknown account `{0}`")]
    UnknownAccount(i32),
    /// The balance does not cover the amount.
    #[error(
        "insufficient funds: account `{account}` has balance `{balance}`, `{requested}` requested"
    )]
    InsufficientFunds {
        /// Account.
        account: i32,
        /// Its balance.
        balance: i64,
        /// What was asked.
        requested: i32,
    },
    /// An amount was zero or negative.
    #[error("amount must be positive, got `{0}`")]
    NonPositiveAmount(i32),
    /// A credit would push the balance past what `xsd:int` holds.
    #[error("credit of `{am}` would raise the balance of account `{account}` past `2147483647`")]
    BalanceOverflow {
        /// Account.
        account: i32,
        /// Amount.
        am: i32,
    },
    /// No reservation with this id.
    #[error("unknown reservation `{0}`")]
    UnknownReservation(i32),
    /// The reservation was debited or released before.
    #[error("reservation `{res}` was already {}", .state.past_tense())]
    ReservationClosed {
        /// Reservation.
        res: i32,
        /// Its state.
        state: ResState,
    },
    /// The reservation belongs to another account.
    #[error("reservation `{res}` belongs to account `{owner}`, not `{account}`")]
    WrongAccount {
        /// Reservation.
        res: i32,
        /// Its account.
        owner: i32,
        /// The account named in the request.
        account: i32,
    },
    /// `debitReservation` asked for more than was reserved.
    #[error("amount `{am}` exceeds reservation `{res}` of `{reserved}`")]
    ExceedsReservation {
        /// Reservation.
        res: i32,
        /// Reserved amount.
        reserved: i64,
        /// Requested amount.
        am: i32,
    },
    /// No transaction with this number.
    #[error("unknown transaction number `{0}`")]
    UnknownTransaction(i32),
    /// An idempotency key that is empty, too long or has other characters.
    #[error(
        "bad idempotency key `{0}`: expected 1 to 128 characters of A-Z a-z 0-9 - _ . : ~ + / ="
    )]
    BadIdempotencyKey(String),
    /// An idempotency key already used for another operation or other arguments.
    #[error("idempotency key `{key}` was used for `{first}`, not `{now}`")]
    KeyReused {
        /// The key.
        key: String,
        /// The operation it was first used for (`debitReservation id=1 am=5 res=9`).
        first: String,
        /// The operation it came with now.
        now: String,
    },
    /// The store failed (I/O, connection, corrupted data): a `Server` fault.
    #[error("storage failed: {0}")]
    Storage(String),
}

impl ChargingError {
    /// True when the request was at fault (a `Client` fault), false for storage failures.
    pub fn is_client(&self) -> bool {
        !matches!(self, ChargingError::Storage(_))
    }

    /// The SOAP fault this error is answered with.
    pub fn to_fault(&self) -> soapstone_codec::Fault {
        if self.is_client() {
            soapstone_codec::Fault::client(self.to_string())
        } else {
            soapstone_codec::Fault::server(self.to_string())
        }
    }
}

impl From<rusqlite::Error> for ChargingError {
    fn from(e: rusqlite::Error) -> Self {
        ChargingError::Storage(format!("sqlite: {e}"))
    }
}

impl From<tokio_postgres::Error> for ChargingError {
    fn from(e: tokio_postgres::Error) -> Self {
        ChargingError::Storage(format!("postgresql: {e}"))
    }
}

/// Converts a stored transaction number to the wire's `xsd:int`.
fn cn_to_i32(cn: i64) -> Result<i32, ChargingError> {
    i32::try_from(cn).map_err(|_| {
        ChargingError::Storage(format!("transaction number `{cn}` does not fit xsd:int"))
    })
}

/// Fails unless the reservation is open.
fn check_open(res: i32, state: ResState) -> Result<(), ChargingError> {
    match state {
        ResState::Open => Ok(()),
        state => Err(ChargingError::ReservationClosed { res, state }),
    }
}

/// Durable account storage. Every method is one atomic transaction: it either happens whole and
/// is durable when the future resolves `Ok`, or changes nothing.
pub trait Store: Send + Sync + 'static {
    /// Applies one money operation (validated by the caller with [`Op::validate`]) without an
    /// idempotency key, a reservation expiry or an issuer.
    fn apply(&self, op: Op) -> BoxFuture<'_, Result<Receipt, ChargingError>> {
        self.apply_with(op, Applied::plain())
    }
    /// Applies `op` in the circumstances of `at`: with a key, the key and the receipt are
    /// stored in the same transaction as the ledger entry, and a key already stored (and not
    /// older than `at.keys_valid_after_ms`) returns its receipt with `replayed` set instead, or
    /// [`ChargingError::KeyReused`] for other arguments. A reservation gets the expiry
    /// `at.reservation_expires_ms`; reservations expired by `at.now_ms` are never debited.
    /// `at.issuer` (the principal's name) is written in the ledger entry.
    fn apply_with(&self, op: Op, at: Applied) -> BoxFuture<'_, Result<Receipt, ChargingError>>;
    /// Releases open reservations expired by `now_ms` (an `expireRes` ledger entry each, at
    /// most [`once::SWEEP_BATCH`] per call) and forgets keys created before `keys_before_ms`.
    fn sweep(
        &self,
        now_ms: i64,
        keys_before_ms: i64,
    ) -> BoxFuture<'_, Result<Swept, ChargingError>>;
    /// Whether the store answers (readiness): a trivial query.
    fn ping(&self) -> BoxFuture<'_, Result<(), ChargingError>>;
    /// Marks a transaction confirmed; confirming it again succeeds and changes nothing.
    fn confirm(&self, cn: i32) -> BoxFuture<'_, Result<(), ChargingError>>;
    /// The balance of an account.
    fn balance(&self, id: i32) -> BoxFuture<'_, Result<i64, ChargingError>>;
    /// One ledger entry.
    fn transaction(&self, cn: i32) -> BoxFuture<'_, Result<Option<TxRecord>, ChargingError>>;
    /// Checks the whole store: balances against the ledger, no negative balance.
    fn audit(&self) -> BoxFuture<'_, Result<Audit, ChargingError>>;
    /// A short description for logs (`sqlite:PATH`, `postgresql:HOST:PORT/DB`).
    fn describe(&self) -> String;
}

/// The charging system: validation in front of a [`Store`]. Cheap to clone.
#[derive(Clone)]
pub struct ChargingSystem {
    store: Arc<dyn Store>,
    policy: ChargingPolicy,
    /// Refuse requests that carry no authenticated principal (see `service`).
    requires_principal: bool,
}

impl fmt::Debug for ChargingSystem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Charging")
            .field("store", &self.store.describe())
            .finish()
    }
}

impl ChargingSystem {
    /// The system over this store, with the default [`ChargingPolicy`].
    pub fn new(store: Arc<dyn Store>) -> Self {
        ChargingSystem {
            store,
            policy: ChargingPolicy::default(),
            requires_principal: false,
        }
    }

    /// Replaces the reservation and key lifetimes.
    pub fn with_policy(mut self, policy: ChargingPolicy) -> Self {
        self.policy = policy;
        self
    }

    /// The reservation and key lifetimes.
    pub fn policy(&self) -> &ChargingPolicy {
        &self.policy
    }

    /// The same system refusing every SOAP request without an authenticated principal
    /// (`wsse:FailedAuthentication`); put an authentication layer in front of it.
    pub fn requiring_principal(mut self) -> Self {
        self.requires_principal = true;
        self
    }

    /// Whether SOAP requests need an authenticated principal.
    pub fn requires_principal(&self) -> bool {
        self.requires_principal
    }

    /// The store.
    pub fn store(&self) -> &Arc<dyn Store> {
        &self.store
    }

    /// Starts the task that releases expired reservations and forgets old keys (see
    /// [`once::spawn_sweeper`]); it ends when the store is dropped.
    pub fn spawn_sweeper(&self) -> tokio::task::JoinHandle<()> {
        once::spawn_sweeper(&self.store, &self.policy)
    }

    /// Validates and applies `op`.
    pub async fn apply(&self, op: Op) -> Result<Receipt, ChargingError> {
        self.apply_keyed_as(op, None, None).await
    }

    /// Validates and applies `op` on behalf of `issuer`, who is written in the ledger.
    pub async fn apply_as(&self, op: Op, issuer: Option<&str>) -> Result<Receipt, ChargingError> {
        self.apply_keyed_as(op, None, issuer).await
    }

    /// Validates and applies `op` once per idempotency key: a retry with the same key gets the
    /// first receipt back (`replayed`), also after a restart.
    pub async fn apply_keyed(
        &self,
        op: Op,
        key: Option<IdempotencyKey>,
    ) -> Result<Receipt, ChargingError> {
        self.apply_keyed_as(op, key, None).await
    }

    /// [`ChargingSystem::apply_keyed`] on behalf of `issuer`, who is written in the ledger.
    pub async fn apply_keyed_as(
        &self,
        op: Op,
        key: Option<IdempotencyKey>,
        issuer: Option<&str>,
    ) -> Result<Receipt, ChargingError> {
        op.validate()?;
        let mut at = self.policy.applied(key);
        at.issuer = issuer.map(str::to_owned);
        self.store.apply_with(op, at).await
    }

    /// `credit(id, am)`.
    pub async fn credit(&self, id: i32, am: i32) -> Result<Receipt, ChargingError> {
        self.apply(Op::Credit { id, am }).await
    }

    /// `directDebit(id, am)`.
    pub async fn direct_debit(&self, id: i32, am: i32) -> Result<Receipt, ChargingError> {
        self.apply(Op::DirectDebit { id, am }).await
    }

    /// `reserve(id, am)`: the receipt's `cn` is the reservation id.
    pub async fn reserve(&self, id: i32, am: i32) -> Result<Receipt, ChargingError> {
        self.apply(Op::Reserve { id, am }).await
    }

    /// `debitReservation(id, am, res)`.
    pub async fn debit_reservation(
        &self,
        id: i32,
        am: i32,
        res: i32,
    ) -> Result<Receipt, ChargingError> {
        self.apply(Op::DebitReservation { id, am, res }).await
    }

    /// `releaseRes(res)`.
    pub async fn release(&self, res: i32) -> Result<Receipt, ChargingError> {
        self.apply(Op::Release { res }).await
    }

    /// `creditControl(id)`: the balance.
    pub async fn balance(&self, id: i32) -> Result<i64, ChargingError> {
        self.store.balance(id).await
    }

    /// `confirmAction(cn)`.
    pub async fn confirm(&self, cn: i32) -> Result<(), ChargingError> {
        self.store.confirm(cn).await
    }
}
