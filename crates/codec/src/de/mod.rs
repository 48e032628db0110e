//! The serde deserializer for SOAP bodies, literal and SOAP-encoded, straight off the event
//! stream (no tree).
//!
//! An element is a value: a struct reads its child elements as fields (by local name, so
//! qualified and unqualified children are both accepted), a scalar reads its text, `Option`
//! reads `xsi:nil` (or absence), a sequence reads either repeated sibling elements (literal) or
//! the children of one array element (SOAP-ENC arrays, any item names, n-dimensional arrays
//! flattened row by row). Multi-ref `href="#id"` / SOAP 1.2 `enc:ref` are followed by reading
//! the target element again from its offset, with cycle detection and two budgets: XML events
//! (so a web of shared references cannot multiply the work) and bytes (so it cannot multiply
//! the memory: one reference to 1 MB of text is one event but a 1 MB copy). Every time a
//! reference is followed, the byte length of its target is charged to the envelope's
//! [`crate::Limits::reference_budget`] *before* the target is read; a reference the budget
//! cannot pay for is refused with a limit error (a Client fault) and nothing is copied. Owned
//! targets (`String`, `Vec`) must copy; sharing would need borrowed targets, which
//! `Envelope::body` (`DeserializeOwned`, so the request buffer can be freed) does not offer.
//! Must never: recurse without a bound, allocate from a size the input claims before it is
//! checked, or lose the path in an error.

mod access;
mod bare;
mod info;
mod markup;
mod pick;
mod replay;
mod siblings;

use std::borrow::Cow;
use std::cell::{Cell, OnceCell, RefCell};
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde::de::{self, DeserializeOwned, DeserializeSeed, Visitor};

use crate::error::{excerpt, DecodeError};
use crate::xml::{is_blank, ns, split_qname, Binding, Cursor, Ev, NsStack, Source};
use crate::{Envelope, Style, Version};

use access::{Absent, ArraySeq, ChildrenMap, RepeatedSeq};
pub(crate) use info::{compatible, int_type, Info, Want};
/// Which scalar serde method read (or, in `ser::replay`, wrote) a value.
pub(crate) use replay::Kind as ScalarKind;
pub(crate) use replay::Remembered;
use replay::{Kind, Recall, Tape};

/// Where an `id` points: offsets of its start tag and of the end of its end tag, and the
/// bindings declared between Body (or Header, for an id in a header block) and it.
#[derive(Debug)]
struct IdTarget {
    offset: usize,
    end: usize,
    ns: (usize, usize),
    in_header: bool,
}

/// The header blocks an `enc:ref` may point into (SOAP 1.2 Part 2 3.1.5.3: an id is unique
/// in the whole envelope, so a body value may refer to data a header block carries).
#[derive(Debug, Default)]
struct Headers<'a> {
    above: [&'a str; 2],
    ns: &'a [Binding<'a>],
    starts: Vec<usize>,
}

#[derive(Debug, Default)]
struct IdIndex<'a> {
    map: HashMap<Cow<'a, str>, IdTarget>,
    arena: Vec<Binding<'a>>,
}

/// Everything shared by the cursors of one body decode. It borrows the envelope (`'a` is
/// the shorter of the envelope's borrow and its input's), so building one allocates nothing.
pub(crate) struct Ctx<'a> {
    pub(crate) src: Source<'a>,
    pub(crate) style: Style,
    outer: [&'a str; 2],
    body_ns: &'a [Binding<'a>],
    scan_from: usize,
    headers: Headers<'a>,
    version: Version,
    ids: OnceCell<Result<IdIndex<'a>, DecodeError>>,
    resolving: RefCell<Vec<String>>,
    /// The envelope's multi-ref budget: what is left, and what it was.
    references_left: &'a AtomicUsize,
    references_budget: usize,
    /// What a full read past a remembered opening records for [`replay`].
    tape: Option<&'a RefCell<Tape>>,
}

impl<'a> Ctx<'a> {
    /// Records on the tape, when there is one.
    fn tape(&self, f: impl FnOnce(&mut Tape)) {
        if let Some(tape) = self.tape {
            f(&mut tape.borrow_mut());
        }
    }

