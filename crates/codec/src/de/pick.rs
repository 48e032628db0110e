//! Fields that are picked by element name rather than named by one: a `choice` (a field whose
//! serde name is `$choice:a|b|c`, of an enum whose variants are named after the alternative
//! elements) and an `xsd:any` wildcard (a field named `$any`, of [`crate::xsd::AnyXml`]),
//! and the capture of a raw element as a standalone fragment.
//!
//! It exists so that a schema's `choice` and `any` inside a sequence decode without
//! `#[serde(flatten)]` (which buffers content and loses the XML's shape): the struct's
//! [`ChildrenMap`](super::access::ChildrenMap) hands an element no field is named after to the
//! choice that lists it, else to the wildcard, and this module reads it (and, for a `Vec`, the
//! following siblings the same field takes).
//! Must never: take an element a named field of the struct takes (named fields come first), or
//! copy more than the envelope's reference budget allows in repeated namespace declarations.

use std::borrow::Cow;
use std::sync::atomic::Ordering;

use serde::de::{self, DeserializeSeed, EnumAccess, SeqAccess, VariantAccess, Visitor};

use super::info::Info;
use super::{ElemDe, Text};
use crate::error::DecodeError;
use crate::xml::{split_qname, Ev};

pub(crate) use crate::any::{ANY, CHOICE};

/// Which elements a picked field takes.
#[derive(Clone, Copy)]
pub(crate) enum Pick {
    /// The alternatives of a choice (`a|b|c`).
    OneOf(&'static str),
    /// Any element no other field of the struct (`fields`) takes.
    Other(&'static [&'static str]),
}

impl Pick {
    fn takes(self, local: &str) -> bool {
        match self {
            Pick::OneOf(list) => list.split('|').any(|n| n == local),
            Pick::Other(fields) => !fields.iter().any(|f| named_takes(f, local)),
        }
    }
}

/// Whether the field `f` (a named field or a choice) takes the element `local`.
fn named_takes(f: &str, local: &str) -> bool {
    match f.strip_prefix(CHOICE) {
        Some(list) => list.split('|').any(|n| n == local),
        None => element_local(f) == local,
    }
}

/// The local name of an element field: `name`, or `name` of `{ns}name` (an element with a
/// namespace of its own, see the conventions' *Elements of another namespace*).
pub(crate) fn element_local(f: &str) -> &str {
    match f.strip_prefix('{').and_then(|r| r.split_once('}')) {
        Some((_, local)) => local,
        None => f,
    }
}

/// The field of `fields` named after the element `local`: `local` itself, or `{ns}local`
/// (decoding matches local names, as it does for every child).
#[inline]
pub(super) fn named(fields: &[&'static str], local: &str) -> Option<usize> {
    match fields.iter().position(|f| *f == local) {
        Some(i) => Some(i),
        // Only a struct with a field of another namespace pays for the second scan.
        None => fields
            .iter()
            .position(|f| f.starts_with('{') && element_local(f) == local),
    }
}

/// The field of `fields` that takes `local` when none is named after it: a choice listing
/// it, else the `$any` wildcard.
pub(super) fn field_for(fields: &'static [&'static str], local: &str) -> Option<(usize, Pick)> {
    if let Some(i) = fields.iter().position(|f| {
        f.strip_prefix(CHOICE)
            .is_some_and(|list| list.split('|').any(|n| n == local))
    }) {
        let list = fields[i].strip_prefix(CHOICE).unwrap_or("");
        return Some((i, Pick::OneOf(list)));
    }
    let i = fields.iter().position(|f| *f == ANY)?;
    Pick::Other(fields)
        .takes(local)
        .then_some((i, Pick::Other(fields)))
}

/// Deserializes a picked field's value from the element that chose it (whose start tag was
/// just read), with the element's path on an error.
pub(super) fn picked<'a, 's, T: DeserializeSeed<'a>>(
    seed: T,
    cur: &mut crate::xml::Cursor<'a, 's>,
    ctx: &'s super::Ctx<'a>,
    info: Info<'a>,
    pick: Pick,
) -> Result<T::Value, DecodeError> {
    let depth = cur.depth();
    let name = info.qname;
    let elem = ElemDe {
        cur: &mut *cur,
        ctx,
        info,
        items: false,
    };
    seed.deserialize(PickDe { elem, pick })
        .map_err(|e| e.at(|| super::access::path_at(cur, depth, name)))
}

/// The value of a picked field, from the element that chose it.
pub(crate) struct PickDe<'c, 'a, 's> {
    pub(crate) elem: ElemDe<'c, 'a, 's>,
    pub(crate) pick: Pick,
}

