//! Structs that name attributes (`@name`, `@{ns}name`) or text content (`$text`), the
//! convention of quick-xml's serde support: the fields of such a struct come from the start
//! tag's attributes, the element's text and its child elements.
//!
//! It exists apart from [`super::access::ChildrenMap`] so that a struct without such fields
//! (almost all of them) pays one scan of its static field names and nothing else: no
//! attribute is unescaped and no text is collected unless a field asks for it.
//! Must never: drop a child element no field takes from a struct with text content (it is an
//! error, as for a plain text value); hand `xsi:*`, SOAP-ENC or SOAP envelope attributes (`xmlns*` are not
//! attributes to the cursor) to a field, collect text past `max_text_len`, or offer a field
//! twice.

use std::borrow::Cow;

use serde::de::{self, DeserializeSeed, MapAccess, Visitor};
use smallvec::SmallVec;

use super::info::Want;
use super::{element_seed, parse_float, parse_int, trim_xml, Ctx, ElemDe, Info, Text};
use crate::error::{excerpt, DecodeError};
use crate::xml::{is_blank, split_qname, Cursor, Ev, NsKind};

/// The field name of an element's text content.
pub(crate) const TEXT: &str = "$text";

/// The field name of the attributes no other field names (`xsd:anyAttribute`): a map from
/// `local` (unqualified) or `{ns}local` to the value. Bounded by `Limits::max_attributes`.
pub(crate) const OTHER_ATTRS: &str = "@*";

/// Whether a struct with these (serde) fields reads attributes or text: some field is named
/// `@...` or `$text`.
#[inline]
pub(crate) fn wanted(fields: &[&str]) -> bool {
    fields.iter().any(|f| f.starts_with('@') || *f == TEXT)
}

/// The local name an attribute field (`@name`, `@{ns}name`) matches.
fn attr_local(field: &str) -> Option<&str> {
    let rest = field.strip_prefix('@')?;
    Some(
        match rest.strip_prefix('{').and_then(|r| r.split_once('}')) {
            Some((_, local)) => local,
            None => rest,
        },
    )
}

