//! The remembered answer against the full path: every scalar, every option the answer's
//! bytes depend on, values it must hand back, shapes it must not learn, and random values.

use super::PLAYED;
use crate::ser::opening::forget;
use crate::{encode, EncodeError, EncodeOptions, QName, SchemaNs, Style, Version};
use proptest::prelude::*;
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
struct Mixed {
    b: bool,
    i8: i8,
    i16: i16,
    i: i32,
    l: i64,
    big: i128,
    u8: u8,
    u16: u16,
    u: u32,
    ul: u64,
    ubig: u128,
    f: f32,
    d: f64,
    c: char,
    s: String,
    o: Option<i32>,
    #[serde(rename = "return")]
    ret: (),
}

fn mixed(f: f32, s: &str, o: Option<i32>) -> Mixed {
    Mixed {
        b: f > 0.0,
        i8: -8,
        i16: 16,
        i: f as i32,
        l: i64::MIN,
        big: i128::MAX,
        u8: 255,
        u16: 0,
        u: 7,
        ul: u64::MAX,
        ubig: 1,
        f,
        d: f64::from(f) * 3.0,
        c: s.chars().next().unwrap_or('x'),
        s: s.to_string(),
        o,
        ret: (),
    }
}

fn wrapper() -> QName {
    QName::new("http://soapinterop.org/", "echoFloatResponse")
}

/// Every combination of the options the answer's bytes depend on.
fn all_options() -> Vec<EncodeOptions> {
    let mut all = Vec::new();
    for version in [Version::Soap11, Version::Soap12] {
        for style in [Style::Literal, Style::Encoded] {
            for bits in 0..8u8 {
                all.push(EncodeOptions {
                    version,
                    style,
                    qualified: bits & 1 != 0,
                    xsi_types: (bits & 2 != 0).then_some(true),
                    schema_ns: if bits & 4 != 0 {
                        SchemaNs::Xsd1999
                    } else {
                        SchemaNs::Xsd2001
                    },
                    ..EncodeOptions::default()
                });
            }
        }
    }
    all
}

/// `value`'s answer as `encode` writes it with this thread's memory (played back when it
/// can be), and whether it was played back.
fn remembered<T: Serialize>(
    options: &EncodeOptions,
    value: &T,
) -> (Result<String, EncodeError>, bool) {
    let played = PLAYED.get();
    let mut out = b"kept".to_vec();
    let r =
        encode(&mut out, options, &[], &wrapper(), value).map(|()| String::from_utf8(out).unwrap());
    (r, PLAYED.get() > played)
}

/// `value`'s answer written in full, with no memory, which is left empty.
fn full<T: Serialize>(options: &EncodeOptions, value: &T) -> Result<String, EncodeError> {
    forget();
    let mut out = b"kept".to_vec();
    let r =
        encode(&mut out, options, &[], &wrapper(), value).map(|()| String::from_utf8(out).unwrap());
    forget();
    r
}

/// Writes `value` until its answer is remembered (the opening and the answer are learned
/// on the first write, played on the second).
fn learn<T: Serialize>(options: &EncodeOptions, value: &T) {
    forget();
    let (first, played) = remembered(options, value);
    assert!(!played);
    let (second, played) = remembered(options, value);
    assert_eq!(first, second);
    assert!(played, "the second answer is played back");
}

#[test]
fn an_answer_like_the_last_one_is_played_back_and_writes_the_same() {
    for options in all_options() {
        for (learned, next) in [
            (
                mixed(1.5, "hello", Some(1)),
                mixed(654.321, "a<b & c>d\r\n", Some(-9)),
            ),
            (
                mixed(-0.0, "", Some(0)),
                mixed(f32::NAN, "é \"quoted\" 'x'", Some(i32::MAX)),
            ),
            (
                mixed(f32::INFINITY, "x", Some(5)),
                mixed(f32::NEG_INFINITY, "", Some(0)),
            ),
        ] {
            let want = full(&options, &next).unwrap();
            learn(&options, &learned);
            let (got, played) = remembered(&options, &next);
            assert_eq!(got.unwrap(), want, "{options:?}");
            assert!(played, "{options:?}");
        }
    }
}

