//! The last envelope's opening, remembered per thread: differential deserialization of the
//! part of a SOAP message that does not change from one call to the next.
//!
//! A client sends the same bytes, call after call, from the XML declaration to the operation
//! element's start tag (`<soap:Envelope xmlns:...><soap:Body><ns1:echoFloat xmlns:ns1=...>`);
//! only the values after it change. Reading that opening is most of [`Envelope::parse`]'s
//! work (namespace declarations, name resolution, the SOAP rules), about a fifth of a server's
//! whole echoFloat request. So each thread keeps the opening of the last envelope it read:
//! its bytes and where in them each name the [`Envelope`] holds lies. When the next document
//! starts with exactly those bytes and is read under the same [`Limits`], its envelope is the
//! remembered one laid over the new bytes: the same byte offsets, since the same bytes read the
//! same way. Of the whole-document checks (`prolog`: UTF-8, forbidden characters, the XML
//! declaration) only the bytes after the opening need the ones that scan. This is
//! the technique of Abu-Ghazaleh and Lewis's differential deserialization (bSOAP, 2005) and
//! Suzumura et al.'s (IBM, 2005), cut down to the one prefix every message of a service shares;
//! the bodies past it are remembered too, under the opening's [`Stamp`] (`de::replay`).
//!
//! It must never give an answer a full read would not: it remembers only what is determined
//! by the bytes it compares (the read stops just past the first body child's `>`, and the
//! cursor looks no further; the module's test compares both ways of reading on messages that
//! share the opening and differ anywhere after it), and only envelopes it can lay over new
//! bytes without allocating: no Header (its blocks are owned), at most [`INLINE_BINDINGS`]
//! bindings, every name borrowed from the input, and no lenient reading that logs. Anything
//! else is read in full, every time, and so is an opening over [`MAX_OPENING`] bytes.
//!
//! A thread keeps the last [`SLOTS`] openings, most recently used first, so that a client
//! calling a few operations in turn (each has its own opening: the operation element differs)
//! or a few clients served by one thread in turn find theirs; a new one replaces the least
//! recently used. A thread keeps at most `SLOTS + 1` x `MAX_OPENING` bytes (one buffer spare). The cost of a miss is
//! a comparison per slot that fails (where the openings part, usually at the operation's
//! name) and one copy of the opening (a few hundred bytes, into a buffer the thread keeps).

use std::borrow::Cow;
use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use super::{Bindings, BodyStart, Envelope, INLINE_BINDINGS};
use crate::xml::{Binding, NsKind, ReadTag, Span};
use crate::{Limits, Version};

/// The longest opening remembered: a thread keeps at most this many bytes (an ordinary opening
/// is a few hundred; one with a long attribute is read in full every time instead).
const MAX_OPENING: usize = 4 << 10;

/// Openings a thread remembers: enough for a service's few operations called in turn.
const SLOTS: usize = 4;

/// Which remembered opening an envelope was laid over: unique in the process for as long as
/// it runs (a slot taken again gets a new one), so a stamp found in this thread's memory is
/// the very opening, and a body remembered under it (`de::replay`) follows exactly its bytes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stamp(u64);

impl Stamp {
    /// An envelope read in full.
    pub(crate) const NONE: Stamp = Stamp(0);

    /// Its number, or `None` for [`Stamp::NONE`].
    pub(crate) fn id(self) -> Option<u64> {
        (self != Stamp::NONE).then_some(self.0)
    }

    fn next() -> Stamp {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        Stamp(NEXT.fetch_add(1, Ordering::Relaxed))
    }
}

/// Not printed: an envelope read from memory reads the same as one read in full.
impl std::fmt::Debug for Stamp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("_")
    }
}

/// A remembered opening.
struct Opening {
    stamp: Stamp,
    /// The bodies remembered past this opening (`de::replay`), most recently used first.
    bodies: Vec<crate::de::Remembered>,
    bytes: Vec<u8>,
    limits: Limits,
    version: Version,
    root: Span,
    body_name: Span,
    /// The bindings in scope inside Body: prefix, URI, kind.
    body_ns: Vec<(Span, Span, NsKind)>,
    body_content: usize,
    /// The first body child: URI, local name, offset of its `<`, its start tag.
    child: (Span, Span, usize, Option<ReadTag>),
}

