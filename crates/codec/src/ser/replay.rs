//! The remembered answer: differential serialization past the remembered opening.
//!
//! `opening` remembers the bytes an answer shares with the last one up to the wrapper's start
//! tag. After it, a server's answer to an RPC is usually the same bytes again with other
//! values: `<return xsi:type="xsd:float">1.5</return></tns:echoFloatResponse></soap:Body>
//! </soap:Envelope>`. So when an answer past a remembered opening is written in full, the
//! serde calls its value made are recorded (a tape: the struct, each field's key, which scalar
//! method wrote which value, `Some`, `None`, `()`), and the answer is remembered as its bytes
//! with the values cut out (holes). The next answer of that opening and type whose value makes
//! exactly the same calls is the same bytes but for the values: the pieces around the holes are
//! copied and each value written by the very writer the full path uses (`write::f32`,
//! `write::text_checked`, ...), with no element built, named or typed. This is Abu-Ghazaleh,
//! Lewis and Govindaraju's differential serialization (bSOAP, HPDC 2004), for the shapes an RPC
//! answer usually has; `de::replay` is its reading side.
//!
//! It must never write other bytes than the full path. What makes that so:
//! - The full serializer's output is a function of the calls the value makes (the struct's and
//!   the fields' names, which scalar methods, `Some` or `None`), the options and the scalar
//!   values; the options are the opening's key, so within one remembered opening only the calls
//!   and the values vary. The playback follows the tape call by call and gives up (the answer
//!   is written in full) at the first call that differs.
//! - Only tapes of one shape are learned: a struct at the top whose fields are scalars, through
//!   `Option` at most, or `()`, each field named plainly (no attribute, text, wildcard or
//!   Clark-notation name, whose bytes the full path builds otherwise). Anything else (nested
//!   structs, sequences, maps, newtypes, enums, bytes) spoils the tape and that type is written
//!   in full, always.
//! - A hole is found where the full path put it: just before the field's end tag, after a `>`,
//!   holding the value's text as the same writer writes it (checked, not assumed). Before a
//!   tape is kept it is played back over the very value it was learned from and must give the
//!   very bytes written; one that does not is never kept.
//! - What the full path refuses (a string holding a character XML cannot carry, an answer past
//!   `max_bytes`) the playback hands back to it, which refuses it with its own error.
//!
//! Bounded: at most [`ANSWERS`] answers per remembered opening, each at most [`MAX_ANSWER`]
//! bytes with at most [`MAX_HOLES`] holes; a type whose calls keep changing (an `Option` that
//! is `None` one time and `Some` the next) is relearned at most [`MAX_MISSES`] times, then
//! written in full, always.

use std::any::TypeId;

use serde::ser::{self, Impossible, Serialize};

use super::Opts;
use crate::de::ScalarKind as Kind;
use crate::error::EncodeError;
use crate::write;

/// Answers remembered past one opening (one per value type).
const ANSWERS: usize = 2;
/// The longest answer remembered (from the end of the opening to the end of the document).
const MAX_ANSWER: usize = 8 << 10;
/// The most holes (values) a remembered answer has.
const MAX_HOLES: usize = 16;
/// The most calls a tape records (a struct, and a key, `Some` and a value per field).
const MAX_STEPS: usize = 1 + 3 * MAX_HOLES;
/// How often a type's tape may be learned again after its value's calls changed.
const MAX_MISSES: u8 = 4;

