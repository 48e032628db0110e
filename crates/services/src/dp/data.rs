//! The Davis and Parashar test interface (seed 001): `doNothing`, `setSize`, and `getString` /
//! `getIntegers` answering with a string / an int array of the size last set. The size is one
//! value for the whole server, as in the paper (a client sets it, then times the getters); the
//! stateless `...OfSize(n)` variants let concurrent clients ask for different sizes.
//!
//! Must never: build an answer bigger than [`MAX_SIZE`] items.

use std::sync::atomic::{AtomicUsize, Ordering};

use soapstone_codec::Fault;

/// The largest size `setSize` and the `...OfSize` operations accept.
pub const MAX_SIZE: usize = 100_000;

/// The size before any `setSize`: the smallest size of the paper's tables.
pub const DEFAULT_SIZE: usize = 200;

/// The alphabet repeated by the strings: no XML markup, so parsing cost does not depend on length.
const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz";

/// The server-wide size.
#[derive(Debug)]
pub struct DpState {
    size: AtomicUsize,
}

impl Default for DpState {
    fn default() -> Self {
        DpState {
            size: AtomicUsize::new(DEFAULT_SIZE),
        }
    }
}

/// Checks a requested size.
pub fn check_size(size: i32) -> Result<usize, Fault> {
    usize::try_from(size)
        .ok()
        .filter(|&s| s <= MAX_SIZE)
        .ok_or_else(|| Fault::client(format!("size `{size}` is out of range `0..={MAX_SIZE}`")))
}

/// A string of `n` letters, `abc...zabc...`.
pub fn string_of(n: usize) -> String {
    ALPHABET
        .iter()
        .cycle()
        .take(n)
        .map(|&b| char::from(b))
        .collect()
}

/// The integers `0, 1, ..., n-1`.
pub fn integers_of(n: usize) -> Vec<i32> {
    (0..n).map(|i| i as i32).collect()
}

impl DpState {
    /// `setSize(size)`.
    pub fn set_size(&self, size: i32) -> Result<(), Fault> {
        self.size.store(check_size(size)?, Ordering::Relaxed);
        Ok(())
    }

    /// The current size.
    pub fn size(&self) -> usize {
        self.size.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        let s = DpState::default();
        assert_eq!(s.size(), 200);
        s.set_size(800).unwrap();
        assert_eq!(s.size(), 800);
        assert_eq!(
            s.set_size(-1).unwrap_err().reason,
            "size `-1` is out of range `0..=100000`"
        );
        assert_eq!(
            s.set_size(100_001).unwrap_err().reason,
            "size `100001` is out of range `0..=100000`"
        );
        assert_eq!(s.size(), 800);
        assert_eq!(string_of(28), "abcdefghijklmnopqrstuvwxyzab");
        assert_eq!(integers_of(4), vec![0, 1, 2, 3]);
        assert!(string_of(0).is_empty());
    }
}
