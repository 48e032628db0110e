//! Sequences on output: literal repeated elements, and SOAP-ENC arrays whose start tag is
//! written once the first item's type is known (probed). `Vec<Vec<T>>` is written as a
//! two-dimensional array (`xsd:string[13000,2]`, items flat, row-major); should a later row
//! turn out to have another length, the rows written so far are rewrapped as a jagged array of
//! arrays (`xsd:string[][n]`) in one pass.
//! Must never: leave a start tag unclosed on error paths that return `Ok`, or write an
//! `arrayType` that disagrees with the items.

use serde::ser::{self, Impossible, Serialize};

use super::probe::{Probe, Prober};
use super::{variant_error, Kind, ValueSer};
use crate::error::EncodeError;

/// A sequence being written.
pub(crate) enum SeqSer<'o, 'n> {
    /// Literal: each item is an element named like the field.
    Repeat(ValueSer<'o, 'n>),
    /// Literal sequence inside a sequence: `<name>` with `item` children (start written).
    Wrapped(ValueSer<'o, 'n>),
    /// SOAP-ENC array.
    Array(ArraySer<'o, 'n>),
}

impl<'o, 'n> ser::SerializeSeq for SeqSer<'o, 'n> {
    type Ok = ();
    type Error = EncodeError;
    #[inline]
    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), EncodeError> {
        match self {
            SeqSer::Repeat(s) | SeqSer::Wrapped(s) => s.opts.room(s.out, 0)?,
            SeqSer::Array(_) => {}
        }
        match self {
            SeqSer::Repeat(s) => v.serialize(ValueSer {
                out: s.out,
                opts: s.opts,
                name: s.name,
                kind: Kind::LiteralItem,
                scope: s.scope,
            }),
            SeqSer::Wrapped(s) => v.serialize(ValueSer {
                out: s.out,
                opts: s.opts,
                name: "item",
                kind: Kind::LiteralItem,
                scope: s.scope,
            }),
            SeqSer::Array(a) => a.element(v),
        }
    }
    fn end(self) -> Result<(), EncodeError> {
        match self {
            SeqSer::Repeat(_) => Ok(()),
            SeqSer::Wrapped(mut s) => {
                s.close();
                Ok(())
            }
            SeqSer::Array(a) => a.end(),
        }
    }
}

impl<'o, 'n> ser::SerializeTuple for SeqSer<'o, 'n> {
    type Ok = ();
    type Error = EncodeError;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), EncodeError> {
        ser::SerializeSeq::serialize_element(self, v)
    }
    fn end(self) -> Result<(), EncodeError> {
        ser::SerializeSeq::end(self)
    }
}

impl<'o, 'n> ser::SerializeTupleStruct for SeqSer<'o, 'n> {
    type Ok = ();
    type Error = EncodeError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), EncodeError> {
        ser::SerializeSeq::serialize_element(self, v)
    }
    fn end(self) -> Result<(), EncodeError> {
        ser::SerializeSeq::end(self)
    }
}

/// A SOAP-ENC array element.
pub(crate) struct ArraySer<'o, 'n> {
    v: ValueSer<'o, 'n>,
    len: Option<usize>,
    started: bool,
    /// Row length when written as a two-dimensional array.
    rows: Option<usize>,
    /// Byte range of the array attributes in the output.
    attr: (usize, usize),
    item_type: String,
    row_starts: Vec<usize>,
    row_lens: Vec<usize>,
}

impl<'o, 'n> ArraySer<'o, 'n> {
    pub(crate) fn new(v: ValueSer<'o, 'n>, len: Option<usize>) -> Self {
        ArraySer {
            v,
            len,
            started: false,
            rows: None,
            attr: (0, 0),
            item_type: String::new(),
            row_starts: Vec::new(),
            row_lens: Vec::new(),
        }
    }