#[test]
fn a_value_that_makes_other_calls_is_written_in_full_and_learned_again() {
    let options = EncodeOptions {
        style: Style::Encoded,
        ..EncodeOptions::default()
    };
    let some = mixed(1.5, "a", Some(1));
    let none = mixed(2.5, "b", None);
    learn(&options, &some);
    // `None` where the tape has `Some`: the full answer, learned in its place.
    let (got, played) = remembered(&options, &none);
    assert_eq!(got.unwrap(), full(&options, &none).unwrap());
    assert!(!played);
    learn(&options, &none);
    let (got, played) = remembered(&options, &mixed(3.5, "c", None));
    assert_eq!(
        got.unwrap(),
        full(&options, &mixed(3.5, "c", None)).unwrap()
    );
    assert!(played);
    // A value that keeps changing is relearned a few times, then written in full, always.
    forget();
    for n in 0..20 {
        let value = mixed(n as f32, "x", (n % 2 == 0).then_some(n));
        let (got, played) = remembered(&options, &value);
        assert_eq!(got.unwrap(), full_keep(&options, &value));
        assert!(!played, "round {n}");
    }
}

#[derive(Serialize)]
struct Tail {
    a: i32,
    #[serde(skip_serializing_if = "Option::is_none")]
    tail: Option<i32>,
}

#[test]
fn a_value_that_makes_fewer_calls_is_written_in_full() {
    for options in all_options() {
        learn(
            &options,
            &Tail {
                a: 1,
                tail: Some(2),
            },
        );
        let short = Tail { a: 3, tail: None };
        let (got, played) = remembered(&options, &short);
        assert_eq!(got.unwrap(), full_keep(&options, &short), "{options:?}");
        assert!(!played);
    }
}

/// [`full`] without forgetting this thread's memory (it saves and restores nothing: the
/// full answer is written by a fresh thread).
fn full_keep<T: Serialize + Sync>(options: &EncodeOptions, value: &T) -> String {
    std::thread::scope(|s| s.spawn(|| full(options, value).unwrap()).join().unwrap())
}

#[derive(Serialize)]
struct Inner {
    x: i32,
}

#[derive(Serialize)]
struct Nested {
    a: i32,
    inner: Inner,
}

#[derive(Serialize)]
struct Many {
    items: Vec<i32>,
}

#[derive(Serialize)]
struct Wrapped(i32);

#[derive(Serialize)]
struct Newtype {
    w: Wrapped,
}

#[derive(Serialize)]
struct Attr {
    #[serde(rename = "@id")]
    id: i32,
    v: i32,
}

#[derive(Serialize)]
struct OtherNs {
    #[serde(rename = "{urn:other}v")]
    v: i32,
}

#[derive(Serialize)]
enum Colour {
    Red,
    Blue,
}

#[derive(Serialize)]
struct Enum {
    c: Colour,
}

fn never_played<T: Serialize + Sync>(values: &[T]) {
    for options in all_options() {
        forget();
        for v in values.iter().chain(values) {
            let (got, played) = remembered(&options, v);
            assert_eq!(got.unwrap(), full_keep(&options, v), "{options:?}");
            assert!(!played, "{options:?}");
        }
    }
}

#[test]
fn shapes_the_playback_cannot_repeat_are_written_in_full_always() {
    never_played(&[
        Nested {
            a: 1,
            inner: Inner { x: 2 },
        },
        Nested {
            a: 3,
            inner: Inner { x: 4 },
        },
    ]);
    never_played(&[Many { items: vec![1, 2] }, Many { items: vec![3] }]);
    never_played(&[Newtype { w: Wrapped(1) }, Newtype { w: Wrapped(2) }]);
    never_played(&[Attr { id: 1, v: 2 }, Attr { id: 3, v: 4 }]);
    never_played(&[OtherNs { v: 1 }, OtherNs { v: 2 }]);
    never_played(&[Enum { c: Colour::Red }, Enum { c: Colour::Blue }]);
    let map = |k: &str| std::collections::BTreeMap::from([(k.to_string(), 1)]);
    never_played(&[map("a"), map("b")]);
}