    /// Takes `bytes` from the envelope's multi-ref budget, or refuses (taking nothing) when
    /// less is left: called before a reference target is read again, so nothing is decoded
    /// (nor allocated) for a reference the budget cannot pay for.
    fn charge_reference(&self, id: &str, bytes: usize) -> Result<(), DecodeError> {
        let paid =
            self.references_left
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| {
                    left.checked_sub(bytes)
                });
        if paid.is_ok() {
            return Ok(());
        }
        Err(DecodeError::limit(format!(
            "following reference `#{}` would decode its {bytes} bytes once more, past the \
             budget of {} bytes of references for this document",
            id.chars().take(40).collect::<String>(),
            self.references_budget
        )))
    }

    fn id_index(&self) -> Result<&IdIndex<'a>, DecodeError> {
        let r = self.ids.get_or_init(|| self.scan_ids());
        r.as_ref().map_err(Clone::clone)
    }

    /// One pass over the Body and the header blocks recording every element that carries an
    /// `id`.
    fn scan_ids(&self) -> Result<IdIndex<'a>, DecodeError> {
        let mut index = IdIndex::default();
        let cur = Cursor::new(
            &self.src,
            self.scan_from,
            &self.outer,
            NsStack::from_bindings(self.body_ns),
        );
        self.scan_region(&mut index, cur, self.body_ns.len(), false)?;
        let h = &self.headers;
        for &start in &h.starts {
            let cur = Cursor::new(&self.src, start, &h.above, NsStack::from_bindings(h.ns));
            self.scan_region(&mut index, cur, h.ns.len(), true)?;
        }
        Ok(index)
    }

    /// Records the ids of one region: the content of Body (through its end tag), or one
    /// header block (`in_header`: from its start tag through its end tag).
    fn scan_region(
        &self,
        index: &mut IdIndex<'a>,
        mut cur: Cursor<'a, '_>,
        base: usize,
        in_header: bool,
    ) -> Result<(), DecodeError> {
        let mut depth = 0usize;
        // ids whose element is open, with its depth, to record where each one ends
        let mut open: Vec<(usize, Cow<'a, str>)> = Vec::new();
        loop {
            match cur.next()? {
                Ev::Start(_) => {
                    depth += 1;
                    let mut found = None;
                    for a in &cur.attrs {
                        if a.local == "id" {
                            let uri = cur.attr_ns(a)?;
                            if uri.is_empty() || uri == ns::SOAP12_ENC {
                                found = Some(a.value()?);
                            }
                        }
                    }
                    if let Some(id) = found {
                        let extra = cur.ns.bindings().get(base..).unwrap_or(&[]);
                        if index.arena.len() + extra.len() > 1 << 16 {
                            return Err(cur.err(DecodeError::limit(
                                "too many namespace declarations around ids",
                            )));
                        }
                        let start = index.arena.len();
                        index.arena.extend_from_slice(extra);
                        let target = IdTarget {
                            offset: cur.last_start_at,
                            end: cur.last_start_at,
                            ns: (start, index.arena.len()),
                            in_header,
                        };
                        if index.map.insert(id.clone(), target).is_some() {
                            return Err(cur.malformed(format!("duplicate id {}", excerpt(&id))));
                        }
                        open.push((depth, id));
                    }
                }
                Ev::End => {
                    if depth == 0 {
                        return Ok(());
                    }
                    if open.last().is_some_and(|(d, _)| *d == depth) {
                        if let Some((_, id)) = open.pop() {
                            if let Some(t) = index.map.get_mut(&id) {
                                t.end = cur.position();
                            }
                        }
                    }
                    depth -= 1;
                    if depth == 0 && in_header {
                        return Ok(());
                    }
                }
                Ev::Text(_) | Ev::CData(_) => {}
                Ev::Eof => return Err(cur.malformed("unexpected end of document")),
            }
        }
    }
}

#[cfg(test)]
thread_local! {
    /// Tests: the body decoder reads the end of the document event by event, as it does
    /// when [`Cursor::end_plainly`] declines, to compare both ways.
    pub(crate) static READ_EVERY_END: Cell<bool> = const { Cell::new(false) };
}

fn read_every_end() -> bool {
    #[cfg(test)]
    return READ_EVERY_END.get();
    #[cfg(not(test))]
    false
}

