//! Writing the fields of a struct that name attributes (`@name`, `@{ns}name`) or text content
//! (`$text`), the convention of quick-xml's serde support.
//!
//! An attribute goes into the start tag, which its struct has already closed with `>`: as long
//! as nothing has been written since (attribute fields come first), the `>` is taken back, the
//! attribute written and the tag closed again. So a struct without such fields costs one byte
//! test per field and nothing else.
//! Must never: write an attribute after content (an error says to declare attribute fields
//! first), write an attribute or text value unescaped or with a character XML cannot carry, or
//! write anything but a simple value there.

use serde::ser::{self, Impossible, Serialize};

use super::{bad_char, xsd_static, Children};
use crate::error::EncodeError;
use crate::write;

/// Whether a field name is an attribute (`@...`) or the text content (`$text`).
#[inline]
pub(super) fn is_markup(key: &str) -> bool {
    // `$choice:...` and `$any` are elements (see `raw`), not markup.
    key.starts_with('@') || key == "$text"
}

/// Writes the field `key` (an attribute or `$text`) of `c`. The value's lexical form is written
/// straight into the output and escaped in place only when it holds a character that needs it,
/// so a number or a plain string costs no allocation.
pub(super) fn field<T: Serialize + ?Sized>(
    c: &mut Children<'_, '_>,
    key: &'static str,
    v: &T,
) -> Result<(), EncodeError> {
    let Some(name) = key.strip_prefix('@') else {
        if key != "$text" {
            return Err(EncodeError::new(format!(
                "field `{key}` is neither an element, an attribute (`@name`) nor `$text`"
            )));
        }
        let start = c.out.len();
        v.serialize(Lexical {
            out: &mut *c.out,
            field: key,
        })?;
        escape_tail(c.out, start, false)?;
        return c.opts.room(c.out, 0);
    };
    if name == "*" {
        return super::attrs::others(c, v);
    }
    if c.out.len() != c.tag_end || c.out.last() != Some(&b'>') {
        return Err(EncodeError::new(format!(
            "attribute field `{key}` comes after an element or text: declare attribute fields first"
        )));
    }
    let out = &mut *c.out;
    let mark = out.len() - 1;
    out.truncate(mark);
    out.push(b' ');
    match name.strip_prefix('{').and_then(|r| r.split_once('}')) {
        Some((ns, local)) if !ns.is_empty() => {
            // a prefix of its own, unique in the tag (its offset in the output)
            let n = out.len();
            out.extend_from_slice(b"xmlns:a");
            write::int(out, n);
            out.extend_from_slice(b"=\"");
            write::attr(out, ns);
            out.extend_from_slice(b"\" a");
            write::int(out, n);
            out.push(b':');
            out.extend_from_slice(local.as_bytes());
        }
        Some((_, local)) => out.extend_from_slice(local.as_bytes()),
        None => out.extend_from_slice(name.as_bytes()),
    }
    out.extend_from_slice(b"=\"");
    let start = out.len();
    let written = v
        .serialize(Lexical {
            out: &mut *out,
            field: key,
        })
        .and_then(|present| {
            escape_tail(out, start, true)?;
            Ok(present)
        });
    match written {
        Ok(true) => out.extend_from_slice(b"\">"),
        // `None`, or an error: the tag as it was
        Ok(false) | Err(_) => {
            out.truncate(mark);
            out.push(b'>');
        }
    }
    c.tag_end = out.len();
    written?;
    c.opts.room(c.out, 0)
}

/// Escapes `out[start..]` (a lexical form just written raw) for an attribute value or for
/// element text, refusing characters XML cannot carry. Nothing moves unless a byte needs it.
fn escape_tail(out: &mut Vec<u8>, start: usize, attribute: bool) -> Result<(), EncodeError> {
    let needs = out[start..]
        .iter()
        .any(|&b| b < 0x20 || matches!(b, b'<' | b'>' | b'&' | 0xEF) || (attribute && b == b'"'));
    if !needs {
        return Ok(());
    }
    let raw = out.split_off(start);
    let text = String::from_utf8(raw).map_err(|_| EncodeError::new("value is not UTF-8"))?;
    if attribute {
        if let Some(bad) = text.chars().find(|&ch| {
            (ch < ' ' && !matches!(ch, '\t' | '\n' | '\r')) || ch == '\u{FFFE}' || ch == '\u{FFFF}'
        }) {
            return Err(bad_char(bad as u32));
        }
        write::attr(out, &text);
        Ok(())
    } else {
        write::text_checked(out, &text).map_err(bad_char)
    }
}

/// The lexical form of a simple value; `Ok(false)` for `None` (nothing is written).
struct Lexical<'s> {
    out: &'s mut Vec<u8>,
    field: &'static str,
}

