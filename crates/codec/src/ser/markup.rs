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
    matches!(key.as_bytes().first(), Some(b'@' | b'$'))
}

/// Writes the field `key` (an attribute or `$text`) of `c`.
pub(super) fn field<T: Serialize + ?Sized>(
    c: &mut Children<'_, '_>,
    key: &'static str,
    v: &T,
) -> Result<(), EncodeError> {
    let mut text = String::new();
    let present = v.serialize(Lexical {
        out: &mut text,
        field: key,
    })?;
    if !present {
        return Ok(());
    }
    c.opts.room(c.out, text.len())?;
    let Some(name) = key.strip_prefix('@') else {
        if key != "$text" {
            return Err(EncodeError::new(format!(
                "field `{key}` is neither an element, an attribute (`@name`) nor `$text`"
            )));
        }
        return write::text_checked(c.out, &text).map_err(bad_char);
    };
    if c.out.len() != c.tag_end || c.out.last() != Some(&b'>') {
        return Err(EncodeError::new(format!(
            "attribute field `{key}` comes after an element or text: declare attribute fields first"
        )));
    }
    if let Some(bad) = text.chars().find(|&ch| {
        (ch < ' ' && !matches!(ch, '\t' | '\n' | '\r')) || ch == '\u{FFFE}' || ch == '\u{FFFF}'
    }) {
        return Err(bad_char(bad as u32));
    }
    let out = &mut *c.out;
    out.pop();
    out.push(b' ');
    match name.strip_prefix('{').and_then(|r| r.split_once('}')) {
        Some((ns, local)) if !ns.is_empty() => {
            // a prefix of its own, unique in the tag (its offset in the output)
            let prefix = format!("a{}", out.len());
            out.extend_from_slice(b"xmlns:");
            out.extend_from_slice(prefix.as_bytes());
            out.extend_from_slice(b"=\"");
            write::attr(out, ns);
            out.extend_from_slice(b"\" ");
            out.extend_from_slice(prefix.as_bytes());
            out.push(b':');
            out.extend_from_slice(local.as_bytes());
        }
        Some((_, local)) => out.extend_from_slice(local.as_bytes()),
        None => out.extend_from_slice(name.as_bytes()),
    }
    out.extend_from_slice(b"=\"");
    write::attr(out, &text);
    out.extend_from_slice(b"\">");
    c.tag_end = out.len();
    Ok(())
}

/// The lexical form of a simple value; `Ok(false)` for `None` (nothing is written).
struct Lexical<'s> {
    out: &'s mut String,
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

macro_rules! lexical_display {
    ($($m:ident($t:ty);)*) => {$(
        fn $m(self, v: $t) -> Result<bool, EncodeError> {
            use std::fmt::Write;
            let _ = write!(self.out, "{v}");
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

    lexical_display! {
        serialize_bool(bool); serialize_i8(i8); serialize_i16(i16); serialize_i32(i32);
        serialize_i64(i64); serialize_i128(i128); serialize_u8(u8); serialize_u16(u16);
        serialize_u32(u32); serialize_u64(u64); serialize_u128(u128); serialize_char(char);
        serialize_str(&str);
    }

    fn serialize_f32(self, v: f32) -> Result<bool, EncodeError> {
        let mut b = Vec::new();
        write::f32(&mut b, v);
        self.out.push_str(&String::from_utf8_lossy(&b));
        Ok(true)
    }
    fn serialize_f64(self, v: f64) -> Result<bool, EncodeError> {
        let mut b = Vec::new();
        write::f64(&mut b, v);
        self.out.push_str(&String::from_utf8_lossy(&b));
        Ok(true)
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<bool, EncodeError> {
        use base64::Engine;
        self.out
            .push_str(&base64::engine::general_purpose::STANDARD.encode(v));
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
        self.out.push_str(variant);
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