impl<'a> Envelope<'a> {
    fn ctx<'e>(&'e self, style: Style) -> Ctx<'e> {
        Ctx {
            src: Source::new(self.input, self.limits.clone()),
            style,
            outer: self.outer,
            body_ns: &self.body_ns,
            scan_from: self.body_content,
            headers: Headers {
                above: [self.outer[0], self.header_name],
                ns: &self.header_ns,
                starts: self.header_extra.iter().map(|h| h.start).collect(),
            },
            version: self.version,
            ids: OnceCell::new(),
            resolving: RefCell::new(Vec::new()),
            references_left: &self.references_left,
            references_budget: self.limits.reference_budget(self.input.len()),
            tape: None,
        }
    }

    /// Deserializes the first body element (the wrapper): its children become `T`'s fields.
    /// `T = ()` (or a unit struct) accepts any wrapper and an empty body. A struct whose serde
    /// name is `$body` takes the Body's children themselves as its fields (a document/literal
    /// message of several parts, or none). After the wrapper the rest of the document is read
    /// to check it is well formed.
    ///
    /// Past a remembered opening, a body of the same shape as the last one of its type (the
    /// same bytes but for the values' texts) is played back instead of read (`replay`).
    pub fn body<T: DeserializeOwned>(&self, style: Style) -> Result<T, DecodeError> {
        let recall = replay::recall::<T>(self, style);
        let tape = match recall {
            Recall::Value(v) => return Ok(v),
            Recall::Learn => Some(RefCell::new(Tape::new(self.input))),
            Recall::Read => None,
        };
        let value = self.read_body(style, tape.as_ref())?;
        if let Some(tape) = tape {
            replay::learn::<T>(self, style, tape.into_inner());
        }
        Ok(value)
    }

    /// [`Envelope::body`] read in full, recording on `tape`.
    pub(crate) fn read_body<T: DeserializeOwned>(
        &self,
        style: Style,
        tape: Option<&RefCell<Tape>>,
    ) -> Result<T, DecodeError> {
        let mut ctx = self.ctx(style);
        ctx.tape = tape;
        let Some(body) = &self.body else {
            return T::deserialize(Absent("body"));
        };
        let mut cur = Cursor::new(
            &ctx.src,
            body.offset,
            &self.outer,
            NsStack::from_bindings(&self.body_ns),
        );
        let bare = Cell::new(false);
        let value = T::deserialize(bare::First {
            cur: &mut cur,
            ctx: &ctx,
            tag: body.tag.as_ref(),
            bare: &bare,
        })?;
        if bare.get() {
            self.finish_envelope(&mut cur)?;
        } else {
            self.finish(&mut cur)?;
        }
        Ok(value)
    }

    /// Reads the rest of Body (skipping other children, e.g. multi-ref targets) and Envelope,
    /// and checks that nothing but whitespace, comments and PIs follows.
    fn finish(&self, cur: &mut Cursor<'_, '_>) -> Result<(), DecodeError> {
        if !read_every_end() && cur.end_plainly()? {
            return Ok(());
        }
        // rest of Body: only multi-ref targets (elements with an id) may follow the wrapper
        loop {
            match cur.next()? {
                Ev::Start(name) if has_id(cur)? => {
                    let _ = name;
                    cur.skip_element()?
                }
                Ev::Start(name) => {
                    return Err(cur.malformed(format!(
                        "second body element `<{name}>`: the body holds one operation element (and multi-ref targets with an `id`)"
                    )))
                }
                Ev::End => break,
                Ev::Text(t) if is_blank(t) => {}
                Ev::Text(_) | Ev::CData(_) => return Err(cur.malformed("text in Body")),
                Ev::Eof => return Err(cur.malformed("unexpected end of document")),
            }
        }
        self.finish_envelope(cur)
    }

    /// Reads the rest of Envelope after Body's end tag, and checks that nothing but
    /// whitespace, comments and PIs follows.
    fn finish_envelope(&self, cur: &mut Cursor<'_, '_>) -> Result<(), DecodeError> {
        loop {
            match cur.next()? {
                Ev::Start(name) if self.version == Version::Soap11 => {
                    let (uri, local) = cur.resolve_element(name)?;
                    if uri == ns::SOAP11_ENV && matches!(local, "Body" | "Header") {
                        return Err(cur.malformed(format!(
                            "second `<{name}>` after Body (an envelope has one Header and one Body)"
                        )));
                    }
                    cur.skip_element()?
                }
                Ev::Start(name) => {
                    return Err(cur.malformed(format!(
                        "element `<{name}>` after Body (soap 1.2 allows only Header and Body)"
                    )))
                }
                Ev::End => break,
                Ev::Text(t) if is_blank(t) => {}
                Ev::Text(_) | Ev::CData(_) => return Err(cur.malformed("text in Envelope")),
                Ev::Eof => return Err(cur.malformed("unexpected end of document")),
            }
        }
        loop {
            match cur.next()? {
                Ev::Eof => return Ok(()),
                Ev::Text(t) if is_blank(t) => {}
                _ => return Err(DecodeError::malformed("content after the root element")),
            }
        }
    }

    /// Deserializes header block `index` like a body wrapper: its children become `T`'s fields.
    pub fn header<T: DeserializeOwned>(
        &self,
        index: usize,
        style: Style,
    ) -> Result<T, DecodeError> {
        let h = self
            .header_extra
            .get(index)
            .ok_or_else(|| DecodeError::malformed(format!("no header block {index}")))?;
        let ctx = self.ctx(style);
        let above = [self.outer[0], self.header_name];
        let mut cur = Cursor::new(
            &ctx.src,
            h.start,
            &above,
            NsStack::from_bindings(&self.header_ns),
        );
        let name = match cur.next()? {
            Ev::Start(name) => name,
            _ => return Err(cur.malformed("expected a header block")),
        };
        let info = Info::read(&cur, name)?;
        let depth = cur.depth();
        T::deserialize(ElemDe {
            cur: &mut cur,
            ctx: &ctx,
            info,
            items: false,
        })
        .map_err(|e| e.at(|| access::path_at(&cur, depth, name)))
    }
}