#[test]
fn what_the_full_path_refuses_it_refuses_with_its_own_error() {
    let options = EncodeOptions::default();
    learn(&options, &mixed(1.5, "ok", Some(1)));
    let bad = mixed(1.5, "bell\u{7}", Some(1));
    let (got, played) = remembered(&options, &bad);
    assert!(!played);
    let err = got.unwrap_err();
    assert_eq!(err, full(&options, &bad).unwrap_err());
    assert!(err.to_string().contains("U+0007"), "{err}");
    // The tape is still good after a refusal.
    learn(&options, &mixed(1.5, "ok", Some(1)));
    let (_, played) = remembered(&options, &mixed(2.5, "fine", Some(2)));
    assert!(played);

    // Past `max_bytes` on the playback: the full path's error.
    let short = mixed(1.5, "ok", Some(1));
    let limit = full(&options, &short).unwrap().len() - "kept".len() + 4;
    let limited = EncodeOptions {
        max_bytes: limit,
        ..EncodeOptions::default()
    };
    learn(&limited, &short);
    let long = mixed(1.5, &"y".repeat(40), Some(1));
    let (got, played) = remembered(&limited, &long);
    assert!(!played);
    assert_eq!(got.unwrap_err(), full(&limited, &long).unwrap_err());
}

/// A `Serialize` that writes 8 on every third call and 7 otherwise: the full path writes
/// 7 (call 0), the recorder finds it where it wrote it (call 1), only the self-check's
/// playback (call 2) writes 8, so the tape is not kept, and no later answer is played.
struct Fickle(std::cell::Cell<u32>);

impl Serialize for Fickle {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let n = self.0.get();
        self.0.set(n + 1);
        let mut st = s.serialize_struct("Fickle", 1)?;
        st.serialize_field("a", &if n % 3 == 2 { 8 } else { 7 })?;
        st.end()
    }
}

#[test]
fn a_value_that_writes_otherwise_when_checked_is_not_kept() {
    let options = EncodeOptions::default();
    forget();
    let fickle = Fickle(std::cell::Cell::new(0));
    for _ in 0..6 {
        let (got, played) = remembered(&options, &fickle);
        let got = got.unwrap();
        assert!(
            got.contains("<a>7</a>") || got.contains("<a>8</a>"),
            "{got}"
        );
        assert!(!played, "{got}");
    }
}

/// A `Serialize` that writes an answer of its own inside (an `encode` in the playback).
struct Reentrant(i32);

impl Serialize for Reentrant {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut inner = Vec::new();
        encode(
            &mut inner,
            &EncodeOptions::default(),
            &[],
            &wrapper(),
            &Inner { x: self.0 },
        )
        .map_err(serde::ser::Error::custom)?;
        let mut st = s.serialize_struct("Reentrant", 2)?;
        st.serialize_field("v", &self.0)?;
        st.serialize_field("len", &(inner.len() as u64))?;
        st.end()
    }
}

#[test]
fn an_answer_written_inside_a_playback_is_written_in_full() {
    let options = EncodeOptions::default();
    learn(&options, &Reentrant(1));
    for n in [2, -300, 7] {
        let (got, played) = remembered(&options, &Reentrant(n));
        assert_eq!(got.unwrap(), full_keep(&options, &Reentrant(n)));
        assert!(played);
    }
}

proptest! {
    #[test]
    fn a_played_answer_is_the_full_answer(
        f in any::<f32>(),
        s in "[ -~\u{a0}-\u{2fff}\t\n\r]{0,40}",
        o in proptest::option::of(any::<i32>()),
        encoded in any::<bool>(),
    ) {
        let options = EncodeOptions {
            style: if encoded { Style::Encoded } else { Style::Literal },
            ..EncodeOptions::default()
        };
        let value = mixed(f, &s, o);
        let want = full(&options, &value).unwrap();
        learn(&options, &mixed(1.0, "learned", o.map(|_| 0)));
        let (got, played) = remembered(&options, &value);
        prop_assert_eq!(got.unwrap(), want);
        prop_assert!(played);
    }
}