/// A thread's remembered openings.
struct Memory {
    /// Most recently used first; at most [`SLOTS`], and only valid ones.
    slots: Vec<Opening>,
    /// Buffers for the next opening to remember (the last one forgotten, or one that could
    /// not be remembered).
    spare: Option<Opening>,
    /// Whether the last envelope read on this thread has its opening in `slots[0]` (tests).
    last_kept: bool,
}

thread_local! {
    static LAST: RefCell<Memory> = const {
        RefCell::new(Memory {
            slots: Vec::new(),
            spare: None,
            last_kept: false,
        })
    };
}

/// The envelope of `input` read under `limits`, when it opens as one this thread read lately
/// and the bytes after the opening pass the checks `prolog` makes of a whole document (its
/// size is checked already). The opening's own bytes passed them when they were remembered,
/// and they end with a `>`, on a character's boundary: the document is valid UTF-8 free of
/// forbidden characters exactly when the rest is, and its XML declaration is the one read
/// then. `None` also when the rest fails them: the full read reports where.
pub(super) fn recall<'a>(input: &'a [u8], limits: &Limits) -> Option<Envelope<'a>> {
    LAST.with_borrow_mut(|m| {
        let i = m
            .slots
            .iter()
            .position(|o| input.starts_with(&o.bytes) && o.limits == *limits)?;
        let rest = &input[m.slots[i].bytes.len()..];
        if super::forbidden_char(rest).is_some() {
            return None;
        }
        // Whole, for the `&str` the envelope borrows (no `unsafe` to join two checked parts).
        let text = super::utf8(input)?;
        if i > 0 {
            m.slots[..=i].rotate_right(1);
        }
        m.last_kept = true;
        #[cfg(test)]
        HITS.set(HITS.get() + 1);
        Some(m.slots[0].lay_over(text, limits))
    })
}

/// Remembers `env`'s opening (the first `read` bytes of its input), when it can be laid over
/// other bytes as it is, in place of the least recently used one.
pub(super) fn remember(env: &Envelope<'_>, read: usize) {
    LAST.with_borrow_mut(|m| {
        let mut o = m.spare.take().unwrap_or_else(Opening::empty);
        m.last_kept = o.take(env, read).is_some();
        if m.last_kept {
            if m.slots.len() == SLOTS {
                // The least recently used one is forgotten; its buffers serve the next.
                m.spare = m.slots.pop();
            }
            m.slots.insert(0, o);
        } else {
            m.spare = Some(o);
        }
    });
}

impl Opening {
    fn empty() -> Self {
        Opening {
            stamp: Stamp::NONE,
            bodies: Vec::new(),
            bytes: Vec::new(),
            limits: Limits::default(),
            version: Version::Soap11,
            root: Span::default(),
            body_name: Span::default(),
            body_ns: Vec::new(),
            body_content: 0,
            child: (Span::default(), Span::default(), 0, None),
        }
    }

    /// Describes `env`'s opening, or returns `None` and changes nothing when it cannot be
    /// laid over other bytes (so a slot is only given up for an opening that is kept).
    fn take(&mut self, env: &Envelope<'_>, read: usize) -> Option<()> {
        let text = env.input;
        let body = env.body.as_ref()?;
        let logs = env.version == Version::Soap12 && env.limits.lenient.body_encoding_style;
        if !env.header_name.is_empty() || !env.headers.is_empty() || logs {
            return None;
        }
        if env.body_ns.len() > INLINE_BINDINGS || !env.body_ns.spill.is_empty() {
            return None;
        }
        if read > MAX_OPENING {
            return None;
        }
        let mut body_ns = [(Span::default(), Span::default(), NsKind::None); INLINE_BINDINGS];
        for (slot, b) in body_ns.iter_mut().zip(env.body_ns.iter()) {
            *slot = (
                Span::of(b.prefix, text, read)?,
                Span::of_cow(&b.uri, text, read)?,
                b.kind,
            );
        }
        let root = Span::of(env.outer[0], text, read)?;
        let body_name = Span::of(env.outer[1], text, read)?;
        let child = (
            Span::of_cow(&body.uri, text, read)?,
            Span::of(body.local, text, read)?,
            body.offset,
            body.tag,
        );
        self.body_ns.clear();
        self.body_ns
            .extend_from_slice(&body_ns[..env.body_ns.len()]);
        self.root = root;
        self.body_name = body_name;
        self.child = child;
        self.body_content = env.body_content;
        self.version = env.version;
        self.limits.clone_from(&env.limits);
        self.stamp = Stamp::next();
        self.bodies.clear();
        self.bytes.clear();
        self.bytes.extend_from_slice(&text.as_bytes()[..read]);
        Some(())
    }