/// Whether the element just opened carries an `id` (SOAP 1.1 unqualified, SOAP 1.2 `enc:id`).
fn has_id(cur: &Cursor<'_, '_>) -> Result<bool, DecodeError> {
    for a in &cur.attrs {
        if a.local == "id" {
            let uri = cur.attr_ns(a)?;
            if uri.is_empty() || uri == ns::SOAP12_ENC {
                return Ok(true);
            }
        }
    }
    Ok(false)
}

/// Deserializes one element (whose start tag has been consumed) as a value.
pub(crate) struct ElemDe<'c, 'a, 's> {
    pub(crate) cur: &'c mut Cursor<'a, 's>,
    pub(crate) ctx: &'s Ctx<'a>,
    pub(crate) info: Info<'a>,
    /// A sequence target reads this element's children as its items (array container, or an
    /// item of a literal sequence of sequences) instead of repeated siblings.
    pub(crate) items: bool,
}

impl<'c, 'a, 's> ElemDe<'c, 'a, 's> {
    /// The path of this element once it is closed.
    fn closed_path(&self) -> String {
        format!("{}/{}", self.cur.path(), self.info.local())
    }

    fn bad(&self, want: Want, found: &str) -> DecodeError {
        DecodeError::value(format!(
            "expected {}, found {}",
            want.name(),
            excerpt(found)
        ))
        .at(|| self.closed_path())
    }

    /// Checks `xsi:type` against what the target wants (schema types only; a type from
    /// another namespace may be a user-defined restriction and is accepted).
    fn check(&self, want: Want) -> Result<(), DecodeError> {
        let Some(t) = self.info.xsi_type else {
            return Ok(());
        };
        // XML white space: an `xsi:type` is a QName, whose whiteSpace facet is `collapse`.
        let (prefix, local) = split_qname(trim_xml(t));
        if self.cur.resolve_kind(prefix)?.has_schema_types() && !compatible(want, local) {
            if want == Want::Bool && self.cur.limits().lenient.int_booleans && int_type(local) {
                // deserialize_bool still refuses any value but `1`/`0`/`true`/`false`
                crate::lenient::log(crate::lenient::Accepted::IntBoolean, &self.closed_path());
                // a playback would not log it
                self.ctx.tape(Tape::spoil);
                return Ok(());
            }
            return Err(self.cur.err(DecodeError::value(format!(
                "expected {}, found xsi:type {}",
                want.name(),
                excerpt(t)
            ))));
        }
        Ok(())
    }

