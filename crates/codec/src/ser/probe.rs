//! Finding the XSD type of a value without writing it, so that an encoded array's
//! `arrayType` can be written in its start tag before the items (no splice, no second buffer).
//! Must never: write output or visit more than the first item of nested sequences.

use serde::ser::{self, Impossible, Serialize};

use crate::error::EncodeError;

/// The shape of a value, as far as `arrayType` needs it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Probe {
    /// A simple type, by XSD local name.
    Simple(&'static str),
    /// A struct (complex type) or enum (simple restriction), by Rust type name.
    Named(&'static str),
    /// A sequence with its length and the shape of its first item.
    Seq(Option<usize>, Option<Box<Probe>>),
    /// `None`, `()`, a map: no useful type.
    Unknown,
}

pub(crate) struct Prober;

pub(crate) struct SeqProbe {
    len: Option<usize>,
    first: Option<Box<Probe>>,
}

pub(crate) struct Named(&'static str);

macro_rules! simple {
    ($($m:ident($t:ty) => $x:literal;)*) => {$(
        fn $m(self, _v: $t) -> Result<Probe, EncodeError> { Ok(Probe::Simple($x)) }
    )*};
}

impl ser::Serializer for Prober {
    type Ok = Probe;
    type Error = EncodeError;
    type SerializeSeq = SeqProbe;
    type SerializeTuple = SeqProbe;
    type SerializeTupleStruct = SeqProbe;
    type SerializeTupleVariant = Impossible<Probe, EncodeError>;
    type SerializeMap = Named;
    type SerializeStruct = Named;
    type SerializeStructVariant = Impossible<Probe, EncodeError>;

    simple! {
        serialize_bool(bool) => "boolean";
        serialize_i8(i8) => "byte";
        serialize_i16(i16) => "short";
        serialize_i32(i32) => "int";
        serialize_i64(i64) => "long";
        serialize_i128(i128) => "integer";
        serialize_u8(u8) => "unsignedByte";
        serialize_u16(u16) => "unsignedShort";
        serialize_u32(u32) => "unsignedInt";
        serialize_u64(u64) => "unsignedLong";
        serialize_u128(u128) => "nonNegativeInteger";
        serialize_f32(f32) => "float";
        serialize_f64(f64) => "double";
        serialize_char(char) => "string";
        serialize_str(&str) => "string";
        serialize_bytes(&[u8]) => "base64Binary";
    }

    fn serialize_none(self) -> Result<Probe, EncodeError> {
        Ok(Probe::Unknown)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<Probe, EncodeError> {
        v.serialize(self)
    }
    fn serialize_unit(self) -> Result<Probe, EncodeError> {
        Ok(Probe::Unknown)
    }
    fn serialize_unit_struct(self, name: &'static str) -> Result<Probe, EncodeError> {
        Ok(Probe::Named(name))
    }
    fn serialize_unit_variant(
        self,
        name: &'static str,
        _i: u32,
        _v: &'static str,
    ) -> Result<Probe, EncodeError> {
        Ok(Probe::Named(name))
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        v: &T,
    ) -> Result<Probe, EncodeError> {
        match name.strip_prefix(crate::xsd::RESERVED) {
            Some(x) => Ok(Probe::Simple(super::xsd_static(x))),
            None => v.serialize(self),
        }
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        _i: u32,
        _v: &'static str,
        _value: &T,
    ) -> Result<Probe, EncodeError> {
        Ok(Probe::Named(name))
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<SeqProbe, EncodeError> {
        Ok(SeqProbe { len, first: None })
    }
    fn serialize_tuple(self, len: usize) -> Result<SeqProbe, EncodeError> {
        Ok(SeqProbe {
            len: Some(len),
            first: None,
        })
    }
    fn serialize_tuple_struct(self, _n: &'static str, len: usize) -> Result<SeqProbe, EncodeError> {
        Ok(SeqProbe {
            len: Some(len),
            first: None,
        })
    }
    fn serialize_tuple_variant(
        self,
        name: &'static str,
        _i: u32,
        v: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant, EncodeError> {
        Err(super::variant_error(name, v))
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Named, EncodeError> {
        Ok(Named(""))
    }
    fn serialize_struct(self, name: &'static str, _len: usize) -> Result<Named, EncodeError> {
        Ok(Named(name))
    }
    fn serialize_struct_variant(
        self,
        name: &'static str,
        _i: u32,
        v: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant, EncodeError> {
        Err(super::variant_error(name, v))
    }
}

impl ser::SerializeSeq for SeqProbe {
    type Ok = Probe;
    type Error = EncodeError;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), EncodeError> {
        if self.first.is_none() {
            self.first = Some(Box::new(v.serialize(Prober)?));
        }
        Ok(())
    }
    fn end(self) -> Result<Probe, EncodeError> {
        Ok(Probe::Seq(self.len, self.first))
    }
}

impl ser::SerializeTuple for SeqProbe {
    type Ok = Probe;
    type Error = EncodeError;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), EncodeError> {
        ser::SerializeSeq::serialize_element(self, v)
    }
    fn end(self) -> Result<Probe, EncodeError> {
        ser::SerializeSeq::end(self)
    }
}

impl ser::SerializeTupleStruct for SeqProbe {
    type Ok = Probe;
    type Error = EncodeError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), EncodeError> {
        ser::SerializeSeq::serialize_element(self, v)
    }
    fn end(self) -> Result<Probe, EncodeError> {
        ser::SerializeSeq::end(self)
    }
}

impl ser::SerializeStruct for Named {
    type Ok = Probe;
    type Error = EncodeError;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        _k: &'static str,
        _v: &T,
    ) -> Result<(), EncodeError> {
        Ok(())
    }
    fn end(self) -> Result<Probe, EncodeError> {
        Ok(Probe::Named(self.0))
    }
}

impl ser::SerializeMap for Named {
    type Ok = Probe;
    type Error = EncodeError;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, _k: &T) -> Result<(), EncodeError> {
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, _v: &T) -> Result<(), EncodeError> {
        Ok(())
    }
    fn end(self) -> Result<Probe, EncodeError> {
        Ok(Probe::Unknown)
    }
}
