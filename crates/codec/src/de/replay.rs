//! The remembered body: differential deserialization past the remembered opening.
//!
//! `envelope::opening` remembers the bytes every message of an operation shares up to the
//! operation element's start tag. After it, an RPC-style request is usually the same bytes
//! again with other values: `<inputFloat xsi:type="xsd:float">1.5</inputFloat></ns1:echoFloat>
//! </SOAP-ENV:Body></SOAP-ENV:Envelope>`. So when a body is read in full past a remembered
//! opening, the decoder also records what it handed the target type (a tape: each field's key
//! and which scalar method read which text), and the body is remembered as its bytes with the
//! values cut out (holes). The next message of that opening whose bytes match the remembered
//! ones around the holes, each hole holding plain text (no markup, no reference, no `]`, no
//! carriage return), is the same document but for those texts: its value is the tape played
//! back with the new texts, through the same conversions, without reading any XML. This is
//! the rest of Abu-Ghazaleh and Lewis's and Suzumura et al.'s differential deserialization.
//!
//! It must never give another answer than the full read. What makes that so:
//! - Outside the holes the bytes are the ones the full read read: the same elements,
//!   attributes, namespaces, `xsi:type`s and `xsi:nil`s, so the same checks passed and the
//!   same keys were presented in the same order; the UTF-8 and character checks of the new
//!   bytes were made by `Envelope::parse` (the opening's `recall`).
//! - A hole is the whole text of a simple element, `>` before it and `</` after it, text the
//!   full read took as it is (borrowed: no entity, no CDATA, no comment inside). A new hole
//!   must be such text too, no longer than `max_text_len`, or the message is read in full.
//! - Only tapes of one shape are kept: the target is a struct read from the operation
//!   element, each field a child element read by one scalar method (through `Option` or a
//!   newtype at most), or an absent field. Anything else (nested structs, arrays, `href`s,
//!   wildcards, unknown children, markup capture) spoils the tape and the body is read in
//!   full, always. Before a body is kept it is played back over the very bytes it was
//!   learned from; a target that asks the playback anything it cannot answer is not kept.
//! - A conversion that fails on a new text (`<inputFloat>abc</inputFloat>`) is not an error
//!   of the playback: the message is read in full, and the full read reports it, with its
//!   path and position.
//!
//! Bounded: a thread keeps at most [`BODIES`] bodies per remembered opening, each at most
//! [`MAX_BODY`] bytes with at most [`MAX_HOLES`] holes, so at most `SLOTS x BODIES x
//! MAX_BODY` bytes (64 KiB) besides the openings. A body is keyed by the target's type and
//! the style, so two services that share an opening do not share bodies.

use std::borrow::Cow;

use serde::de::{self, DeserializeOwned, DeserializeSeed, MapAccess, Visitor};

use super::access::Absent;
use super::{parse_bool, parse_float, parse_int, single_char, trim_xml};
use crate::error::DecodeError;
use crate::{Envelope, Style};

/// Bodies a thread remembers past one opening (one per target type and style).
const BODIES: usize = 2;
/// The longest body remembered (from the end of the opening to the end of the document).
const MAX_BODY: usize = 8 << 10;
/// The most holes (values) a remembered body has.
const MAX_HOLES: usize = 16;

/// Which scalar method read a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    I8,
    I16,
    I32,
    I64,
    I128,
    U8,
    U16,
    U32,
    U64,
    U128,
    F32,
    F64,
    Bool,
    Char,
    Str,
    Bytes,
}