    /// The remembered envelope over `text`, which starts with the remembered bytes.
    fn lay_over<'a>(&self, text: &'a str, limits: &Limits) -> Envelope<'a> {
        let mut body_ns = Bindings::new();
        for (slot, &(prefix, uri, kind)) in body_ns.inline.iter_mut().zip(&self.body_ns) {
            *slot = Binding {
                prefix: prefix.on(text),
                uri: Cow::Borrowed(uri.on(text)),
                kind,
            };
        }
        body_ns.len = self.body_ns.len();
        let (uri, local, offset, tag) = self.child;
        Envelope {
            input: text,
            limits: limits.clone(),
            version: self.version,
            headers: Vec::new(),
            header_extra: Vec::new(),
            header_ns: Vec::new(),
            outer: [self.root.on(text), self.body_name.on(text)],
            header_name: "",
            body_ns,
            body: Some(BodyStart {
                uri: Cow::Borrowed(uri.on(text)),
                local: local.on(text),
                name: std::sync::OnceLock::new(),
                offset,
                tag,
            }),
            body_content: self.body_content,
            references_left: AtomicUsize::new(limits.reference_budget(text.len())),
            opening: self.stamp,
        }
    }
}

/// Runs `f` on the bodies remembered past the opening `stamp` names, and with the opening's
/// length; `None` when this thread no longer remembers it (or is already inside `f`).
pub(crate) fn with_bodies<R>(
    stamp: Stamp,
    f: impl FnOnce(&mut Vec<crate::de::Remembered>, usize) -> R,
) -> Option<R> {
    if stamp == Stamp::NONE {
        return None;
    }
    LAST.try_with(|m| {
        let mut m = m.try_borrow_mut().ok()?;
        let o = m.slots.iter_mut().find(|o| o.stamp == stamp)?;
        let len = o.bytes.len();
        Some(f(&mut o.bodies, len))
    })
    .ok()
    .flatten()
}

/// Reads `input` without the remembered opening (and leaves it as it was).
#[cfg(test)]
pub(crate) fn parse_in_full<'a>(
    input: &'a [u8],
    limits: &Limits,
) -> Result<Envelope<'a>, crate::DecodeError> {
    let (text, start) = super::prolog(input, limits)?;
    Envelope::parse_opening(text, start, limits).map(|(env, _)| env)
}

