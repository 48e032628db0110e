//! The last few envelope openings [`encode`](super::encode) wrote, remembered per thread: the
//! bytes from the XML declaration to the end of the wrapper's start tag, which depend only on
//! the options and the wrapper's name, so a server answering the same operation again (or a
//! client calling it again) copies them instead of writing them piece by piece.
//!
//! Why it exists: that opening is a dozen appends and an escape scan of the wrapper's
//! namespace, about 500 instructions and a few dozen instruction-cache lines of an echoFloat
//! answer's 12,300 (callgrind, docs/performance.md "Round eleven"); the remembered copy is a
//! key comparison and one copy. It is the encoding side of `envelope/opening.rs`.
//!
//! It must never write anything but the bytes the opening would be written as (the key holds
//! every input the opening depends on, compared in full), and never keep more than
//! [`SLOTS`] x [`MAX_OPENING`] bytes per thread (and the answers remembered past each opening,
//! `replay`'s bound). A thread's memory is only borrowed where no code of the caller runs, but
//! for the answer's playback, which runs the value's `Serialize`: an `encode` inside it finds
//! the memory busy and writes in full (no panic).

use std::cell::RefCell;

use super::replay::Answer;
use crate::QName;

/// Openings kept per thread, most recently used first.
const SLOTS: usize = 4;
/// A longer opening (a very long namespace) is written every time.
const MAX_OPENING: usize = 1024;

struct Slot {
    /// Which opening this is: a slot taken for another opening gets a new stamp, so the
    /// answers learned past it (`replay`) are found only under their own opening.
    stamp: u64,
    /// Every option the opening depends on ([`super::encode`]'s `opening_key`).
    key: u8,
    namespace: String,
    local: String,
    bytes: Vec<u8>,
    /// The answers remembered past this opening (`replay`), most recently learned first.
    answers: Vec<Answer>,
}

/// Names the remembered opening an answer was written after (see [`with_answers`]).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) struct Stamp(u64);

