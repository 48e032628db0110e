//! The streaming XML layer under the envelope and body decoders.
//!
//! The scanner (`scan`) tokenizes; this module adds what SOAP needs on top, cheaply:
//! namespace resolution (a flat binding stack, indexed by a map only once an adversary
//! declares many prefixes), an attribute scanner that hands out `&'a str` slices of the input, end-tag matching, a one-event lookahead, a path for error messages and
//! every [`Limits`] bound. The input is validated as UTF-8 once up front, so every slice is
//! taken from the `&'a str` by offset and nothing is copied unless it holds an entity.
//!
//! Must never: build a tree, expand an entity other than the five predefined ones and character
//! references, accept a DOCTYPE, allocate per element on the fast path, or panic on any input.

use std::borrow::Cow;
use std::cell::Cell;
use std::collections::HashMap;

use smallvec::SmallVec;

use crate::error::{excerpt, DecodeError};
use crate::scan::{self, Scanner, Token};
use crate::Limits;

/// Well-known namespace URIs.
pub(crate) mod ns {
    pub(crate) const SOAP11_ENV: &str = "http://schemas.xmlsoap.org/soap/envelope/";
    pub(crate) const SOAP12_ENV: &str = "http://www.w3.org/2003/05/soap-envelope";
    pub(crate) const SOAP11_ENC: &str = "http://schemas.xmlsoap.org/soap/encoding/";
    pub(crate) const SOAP12_ENC: &str = "http://www.w3.org/2003/05/soap-encoding";
    pub(crate) const SOAP12_ENC_NONE: &str =
        "http://www.w3.org/2003/05/soap-envelope/encoding/none";
    pub(crate) const XSD_2001: &str = "http://www.w3.org/2001/XMLSchema";
    pub(crate) const XSD_2000: &str = "http://www.w3.org/2000/10/XMLSchema";
    pub(crate) const XSD_1999: &str = "http://www.w3.org/1999/XMLSchema";
    pub(crate) const XSI_2001: &str = "http://www.w3.org/2001/XMLSchema-instance";
    pub(crate) const XSI_2000: &str = "http://www.w3.org/2000/10/XMLSchema-instance";
    pub(crate) const XSI_1999: &str = "http://www.w3.org/1999/XMLSchema-instance";
    pub(crate) const XML: &str = "http://www.w3.org/XML/1998/namespace";
}

/// The namespaces the body decoder tests for on every element, classified once when they
/// are declared instead of compared as strings on every use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NsKind {
    /// No namespace (unprefixed attribute, or an unbound default namespace).
    None,
    Xsi,
    /// XML Schema, or a SOAP encoding namespace (whose types mirror the schema's).
    Schema,
    Enc11,
    Enc12,
    Other,
}

impl NsKind {
    /// Called for every namespace declaration (a request declares four to six). The length and
    /// one byte pick the single URI it can be, and one comparison settles it: a `match` on the
    /// strings compared up to eight (three `memcmp`s for the SOAP 1.1 envelope's URI, which
    /// shares its length with three of these), about 240 instructions a declaration by
    /// callgrind, 1,400 of a 16,000-instruction echoFloat decode. `kind_of_every_uri` (below)
    /// holds the table to the constants.
    fn of(uri: &str) -> NsKind {
        let b = uri.as_bytes();
        // Byte 18 follows `http://www.w3.org/`: the first digit of the year.
        let (candidate, kind) = match b.len() {
            0 => return NsKind::None,
            32 if b[18] == b'2' => (ns::XSD_2001, NsKind::Schema),
            32 => (ns::XSD_1999, NsKind::Schema),
            35 => (ns::XSD_2000, NsKind::Schema),
            39 => (ns::SOAP12_ENC, NsKind::Enc12),
            41 => match b[18] {
                b'2' => (ns::XSI_2001, NsKind::Xsi),
                b'1' => (ns::XSI_1999, NsKind::Xsi),
                _ => (ns::SOAP11_ENC, NsKind::Enc11),
            },
            44 => (ns::XSI_2000, NsKind::Xsi),
            _ => return NsKind::Other,
        };
        if b == candidate.as_bytes() {
            kind
        } else {
            NsKind::Other
        }
    }

    /// XML Schema or SOAP-ENC: where built-in type names live.
    pub(crate) fn has_schema_types(self) -> bool {
        matches!(self, NsKind::Schema | NsKind::Enc11 | NsKind::Enc12)
    }
}

/// One namespace binding; `prefix` is empty for the default namespace.
#[derive(Debug, Clone)]
pub(crate) struct Binding<'a> {
    pub(crate) prefix: &'a str,
    pub(crate) uri: Cow<'a, str>,
    pub(crate) kind: NsKind,
}

impl<'a> Binding<'a> {
    /// No binding: an unused inline slot.
    pub(crate) const EMPTY: Binding<'static> = Binding {
        prefix: "",
        uri: Cow::Borrowed(""),
        kind: NsKind::None,
    };

    pub(crate) fn new(prefix: &'a str, uri: Cow<'a, str>) -> Self {
        let kind = NsKind::of(&uri);
        Binding { prefix, uri, kind }
    }
}

/// Bindings in scope, innermost last. Lookups scan backwards while the stack is short (the
/// common case: a handful of prefixes on the envelope); past `INDEX_AT` bindings a map from
/// prefix to binding positions takes over so that many declarations cannot make lookups slow.
#[derive(Debug, Default)]
pub(crate) struct NsStack<'a> {
    // Inline up to a typical envelope's bindings: a parse allocates nothing for them.
    bindings: SmallVec<[Binding<'a>; 8]>,
    index: Option<HashMap<&'a str, Vec<u32>>>,
}

const INDEX_AT: usize = 24;