/// What the full read handed the target, in order.
#[derive(Clone, Copy, Debug)]
enum Step {
    /// A field's key, its element present: a value step follows.
    Key(&'static str),
    /// A value read by one scalar method from the next hole.
    Value(Kind),
    /// A field whose element is absent, offered after the end tag.
    Absent(&'static str),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Nothing read yet: the operation element's struct must come first.
    Top,
    /// Inside the operation element's struct, between fields.
    Fields,
    /// A field's element was handed out: one scalar method must read it.
    Value,
    /// Something the playback cannot repeat was read.
    Spoiled,
    /// A value's text was not a hole's (empty element, CDATA, a reference): perhaps the next
    /// message's is. Nothing more is recorded (but a spoiling read).
    Unplain,
}

/// The record a full read keeps while it reads (`Ctx::tape`).
#[derive(Debug)]
pub(crate) struct Tape {
    state: State,
    steps: Vec<Step>,
    /// Byte ranges of the values' texts in the input, in document order.
    holes: Vec<(usize, usize)>,
    /// Where the input's text is in memory (to find a borrowed text's offset).
    base: usize,
    len: usize,
}

impl Tape {
    pub(crate) fn new(input: &str) -> Self {
        Tape {
            state: State::Top,
            steps: Vec::new(),
            holes: Vec::new(),
            base: input.as_ptr() as usize,
            len: input.len(),
        }
    }

    /// The operation element's struct is read (`fields`: it reads children, not markup).
    pub(crate) fn open_struct(&mut self) {
        self.state = match self.state {
            State::Top => State::Fields,
            State::Unplain => State::Unplain,
            _ => State::Spoiled,
        };
    }

    /// A child element is handed to the target as the field `key` (`None`: not one of the
    /// struct's fields by name, e.g. a wildcard's or an unknown element).
    pub(crate) fn key(&mut self, key: Option<&'static str>) {
        match (self.state, key) {
            (State::Fields, Some(key)) if self.steps.len() < 4 * MAX_HOLES => {
                self.steps.push(Step::Key(key));
                self.state = State::Value;
            }
            (State::Unplain, _) => {}
            _ => self.state = State::Spoiled,
        }
    }

    /// An absent field is offered as `name`.
    pub(crate) fn absent(&mut self, name: &'static str) {
        match self.state {
            State::Fields if self.steps.len() < 4 * MAX_HOLES => {
                self.steps.push(Step::Absent(name))
            }
            State::Unplain => {}
            _ => self.state = State::Spoiled,
        }
    }

    /// A scalar method read `text` as `kind`.
    #[allow(clippy::ptr_arg)] // the variant is the question: borrowed from the input or not
    pub(crate) fn value(&mut self, kind: Kind, text: &Cow<'_, str>) {
        if self.state == State::Unplain {
            return;
        }
        if self.state != State::Value || self.holes.len() == MAX_HOLES {
            self.state = State::Spoiled;
            return;
        }
        // Borrowed from the input (not unescaped, not joined, not a static empty string).
        let at = (text.as_ptr() as usize).checked_sub(self.base).filter(
            |at| matches!(text, Cow::Borrowed(t) if at + t.len() <= self.len && !t.is_empty()),
        );
        let Some(at) = at else {
            self.state = State::Unplain;
            return;
        };
        self.steps.push(Step::Value(kind));
        self.holes.push((at, at + text.len()));
        self.state = State::Fields;
    }

    /// Something else was read: nothing recorded from here on can be played back.
    pub(crate) fn spoil(&mut self) {
        self.state = State::Spoiled;
    }
}

/// A body remembered past an opening: its bytes around the holes, and the tape.
#[derive(Debug)]
pub(crate) struct Remembered {
    target: std::any::TypeId,
    style: Style,
    /// `None`: the target's bodies cannot be played back; read them in full, always.
    body: Option<Body>,
}

#[derive(Debug)]
struct Body {
    /// The bytes around the holes, one after another.
    around: Vec<u8>,
    /// The end (in `around`) of the bytes before each hole; the last piece runs to the end.
    cuts: Vec<usize>,
    steps: Vec<Step>,
}

/// What [`recall`] found for a body.
pub(crate) enum Recall<T> {
    /// Played back.
    Value(T),
    /// Not remembered (or not matching): read in full and record.
    Learn,
    /// Read in full, without recording.
    Read,
}

/// The value of `env`'s body played back from the body remembered past its opening, when
/// there is one for `T` and `style` and the bytes match it.
pub(crate) fn recall<T: DeserializeOwned>(env: &Envelope<'_>, style: Style) -> Recall<T> {
    let input = env.input;
    super::super::envelope::with_bodies(env.opening, |bodies, from| {
        let Some(i) = bodies
            .iter()
            .position(|r| r.target == typeid::of::<T>() && r.style == style)
        else {
            return Recall::Learn;
        };
        let Some(body) = &bodies[i].body else {
            return Recall::Read;
        };
        let mut holes = [(0, 0); MAX_HOLES];
        if !body.matches(input, from, env.limits.max_text_len, &mut holes) {
            return Recall::Learn;
        }
        let holes = &holes[..body.cuts.len()];
        match play::<T>(&body.steps, input, holes) {
            Ok(v) => {
                if i > 0 {
                    bodies[..=i].rotate_right(1);
                }
                #[cfg(test)]
                PLAYED.set(PLAYED.get() + 1);
                Recall::Value(v)
            }
            // The full read says what is wrong with the new values.
            Err(_) => Recall::Read,
        }
    })
    .unwrap_or(Recall::Read)
}

/// Remembers `env`'s body, read in full under `tape`, past its opening.
pub(crate) fn learn<T: DeserializeOwned>(env: &Envelope<'_>, style: Style, tape: Tape) {
    let input = env.input;
    super::super::envelope::with_bodies(env.opening, |bodies, from| {
        let body = match tape.state {
            State::Fields => Body::take(input, from, &tape),
            // A shape the playback cannot repeat: never try again for this target.
            State::Spoiled | State::Top => None,
            // Text that is not plain (or a value nothing read): perhaps the next one.
            State::Unplain | State::Value => return,
        };
        let body = match body {
            // Played back over the bytes it was learned from, or not kept.
            Some(b) => play::<T>(&b.steps, input, &tape.holes).ok().map(|_| b),
            None if tape.state == State::Fields => return,
            None => None,
        };
        bodies.retain(|r| !(r.target == typeid::of::<T>() && r.style == style));
        if bodies.len() == BODIES {
            bodies.pop();
        }
        bodies.insert(
            0,
            Remembered {
                target: typeid::of::<T>(),
                style,
                body,
            },
        );
    });
}

impl Body {
    /// The body of `input` past `from` with the tape's holes cut out, when each hole is a
    /// simple element's whole text and the body is small enough.
    fn take(input: &str, from: usize, tape: &Tape) -> Option<Body> {
        let bytes = input.as_bytes();
        if bytes.len().checked_sub(from)? > MAX_BODY {
            return None;
        }
        let mut around = Vec::with_capacity(bytes.len() - from);
        let mut cuts = Vec::with_capacity(tape.holes.len());
        let mut at = from;
        for &(start, end) in &tape.holes {
            let whole = start >= at.max(1)
                && bytes.get(start - 1) == Some(&b'>')
                && bytes.get(end..end + 2) == Some(b"</");
            if !whole || !plain(&bytes[start..end]) {
                return None;
            }
            around.extend_from_slice(&bytes[at..start]);
            cuts.push(around.len());
            at = end;
        }
        around.extend_from_slice(&bytes[at..]);
        Some(Body {
            around,
            cuts,
            steps: tape.steps.clone(),
        })
    }

    /// Whether `input` past `from` is these bytes with plain text (at most `max_text` bytes)
    /// in each hole; fills `holes` with where the texts are.
    fn matches(
        &self,
        input: &str,
        from: usize,
        max_text: usize,
        holes: &mut [(usize, usize); MAX_HOLES],
    ) -> bool {
        let Some(mut rest) = input.as_bytes().get(from..) else {
            return false;
        };
        let mut at = from;
        let mut piece_start = 0;
        for (hole, &cut) in holes.iter_mut().zip(&self.cuts) {
            let Some(after) = rest.strip_prefix(&self.around[piece_start..cut]) else {
                return false;
            };
            at += cut - piece_start;
            let Some(len) = after.iter().position(|&b| b == b'<') else {
                return false;
            };
            if len > max_text || !plain(&after[..len]) {
                return false;
            }
            *hole = (at, at + len);
            at += len;
            rest = &after[len..];
            piece_start = cut;
        }
        rest == &self.around[piece_start..]
    }
}

/// Text a full read takes as it is and a hole may hold: no markup, no reference, no `]`
/// (`]]>` is not allowed in text) and no carriage return (line ends are normalised).
fn plain(text: &[u8]) -> bool {
    !text
        .iter()
        .any(|&b| matches!(b, b'<' | b'&' | b']' | b'\r'))
}

/// Plays `steps` back over `input`'s `holes`.
fn play<'a, T: de::Deserialize<'a>>(
    steps: &[Step],
    input: &'a str,
    holes: &[(usize, usize)],
) -> Result<T, DecodeError> {
    T::deserialize(Top {
        steps,
        input,
        holes,
    })
}

fn cannot() -> DecodeError {
    DecodeError::malformed("the remembered body cannot answer this")
}

/// The body's value: the operation element's struct.
struct Top<'r, 'a> {
    steps: &'r [Step],
    input: &'a str,
    holes: &'r [(usize, usize)],
}

impl<'a> de::Deserializer<'a> for Top<'_, 'a> {
    type Error = DecodeError;

    fn deserialize_struct<V: Visitor<'a>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        if name == super::bare::BARE || super::markup::wanted(fields) {
            return Err(cannot());
        }
        let mut map = Fields {
            steps: self.steps.iter(),
            holes: self.holes.iter(),
            input: self.input,
            value: None,
        };
        let v = visitor.visit_map(&mut map)?;
        // The full read drains what the visitor left; here that is constant bytes, but a
        // value left unread was converted there and not here: not the same read.
        if map.steps.next().is_some() {
            return Err(cannot());
        }
        Ok(v)
    }