    fn write_attrs(
        out: &mut Vec<u8>,
        enc12: bool,
        item_type: &str,
        dims: &[Option<usize>],
        jagged: bool,
    ) {
        let mut buf = itoa::Buffer::new();
        if enc12 {
            if !item_type.is_empty() && !jagged {
                out.extend_from_slice(b" enc:itemType=\"");
                out.extend_from_slice(item_type.as_bytes());
                out.push(b'"');
            }
            out.extend_from_slice(b" enc:arraySize=\"");
            for (i, d) in dims.iter().enumerate() {
                if i > 0 {
                    out.push(b' ');
                }
                match d {
                    Some(n) => out.extend_from_slice(buf.format(*n).as_bytes()),
                    None => out.push(b'*'),
                }
            }
            out.push(b'"');
        } else {
            out.extend_from_slice(b" soapenc:arrayType=\"");
            out.extend_from_slice(item_type.as_bytes());
            if jagged {
                out.extend_from_slice(b"[]");
            }
            out.push(b'[');
            for (i, d) in dims.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                if let Some(n) = d {
                    out.extend_from_slice(buf.format(*n).as_bytes());
                }
            }
            out.extend_from_slice(b"]\"");
        }
    }

    /// Writes the start tag once the first item's shape is known (`None`: empty array).
    fn begin(&mut self, first: Option<&Probe>) {
        let unknown = Probe::Unknown;
        let dims: [Option<usize>; 2];
        let rank;
        match first {
            Some(Probe::Seq(Some(l), inner)) if *l > 0 && self.len.is_some() => {
                self.rows = Some(*l);
                self.item_type = self.v.type_str(inner.as_deref().unwrap_or(&unknown));
                dims = [self.len, Some(*l)];
                rank = 2;
            }
            Some(p) => {
                self.item_type = self.v.type_str(p);
                dims = [self.len, None];
                rank = 1;
            }
            None => {
                self.item_type = self.v.type_str(&unknown);
                dims = [Some(0), None];
                rank = 1;
            }
        }
        let typed = self.v.typed();
        let enc12 = self.v.opts.enc12;
        let out = &mut *self.v.out;
        out.push(b'<');
        out.extend_from_slice(self.v.name.as_bytes());
        if typed && !enc12 {
            out.extend_from_slice(b" xsi:type=\"soapenc:Array\"");
        }
        let a0 = out.len();
        Self::write_attrs(out, enc12, &self.item_type, &dims[..rank], false);
        self.attr = (a0, out.len());
        // An item type of another schema (`ns1:`, see `type_str`) is declared here.
        let item = match first {
            Some(Probe::Seq(_, Some(inner))) if self.rows.is_some() => Some(&**inner),
            p => p,
        };
        if let Some((ns, _)) = item.and_then(|p| match p {
            Probe::Named(n) => super::clark(n),
            _ => None,
        }) {
            out.extend_from_slice(b" xmlns:ns1=\"");
            crate::write::attr(out, ns);
            out.push(b'"');
        }
        out.push(b'>');
        self.started = true;
    }

    #[inline]
    fn element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), EncodeError> {
        self.v.opts.room(self.v.out, 0)?;
        if !self.started {
            let p = v.serialize(Prober)?;
            self.begin(Some(&p));
        }
        if self.rows.is_some() {
            self.row_starts.push(self.v.out.len());
            let n = v.serialize(RowSer {
                out: &mut *self.v.out,
                opts: self.v.opts,
            })?;
            self.row_lens.push(n);
            Ok(())
        } else {
            v.serialize(ValueSer {
                out: &mut *self.v.out,
                opts: self.v.opts,
                name: "item",
                kind: Kind::ArrayItem,
                scope: self.v.scope,
            })
        }
    }

    fn end(mut self) -> Result<(), EncodeError> {
        if !self.started {
            self.begin(None);
        }
        if let Some(l) = self.rows {
            if self.row_lens.iter().any(|&n| n != l) {
                self.rewrap_jagged();
            }
        }
        self.v.close();
        Ok(())
    }

    /// Turns the flat rows written so far into items that are arrays themselves.
    fn rewrap_jagged(&mut self) {
        let enc12 = self.v.opts.enc12;
        let typed = self.v.opts.typed;
        let out = &mut *self.v.out;
        let Some(&items_start) = self.row_starts.first() else {
            return;
        };
        let tail = out.split_off(items_start);
        let mut attrs = Vec::new();
        Self::write_attrs(
            &mut attrs,
            enc12,
            &self.item_type,
            &[Some(self.row_lens.len())],
            true,
        );
        out.splice(self.attr.0..self.attr.1, attrs);
        for (i, &start) in self.row_starts.iter().enumerate() {
            let s = start - items_start;
            let e = self
                .row_starts
                .get(i + 1)
                .map_or(tail.len(), |&n| n - items_start);
            out.extend_from_slice(b"<item");
            if typed && !enc12 {
                out.extend_from_slice(b" xsi:type=\"soapenc:Array\"");
            }
            Self::write_attrs(
                out,
                enc12,
                &self.item_type,
                &[Some(self.row_lens[i])],
                false,
            );
            out.push(b'>');
            out.extend_from_slice(&tail[s..e]);
            out.extend_from_slice(b"</item>");
        }
    }
}

