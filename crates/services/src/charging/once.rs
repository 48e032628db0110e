//! Exactly-once charging: idempotency keys and reservations that expire.
//!
//! A client that retries a money operation after a lost answer (a timeout, a dead replica)
//! must not be charged twice. It sends the same `<ch:IdempotencyKey>` header block with every
//! attempt; the store keeps the key with the operation's arguments and its receipt, written in
//! the same transaction as the ledger entry, so the key exists exactly when the operation
//! happened, also across a crash or a restart and from any replica sharing the store. A retry
//! finds the key and gets the first answer back; a key reused with other arguments is the
//! client's mistake (a `Client` fault). A key belongs to the principal that sent it: the same
//! key from another principal is another key, applied afresh, so nobody can read another
//! principal's receipt or block their key by guessing it; without authentication every
//! request shares the anonymous scope ([`ANONYMOUS_SCOPE`]). Refused operations change nothing and keep no key: their
//! retry is judged afresh. Keys are forgotten after [`ChargingPolicy::key_retention`].
//!
//! Reservations hold part of a balance; one the client forgets would hold it forever. With
//! [`ChargingPolicy::reservation_ttl`] each reservation carries an expiry time; a sweeper task
//! releases expired ones durably (a ledger entry of kind `expireRes`), and every store also
//! checks at use, so an expired reservation is never debited even between two sweeps.
//!
//! Times are wall-clock milliseconds since the Unix epoch taken on the replica: replicas that
//! share a PostgreSQL store need synchronized clocks (NTP), as expiry is judged against them.
//!
//! Must never: apply a keyed operation twice, answer a retry differently from the first
//! success, or release a reservation without a ledger entry.

use std::sync::{Arc, Weak};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use soapstone_codec::QName;

use super::{ChargingError, Store, NAMESPACE};

/// The local name of the idempotency key header block, in [`NAMESPACE`].
pub const IDEMPOTENCY_KEY: &str = "IdempotencyKey";

/// The key scope of requests without a principal (`--auth none`): the empty name, which no
/// user of a users file can have.
pub const ANONYMOUS_SCOPE: &str = "";

/// Longest idempotency key, in bytes.
pub const MAX_KEY_LEN: usize = 128;

/// The idempotency key header block's name: `{urn:soapstone:charging}IdempotencyKey`.
pub fn idempotency_key_name() -> QName {
    QName::new(NAMESPACE, IDEMPOTENCY_KEY)
}

/// A client-chosen key that makes a money operation apply once: 1 to [`MAX_KEY_LEN`]
/// characters of `A-Z a-z 0-9 - _ . : ~ + / =` (a UUID, a base64 token).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct IdempotencyKey(Arc<str>);

impl IdempotencyKey {
    /// Checks `key`.
    pub fn new(key: &str) -> Result<Self, ChargingError> {
        let ok = !key.is_empty()
            && key.len() <= MAX_KEY_LEN
            && key
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_.:~+/=".contains(&b));
        if ok {
            Ok(IdempotencyKey(key.into()))
        } else {
            Err(ChargingError::BadIdempotencyKey(
                key.chars().take(MAX_KEY_LEN + 1).collect(),
            ))
        }
    }

    /// A fresh random key: 128 random bits in hexadecimal.
    pub fn random() -> Self {
        let bits: u128 = rand::random();
        IdempotencyKey(format!("{bits:032x}").into())
    }

    /// The key.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The header block carrying this key, as markup with its namespace declared on it;
    /// `mustUnderstand` so that a server that does not know keys refuses instead of applying
    /// a retry twice.
    pub fn header_xml(&self, envelope_ns: &str) -> String {
        format!(
            "<ch:{IDEMPOTENCY_KEY} xmlns:ch=\"{NAMESPACE}\" xmlns:e=\"{envelope_ns}\" e:mustUnderstand=\"{}\">{}</ch:{IDEMPOTENCY_KEY}>",
            if envelope_ns.contains("2003/05") { "true" } else { "1" },
            self.0
        )
    }