#[cfg(test)]
thread_local! {
    /// Envelopes this thread read from memory.
    static HITS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Whether the last envelope read on this thread has its opening remembered.
#[cfg(test)]
pub(crate) fn remembers() -> bool {
    LAST.with_borrow(|m| m.last_kept)
}

/// How many bytes of the last envelope read on this thread are remembered.
#[cfg(test)]
fn remembered_len() -> usize {
    LAST.with_borrow(|m| {
        m.slots
            .first()
            .filter(|_| m.last_kept)
            .map_or(0, |o| o.bytes.len())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Style;

    const ECHO: &str = r#"<?xml version="1.0" encoding="UTF-8"?><SOAP-ENV:Envelope xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><SOAP-ENV:Body><ns1:echoFloat xmlns:ns1="http://soapinterop.org/" SOAP-ENV:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"><inputFloat xsi:type="xsd:float">654.321</inputFloat></ns1:echoFloat></SOAP-ENV:Body></SOAP-ENV:Envelope>"#;

    /// Both ways of reading, as text: the same envelope or the same error.
    fn both(input: &[u8], limits: &Limits) -> (String, String) {
        let full = format!("{:?}", parse_in_full(input, limits));
        let parsed = format!("{:?}", Envelope::parse(input, limits));
        (full, parsed)
    }

    #[test]
    fn a_message_that_opens_as_the_last_one_is_read_from_memory_and_the_same() {
        let limits = Limits::default();
        Envelope::parse(ECHO.as_bytes(), &limits).unwrap();
        assert!(remembers(), "the echoFloat opening is remembered");
        let next = ECHO.replace("654.321", "1.5");
        let (full, parsed) = both(next.as_bytes(), &limits);
        assert_eq!(full, parsed);
        // The body decodes from the new bytes, not the remembered ones.
        let env = Envelope::parse(next.as_bytes(), &limits).unwrap();
        assert_eq!(
            env.body_name(),
            Some(("http://soapinterop.org/", "echoFloat"))
        );
        assert!(env.body_content > 0 && env.input.as_ptr() == next.as_ptr());
    }

    #[test]
    fn bad_bytes_after_a_remembered_opening_get_the_errors_of_a_full_read() {
        let limits = Limits::default();
        Envelope::parse(ECHO.as_bytes(), &limits).unwrap();
        let at = ECHO.find("654.321").unwrap();
        let mut bad: Vec<(&str, Vec<u8>)> = Vec::new();
        for (what, with) in [
            ("a control character", &b"6\x0154"[..]),
            ("U+FFFF", &b"6\xEF\xBF\xBF4"[..]),
            ("invalid UTF-8", &b"6\xC3(4"[..]),
            ("a lone continuation byte", &b"\x80"[..]),
        ] {
            let mut doc = ECHO.as_bytes().to_vec();
            doc.splice(at..at + 3, with.iter().copied());
            bad.push((what, doc));
        }
        for (what, doc) in &bad {
            Envelope::parse(ECHO.as_bytes(), &limits).unwrap();
            let hits = HITS.get();
            let (full, parsed) = both(doc, &limits);
            assert!(full.starts_with("Err("), "{what}: {full}");
            assert_eq!(full, parsed, "{what}");
            assert!(
                parsed.contains(&format!("byte {at}"))
                    || parsed.contains(&format!("byte {}", at + 1)),
                "{what}: {parsed}"
            );
            assert_eq!(HITS.get(), hits, "{what}: not read from memory");
        }
        // Over the size limit: refused though its opening is remembered under these limits.
        let small = Limits {
            max_document_bytes: ECHO.len(),
            ..Limits::default()
        };
        Envelope::parse(ECHO.as_bytes(), &small).unwrap();
        let longer = ECHO.replace("654.321", "654.3210");
        let err = Envelope::parse(longer.as_bytes(), &small).unwrap_err();
        assert!(err.to_string().contains("exceeds the limit"), "{err}");
    }

    #[test]
    fn a_few_operations_in_turn_each_find_their_opening() {
        let limits = Limits::default();
        let op = |name: &str| ECHO.replace("echoFloat", name);
        let ops: Vec<String> = (0..SLOTS).map(|i| op(&format!("echo{i}"))).collect();
        let read = |doc: &str| {
            let hits = HITS.get();
            let env = Envelope::parse(doc.as_bytes(), &limits).unwrap();
            let (_, local) = env.body_name().unwrap();
            assert!(doc.contains(&format!("<ns1:{local} ")), "{local}");
            HITS.get() > hits
        };
        for doc in &ops {
            read(doc);
        }
        for round in 0..3 {
            for (i, doc) in ops.iter().enumerate() {
                assert!(read(doc), "round {round}, operation {i}: from memory");
            }
        }
        // One more opening forgets the least recently used one (the first operation).
        assert!(!read(&op("echoOther")));
        for doc in &ops[1..] {
            assert!(read(doc));
        }
        assert!(!read(&ops[0]), "forgotten");
        // An envelope that cannot be remembered (a Header) forgets none.
        let with_header = ECHO.replace(
            "<SOAP-ENV:Body>",
            r#"<SOAP-ENV:Header><h:t xmlns:h="urn:h">1</h:t></SOAP-ENV:Header><SOAP-ENV:Body>"#,
        );
        assert!(!read(&with_header) && !remembers());
        for doc in &ops {
            assert!(read(doc), "still remembered");
        }
    }

    #[test]
    fn other_limits_or_a_header_are_read_in_full() {
        let limits = Limits::default();
        Envelope::parse(ECHO.as_bytes(), &limits).unwrap();
        let tight = Limits {
            max_depth: 3,
            ..Limits::default()
        };
        let (full, parsed) = both(ECHO.as_bytes(), &tight);
        assert_eq!(full, parsed);
        let with_header = ECHO.replace(
            "<SOAP-ENV:Body>",
            r#"<SOAP-ENV:Header><h:t xmlns:h="urn:h">1</h:t></SOAP-ENV:Header><SOAP-ENV:Body>"#,
        );
        Envelope::parse(with_header.as_bytes(), &limits).unwrap();
        assert!(!remembers(), "an envelope with a Header is not remembered");
        let long = ECHO.replace(
            "<ns1:echoFloat ",
            &format!("<ns1:echoFloat a=\"{}\" ", "x".repeat(MAX_OPENING)),
        );
        Envelope::parse(long.as_bytes(), &limits).unwrap();
        assert!(
            !remembers(),
            "an opening over {MAX_OPENING} bytes is not kept"
        );
        Envelope::parse(ECHO.as_bytes(), &limits).unwrap();
        assert!(remembers() && remembered_len() < MAX_OPENING);
    }

    /// The documents of the codec's tests, and Sam Ruby's echoFloat as the bench sends it:
    /// each read (and remembered), then each of many variants of it read both ways. A variant
    /// changes one byte (to each of a few that matter to XML) or ends early, before, inside
    /// and after the opening: read from memory or in full, it must give the same envelope or
    /// the same error.
    /// Whatever a body holds, as text: what a decoder that asks for anything is handed.
    #[derive(Debug)]
    struct Tree(String);

    impl<'de> serde::Deserialize<'de> for Tree {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V;
            impl<'de> serde::de::Visitor<'de> for V {
                type Value = Tree;
                fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                    f.write_str("anything")
                }
                fn visit_str<E>(self, v: &str) -> Result<Tree, E> {
                    Ok(Tree(format!("{v:?}")))
                }
                fn visit_f64<E>(self, v: f64) -> Result<Tree, E> {
                    Ok(Tree(format!("{v}f")))
                }
                fn visit_i64<E>(self, v: i64) -> Result<Tree, E> {
                    Ok(Tree(format!("{v}i")))
                }
                fn visit_u64<E>(self, v: u64) -> Result<Tree, E> {
                    Ok(Tree(format!("{v}u")))
                }
                fn visit_bool<E>(self, v: bool) -> Result<Tree, E> {
                    Ok(Tree(format!("{v}")))
                }
                fn visit_bytes<E>(self, v: &[u8]) -> Result<Tree, E> {
                    Ok(Tree(format!("{v:?}")))
                }
                fn visit_unit<E>(self) -> Result<Tree, E> {
                    Ok(Tree("()".into()))
                }
                fn visit_none<E>(self) -> Result<Tree, E> {
                    Ok(Tree("None".into()))
                }
                fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Tree, D::Error> {
                    <Tree as serde::Deserialize>::deserialize(d)
                }
                fn visit_map<A: serde::de::MapAccess<'de>>(
                    self,
                    mut m: A,
                ) -> Result<Tree, A::Error> {
                    let mut out = String::from("{");
                    while let Some((k, v)) = m.next_entry::<String, Tree>()? {
                        out += &format!("{k}: {}, ", v.0);
                    }
                    Ok(Tree(out + "}"))
                }
                fn visit_seq<A: serde::de::SeqAccess<'de>>(
                    self,
                    mut s: A,
                ) -> Result<Tree, A::Error> {
                    let mut out = String::from("[");
                    while let Some(v) = s.next_element::<Tree>()? {
                        out += &format!("{}, ", v.0);
                    }
                    Ok(Tree(out + "]"))
                }
            }
            d.deserialize_any(V)
        }
    }

    /// The body of `input` decoded four ways, as text: from memory (the tag entered), read in
    /// full (entered too), read in full with the body decoder reading the tag itself, and that
    /// reading the document's end event by event too.
    fn bodies(input: &[u8], style: Style) -> [String; 4] {
        let limits = Limits::default();
        let body = |env: Result<Envelope<'_>, _>| -> String {
            format!("{:?}", env.and_then(|e| e.body::<Tree>(style)))
        };
        let memory = body(Envelope::parse(input, &limits));
        let full = body(parse_in_full(input, &limits));
        let untagged = || {
            parse_in_full(input, &limits).map(|mut e| {
                if let Some(b) = &mut e.body {
                    b.tag = None;
                }
                e
            })
        };
        let read = body(untagged());
        crate::de::READ_EVERY_END.set(true);
        let every = body(untagged());
        crate::de::READ_EVERY_END.set(false);
        [memory, full, read, every]
    }

    #[test]
    fn the_body_decodes_the_same_from_the_entered_tag_as_from_a_read_one() {
        let mut docs = vec![ECHO.to_owned()];
        // Operation tags of each kind a `ReadTag` keeps or refuses: no attributes, an empty
        // element, a default namespace, more declarations or attributes than it keeps, an
        // escaped URI, an attribute the decoder reads (`xsi:type`, `xsi:nil`).
        let ops = [
            r#"<ns1:echoFloat xmlns:ns1="http://soapinterop.org/">"#,
            r#"<echoFloat xmlns="http://soapinterop.org/" a="1">"#,
            r#"<ns1:echoFloat xmlns:ns1="http://soapinterop.org/" xmlns:b="urn:b" xmlns:c="urn:c">"#,
            r#"<ns1:echoFloat xmlns:ns1="http://soapinterop.org/" a="1" b="2" c="3">"#,
            r#"<ns1:echoFloat xmlns:ns1="http://soap&#105;nterop.org/">"#,
            r#"<ns1:echoFloat xmlns:ns1="http://soapinterop.org/" xsi:nil="true">"#,
            r#"<ns1:echoFloat xmlns:ns1="http://soapinterop.org/" xsi:type="xsd:string">"#,
        ];
        let tag = r#"<ns1:echoFloat xmlns:ns1="http://soapinterop.org/" SOAP-ENV:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/">"#;
        for op in ops {
            let end = if op.starts_with("<echoFloat") {
                "</echoFloat>"
            } else {
                "</ns1:echoFloat>"
            };
            docs.push(ECHO.replace(tag, op).replace("</ns1:echoFloat>", end));
        }
        docs.push(
            ECHO.replace(
                tag,
                r#"<ns1:echoFloat xmlns:ns1="http://soapinterop.org/"/>"#,
            )
            .replace(
                r#"<inputFloat xsi:type="xsd:float">654.321</inputFloat></ns1:echoFloat>"#,
                "",
            ),
        );
        // Ends of each kind `end_plainly` takes or leaves to the events.
        let end = "</SOAP-ENV:Body></SOAP-ENV:Envelope>";
        for other in [
            "</SOAP-ENV:Body></SOAP-ENV:Envelope>\r\n \t",
            "</SOAP-ENV:Body></SOAP-ENV:Envelope><!-- c -->",
            "</SOAP-ENV:Body></SOAP-ENV:Envelope><?pi x?>",
            "</SOAP-ENV:Body></SOAP-ENV:Envelope>x",
            "</SOAP-ENV:Body></SOAP-ENV:Envelope></SOAP-ENV:Envelope>",
            "</SOAP-ENV:Body ></SOAP-ENV:Envelope>",
            "</SOAP-ENV:Body> </SOAP-ENV:Envelope>",
            "<m id=\"a\"/></SOAP-ENV:Body></SOAP-ENV:Envelope>",
            "<m/></SOAP-ENV:Body></SOAP-ENV:Envelope>",
            "</SOAP-ENV:Body></SOAP-ENV:Envelope",
            "</SOAP-ENV:Body>",
            "",
        ] {
            docs.push(ECHO.replace(end, other));
        }
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/documents");
        for e in std::fs::read_dir(&dir).unwrap() {
            let path = e.unwrap().path();
            if path.extension().is_some_and(|x| x == "xml") {
                docs.push(std::fs::read_to_string(path).unwrap());
            }
        }
        let mut entered = 0;
        for doc in &docs {
            let env = parse_in_full(doc.as_bytes(), &Limits::default());
            entered += usize::from(env.is_ok_and(|e| e.body.is_some_and(|b| b.tag.is_some())));
            let stride = (doc.len() / 60).max(1);
            // A sample, and every byte of the end (where the plain end is told from others).
            let tail = doc.len().saturating_sub(48);
            for p in (0..doc.len()).filter(|&p| p % stride == 0 || p >= tail) {
                for b in [b'<', b'>', b'"', b' ', b'x'] {
                    let mut v = doc.as_bytes().to_vec();
                    v[p] = b;
                    for style in [Style::Literal, Style::Encoded] {
                        Envelope::parse(doc.as_bytes(), &Limits::default()).ok();
                        let [memory, full, read, every] = bodies(&v, style);
                        assert_eq!(read, every, "byte {p} set to {b:#x}, {style:?}");
                        assert_eq!(full, read, "byte {p} set to {b:#x}, {style:?}");
                        assert_eq!(memory, full, "byte {p} set to {b:#x}, {style:?}");
                    }
                }
            }
            for style in [Style::Literal, Style::Encoded] {
                let [memory, full, read, every] = bodies(doc.as_bytes(), style);
                assert_eq!(read, every, "{style:?}: {doc}");
                assert_eq!(full, read, "{style:?}: {doc}");
                assert_eq!(memory, full, "{style:?}: {doc}");
            }
        }
        assert!(
            entered >= 10,
            "{entered} of {} documents had their tag kept",
            docs.len()
        );
    }

    #[test]
    fn variants_of_every_test_document_read_the_same_from_memory() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/documents");
        let mut docs = vec![ECHO.as_bytes().to_vec()];
        for e in std::fs::read_dir(&dir).unwrap() {
            let path = e.unwrap().path();
            if path.extension().is_some_and(|x| x == "xml") {
                docs.push(std::fs::read(path).unwrap());
            }
        }
        let limits = Limits::default();
        let mut remembered = 0;
        let mut hits = 0;
        for doc in &docs {
            if Envelope::parse(doc, &limits).is_err() || !remembers() {
                continue;
            }
            remembered += 1;
            let read = remembered_len();
            let stride = (doc.len() / 150).max(1);
            // Every byte near the end of the opening (where a reader that looked past it
            // would differ), a sample of the rest.
            let near = read.saturating_sub(8)..(read + 8).min(doc.len());
            let positions = (0..doc.len()).filter(|p| p % stride == 0 || near.contains(p));
            for p in positions {
                for b in [b'<', b'>', b'/', b'"', b'&', b' ', b'x', 0x01, 0xC3] {
                    let mut v = doc.clone();
                    v[p] = b;
                    Envelope::parse(doc, &limits).unwrap();
                    hits += usize::from(p >= read);
                    let (full, parsed) = both(&v, &limits);
                    assert_eq!(full, parsed, "byte {p} set to {b:#x}");
                }
                Envelope::parse(doc, &limits).unwrap();
                let (full, parsed) = both(&doc[..p], &limits);
                assert_eq!(full, parsed, "cut at {p}");
            }
        }
        assert!(
            remembered >= 8,
            "{remembered} of {} documents remembered",
            docs.len()
        );
        assert!(hits > 1000, "{hits} variants shared an opening");
    }
}
