//! The hash of the routing tables (a dispatcher's operations by action and by body element):
//! a word at a time, where FNV, which they used before, takes a byte a round.
//!
//! Why it exists: each request looks up its action (`http://soapinterop.org/`, 23 bytes) and
//! its body element's name, and FNV's byte loop cost about 200 instructions of an echoFloat
//! request by callgrind (docs/performance.md, round seven). The mix is FxHash's (rustc's:
//! rotate, xor, multiply per eight bytes), written here rather than taken as a dependency
//! for twenty lines.
//!
//! Must never: hash a table whose keys a request can insert. The keys are the service
//! model's names, fixed when the server is built; a request's names are only looked up, so
//! they cannot lengthen a probe, and the table needs no seed an adversary cannot guess.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A map of the service's own names (see the module docs).
pub(crate) type Table<K, V> = HashMap<K, V, BuildHasherDefault<WordHasher>>;

/// FxHash's mix over little-endian words.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct WordHasher(u64);

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl WordHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for WordHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for w in &mut words {
            let mut word = [0u8; 8];
            word.copy_from_slice(w);
            self.add(u64::from_le_bytes(word));
        }
        let rest = words.remainder();
        if !rest.is_empty() {
            // the tail, zero-padded, and its length so that `a` and `a\0` differ
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(word) ^ ((rest.len() as u64) << 59));
        }
    }

    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::{BuildHasher, Hash};

    fn hash<T: Hash + ?Sized>(v: &T) -> u64 {
        BuildHasherDefault::<WordHasher>::default().hash_one(v)
    }

    #[test]
    fn names_that_differ_anywhere_hash_apart() {
        let names = [
            "",
            "a",
            "a\0",
            "echoFloat",
            "echoFloats",
            "echoFloat\0",
            "http://soapinterop.org/",
            "http://soapinterop.org",
            "http://soapinterop.org/x",
            "http://tempuri.org/echoFloat",
            "urn:charging#releaseRes",
            "urn:charging#reserve",
        ];
        for (i, a) in names.iter().enumerate() {
            for b in &names[i + 1..] {
                assert_ne!(hash(*a), hash(*b), "{a:?} {b:?}");
                assert_ne!(hash(a.as_bytes()), hash(b.as_bytes()), "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn a_table_finds_by_str_and_by_bytes() {
        let mut by_str: Table<&str, usize> = Table::default();
        let mut by_bytes: Table<&[u8], usize> = Table::default();
        for (i, name) in ["echoString", "echoFloat", "echoStruct", "x"]
            .iter()
            .enumerate()
        {
            by_str.insert(name, i);
            by_bytes.insert(name.as_bytes(), i);
        }
        assert_eq!(by_str.get("echoFloat"), Some(&1));
        assert_eq!(by_bytes.get(&b"echoStruct"[..]), Some(&2));
        assert_eq!(by_str.get("echoFloa"), None);
        assert_eq!(by_bytes.get(&b"y"[..]), None);
    }
}
