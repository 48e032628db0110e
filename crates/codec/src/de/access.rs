//! serde access types over the element stream: struct fields (children), literal sequences
//! (repeated siblings), SOAP-ENC arrays (children, n-dimensional arrays split into rows), and
//! the stand-in for an absent element.
//! Must never: leave the cursor inside an element it was given (each accessor drains what the
//! visitor did not read), or let an array grow past `max_array_len`.

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};

use super::info::{Dims, Info};
use super::pick::{self, Pick, PickDe};
use super::{element_seed, Ctx, ElemDe};
use crate::error::DecodeError;
use crate::xml::{split_qname, Cursor, Ev};

/// The path of an element that was opened at `depth`, whether or not it is still open.
pub(super) fn path_at(cur: &Cursor<'_, '_>, depth: usize, qname: &str) -> String {
    if cur.depth() >= depth {
        cur.path_upto(depth)
    } else {
        format!("{}/{}", cur.path(), split_qname(qname).1)
    }
}

/// Whether the element just opened is SOAP 1.2's `rpc:result`.
fn is_rpc_result(cur: &Cursor<'_, '_>, qname: &str) -> Result<bool, DecodeError> {
    let prefix = split_qname(qname).0;
    Ok(!prefix.is_empty() && cur.resolve(prefix)? == "http://www.w3.org/2003/05/soap-rpc")
}

fn too_many(cur: &Cursor<'_, '_>) -> DecodeError {
    cur.err(DecodeError::limit(format!(
        "more than {} items in one array",
        cur.limits().max_array_len
    )))
}

/// The fields of a struct: the child elements, keyed by local name. After the end tag, the
/// struct's fields that never appeared are offered once more as [`Absent`], so that a missing
/// `Option` is `None` and a missing `Vec` (a literal sequence of zero elements) is empty.
pub(crate) struct ChildrenMap<'c, 'a, 's> {
    cur: &'c mut Cursor<'a, 's>,
    ctx: &'s Ctx<'a>,
    fields: &'static [&'static str],
    seen: u64,
    pending: Option<Info<'a>>,
    /// The pending element goes to a choice or `xsd:any` field (see `pick`).
    pick: Option<Pick>,
    absent: Option<&'static str>,
    absent_at: usize,
    ended: bool,
    /// The element whose children these are (absent fields are reported under it, after
    /// its end tag has closed it).
    element: &'a str,
}

impl<'c, 'a, 's> ChildrenMap<'c, 'a, 's> {
    pub(crate) fn new(
        cur: &'c mut Cursor<'a, 's>,
        ctx: &'s Ctx<'a>,
        fields: &'static [&'static str],
    ) -> Self {
        let fields = if fields.len() <= 64 { fields } else { &[] };
        let element = cur.current_name().unwrap_or("");
        ChildrenMap {
            element,
            cur,
            ctx,
            fields,
            seen: 0,
            pending: None,
            pick: None,
            absent: None,
            absent_at: 0,
            ended: false,
        }
    }
}