/// One row of a two-dimensional array: its items are written flat; returns how many.
struct RowSer<'o> {
    out: &'o mut Vec<u8>,
    opts: &'o super::Opts,
}

struct RowSeq<'o> {
    out: &'o mut Vec<u8>,
    opts: &'o super::Opts,
    count: usize,
}

fn row_error() -> EncodeError {
    EncodeError::new("every row of a two-dimensional array must be a sequence")
}

macro_rules! row_reject {
    ($($m:ident($($t:ty),*);)*) => {$(
        fn $m(self, $(_: $t),*) -> Result<usize, EncodeError> { Err(row_error()) }
    )*};
}

impl<'o> ser::Serializer for RowSer<'o> {
    type Ok = usize;
    type Error = EncodeError;
    type SerializeSeq = RowSeq<'o>;
    type SerializeTuple = RowSeq<'o>;
    type SerializeTupleStruct = Impossible<usize, EncodeError>;
    type SerializeTupleVariant = Impossible<usize, EncodeError>;
    type SerializeMap = Impossible<usize, EncodeError>;
    type SerializeStruct = Impossible<usize, EncodeError>;
    type SerializeStructVariant = Impossible<usize, EncodeError>;

    row_reject! {
        serialize_bool(bool); serialize_i8(i8); serialize_i16(i16); serialize_i32(i32); serialize_i64(i64);
        serialize_u8(u8); serialize_u16(u16); serialize_u32(u32); serialize_u64(u64);
        serialize_f32(f32); serialize_f64(f64); serialize_char(char); serialize_str(&str);
        serialize_bytes(&[u8]); serialize_none(); serialize_unit(); serialize_unit_struct(&'static str);
        serialize_unit_variant(&'static str, u32, &'static str);
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<usize, EncodeError> {
        v.serialize(self)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _n: &'static str,
        v: &T,
    ) -> Result<usize, EncodeError> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        n: &'static str,
        _i: u32,
        v: &'static str,
        _value: &T,
    ) -> Result<usize, EncodeError> {
        Err(variant_error(n, v))
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<RowSeq<'o>, EncodeError> {
        Ok(RowSeq {
            out: self.out,
            opts: self.opts,
            count: 0,
        })
    }
    fn serialize_tuple(self, _len: usize) -> Result<RowSeq<'o>, EncodeError> {
        Ok(RowSeq {
            out: self.out,
            opts: self.opts,
            count: 0,
        })
    }
    fn serialize_tuple_struct(
        self,
        _n: &'static str,
        _l: usize,
    ) -> Result<Self::SerializeTupleStruct, EncodeError> {
        Err(row_error())
    }
    fn serialize_tuple_variant(
        self,
        n: &'static str,
        _i: u32,
        v: &'static str,
        _l: usize,
    ) -> Result<Self::SerializeTupleVariant, EncodeError> {
        Err(variant_error(n, v))
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap, EncodeError> {
        Err(row_error())
    }
    fn serialize_struct(
        self,
        _n: &'static str,
        _l: usize,
    ) -> Result<Self::SerializeStruct, EncodeError> {
        Err(row_error())
    }
    fn serialize_struct_variant(
        self,
        n: &'static str,
        _i: u32,
        v: &'static str,
        _l: usize,
    ) -> Result<Self::SerializeStructVariant, EncodeError> {
        Err(variant_error(n, v))
    }
}

impl<'o> ser::SerializeSeq for RowSeq<'o> {
    type Ok = usize;
    type Error = EncodeError;
    #[inline]
    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), EncodeError> {
        self.opts.room(self.out, 0)?;
        self.count += 1;
        v.serialize(ValueSer {
            out: &mut *self.out,
            opts: self.opts,
            name: "item",
            kind: Kind::ArrayItem,
            scope: None,
        })
    }
    fn end(self) -> Result<usize, EncodeError> {
        Ok(self.count)
    }
}