impl<'a> NsStack<'a> {
    pub(crate) fn from_bindings(bindings: &[Binding<'a>]) -> Self {
        let mut s = NsStack {
            bindings: SmallVec::new(),
            index: None,
        };
        if bindings.len() <= INDEX_AT {
            s.bindings.extend(bindings.iter().cloned());
        } else {
            for b in bindings {
                s.push(b.clone());
            }
        }
        s
    }

    pub(crate) fn len(&self) -> usize {
        self.bindings.len()
    }

    pub(crate) fn bindings(&self) -> &[Binding<'a>] {
        &self.bindings
    }

    pub(crate) fn push(&mut self, b: Binding<'a>) {
        let pos = self.bindings.len() as u32;
        if let Some(index) = &mut self.index {
            index.entry(b.prefix).or_default().push(pos);
        }
        self.bindings.push(b);
        if self.index.is_none() && self.bindings.len() > INDEX_AT {
            let mut index: HashMap<&'a str, Vec<u32>> = HashMap::new();
            for (i, b) in self.bindings.iter().enumerate() {
                index.entry(b.prefix).or_default().push(i as u32);
            }
            self.index = Some(index);
        }
    }

    #[inline]
    pub(crate) fn truncate(&mut self, len: usize) {
        if len >= self.bindings.len() {
            return;
        }
        if let Some(index) = &mut self.index {
            for b in self.bindings.get(len..).unwrap_or(&[]) {
                if let Some(v) = index.get_mut(b.prefix) {
                    v.pop();
                }
            }
        }
        self.bindings.truncate(len);
    }

    /// The kind of namespace bound to `prefix` (`None` if unbound).
    #[inline]
    pub(crate) fn lookup_kind(&self, prefix: &str) -> Option<NsKind> {
        if self.index.is_none() {
            return match self.bindings.iter().rev().find(|b| same(b.prefix, prefix)) {
                Some(b) if b.uri.is_empty() => None,
                Some(b) => Some(b.kind),
                None if prefix == "xml" => Some(NsKind::Other),
                None => None,
            };
        }
        self.lookup(prefix).map(NsKind::of)
    }

    /// The innermost binding of `prefix`, if any.
    pub(crate) fn lookup_binding(&self, prefix: &str) -> Option<&Binding<'a>> {
        match &self.index {
            Some(index) => index
                .get(prefix)
                .and_then(|v| v.last())
                .and_then(|&i| self.bindings.get(i as usize)),
            None => self.bindings.iter().rev().find(|b| same(b.prefix, prefix)),
        }
    }

    /// The URI bound to `prefix` (`""`: the default namespace, which may be unbound).
    pub(crate) fn lookup(&self, prefix: &str) -> Option<&str> {
        let found = match &self.index {
            Some(index) => index
                .get(prefix)
                .and_then(|v| v.last())
                .and_then(|&i| self.bindings.get(i as usize)),
            None => self.bindings.iter().rev().find(|b| b.prefix == prefix),
        };
        match found {
            Some(b) if b.uri.is_empty() => None,
            Some(b) => Some(&b.uri),
            None if prefix == "xml" => Some(ns::XML),
            None => None,
        }
    }
}

/// An attribute of the current start tag (namespace declarations excluded). The value is
/// kept raw (escaped) and unescaped only by those who read it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Attr<'a> {
    pub(crate) prefix: &'a str,
    pub(crate) local: &'a str,
    pub(crate) raw: &'a str,
}

impl<'a> Attr<'a> {
    /// The unescaped value.
    pub(crate) fn value(&self) -> Result<Cow<'a, str>, DecodeError> {
        attr_value(self.raw, self.local)
    }

    /// The value where references would be absurd (`xsi:type`, `href`): borrowed, or an
    /// error if it holds any.
    pub(crate) fn plain(&self) -> Result<&'a str, DecodeError> {
        if has_ref_or_lt(self.raw.as_bytes()) {
            return Err(DecodeError::malformed(format!(
                "character or entity references in attribute `{}` are not supported",
                self.local
            )));
        }
        Ok(self.raw)
    }
}

/// A significant event. `Start` has already been opened (namespaces pushed, attributes in
/// [`Cursor::attrs`]); `End` is checked against its start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ev<'a> {
    Start(&'a str),
    End,
    Text(&'a str),
    CData(&'a str),
    Eof,
}

/// Shared by every cursor of one decode: the input, the limits, and the event budget that
/// bounds how much work `href` resolution may do (each reference re-reads its target).
#[derive(Debug)]
pub(crate) struct Source<'a> {
    pub(crate) input: &'a str,
    pub(crate) limits: Limits,
    pub(crate) budget: Cell<usize>,
}

impl<'a> Source<'a> {
    pub(crate) fn new(input: &'a str, limits: Limits) -> Self {
        Source {
            input,
            limits,
            budget: Cell::new(input.len().saturating_mul(2).saturating_add(4096)),
        }
    }
}

/// Where a string borrowed from a document lies in it (an empty one needs no place): what a
/// reader keeps of a read to lay it over other bytes that read the same way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Span {
    at: u32,
    len: u32,
}

impl Span {
    /// `s`'s place in `text[..upto]`; `None` when it is not a part of it (a name the reader
    /// made, or a constant).
    pub(crate) fn of(s: &str, text: &str, upto: usize) -> Option<Span> {
        if s.is_empty() {
            return Some(Span::default());
        }
        let at = (s.as_ptr() as usize).checked_sub(text.as_ptr() as usize)?;
        if at + s.len() > upto {
            return None;
        }
        Some(Span {
            at: u32::try_from(at).ok()?,
            len: u32::try_from(s.len()).ok()?,
        })
    }

    #[expect(clippy::ptr_arg, reason = "whether it is borrowed is the question")]
    pub(crate) fn of_cow(s: &Cow<'_, str>, text: &str, upto: usize) -> Option<Span> {
        match s {
            Cow::Borrowed(s) => Span::of(s, text, upto),
            // No namespace: an empty string, which holds nothing to borrow.
            Cow::Owned(s) if s.is_empty() => Some(Span::default()),
            Cow::Owned(_) => None,
        }
    }

    /// The string at this place of `text` (which must hold it: the same text, or one with the
    /// same bytes up to it).
    pub(crate) fn on(self, text: &str) -> &str {
        &text[self.at as usize..(self.at + self.len) as usize]
    }
}

/// How many namespace declarations and attributes a [`ReadTag`] keeps: an operation element
/// has one declaration (its namespace) and at most an `encodingStyle`, and the tag is kept
/// only when it has no more.
const TAG_BINDINGS: usize = 2;
const TAG_ATTRS: usize = 2;

/// A start tag a cursor has read, as places in the document: what [`Cursor::enter`] needs to
/// stand just inside the element as if it had read the tag, without reading it again. The
/// envelope reader keeps the first body child's (it reads that tag to learn the operation, and
/// the body decoder would read it once more), and a remembered opening keeps it for every
/// document that opens with the same bytes (`envelope/opening.rs`). Places, not strings: the
/// same bytes hold the same tag at the same places.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ReadTag {
    /// The raw qualified name.
    name: Span,
    /// The tag's own namespace declarations: prefix, URI, kind.
    ns: [(Span, Span, NsKind); TAG_BINDINGS],
    ns_len: u8,
    /// Its other attributes: prefix, local name, raw value.
    attrs: [(Span, Span, Span); TAG_ATTRS],
    attrs_len: u8,
    /// Just past the tag's `>`.
    content: u32,
    /// `<name .../>`: the next event is its end.
    empty: bool,
}

