//! The response cache of idempotent operations (`#[soap(cache)]`).
//!
//! A bounded, approximately least-recently-used map from the canonical request (the request
//! value re-encoded by the codec, so prefixes, whitespace and attribute order do not matter)
//! to the encoded response envelope. Two generations: lookups hit the young one or promote
//! from the old one; when the young one is full (half the entries, or half the bytes) it
//! becomes the old one and the previous old one is dropped. That bounds memory at `capacity`
//! entries and `max_bytes` bytes of keys and responses with O(1) work per call and no linked
//! list; an entry larger than half of `max_bytes` is never kept. Must never cache a Fault,
//! and never grow past either bound.

use std::collections::HashMap;
use std::sync::Mutex;

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
    maps: Mutex<Generations>,
}

#[derive(Debug, Default)]
struct Generations {
    young: HashMap<Key, Bytes>,
    young_bytes: usize,
    old: HashMap<Key, Bytes>,
}

fn size(key: &Key, response: &Bytes) -> usize {
    key.1.len() + response.len()
}

impl ResponseCache {
    /// A cache holding at most `capacity` responses (at least 2) and `max_bytes` bytes of keys
    /// and responses.
    pub(crate) fn new(capacity: usize, max_bytes: usize) -> Self {
        ResponseCache {
            generation: (capacity / 2).max(1),
            generation_bytes: max_bytes / 2,
            maps: Mutex::new(Generations::default()),
        }
    }

    pub(crate) fn get(&self, version: Version, key: &[u8]) -> Option<Bytes> {
        let mut maps = self.maps.lock().unwrap_or_else(|e| e.into_inner());
        let key = (version, key.to_vec());
        if let Some(hit) = maps.young.get(&key) {
            return Some(hit.clone());
        }
        let hit = maps.old.remove(&key)?;
        self.insert_locked(&mut maps, key, hit.clone());
        Some(hit)
    }

    pub(crate) fn insert(&self, version: Version, key: Vec<u8>, response: Bytes) {
        let mut maps = self.maps.lock().unwrap_or_else(|e| e.into_inner());
        self.insert_locked(&mut maps, (version, key), response);
    }

    fn insert_locked(&self, maps: &mut Generations, key: Key, response: Bytes) {
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
        let cache = ResponseCache::new(4, usize::MAX);
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
        let cache = ResponseCache::new(1 << 20, 1_000);
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
        let cache = ResponseCache::new(1 << 20, 1_000);
        for _ in 0..100 {
            cache.insert(Version::Soap11, vec![1], Bytes::from(vec![1; 99]));
        }
        assert_eq!(cache.bytes(), 100);
    }
}
