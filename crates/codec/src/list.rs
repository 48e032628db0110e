//! [`List`]: an `xsd:list` simple type, items written whitespace-separated in one text node.
//!
//! It exists because a list type is text on the wire (`<sizes>1 2 3</sizes>`), not repeated
//! elements, which is what a plain `Vec<T>` means to the codec. Items are simple values
//! (numbers, booleans, strings without whitespace, unit enums, the `xsd` value types).
//! Must never: split an item that holds whitespace (refused on encode: it would read back as
//! two items), or allocate more items than the text has tokens (so the text limit,
//! [`crate::Limits::max_text_len`], bounds the list).

use std::fmt;
use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};

use serde::de::{self, Deserializer, IntoDeserializer, Visitor};
use serde::ser::{self, Impossible};
use serde::{Deserialize, Serialize, Serializer};

/// The reserved newtype name: the codec writes and reads it as a simple value.
pub(crate) const LIST: &str = "$xsd:list";

/// An `xsd:list` of `T`: `<f>1 2 3</f>` is `List(vec![1, 2, 3])`.
///
/// ```
/// use soapstone_codec::xsd::List;
/// let l = List(vec![1, 2, 3]);
/// assert_eq!(l.to_text().unwrap(), "1 2 3");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct List<T>(pub Vec<T>);

impl<T> Deref for List<T> {
    type Target = Vec<T>;
    fn deref(&self) -> &Vec<T> {
        &self.0
    }
}

impl<T> DerefMut for List<T> {
    fn deref_mut(&mut self) -> &mut Vec<T> {
        &mut self.0
    }
}

impl<T> From<Vec<T>> for List<T> {
    fn from(v: Vec<T>) -> Self {
        List(v)
    }
}

impl<T: Serialize> List<T> {
    /// The lexical form: the items' texts joined by one space.
    pub fn to_text(&self) -> Result<String, ListError> {
        let mut out = String::new();
        for (i, item) in self.0.iter().enumerate() {
            if i > 0 {
                out.push(' ');
            }
            let from = out.len();
            item.serialize(ItemSer(&mut out))?;
            let written = &out[from..];
            if written.is_empty() || written.contains(|c: char| c.is_whitespace()) {
                return Err(ListError(format!(
                    "list item {} is empty or holds whitespace",
                    crate::error::excerpt(written)
                )));
            }
        }
        Ok(out)
    }
}

impl<T: Serialize> Serialize for List<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let text = self.to_text().map_err(ser::Error::custom)?;
        s.serialize_newtype_struct(LIST, text.as_str())
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for List<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = List<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a whitespace-separated list")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<List<T>, E> {
                v.split_ascii_whitespace()
                    .map(|item| T::deserialize(ItemDe::<E>(item, PhantomData)))
                    .collect::<Result<Vec<T>, E>>()
                    .map(List)
            }
            fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<List<T>, D::Error> {
                d.deserialize_str(self)
            }
        }
        d.deserialize_newtype_struct(LIST, V(PhantomData))
    }
}

/// Why a list cannot be written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListError(String);

impl fmt::Display for ListError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ListError {}

impl ser::Error for ListError {
    fn custom<M: fmt::Display>(msg: M) -> Self {
        ListError(msg.to_string())
    }
}

/// One list item as text.
struct ItemSer<'s>(&'s mut String);

fn item_error() -> ListError {
    ListError("a list item must be a simple value (number, boolean, string, unit enum)".into())
}

macro_rules! item_display {
    ($($m:ident($t:ty);)*) => {$(
        fn $m(self, v: $t) -> Result<(), ListError> {
            use std::fmt::Write;
            let _ = write!(self.0, "{v}");
            Ok(())
        }
    )*};
}

macro_rules! item_reject {
    ($($m:ident($($t:ty),*);)*) => {$(
        fn $m(self, $(_: $t),*) -> Result<(), ListError> { Err(item_error()) }
    )*};
}