#[derive(Debug, Clone, Copy)]
struct Open<'a> {
    name: &'a str,
    ns_mark: u32,
}

/// A pull reader positioned somewhere in the document.
pub(crate) struct Cursor<'a, 's> {
    pub(crate) src: &'s Source<'a>,
    scan: Scanner<'a>,
    /// An empty-element tag was just opened: the next event is its end.
    empty_end: bool,
    /// The last text read needs no unescaping.
    text_plain: bool,
    /// Inline up to 16 levels: a typical message's cursor allocates nothing for it.
    stack: SmallVec<[Open<'a>; 16]>,
    /// Entries of `stack` that this cursor did not open (the path above where it started).
    base: usize,
    pub(crate) ns: NsStack<'a>,
    pub(crate) attrs: SmallVec<[Attr<'a>; 4]>,
    pending: Option<Ev<'a>>,
    pending_end: Option<&'a str>,
    /// Offset of the `</` of the last end tag read (`None`: the end of an empty-element tag).
    last_end_at: Option<usize>,
    /// Offset of the `<` of the last start tag read.
    pub(crate) last_start_at: usize,
    /// Check SOAP 1.2 `encodingStyle` attributes as elements open (off while the envelope
    /// reader skips header blocks, which only the node they target may judge).
    pub(crate) check_encoding: bool,
}

impl<'a, 's> Cursor<'a, 's> {
    /// A cursor reading from byte `offset`, inside the elements named `above` (for end-tag
    /// matching and error paths), with `ns` in scope.
    pub(crate) fn new(
        src: &'s Source<'a>,
        offset: usize,
        above: &[&'a str],
        ns: NsStack<'a>,
    ) -> Self {
        let scan = Scanner::new(src.input, offset);
        let mut stack: SmallVec<[Open<'a>; 16]> = SmallVec::new();
        stack.extend(above.iter().map(|n| Open {
            name: n,
            ns_mark: 0,
        }));
        Cursor {
            src,
            scan,
            empty_end: false,
            text_plain: false,
            base: stack.len(),
            stack,
            ns,
            attrs: SmallVec::new(),
            pending: None,
            pending_end: None,
            last_end_at: None,
            last_start_at: 0,
            check_encoding: true,
        }
    }

    /// The start tag [`Self::next`] just returned, as places in the input; `None` when it holds
    /// more than a [`ReadTag`] keeps, or a declaration whose URI had to be unescaped, or when
    /// the cursor has read on (a peeked event).
    pub(crate) fn read_tag(&self) -> Option<ReadTag> {
        let text = self.src.input;
        let end = self.scan.pos();
        if self.pending.is_some() || self.pending_end.is_some() {
            return None;
        }
        let name = Span::of(self.stack.last()?.name, text, end)?;
        let own = &self.ns.bindings()[self.own_bindings_from()..];
        if own.len() > TAG_BINDINGS || self.attrs.len() > TAG_ATTRS {
            return None;
        }
        let mut tag = ReadTag {
            name,
            ns: [(Span::default(), Span::default(), NsKind::None); TAG_BINDINGS],
            ns_len: own.len() as u8,
            attrs: [(Span::default(), Span::default(), Span::default()); TAG_ATTRS],
            attrs_len: self.attrs.len() as u8,
            content: u32::try_from(end).ok()?,
            empty: self.empty_end,
        };
        for (slot, b) in tag.ns.iter_mut().zip(own) {
            *slot = (
                Span::of(b.prefix, text, end)?,
                Span::of_cow(&b.uri, text, end)?,
                b.kind,
            );
        }
        for (slot, a) in tag.attrs.iter_mut().zip(&self.attrs) {
            *slot = (
                Span::of(a.prefix, text, end)?,
                Span::of(a.local, text, end)?,
                Span::of(a.raw, text, end)?,
            );
        }
        Some(tag)
    }

    /// Stands just inside the element whose start tag `tag` is, as [`Self::next`] would after
    /// reading it there (its name on the stack, its declarations in scope, its attributes in
    /// [`Self::attrs`]); returns its raw name. The cursor must be at the tag's `<`, in a
    /// document with the same bytes through the tag as the one it was read from: the tag's
    /// checks (limits, names, SOAP 1.2 `encodingStyle`) passed when it was read, and the same
    /// bytes pass them again, but for the depth, which depends on where this cursor stands.
    pub(crate) fn enter(&mut self, tag: &ReadTag) -> Result<&'a str, DecodeError> {
        let text = self.src.input;
        debug_assert!(text.len() >= tag.content as usize);
        self.spend()?;
        let name = tag.name.on(text);
        self.last_start_at = self.scan.pos();
        self.open(name)?;
        for &(prefix, uri, kind) in &tag.ns[..tag.ns_len as usize] {
            self.ns.push(Binding {
                prefix: prefix.on(text),
                uri: Cow::Borrowed(uri.on(text)),
                kind,
            });
        }
        for &(prefix, local, raw) in &tag.attrs[..tag.attrs_len as usize] {
            self.attrs.push(Attr {
                prefix: prefix.on(text),
                local: local.on(text),
                raw: raw.on(text),
            });
        }
        self.scan.resume(tag.content as usize);
        self.empty_end = tag.empty;
        Ok(name)
    }

    /// Reads the rest of the document when it is what ends most messages: the end tags of
    /// every element still open, innermost first, back to back, then nothing but white space
    /// (`</ns:op>` read, `</soap:Body></soap:Envelope>` left). That is one comparison where
    /// [`Self::next`] would scan and match each tag and look for more; any other rest (a
    /// comment, a space inside a tag, another element), or an event peeked, is left unread,
    /// `Ok(false)`, for the events to judge.
    pub(crate) fn end_plainly(&mut self) -> Result<bool, DecodeError> {
        if self.pending.is_some() || self.pending_end.is_some() || self.empty_end {
            return Ok(false);
        }
        let input = self.src.input;
        let mut rest = &input.as_bytes()[self.scan.pos()..];
        for open in self.stack.iter().rev() {
            let Some(after) = rest
                .strip_prefix(b"</")
                .and_then(|r| r.strip_prefix(open.name.as_bytes()))
                .and_then(|r| r.strip_prefix(b">"))
            else {
                return Ok(false);
            };
            rest = after;
        }
        if self.stack.is_empty() || !rest.iter().all(|&b| is_ws(b)) {
            return Ok(false);
        }
        self.spend()?;
        self.ns
            .truncate(self.stack.first().map_or(0, |o| o.ns_mark as usize));
        self.stack.clear();
        self.base = 0;
        self.scan.resume(input.len());
        Ok(true)
    }

    /// Where the namespace declarations of the element just opened start in [`Self::ns`]
    /// (the bindings before are those in scope around it).
    pub(crate) fn own_bindings_from(&self) -> usize {
        self.stack
            .last()
            .map_or(0, |o| o.ns_mark as usize)
            .min(self.ns.len())
    }

    pub(crate) fn limits(&self) -> &Limits {
        &self.src.limits
    }

    /// Depth of the current element (number of open elements, including those above the start).
    pub(crate) fn depth(&self) -> usize {
        self.stack.len()
    }

    /// The raw qualified names of the open elements.
    pub(crate) fn open_names(&self) -> Vec<&'a str> {
        self.stack.iter().map(|o| o.name).collect()
    }

    /// The raw name of the innermost open element.
    pub(crate) fn current_name(&self) -> Option<&'a str> {
        self.stack.last().map(|o| o.name)
    }

    /// `/Envelope/Body/op/field`: the local names of the open elements.
    pub(crate) fn path(&self) -> String {
        self.path_upto(self.stack.len())
    }

    /// The path of the first `n` open elements.
    pub(crate) fn path_upto(&self, n: usize) -> String {
        let mut p = String::new();
        for o in self.stack.iter().take(n) {
            p.push('/');
            p.push_str(split_qname(o.name).1);
        }
        p
    }

    #[cold]
    pub(crate) fn err(&self, e: DecodeError) -> DecodeError {
        e.at(|| self.path())
    }

    #[cold]
    pub(crate) fn malformed(&self, msg: impl Into<String>) -> DecodeError {
        self.err(DecodeError::malformed(msg))
    }

    /// Byte offset in the input of what the reader has not consumed yet. Right after a start
    /// tag was read (and nothing peeked) this is just past its `>`.
    pub(crate) fn position(&self) -> usize {
        self.scan.pos()
    }

    /// Reads the next significant event (comments and processing instructions are skipped).
    #[inline]
    pub(crate) fn next(&mut self) -> Result<Ev<'a>, DecodeError> {
        if let Some(ev) = self.pending.take() {
            if ev == Ev::End {
                if let Some(name) = self.pending_end.take() {
                    self.close(name)?;
                }
            }
            return Ok(ev);
        }
        let ev = self.read_raw()?;
        if let Some(name) = self.pending_end.take() {
            self.close(name)?;
        }
        Ok(ev)
    }

