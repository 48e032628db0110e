//! Writing the `@*` field (`xsd:anyAttribute`): a map from `local` or `{ns}local` to a value,
//! each entry an attribute of the start tag, after the named attribute fields.
//!
//! Must never: write a name that is not an XML name (it would change the document's
//! structure), a value unescaped, or an attribute after the element's content.

use serde::ser::{self, Impossible, Serialize};

use super::seq::KeySer;
use super::Children;
use crate::error::EncodeError;
use crate::write;

fn shape_error() -> EncodeError {
    EncodeError::new("field `@*` holds the other attributes: a map from name to value")
}

/// Writes the entries of `v` (a map, or `None`) as attributes of `c`'s start tag.
pub(super) fn others<T: Serialize + ?Sized>(
    c: &mut Children<'_, '_>,
    v: &T,
) -> Result<(), EncodeError> {
    let mut pairs = Vec::new();
    v.serialize(Collect(&mut pairs))?;
    if pairs.is_empty() {
        return Ok(());
    }
    if c.out.len() != c.tag_end || c.out.last() != Some(&b'>') {
        return Err(EncodeError::new(
            "attribute field `@*` comes after an element or text: declare attribute fields first",
        ));
    }
    for (name, _) in &pairs {
        let local = match name.strip_prefix('{').and_then(|r| r.split_once('}')) {
            Some((ns, local)) if !ns.is_empty() => local,
            Some(_) => "",
            None => name.as_str(),
        };
        if !is_name(local) || local.starts_with("xmlns") {
            return Err(EncodeError::new(format!(
                "`{name}` in field `@*` is not an attribute name (`local` or `{{ns}}local`)"
            )));
        }
    }
    let out = &mut *c.out;
    out.pop();
    for (name, value) in &pairs {
        out.push(b' ');
        match name.strip_prefix('{').and_then(|r| r.split_once('}')) {
            Some((ns, local)) => {
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
            None => out.extend_from_slice(name.as_bytes()),
        }
        out.extend_from_slice(b"=\"");
        if let Some(bad) = value.chars().find(|&ch| {
            (ch < ' ' && !matches!(ch, '\t' | '\n' | '\r')) || ch == '\u{FFFE}' || ch == '\u{FFFF}'
        }) {
            out.extend_from_slice(b"\">");
            return Err(super::bad_char(bad as u32));
        }
        write::attr(out, value);
        out.push(b'"');
    }
    out.push(b'>');
    c.tag_end = out.len();
    c.opts.room(c.out, 0)
}

/// An XML name without a colon (a local name): what an attribute's local part may be.
fn is_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

/// Collects a map of strings (or numbers) as (name, value) pairs.
struct Collect<'p>(&'p mut Vec<(String, String)>);

struct CollectMap<'p> {
    pairs: &'p mut Vec<(String, String)>,
    key: String,
}

impl<'p> ser::Serializer for Collect<'p> {
    type Ok = ();
    type Error = EncodeError;
    type SerializeSeq = Impossible<(), EncodeError>;
    type SerializeTuple = Impossible<(), EncodeError>;
    type SerializeTupleStruct = Impossible<(), EncodeError>;
    type SerializeTupleVariant = Impossible<(), EncodeError>;
    type SerializeMap = CollectMap<'p>;
    type SerializeStruct = Impossible<(), EncodeError>;
    type SerializeStructVariant = Impossible<(), EncodeError>;

    fn serialize_map(self, _len: Option<usize>) -> Result<CollectMap<'p>, EncodeError> {
        Ok(CollectMap {
            pairs: self.0,
            key: String::new(),
        })
    }
    fn serialize_none(self) -> Result<(), EncodeError> {
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<(), EncodeError> {
        v.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), EncodeError> {
        Ok(())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _n: &'static str,
        v: &T,
    ) -> Result<(), EncodeError> {
        v.serialize(self)
    }
    fn serialize_bool(self, _: bool) -> Result<(), EncodeError> {
        Err(shape_error())
    }
    fn serialize_i8(self, _: i8) -> Result<(), EncodeError> {
        Err(shape_error())
    }
    fn serialize_i16(self, _: i16) -> Result<(), EncodeError> {
        Err(shape_error())
    }
    fn serialize_i32(self, _: i32) -> Result<(), EncodeError> {
        Err(shape_error())
    }
    fn serialize_i64(self, _: i64) -> Result<(), EncodeError> {
        Err(shape_error())
    }
    fn serialize_u8(self, _: u8) -> Result<(), EncodeError> {
        Err(shape_error())
    }
    fn serialize_u16(self, _: u16) -> Result<(), EncodeError> {
        Err(shape_error())
    }
    fn serialize_u32(self, _: u32) -> Result<(), EncodeError> {
        Err(shape_error())
    }
    fn serialize_u64(self, _: u64) -> Result<(), EncodeError> {
        Err(shape_error())
    }
    fn serialize_f32(self, _: f32) -> Result<(), EncodeError> {
        Err(shape_error())
    }
    fn serialize_f64(self, _: f64) -> Result<(), EncodeError> {
        Err(shape_error())
    }
    fn serialize_char(self, _: char) -> Result<(), EncodeError> {
        Err(shape_error())
    }
    fn serialize_str(self, _: &str) -> Result<(), EncodeError> {
        Err(shape_error())
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<(), EncodeError> {
        Err(shape_error())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), EncodeError> {
        Err(shape_error())
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
    ) -> Result<(), EncodeError> {
        Err(shape_error())
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), EncodeError> {
        Err(shape_error())
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, EncodeError> {
        Err(shape_error())
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, EncodeError> {
        Err(shape_error())
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, EncodeError> {
        Err(shape_error())
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, EncodeError> {
        Err(shape_error())
    }
    fn serialize_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStruct, EncodeError> {
        Err(shape_error())
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, EncodeError> {
        Err(shape_error())
    }
}

impl ser::SerializeMap for CollectMap<'_> {
    type Ok = ();
    type Error = EncodeError;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), EncodeError> {
        self.key.clear();
        key.serialize(KeySer(&mut self.key))
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), EncodeError> {
        let mut v = String::new();
        value.serialize(KeySer(&mut v))?;
        self.pairs.push((std::mem::take(&mut self.key), v));
        Ok(())
    }
    fn end(self) -> Result<(), EncodeError> {
        Ok(())
    }
}