/// Reads a struct some of whose fields are attributes or text (the element's start tag was
/// just read by `de.cur`).
pub(super) fn deserialize_struct<'a, V: Visitor<'a>>(
    de: ElemDe<'_, 'a, '_>,
    fields: &'static [&'static str],
    visitor: V,
) -> Result<V::Value, DecodeError> {
    // simple content may be typed with its simple type (`xsi:type="xsd:string"`)
    if !fields.contains(&TEXT) {
        de.check(Want::Struct)?;
    }
    let ElemDe { cur, ctx, info, .. } = de;
    let fields = if fields.len() <= 64 { fields } else { &[] };
    let mut attrs = SmallVec::<[(usize, Cow<'a, str>); 4]>::new();
    let mut seen = 0u64;
    // The attributes no field names, when a field takes them (`@*`).
    let others_field = fields.iter().position(|f| *f == OTHER_ATTRS);
    let mut others = Vec::new();
    for a in &cur.attrs {
        // Matched by local name, as child elements are (qualified or not), but never the
        // attributes SOAP itself reads.
        match cur.attr_kind(a)? {
            NsKind::Xsi | NsKind::Enc11 | NsKind::Enc12 => continue,
            NsKind::Other if is_envelope(cur.attr_ns(a)?) => continue,
            _ => {}
        }
        let Some(i) = fields.iter().position(|f| attr_local(f) == Some(a.local)) else {
            if others_field.is_some() {
                let ns = cur.attr_ns(a)?;
                let key = if ns.is_empty() {
                    a.local.to_string()
                } else {
                    format!("{{{ns}}}{}", a.local)
                };
                others.push((key, a.value().map_err(|e| cur.err(e))?.into_owned()));
            }
            continue;
        };
        if seen & (1 << i) == 0 {
            seen |= 1 << i;
            attrs.push((i, a.value().map_err(|e| cur.err(e))?));
        }
    }
    let text = fields.iter().position(|f| *f == TEXT);
    let others = others_field.map(|i| {
        seen |= 1 << i;
        others
    });
    let mut map = MarkupMap {
        element: info.local(),
        cur,
        ctx,
        fields,
        attrs: attrs.into_iter(),
        others,
        text_field: text,
        text: None,
        children: false,
        seen,
        pending: Pending::None,
        absent_at: 0,
        ended: false,
    };
    let v = visitor.visit_map(&mut map)?;
    map.finish()?;
    Ok(v)
}

fn is_envelope(uri: &str) -> bool {
    uri == "http://schemas.xmlsoap.org/soap/envelope/"
        || uri == "http://www.w3.org/2003/05/soap-envelope"
}

enum Pending<'a> {
    None,
    Child(Info<'a>),
    /// A child a choice or `xsd:any` field takes (see `pick`).
    Picked(Info<'a>, super::pick::Pick),
    Value(&'static str, Cow<'a, str>),
    Absent(&'static str),
    /// The attributes no field names (`@*`).
    Others(Vec<(String, String)>),
}

struct MarkupMap<'c, 'a, 's> {
    cur: &'c mut Cursor<'a, 's>,
    ctx: &'s Ctx<'a>,
    fields: &'static [&'static str],
    attrs: smallvec::IntoIter<[(usize, Cow<'a, str>); 4]>,
    /// The attributes no field names, while the `@*` field has not been offered.
    others: Option<Vec<(String, String)>>,
    text_field: Option<usize>,
    text: Option<Cow<'a, str>>,
    /// A child element was seen (blank text between children is then layout, not content).
    children: bool,
    seen: u64,
    pending: Pending<'a>,
    absent_at: usize,
    ended: bool,
    element: &'a str,
}

impl<'a> MarkupMap<'_, 'a, '_> {
    fn add_text(&mut self, piece: Cow<'a, str>) -> Result<(), DecodeError> {
        match &mut self.text {
            None => self.text = Some(piece),
            Some(acc) => acc.to_mut().push_str(&piece),
        }
        let max = self.cur.limits().max_text_len;
        if self.text.as_ref().is_some_and(|t| t.len() > max) {
            return Err(self.cur.err(DecodeError::limit(format!(
                "text exceeds the limit of {max} bytes"
            ))));
        }
        Ok(())
    }

    /// The path of a value of this element (`.../element/@name`), the element being open.
    fn value_path(&self, field: &str) -> String {
        // attributes are read before the element's content, the text after its end tag
        let base = if !self.ended {
            self.cur.path()
        } else {
            format!("{}/{}", self.cur.path(), split_qname(self.element).1)
        };
        match attr_local(field) {
            Some(local) => format!("{base}/@{local}"),
            None => base,
        }
    }

    fn finish(&mut self) -> Result<(), DecodeError> {
        if matches!(
            std::mem::replace(&mut self.pending, Pending::None),
            Pending::Child(_) | Pending::Picked(..)
        ) {
            self.cur.skip_element()?;
        }
        while !self.ended {
            match self.cur.next()? {
                Ev::Start(_) => self.cur.skip_element()?,
                Ev::End => self.ended = true,
                Ev::Text(_) | Ev::CData(_) => {}
                Ev::Eof => return Err(self.cur.malformed("unexpected end of document")),
            }
        }
        Ok(())
    }
}

impl<'a> MapAccess<'a> for MarkupMap<'_, 'a, '_> {
    type Error = DecodeError;

    fn next_key_seed<K: DeserializeSeed<'a>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, DecodeError> {
        let key = |name: &'a str| de::value::BorrowedStrDeserializer::<DecodeError>::new(name);
        if let Some((i, value)) = self.attrs.next() {
            let name = self.fields[i];
            self.pending = Pending::Value(name, value);
            return seed.deserialize(key(name)).map(Some);
        }
        if let Some(others) = self.others.take() {
            self.pending = Pending::Others(others);
            return seed.deserialize(key(OTHER_ATTRS)).map(Some);
        }
        while !self.ended {
            match self.cur.next()? {
                Ev::Start(name) => {
                    self.children = true;
                    let info = Info::read(self.cur, name)?;
                    let local = info.local();
                    if let Some(i) = super::pick::named(self.fields, local) {
                        self.seen |= 1 << i;
                        self.pending = Pending::Child(info);
                        return seed.deserialize(key(self.fields[i])).map(Some);
                    } else if let Some((i, p)) = super::pick::field_for(self.fields, local) {
                        if self.seen & (1 << i) != 0 && matches!(p, super::pick::Pick::Other(_)) {
                            self.cur.skip_element()?;
                            continue;
                        }
                        self.seen |= 1 << i;
                        self.pending = Pending::Picked(info, p);
                        return seed.deserialize(key(self.fields[i])).map(Some);
                    }
                    if self.text_field.is_some() {
                        // Text content with an element no field takes: a shape mismatch, as
                        // for a plain text value, never the text with the element dropped.
                        return Err(self.cur.err(DecodeError::value(format!(
                            "expected text, found element `<{name}>`"
                        ))));
                    }
                    self.pending = Pending::Child(info);
                    return seed.deserialize(key(local)).map(Some);
                }
                Ev::End => self.ended = true,
                Ev::Text(t) if self.text_field.is_some() => {
                    let piece = self.cur.unescape_text(t)?;
                    self.add_text(piece)?;
                }
                Ev::CData(t) if self.text_field.is_some() => self.add_text(Cow::Borrowed(t))?,
                Ev::Text(_) | Ev::CData(_) => {}
                Ev::Eof => return Err(self.cur.malformed("unexpected end of document")),
            }
        }
        if let Some(i) = self.text_field.take() {
            self.seen |= 1 << i;
            let mut text = self.text.take().unwrap_or(Cow::Borrowed(""));
            if self.children && is_blank(&text) {
                text = Cow::Borrowed("");
            }
            self.pending = Pending::Value(TEXT, text);
            return seed.deserialize(key(TEXT)).map(Some);
        }
        while self.absent_at < self.fields.len() {
            let i = self.absent_at;
            self.absent_at += 1;
            if self.seen & (1 << i) == 0 {
                let name = self.fields[i];
                self.pending = Pending::Absent(name);
                return seed.deserialize(key(name)).map(Some);
            }
        }
        Ok(None)
    }

    fn next_value_seed<V: DeserializeSeed<'a>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, DecodeError> {
        match std::mem::replace(&mut self.pending, Pending::None) {
            Pending::Child(info) => element_seed(seed, self.cur, self.ctx, info, false),
            Pending::Picked(info, pick) => {
                super::pick::picked(seed, self.cur, self.ctx, info, pick)
            }
            // paths are made only for an error
            Pending::Value(field, text) => seed
                .deserialize(Scalar { text, field })
                .map_err(|e| e.at(|| self.value_path(field))),
            Pending::Absent(name) => seed.deserialize(super::access::Absent(name)).map_err(|e| {
                e.at(|| {
                    format!(
                        "{}/{}/{}",
                        self.cur.path(),
                        split_qname(self.element).1,
                        super::pick::element_local(name)
                    )
                })
            }),
            Pending::Others(others) => seed
                .deserialize(de::value::MapDeserializer::<_, DecodeError>::new(
                    others.into_iter(),
                ))
                .map_err(|e| e.at(|| self.value_path(OTHER_ATTRS))),
            Pending::None => Err(self.cur.malformed("no value")),
        }
    }
}

/// The lexical value of an attribute or of text content, read as a simple type.
struct Scalar<'a> {
    text: Cow<'a, str>,
    field: &'static str,
}

