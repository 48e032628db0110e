//! Reading a SOAP envelope up to the first Body child, so a server can dispatch on the
//! operation's QName before any typed decoding.
//!
//! The envelope rules of both versions live here: namespace-told version (a foreign namespace
//! is a VersionMismatch), Header before Body, header block attributes (mustUnderstand, actor /
//! role, relay), and the SOAP 1.2 restrictions the W3C test collection checks (no unqualified
//! attributes or encodingStyle on Envelope, no encodingStyle on Body, nothing after Body,
//! known encodingStyle on body elements: the cursor checks it on every element of the body,
//! not on header blocks, which only the node they target may judge). Both versions refuse,
//! as Client/Sender faults, a raw C0 control character anywhere (checked here, once, before any
//! value can carry one into a response) and, in the cursor, a processing instruction; the body
//! decoder refuses a second Body and a second body element that is not a multi-ref target.
//! Must never: read past the first Body child's start
//! tag here, or copy the body.

mod opening;

pub(crate) use opening::{with_bodies, Stamp};

use std::sync::atomic::AtomicUsize;

use crate::error::{DecodeError, Kind};
use crate::xml::{is_blank, ns, split_qname, Binding, Cursor, Ev, NsStack, ReadTag, Source};
use crate::{HeaderBlock, Limits, QName, Version};

/// Extra facts about a header block that [`HeaderBlock`] does not carry.
#[derive(Debug, Clone)]
pub(crate) struct HeaderExtra {
    pub(crate) relay: bool,
    pub(crate) start: usize,
    pub(crate) end: usize,
}

/// Where the first Body child starts and what is in scope there.
#[derive(Debug)]
pub(crate) struct BodyStart<'a> {
    /// Namespace URI and local name, borrowed; the owned [`QName`] is built only when
    /// [`Envelope::body_element`] asks for it.
    pub(crate) uri: std::borrow::Cow<'a, str>,
    pub(crate) local: &'a str,
    pub(crate) name: std::sync::OnceLock<QName>,
    pub(crate) offset: usize,
    /// Its start tag as read here, for the body decoder to enter without reading it again
    /// (`None`: it reads it).
    pub(crate) tag: Option<ReadTag>,
}

/// A decoded envelope: version, headers and the name of the first body element, over the input
/// bytes (no DOM). The body is deserialized on demand with [`Envelope::body`].
#[derive(Debug)]
pub struct Envelope<'a> {
    pub(crate) input: &'a str,
    pub(crate) limits: Limits,
    pub(crate) version: Version,
    pub(crate) headers: Vec<HeaderBlock>,
    pub(crate) header_extra: Vec<HeaderExtra>,
    /// Bindings in scope inside `Header` (empty when there is none). On the heap: a Header's
    /// blocks are (their names are owned), and kept inline they made every envelope, most
    /// without a Header, 400 bytes larger to move.
    pub(crate) header_ns: Vec<Binding<'a>>,
    /// Raw names of the Envelope and Body elements (for end-tag checks and error paths).
    pub(crate) outer: [&'a str; 2],
    pub(crate) header_name: &'a str,
    /// Bindings in scope inside `Body`.
    pub(crate) body_ns: Bindings<'a>,
    pub(crate) body: Option<BodyStart<'a>>,
    /// Offset just after `<Body ...>`: where the body's content starts.
    pub(crate) body_content: usize,
    /// What is left of the multi-ref budget ([`Limits::reference_budget`]), shared by every
    /// decode of this envelope so that decoding header blocks one by one cannot multiply it
    /// (the decoders borrow the envelope, so they borrow this too).
    pub(crate) references_left: AtomicUsize,
    /// The remembered opening this envelope was laid over ([`Stamp::NONE`] when read in
    /// full): the key to the bodies remembered past it (`de::replay`).
    pub(crate) opening: Stamp,
}

/// How many bindings a [`Bindings`] keeps without allocating: an envelope typically declares
/// three to six (envelope, xsi, xsd, encoding, the service's).
const INLINE_BINDINGS: usize = 8;