    /// The next significant event without consuming it. A `Start` is opened already (its
    /// attributes are in [`Self::attrs`]); the following [`Self::next`] returns it.
    pub(crate) fn peek(&mut self) -> Result<Ev<'a>, DecodeError> {
        if let Some(ev) = self.pending {
            return Ok(ev);
        }
        let ev = self.read_raw()?;
        self.pending = Some(ev);
        Ok(ev)
    }

    #[inline]
    fn spend(&self) -> Result<(), DecodeError> {
        let b = self.src.budget.get();
        if b == 0 {
            return Err(self.budget_error());
        }
        self.src.budget.set(b - 1);
        Ok(())
    }

    #[cold]
    #[inline(never)]
    fn budget_error(&self) -> DecodeError {
        self.err(DecodeError::limit(
            "reference expansion exceeds the document size",
        ))
    }

    /// Reads one event; opens starts; leaves ends to be closed by the consumer.
    #[inline]
    fn read_raw(&mut self) -> Result<Ev<'a>, DecodeError> {
        if self.empty_end {
            self.empty_end = false;
            self.spend()?;
            let Some(open) = self.stack.last() else {
                return Err(self.malformed("unexpected end tag"));
            };
            self.last_end_at = None;
            self.pending_end = Some(open.name);
            return Ok(Ev::End);
        }
        loop {
            let at = self.scan.pos();
            let token = match self.scan.next() {
                Ok(t) => t,
                Err(e) => return Err(self.scan_error(e)),
            };
            self.spend()?;
            match token {
                Token::Start { name, empty } => {
                    self.last_start_at = at;
                    self.open(name)?;
                    self.empty_end = empty;
                    return Ok(Ev::Start(name));
                }
                Token::StartAttrs { name, from } => {
                    self.last_start_at = at;
                    self.open(name)?;
                    self.empty_end = self.open_attrs(from)?;
                    return Ok(Ev::Start(name));
                }
                Token::End(name) => {
                    if self.stack.is_empty() {
                        return Err(self.malformed(format!("unexpected end tag `</{name}>`")));
                    }
                    self.last_end_at = Some(at);
                    self.pending_end = Some(name);
                    return Ok(Ev::End);
                }
                Token::Text { text, plain } => {
                    self.check_text(text.len())?;
                    self.text_plain = plain;
                    return Ok(Ev::Text(text));
                }
                Token::CData(t) => {
                    self.check_text(t.len())?;
                    return Ok(Ev::CData(t));
                }
                Token::Skip => continue,
                Token::Pi(at) => return Err(self.pi_error(at)),
                Token::Decl => {
                    return Err(self.malformed("xml declaration is only allowed at the start"))
                }
                Token::DocType => {
                    return Err(
                        self.malformed("a document type declaration (`<!DOCTYPE`) is not allowed")
                    )
                }
                Token::Eof => return Ok(Ev::Eof),
            }
        }
    }

    #[cold]
    #[inline(never)]
    fn pi_error(&self, at: usize) -> DecodeError {
        let rest = self.src.input.get(at + 2..).unwrap_or("");
        let end = crate::scan::name_end(rest.as_bytes(), 0).min(rest.len());
        let target = rest.get(..end).unwrap_or("");
        self.malformed(format!(
            "processing instruction {} is not allowed in a soap message",
            excerpt(&format!("<?{target}"))
        ))
    }

    #[cold]
    #[inline(never)]
    fn attr_fault(&self, e: AttrFault) -> DecodeError {
        match e {
            AttrFault::Msg(msg) => self.malformed(msg),
            AttrFault::TagNotClosed => {
                self.scan_error(scan::ScanError::StartTagNotClosed(self.last_start_at))
            }
            AttrFault::ValueNotClosed => {
                self.scan_error(scan::ScanError::AttrValueNotClosed(self.last_start_at))
            }
        }
    }

    #[cold]
    #[inline(never)]
    fn scan_error(&self, e: crate::scan::ScanError) -> DecodeError {
        self.malformed(format!("malformed xml: {}", e.describe(self.src.input)))
    }

    #[inline]
    fn check_text(&self, len: usize) -> Result<(), DecodeError> {
        if len > self.src.limits.max_text_len {
            return Err(self.text_error(len));
        }
        Ok(())
    }

    #[cold]
    #[inline(never)]
    fn text_error(&self, len: usize) -> DecodeError {
        self.err(DecodeError::limit(format!(
            "text of {len} bytes exceeds the limit of {} bytes",
            self.src.limits.max_text_len
        )))
    }

    /// Checks and pops the element whose end tag was just read.
    #[inline]
    fn close(&mut self, name: &'a str) -> Result<(), DecodeError> {
        match self.stack.last() {
            // `==` (one `bcmp` call), not `same`'s byte loop: an end tag's qualified name is
            // long enough (`SOAP-ENV:Envelope`) that the call's fixed cost is the cheaper.
            Some(open) if open.name == name => {
                let mark = open.ns_mark as usize;
                if self.stack.len() > self.base {
                    self.ns.truncate(mark);
                } else {
                    self.base -= 1;
                }
                self.stack.pop();
                Ok(())
            }
            Some(open) => Err(self.mismatch_error(name, open.name)),
            None => Err(self.malformed(format!("unexpected end tag `</{name}>`"))),
        }
    }

    #[cold]
    #[inline(never)]
    fn mismatch_error(&self, name: &str, expected: &str) -> DecodeError {
        self.malformed(format!(
            "end tag `</{name}>` does not match start tag `<{expected}>`"
        ))
    }

    /// Opens a start tag: limits, namespace declarations, attributes.
    #[inline]
    fn open(&mut self, name: &'a str) -> Result<(), DecodeError> {
        let limits = &self.src.limits;
        if self.stack.len() >= limits.max_depth || name.len() > limits.max_name_len {
            return Err(self.open_error(name));
        }
        let mark = self.ns.len() as u32;
        self.stack.push(Open {
            name,
            ns_mark: mark,
        });
        self.attrs.clear();
        Ok(())
    }

    #[cold]
    #[inline(never)]
    fn open_error(&self, name: &str) -> DecodeError {
        let limits = &self.src.limits;
        if self.stack.len() >= limits.max_depth {
            self.err(DecodeError::limit(format!(
                "element `<{name}>` nests deeper than the limit of {}",
                limits.max_depth
            )))
        } else {
            self.err(DecodeError::limit(format!(
                "element name of {} bytes exceeds the limit of {} bytes",
                name.len(),
                limits.max_name_len
            )))
        }
    }

    #[cold]
    #[inline(never)]
    fn attr_error(&self, count: usize, key: &str, raw_value: &str) -> DecodeError {
        let limits = &self.src.limits;
        let (max_attrs, max_name, max_text) = (
            limits.max_attributes,
            limits.max_name_len,
            limits.max_text_len,
        );
        if count > max_attrs {
            self.err(DecodeError::limit(format!(
                "more than {max_attrs} attributes on one element"
            )))
        } else if key.len() > max_name {
            self.err(DecodeError::limit(format!(
                "attribute name of {} bytes exceeds the limit of {max_name} bytes",
                key.len()
            )))
        } else {
            self.err(DecodeError::limit(format!(
                "attribute value of {} bytes exceeds the limit of {max_text} bytes",
                raw_value.len()
            )))
        }
    }

    /// The attributes of the tag just opened, read from byte `from` of the input (just past
    /// its name) through the tag's `>`: namespace declarations to the stack, the rest to
    /// `attrs`. Finding the tag's end is this parse's job, not the scanner's, so that each
    /// value is scanned once; the scanner resumes after the `>`. Whether the tag was `/>`.
    fn open_attrs(&mut self, from: usize) -> Result<bool, DecodeError> {
        let input = self.src.input;
        let Some(mut rest) = input.get(from..) else {
            return Err(self.scan_error(scan::ScanError::BadUtf8));
        };
        let limits = &self.src.limits;
        let (max_attrs, max_name, max_text) = (
            limits.max_attributes,
            limits.max_name_len,
            limits.max_text_len,
        );
        let mut count = 0usize;
        loop {
            let (key, raw_value, after) = match next_attr(rest) {
                Ok(AttrStep::Attr(key, raw_value, after)) => (key, raw_value, after),
                Ok(AttrStep::End(len, empty)) => {
                    self.scan.resume(input.len() - rest.len() + len);
                    if self.check_encoding {
                        self.check_encoding_style()?;
                    }
                    return Ok(empty);
                }
                Err(e) => return Err(self.attr_fault(e)),
            };
            count += 1;
            if count > max_attrs || key.len() > max_name || raw_value.len() > max_text {
                return Err(self.attr_error(count, key, raw_value));
            }
            let (prefix, local) = split_qname(key);
            if key == "xmlns" || prefix == "xmlns" {
                let prefix = if key == "xmlns" { "" } else { local };
                // A value that is one of the well-known URIs verbatim holds no reference, no
                // `<` and no space to trim: it skips `attr_value`'s scan (a `memchr3` of 80
                // instructions for most of an envelope's four to six declarations).
                let kind = NsKind::of(raw_value);
                let known = match kind {
                    NsKind::None => false,
                    NsKind::Other => raw_value == ns::SOAP11_ENV || raw_value == ns::SOAP12_ENV,
                    _ => true,
                };
                if known {
                    self.ns.push(Binding {
                        prefix,
                        uri: Cow::Borrowed(raw_value),
                        kind,
                    });
                } else {
                    let value = attr_value(raw_value, key).map_err(|e| self.err(e))?;
                    self.ns.push(Binding::new(prefix, trim_uri(value)));
                }
            } else {
                if self
                    .attrs
                    .iter()
                    .any(|a| same(a.local, local) && same(a.prefix, prefix))
                {
                    return Err(self.malformed(format!("duplicate attribute `{key}`")));
                }
                self.attrs.push(Attr {
                    prefix,
                    local,
                    raw: raw_value,
                });
            }
            rest = after;
        }
    }

    /// SOAP 1.2 (Part 1 section 5.1.1): an `env:encodingStyle` on any element of the body
    /// names the encoding of that element and its descendants, so an unknown one anywhere is
    /// a DataEncodingUnknown fault, not only on the body child. Checked after all the
    /// element's namespace declarations are read (they may follow the attribute).
    fn check_encoding_style(&self) -> Result<(), DecodeError> {
        for a in &self.attrs {
            if same(a.local, "encodingStyle")
                && !a.prefix.is_empty()
                && self.ns.lookup(a.prefix) == Some(ns::SOAP12_ENV)
            {
                let value = a.value().map_err(|e| self.err(e))?;
                crate::envelope::check_encoding_style(&value).map_err(|e| self.err(e))?;
            }
        }
        Ok(())
    }

    /// The namespace URI of a prefix in scope (error if unbound and non-empty).
    pub(crate) fn resolve(&self, prefix: &str) -> Result<&str, DecodeError> {
        match self.ns.lookup(prefix) {
            Some(uri) => Ok(uri),
            None if prefix.is_empty() => Ok(""),
            None => Err(self.malformed(format!("namespace prefix `{prefix}` is not declared"))),
        }
    }

    /// Like [`Self::resolve`], but the URI as the binding holds it (borrowed from the input
    /// unless its declaration held references), so it can outlive the cursor.
    pub(crate) fn resolve_cow(&self, prefix: &str) -> Result<Cow<'a, str>, DecodeError> {
        match self.ns.lookup_binding(prefix) {
            Some(b) if !b.uri.is_empty() => Ok(b.uri.clone()),
            _ => self.resolve(prefix).map(|u| Cow::Owned(u.to_owned())),
        }
    }

    /// Namespace URI and local name of an element name `p:l`.
    pub(crate) fn resolve_element(&self, qname: &'a str) -> Result<(&str, &'a str), DecodeError> {
        let (prefix, local) = split_qname(qname);
        Ok((self.resolve(prefix)?, local))
    }

    /// The kind of namespace of an attribute (unprefixed attributes have none).
    #[inline]
    pub(crate) fn attr_kind(&self, a: &Attr<'a>) -> Result<NsKind, DecodeError> {
        if a.prefix.is_empty() {
            return Ok(NsKind::None);
        }
        self.ns.lookup_kind(a.prefix).ok_or_else(|| {
            self.malformed(format!("namespace prefix `{}` is not declared", a.prefix))
        })
    }

    /// The kind of namespace a prefix is bound to (error if unbound and non-empty).
    #[inline]
    pub(crate) fn resolve_kind(&self, prefix: &str) -> Result<NsKind, DecodeError> {
        match self.ns.lookup_kind(prefix) {
            Some(k) => Ok(k),
            None if prefix.is_empty() => Ok(NsKind::None),
            None => Err(self.malformed(format!("namespace prefix `{prefix}` is not declared"))),
        }
    }

    /// Namespace URI of an attribute (unprefixed attributes have none).
    pub(crate) fn attr_ns(&self, a: &Attr<'a>) -> Result<&str, DecodeError> {
        if a.prefix.is_empty() {
            Ok("")
        } else {
            self.resolve(a.prefix)
        }
    }

    /// Skips the rest of the element whose start was just consumed, through its end tag.
    pub(crate) fn skip_element(&mut self) -> Result<(), DecodeError> {
        let mut depth = 1usize;
        loop {
            match self.next()? {
                Ev::Start(_) => depth += 1,
                Ev::End => {
                    depth -= 1;
                    if depth == 0 {
                        return Ok(());
                    }
                }
                Ev::Text(_) | Ev::CData(_) => {}
                Ev::Eof => return Err(self.malformed("unexpected end of document")),
            }
        }
    }

    /// Like [`Self::read_text`] but leaves the end tag unconsumed, so that the element's
    /// namespace declarations are still in scope (for QName values); call `next()` after.
    pub(crate) fn read_text_open(&mut self) -> Result<Cow<'a, str>, DecodeError> {
        let mut acc: Cow<'a, str> = Cow::Borrowed("");
        loop {
            match self.peek()? {
                Ev::End => return Ok(acc),
                Ev::Text(t) => {
                    self.next()?;
                    let t = self.unescape_text(t)?;
                    if acc.is_empty() {
                        acc = t;
                    } else {
                        acc.to_mut().push_str(&t);
                    }
                }
                Ev::CData(t) => {
                    self.next()?;
                    acc.to_mut().push_str(t);
                }
                Ev::Start(name) => {
                    return Err(self.err(DecodeError::value(format!(
                        "expected text, found element `<{name}>`"
                    ))))
                }
                Ev::Eof => return Err(self.malformed("unexpected end of document")),
            }
            if acc.len() > self.src.limits.max_text_len {
                return Err(self.err(DecodeError::limit(format!(
                    "text exceeds the limit of {} bytes",
                    self.src.limits.max_text_len
                ))));
            }
        }
    }

    /// Reads the text content of the element whose start was just consumed, through its end
    /// tag. Child elements are an error; comments are skipped; CDATA is taken as is.
    pub(crate) fn read_text(&mut self) -> Result<Cow<'a, str>, DecodeError> {
        // `<name>text</name>` in one step when nothing is pending
        if self.pending.is_none() && !self.empty_end && self.stack.len() > self.base {
            if let Some(open) = self.stack.last() {
                let (name, mark) = (open.name, open.ns_mark as usize);
                if let Some(text) = self.scan.simple_text(name) {
                    self.check_text(text.len())?;
                    self.spend()?;
                    self.spend()?;
                    self.last_end_at = None;
                    self.ns.truncate(mark);
                    self.stack.pop();
                    return Ok(Cow::Borrowed(text));
                }
            }
        }
        let mut acc: Option<Cow<'a, str>> = None;
        loop {
            let piece = match self.next()? {
                Ev::End => return Ok(acc.unwrap_or(Cow::Borrowed(""))),
                Ev::Text(t) if self.text_plain => Cow::Borrowed(t),
                Ev::Text(t) => self.unescape_text(t)?,
                Ev::CData(t) => Cow::Borrowed(t),
                Ev::Start(name) => {
                    return Err(self.err(DecodeError::value(format!(
                        "expected text, found element `<{name}>`"
                    ))))
                }
                Ev::Eof => return Err(self.malformed("unexpected end of document")),
            };
            acc = Some(match acc {
                None => piece,
                Some(mut a) => {
                    a.to_mut().push_str(&piece);
                    if a.len() > self.src.limits.max_text_len {
                        return Err(self.err(DecodeError::limit(format!(
                            "text exceeds the limit of {} bytes",
                            self.src.limits.max_text_len
                        ))));
                    }
                    a
                }
            });
        }
    }

    /// Unescapes a text node; if that fails and [`crate::Lenient::surrogate_pairs`] is on,
    /// tries again with surrogate-pair character references joined (so the strict path costs
    /// nothing extra).
    pub(crate) fn unescape_text(&self, t: &'a str) -> Result<Cow<'a, str>, DecodeError> {
        match unescape(t) {
            Ok(v) => Ok(v),
            Err(e) if self.src.limits.lenient.surrogate_pairs => {
                let Some(joined) = crate::lenient::join_surrogates(t) else {
                    return Err(self.err(e));
                };
                let v = unescape(&joined).map_err(|e| self.err(e))?.into_owned();
                crate::lenient::log(crate::lenient::Accepted::SurrogatePair, &self.path());
                Ok(Cow::Owned(v))
            }
            Err(e) => Err(self.err(e)),
        }
    }

    /// The raw markup of the element content up to (not including) the end tag of the element
    /// whose start was just consumed; consumes the end tag.
    pub(crate) fn raw_content(&mut self) -> Result<&'a str, DecodeError> {
        let start = self.position();
        let mut depth = 1usize;
        loop {
            match self.next()? {
                Ev::Start(_) => depth += 1,
                Ev::End => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                Ev::Text(_) | Ev::CData(_) => {}
                Ev::Eof => return Err(self.malformed("unexpected end of document")),
            }
        }
        Ok(match self.last_end_at {
            Some(end) if end >= start => self.src.input.get(start..end).unwrap_or(""),
            _ => "",
        })
    }
}