    /// Type check, nil check and the element's text (element consumed through its end tag).
    fn scalar(&mut self, want: Want) -> Result<Cow<'a, str>, DecodeError> {
        self.check(want)?;
        if self.info.nil {
            self.cur.skip_element()?;
            return Err(
                DecodeError::value(format!("expected {}, found nil", want.name()))
                    .at(|| self.closed_path()),
            );
        }
        self.cur.read_text()
    }

    /// Reads the element an `href`/`ref` points to and deserializes it instead of this one.
    fn follow<R>(
        self,
        f: impl FnOnce(ElemDe<'_, 'a, 's>) -> Result<R, DecodeError>,
    ) -> Result<R, DecodeError> {
        self.ctx.tape(Tape::spoil);
        let ElemDe {
            cur,
            ctx,
            info,
            items,
        } = self;
        let id = info.href.unwrap_or_default();
        cur.skip_element()?;
        let mut above = cur.open_names();
        above.push(info.qname);
        let path = || format!("{}/{}", cur.path(), info.local());
        let index = ctx.id_index()?;
        let target = index.map.get(id).ok_or_else(|| {
            DecodeError::new(
                crate::error::Kind::MissingId,
                format!(
                    "unresolved reference `#{}`",
                    id.chars().take(40).collect::<String>()
                ),
            )
            .at(path)
        })?;
        {
            let mut r = ctx.resolving.borrow_mut();
            if r.iter().any(|x| x == id) {
                return Err(
                    DecodeError::malformed(format!("reference cycle through `#{id}`")).at(path),
                );
            }
            if r.len() >= ctx.src.limits.max_depth {
                return Err(
                    DecodeError::limit("references nest deeper than the depth limit").at(path),
                );
            }
            r.push(id.to_string());
        }
        if let Err(e) = ctx.charge_reference(id, target.end.saturating_sub(target.offset)) {
            ctx.resolving.borrow_mut().pop();
            return Err(e.at(path));
        }
        let mut bindings = if target.in_header {
            ctx.headers.ns.to_vec()
        } else {
            ctx.body_ns.to_vec()
        };
        bindings.extend_from_slice(index.arena.get(target.ns.0..target.ns.1).unwrap_or(&[]));
        let mut sub = Cursor::new(
            &ctx.src,
            target.offset,
            &above,
            NsStack::from_bindings(&bindings),
        );
        let result = match sub.next() {
            Ok(Ev::Start(name)) => match Info::read(&sub, name) {
                Ok(info) => f(ElemDe {
                    cur: &mut sub,
                    ctx,
                    info,
                    items,
                }),
                Err(e) => Err(e),
            },
            Ok(_) => Err(sub.malformed("reference target is not an element")),
            Err(e) => Err(e),
        };
        ctx.resolving.borrow_mut().pop();
        result
    }

    fn is_container(&self) -> bool {
        self.items || self.info.array.is_array() || self.ctx.style == Style::Encoded
    }
}

macro_rules! follow_href {
    ($self:ident, $method:ident $(, $arg:expr)*; $visitor:ident) => {
        if $self.info.href.is_some() {
            return $self.follow(|d| d.$method($($arg,)* $visitor));
        }
    };
}

macro_rules! de_int {
    ($($method:ident $ty:ty => $visit:ident, $xsd:literal, $kind:ident;)*) => {$(
        fn $method<V: Visitor<'a>>(mut self, visitor: V) -> Result<V::Value, DecodeError> {
            follow_href!(self, $method; visitor);
            let want = Want::Int($xsd);
            let text = self.scalar(want)?;
            self.ctx.tape(|t| t.value(Kind::$kind, &text));
            match parse_int::<$ty>(&text) {
                Some(v) => visitor.$visit(v),
                None => Err(self.bad(want, &text)),
            }
        }
    )*};
}

