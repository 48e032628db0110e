//! The byte-level mutations every stable fuzz harness applies to its seeds (the stand-in for
//! `cargo fuzz`'s mutator on a stable toolchain), and the proptest settings they share: one copy
//! instead of one per crate. Test support only (`publish = false`); nothing here runs in a
//! server or client.
//!
//! A harness names the markup it wants inserted (its [`Mutator::snippets`]: what the layer under
//! test must refuse or handle) and how far a deletion or duplication reaches; the operations are
//! plain data, so a failing case prints and shrinks like any other proptest input.

use proptest::prelude::*;

/// One edit of a document; positions wrap around its length, so any `usize` is valid.
#[derive(Debug, Clone)]
pub enum Op {
    /// Overwrite the byte at a position.
    Flip(usize, u8),
    /// Remove up to `n` bytes from a position.
    Delete(usize, usize),
    /// Insert snippet `i` at a position.
    Insert(usize, usize),
    /// Repeat up to `n` bytes from a position right after themselves.
    Duplicate(usize, usize),
    /// Cut the document at a position.
    Truncate(usize),
}

/// What a harness mutates with.
#[derive(Debug, Clone, Copy)]
pub struct Mutator<S: 'static> {
    /// Pieces of markup an [`Op::Insert`] puts in.
    pub snippets: &'static [S],
    /// The longest [`Op::Delete`] (exclusive).
    pub max_delete: usize,
    /// The longest [`Op::Duplicate`] (exclusive).
    pub max_duplicate: usize,
    /// How much likelier an insertion is than each other operation (1: as likely).
    pub insert_weight: u32,
}

impl<S: AsRef<[u8]> + Sync> Mutator<S> {
    /// A strategy for one [`Op`].
    pub fn op(&self) -> impl Strategy<Value = Op> {
        let (snippets, delete, duplicate) =
            (self.snippets.len(), self.max_delete, self.max_duplicate);
        prop_oneof![
            1 => (any::<usize>(), any::<u8>()).prop_map(|(a, b)| Op::Flip(a, b)),
            1 => (any::<usize>(), 0..delete).prop_map(|(a, n)| Op::Delete(a, n)),
            self.insert_weight => (any::<usize>(), 0..snippets).prop_map(|(a, s)| Op::Insert(a, s)),
            1 => (any::<usize>(), 0..duplicate).prop_map(|(a, n)| Op::Duplicate(a, n)),
            1 => any::<usize>().prop_map(Op::Truncate),
        ]
    }

    /// `doc` with `ops` applied in order.
    pub fn apply(&self, mut doc: Vec<u8>, ops: &[Op]) -> Vec<u8> {
        for op in ops {
            let len = doc.len().max(1);
            match *op {
                Op::Flip(at, b) => {
                    if !doc.is_empty() {
                        doc[at % len] = b;
                    }
                }
                Op::Delete(at, n) => {
                    let a = at % len;
                    let b = (a + n).min(doc.len());
                    if a < b {
                        doc.drain(a..b);
                    }
                }
                Op::Insert(at, s) => {
                    let a = (at % len).min(doc.len());
                    doc.splice(a..a, self.snippets[s].as_ref().iter().copied());
                }
                Op::Duplicate(at, n) => {
                    let a = (at % len).min(doc.len());
                    let b = (a + n).min(doc.len());
                    let piece = doc[a..b].to_vec();
                    doc.splice(b..b, piece);
                }
                Op::Truncate(at) => doc.truncate(at % len),
            }
        }
        doc
    }
}

/// `cases` unless `PROPTEST_CASES` asks for another count (a long campaign:
/// `PROPTEST_CASES=200000 cargo test --release`); finds are saved next to the test's source
/// (`<file>.proptest-regressions`, committed) and replayed first, while new cases stay random.
pub fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(cases),
        failure_persistence: Some(Box::new(
            proptest::test_runner::FileFailurePersistence::WithSource("proptest-regressions"),
        )),
        ..ProptestConfig::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const M: Mutator<&str> = Mutator {
        snippets: &["<x>"],
        max_delete: 4,
        max_duplicate: 4,
        insert_weight: 1,
    };

    #[test]
    fn each_operation_edits_as_documented() {
        let doc = b"abcdef".to_vec();
        assert_eq!(M.apply(doc.clone(), &[Op::Flip(7, b'X')]), b"aXcdef");
        assert_eq!(M.apply(doc.clone(), &[Op::Delete(2, 3)]), b"abf");
        assert_eq!(M.apply(doc.clone(), &[Op::Insert(1, 0)]), b"a<x>bcdef");
        assert_eq!(M.apply(doc.clone(), &[Op::Duplicate(4, 9)]), b"abcdefef");
        assert_eq!(M.apply(doc.clone(), &[Op::Truncate(3)]), b"abc");
        assert_eq!(
            M.apply(Vec::new(), &[Op::Flip(3, 1), Op::Delete(0, 3)]),
            b""
        );
    }
}