/// One serde call of the value, in order.
#[derive(Clone, Copy, Debug)]
enum Step {
    /// `serialize_struct` of the value itself (its name).
    Struct(&'static str),
    /// `serialize_field` (its key): a `Some`, a value, `None` or `()` follows.
    Field(&'static str),
    Some,
    /// A scalar written into the next hole.
    Value(Kind),
    /// `None`: nothing (literal) or an `xsi:nil` element (encoded), part of the bytes around.
    None,
    /// `()`: an empty element, part of the bytes around.
    Unit,
}

/// An answer remembered for one value type past an opening.
#[derive(Debug)]
pub(crate) struct Answer {
    target: TypeId,
    /// Tapes dropped because the value's calls changed, and learnings that failed.
    misses: u8,
    tape: Option<Tape>,
}

#[derive(Debug)]
struct Tape {
    steps: Vec<Step>,
    /// The bytes around the holes, one after another.
    around: Vec<u8>,
    /// The end (in `around`) of the bytes before each hole; the last piece runs to the end.
    cuts: Vec<usize>,
}

/// What [`play`] did.
pub(super) enum Played {
    /// The answer is written.
    Done,
    /// Nothing written: write it in full, and learn it from what is written.
    Learn,
    /// Nothing written: write it in full (and do not learn).
    Full,
}

/// Writes `value`'s answer into `out` from the tape remembered for its type, when it makes the
/// same calls. On anything but [`Played::Done`], `out` is as it was.
pub(super) fn play<T: Serialize + ?Sized>(
    answers: &mut [Answer],
    out: &mut Vec<u8>,
    opts: &Opts,
    value: &T,
) -> Played {
    let target = typeid::of::<T>();
    let Some(answer) = answers.iter_mut().find(|a| a.target == target) else {
        return Played::Learn;
    };
    let Some(tape) = &answer.tape else {
        return if answer.misses < MAX_MISSES {
            Played::Learn
        } else {
            Played::Full
        };
    };
    let from = out.len();
    match tape.play(out, opts, value) {
        Ok(()) => {
            #[cfg(test)]
            PLAYED.set(PLAYED.get() + 1);
            Played::Done
        }
        Err(fail) => {
            out.truncate(from);
            match fail {
                // The full path refuses it, with its own error; the tape stays good.
                Fail::Refused => Played::Full,
                Fail::Mismatch => {
                    answer.tape = None;
                    answer.misses += 1;
                    if answer.misses < MAX_MISSES {
                        Played::Learn
                    } else {
                        Played::Full
                    }
                }
            }
        }
    }
}

/// Learns `value`'s answer from `written`, the bytes the full path wrote for it past the
/// opening, and remembers it in `answers` (in place of the least recently learned).
pub(super) fn learn<T: Serialize + ?Sized>(
    answers: &mut Vec<Answer>,
    written: &[u8],
    opts: &Opts,
    value: &T,
) {
    let target = typeid::of::<T>();
    let tape = Tape::learn(written, opts, value);
    let i = match answers.iter().position(|a| a.target == target) {
        Some(i) => i,
        None => {
            if answers.len() == ANSWERS {
                answers.pop();
            }
            answers.insert(
                0,
                Answer {
                    target,
                    misses: 0,
                    tape: None,
                },
            );
            0
        }
    };
    let answer = &mut answers[i];
    match tape {
        Some(tape) => answer.tape = Some(tape),
        None => answer.misses = MAX_MISSES,
    }
}

/// Why a playback stopped.
enum Fail {
    /// The value made another call than the tape's (or its own `Serialize` failed).
    Mismatch,
    /// The full path must say what is wrong with a value (or with the answer's size).
    Refused,
}

impl Tape {
    /// The tape of `value`'s answer, `written` in full; `None` when it cannot be played back.
    fn learn<T: Serialize + ?Sized>(written: &[u8], opts: &Opts, value: &T) -> Option<Tape> {
        if written.len() > MAX_ANSWER {
            return None;
        }
        let mut rec = Recorder {
            state: State::Top,
            steps: Vec::new(),
            key: "",
            texts: Vec::new(),
            holes: Vec::new(),
        };
        value.serialize(&mut rec).ok()?;
        if rec.state != State::Fields {
            return None;
        }
        // Each hole where the full path put it: its text right before its field's end tag.
        let mut around = Vec::with_capacity(written.len());
        let mut cuts = Vec::with_capacity(rec.holes.len());
        let mut at = 0;
        let mut end_tag = Vec::new();
        for &(key, start, end) in &rec.holes {
            let text = &rec.texts[start..end];
            end_tag.clear();
            end_tag.extend_from_slice(b"</");
            end_tag.extend_from_slice(key.as_bytes());
            end_tag.push(b'>');
            let close = at + memchr::memmem::find(&written[at..], &end_tag)?;
            let open = close.checked_sub(text.len()).filter(|&o| o > at)?;
            if written[open - 1] != b'>' || &written[open..close] != text {
                return None;
            }
            around.extend_from_slice(&written[at..open]);
            cuts.push(around.len());
            at = close;
        }
        around.extend_from_slice(&written[at..]);
        let tape = Tape {
            steps: rec.steps,
            around,
            cuts,
        };
        // The self-check: the playback of the very value gives the very bytes.
        let mut again = Vec::with_capacity(written.len());
        (tape.play(&mut again, opts, value).is_ok() && again == written).then_some(tape)
    }

    fn play<T: Serialize + ?Sized>(
        &self,
        out: &mut Vec<u8>,
        opts: &Opts,
        value: &T,
    ) -> Result<(), Fail> {
        let mut player = Player {
            tape: self,
            out,
            opts,
            step: 0,
            hole: 0,
            written: 0,
            fail: Fail::Refused,
        };
        if value.serialize(&mut player).is_err() {
            return Err(player.fail);
        }
        if player.step != self.steps.len() {
            return Err(Fail::Mismatch);
        }
        let written = player.written;
        out.extend_from_slice(&self.around[written..]);
        // Past the limit: the full path says so, exactly where it would.
        opts.room(out, 0).map_err(|_| Fail::Refused)
    }
}

/// Plays a [`Tape`] back: each serde call must be the tape's next step.
struct Player<'t, 'o> {
    tape: &'t Tape,
    out: &'o mut Vec<u8>,
    opts: &'o Opts,
    step: usize,
    hole: usize,
    /// How much of `tape.around` is written.
    written: usize,
    /// Why it stopped: [`Fail::Refused`] unless a call was not the tape's (the value's own
    /// `Serialize` failing is for the full path to report).
    fail: Fail,
}

/// The error a playback returns to stop the value's `Serialize` (`Player::fail` says why);
/// empty, so stopping allocates nothing.
fn stop() -> EncodeError {
    EncodeError::new(String::new())
}

impl Player<'_, '_> {
    /// Takes the next step when it is `want`.
    #[inline]
    fn take(&mut self, want: impl FnOnce(Step) -> bool) -> Result<(), EncodeError> {
        match self.tape.steps.get(self.step) {
            Some(&step) if want(step) => {
                self.step += 1;
                Ok(())
            }
            _ => Err(self.mismatch()),
        }
    }

    /// The value made a call the tape does not have.
    #[cold]
    fn mismatch(&mut self) -> EncodeError {
        self.fail = Fail::Mismatch;
        stop()
    }

    /// Takes a value step of `kind` and writes the bytes before its hole, then the value.
    #[inline]
    fn value(&mut self, kind: Kind, write: impl FnOnce(&mut Vec<u8>)) -> Result<(), EncodeError> {
        self.take(|s| matches!(s, Step::Value(k) if k == kind))?;
        let cut = self.tape.cuts[self.hole];
        self.out
            .extend_from_slice(&self.tape.around[self.written..cut]);
        self.written = cut;
        self.hole += 1;
        write(self.out);
        Ok(())
    }

    fn str(&mut self, v: &str) -> Result<(), EncodeError> {
        if self.opts.room(self.out, v.len()).is_err() {
            self.fail = Fail::Refused;
            return Err(stop());
        }
        let mut refused = false;
        self.value(Kind::Str, |out| {
            refused = write::text_checked(out, v).is_err()
        })?;
        if refused {
            self.fail = Fail::Refused;
            return Err(stop());
        }
        Ok(())
    }
}

macro_rules! scalars {
    ($($m:ident($t:ty) => $kind:ident, $w:expr;)*) => {$(
        #[inline]
        fn $m(self, v: $t) -> Result<(), EncodeError> {
            self.value(Kind::$kind, |out| $w(out, v))
        }
    )*};
}

fn write_bool(out: &mut Vec<u8>, v: bool) {
    out.extend_from_slice(if v { b"true" } else { b"false" });
}

/// The serializer methods of the player and the recorder: the scalars (each the serializer's
/// `value`), and the calls no tape has, each stopped with the serializer's `$stop`.
macro_rules! tape_methods {
    ($stop:ident) => {
        scalars! {
            serialize_bool(bool) => Bool, write_bool;
            serialize_i8(i8) => I8, write::int;
            serialize_i16(i16) => I16, write::int;
            serialize_i32(i32) => I32, write::int;
            serialize_i64(i64) => I64, write::int;
            serialize_i128(i128) => I128, write::int;
            serialize_u8(u8) => U8, write::int;
            serialize_u16(u16) => U16, write::int;
            serialize_u32(u32) => U32, write::int;
            serialize_u64(u64) => U64, write::int;
            serialize_u128(u128) => U128, write::int;
            serialize_f32(f32) => F32, write::f32;
            serialize_f64(f64) => F64, write::f64;
        }
        // `serialize_char` writes as `serialize_str` does, in the full path too.
        fn serialize_char(self, v: char) -> Result<(), EncodeError> {
            self.str(v.encode_utf8(&mut [0u8; 4]))
        }
        fn serialize_str(self, v: &str) -> Result<(), EncodeError> {
            self.str(v)
        }
        fn serialize_bytes(self, _: &[u8]) -> Result<(), EncodeError> {
            Err(self.$stop())
        }
        fn serialize_unit_struct(self, _: &'static str) -> Result<(), EncodeError> {
            Err(self.$stop())
        }
        fn serialize_unit_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
        ) -> Result<(), EncodeError> {
            Err(self.$stop())
        }
        fn serialize_newtype_struct<T: Serialize + ?Sized>(
            self,
            _: &'static str,
            _: &T,
        ) -> Result<(), EncodeError> {
            Err(self.$stop())
        }
        fn serialize_newtype_variant<T: Serialize + ?Sized>(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: &T,
        ) -> Result<(), EncodeError> {
            Err(self.$stop())
        }
        fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, EncodeError> {
            Err(self.$stop())
        }
        fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, EncodeError> {
            Err(self.$stop())
        }
        fn serialize_tuple_struct(
            self,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeTupleStruct, EncodeError> {
            Err(self.$stop())
        }
        fn serialize_tuple_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeTupleVariant, EncodeError> {
            Err(self.$stop())
        }
        fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, EncodeError> {
            Err(self.$stop())
        }
        fn serialize_struct_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeStructVariant, EncodeError> {
            Err(self.$stop())
        }
    };
}

impl ser::Serializer for &mut Player<'_, '_> {
    type Ok = ();
    type Error = EncodeError;
    type SerializeSeq = Impossible<(), EncodeError>;
    type SerializeTuple = Impossible<(), EncodeError>;
    type SerializeTupleStruct = Impossible<(), EncodeError>;
    type SerializeTupleVariant = Impossible<(), EncodeError>;
    type SerializeMap = Impossible<(), EncodeError>;
    type SerializeStruct = Self;
    type SerializeStructVariant = Impossible<(), EncodeError>;

    tape_methods!(mismatch);
    fn serialize_none(self) -> Result<(), EncodeError> {
        self.take(|s| matches!(s, Step::None))
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<(), EncodeError> {
        self.take(|s| matches!(s, Step::Some))?;
        v.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), EncodeError> {
        self.take(|s| matches!(s, Step::Unit))
    }
    fn serialize_struct(self, name: &'static str, _len: usize) -> Result<Self, EncodeError> {
        self.take(|s| matches!(s, Step::Struct(n) if same(n, name)))?;
        Ok(self)
    }
}

impl ser::SerializeStruct for &mut Player<'_, '_> {
    type Ok = ();
    type Error = EncodeError;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        v: &T,
    ) -> Result<(), EncodeError> {
        self.take(|s| matches!(s, Step::Field(k) if same(k, key)))?;
        v.serialize(&mut **self)
    }
    fn end(self) -> Result<(), EncodeError> {
        Ok(())
    }
}

/// Two names of a derived `Serialize`: the same static, usually, so the address says it.
#[inline]
fn same(a: &'static str, b: &'static str) -> bool {
    std::ptr::eq(a, b) || a == b
}

/// Where the recorder is in the value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Nothing yet: the value must be a struct.
    Top,
    /// Inside the struct, between fields.
    Fields,
    /// A field's key was given: a scalar, `Some`, `None` or `()` follows.
    Value,
}

/// Records the calls a value makes, and its scalars as the full path writes them.
struct Recorder {
    state: State,
    steps: Vec<Step>,
    /// The key of the field being written.
    key: &'static str,
    /// The values' texts, one after another.
    texts: Vec<u8>,
    /// Per hole: its field's key, and where its text is in `texts`.
    holes: Vec<(&'static str, usize, usize)>,
}

impl Recorder {
    /// The value made a call no tape has.
    fn spoil(&mut self) -> EncodeError {
        stop()
    }