    fn deserialize_any<V: Visitor<'a>>(self, _visitor: V) -> Result<V::Value, DecodeError> {
        Err(cannot())
    }

    serde::forward_to_deserialize_any! {
        <W: Visitor<'a>>
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option unit
        unit_struct newtype_struct seq tuple tuple_struct map enum identifier ignored_any
    }
}

/// The fields, as the full read's `ChildrenMap` handed them out.
struct Fields<'r, 'a> {
    steps: std::slice::Iter<'r, Step>,
    holes: std::slice::Iter<'r, (usize, usize)>,
    input: &'a str,
    value: Option<Step>,
}

impl<'a> MapAccess<'a> for Fields<'_, 'a> {
    type Error = DecodeError;

    fn next_key_seed<K: DeserializeSeed<'a>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, DecodeError> {
        let (key, value) = match self.steps.next() {
            None => return Ok(None),
            Some(&Step::Key(key)) => match self.steps.next() {
                Some(&v @ Step::Value(_)) => (key, v),
                _ => return Err(cannot()),
            },
            Some(&Step::Absent(name)) => (name, Step::Absent(name)),
            Some(Step::Value(_)) => return Err(cannot()),
        };
        self.value = Some(value);
        seed.deserialize(de::value::BorrowedStrDeserializer::new(key))
            .map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'a>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, DecodeError> {
        match self.value.take() {
            Some(Step::Value(kind)) => {
                let &(start, end) = self.holes.next().ok_or_else(cannot)?;
                let text = self.input.get(start..end).ok_or_else(cannot)?;
                seed.deserialize(Value { kind, text })
            }
            Some(Step::Absent(name)) => seed.deserialize(Absent(name)),
            _ => Err(cannot()),
        }
    }
}