impl<'c, 'a, 's> de::Deserializer<'a> for ElemDe<'c, 'a, 's> {
    type Error = DecodeError;

    de_int! {
        deserialize_i8 i8 => visit_i8, "byte", I8;
        deserialize_i16 i16 => visit_i16, "short", I16;
        deserialize_i32 i32 => visit_i32, "int", I32;
        deserialize_i64 i64 => visit_i64, "long", I64;
        deserialize_i128 i128 => visit_i128, "integer", I128;
        deserialize_u8 u8 => visit_u8, "unsignedByte", U8;
        deserialize_u16 u16 => visit_u16, "unsignedShort", U16;
        deserialize_u32 u32 => visit_u32, "unsignedInt", U32;
        deserialize_u64 u64 => visit_u64, "unsignedLong", U64;
        deserialize_u128 u128 => visit_u128, "nonNegativeInteger", U128;
    }

    fn deserialize_f32<V: Visitor<'a>>(mut self, visitor: V) -> Result<V::Value, DecodeError> {
        follow_href!(self, deserialize_f32; visitor);
        let want = Want::Float("float");
        let text = self.scalar(want)?;
        self.ctx.tape(|t| t.value(Kind::F32, &text));
        match parse_float::<f32>(trim_xml(&text)) {
            Some(v) => visitor.visit_f32(v),
            None => Err(self.bad(want, &text)),
        }
    }

    fn deserialize_f64<V: Visitor<'a>>(mut self, visitor: V) -> Result<V::Value, DecodeError> {
        follow_href!(self, deserialize_f64; visitor);
        let want = Want::Float("double");
        let text = self.scalar(want)?;
        self.ctx.tape(|t| t.value(Kind::F64, &text));
        match parse_float::<f64>(trim_xml(&text)) {
            Some(v) => visitor.visit_f64(v),
            None => Err(self.bad(want, &text)),
        }
    }

    fn deserialize_bool<V: Visitor<'a>>(mut self, visitor: V) -> Result<V::Value, DecodeError> {
        follow_href!(self, deserialize_bool; visitor);
        let text = self.scalar(Want::Bool)?;
        self.ctx.tape(|t| t.value(Kind::Bool, &text));
        match parse_bool(&text) {
            Some(v) => visitor.visit_bool(v),
            None => Err(self.bad(Want::Bool, &text)),
        }
    }

    fn deserialize_char<V: Visitor<'a>>(mut self, visitor: V) -> Result<V::Value, DecodeError> {
        follow_href!(self, deserialize_char; visitor);
        let text = self.scalar(Want::Str)?;
        self.ctx.tape(|t| t.value(Kind::Char, &text));
        match single_char(&text) {
            Some(c) => visitor.visit_char(c),
            None => Err(self.bad(Want::Str, &text)),
        }
    }

    fn deserialize_str<V: Visitor<'a>>(mut self, visitor: V) -> Result<V::Value, DecodeError> {
        follow_href!(self, deserialize_str; visitor);
        let text = self.scalar(Want::Str)?;
        self.ctx.tape(|t| t.value(Kind::Str, &text));
        match text {
            Cow::Borrowed(s) => visitor.visit_borrowed_str(s),
            Cow::Owned(s) => visitor.visit_string(s),
        }
    }

    fn deserialize_string<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        self.deserialize_str(visitor)
    }

    fn deserialize_bytes<V: Visitor<'a>>(mut self, visitor: V) -> Result<V::Value, DecodeError> {
        follow_href!(self, deserialize_bytes; visitor);
        let want = Want::Named("base64Binary");
        let text = self.scalar(want)?;
        self.ctx.tape(|t| t.value(Kind::Bytes, &text));
        match text.parse::<crate::xsd::Base64Binary>() {
            Ok(b) => visitor.visit_byte_buf(b.0),
            Err(_) => Err(self.bad(want, &text)),
        }
    }

    fn deserialize_byte_buf<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        self.deserialize_bytes(visitor)
    }

    fn deserialize_option<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        if self.info.nil {
            self.cur.skip_element()?;
            return visitor.visit_none();
        }
        visitor.visit_some(self)
    }

    fn deserialize_unit<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        self.ctx.tape(Tape::spoil);
        self.cur.skip_element()?;
        visitor.visit_unit()
    }

    fn deserialize_unit_struct<V: Visitor<'a>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'a>>(
        mut self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        if name == crate::any::RAW {
            self.ctx.tape(Tape::spoil);
            return pick::capture(self, visitor);
        }
        let Some(xsd) = name.strip_prefix(crate::xsd::RESERVED) else {
            return visitor.visit_newtype_struct(self);
        };
        self.ctx.tape(Tape::spoil);
        follow_href!(self, deserialize_newtype_struct, name; visitor);
        let want = Want::Named(xsd_static(xsd));
        let text = if xsd == "QName" {
            // resolve the prefix while the element's declarations are in scope
            self.check(want)?;
            let text = self.cur.read_text_open()?;
            let (prefix, local) = split_qname(text.trim());
            let uri = self.cur.resolve(prefix)?.to_string();
            let local = local.to_string();
            self.cur.next()?;
            Cow::Owned(if uri.is_empty() {
                local
            } else {
                format!("{{{uri}}}{local}")
            })
        } else {
            self.scalar(want)?
        };
        let path = self.closed_path();
        visitor
            .visit_newtype_struct(Text(text))
            .map_err(|e| e.at(|| path))
    }

    fn deserialize_seq<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        follow_href!(self, deserialize_seq; visitor);
        self.ctx.tape(Tape::spoil);
        if self.info.nil {
            self.cur.skip_element()?;
            return visitor.visit_seq(access::Empty);
        }
        if self.is_container() {
            self.check(Want::Seq)?;
            let dims = if self.info.array.is_array() {
                self.info.array
            } else {
                info::Dims::ONE
            };
            let mut seq = ArraySeq::new(self.cur, self.ctx, dims);
            let v = visitor.visit_seq(&mut seq)?;
            seq.finish()?;
            return Ok(v);
        }
        let local = self.info.local();
        visitor.visit_seq(RepeatedSeq::new(self.cur, self.ctx, self.info, local))
    }

    fn deserialize_tuple<V: Visitor<'a>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'a>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        follow_href!(self, deserialize_map; visitor);
        self.ctx.tape(Tape::spoil);
        self.check(Want::Struct)?;
        let mut map = ChildrenMap::new(self.cur, self.ctx, &[]);
        let v = visitor.visit_map(&mut map)?;
        map.finish()?;
        Ok(v)
    }

    fn deserialize_struct<V: Visitor<'a>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        follow_href!(self, deserialize_struct, name, fields; visitor);
        if markup::wanted(fields) {
            self.ctx.tape(Tape::spoil);
            return markup::deserialize_struct(self, fields, visitor);
        }
        self.ctx.tape(Tape::open_struct);
        // A struct without fields (a parameterless operation's wrapper) reads nothing from
        // the element, so its `xsi:type` and any text in it do not matter.
        if !fields.is_empty() {
            self.check(Want::Struct)?;
        }
        let mut map = ChildrenMap::new(self.cur, self.ctx, fields);
        let v = visitor.visit_map(&mut map)?;
        map.finish()?;
        Ok(v)
    }

    fn deserialize_enum<V: Visitor<'a>>(
        mut self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        follow_href!(self, deserialize_enum, name, variants; visitor);
        self.ctx.tape(Tape::spoil);
        let text = self.scalar(Want::Enum)?;
        let path = self.closed_path();
        visitor
            .visit_enum(de::value::StringDeserializer::<DecodeError>::new(
                text.trim().to_string(),
            ))
            .map_err(|e| e.at(|| path))
    }

    fn deserialize_identifier<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        self.deserialize_str(visitor)
    }

    fn deserialize_ignored_any<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        self.ctx.tape(Tape::spoil);
        self.cur.skip_element()?;
        visitor.visit_unit()
    }

    /// Self-describing: children make a map, otherwise the text, typed by `xsi:type` when it
    /// names a number or boolean.
    fn deserialize_any<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        follow_href!(self, deserialize_any; visitor);
        self.ctx.tape(Tape::spoil);
        if self.info.nil {
            self.cur.skip_element()?;
            return visitor.visit_none();
        }
        if self.info.array.is_array() {
            return self.deserialize_seq(visitor);
        }
        match self.cur.peek()? {
            Ev::Text(t) if is_blank(t) => {
                // whitespace before a child element or the end: look further
                let _ = self.cur.next()?;
                match self.cur.peek()? {
                    Ev::Start(_) => return self.deserialize_map(visitor),
                    Ev::End => {
                        self.cur.next()?;
                        return visitor.visit_borrowed_str(t);
                    }
                    _ => {}
                }
            }
            Ev::Start(_) => return self.deserialize_map(visitor),
            _ => {}
        }
        if self.info.xsi_type.is_none()
            && self.ctx.style == Style::Encoded
            && self.ctx.version == Version::Soap12
        {
            let path = self.closed_path();
            return Err(DecodeError::new(
                crate::error::Kind::UntypedValue,
                "encoded value has no `xsi:type` and the target does not tell its type",
            )
            .at(|| path));
        }
        let local = self
            .info
            .xsi_type
            .map(|t| split_qname(t.trim()).1)
            .unwrap_or_default();
        match local {
            "boolean" => self.deserialize_bool(visitor),
            "float" | "double" => self.deserialize_f64(visitor),
            "int" | "long" | "short" | "byte" | "integer" => self.deserialize_i64(visitor),
            "unsignedInt" | "unsignedLong" | "unsignedShort" | "unsignedByte" => {
                self.deserialize_u64(visitor)
            }
            // any other type (`xsd:base64Binary`, `xsd:dateTime`, a user type) is its text:
            // a self-describing target takes it as it is, without the string type check
            _ => match self.cur.read_text()? {
                Cow::Borrowed(t) => visitor.visit_borrowed_str(t),
                Cow::Owned(t) => visitor.visit_string(t),
            },
        }
    }
}