impl<'c, 'a, 's> MapAccess<'a> for ChildrenMap<'c, 'a, 's> {
    type Error = DecodeError;

    fn next_key_seed<K: DeserializeSeed<'a>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, DecodeError> {
        while !self.ended {
            match self.cur.next()? {
                Ev::Start(name) => {
                    let info = Info::read(self.cur, name)?;
                    let local = info.local();
                    if local == "result" && is_rpc_result(self.cur, name)? {
                        // SOAP 1.2 RPC's `rpc:result` names the return accessor; it is no
                        // member (and must not shadow an accessor called `result`)
                        self.cur.skip_element()?;
                        continue;
                    }
                    let mut key = local;
                    if let Some(i) = pick::named(self.fields, local) {
                        self.seen |= 1 << i;
                        let field = self.fields[i];
                        key = field;
                        self.ctx.tape(|t| t.key(Some(field)));
                    } else if let Some((i, p)) = pick::field_for(self.fields, local) {
                        self.ctx.tape(|t| t.key(None));
                        if self.seen & (1 << i) != 0 && matches!(p, Pick::Other(_)) {
                            // The wildcard took its run of elements already: a later unknown
                            // element is skipped, as it would be without a wildcard.
                            self.cur.skip_element()?;
                            continue;
                        }
                        self.seen |= 1 << i;
                        self.pick = Some(p);
                        key = self.fields[i];
                    } else {
                        self.ctx.tape(|t| t.key(None));
                    }
                    self.pending = Some(info);
                    return seed
                        .deserialize(de::value::BorrowedStrDeserializer::new(key))
                        .map(Some);
                }
                Ev::End => self.ended = true,
                Ev::Text(_) | Ev::CData(_) => {}
                Ev::Eof => return Err(self.cur.malformed("unexpected end of document")),
            }
        }
        while self.absent_at < self.fields.len() {
            let i = self.absent_at;
            self.absent_at += 1;
            if self.seen & (1 << i) == 0 {
                let name = self.fields[i];
                self.absent = Some(name);
                self.ctx.tape(|t| t.absent(name));
                return seed
                    .deserialize(de::value::BorrowedStrDeserializer::new(name))
                    .map(Some);
            }
        }
        Ok(None)
    }

    fn next_value_seed<V: DeserializeSeed<'a>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, DecodeError> {
        if let Some(info) = self.pending.take() {
            if let Some(pick) = self.pick.take() {
                let depth = self.cur.depth();
                let name = info.qname;
                let elem = ElemDe {
                    cur: &mut *self.cur,
                    ctx: self.ctx,
                    info,
                    items: false,
                };
                return seed
                    .deserialize(PickDe { elem, pick })
                    .map_err(|e| e.at(|| path_at(self.cur, depth, name)));
            }
            return element_seed(seed, self.cur, self.ctx, info, false);
        }
        let name = self.absent.take().unwrap_or("?");
        let mut path = format!("{}/{}", self.cur.path(), split_qname(self.element).1);
        // A choice or wildcard field is no element of its own: its message names what is missing.
        if !name.starts_with('$') {
            path.push('/');
            path.push_str(pick::element_local(name));
        }
        seed.deserialize(Absent(name)).map_err(|e| e.at(|| path))
    }
}

impl<'c, 'a, 's> ChildrenMap<'c, 'a, 's> {
    /// Reads whatever the visitor left, through the end tag.
    pub(crate) fn finish(&mut self) -> Result<(), DecodeError> {
        self.pick = None;
        if self.pending.take().is_some() {
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

/// A literal sequence: the given element and the following siblings with the same local name.
pub(crate) struct RepeatedSeq<'c, 'a, 's> {
    cur: &'c mut Cursor<'a, 's>,
    ctx: &'s Ctx<'a>,
    first: Option<Info<'a>>,
    local: &'a str,
    count: usize,
}

impl<'c, 'a, 's> RepeatedSeq<'c, 'a, 's> {
    pub(crate) fn new(
        cur: &'c mut Cursor<'a, 's>,
        ctx: &'s Ctx<'a>,
        first: Info<'a>,
        local: &'a str,
    ) -> Self {
        RepeatedSeq {
            cur,
            ctx,
            first: Some(first),
            local,
            count: 0,
        }
    }
}

impl<'c, 'a, 's> SeqAccess<'a> for RepeatedSeq<'c, 'a, 's> {
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
                    Ev::Start(name) if split_qname(name).1 == self.local => {
                        self.cur.next()?;
                        break Info::read(self.cur, name)?;
                    }
                    _ => return Ok(None),
                }
            },
        };
        self.count += 1;
        if self.count > self.cur.limits().max_array_len {
            return Err(too_many(self.cur));
        }
        element_seed(seed, self.cur, self.ctx, info, true).map(Some)
    }
}

/// The children of an array element. A rank-n array (n > 1) is read as rows of rows: the
/// outer sequence yields rows that each take `d[1]` items (or one item if the target is not
/// a sequence), in document order.
pub(crate) struct ArraySeq<'c, 'a, 's> {
    cur: &'c mut Cursor<'a, 's>,
    ctx: &'s Ctx<'a>,
    dims: Dims,
    count: usize,
    done: bool,
}