    fn push(&mut self, step: Step) -> Result<(), EncodeError> {
        if self.steps.len() == MAX_STEPS {
            return Err(stop());
        }
        self.steps.push(step);
        Ok(())
    }

    /// A value ends the field: `None` and `()` are part of the bytes around.
    fn end_field(&mut self, step: Step) -> Result<(), EncodeError> {
        if self.state != State::Value {
            return Err(stop());
        }
        self.push(step)?;
        self.state = State::Fields;
        Ok(())
    }

    fn value(&mut self, kind: Kind, write: impl FnOnce(&mut Vec<u8>)) -> Result<(), EncodeError> {
        if self.holes.len() == MAX_HOLES {
            return Err(stop());
        }
        self.end_field(Step::Value(kind))?;
        let start = self.texts.len();
        write(&mut self.texts);
        self.holes.push((self.key, start, self.texts.len()));
        Ok(())
    }

    fn str(&mut self, v: &str) -> Result<(), EncodeError> {
        let mut refused = false;
        self.value(Kind::Str, |out| {
            refused = write::text_checked(out, v).is_err()
        })?;
        if refused {
            return Err(stop());
        }
        Ok(())
    }
}

/// A key the full path writes as the element's name and nothing else: not an attribute or the
/// text (`@`, `$text`), a wildcard or choice (`$any`, `$choice:`), or a name of another
/// namespace (`{ns}local`), each written otherwise.
fn plain_key(key: &str) -> bool {
    !key.is_empty()
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':'))
}

