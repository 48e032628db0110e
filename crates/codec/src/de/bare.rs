//! Reading a message whose parts are the Body's children (document/literal with several body
//! parts, or none), not the children of one wrapper element.
//!
//! It exists because vendor WSDLs have such messages (WS-I BP R2201 forbids them; zeep and CXF
//! accept them). A struct whose serde name is [`BARE`] takes the Body's children as its fields;
//! any other type reads the first body element as before, through [`First`], which only looks
//! at the name `deserialize_struct` is called with, so the one-wrapper path is unchanged but
//! for that comparison. Must never read past the Body's end tag or accept text in Body.

use std::cell::Cell;

use serde::de::{self, Visitor};

use super::access::{path_at, ChildrenMap};
use super::{Ctx, ElemDe, Info};
use crate::error::DecodeError;
use crate::xml::{Cursor, Ev, ReadTag};

/// The serde name of a message struct whose fields are the Body's children.
pub(crate) const BARE: &str = "$body";

/// The deserializer `Envelope::body` hands a message type: the first body element's, unless
/// the type is a [`BARE`] struct. `bare` records that the Body's end tag was read.
pub(crate) struct First<'c, 'a, 's> {
    pub(crate) cur: &'c mut Cursor<'a, 's>,
    pub(crate) ctx: &'s Ctx<'a>,
    /// The first body element's start tag as the envelope reader read it: entered, not read
    /// again (the cursor stands at its `<`).
    pub(crate) tag: Option<&'c ReadTag>,
    pub(crate) bare: &'c Cell<bool>,
}

impl<'c, 'a, 's> First<'c, 'a, 's> {
    /// Opens the first body element and hands it to `f` as an [`ElemDe`], its path on errors.
    fn element<R>(
        self,
        f: impl FnOnce(ElemDe<'_, 'a, 's>) -> Result<R, DecodeError>,
    ) -> Result<R, DecodeError> {
        let name = match self.tag {
            Some(tag) => self.cur.enter(tag)?,
            None => match self.cur.next()? {
                Ev::Start(name) => name,
                _ => return Err(self.cur.malformed("expected the body element")),
            },
        };
        let info = Info::read(self.cur, name)?;
        let depth = self.cur.depth();
        f(ElemDe {
            cur: &mut *self.cur,
            ctx: self.ctx,
            info,
            items: false,
        })
        .map_err(|e| e.at(|| path_at(self.cur, depth, name)))
    }
}

macro_rules! forward {
    ($($method:ident($($arg:ident: $ty:ty),*);)*) => {$(
        fn $method<V: Visitor<'a>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value, DecodeError> {
            self.element(|de| de::Deserializer::$method(de, $($arg,)* visitor))
        }
    )*};
}

impl<'a> de::Deserializer<'a> for First<'_, 'a, '_> {
    type Error = DecodeError;

    fn deserialize_struct<V: Visitor<'a>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        if name != BARE {
            return self
                .element(|de| de::Deserializer::deserialize_struct(de, name, fields, visitor));
        }
        self.bare.set(true);
        self.ctx.tape(super::replay::Tape::spoil);
        let mut map = ChildrenMap::new(self.cur, self.ctx, fields);
        let v = visitor.visit_map(&mut map)?;
        map.finish()?;
        Ok(v)
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