impl Scalar<'_> {
    fn bad(&self, want: Want) -> DecodeError {
        DecodeError::value(format!(
            "expected {}, found {}",
            want.name(),
            excerpt(&self.text)
        ))
    }

    fn not_simple(&self, what: &str) -> DecodeError {
        DecodeError::value(format!(
            "field `{}` is an attribute or text content and cannot hold {what}",
            self.field
        ))
    }
}

macro_rules! scalar_int {
    ($($method:ident $ty:ty => $visit:ident, $xsd:literal;)*) => {$(
        fn $method<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, DecodeError> {
            match parse_int::<$ty>(&self.text) {
                Some(v) => visitor.$visit(v),
                None => Err(self.bad(Want::Int($xsd))),
            }
        }
    )*};
}

impl<'a> de::Deserializer<'a> for Scalar<'a> {
    type Error = DecodeError;

    scalar_int! {
        deserialize_i8 i8 => visit_i8, "byte";
        deserialize_i16 i16 => visit_i16, "short";
        deserialize_i32 i32 => visit_i32, "int";
        deserialize_i64 i64 => visit_i64, "long";
        deserialize_i128 i128 => visit_i128, "integer";
        deserialize_u8 u8 => visit_u8, "unsignedByte";
        deserialize_u16 u16 => visit_u16, "unsignedShort";
        deserialize_u32 u32 => visit_u32, "unsignedInt";
        deserialize_u64 u64 => visit_u64, "unsignedLong";
        deserialize_u128 u128 => visit_u128, "nonNegativeInteger";
    }

    fn deserialize_f32<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        match parse_float::<f32>(trim_xml(&self.text)) {
            Some(v) => visitor.visit_f32(v),
            None => Err(self.bad(Want::Float("float"))),
        }
    }

    fn deserialize_f64<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        match parse_float::<f64>(trim_xml(&self.text)) {
            Some(v) => visitor.visit_f64(v),
            None => Err(self.bad(Want::Float("double"))),
        }
    }

    fn deserialize_bool<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        match trim_xml(&self.text) {
            "true" | "1" => visitor.visit_bool(true),
            "false" | "0" => visitor.visit_bool(false),
            _ => Err(self.bad(Want::Bool)),
        }
    }

    fn deserialize_char<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        let mut it = self.text.chars();
        match (it.next(), it.next()) {
            (Some(c), None) => visitor.visit_char(c),
            _ => Err(self.bad(Want::Str)),
        }
    }

    fn deserialize_str<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        match self.text {
            Cow::Borrowed(s) => visitor.visit_borrowed_str(s),
            Cow::Owned(s) => visitor.visit_string(s),
        }
    }

    fn deserialize_string<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        self.deserialize_str(visitor)
    }

    fn deserialize_bytes<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        match self.text.parse::<crate::xsd::Base64Binary>() {
            Ok(b) => visitor.visit_byte_buf(b.0),
            Err(_) => Err(self.bad(Want::Named("base64Binary"))),
        }
    }

    fn deserialize_byte_buf<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        self.deserialize_bytes(visitor)
    }

    /// Present (an absent attribute is offered as absent, not as a value).
    fn deserialize_option<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        visitor.visit_some(self)
    }

    fn deserialize_unit<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        visitor.visit_unit()
    }

    fn deserialize_unit_struct<V: Visitor<'a>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        visitor.visit_unit()
    }

    fn deserialize_newtype_struct<V: Visitor<'a>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        if name.starts_with(crate::xsd::RESERVED) {
            // the lexical form as it is (a QName's prefix is not resolved in an attribute)
            return visitor.visit_newtype_struct(Text(self.text));
        }
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'a>>(self, _visitor: V) -> Result<V::Value, DecodeError> {
        Err(self.not_simple("a sequence"))
    }

    fn deserialize_tuple<V: Visitor<'a>>(
        self,
        _len: usize,
        _visitor: V,
    ) -> Result<V::Value, DecodeError> {
        Err(self.not_simple("a sequence"))
    }

    fn deserialize_tuple_struct<V: Visitor<'a>>(
        self,
        _name: &'static str,
        _len: usize,
        _visitor: V,
    ) -> Result<V::Value, DecodeError> {
        Err(self.not_simple("a sequence"))
    }

    fn deserialize_map<V: Visitor<'a>>(self, _visitor: V) -> Result<V::Value, DecodeError> {
        Err(self.not_simple("a struct"))
    }

    fn deserialize_struct<V: Visitor<'a>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        _visitor: V,
    ) -> Result<V::Value, DecodeError> {
        Err(self.not_simple("a struct"))
    }

    fn deserialize_enum<V: Visitor<'a>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        visitor.visit_enum(de::value::StringDeserializer::<DecodeError>::new(
            trim_xml(&self.text).to_string(),
        ))
    }

    fn deserialize_identifier<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        self.deserialize_str(visitor)
    }

    fn deserialize_ignored_any<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        visitor.visit_unit()
    }

    fn deserialize_any<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        self.deserialize_str(visitor)
    }
}