impl ser::Serializer for ItemSer<'_> {
    type Ok = ();
    type Error = ListError;
    type SerializeSeq = Impossible<(), ListError>;
    type SerializeTuple = Impossible<(), ListError>;
    type SerializeTupleStruct = Impossible<(), ListError>;
    type SerializeTupleVariant = Impossible<(), ListError>;
    type SerializeMap = Impossible<(), ListError>;
    type SerializeStruct = Impossible<(), ListError>;
    type SerializeStructVariant = Impossible<(), ListError>;

    item_display! {
        serialize_i8(i8); serialize_i16(i16); serialize_i32(i32); serialize_i64(i64);
        serialize_i128(i128); serialize_u8(u8); serialize_u16(u16); serialize_u32(u32);
        serialize_u64(u64); serialize_u128(u128); serialize_char(char);
    }
    item_reject! {
        serialize_bytes(&[u8]); serialize_none(); serialize_unit(); serialize_unit_struct(&'static str);
    }
    fn serialize_bool(self, v: bool) -> Result<(), ListError> {
        self.0.push_str(if v { "true" } else { "false" });
        Ok(())
    }
    fn serialize_f32(self, v: f32) -> Result<(), ListError> {
        let mut b = Vec::new();
        crate::write::f32(&mut b, v);
        self.0.push_str(&String::from_utf8_lossy(&b));
        Ok(())
    }
    fn serialize_f64(self, v: f64) -> Result<(), ListError> {
        let mut b = Vec::new();
        crate::write::f64(&mut b, v);
        self.0.push_str(&String::from_utf8_lossy(&b));
        Ok(())
    }
    fn serialize_str(self, v: &str) -> Result<(), ListError> {
        self.0.push_str(v);
        Ok(())
    }
    fn serialize_unit_variant(
        self,
        _n: &'static str,
        _i: u32,
        v: &'static str,
    ) -> Result<(), ListError> {
        self.0.push_str(v);
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<(), ListError> {
        v.serialize(self)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _n: &'static str,
        v: &T,
    ) -> Result<(), ListError> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _n: &'static str,
        _i: u32,
        _v: &'static str,
        _value: &T,
    ) -> Result<(), ListError> {
        Err(item_error())
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq, ListError> {
        Err(item_error())
    }
    fn serialize_tuple(self, _len: usize) -> Result<Self::SerializeTuple, ListError> {
        Err(item_error())
    }
    fn serialize_tuple_struct(
        self,
        _n: &'static str,
        _l: usize,
    ) -> Result<Self::SerializeTupleStruct, ListError> {
        Err(item_error())
    }
    fn serialize_tuple_variant(
        self,
        _n: &'static str,
        _i: u32,
        _v: &'static str,
        _l: usize,
    ) -> Result<Self::SerializeTupleVariant, ListError> {
        Err(item_error())
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap, ListError> {
        Err(item_error())
    }
    fn serialize_struct(
        self,
        _n: &'static str,
        _l: usize,
    ) -> Result<Self::SerializeStruct, ListError> {
        Err(item_error())
    }
    fn serialize_struct_variant(
        self,
        _n: &'static str,
        _i: u32,
        _v: &'static str,
        _l: usize,
    ) -> Result<Self::SerializeStructVariant, ListError> {
        Err(item_error())
    }
}

/// One list item's text, parsed as the target asks.
pub(crate) struct ItemDe<'t, E>(pub(crate) &'t str, pub(crate) PhantomData<E>);

macro_rules! item_parse {
    ($($m:ident => $visit:ident,)*) => {$(
        fn $m<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, E> {
            match self.0.parse() {
                Ok(v) => visitor.$visit(v),
                Err(_) => Err(E::custom(format!(
                    "list item {} is not a {}",
                    crate::error::excerpt(self.0),
                    &stringify!($visit)[6..]
                ))),
            }
        }
    )*};
}

impl<'de, E: de::Error> Deserializer<'de> for ItemDe<'_, E> {
    type Error = E;
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, E> {
        visitor.visit_str(self.0)
    }
    item_parse! {
        deserialize_i8 => visit_i8, deserialize_i16 => visit_i16, deserialize_i32 => visit_i32,
        deserialize_i64 => visit_i64, deserialize_i128 => visit_i128, deserialize_u8 => visit_u8,
        deserialize_u16 => visit_u16, deserialize_u32 => visit_u32, deserialize_u64 => visit_u64,
        deserialize_u128 => visit_u128, deserialize_f32 => visit_f32, deserialize_f64 => visit_f64,
    }
    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, E> {
        match self.0 {
            "true" | "1" => visitor.visit_bool(true),
            "false" | "0" => visitor.visit_bool(false),
            other => Err(E::custom(format!(
                "list item {} is not a boolean",
                crate::error::excerpt(other)
            ))),
        }
    }
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, E> {
        visitor.visit_some(self)
    }
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _n: &'static str,
        visitor: V,
    ) -> Result<V::Value, E> {
        visitor.visit_newtype_struct(self)
    }
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _n: &'static str,
        _v: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, E> {
        visitor.visit_enum(self.0.into_deserializer())
    }
    serde::forward_to_deserialize_any! {
        char str string bytes byte_buf unit unit_struct seq tuple tuple_struct map struct
        identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    enum Size {
        #[serde(rename = "s")]
        Small,
        #[serde(rename = "l")]
        Large,
    }

    #[test]
    fn items_are_text_separated_by_spaces() {
        assert_eq!(List(vec![1.5f64, -2.0]).to_text().unwrap(), "1.5 -2");
        assert_eq!(
            List(vec![Size::Small, Size::Large]).to_text().unwrap(),
            "s l"
        );
        let e = List(vec!["a b".to_string()]).to_text().unwrap_err();
        assert!(e.to_string().contains("holds whitespace"), "{e}");
        let l: List<i32> = serde_json::from_str("\" 1\\n 2  3 \"").unwrap();
        assert_eq!(l.0, [1, 2, 3]);
        let l: List<Size> = serde_json::from_str("\"l s\"").unwrap();
        assert_eq!(l.0, [Size::Large, Size::Small]);
        let e = serde_json::from_str::<List<u8>>("\"1 x\"").unwrap_err();
        assert!(e.to_string().contains("list item `x` is not a u8"), "{e}");
    }
}