impl<'c, 'a, 's> ArraySeq<'c, 'a, 's> {
    pub(crate) fn new(cur: &'c mut Cursor<'a, 's>, ctx: &'s Ctx<'a>, dims: Dims) -> Self {
        ArraySeq {
            cur,
            ctx,
            dims,
            count: 0,
            done: false,
        }
    }

    /// The next item element, or `None` at the array's end tag (consumed).
    fn next_child(&mut self) -> Result<Option<Info<'a>>, DecodeError> {
        if self.done {
            return Ok(None);
        }
        loop {
            match self.cur.next()? {
                Ev::Start(name) => {
                    self.count += 1;
                    if self.count > self.cur.limits().max_array_len {
                        return Err(too_many(self.cur));
                    }
                    return Info::read(self.cur, name).map(Some);
                }
                Ev::End => {
                    self.done = true;
                    return Ok(None);
                }
                Ev::Text(_) | Ev::CData(_) => {}
                Ev::Eof => return Err(self.cur.malformed("unexpected end of document")),
            }
        }
    }

    /// Whether another item follows (the array's end tag is consumed if not).
    fn has_next(&mut self) -> Result<bool, DecodeError> {
        if self.done {
            return Ok(false);
        }
        loop {
            match self.cur.peek()? {
                Ev::Start(_) => return Ok(true),
                Ev::End => {
                    self.cur.next()?;
                    self.done = true;
                    return Ok(false);
                }
                Ev::Text(_) | Ev::CData(_) => {
                    self.cur.next()?;
                }
                Ev::Eof => return Err(self.cur.malformed("unexpected end of document")),
            }
        }
    }

    fn item<T: DeserializeSeed<'a>>(&mut self, seed: T) -> Result<Option<T::Value>, DecodeError> {
        match self.next_child()? {
            Some(info) => element_seed(seed, self.cur, self.ctx, info, true).map(Some),
            None => Ok(None),
        }
    }

    /// Skips what the visitor did not read, through the array's end tag.
    pub(crate) fn finish(&mut self) -> Result<(), DecodeError> {
        while let Some(_info) = self.next_child()? {
            self.cur.skip_element()?;
        }
        Ok(())
    }
}

impl<'c, 'a, 's> SeqAccess<'a> for ArraySeq<'c, 'a, 's> {
    type Error = DecodeError;

    fn next_element_seed<T: DeserializeSeed<'a>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, DecodeError> {
        if self.dims.rank <= 1 {
            return self.item(seed);
        }
        if !self.has_next()? {
            return Ok(None);
        }
        let dims = self.dims.rest();
        seed.deserialize(RowDe { arr: self, dims }).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        // checked against max_array_len when the attribute was read
        Some(self.dims.first().min(self.cur.limits().max_array_len))
    }
}

/// One row of an n-dimensional array (`dims.d[0]` items, or sub-rows).
struct RowDe<'r, 'c, 'a, 's> {
    arr: &'r mut ArraySeq<'c, 'a, 's>,
    dims: Dims,
}

struct RowSeq<'r, 'c, 'a, 's> {
    arr: &'r mut ArraySeq<'c, 'a, 's>,
    dims: Dims,
    remaining: usize,
}

impl<'r, 'c, 'a, 's> SeqAccess<'a> for RowSeq<'r, 'c, 'a, 's> {
    type Error = DecodeError;

    fn next_element_seed<T: DeserializeSeed<'a>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, DecodeError> {
        if self.remaining == 0 {
            return Ok(None);
        }
        self.remaining -= 1;
        if self.dims.rank <= 1 {
            return self.arr.item(seed);
        }
        if !self.arr.has_next()? {
            return Ok(None);
        }
        let dims = self.dims.rest();
        seed.deserialize(RowDe {
            arr: &mut *self.arr,
            dims,
        })
        .map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.remaining)
    }
}

