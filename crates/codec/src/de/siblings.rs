//! A choice alternative that is a sequence (`<choice maxOccurs="unbounded">` holding a
//! `<sequence>`): the enum variant's value is a struct whose serde name starts with
//! `$sequence` and whose fields are the element that chose the variant and the siblings that
//! follow it, in document order, with no element of their own around them.
//!
//! It exists apart from [`super::pick`] so that an ordinary choice variant (one element) pays
//! one name check and nothing else. Must never: take a sibling out of the sequence's order or
//! one the struct does not name (the choice's next item starts there), or read past the
//! parent's end tag.

use serde::de::{self, DeserializeSeed, MapAccess, Visitor};

use super::info::Info;
use super::{access, element_seed, Ctx, ElemDe};
use crate::error::DecodeError;
use crate::xml::{is_blank, split_qname, Cursor, Ev};

/// Deserializes a choice variant's value from the element that chose it: a `$sequence`
/// struct from it and its siblings, anything else from the element alone.
pub(super) fn variant_seed<'a, 's, T: DeserializeSeed<'a>>(
    seed: T,
    cur: &mut Cursor<'a, 's>,
    ctx: &'s Ctx<'a>,
    info: Info<'a>,
) -> Result<T::Value, DecodeError> {
    let depth = cur.depth();
    let name = info.qname;
    seed.deserialize(VariantDe(ElemDe {
        cur: &mut *cur,
        ctx,
        info,
        items: false,
    }))
    .map_err(|e| e.at(|| access::path_at(cur, depth, name)))
}

struct VariantDe<'c, 'a, 's>(ElemDe<'c, 'a, 's>);

macro_rules! forward {
    ($($method:ident($($arg:ident: $ty:ty),*);)*) => {$(
        fn $method<V: Visitor<'a>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value, DecodeError> {
            de::Deserializer::$method(self.0, $($arg,)* visitor)
        }
    )*};
}

impl<'a> de::Deserializer<'a> for VariantDe<'_, 'a, '_> {
    type Error = DecodeError;

    fn deserialize_struct<V: Visitor<'a>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        if !name.starts_with(crate::any::SEQUENCE) {
            return de::Deserializer::deserialize_struct(self.0, name, fields, visitor);
        }
        let ElemDe { cur, ctx, info, .. } = self.0;
        let mut map = Siblings {
            cur,
            ctx,
            fields: if fields.len() <= 64 { fields } else { &[] },
            first: Some(info),
            pending: None,
            last: None,
            seen: 0,
            absent_at: 0,
        };
        visitor.visit_map(&mut map)
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
        deserialize_option();
        deserialize_unit();
        deserialize_unit_struct(name: &'static str);
        deserialize_newtype_struct(name: &'static str);
        deserialize_seq();
        deserialize_tuple(len: usize);
        deserialize_tuple_struct(name: &'static str, len: usize);
        deserialize_map();
        deserialize_enum(name: &'static str, variants: &'static [&'static str]);
        deserialize_identifier();
        deserialize_ignored_any();
    }
}

/// The fields of a sequence alternative: the first element, then each following sibling the
/// struct names after the last field read (sequence order), then the absent ones.
struct Siblings<'c, 'a, 's> {
    cur: &'c mut Cursor<'a, 's>,
    ctx: &'s Ctx<'a>,
    fields: &'static [&'static str],
    first: Option<Info<'a>>,
    pending: Option<Result<Info<'a>, &'static str>>,
    last: Option<usize>,
    seen: u64,
    absent_at: usize,
}

impl<'a> Siblings<'_, 'a, '_> {
    /// The next sibling the struct takes, consumed; `None` when the sequence ends.
    fn next_sibling(&mut self) -> Result<Option<(usize, Info<'a>)>, DecodeError> {
        if let Some(info) = self.first.take() {
            let Some(i) = super::pick::named(self.fields, info.local()) else {
                return Err(self.cur.err(DecodeError::value(format!(
                    "element `<{}>` is not the first of its sequence",
                    info.qname
                ))));
            };
            return Ok(Some((i, info)));
        }
        loop {
            match self.cur.peek()? {
                Ev::Text(t) if is_blank(t) => {
                    self.cur.next()?;
                }
                Ev::Start(name) => {
                    let local = split_qname(name).1;
                    return match super::pick::named(self.fields, local) {
                        Some(i) if self.last.is_none_or(|l| i > l) => {
                            self.cur.next()?;
                            Ok(Some((i, Info::read(self.cur, name)?)))
                        }
                        _ => Ok(None),
                    };
                }
                _ => return Ok(None),
            }
        }
    }
}

impl<'a> MapAccess<'a> for Siblings<'_, 'a, '_> {
    type Error = DecodeError;

    fn next_key_seed<K: DeserializeSeed<'a>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, DecodeError> {
        let key = |name: &'static str| de::value::BorrowedStrDeserializer::<DecodeError>::new(name);
        if self.absent_at == 0 {
            if let Some((i, info)) = self.next_sibling()? {
                self.last = Some(i);
                self.seen |= 1 << i;
                self.pending = Some(Ok(info));
                return seed.deserialize(key(self.fields[i])).map(Some);
            }
        }
        while self.absent_at < self.fields.len() {
            let i = self.absent_at;
            self.absent_at += 1;
            if self.seen & (1 << i) == 0 {
                self.pending = Some(Err(self.fields[i]));
                return seed.deserialize(key(self.fields[i])).map(Some);
            }
        }
        Ok(None)
    }

    fn next_value_seed<V: DeserializeSeed<'a>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, DecodeError> {
        match self.pending.take() {
            Some(Ok(info)) => element_seed(seed, self.cur, self.ctx, info, false),
            Some(Err(name)) => seed.deserialize(access::Absent(name)).map_err(|e| {
                e.at(|| format!("{}/{}", self.cur.path(), super::pick::element_local(name)))
            }),
            None => Err(self.cur.malformed("no value")),
        }
    }
}