/// The namespace bindings in scope at a point of the envelope: inline up to
/// [`INLINE_BINDINGS`], on the heap past that. Not a `SmallVec`: its `Drop` would make the
/// borrow checker require the input to outlive every `Envelope` temporary (`SmallVec` cannot
/// tell the compiler it never reads the borrowed strings while dropping), which callers'
/// `match Envelope::parse(&text, ..) { .. }` at the end of a block would trip over.
#[derive(Debug)]
pub(crate) struct Bindings<'a> {
    len: usize,
    inline: [Binding<'a>; INLINE_BINDINGS],
    spill: Vec<Binding<'a>>,
}

impl<'a> Bindings<'a> {
    fn new() -> Self {
        Bindings {
            len: 0,
            // A constant repeated: stores only, where `array::from_fn` built the array
            // aside and copied it in (callgrind).
            inline: [Binding::EMPTY; INLINE_BINDINGS],
            spill: Vec::new(),
        }
    }

    /// Replaces the bindings in place: built and moved in, the 400-byte value cost two
    /// copies and eight default bindings more per parse.
    fn set(&mut self, bindings: &[Binding<'a>]) {
        self.spill.clear();
        if bindings.len() <= INLINE_BINDINGS {
            self.inline[..bindings.len()].clone_from_slice(bindings);
            self.len = bindings.len();
        } else {
            self.spill = bindings.to_vec();
        }
    }
}

impl<'a> std::ops::Deref for Bindings<'a> {
    type Target = [Binding<'a>];

    fn deref(&self) -> &[Binding<'a>] {
        if self.spill.is_empty() {
            &self.inline[..self.len]
        } else {
            &self.spill
        }
    }
}

/// Refuses a document over [`Limits::max_document_bytes`] before anything else is done.
fn check_size(input: &[u8], limits: &Limits) -> Result<(), DecodeError> {
    if input.len() > limits.max_document_bytes {
        return Err(DecodeError::limit(format!(
            "document of {} bytes exceeds the limit of {} bytes",
            input.len(),
            limits.max_document_bytes
        )));
    }
    Ok(())
}

/// Checks size, byte order mark, UTF-8 and the XML declaration; returns the text and the
/// offset after the declaration.
pub(crate) fn prolog<'a>(
    input: &'a [u8],
    limits: &Limits,
) -> Result<(&'a str, usize), DecodeError> {
    check_size(input, limits)?;
    if input.starts_with(&[0xFE, 0xFF])
        || input.starts_with(&[0xFF, 0xFE])
        || input.starts_with(&[0, b'<'])
        || input.starts_with(&[b'<', 0])
    {
        return Err(DecodeError::malformed(
            "unsupported encoding `UTF-16` (only utf-8 is accepted)",
        ));
    }
    let text = utf8(input).ok_or_else(|| {
        let at = std::str::from_utf8(input).map_or_else(|e| e.valid_up_to(), str::len);
        DecodeError::malformed(format!("invalid utf-8 at byte {at}"))
    })?;
    if let Some((at, c)) = forbidden_char(input) {
        return Err(DecodeError::malformed(format!(
            "character U+{c:04X} at byte {at} is not allowed in xml"
        )));
    }
    let bom = if text.starts_with('\u{FEFF}') { 3 } else { 0 };
    let rest = &text[bom..];
    if !rest.starts_with("<?xml") || !rest[5..].starts_with(|c: char| c.is_ascii_whitespace()) {
        return Ok((text, bom));
    }
    let end = crate::scan::find_pair(rest.as_bytes(), b'?', b'>')
        .ok_or_else(|| DecodeError::malformed("xml declaration is not closed"))?;
    let decl = &rest[5..end];
    let mut version = None;
    let mut encoding = None;
    let mut s = decl;
    // Between the declaration's attributes only XML white space (`S`: space, tab, CR, LF;
    // the other ASCII ones are refused above as forbidden characters), trimmed by bytes.
    loop {
        s = s.trim_ascii_start();
        if s.is_empty() {
            break;
        }
        let eq = memchr::memchr(b'=', s.as_bytes())
            .ok_or_else(|| DecodeError::malformed("malformed xml declaration"))?;
        let key = s[..eq].trim_ascii();
        let after = s[eq + 1..].trim_ascii_start();
        let q = after.chars().next().filter(|&c| c == '"' || c == '\'');
        let q = q.ok_or_else(|| DecodeError::malformed("malformed xml declaration"))?;
        let close = memchr::memchr(q as u8, &after.as_bytes()[1..])
            .ok_or_else(|| DecodeError::malformed("malformed xml declaration"))?;
        let value = &after[1..1 + close];
        match key {
            "version" => version = Some(value),
            "encoding" => encoding = Some(value),
            "standalone" => {}
            other => {
                return Err(DecodeError::malformed(format!(
                    "unknown attribute `{other}` in xml declaration"
                )))
            }
        }
        s = &after[close + 2..];
    }
    match version {
        Some("1.0") | Some("1.1") => {}
        Some(v) => {
            return Err(DecodeError::malformed(format!(
                "unsupported xml version `{v}`"
            )))
        }
        None => return Err(DecodeError::malformed("xml declaration has no version")),
    }
    if let Some(enc) = encoding {
        let ok = enc.eq_ignore_ascii_case("utf-8")
            || enc.eq_ignore_ascii_case("utf8")
            || enc.eq_ignore_ascii_case("us-ascii")
            || enc.eq_ignore_ascii_case("ascii");
        if !ok {
            return Err(DecodeError::malformed(format!(
                "unsupported encoding `{}` (only utf-8 is accepted)",
                crate::error::excerpt(enc).trim_matches('`')
            )));
        }
    }
    Ok((text, bom + end + 2))
}

/// `input` as text, if it is UTF-8: checked by `simdutf8` (32 bytes a step with AVX2, chosen
/// at run time), which took 160 instructions on the 628-byte echoFloat request where
/// `str::from_utf8` (a word at a time) took 269 (callgrind), and checks 4 MiB of markup with
/// non-ASCII text at 7.1 GB/s against std's 1.3 (pure ASCII: 13.9 against 12.8, the memory's
/// pace; one CPU, 50 passes). It says only whether the bytes are UTF-8; where they are not,
/// the error path asks std for the offset.
pub(crate) fn utf8(input: &[u8]) -> Option<&str> {
    simdutf8::basic::from_utf8(input).ok()
}

/// The first character of valid UTF-8 `input` that XML 1.0 does not allow (`Char` excludes the
/// C0 controls other than tab, newline and carriage return, and the noncharacters U+FFFE and
/// U+FFFF; UTF-8 validation has already refused surrogates): its byte offset and code point.
/// Such a document is the sender's error (a Client/Sender fault), not something to carry into
/// a value and fail on when the answer is written; and since a character reference to one of
/// these is refused where references are expanded, a literal one must be refused too, or a
/// value read here could not be written out and read back.
///
/// One pass in 64-byte blocks (the compiler vectorizes the block test): about 23 GB/s on a
/// 4 MiB encoded array, 2.7x the time of `str::from_utf8` on the same bytes measured side by
/// side (pinned, best of 50), a few tenths of a percent of a decode at the codec's 300 MB/s
/// target.
pub(super) fn forbidden_char(input: &[u8]) -> Option<(usize, u32)> {
    // 0xEF leads U+F000..U+FFFF; the chunks are screened for it and the controls in one pass
    // and only a chunk that has one is looked at byte by byte.
    let suspect = |b: u8| (b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r')) || b == 0xEF;
    let exact = |at: usize| -> Option<(usize, u32)> {
        match input[at] {
            0xEF => match input.get(at + 1..at + 3) {
                Some([0xBF, 0xBE]) => Some((at, 0xFFFE)),
                Some([0xBF, 0xBF]) => Some((at, 0xFFFF)),
                _ => None,
            },
            b => Some((at, u32::from(b))),
        }
    };
    let mut base = 0;
    for chunk in input.chunks(64) {
        if chunk.iter().fold(false, |acc, &b| acc | suspect(b)) {
            let hit = chunk
                .iter()
                .enumerate()
                .filter(|&(_, &b)| suspect(b))
                .find_map(|(i, _)| exact(base + i));
            if hit.is_some() {
                return hit;
            }
        }
        base += chunk.len();
    }
    None
}

fn parse_bool(v: &str, version: Version) -> Option<bool> {
    match (v.trim(), version) {
        ("1", _) => Some(true),
        ("0", _) => Some(false),
        ("true", _) => Some(true),
        ("false", _) => Some(false),
        _ => None,
    }
}

impl<'a> Envelope<'a> {
    /// Reads the envelope up to the first body child. A wrong envelope namespace is a
    /// [`DecodeError`] for which [`DecodeError::is_version_mismatch`] holds.
    pub fn parse(input: &'a [u8], limits: &Limits) -> Result<Self, DecodeError> {
        check_size(input, limits)?;
        // A document that opens with the bytes of an envelope this thread read lately is that
        // envelope over the new bytes once the bytes after the opening pass the whole-document
        // checks (`opening.rs`); any other is read in full.
        if let Some(env) = opening::recall(input, limits) {
            return Ok(env);
        }
        let (text, start) = prolog(input, limits)?;
        let (env, read) = Self::parse_opening(text, start, limits)?;
        opening::remember(&env, read);
        Ok(env)
    }

    /// Reads from just after the prolog to the first body child's start tag; also says how
    /// many bytes of `text` that read.
    fn parse_opening(
        text: &'a str,
        start: usize,
        limits: &Limits,
    ) -> Result<(Self, usize), DecodeError> {
        let src = Source::new(text, limits.clone());
        let mut cur = Cursor::new(&src, start, &[], NsStack::from_bindings(&[]));
        // the root element
        let root = loop {
            match cur.next()? {
                Ev::Start(name) => break name,
                Ev::Text(t) if is_blank(t) => {}
                Ev::Text(_) | Ev::CData(_) => {
                    return Err(cur.malformed("text before the root element"))
                }
                Ev::End | Ev::Eof => {
                    return Err(DecodeError::malformed("the document has no root element"))
                }
            }
        };
        let (uri, local) = cur.resolve_element(root)?;
        let version = match uri {
            ns::SOAP11_ENV => Version::Soap11,
            ns::SOAP12_ENV => Version::Soap12,
            other => {
                return Err(DecodeError::new(
                    Kind::VersionMismatch,
                    format!("envelope namespace `{other}` is neither soap 1.1 nor soap 1.2"),
                ))
            }
        };
        let env_ns = version.envelope_ns();
        if local != "Envelope" {
            return Err(cur.malformed(format!("root element is `<{root}>`, expected `Envelope`")));
        }
        if version == Version::Soap12 {
            for a in &cur.attrs {
                let a_ns = cur.attr_ns(a)?;
                if a_ns.is_empty() {
                    return Err(
                        cur.malformed(format!("unqualified attribute `{}` on Envelope", a.local))
                    );
                }
                if a_ns == env_ns && a.local == "encodingStyle" {
                    return Err(
                        cur.malformed("encodingStyle is not allowed on the soap 1.2 Envelope")
                    );
                }
            }
        }
        let mut env = Envelope {
            input: text,
            limits: limits.clone(),
            version,
            headers: Vec::new(),
            header_extra: Vec::new(),
            header_ns: Vec::new(),
            outer: [root, ""],
            header_name: "",
            body_ns: Bindings::new(),
            body: None,
            body_content: 0,
            references_left: AtomicUsize::new(limits.reference_budget(text.len())),
            opening: Stamp::NONE,
        };
        let mut seen_header = false;
        loop {
            match cur.next()? {
                Ev::Text(t) if is_blank(t) => {}
                Ev::Text(_) | Ev::CData(_) => return Err(cur.malformed("text in Envelope")),
                Ev::End | Ev::Eof => return Err(cur.malformed("the envelope has no Body")),
                Ev::Start(name) => {
                    let (uri, local) = cur.resolve_element(name)?;
                    let is_env = uri == env_ns;
                    if is_env && local == "Header" && !seen_header {
                        seen_header = true;
                        env.header_name = name;
                        env.header_ns = cur.ns.bindings().to_vec();
                        env.read_headers(&mut cur)?;
                    } else if is_env && local == "Body" {
                        env.outer[1] = name;
                        env.read_body_start(&mut cur)?;
                        let read = cur.position();
                        return Ok((env, read));
                    } else {
                        return Err(cur.malformed(format!(
                            "unexpected element `<{name}>` in Envelope, expected `Header` or `Body`"
                        )));
                    }
                }
            }
        }
    }

    fn read_headers(&mut self, cur: &mut Cursor<'a, '_>) -> Result<(), DecodeError> {
        cur.check_encoding = false;
        let r = self.read_header_blocks(cur);
        cur.check_encoding = true;
        r
    }

    fn read_header_blocks(&mut self, cur: &mut Cursor<'a, '_>) -> Result<(), DecodeError> {
        let env_ns = self.version.envelope_ns();
        loop {
            match cur.next()? {
                Ev::Text(t) if is_blank(t) => {}
                Ev::Text(_) | Ev::CData(_) => return Err(cur.malformed("text in Header")),
                Ev::End => return Ok(()),
                Ev::Eof => return Err(cur.malformed("unexpected end of document")),
                Ev::Start(name) => {
                    let start = cur.last_start_at;
                    let (uri, local) = cur.resolve_element(name)?;
                    if uri.is_empty() {
                        return Err(cur.malformed(format!(
                            "header block `<{name}>` is not namespace qualified"
                        )));
                    }
                    let qname = QName::new(uri, local);
                    let mut block = HeaderBlock {
                        name: qname,
                        must_understand: false,
                        role: None,
                    };
                    let mut relay = false;
                    for a in &cur.attrs {
                        if cur.attr_ns(a)? != env_ns {
                            continue;
                        }
                        match (a.local, self.version) {
                            ("mustUnderstand", v) => {
                                block.must_understand =
                                    parse_bool(&a.value()?, v).ok_or_else(|| {
                                        cur.malformed(format!(
                                            "mustUnderstand value `{}` is not a boolean",
                                            a.raw
                                        ))
                                    })?;
                            }
                            ("actor", Version::Soap11) | ("role", Version::Soap12) => {
                                block.role = Some(a.value()?.into_owned());
                            }
                            ("relay", Version::Soap12) => {
                                relay =
                                    parse_bool(&a.value()?, Version::Soap12).ok_or_else(|| {
                                        cur.malformed(format!(
                                            "relay value `{}` is not a boolean",
                                            a.raw
                                        ))
                                    })?;
                            }
                            _ => {}
                        }
                    }
                    cur.skip_element()?;
                    let end = cur.position();
                    self.headers.push(block);
                    self.header_extra.push(HeaderExtra { relay, start, end });
                }
            }
        }
    }

    fn read_body_start(&mut self, cur: &mut Cursor<'a, '_>) -> Result<(), DecodeError> {
        let env_ns = self.version.envelope_ns();
        if self.version == Version::Soap12 {
            for a in &cur.attrs {
                if a.local == "encodingStyle" && cur.attr_ns(a)? == env_ns {
                    if !self.limits.lenient.body_encoding_style {
                        return Err(
                            cur.malformed("encodingStyle is not allowed on the soap 1.2 Body")
                        );
                    }
                    check_encoding_style(&a.value()?)?;
                    crate::lenient::log(crate::lenient::Accepted::BodyEncodingStyle, &cur.path());
                }
            }
        }
        self.body_ns.set(cur.ns.bindings());
        self.body_content = cur.position();
        loop {
            match cur.next()? {
                Ev::Text(t) if is_blank(t) => {}
                Ev::Text(_) | Ev::CData(_) => return Err(cur.malformed("text in Body")),
                Ev::End => {
                    if self.version == Version::Soap12 {
                        self.check_nothing_after_body(cur)?;
                    }
                    return Ok(());
                }
                Ev::Eof => return Err(cur.malformed("unexpected end of document")),
                Ev::Start(name) => {
                    let offset = cur.last_start_at;
                    let (prefix, local) = split_qname(name);
                    let uri = cur.resolve_cow(prefix)?;
                    if self.version == Version::Soap12 {
                        for a in &cur.attrs {
                            if a.local == "encodingStyle" && cur.attr_ns(a)? == env_ns {
                                check_encoding_style(&a.value()?)?;
                            }
                        }
                    }
                    self.body = Some(BodyStart {
                        uri,
                        local,
                        name: std::sync::OnceLock::new(),
                        offset,
                        tag: cur.read_tag(),
                    });
                    return Ok(());
                }
            }
        }
    }

    /// SOAP 1.2 allows nothing after Body; checked when the body is empty (otherwise the body
    /// decoder checks it after the last body child).
    fn check_nothing_after_body(&self, cur: &mut Cursor<'a, '_>) -> Result<(), DecodeError> {
        loop {
            match cur.next()? {
                Ev::Text(t) if is_blank(t) => {}
                Ev::End => return Ok(()),
                Ev::Start(name) => {
                    return Err(cur.malformed(format!(
                        "element `<{name}>` after Body (soap 1.2 allows only Header and Body)"
                    )))
                }
                _ => return Err(cur.malformed("content after Body")),
            }
        }
    }

    /// The SOAP version.
    pub fn version(&self) -> Version {
        self.version
    }

    /// The limits it was read under (and its body and header blocks decode under): a service
    /// handed an envelope another layer parsed compares them with its own.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// The header blocks, in document order.
    pub fn headers(&self) -> &[HeaderBlock] {
        &self.headers
    }

    /// Whether header block `index` has SOAP 1.2 `relay="true"` (always false in SOAP 1.1).
    pub fn header_relay(&self, index: usize) -> bool {
        self.header_extra.get(index).is_some_and(|h| h.relay)
    }

    /// The raw markup of header block `index` (start tag through end tag), as it is in the
    /// input. Prefixes declared on Envelope or Header are not repeated in it.
    pub fn header_xml(&self, index: usize) -> Option<&'a str> {
        let h = self.header_extra.get(index)?;
        self.input.get(h.start..h.end)
    }

    /// The first child of Body, or `None` for an empty body. Builds an owned [`QName`] on
    /// first use (two `String`s); [`Envelope::body_name`] borrows instead.
    pub fn body_element(&self) -> Option<&QName> {
        self.body
            .as_ref()
            .map(|b| b.name.get_or_init(|| QName::new(&*b.uri, b.local)))
    }

    /// Which opening this envelope was laid over, when this thread remembered it (see the
    /// `opening` module: differential deserialization), else `None` (read in full). Two
    /// envelopes with the same number hold the same bytes from the document's start to the
    /// first body child's `>` and were read under the same limits, so everything read from
    /// those bytes is the same: the version, no `Header`, the body's first element and the
    /// namespaces in scope. A dispatcher may keep what it chose for one such envelope for the
    /// next (with whatever else its choice read, such as the action). Numbers are unique in the
    /// process for as long as it runs.
    pub fn remembered_opening(&self) -> Option<u64> {
        self.opening.id()
    }

    /// The namespace URI and local name of the first child of Body, borrowed from the input
    /// (no allocation unless the namespace was written with a character reference), or
    /// `None` for an empty body: what a router or dispatcher needs to pick the operation.
    pub fn body_name(&self) -> Option<(&str, &str)> {
        self.body.as_ref().map(|b| (&*b.uri, b.local))
    }

    /// Whether the body holds a Fault.
    pub fn is_fault(&self) -> bool {
        self.body
            .as_ref()
            .is_some_and(|b| b.local == "Fault" && b.uri == self.version.envelope_ns())
    }
}

/// SOAP 1.2 DataEncodingUnknown: only the SOAP encodings and "none" are known.
pub(crate) fn check_encoding_style(value: &str) -> Result<(), DecodeError> {
    for uri in value.split_ascii_whitespace() {
        if !(uri == ns::SOAP12_ENC
            || uri == ns::SOAP11_ENC
            || uri == ns::SOAP12_ENC_NONE
            || uri.starts_with(ns::SOAP12_ENC))
        {
            return Err(DecodeError::new(
                Kind::DataEncodingUnknown,
                format!("unknown encodingStyle `{}`", uri),
            ));
        }
    }
    Ok(())
}
