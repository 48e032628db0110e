//! The charging clients. Every money operation carries an idempotency key (a fresh random one
//! unless the caller gives its own), so the store applies it once whatever happens to the
//! answer (see [`super::once`]):
//!
//! - [`ChargingClient`], the default, sends a fresh key with every money operation and makes
//!   one attempt (the issue: "the generated client sends one by default"); a caller that
//!   retries itself takes the key from [`IdempotencyKey::random`] and calls
//!   [`ChargingClient::apply_with_key`] again with it.
//! - [`KeyedChargingClient`] adds the retries: the same key again after a lost answer, a `503`,
//!   a balancer's `502`, or a `Server` fault, so a retry after a dead replica or a timeout is
//!   charged once.
//! - [`ChargingStub`] is what `#[service]` generates from the trait: one attempt, no key. It is
//!   for servers that do not know the key header (the block is `mustUnderstand`, so they would
//!   refuse it) and for measuring the bare protocol.
//!
//! Reads (`creditControl`) and confirmations (`confirmAction`, harmless twice) carry no key.
//! Must never: send a money operation without a key unless asked ([`ChargingStub`]), retry a
//! money operation without its key, retry a `Client` fault (the request is wrong, the answer
//! will not change), or retry without bound.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use soapstone_client::{Client, Error};
use soapstone_codec::{FaultCode, Version};
use soapstone_service::codegen::{Header, Stub};

use super::once::IdempotencyKey;
use super::{charging_model, ChargingStub, Op};

/// How a [`KeyedChargingClient`] retries.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RetryPolicy {
    /// Most attempts of one operation, the first included. Default: `8`.
    pub attempts: u32,
    /// Wait before the first retry; doubled after each one. Default: `50 ms`.
    pub first_backoff: Duration,
    /// Longest wait between two attempts. Default: `1 s`.
    pub max_backoff: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            attempts: 8,
            first_backoff: Duration::from_millis(50),
            max_backoff: Duration::from_secs(1),
        }
    }
}

impl RetryPolicy {
    /// One attempt, no retry.
    pub fn none() -> Self {
        RetryPolicy {
            attempts: 1,
            ..RetryPolicy::default()
        }
    }
}

/// Whether another attempt may succeed where `e` failed: transport failures, `408`, `429`,
/// `502`, `503`, `504` and `Server` faults; never a `Client` fault or a local error.
pub fn is_retryable(e: &Error) -> bool {
    match e.fault() {
        Some(f) => f.code == FaultCode::Server,
        None if e.is_url() || e.is_encode() || e.is_tls() => false,
        None => e
            .status()
            .is_none_or(|s| matches!(s, 408 | 429 | 500 | 502 | 503 | 504)),
    }
}

#[derive(Serialize)]
struct IdAm {
    id: i32,
    am: i32,
}

#[derive(Serialize)]
struct IdAmRes {
    id: i32,
    am: i32,
    res: i32,
}

#[derive(Serialize)]
struct Res {
    res: i32,
}

#[derive(Deserialize)]
struct Cn {
    #[serde(rename = "return")]
    cn: i32,
}

/// The charging client: a fresh idempotency key with every money operation, one attempt each
/// (see the module documentation). Same methods as the generated [`ChargingStub`].
#[derive(Debug, Clone)]
pub struct ChargingClient {
    stub: Stub,
    plain: ChargingStub,
}

impl ChargingClient {
    /// A client of the charging service at `url`, speaking SOAP 1.1.
    pub fn new(url: &str) -> Result<Self, Error> {
        Ok(Self::with_client(Client::new(url)?))
    }

    /// Over an existing (configured, pooled) client: TLS, WS-Security headers and limits come
    /// from its `ClientConfig`.
    pub fn with_client(client: Client) -> Self {
        ChargingClient {
            stub: Stub::new(client.clone(), charging_model()),
            plain: ChargingStub::with_client(client),
        }
    }

    /// Speaks `version` (SOAP 1.1 or 1.2) from now on.
    pub fn with_version(self, version: Version) -> Self {
        ChargingClient {
            stub: self.stub.with_version(version),
            plain: self.plain.with_version(version),
        }
    }

    /// Sends header block `H` with every call from now on.
    pub fn with_header<H: Header>(self, value: &H) -> Result<Self, Error> {
        Ok(ChargingClient {
            stub: self.stub.with_header(value)?,
            plain: self.plain.with_header(value)?,
        })
    }

    /// The underlying client.
    pub fn client(&self) -> &Client {
        self.stub.client()
    }

    /// The generated stub over the same client: one attempt, no key.
    pub fn plain(&self) -> &ChargingStub {
        &self.plain
    }

    /// Applies `op` once under a fresh key; returns the transaction number (for `reserve`,
    /// the reservation id).
    pub async fn apply(&self, op: Op) -> Result<i32, Error> {
        self.apply_with_key(&IdempotencyKey::random(), op).await
    }

    /// One attempt of `op` carrying `key`: sent again with the same key, it answers the first
    /// answer and applies nothing (the key is scoped to the authenticated principal).
    pub async fn apply_with_key(&self, key: &IdempotencyKey, op: Op) -> Result<i32, Error> {
        let header = key.header_xml(self.stub.version().envelope_ns());
        let headers = || vec![header.clone()];
        // Operation indices in the trait's declaration order (see `service`).
        let s = &self.stub;
        let r: Cn = match op {
            Op::Credit { id, am } => {
                s.call_with_headers(0, headers(), &IdAm { id, am })
                    .await?
                    .value
            }
            Op::DirectDebit { id, am } => {
                s.call_with_headers(1, headers(), &IdAm { id, am })
                    .await?
                    .value
            }
            Op::Reserve { id, am } => {
                s.call_with_headers(2, headers(), &IdAm { id, am })
                    .await?
                    .value
            }
            Op::DebitReservation { id, am, res } => {
                s.call_with_headers(3, headers(), &IdAmRes { id, am, res })
                    .await?
                    .value
            }
            Op::Release { res } => s.call_with_headers(4, headers(), &Res { res }).await?.value,
        };
        Ok(r.cn)
    }