macro_rules! forward {
    ($($method:ident($($arg:ident: $ty:ty),*);)*) => {$(
        fn $method<V: Visitor<'a>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value, DecodeError> {
            self.elem.$method($($arg,)* visitor)
        }
    )*};
}

impl<'c, 'a, 's> de::Deserializer<'a> for PickDe<'c, 'a, 's> {
    type Error = DecodeError;

    fn deserialize_option<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        if self.elem.info.nil {
            self.elem.cur.skip_element()?;
            return visitor.visit_none();
        }
        visitor.visit_some(self)
    }

    fn deserialize_seq<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        let ElemDe { cur, ctx, info, .. } = self.elem;
        visitor.visit_seq(PickSeq {
            cur,
            ctx,
            first: Some(info),
            pick: self.pick,
            count: 0,
        })
    }

    fn deserialize_enum<V: Visitor<'a>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        visitor.visit_enum(PickEnum(self.elem))
    }

    fn deserialize_newtype_struct<V: Visitor<'a>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        if name == crate::any::RAW {
            return self.elem.deserialize_newtype_struct(name, visitor);
        }
        visitor.visit_newtype_struct(self)
    }

    forward! {
        deserialize_any();
        deserialize_bool();
        deserialize_i8();
        deserialize_i16();
        deserialize_i32();
        deserialize_i64();
        deserialize_i128();
        deserialize_u8();
        deserialize_u16();
        deserialize_u32();
        deserialize_u64();
        deserialize_u128();
        deserialize_f32();
        deserialize_f64();
        deserialize_char();
        deserialize_str();
        deserialize_string();
        deserialize_bytes();
        deserialize_byte_buf();
        deserialize_unit();
        deserialize_unit_struct(name: &'static str);
        deserialize_tuple(len: usize);
        deserialize_tuple_struct(name: &'static str, len: usize);
        deserialize_map();
        deserialize_struct(name: &'static str, fields: &'static [&'static str]);
        deserialize_identifier();
        deserialize_ignored_any();
    }
}

/// The element that chose a picked field, and the siblings after it the field also takes.
struct PickSeq<'c, 'a, 's> {
    cur: &'c mut crate::xml::Cursor<'a, 's>,
    ctx: &'s super::Ctx<'a>,
    first: Option<Info<'a>>,
    pick: Pick,
    count: usize,
}

impl<'c, 'a, 's> SeqAccess<'a> for PickSeq<'c, 'a, 's> {
    type Error = DecodeError;

    fn next_element_seed<T: DeserializeSeed<'a>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, DecodeError> {
        let info = match self.first.take() {
            Some(info) => info,
            None => loop {
                match self.cur.peek()? {
                    Ev::Text(_) | Ev::CData(_) => {
                        self.cur.next()?;
                    }
                    Ev::Start(name) if self.pick.takes(split_qname(name).1) => {
                        self.cur.next()?;
                        break Info::read(self.cur, name)?;
                    }
                    _ => return Ok(None),
                }
            },
        };
        self.count += 1;
        if self.count > self.cur.limits().max_array_len {
            return Err(self.cur.err(DecodeError::limit(format!(
                "more than {} items in one array",
                self.cur.limits().max_array_len
            ))));
        }
        let depth = self.cur.depth();
        let name = info.qname;
        let pick = self.pick;
        let elem = ElemDe {
            cur: &mut *self.cur,
            ctx: self.ctx,
            info,
            items: false,
        };
        seed.deserialize(PickDe { elem, pick })
            .map(Some)
            .map_err(|e| e.at(|| super::access::path_at(self.cur, depth, name)))
    }
}

/// A choice's enum: the element's local name is the variant, its content the variant's value.
struct PickEnum<'c, 'a, 's>(ElemDe<'c, 'a, 's>);

impl<'c, 'a, 's> EnumAccess<'a> for PickEnum<'c, 'a, 's> {
    type Error = DecodeError;
    type Variant = Self;

    fn variant_seed<V: DeserializeSeed<'a>>(
        self,
        seed: V,
    ) -> Result<(V::Value, Self), DecodeError> {
        let local = self.0.info.local();
        let v = seed.deserialize(de::value::BorrowedStrDeserializer::new(local))?;
        Ok((v, self))
    }
}