fn xsd_static(name: &str) -> &'static str {
    match name {
        "dateTime" => "dateTime",
        "date" => "date",
        "time" => "time",
        "decimal" => "decimal",
        "base64Binary" => "base64Binary",
        "hexBinary" => "hexBinary",
        "QName" => "QName",
        "anyURI" => "anyURI",
        _ => "anySimpleType",
    }
}

/// An XSD integer: optional sign, digits, surrounding XML whitespace. Overflow is `None`.
/// Up to 18 digits are read by hand (into an `i64`, then narrowed); longer forms go to
/// `FromStr`.
#[inline]
fn parse_int<T: std::str::FromStr + TryFrom<i64>>(text: &str) -> Option<T> {
    let b = text.as_bytes();
    let (neg, digits) = match b.first() {
        Some(b'-') => (true, &b[1..]),
        Some(b'+') => (false, &b[1..]),
        _ => (false, b),
    };
    if !digits.is_empty() && digits.len() <= 18 {
        let mut v: i64 = 0;
        let mut ok = true;
        for &c in digits {
            let d = c.wrapping_sub(b'0');
            ok &= d < 10;
            v = v.wrapping_mul(10).wrapping_add(i64::from(d));
        }
        if ok {
            return T::try_from(if neg { -v } else { v }).ok();
        }
    }
    let ws = |c: &u8| matches!(c, b' ' | b'\t' | b'\r' | b'\n');
    let start = b.iter().position(|c| !ws(c))?;
    let end = b.iter().rposition(|c| !ws(c))? + 1;
    let t = &text[start..end];
    t.strip_prefix('+').unwrap_or(t).parse().ok()
}