/// Splits `p:l` into (`p`, `l`); no colon gives (``, name).
#[inline]
pub(crate) fn split_qname(name: &str) -> (&str, &str) {
    match name.bytes().position(|b| b == b':') {
        Some(i) => (&name[..i], &name[i + 1..]),
        None => ("", name),
    }
}

/// String equality without a `memcmp` call for the short names of tags.
#[inline]
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).all(|(x, y)| x == y)
}

/// Namespace URIs cannot hold whitespace; printed messages sometimes break lines inside them.
fn trim_uri(v: Cow<'_, str>) -> Cow<'_, str> {
    let b = v.as_bytes();
    if !b.first().copied().is_some_and(is_ws) && !b.last().copied().is_some_and(is_ws) {
        return v;
    }
    match v {
        Cow::Borrowed(s) => Cow::Borrowed(s.trim_matches(|c: char| c.is_ascii_whitespace())),
        Cow::Owned(s) => Cow::Owned(
            s.trim_matches(|c: char| c.is_ascii_whitespace())
                .to_string(),
        ),
    }
}

fn lower_first(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_lowercase().chain(c).collect(),
        None => String::new(),
    }
}

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

/// Whether a text node is only XML whitespace.
pub(crate) fn is_blank(s: &str) -> bool {
    s.bytes().all(is_ws)
}