macro_rules! row_forward {
    ($($method:ident($($arg:ident: $ty:ty),*);)*) => {$(
        fn $method<V: Visitor<'a>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value, DecodeError> {
            match self.arr.next_child()? {
                Some(info) => {
                    let ctx = self.arr.ctx;
                    ElemDe { cur: &mut *self.arr.cur, ctx, info, items: true }.$method($($arg,)* visitor)
                }
                None => Err(self.arr.cur.err(DecodeError::value("array has fewer items than its size declares"))),
            }
        }
    )*};
}

impl<'r, 'c, 'a, 's> de::Deserializer<'a> for RowDe<'r, 'c, 'a, 's> {
    type Error = DecodeError;

    fn deserialize_seq<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        let remaining = self.dims.first().max(1);
        visitor.visit_seq(RowSeq {
            arr: self.arr,
            dims: self.dims,
            remaining,
        })
    }

    fn deserialize_tuple<V: Visitor<'a>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        self.deserialize_seq(visitor)
    }

    row_forward! {
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
        deserialize_tuple_struct(name: &'static str, len: usize);
        deserialize_map();
        deserialize_struct(name: &'static str, fields: &'static [&'static str]);
        deserialize_enum(name: &'static str, variants: &'static [&'static str]);
        deserialize_identifier();
        deserialize_ignored_any();
    }
}

/// An empty sequence or map.
pub(crate) struct Empty;

impl<'a> SeqAccess<'a> for Empty {
    type Error = DecodeError;
    fn next_element_seed<T: DeserializeSeed<'a>>(
        &mut self,
        _seed: T,
    ) -> Result<Option<T::Value>, DecodeError> {
        Ok(None)
    }
}

impl<'a> MapAccess<'a> for Empty {
    type Error = DecodeError;
    fn next_key_seed<K: DeserializeSeed<'a>>(
        &mut self,
        _seed: K,
    ) -> Result<Option<K::Value>, DecodeError> {
        Ok(None)
    }
    fn next_value_seed<V: DeserializeSeed<'a>>(
        &mut self,
        _seed: V,
    ) -> Result<V::Value, DecodeError> {
        Err(DecodeError::malformed("no value"))
    }
}

/// A value whose element is absent: `None`, an empty sequence, `()`; anything else is a
/// "missing element" error. For an empty Body the name is `body`, and a struct reads as one
/// with no fields present.
pub(crate) struct Absent(pub(crate) &'static str);

impl<'a> de::Deserializer<'a> for Absent {
    type Error = DecodeError;

    fn deserialize_any<V: Visitor<'a>>(self, _visitor: V) -> Result<V::Value, DecodeError> {
        if let Some(list) = self.0.strip_prefix(pick::CHOICE) {
            return Err(DecodeError::value(format!(
                "missing one of the elements `{}`",
                list.replace('|', "`, `")
            )));
        }
        if self.0 == pick::ANY {
            return Err(DecodeError::value("missing an element (`xsd:any`)"));
        }
        Err(DecodeError::value(match self.0.strip_prefix('@') {
            Some(attribute) => format!("missing attribute `{attribute}`"),
            None => format!("missing element `{}`", pick::element_local(self.0)),
        }))
    }
    fn deserialize_option<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        visitor.visit_none()
    }
    fn deserialize_seq<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        visitor.visit_seq(Empty)
    }
    fn deserialize_unit<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        visitor.visit_unit()
    }
    fn deserialize_unit_struct<V: Visitor<'a>>(
        self,
        _n: &'static str,
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        visitor.visit_unit()
    }
    fn deserialize_struct<V: Visitor<'a>>(
        self,
        _n: &'static str,
        _f: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        if self.0 == "body" {
            visitor.visit_map(Empty)
        } else {
            self.deserialize_any(visitor)
        }
    }
    fn deserialize_ignored_any<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        visitor.visit_unit()
    }
    serde::forward_to_deserialize_any! {
        <W: Visitor<'a>>
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        newtype_struct tuple tuple_struct map enum identifier
    }
}
