//! The response cache of idempotent operations (`#[soap(cache)]`).
//!
//! A bounded, approximately least-recently-used map from the canonical request (the request
//! value re-encoded by the codec, so prefixes, whitespace and attribute order do not matter)
//! to the encoded response envelope. Two generations: lookups hit the young one or promote
//! from the old one; when the young one is full (half the entries, or half the bytes) it
//! becomes the old one and the previous old one is dropped. That bounds memory at `capacity`
//! entries and `max_bytes` bytes of keys and responses with O(1) work per call and no linked
//! list; an entry larger than half of `max_bytes` is never kept. With a time to live, an entry
//! older than it (counted from when its answer was computed, never from a later hit) is
//! dropped when it is looked up, so the handler computes the answer again. Must never cache a
//! Fault, never answer from an entry past its time to live, and never grow past either bound.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use bytes::Bytes;
use soapstone_codec::Version;

type Key = (Version, Vec<u8>);

/// A bounded response cache for one operation.
#[derive(Debug)]
pub(crate) struct ResponseCache {
    /// Most entries of one generation (half the capacity).
    generation: usize,
    /// Most bytes (keys and responses) of one generation (half the byte bound).
    generation_bytes: usize,
    /// Age past which an entry is not answered from (`None`: never).
    ttl: Option<Duration>,
    maps: Mutex<Generations>,
}

/// A kept response and when it was computed.
#[derive(Debug, Clone)]
struct Entry {
    response: Bytes,
    computed: Instant,
}

#[derive(Debug, Default)]
struct Generations {
    young: HashMap<Key, Entry>,
    young_bytes: usize,
    old: HashMap<Key, Entry>,
}

fn size(key: &Key, entry: &Entry) -> usize {
    key.1.len() + entry.response.len()
}

impl ResponseCache {
    /// A cache holding at most `capacity` responses (at least 2) and `max_bytes` bytes of keys
    /// and responses, each answered from for at most `ttl` after it was computed.
    pub(crate) fn new(capacity: usize, max_bytes: usize, ttl: Option<Duration>) -> Self {
        ResponseCache {
            generation: (capacity / 2).max(1),
            generation_bytes: max_bytes / 2,
            ttl,
            maps: Mutex::new(Generations::default()),
        }
    }

    pub(crate) fn get(&self, version: Version, key: &[u8]) -> Option<Bytes> {
        self.get_at(version, key, Instant::now())
    }

    pub(crate) fn insert(&self, version: Version, key: Vec<u8>, response: Bytes) {
        self.insert_at(version, key, response, Instant::now());
    }

    /// The response kept for `key` if it is younger than the time to live at `now`; an
    /// expired one is dropped.
    fn get_at(&self, version: Version, key: &[u8], now: Instant) -> Option<Bytes> {
        let mut maps = self.maps.lock().unwrap_or_else(|e| e.into_inner());
        let key = (version, key.to_vec());
        let fresh = |e: &Entry| match self.ttl {
            Some(ttl) => now.saturating_duration_since(e.computed) < ttl,
            None => true,
        };
        if let Some(hit) = maps.young.get(&key) {
            if fresh(hit) {
                return Some(hit.response.clone());
            }
            let gone = maps.young.remove(&key).expect("just found");
            maps.young_bytes -= size(&key, &gone);
            return None;
        }
        let hit = maps.old.remove(&key).filter(fresh)?;
        let response = hit.response.clone();
        // Promoted with its computation time: a hit never extends an entry's life.
        self.insert_locked(&mut maps, key, hit);
        Some(response)
    }

    fn insert_at(&self, version: Version, key: Vec<u8>, response: Bytes, computed: Instant) {
        let mut maps = self.maps.lock().unwrap_or_else(|e| e.into_inner());
        let entry = Entry { response, computed };
        self.insert_locked(&mut maps, (version, key), entry);
    }

    fn insert_locked(&self, maps: &mut Generations, key: Key, response: Entry) {
        let bytes = size(&key, &response);
        if bytes > self.generation_bytes {
            return;
        }
        if let Some(previous) = maps.young.remove(&key) {
            maps.young_bytes -= size(&key, &previous);
        }
        if maps.young.len() >= self.generation || maps.young_bytes + bytes > self.generation_bytes {
            maps.old = std::mem::take(&mut maps.young);
            maps.young_bytes = 0;
        }
        maps.young_bytes += bytes;
        maps.young.insert(key, response);
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        let maps = self.maps.lock().unwrap();
        maps.young.len() + maps.old.len()
    }