/// What [`next_attr`] read.
#[derive(Debug, PartialEq, Eq)]
enum AttrStep<'s> {
    /// An attribute: its name, its raw value, and what follows the value's closing quote.
    Attr(&'s str, &'s str, &'s str),
    /// The tag's end: the bytes read through its `>`, and whether it was `/>`.
    End(usize, bool),
}

/// Why [`next_attr`] stopped.
#[derive(Debug, PartialEq, Eq)]
enum AttrFault {
    Msg(String),
    /// The input ends inside the tag.
    TagNotClosed,
    /// The input ends inside a quoted value.
    ValueNotClosed,
}

/// Reads one `name="value"` pair of a start tag, or the tag's end (`>` or `/>` after
/// optional whitespace). A value runs to the next quote of its kind, so a `>` or the other
/// quote inside it is part of it; the tag's end is the first `>` outside a value. The one
/// scan of a tag's attributes: the scanner does not look for the `>` itself.
fn next_attr(s: &str) -> Result<AttrStep<'_>, AttrFault> {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() && is_ws(b[i]) {
        i += 1;
    }
    match b.get(i) {
        None => return Err(AttrFault::TagNotClosed),
        Some(b'>') => return Ok(AttrStep::End(i + 1, false)),
        Some(b'/') if b.get(i + 1) == Some(&b'>') => return Ok(AttrStep::End(i + 2, true)),
        _ => {}
    }
    if i == 0 {
        let tag = &s[..memchr::memchr(b'>', b).unwrap_or(b.len())];
        return Err(AttrFault::Msg(format!(
            "expected whitespace before attribute {}",
            excerpt(tag)
        )));
    }
    let name_start = i;
    // What ends a name is in the table; a quote, `&` or nothing at all must not pass as one:
    // written back (an `xsd:any` capture copies the declarations in scope) it would not read.
    // The scan stops at either; the message names the whole name.
    i = crate::scan::scan_name(b, i, scan::END | scan::QUOTE | scan::AMP);
    if i == name_start || b.get(i).is_some_and(|&c| matches!(c, b'"' | b'\'' | b'&')) {
        let name = &s[name_start..crate::scan::name_end(b, name_start)];
        return Err(AttrFault::Msg(format!(
            "attribute name `{name}` is not an xml name"
        )));
    }
    let name = &s[name_start..i];
    while i < b.len() && is_ws(b[i]) {
        i += 1;
    }
    match b.get(i) {
        None => return Err(AttrFault::TagNotClosed),
        Some(b'=') => {}
        Some(_) => return Err(AttrFault::Msg(format!("attribute `{name}` has no value"))),
    }
    i += 1;
    while i < b.len() && is_ws(b[i]) {
        i += 1;
    }
    let quote = match b.get(i) {
        Some(&q @ (b'"' | b'\'')) => q,
        None => return Err(AttrFault::TagNotClosed),
        _ => {
            return Err(AttrFault::Msg(format!(
                "value of attribute `{name}` is not quoted"
            )))
        }
    };
    i += 1;
    let vstart = i;
    let vend = match memchr::memchr(quote, &b[vstart..]) {
        Some(p) => vstart + p,
        None => return Err(AttrFault::ValueNotClosed),
    };
    let value = &s[vstart..vend];
    Ok(AttrStep::Attr(name, value, &s[vend + 1..]))
}