impl Lexical<'_> {
    fn not_simple(&self, what: &str) -> EncodeError {
        EncodeError::new(format!(
            "field `{}` is an attribute or text content and cannot hold {what}",
            self.field
        ))
    }
}

macro_rules! lexical_int {
    ($($m:ident($t:ty);)*) => {$(
        fn $m(self, v: $t) -> Result<bool, EncodeError> {
            write::int(self.out, v);
            Ok(true)
        }
    )*};
}

impl ser::Serializer for Lexical<'_> {
    type Ok = bool;
    type Error = EncodeError;
    type SerializeSeq = Impossible<bool, EncodeError>;
    type SerializeTuple = Impossible<bool, EncodeError>;
    type SerializeTupleStruct = Impossible<bool, EncodeError>;
    type SerializeTupleVariant = Impossible<bool, EncodeError>;
    type SerializeMap = Impossible<bool, EncodeError>;
    type SerializeStruct = Impossible<bool, EncodeError>;
    type SerializeStructVariant = Impossible<bool, EncodeError>;

    lexical_int! {
        serialize_i8(i8); serialize_i16(i16); serialize_i32(i32); serialize_i64(i64);
        serialize_i128(i128); serialize_u8(u8); serialize_u16(u16); serialize_u32(u32);
        serialize_u64(u64); serialize_u128(u128);
    }

    fn serialize_bool(self, v: bool) -> Result<bool, EncodeError> {
        self.out
            .extend_from_slice(if v { b"true" } else { b"false" });
        Ok(true)
    }
    fn serialize_char(self, v: char) -> Result<bool, EncodeError> {
        let mut b = [0u8; 4];
        self.out.extend_from_slice(v.encode_utf8(&mut b).as_bytes());
        Ok(true)
    }
    fn serialize_str(self, v: &str) -> Result<bool, EncodeError> {
        self.out.extend_from_slice(v.as_bytes());
        Ok(true)
    }
    fn serialize_f32(self, v: f32) -> Result<bool, EncodeError> {
        write::f32(self.out, v);
        Ok(true)
    }
    fn serialize_f64(self, v: f64) -> Result<bool, EncodeError> {
        write::f64(self.out, v);
        Ok(true)
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<bool, EncodeError> {
        use base64::Engine;
        let encoded = base64::engine::general_purpose::STANDARD.encode(v);
        self.out.extend_from_slice(encoded.as_bytes());
        Ok(true)
    }
    fn serialize_none(self) -> Result<bool, EncodeError> {
        Ok(false)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<bool, EncodeError> {
        v.serialize(self)
    }
    fn serialize_unit(self) -> Result<bool, EncodeError> {
        Ok(true)
    }
    fn serialize_unit_struct(self, _n: &'static str) -> Result<bool, EncodeError> {
        Ok(true)
    }
    fn serialize_unit_variant(
        self,
        _n: &'static str,
        _i: u32,
        variant: &'static str,
    ) -> Result<bool, EncodeError> {
        self.out.extend_from_slice(variant.as_bytes());
        Ok(true)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        v: &T,
    ) -> Result<bool, EncodeError> {
        if let Some(xsd) = name.strip_prefix(crate::xsd::RESERVED) {
            if xsd_static(xsd) == "QName" {
                return Err(self.not_simple("an `xsd:QName` (its prefix has no declaration)"));
            }
        }
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _n: &'static str,
        _i: u32,
        _v: &'static str,
        _value: &T,
    ) -> Result<bool, EncodeError> {
        Err(self.not_simple("an enum variant with data"))
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq, EncodeError> {
        Err(self.not_simple("a sequence"))
    }
    fn serialize_tuple(self, _len: usize) -> Result<Self::SerializeTuple, EncodeError> {
        Err(self.not_simple("a sequence"))
    }
    fn serialize_tuple_struct(
        self,
        _n: &'static str,
        _l: usize,
    ) -> Result<Self::SerializeTupleStruct, EncodeError> {
        Err(self.not_simple("a sequence"))
    }
    fn serialize_tuple_variant(
        self,
        _n: &'static str,
        _i: u32,
        _v: &'static str,
        _l: usize,
    ) -> Result<Self::SerializeTupleVariant, EncodeError> {
        Err(self.not_simple("an enum variant with data"))
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap, EncodeError> {
        Err(self.not_simple("a map"))
    }
    fn serialize_struct(
        self,
        _n: &'static str,
        _l: usize,
    ) -> Result<Self::SerializeStruct, EncodeError> {
        Err(self.not_simple("a struct"))
    }
    fn serialize_struct_variant(
        self,
        _n: &'static str,
        _i: u32,
        _v: &'static str,
        _l: usize,
    ) -> Result<Self::SerializeStructVariant, EncodeError> {
        Err(self.not_simple("an enum variant with data"))
    }
}
