//! The nonce replay cache: a nonce seen within the freshness window is refused the second
//! time.
//!
//! Bounded both ways: an entry lives only until the token it came from is too old to be
//! accepted anyway (created + window), and the cache holds at most `capacity` entries. When it
//! is full of live entries it refuses new nonces instead of forgetting live ones (forgetting
//! would let a replay through); only authenticated senders reach it, so filling it takes valid
//! credentials. Must never: grow without bound, or evict an entry whose token is still fresh.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

/// What inserting a nonce found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Seen {
    /// First time: remembered until its expiry.
    New,
    /// Seen before and still remembered: a replay.
    Replayed,
    /// The cache is full of live nonces: refused (try later).
    Full,
}

#[derive(Debug, Default)]
struct State {
    /// Key -> expiry (ms since the epoch).
    live: HashMap<Vec<u8>, i64>,
    /// Keys in insertion order with their expiry, for expiring the oldest first.
    order: VecDeque<(i64, Vec<u8>)>,
}

/// A bounded set of recently seen (user, nonce) pairs.
#[derive(Debug)]
pub(crate) struct ReplayCache {
    capacity: usize,
    state: Mutex<State>,
}

impl ReplayCache {
    pub(crate) fn new(capacity: usize) -> Self {
        ReplayCache {
            capacity,
            state: Mutex::new(State::default()),
        }
    }

    /// Records `user`'s `nonce` until `expires` (ms), at time `now` (ms).
    pub(crate) fn insert(&self, user: &str, nonce: &[u8], now: i64, expires: i64) -> Seen {
        let mut key = Vec::with_capacity(user.len() + 1 + nonce.len());
        key.extend_from_slice(user.as_bytes());
        key.push(0);
        key.extend_from_slice(nonce);
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        // Expire from the front. Expiries are not monotonic in insertion order (created times
        // differ), so an entry may outlive its expiry until those before it go: harmless, it
        // only refuses what was seen. Its map entry is only removed if it is that insertion.
        while let Some((exp, _)) = s.order.front() {
            if *exp > now {
                break;
            }
            let (exp, k) = s.order.pop_front().expect("front exists");
            if s.live.get(&k) == Some(&exp) {
                s.live.remove(&k);
            }
        }
        match s.live.get(&key) {
            Some(&exp) if exp > now => return Seen::Replayed,
            _ => {}
        }
        if s.live.len() >= self.capacity {
            return Seen::Full;
        }
        s.live.insert(key.clone(), expires);
        s.order.push_back((expires, key));
        Seen::New
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.state.lock().unwrap().live.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replays_refused_until_expiry_and_bounded() {
        let c = ReplayCache::new(2);
        assert_eq!(c.insert("u", b"n1", 0, 100), Seen::New);
        assert_eq!(c.insert("u", b"n1", 50, 150), Seen::Replayed);
        // Another user's equal nonce is not a replay.
        assert_eq!(c.insert("v", b"n1", 50, 150), Seen::New);
        // Full of live entries: refused, nothing forgotten.
        assert_eq!(c.insert("u", b"n2", 60, 160), Seen::Full);
        assert_eq!(c.insert("u", b"n1", 99, 160), Seen::Replayed);
        // Past the first expiry the oldest goes and room is made.
        assert_eq!(c.insert("u", b"n2", 100, 200), Seen::New);
        assert_eq!(c.len(), 2);
        // Past every expiry the nonce is new again (its token is too old to pass anyway).
        assert_eq!(c.insert("u", b"n1", 500, 600), Seen::New);
        assert_eq!(c.len(), 1);
    }
}