/// Whether an attribute value holds `&`, `\r` or `<`: a byte loop for short values (an
/// `xsi:type` such as `xsd:float`), `memchr3` past 16 bytes, whose call costs about 60
/// instructions before it reads a byte (callgrind).
#[inline]
fn has_ref_or_lt(raw: &[u8]) -> bool {
    if raw.len() <= 16 {
        raw.iter().any(|&c| matches!(c, b'&' | b'\r' | b'<'))
    } else {
        memchr::memchr3(b'&', b'\r', b'<', raw).is_some()
    }
}

/// An attribute value, unescaped; `<` is not allowed in one (checked here, where values are
/// read, rather than for every attribute of every tag).
fn attr_value<'v>(raw: &'v str, name: &str) -> Result<Cow<'v, str>, DecodeError> {
    if !has_ref_or_lt(raw.as_bytes()) {
        return Ok(Cow::Borrowed(raw));
    }
    if raw.as_bytes().contains(&b'<') {
        return Err(DecodeError::malformed(format!(
            "`<` in the value of attribute `{name}`"
        )));
    }
    unescape(raw)
}

/// Replaces the five predefined entities and character references; anything else is refused.
/// Also normalizes `\r\n` and lone `\r` to `\n` as XML requires.
pub(crate) fn unescape(raw: &str) -> Result<Cow<'_, str>, DecodeError> {
    if memchr::memchr2(b'&', b'\r', raw.as_bytes()).is_none() {
        return Ok(Cow::Borrowed(raw));
    }
    let normalized: Cow<'_, str> = if raw.as_bytes().contains(&b'\r') {
        Cow::Owned(raw.replace("\r\n", "\n").replace('\r', "\n"))
    } else {
        Cow::Borrowed(raw)
    };
    if !normalized.as_bytes().contains(&b'&') {
        return Ok(normalized);
    }
    match quick_xml::escape::unescape(&normalized) {
        Ok(Cow::Borrowed(_)) => Ok(normalized),
        Ok(Cow::Owned(s)) => {
            if s.chars().any(|c| !is_xml_char(c)) {
                return Err(DecodeError::malformed(
                    "character reference to a character not allowed in xml",
                ));
            }
            Ok(Cow::Owned(s))
        }
        Err(e) => Err(DecodeError::malformed(match e {
            quick_xml::escape::EscapeError::UnrecognizedEntity(_, name) => {
                format!("unknown entity `&{name};` (only the five predefined entities are allowed)")
            }
            other => format!(
                "bad character reference: {}",
                lower_first(&other.to_string())
            ),
        })),
    }
}