impl ser::Serializer for &mut Recorder {
    type Ok = ();
    type Error = EncodeError;
    type SerializeSeq = Impossible<(), EncodeError>;
    type SerializeTuple = Impossible<(), EncodeError>;
    type SerializeTupleStruct = Impossible<(), EncodeError>;
    type SerializeTupleVariant = Impossible<(), EncodeError>;
    type SerializeMap = Impossible<(), EncodeError>;
    type SerializeStruct = Self;
    type SerializeStructVariant = Impossible<(), EncodeError>;

    tape_methods!(spoil);
    fn serialize_none(self) -> Result<(), EncodeError> {
        self.end_field(Step::None)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<(), EncodeError> {
        if self.state != State::Value {
            return Err(stop());
        }
        self.push(Step::Some)?;
        v.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), EncodeError> {
        self.end_field(Step::Unit)
    }
    fn serialize_struct(self, name: &'static str, _len: usize) -> Result<Self, EncodeError> {
        if self.state != State::Top {
            return Err(stop());
        }
        self.push(Step::Struct(name))?;
        self.state = State::Fields;
        Ok(self)
    }
}

impl ser::SerializeStruct for &mut Recorder {
    type Ok = ();
    type Error = EncodeError;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        v: &T,
    ) -> Result<(), EncodeError> {
        if self.state != State::Fields || !plain_key(key) {
            return Err(stop());
        }
        self.push(Step::Field(key))?;
        self.key = key;
        self.state = State::Value;
        v.serialize(&mut **self)?;
        if self.state != State::Fields {
            return Err(stop());
        }
        Ok(())
    }
    fn end(self) -> Result<(), EncodeError> {
        Ok(())
    }
}

#[cfg(test)]
thread_local! {
    /// Answers this thread played back.
    static PLAYED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

#[cfg(test)]
mod tests;
