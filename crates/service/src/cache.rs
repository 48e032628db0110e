//! The response cache of idempotent operations (`#[soap(cache)]`).
//!
//! A bounded, approximately least-recently-used map from the canonical request (the request
//! value re-encoded by the codec, so prefixes, whitespace and attribute order do not matter)
//! to the encoded response envelope. Two generations: lookups hit the young one or promote
//! from the old one; when the young one is full it becomes the old one and the previous old
//! one is dropped. That bounds memory at `capacity` entries with O(1) work per call and no
//! linked list. Must never cache a Fault, and never grow past its capacity.

use std::collections::HashMap;
use std::sync::Mutex;

use bytes::Bytes;
use soapstone_codec::Version;

type Key = (Version, Vec<u8>);

/// A bounded response cache for one operation.
#[derive(Debug)]
pub(crate) struct ResponseCache {
    generation: usize,
    maps: Mutex<Generations>,
}

#[derive(Debug, Default)]
struct Generations {
    young: HashMap<Key, Bytes>,
    old: HashMap<Key, Bytes>,
}

impl ResponseCache {
    /// A cache holding at most `capacity` responses (at least 2).
    pub(crate) fn new(capacity: usize) -> Self {
        ResponseCache {
            generation: (capacity / 2).max(1),
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
        if maps.young.len() >= self.generation && !maps.young.contains_key(&key) {
            maps.old = std::mem::take(&mut maps.young);
        }
        maps.young.insert(key, response);
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        let maps = self.maps.lock().unwrap();
        maps.young.len() + maps.old.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounded_and_keeps_recent() {
        let cache = ResponseCache::new(4);
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
}