/// A field's value: the text of a hole, read by the scalar method the full read used, with
/// the conversions of `ElemDe`'s (the same functions).
struct Value<'a> {
    kind: Kind,
    text: &'a str,
}

macro_rules! play_int {
    ($($method:ident $ty:ty => $visit:ident, $kind:ident;)*) => {$(
        fn $method<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, DecodeError> {
            match (self.kind, parse_int::<$ty>(self.text)) {
                (Kind::$kind, Some(v)) => visitor.$visit(v),
                _ => Err(cannot()),
            }
        }
    )*};
}

impl<'a> de::Deserializer<'a> for Value<'a> {
    type Error = DecodeError;

    play_int! {
        deserialize_i8 i8 => visit_i8, I8;
        deserialize_i16 i16 => visit_i16, I16;
        deserialize_i32 i32 => visit_i32, I32;
        deserialize_i64 i64 => visit_i64, I64;
        deserialize_i128 i128 => visit_i128, I128;
        deserialize_u8 u8 => visit_u8, U8;
        deserialize_u16 u16 => visit_u16, U16;
        deserialize_u32 u32 => visit_u32, U32;
        deserialize_u64 u64 => visit_u64, U64;
        deserialize_u128 u128 => visit_u128, U128;
    }

    fn deserialize_f32<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        match (self.kind, parse_float::<f32>(trim_xml(self.text))) {
            (Kind::F32, Some(v)) => visitor.visit_f32(v),
            _ => Err(cannot()),
        }
    }

    fn deserialize_f64<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        match (self.kind, parse_float::<f64>(trim_xml(self.text))) {
            (Kind::F64, Some(v)) => visitor.visit_f64(v),
            _ => Err(cannot()),
        }
    }

    fn deserialize_bool<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        match (self.kind, parse_bool(self.text)) {
            (Kind::Bool, Some(v)) => visitor.visit_bool(v),
            _ => Err(cannot()),
        }
    }

    fn deserialize_char<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        match (self.kind, single_char(self.text)) {
            (Kind::Char, Some(c)) => visitor.visit_char(c),
            _ => Err(cannot()),
        }
    }

    fn deserialize_str<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        match self.kind {
            Kind::Str => visitor.visit_borrowed_str(self.text),
            _ => Err(cannot()),
        }
    }

    fn deserialize_string<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        self.deserialize_str(visitor)
    }

    fn deserialize_identifier<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        self.deserialize_str(visitor)
    }

    fn deserialize_bytes<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        match (self.kind, self.text.parse::<crate::xsd::Base64Binary>()) {
            (Kind::Bytes, Ok(b)) => visitor.visit_byte_buf(b.0),
            _ => Err(cannot()),
        }
    }

    fn deserialize_byte_buf<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        self.deserialize_bytes(visitor)
    }

    /// Present, not nil (the bytes around the hole say so, as they did for the full read).
    fn deserialize_option<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'a>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        if name == crate::any::RAW || name.starts_with(crate::xsd::RESERVED) {
            return Err(cannot());
        }
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_any<V: Visitor<'a>>(self, _visitor: V) -> Result<V::Value, DecodeError> {
        Err(cannot())
    }

    serde::forward_to_deserialize_any! {
        <W: Visitor<'a>>
        unit unit_struct seq tuple tuple_struct map struct enum ignored_any
    }
}