    /// `credit(id, am)` under a fresh key.
    pub async fn credit(&self, id: i32, am: i32) -> Result<i32, Error> {
        self.apply(Op::Credit { id, am }).await
    }

    /// `directDebit(id, am)` under a fresh key.
    pub async fn direct_debit(&self, id: i32, am: i32) -> Result<i32, Error> {
        self.apply(Op::DirectDebit { id, am }).await
    }

    /// `reserve(id, am)` under a fresh key; the reservation id.
    pub async fn reserve(&self, id: i32, am: i32) -> Result<i32, Error> {
        self.apply(Op::Reserve { id, am }).await
    }

    /// `debitReservation(id, am, res)` under a fresh key.
    pub async fn debit_reservation(&self, id: i32, am: i32, res: i32) -> Result<i32, Error> {
        self.apply(Op::DebitReservation { id, am, res }).await
    }

    /// `releaseRes(res)` under a fresh key.
    pub async fn release_res(&self, res: i32) -> Result<i32, Error> {
        self.apply(Op::Release { res }).await
    }

    /// `creditControl(id)`: the balance (a read, no key).
    pub async fn credit_control(&self, id: i32) -> Result<i32, Error> {
        self.plain.credit_control(id).await
    }

    /// `confirmAction(cn)` (harmless twice, no key).
    pub async fn confirm_action(&self, cn: i32) -> Result<(), Error> {
        self.plain.confirm_action(cn).await
    }
}

/// A charging client whose money operations apply once however often they are retried. See
/// the module documentation.
#[derive(Debug, Clone)]
pub struct KeyedChargingClient {
    client: ChargingClient,
    retry: RetryPolicy,
}

impl KeyedChargingClient {
    /// A client of the charging service at `url` with the default [`RetryPolicy`].
    pub fn new(url: &str) -> Result<Self, Error> {
        Ok(Self::with_client(Client::new(url)?))
    }

    /// Over an existing (configured, pooled) client.
    pub fn with_client(client: Client) -> Self {
        KeyedChargingClient {
            client: ChargingClient::with_client(client),
            retry: RetryPolicy::default(),
        }
    }

    /// Replaces the retry policy.
    pub fn with_retry(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    /// The generated stub (one attempt, no key), for reads and confirmations.
    pub fn plain(&self) -> &ChargingStub {
        self.client.plain()
    }

    /// Applies `op` with a fresh key, retrying; returns the transaction number (for
    /// `reserve`, the reservation id).
    pub async fn apply(&self, op: Op) -> Result<i32, Error> {
        self.apply_with_key(&IdempotencyKey::random(), op).await
    }

    /// Applies `op` under `key`, retrying with the same key (see [`RetryPolicy`]).
    pub async fn apply_with_key(&self, key: &IdempotencyKey, op: Op) -> Result<i32, Error> {
        let mut backoff = self.retry.first_backoff;
        let mut attempt = 1;
        loop {
            match self.attempt(key, op).await {
                Err(e) if attempt < self.retry.attempts && is_retryable(&e) => {
                    tracing::debug!(error = %e, attempt, key = %key, "charging call failed; retrying");
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(self.retry.max_backoff);
                    attempt += 1;
                }
                other => return other,
            }
        }
    }

    /// One attempt of `op` carrying `key` (no retry).
    pub async fn attempt(&self, key: &IdempotencyKey, op: Op) -> Result<i32, Error> {
        self.client.apply_with_key(key, op).await
    }

    /// `credit(id, am)` with a fresh key, retried.
    pub async fn credit(&self, id: i32, am: i32) -> Result<i32, Error> {
        self.apply(Op::Credit { id, am }).await
    }

    /// `directDebit(id, am)` with a fresh key, retried.
    pub async fn direct_debit(&self, id: i32, am: i32) -> Result<i32, Error> {
        self.apply(Op::DirectDebit { id, am }).await
    }

    /// `reserve(id, am)` with a fresh key, retried; the reservation id.
    pub async fn reserve(&self, id: i32, am: i32) -> Result<i32, Error> {
        self.apply(Op::Reserve { id, am }).await
    }

    /// `debitReservation(id, am, res)` with a fresh key, retried.
    pub async fn debit_reservation(&self, id: i32, am: i32, res: i32) -> Result<i32, Error> {
        self.apply(Op::DebitReservation { id, am, res }).await
    }

    /// `releaseRes(res)` with a fresh key, retried.
    pub async fn release_res(&self, res: i32) -> Result<i32, Error> {
        self.apply(Op::Release { res }).await
    }

    /// `creditControl(id)`, retried (a read).
    pub async fn credit_control(&self, id: i32) -> Result<i32, Error> {
        self.retried(|| self.client.credit_control(id)).await
    }

    /// `confirmAction(cn)`, retried (confirming twice is harmless).
    pub async fn confirm_action(&self, cn: i32) -> Result<(), Error> {
        self.retried(|| self.client.confirm_action(cn)).await
    }

    async fn retried<T, F: std::future::Future<Output = Result<T, Error>>>(
        &self,
        call: impl Fn() -> F,
    ) -> Result<T, Error> {
        let mut backoff = self.retry.first_backoff;
        let mut attempt = 1;
        loop {
            match call().await {
                Err(e) if attempt < self.retry.attempts && is_retryable(&e) => {
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(self.retry.max_backoff);
                    attempt += 1;
                }
                other => return other,
            }
        }
    }
}