    /// Reads the key from a header block's markup (`<p:IdempotencyKey ...>KEY</p:IdempotencyKey>`):
    /// the element's text, trimmed. Child elements, entities or an empty key are refused.
    pub fn from_header_xml(xml: &str) -> Result<Self, ChargingError> {
        let bad = || ChargingError::BadIdempotencyKey(xml.chars().take(MAX_KEY_LEN + 1).collect());
        let open_end = xml.find('>').ok_or_else(bad)?;
        if xml[..open_end].ends_with('/') {
            return Err(ChargingError::BadIdempotencyKey(String::new()));
        }
        let rest = &xml[open_end + 1..];
        let close = rest.rfind("</").ok_or_else(bad)?;
        let text = rest[..close].trim();
        if text.contains(['<', '&']) {
            return Err(bad());
        }
        IdempotencyKey::new(text)
    }
}

impl std::fmt::Display for IdempotencyKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// How long reservations and idempotency keys live.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ChargingPolicy {
    /// Time after which an open reservation is released by itself; `None` keeps reservations
    /// until debited or released. Default: `Some(15 min)`.
    pub reservation_ttl: Option<Duration>,
    /// Time an idempotency key is remembered: a retry later than this applies again.
    /// Default: `24 h`.
    pub key_retention: Duration,
    /// How often the sweeper releases expired reservations and forgets old keys.
    /// Default: a quarter of the shorter of the two times above, between `100 ms` and `60 s`.
    pub sweep_interval: Option<Duration>,
}

impl Default for ChargingPolicy {
    fn default() -> Self {
        ChargingPolicy {
            reservation_ttl: Some(Duration::from_secs(15 * 60)),
            key_retention: Duration::from_secs(24 * 3600),
            sweep_interval: None,
        }
    }
}

impl ChargingPolicy {
    /// The sweeper's period (see [`ChargingPolicy::sweep_interval`]).
    pub fn sweep_every(&self) -> Duration {
        self.sweep_interval.unwrap_or_else(|| {
            let shortest = self
                .reservation_ttl
                .map_or(self.key_retention, |t| t.min(self.key_retention));
            (shortest / 4).clamp(Duration::from_millis(100), Duration::from_secs(60))
        })
    }

    /// What the store needs to apply one operation now.
    pub fn applied(&self, key: Option<IdempotencyKey>) -> Applied {
        let now = now_ms();
        Applied {
            key,
            now_ms: now,
            reservation_expires_ms: self.reservation_ttl.map(|t| now.saturating_add(millis(t))),
            keys_valid_after_ms: now.saturating_sub(millis(self.key_retention)),
            issuer: None,
        }
    }
}

/// The circumstances of one operation, handed to [`Store::apply_with`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Applied {
    /// The idempotency key, if the client sent one.
    pub key: Option<IdempotencyKey>,
    /// Now, in milliseconds since the Unix epoch.
    pub now_ms: i64,
    /// When a reservation made now expires; `None`: never.
    pub reservation_expires_ms: Option<i64>,
    /// Keys created before this time are forgotten (treated as absent).
    pub keys_valid_after_ms: i64,
    /// Who issued the operation (the principal's name), written in its ledger entry; also the
    /// scope of its idempotency key.
    pub issuer: Option<String>,
}

impl Applied {
    /// Whose keys `key` is looked up among: the issuer's, or [`ANONYMOUS_SCOPE`].
    pub fn key_scope(&self) -> &str {
        self.issuer.as_deref().unwrap_or(ANONYMOUS_SCOPE)
    }

    /// No key, no expiry.
    pub fn plain() -> Self {
        Applied {
            key: None,
            now_ms: now_ms(),
            reservation_expires_ms: None,
            keys_valid_after_ms: i64::MIN,
            issuer: None,
        }
    }
}

/// What a sweep did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Swept {
    /// Reservations released because they expired.
    pub expired_reservations: u64,
    /// Idempotency keys forgotten.
    pub forgotten_keys: u64,
}