fn is_xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

#[cfg(test)]
mod tests {
    use super::{next_attr, ns, AttrFault, AttrStep, NsKind};

    /// The one scan of a tag's attributes: a `>` or the other quote inside a value is part
    /// of it, the tag ends at the first `>` (or `/>`) outside a value, and the input ending
    /// inside a value or a tag says which.
    #[test]
    fn next_attr_finds_values_and_the_tag_end() {
        let s = " a='>\"' b=\"'/>\" />rest";
        let Ok(AttrStep::Attr("a", ">\"", after)) = next_attr(s) else {
            panic!("{:?}", next_attr(s))
        };
        let Ok(AttrStep::Attr("b", "'/>", after)) = next_attr(after) else {
            panic!("{:?}", next_attr(after))
        };
        assert_eq!(after, " />rest");
        assert_eq!(next_attr(after), Ok(AttrStep::End(3, true)));
        assert_eq!(next_attr(">"), Ok(AttrStep::End(1, false)));
        assert_eq!(next_attr("\n\t>x"), Ok(AttrStep::End(3, false)));
        assert_eq!(next_attr(" a='1>"), Err(AttrFault::ValueNotClosed));
        assert_eq!(next_attr(" a=\"1'>"), Err(AttrFault::ValueNotClosed));
        for s in ["", " ", " a", " a ", " a=", " a= "] {
            assert_eq!(next_attr(s), Err(AttrFault::TagNotClosed), "{s:?}");
        }
        assert!(matches!(next_attr("a='1'>"), Err(AttrFault::Msg(m)) if m.contains("whitespace")));
        assert!(matches!(next_attr(" / >"), Err(AttrFault::Msg(m)) if m.contains("xml name")));
    }

    /// The short-value loop and `memchr3` agree on either side of 16 bytes, wherever the
    /// byte sits.
    #[test]
    fn has_ref_or_lt_at_every_length() {
        for len in 0..40 {
            assert!(!super::has_ref_or_lt(&vec![b'a'; len]));
            for at in 0..len {
                for c in [b'&', b'\r', b'<', b'>', b'\n'] {
                    let mut v = vec![b'a'; len];
                    v[at] = c;
                    assert_eq!(
                        super::has_ref_or_lt(&v),
                        matches!(c, b'&' | b'\r' | b'<'),
                        "{v:?}"
                    );
                }
            }
        }
    }

    /// `NsKind::of` picks its candidate by length and one byte: every URI it knows must come
    /// out as its kind, and every other string (a byte changed anywhere, one cut or added)
    /// as `Other`, or a wrong table would classify a service's namespace as XML Schema's.
    #[test]
    fn kind_of_every_uri() {
        let known = [
            (ns::SOAP11_ENC, NsKind::Enc11),
            (ns::SOAP12_ENC, NsKind::Enc12),
            (ns::XSD_2001, NsKind::Schema),
            (ns::XSD_2000, NsKind::Schema),
            (ns::XSD_1999, NsKind::Schema),
            (ns::XSI_2001, NsKind::Xsi),
            (ns::XSI_2000, NsKind::Xsi),
            (ns::XSI_1999, NsKind::Xsi),
        ];
        assert_eq!(NsKind::of(""), NsKind::None);
        for other in [ns::SOAP11_ENV, ns::SOAP12_ENV, ns::SOAP12_ENC_NONE, ns::XML] {
            assert_eq!(NsKind::of(other), NsKind::Other, "{other}");
        }
        for (uri, kind) in known {
            assert_eq!(NsKind::of(uri), kind, "{uri}");
            for i in 0..uri.len() {
                for c in [b'x', b'1', b'2', b's', b'/'] {
                    let mut b = uri.as_bytes().to_vec();
                    if b[i] == c {
                        continue;
                    }
                    b[i] = c;
                    let s = String::from_utf8(b).expect("ascii");
                    let want = known
                        .iter()
                        .find(|(u, _)| *u == s)
                        .map_or(NsKind::Other, |k| k.1);
                    assert_eq!(NsKind::of(&s), want, "{s}");
                }
            }
            assert_eq!(
                NsKind::of(&uri[..uri.len() - 1]),
                NsKind::Other,
                "{uri} cut"
            );
            assert_eq!(NsKind::of(&format!("{uri}/")), NsKind::Other, "{uri}/");
        }
    }
}