#[cfg(test)]
thread_local! {
    /// Bodies this thread played back.
    pub(crate) static PLAYED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

#[cfg(test)]
mod tests {
    use super::PLAYED;
    use crate::{Envelope, Limits, Style};
    use proptest::strategy::Strategy;
    use serde::Deserialize;

    const OPEN: &str = r#"<?xml version="1.0" encoding="UTF-8"?><S:Envelope xmlns:S="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><S:Body><m:op xmlns:m="urn:m">"#;
    const CLOSE: &str = "</m:op></S:Body></S:Envelope>\n";

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Mixed {
        f: f32,
        i: i32,
        s: String,
        b: bool,
        o: Option<i64>,
        u: u8,
        c: char,
        d: f64,
        missing: Option<String>,
    }

    fn mixed(v: [&str; 8]) -> String {
        format!(
            "{OPEN}<f xsi:type=\"xsd:float\">{}</f><i>{}</i><s>{}</s>\n  <b>{}</b><o>{}</o><u>{}</u><c>{}</c><d>{}</d>{CLOSE}",
            v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]
        )
    }

    /// `doc`'s body as `Envelope::body` gives it (played back when it can be) and as a full
    /// read gives it, both as text, and whether it was played back.
    fn both<T: serde::de::DeserializeOwned + std::fmt::Debug>(doc: &str) -> (String, String, bool) {
        let limits = Limits::default();
        let env = Envelope::parse(doc.as_bytes(), &limits).unwrap();
        let played = PLAYED.get();
        let body = format!("{:?}", env.body::<T>(Style::Literal));
        let played = PLAYED.get() > played;
        let env = Envelope::parse(doc.as_bytes(), &limits).unwrap();
        let full = format!("{:?}", env.read_body::<T>(Style::Literal, None));
        (body, full, played)
    }

    /// Reads `doc` until its body is remembered (the opening on the first read, the body on
    /// the second).
    fn learn<T: serde::de::DeserializeOwned + std::fmt::Debug>(doc: &str) {
        for _ in 0..2 {
            let (body, full, _) = both::<T>(doc);
            assert_eq!(body, full);
        }
    }

    const PLAIN: [&str; 8] = ["1.5", "-7", "hello", "true", "42", "255", "x", "2.5e10"];

    #[test]
    fn a_body_like_the_last_one_is_played_back_and_reads_the_same() {
        learn::<Mixed>(&mixed(PLAIN));
        for v in [
            PLAIN,
            [
                "654.321",
                "0",
                "a longer string than before",
                "0",
                "-9",
                "0",
                "é",
                "-0",
            ],
            ["INF", "2147483647", " spaced ", "1", "0", "7", "ü", "NaN"],
        ] {
            let (body, full, played) = both::<Mixed>(&mixed(v));
            assert_eq!(body, full, "{v:?}");
            assert!(played, "{v:?}: played back");
            assert!(body.starts_with("Ok("), "{body}");
        }
    }

    #[test]
    fn values_the_playback_cannot_take_are_read_in_full_with_the_full_reads_answer() {
        learn::<Mixed>(&mixed(PLAIN));
        let cases: [(usize, &str); 12] = [
            (0, "abc"),             // not a float: the full read's error and path
            (1, "2147483648"),      // out of range
            (2, "a &amp; b"),       // a reference: read in full
            (2, "<![CDATA[<x>]]>"), // CDATA
            (2, ""),                // empty
            (2, "a ]] b"),          // `]`
            (2, "a\r\nb"),          // a line end to normalise
            (2, "<!-- c -->d"),     // a comment
            (3, "yes"),             // not a boolean
            (4, "<x/>"),            // an element where text was
            (6, "xy"),              // not one character
            (5, "256"),             // out of range
        ];
        for (at, text) in cases {
            let mut v = PLAIN;
            v[at] = text;
            let (body, full, _) = both::<Mixed>(&mixed(v));
            assert_eq!(body, full, "{at} {text:?}");
        }
        // A body of another shape is learned in its place; the first shape comes back.
        learn::<Mixed>(&mixed(PLAIN));
        let (_, _, played) = both::<Mixed>(&mixed(PLAIN));
        assert!(played);
    }

    #[test]
    fn a_body_of_another_shape_is_read_in_full() {
        learn::<Mixed>(&mixed(PLAIN));
        let doc = mixed(PLAIN);
        for other in [
            doc.replace("<i>", "<i xsi:type=\"xsd:int\">"), // an attribute more
            doc.replace("<o>42</o>", "<o xsi:nil=\"true\"/>"), // nil
            doc.replace("<u>255</u>", ""),                  // a field less
            doc.replace(CLOSE, &format!("<extra>1</extra>{CLOSE}")),
            doc.replace("\n  ", " "), // other white space
            doc.replace("</S:Envelope>\n", "</S:Envelope>"),
        ] {
            let (body, full, played) = both::<Mixed>(&other);
            assert_eq!(body, full, "{other}");
            assert!(!played, "{other}: not played back");
        }
    }

    #[test]
    fn over_the_text_limit_a_hole_is_refused_as_a_full_read_refuses_it() {
        let limits = Limits {
            max_text_len: 41, // the envelope namespace, the longest attribute
            ..Limits::default()
        };
        let read = |doc: &str| {
            let env = Envelope::parse(doc.as_bytes(), &limits).unwrap();
            format!("{:?}", env.body::<Mixed>(Style::Literal))
        };
        for _ in 0..3 {
            assert!(read(&mixed(PLAIN)).starts_with("Ok("));
        }
        let mut v = PLAIN;
        let long = "x".repeat(42);
        v[2] = &long;
        let err = read(&mixed(v));
        assert!(err.contains("exceeds the limit of 41 bytes"), "{err}");
    }

    #[test]
    fn a_body_read_leniently_is_never_played_back() {
        // The full read logs each leniency it uses; a playback would not.
        let limits = Limits {
            lenient: crate::Lenient {
                int_booleans: true,
                ..crate::Lenient::STRICT
            },
            ..Limits::default()
        };
        let doc = mixed(PLAIN).replace("<b>", "<b xsi:type=\"xsd:int\">");
        for _ in 0..4 {
            let env = Envelope::parse(doc.as_bytes(), &limits).unwrap();
            let played = PLAYED.get();
            assert!(env.body::<Mixed>(Style::Literal).is_ok());
            assert_eq!(PLAYED.get(), played);
        }
    }

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Nested {
        a: i32,
        inner: Inner,
    }
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Inner {
        x: i32,
    }
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Listed {
        item: Vec<i32>,
    }
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Referred {
        a: String,
    }

    #[test]
    fn shapes_the_playback_cannot_repeat_are_always_read_in_full() {
        let nested = format!("{OPEN}<a>1</a><inner><x>2</x></inner>{CLOSE}");
        let listed = format!("{OPEN}<item>1</item><item>2</item>{CLOSE}");
        let referred =
            format!("{OPEN}<a href=\"#r\"/></m:op><r id=\"r\">text</r></S:Body></S:Envelope>")
                .replace(CLOSE, "");
        for _ in 0..3 {
            let (b, f, played) = both::<Nested>(&nested);
            assert!(b == f && !played && b.starts_with("Ok("), "{b}");
            let (b, f, played) = both::<Listed>(&listed);
            assert!(b == f && !played && b.starts_with("Ok("), "{b}");
            let (b, f, played) = both::<Referred>(&referred);
            assert!(b == f && !played, "{b} {f}");
        }
    }

    #[test]
    fn two_types_over_one_opening_keep_a_body_each() {
        #[derive(Debug, Deserialize)]
        #[allow(dead_code)]
        struct Other {
            f: f64,
            i: i64,
            s: Box<str>,
            b: bool,
            o: Option<u64>,
            u: i16,
            c: String,
            d: f32,
        }
        let doc = mixed(PLAIN);
        learn::<Mixed>(&doc);
        learn::<Other>(&doc);
        let (b, f, played) = both::<Mixed>(&doc);
        assert!(b == f && played);
        let (b, f, played) = both::<Other>(&doc);
        assert!(b == f && played, "{b}");
    }

    /// A number that asks for a float on one read and for a string on the next (state
    /// outside the document): the playback over the learned bytes asks what the full read did
    /// not, so the body is never kept, and every read is a full one.
    #[derive(Debug)]
    #[allow(dead_code)]
    struct Fickle(String);

    thread_local! {
        static FICKLE_READS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }

    impl<'de> Deserialize<'de> for Fickle {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V;
            impl serde::de::Visitor<'_> for V {
                type Value = Fickle;
                fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                    f.write_str("a number")
                }
                fn visit_f32<E>(self, v: f32) -> Result<Fickle, E> {
                    Ok(Fickle(v.to_string()))
                }
                fn visit_str<E>(self, v: &str) -> Result<Fickle, E> {
                    Ok(Fickle(v.to_string()))
                }
            }
            let n = FICKLE_READS.get();
            FICKLE_READS.set(n + 1);
            if n.is_multiple_of(2) {
                d.deserialize_f32(V)
            } else {
                d.deserialize_str(V)
            }
        }
    }

    #[test]
    fn a_target_that_reads_otherwise_over_the_learned_bytes_is_never_played_back() {
        #[derive(Debug, Deserialize)]
        #[allow(dead_code)]
        struct HasFickle {
            n: Fickle,
        }
        let doc = format!("{OPEN}<n>1.5</n>{CLOSE}");
        let read = || {
            let limits = Limits::default();
            let env = Envelope::parse(doc.as_bytes(), &limits).unwrap();
            assert!(env.body::<HasFickle>(Style::Literal).is_ok());
        };
        let played = PLAYED.get();
        for _ in 0..4 {
            read();
        }
        // Not kept: each message is read once, in full, not tried against a body first.
        let reads = FICKLE_READS.get();
        for _ in 0..4 {
            read();
        }
        assert_eq!(
            FICKLE_READS.get() - reads,
            4,
            "a body that failed its own playback was kept"
        );
        assert_eq!(PLAYED.get(), played);
    }

    /// A hole is a text the full read took whole, up to the element's end tag: text that a
    /// comment follows is not one; text after one is (the full
    /// read takes it as it is), and plays back as the full read reads it.
    #[test]
    fn a_text_is_a_hole_only_up_to_its_end_tag() {
        #[derive(Debug, Deserialize)]
        #[allow(dead_code)]
        struct Two {
            a: String,
            b: i32,
        }
        for doc in [
            format!("{OPEN}<a>x<!-- c --></a><b>1</b>{CLOSE}"),
            format!("{OPEN}<a>x<!-- c --><!-- d --></a><b>1</b>{CLOSE}"),
        ] {
            for _ in 0..3 {
                let (b, f, played) = both::<Two>(&doc);
                assert!(b == f && !played && b.starts_with("Ok("), "{doc}: {b} {f}");
            }
        }
        learn::<Two>(&format!("{OPEN}<a><!-- c -->x</a><b>1</b>{CLOSE}"));
        let (b, f, played) = both::<Two>(&format!("{OPEN}<a><!-- c -->yz</a><b>2</b>{CLOSE}"));
        assert!(b == f && played && b.contains("\"yz\""), "{b} {f}");
    }

    proptest::proptest! {
        /// Any texts in the holes: whatever `body` answers, a full read answers the same.
        #[test]
        fn any_values_read_as_a_full_read_reads_them(
            v in proptest::array::uniform8(proptest::prop_oneof![
                proptest::string::string_regex("[-+0-9.eE ]{0,12}").unwrap(),
                proptest::string::string_regex("[a-zé&;#x\\]]{0,6}").unwrap(),
                proptest::sample::select(vec!["INF", "-INF", "NaN", "true", "false", "1", "0",
                    "&#65;", "&lt;", "<![CDATA[1]]>", "\t1\n", "x", "1e400"]).prop_map(String::from),
            ])
        ) {
            learn::<Mixed>(&mixed(PLAIN));
            let refs: [&str; 8] = std::array::from_fn(|i| v[i].as_str());
            let (body, full, _) = both::<Mixed>(&mixed(refs));
            proptest::prop_assert_eq!(body, full);
        }
    }
}