/// Most reservations one sweep (or one SQLite batch) releases; the next sweep takes the rest.
pub const SWEEP_BATCH: i64 = 1000;

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, millis)
}

fn millis(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

/// What a stored key is compared with: the operation and its arguments.
pub(crate) fn fingerprint(op: &super::Op) -> String {
    use super::Op;
    match *op {
        Op::Credit { id, am } => format!("credit id={id} am={am}"),
        Op::DirectDebit { id, am } => format!("directDebit id={id} am={am}"),
        Op::Reserve { id, am } => format!("reserve id={id} am={am}"),
        Op::DebitReservation { id, am, res } => {
            format!("debitReservation id={id} am={am} res={res}")
        }
        Op::Release { res } => format!("releaseRes res={res}"),
    }
}

/// Runs a sweep every `policy.sweep_every()` until the store is dropped; errors are logged and
/// the next sweep tries again. Needs a tokio runtime.
pub fn spawn_sweeper(
    store: &Arc<dyn Store>,
    policy: &ChargingPolicy,
) -> tokio::task::JoinHandle<()> {
    let store: Weak<dyn Store> = Arc::downgrade(store);
    let policy = policy.clone();
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(policy.sweep_every());
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            let Some(store) = store.upgrade() else { return };
            let now = now_ms();
            let keys_before = now.saturating_sub(millis(policy.key_retention));
            match store.sweep(now, keys_before).await {
                Ok(s) if s != Swept::default() => tracing::info!(
                    expired_reservations = s.expired_reservations,
                    forgotten_keys = s.forgotten_keys,
                    "charging sweep"
                ),
                Ok(_) => {}
                Err(e) => tracing::warn!(error = %e, "charging sweep failed"),
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_checked() {
        assert!(IdempotencyKey::new("3f2a-9c.b_~+/=:x").is_ok());
        for bad in ["", "a b", "ä", "<x>", &"k".repeat(MAX_KEY_LEN + 1)] {
            let e = IdempotencyKey::new(bad).unwrap_err();
            assert!(e.is_client(), "{e}");
        }
        assert_eq!(
            IdempotencyKey::new("a b").unwrap_err().to_string(),
            "bad idempotency key `a b`: expected 1 to 128 characters of A-Z a-z 0-9 - _ . : ~ + / ="
        );
        let a = IdempotencyKey::random();
        assert_eq!(a.as_str().len(), 32);
        assert_ne!(a, IdempotencyKey::random());
    }

    #[test]
    fn keys_read_from_header_markup() {
        let k = IdempotencyKey::new("k-1").unwrap();
        let xml = k.header_xml("http://schemas.xmlsoap.org/soap/envelope/");
        assert_eq!(IdempotencyKey::from_header_xml(&xml).unwrap(), k);
        let spaced =
            "<x:IdempotencyKey xmlns:x=\"urn:soapstone:charging\">\n  k-1 \n</x:IdempotencyKey>";
        assert_eq!(IdempotencyKey::from_header_xml(spaced).unwrap(), k);
        for bad in [
            "<x:IdempotencyKey/>",
            "<x:IdempotencyKey></x:IdempotencyKey>",
            "<x:IdempotencyKey><y>k</y></x:IdempotencyKey>",
            "<x:IdempotencyKey>k&amp;1</x:IdempotencyKey>",
        ] {
            assert!(IdempotencyKey::from_header_xml(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn sweep_interval_follows_the_shorter_time() {
        let mut p = ChargingPolicy::default();
        assert_eq!(p.sweep_every(), Duration::from_secs(60));
        p.reservation_ttl = Some(Duration::from_secs(2));
        assert_eq!(p.sweep_every(), Duration::from_millis(500));
        p.reservation_ttl = Some(Duration::from_millis(10));
        assert_eq!(p.sweep_every(), Duration::from_millis(100));
        let a = p.applied(None);
        assert_eq!(a.reservation_expires_ms, Some(a.now_ms + 10));
        assert_eq!(a.keys_valid_after_ms, a.now_ms - 24 * 3600 * 1000);
    }
}