/// Trims XML whitespace (space, tab, CR, LF) only. By bytes: the four are ASCII, so the cut
/// falls on character boundaries (a trim by `char` decoded each one).
#[inline]
fn trim_xml(s: &str) -> &str {
    let ws = |c: &u8| matches!(c, b' ' | b'\t' | b'\r' | b'\n');
    let b = s.as_bytes();
    let Some(start) = b.iter().position(|c| !ws(c)) else {
        return "";
    };
    let end = b.iter().rposition(|c| !ws(c)).map_or(start, |i| i + 1);
    &s[start..end]
}

/// An XSD boolean: `true`, `false`, `1` or `0`, surrounding white space allowed. (The
/// remembered body's playback converts with this too: it must read what the full read reads.)
fn parse_bool(text: &str) -> Option<bool> {
    match text.trim() {
        "true" | "1" => Some(true),
        "false" | "0" => Some(false),
        _ => None,
    }
}

/// A `char` field's text: exactly one character.
fn single_char(text: &str) -> Option<char> {
    let mut it = text.chars();
    match (it.next(), it.next()) {
        (Some(c), None) => Some(c),
        _ => None,
    }
}

/// XSD float lexical forms (`INF`, `-INF`, `NaN`, exponents); Rust's parser accepts a
/// superset, which is fine for reading.
fn parse_float<F: std::str::FromStr>(s: &str) -> Option<F> {
    s.parse().ok()
}

/// A text value handed to an `xsd` type's visitor.
struct Text<'a>(Cow<'a, str>);

impl<'a> de::Deserializer<'a> for Text<'a> {
    type Error = DecodeError;
    fn deserialize_any<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        match self.0 {
            Cow::Borrowed(s) => visitor.visit_borrowed_str(s),
            Cow::Owned(s) => visitor.visit_string(s),
        }
    }
    serde::forward_to_deserialize_any! {
        <W: Visitor<'a>>
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option unit
        unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier ignored_any
    }
}

/// Deserializes a seed from an element (used by the array and sequence accessors).
pub(crate) fn element_seed<'a, 's, T: DeserializeSeed<'a>>(
    seed: T,
    cur: &mut Cursor<'a, 's>,
    ctx: &'s Ctx<'a>,
    info: Info<'a>,
    items: bool,
) -> Result<T::Value, DecodeError> {
    let depth = cur.depth();
    let name = info.qname;
    seed.deserialize(ElemDe {
        cur: &mut *cur,
        ctx,
        info,
        items,
    })
    .map_err(|e| e.at(|| access::path_at(cur, depth, name)))
}

#[cfg(test)]
mod tests {
    use super::{parse_int, trim_xml};

    #[test]
    fn trim_xml_cuts_xml_white_space_only() {
        assert_eq!(trim_xml(" \t\r\n1.5\n "), "1.5");
        assert_eq!(trim_xml(" \n "), "");
        assert_eq!(trim_xml(""), "");
        assert_eq!(trim_xml(" \u{e9} x\u{e9}\t"), "\u{e9} x\u{e9}");
        // a no-break space is not XML white space
        assert_eq!(trim_xml("\u{a0}1\u{a0}"), "\u{a0}1\u{a0}");
    }

    #[test]
    fn integers() {
        assert_eq!(parse_int::<i32>("123"), Some(123));
        assert_eq!(parse_int::<i32>("-2147483648"), Some(i32::MIN));
        assert_eq!(parse_int::<i32>("2147483648"), None);
        assert_eq!(parse_int::<i32>("+7"), Some(7));
        assert_eq!(parse_int::<i32>(" \n 42\t"), Some(42));
        assert_eq!(parse_int::<u32>("-1"), None);
        assert_eq!(parse_int::<u64>("18446744073709551615"), Some(u64::MAX));
        assert_eq!(
            parse_int::<i64>("999999999999999999"),
            Some(999_999_999_999_999_999)
        );
        assert_eq!(parse_int::<i64>("9999999999999999999"), None);
        assert_eq!(parse_int::<i32>("12a"), None);
        assert_eq!(parse_int::<i32>("ÿÿÿÿÿÿÿÿÿ"), None);
        assert_eq!(parse_int::<i32>(""), None);
        assert_eq!(parse_int::<i32>("-"), None);
        assert_eq!(
            parse_int::<i128>("-170141183460469231731687303715884105728"),
            Some(i128::MIN)
        );
    }
}