impl<'o> ser::SerializeTuple for RowSeq<'o> {
    type Ok = usize;
    type Error = EncodeError;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), EncodeError> {
        ser::SerializeSeq::serialize_element(self, v)
    }
    fn end(self) -> Result<usize, EncodeError> {
        Ok(self.count)
    }
}

/// Captures a map key or an `xsd` type's lexical string as text.
pub(crate) struct KeySer<'s>(pub(crate) &'s mut String);

fn key_error() -> EncodeError {
    EncodeError::new("expected a string or number here (map key or xsd lexical value)")
}

macro_rules! key_display {
    ($($m:ident($t:ty);)*) => {$(
        fn $m(self, v: $t) -> Result<(), EncodeError> {
            use std::fmt::Write;
            let _ = write!(self.0, "{v}");
            Ok(())
        }
    )*};
}

macro_rules! key_reject {
    ($($m:ident($($t:ty),*);)*) => {$(
        fn $m(self, $(_: $t),*) -> Result<(), EncodeError> { Err(key_error()) }
    )*};
}

impl<'s> ser::Serializer for KeySer<'s> {
    type Ok = ();
    type Error = EncodeError;
    type SerializeSeq = Impossible<(), EncodeError>;
    type SerializeTuple = Impossible<(), EncodeError>;
    type SerializeTupleStruct = Impossible<(), EncodeError>;
    type SerializeTupleVariant = Impossible<(), EncodeError>;
    type SerializeMap = Impossible<(), EncodeError>;
    type SerializeStruct = Impossible<(), EncodeError>;
    type SerializeStructVariant = Impossible<(), EncodeError>;

    key_display! {
        serialize_bool(bool); serialize_i8(i8); serialize_i16(i16); serialize_i32(i32); serialize_i64(i64);
        serialize_u8(u8); serialize_u16(u16); serialize_u32(u32); serialize_u64(u64); serialize_char(char);
    }
    key_reject! {
        serialize_f32(f32); serialize_f64(f64); serialize_bytes(&[u8]); serialize_none(); serialize_unit();
        serialize_unit_struct(&'static str);
    }
    fn serialize_str(self, v: &str) -> Result<(), EncodeError> {
        self.0.push_str(v);
        Ok(())
    }
    fn serialize_unit_variant(
        self,
        _n: &'static str,
        _i: u32,
        v: &'static str,
    ) -> Result<(), EncodeError> {
        self.0.push_str(v);
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<(), EncodeError> {
        v.serialize(self)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _n: &'static str,
        v: &T,
    ) -> Result<(), EncodeError> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _n: &'static str,
        _i: u32,
        _v: &'static str,
        _value: &T,
    ) -> Result<(), EncodeError> {
        Err(key_error())
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq, EncodeError> {
        Err(key_error())
    }
    fn serialize_tuple(self, _len: usize) -> Result<Self::SerializeTuple, EncodeError> {
        Err(key_error())
    }
    fn serialize_tuple_struct(
        self,
        _n: &'static str,
        _l: usize,
    ) -> Result<Self::SerializeTupleStruct, EncodeError> {
        Err(key_error())
    }
    fn serialize_tuple_variant(
        self,
        _n: &'static str,
        _i: u32,
        _v: &'static str,
        _l: usize,
    ) -> Result<Self::SerializeTupleVariant, EncodeError> {
        Err(key_error())
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap, EncodeError> {
        Err(key_error())
    }
    fn serialize_struct(
        self,
        _n: &'static str,
        _l: usize,
    ) -> Result<Self::SerializeStruct, EncodeError> {
        Err(key_error())
    }
    fn serialize_struct_variant(
        self,
        _n: &'static str,
        _i: u32,
        _v: &'static str,
        _l: usize,
    ) -> Result<Self::SerializeStructVariant, EncodeError> {
        Err(key_error())
    }
}