thread_local! {
    static NEXT_STAMP: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

thread_local! {
    static LAST: RefCell<Vec<Slot>> = const { RefCell::new(Vec::new()) };
}

/// Appends the remembered opening for `key` and `wrapper` to `out`; `None` (and nothing
/// written) when there is none (or the memory is busy: an `encode` inside a playback).
pub(super) fn recall(out: &mut Vec<u8>, key: u8, wrapper: &QName) -> Option<Stamp> {
    LAST.with(|last| {
        let mut slots = last.try_borrow_mut().ok()?;
        let i = slots.iter().position(|s| {
            s.key == key && s.local == wrapper.local && s.namespace == wrapper.namespace
        })?;
        if i > 0 {
            slots[..=i].rotate_right(1);
        }
        out.extend_from_slice(&slots[0].bytes);
        Some(Stamp(slots[0].stamp))
    })
}

/// Remembers `bytes` as the opening for `key` and `wrapper`, in place of the least recently
/// used one; `None` when it is not kept.
pub(super) fn remember(key: u8, wrapper: &QName, bytes: &[u8]) -> Option<Stamp> {
    if bytes.len() > MAX_OPENING {
        return None;
    }
    let stamp = NEXT_STAMP.with(|n| {
        n.set(n.get() + 1);
        n.get()
    });
    LAST.with(|last| {
        let mut slots = last.try_borrow_mut().ok()?;
        let mut slot = if slots.len() == SLOTS {
            slots.pop().expect("SLOTS > 0")
        } else {
            Slot {
                stamp,
                key,
                namespace: String::new(),
                local: String::new(),
                bytes: Vec::new(),
                answers: Vec::new(),
            }
        };
        slot.stamp = stamp;
        slot.key = key;
        slot.namespace.clone_from(&wrapper.namespace);
        slot.local.clone_from(&wrapper.local);
        slot.bytes.clear();
        slot.bytes.extend_from_slice(bytes);
        slot.answers.clear();
        slots.insert(0, slot);
        Some(Stamp(stamp))
    })
}

/// Runs `f` on the answers remembered past the opening `stamp` names; `None` when this thread
/// no longer remembers it (or is already inside `f`).
pub(super) fn with_answers<R>(stamp: Stamp, f: impl FnOnce(&mut Vec<Answer>) -> R) -> Option<R> {
    LAST.with(|last| {
        let mut slots = last.try_borrow_mut().ok()?;
        let slot = slots.iter_mut().find(|s| s.stamp == stamp.0)?;
        Some(f(&mut slot.answers))
    })
}

/// Forgets this thread's openings (tests compare a remembered opening with a written one).
#[cfg(test)]
pub(crate) fn forget() {
    LAST.with_borrow_mut(Vec::clear);
}

#[cfg(test)]
mod tests {
    use super::forget;
    use crate::{encode, EncodeOptions, QName, SchemaNs, Style, Version};

    #[derive(serde::Serialize)]
    struct Echo {
        #[serde(rename = "inputFloat")]
        input_float: f32,
        text: String,
    }

    /// Every combination of the options the opening depends on, and one with an RPC result.
    fn all_options() -> Vec<EncodeOptions> {
        let mut all = Vec::new();
        for version in [Version::Soap11, Version::Soap12] {
            for style in [Style::Literal, Style::Encoded] {
                for bits in 0..16u8 {
                    let mut o = EncodeOptions {
                        version,
                        style,
                        ..EncodeOptions::default()
                    };
                    o.xml_declaration = bits & 1 != 0;
                    o.qualified = bits & 2 != 0;
                    o.xsi_types = (bits & 4 != 0).then_some(true);
                    o.schema_ns = if bits & 8 != 0 {
                        SchemaNs::Xsd1999
                    } else {
                        SchemaNs::Xsd2001
                    };
                    all.push(o);
                }
            }
        }
        let mut rpc = EncodeOptions {
            version: Version::Soap12,
            style: Style::Encoded,
            ..EncodeOptions::default()
        };
        rpc.rpc_result = Some("return".into());
        all.push(rpc);
        all
    }

    fn written(options: &EncodeOptions, headers: &[&str], wrapper: &QName) -> Vec<u8> {
        let value = Echo {
            input_float: 654.321,
            text: "a<b".into(),
        };
        let mut out = b"kept".to_vec();
        encode(&mut out, options, headers, wrapper, &value).unwrap();
        out
    }

    #[test]
    fn a_remembered_opening_is_the_one_that_would_be_written() {
        let wrappers = [
            QName::new("http://soapinterop.org/", "echoFloatResponse"),
            QName::new("http://soapinterop.org/", "echoStringResponse"),
            QName::new("urn:a&\"b<", "echoFloatResponse"),
            QName::new("", "unqualified"),
        ];
        let mut cases = Vec::new();
        for options in all_options() {
            for wrapper in &wrappers {
                forget();
                let fresh = written(&options, &[], wrapper);
                cases.push((options.clone(), wrapper, fresh));
            }
        }
        // Twice through, memory warm: far more keys than slots, each one recalled right
        // after it was written and after others pushed it out.
        for _ in 0..2 {
            for (options, wrapper, fresh) in &cases {
                assert_eq!(written(options, &[], wrapper), *fresh);
                let again = written(options, &[], wrapper);
                assert_eq!(
                    String::from_utf8_lossy(&again),
                    String::from_utf8_lossy(fresh)
                );
            }
        }
    }

    #[test]
    fn header_blocks_and_long_openings_are_written_every_time() {
        let wrapper = QName::new("http://soapinterop.org/", "echoFloatResponse");
        let options = EncodeOptions::default();
        forget();
        let plain = written(&options, &[], &wrapper);
        let header = "<h:t xmlns:h=\"urn:h\">1</h:t>";
        let with = written(&options, &[header], &wrapper);
        assert!(String::from_utf8_lossy(&with).contains(header));
        assert_eq!(written(&options, &[], &wrapper), plain);
        assert_eq!(written(&options, &[header], &wrapper), with);

        let long = QName::new(format!("urn:{}", "n".repeat(2000)), "op");
        forget();
        let fresh = written(&options, &[], &long);
        assert_eq!(written(&options, &[], &long), fresh);
        assert!(
            super::LAST.with_borrow(Vec::is_empty),
            "a long opening is not kept"
        );
    }
}