impl<'c, 'a, 's> VariantAccess<'a> for PickEnum<'c, 'a, 's> {
    type Error = DecodeError;

    fn unit_variant(self) -> Result<(), DecodeError> {
        self.0.cur.skip_element()
    }

    fn newtype_variant_seed<T: DeserializeSeed<'a>>(
        self,
        seed: T,
    ) -> Result<T::Value, DecodeError> {
        let ElemDe { cur, ctx, info, .. } = self.0;
        // A sequence alternative (`$sequence:..`) reads this element and its next siblings.
        super::siblings::variant_seed(seed, cur, ctx, info)
    }

    fn tuple_variant<V: Visitor<'a>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        de::Deserializer::deserialize_seq(self.0, visitor)
    }

    fn struct_variant<V: Visitor<'a>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        de::Deserializer::deserialize_struct(self.0, "", fields, visitor)
    }
}

/// Reads the element whose start tag was just consumed, through its end tag, as a standalone
/// fragment: the namespace declarations in scope around it are written on its root (those the
/// root does not declare itself). The bytes added are charged to the envelope's reference
/// budget, so a thousand raw values under a hundred declarations cannot multiply the input.
pub(super) fn capture<'a, V: Visitor<'a>>(
    elem: ElemDe<'_, 'a, '_>,
    visitor: V,
) -> Result<V::Value, DecodeError> {
    let ElemDe { cur, ctx, info, .. } = elem;
    let input = ctx.src.input;
    let start = cur.last_start_at;
    let qname = info.qname;
    let head = input.get(start..).unwrap_or("");
    if !(head.starts_with('<') && head[1..].starts_with(qname)) {
        return Err(cur.malformed("raw element: start tag not found"));
    }
    let mut decls = Vec::new();
    {
        let (outer, own) = cur.ns.bindings().split_at(cur.own_bindings_from());
        let mut done: Vec<&str> = own.iter().map(|b| b.prefix).collect();
        done.push("xml");
        for b in outer.iter().rev() {
            if done.contains(&b.prefix) {
                continue;
            }
            done.push(b.prefix);
            if b.prefix.is_empty() && b.uri.is_empty() {
                continue;
            }
            decls.extend_from_slice(b" xmlns");
            if !b.prefix.is_empty() {
                decls.push(b':');
                decls.extend_from_slice(b.prefix.as_bytes());
            }
            decls.extend_from_slice(b"=\"");
            crate::write::attr(&mut decls, &b.uri);
            decls.push(b'"');
        }
    }
    if !decls.is_empty() {
        let paid = ctx
            .references_left
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| {
                left.checked_sub(decls.len())
            });
        if paid.is_err() {
            return Err(cur.err(DecodeError::limit(format!(
                "raw element `{qname}` would repeat {} bytes of namespace declarations, past the \
                 budget of {} bytes of references for this document",
                decls.len(),
                ctx.references_budget
            ))));
        }
    }
    check_root_and_skip(cur)?;
    let end = cur.position();
    let raw = input.get(start + 1 + qname.len()..end).unwrap_or("");
    let mut out = String::with_capacity(raw.len() + decls.len() + qname.len() + 1);
    out.push('<');
    out.push_str(qname);
    out.push_str(&String::from_utf8_lossy(&decls));
    out.push_str(raw);
    crate::any::captured(|| visitor.visit_newtype_struct(Text(Cow::Owned(out))))
}

/// Reads through the end of the element whose start tag was just read, checking what skipping
/// alone does not (the envelope's reader checks attribute values, entity references and
/// prefixes only when a value is read): every attribute value and text is well-formed and
/// every prefix is declared, so the captured element stands alone and its end tag is its last
/// `</` (what the writer relies on to rename it).
fn check_root_and_skip<'a>(cur: &mut crate::xml::Cursor<'a, '_>) -> Result<(), DecodeError> {
    fn check_tag<'a>(cur: &crate::xml::Cursor<'a, '_>, name: &'a str) -> Result<(), DecodeError> {
        cur.resolve_element(name)?;
        for a in &cur.attrs {
            cur.attr_ns(a)?;
            a.value().map_err(|e| cur.err(e))?;
        }
        Ok(())
    }
    if let Some(name) = cur.current_name() {
        check_tag(cur, name)?;
    }
    let mut depth = 1usize;
    loop {
        match cur.next()? {
            Ev::Start(name) => {
                depth += 1;
                check_tag(cur, name)?;
            }
            Ev::End => {
                depth -= 1;
                if depth == 0 {
                    return Ok(());
                }
            }
            Ev::Text(t) => {
                crate::xml::unescape(t).map_err(|e| cur.err(e))?;
            }
            Ev::CData(_) => {}
            Ev::Eof => return Err(cur.malformed("unexpected end of document")),
        }
    }
}