    #[cfg(test)]
    fn bytes(&self) -> usize {
        let maps = self.maps.lock().unwrap();
        maps.young
            .iter()
            .chain(&maps.old)
            .map(|(k, v)| size(k, v))
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounded_and_keeps_recent() {
        let cache = ResponseCache::new(4, usize::MAX, None);
        for i in 0..100u8 {
            cache.insert(Version::Soap11, vec![i], Bytes::from(vec![i]));
            // Key 0 is used all along, so it survives every rotation.
            assert_eq!(
                cache.get(Version::Soap11, &[0]),
                Some(Bytes::from_static(&[0]))
            );
            assert!(cache.len() <= 4, "len {} at {i}", cache.len());
        }
        assert_eq!(
            cache.get(Version::Soap11, &[1]),
            None,
            "old entries are evicted"
        );
        assert_eq!(
            cache.get(Version::Soap11, &[99]),
            Some(Bytes::from_static(&[99]))
        );
        assert_eq!(
            cache.get(Version::Soap12, &[99]),
            None,
            "versions are distinct"
        );
    }

    #[test]
    fn bytes_are_bounded_and_big_answers_never_kept() {
        // 1,000 bytes: each generation holds at most 500 (key + response).
        let cache = ResponseCache::new(1 << 20, 1_000, None);
        for i in 0..200u8 {
            cache.insert(Version::Soap11, vec![i], Bytes::from(vec![i; 99]));
            assert!(cache.bytes() <= 1_000, "{} bytes at {i}", cache.bytes());
        }
        assert!(
            cache.len() >= 5,
            "the byte bound still keeps some: {}",
            cache.len()
        );
        assert!(cache.get(Version::Soap11, &[199]).is_some());
        // Larger than a generation: refused, and nothing else is evicted for it.
        let before = cache.len();
        cache.insert(Version::Soap11, vec![7; 10], Bytes::from(vec![0; 500]));
        assert_eq!(cache.get(Version::Soap11, &[7; 10]), None);
        assert_eq!(cache.len(), before);
        // Replacing an entry does not count it twice.
        let cache = ResponseCache::new(1 << 20, 1_000, None);
        for _ in 0..100 {
            cache.insert(Version::Soap11, vec![1], Bytes::from(vec![1; 99]));
        }
        assert_eq!(cache.bytes(), 100);
    }

    #[test]
    fn entries_expire_from_when_they_were_computed() {
        let ttl = Duration::from_secs(60);
        let cache = ResponseCache::new(4, usize::MAX, Some(ttl));
        let t0 = Instant::now();
        let at = |s: u64| t0 + Duration::from_secs(s);
        cache.insert_at(Version::Soap11, vec![1], Bytes::from_static(b"a"), t0);
        assert!(cache.get_at(Version::Soap11, &[1], at(59)).is_some());
        // Hits at 59 s do not extend the entry's life: at 60 s it is gone, and stays gone.
        assert_eq!(cache.get_at(Version::Soap11, &[1], at(60)), None);
        assert_eq!(cache.len(), 0, "the expired entry is dropped");
        assert_eq!(cache.bytes(), 0);
        assert_eq!(cache.get_at(Version::Soap11, &[1], at(1)), None);
        // Computed again: kept for another 60 s from then.
        cache.insert_at(Version::Soap11, vec![1], Bytes::from_static(b"b"), at(61));
        assert_eq!(
            cache.get_at(Version::Soap11, &[1], at(120)),
            Some(Bytes::from_static(b"b"))
        );

        // An entry promoted from the old generation keeps its computation time.
        let cache = ResponseCache::new(2, usize::MAX, Some(ttl));
        cache.insert_at(Version::Soap11, vec![1], Bytes::from_static(b"a"), t0);
        cache.insert_at(Version::Soap11, vec![2], Bytes::from_static(b"b"), t0);
        assert!(
            cache.get_at(Version::Soap11, &[1], at(30)).is_some(),
            "promoted"
        );
        assert_eq!(cache.get_at(Version::Soap11, &[1], at(60)), None);
        assert_eq!(
            cache.get_at(Version::Soap11, &[2], at(60)),
            None,
            "old and expired"
        );

        // Without a time to live nothing expires.
        let cache = ResponseCache::new(4, usize::MAX, None);
        cache.insert_at(Version::Soap11, vec![1], Bytes::from_static(b"a"), t0);
        let year = Duration::from_secs(365 * 24 * 3600);
        assert!(cache.get_at(Version::Soap11, &[1], t0 + year).is_some());
    }
}
