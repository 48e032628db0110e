//! The serde serializer: a value becomes the children of the body wrapper element, written
//! straight into the output `Vec<u8>`.
//!
//! Literal style writes elements only (a `Vec` is repeated elements named after the field,
//! `None` is omitted); encoded style (SOAP 1.1 section 5) adds `xsi:type` to every value,
//! writes a `Vec` as one SOAP-ENC array whose `arrayType` is known before its first item is
//! written (the first item is probed, see `probe`), a `Vec<Vec<T>>` of equal rows as a
//! two-dimensional array, and `None` as `xsi:nil="true"`.
//! Must never: write a character XML cannot carry (control characters are refused), write
//! user text unescaped, or buffer a whole array to learn its type.

mod attrs;
mod header;
mod markup;
mod opening;
mod probe;
mod raw;
mod replay;
mod seq;

use serde::ser::{self, Impossible, Serialize};

use crate::error::EncodeError;
use crate::write;
use crate::{EncodeOptions, QName, SchemaNs, Style, Version};

pub use header::encode_encoded_header_block;
use probe::Probe;
use seq::{ArraySer, KeySer, SeqSer};

pub(crate) fn variant_error(name: &str, variant: &str) -> EncodeError {
    EncodeError::new(format!(
        "enum variant `{name}::{variant}` carries data; only unit variants can be written"
    ))
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
        // `AnyXml`: an array of raw values is an array of `xsd:anyType`.
        "anyType" => "anyType",
        _ => "anySimpleType",
    }
}

/// `{ns}local` (a type name in Clark notation: a type of another schema than the wrapper's)
/// as `(ns, local)`.
pub(crate) fn clark(name: &str) -> Option<(&str, &str)> {
    name.strip_prefix('{')?.split_once('}')
}

/// What every element writer needs to know about the message.
pub(crate) struct Opts {
    typed: bool,
    encoded: bool,
    enc12: bool,
    item_types: bool,
    tns: bool,
    /// A default namespace is declared on the wrapper (qualified children).
    default_ns: bool,
    any_type: &'static str,
    /// [`EncodeOptions::max_bytes`].
    max_bytes: usize,
}

impl Opts {
    /// Refuses to go on when `extra` more bytes would take the output past `max_bytes`.
    #[inline]
    pub(crate) fn room(&self, out: &[u8], extra: usize) -> Result<(), EncodeError> {
        if out.len().saturating_add(extra) > self.max_bytes {
            return Err(self.too_big(out.len().saturating_add(extra)));
        }
        Ok(())
    }

    #[cold]
    #[inline(never)]
    fn too_big(&self, len: usize) -> EncodeError {
        EncodeError::new(format!(
            "the message would exceed the limit of {} bytes (at least {len} bytes)",
            self.max_bytes
        ))
    }
}

const XSI_NS_2001: &str = "http://www.w3.org/2001/XMLSchema-instance";
const XSI_NS_1999: &str = "http://www.w3.org/1999/XMLSchema-instance";

/// Writes a whole envelope whose body holds `wrapper` with `value`'s fields as children.
/// `headers` are raw XML header blocks written inside `Header` as they are. A `wrapper` with
/// an empty local name writes `value`'s fields straight into Body (a document/literal message
/// of several parts, or none: what `Envelope::body` reads into a struct named `$body`), the
/// namespace declared on Body.
pub fn encode<T: Serialize + ?Sized>(
    out: &mut Vec<u8>,
    options: &EncodeOptions,
    headers: &[&str],
    wrapper: &QName,
    value: &T,
) -> Result<(), EncodeError> {
    let encoded = options.style == Style::Encoded;
    let typed = encoded || options.xsi_types.unwrap_or(false);
    let (xsd, xsi) = match options.schema_ns {
        SchemaNs::Xsd2001 => ("http://www.w3.org/2001/XMLSchema", XSI_NS_2001),
        SchemaNs::Xsd1999 => ("http://www.w3.org/1999/XMLSchema", XSI_NS_1999),
    };
    let enc12 = encoded && options.version == Version::Soap12;
    let opts = Opts {
        typed,
        encoded,
        enc12,
        item_types: options.array_item_types,
        tns: !wrapper.namespace.is_empty(),
        default_ns: options.qualified && !wrapper.namespace.is_empty(),
        any_type: match options.schema_ns {
            SchemaNs::Xsd2001 => "xsd:anyType",
            SchemaNs::Xsd1999 => "xsd:ur-type",
        },
        max_bytes: options.max_bytes,
    };
    opts.room(out, headers.iter().map(|h| h.len()).sum())?;
    out.reserve(512);
    // The opening (declaration to the wrapper's start tag) depends on these and the wrapper's
    // name only: remembered per thread (`opening.rs`) when there are no header blocks.
    let key = opening_key(options, typed, encoded);
    let remembered = headers.is_empty() && !wrapper.local.is_empty();
    let start = out.len();
    if remembered {
        if let Some(stamp) = opening::recall(out, key, wrapper) {
            return encode_rest(out, options, &opts, wrapper, value, Some(stamp));
        }
    }
    if options.xml_declaration {
        out.extend_from_slice(b"<?xml version=\"1.0\" encoding=\"UTF-8\"?>");
    }
    out.extend_from_slice(b"<soap:Envelope xmlns:soap=\"");
    out.extend_from_slice(options.version.envelope_ns().as_bytes());
    out.push(b'"');
    if typed {
        out.extend_from_slice(b" xmlns:xsi=\"");
        out.extend_from_slice(xsi.as_bytes());
        out.extend_from_slice(b"\" xmlns:xsd=\"");
        out.extend_from_slice(xsd.as_bytes());
        out.push(b'"');
    }
    if encoded {
        out.extend_from_slice(if enc12 {
            b" xmlns:enc=\"http://www.w3.org/2003/05/soap-encoding\"".as_slice()
        } else {
            b" xmlns:soapenc=\"http://schemas.xmlsoap.org/soap/encoding/\"".as_slice()
        });
    }
    out.push(b'>');
    if !headers.is_empty() {
        out.extend_from_slice(b"<soap:Header>");
        for h in headers {
            out.extend_from_slice(h.as_bytes());
        }
        out.extend_from_slice(b"</soap:Header>");
    }
    if wrapper.local.is_empty() {
        return encode_bare(out, options, &opts, wrapper, value);
    }
    out.extend_from_slice(b"<soap:Body><");
    let prefixed = !wrapper.namespace.is_empty();
    if prefixed {
        out.extend_from_slice(b"tns:");
    }
    out.extend_from_slice(wrapper.local.as_bytes());
    if prefixed {
        out.extend_from_slice(b" xmlns:tns=\"");
        write::attr(out, &wrapper.namespace);
        out.push(b'"');
        if options.qualified {
            out.extend_from_slice(b" xmlns=\"");
            write::attr(out, &wrapper.namespace);
            out.push(b'"');
        }
    }
    if encoded {
        out.extend_from_slice(if enc12 {
            b" soap:encodingStyle=\"http://www.w3.org/2003/05/soap-encoding\"".as_slice()
        } else {
            b" soap:encodingStyle=\"http://schemas.xmlsoap.org/soap/encoding/\"".as_slice()
        });
    }
    out.push(b'>');
    let stamp = remembered
        .then(|| opening::remember(key, wrapper, &out[start..]))
        .flatten();
    encode_rest(out, options, &opts, wrapper, value, stamp)
}

/// Every option the envelope's opening depends on besides the wrapper's name, as bits.
fn opening_key(options: &EncodeOptions, typed: bool, encoded: bool) -> u8 {
    u8::from(options.xml_declaration)
        | u8::from(options.version == Version::Soap12) << 1
        | u8::from(typed) << 2
        | u8::from(encoded) << 3
        | u8::from(options.schema_ns == SchemaNs::Xsd1999) << 4
        | u8::from(options.qualified) << 5
}

/// [`encode`] after the wrapper's start tag: the value, and the ends of the wrapper, the Body
/// and the Envelope. After a remembered opening (`stamp`), played back from the answer
/// remembered past it for `T` (`replay`), or written in full and learned.
fn encode_rest<T: Serialize + ?Sized>(
    out: &mut Vec<u8>,
    options: &EncodeOptions,
    opts: &Opts,
    wrapper: &QName,
    value: &T,
    stamp: Option<opening::Stamp>,
) -> Result<(), EncodeError> {
    // An RPC result name (SOAP 1.2 encoded) is an option the opening's key does not hold.
    let stamp = stamp.filter(|_| !(opts.enc12 && options.rpc_result.is_some()));
    let learn = match stamp {
        Some(stamp) => {
            match opening::with_answers(stamp, |answers| replay::play(answers, out, opts, value)) {
                Some(replay::Played::Done) => return Ok(()),
                Some(replay::Played::Learn) => Some(stamp),
                Some(replay::Played::Full) | None => None,
            }
        }
        None => None,
    };
    let wrapper_end = out.len();
    encode_value(out, options, opts, wrapper, value)?;
    if let Some(stamp) = learn {
        opening::with_answers(stamp, |answers| {
            replay::learn(answers, &out[wrapper_end..], opts, value)
        });
    }
    Ok(())
}

/// [`encode_rest`] in full.
fn encode_value<T: Serialize + ?Sized>(
    out: &mut Vec<u8>,
    options: &EncodeOptions,
    opts: &Opts,
    wrapper: &QName,
    value: &T,
) -> Result<(), EncodeError> {
    let wrapper_end = out.len();
    let prefixed = !wrapper.namespace.is_empty();
    if let (true, Some(result)) = (opts.enc12, &options.rpc_result) {
        out.extend_from_slice(
            b"<rpc:result xmlns:rpc=\"http://www.w3.org/2003/05/soap-rpc\">".as_slice(),
        );
        write::text(out, result);
        out.extend_from_slice(b"</rpc:result>");
    }
    let tag_end = wrapper_end;
    value.serialize(BodySer {
        out: &mut *out,
        opts,
        tag_end,
        block_ns: None,
    })?;
    out.extend_from_slice(b"</");
    if prefixed {
        out.extend_from_slice(b"tns:");
    }
    out.extend_from_slice(wrapper.local.as_bytes());
    out.extend_from_slice(b"></soap:Body></soap:Envelope>");
    opts.room(out, 0)
}

/// The Body of [`encode`] for a message without wrapper: `value`'s fields are its children.
#[cold]
fn encode_bare<T: Serialize + ?Sized>(
    out: &mut Vec<u8>,
    options: &EncodeOptions,
    opts: &Opts,
    body: &QName,
    value: &T,
) -> Result<(), EncodeError> {
    out.extend_from_slice(b"<soap:Body");
    if !body.namespace.is_empty() {
        out.extend_from_slice(b" xmlns:tns=\"");
        write::attr(out, &body.namespace);
        out.push(b'"');
        if options.qualified {
            out.extend_from_slice(b" xmlns=\"");
            write::attr(out, &body.namespace);
            out.push(b'"');
        }
    }
    out.push(b'>');
    let tag_end = out.len();
    value.serialize(BodySer {
        out: &mut *out,
        opts,
        tag_end,
        block_ns: None,
    })?;
    out.extend_from_slice(b"</soap:Body></soap:Envelope>");
    opts.room(out, 0)
}

/// Writes one literal header block: an element `name` (its namespace declared on it) whose
/// children are `value`'s fields, in `name`'s namespace when `qualified` (the usual
/// `elementFormDefault="qualified"` of header schemas) and unqualified otherwise. The result is
/// what [`encode`] takes in `headers`.
pub fn encode_header_block<T: Serialize + ?Sized>(
    out: &mut Vec<u8>,
    name: &QName,
    qualified: bool,
    value: &T,
) -> Result<(), EncodeError> {
    let opts = Opts {
        typed: false,
        encoded: false,
        enc12: false,
        item_types: false,
        tns: !name.namespace.is_empty(),
        default_ns: qualified && !name.namespace.is_empty(),
        any_type: "xsd:anyType",
        max_bytes: usize::MAX,
    };
    let prefixed = !name.namespace.is_empty();
    out.push(b'<');
    if prefixed {
        out.extend_from_slice(b"tns:");
    }
    out.extend_from_slice(name.local.as_bytes());
    if prefixed {
        out.extend_from_slice(b" xmlns:tns=\"");
        write::attr(out, &name.namespace);
        out.push(b'"');
        if qualified {
            out.extend_from_slice(b" xmlns=\"");
            write::attr(out, &name.namespace);
            out.push(b'"');
        }
    }
    out.push(b'>');
    let tag_end = out.len();
    value.serialize(BodySer {
        out: &mut *out,
        opts: &opts,
        tag_end,
        block_ns: Some(&name.namespace),
    })?;
    out.extend_from_slice(b"</");
    if prefixed {
        out.extend_from_slice(b"tns:");
    }
    out.extend_from_slice(name.local.as_bytes());
    out.push(b'>');
    Ok(())
}

#[cold]
fn bad_char(c: u32) -> EncodeError {
    EncodeError::new(format!("character U+{c:04X} cannot be written in xml"))
}

/// The body value: a struct (fields become the wrapper's children), a map, or `()`.
struct BodySer<'o> {
    out: &'o mut Vec<u8>,
    opts: &'o Opts,
    /// Where the wrapper's start tag ends (attribute fields are written into it).
    tag_end: usize,
    /// For a literal header block, its element's namespace: a struct of another namespace
    /// (serde name `{ns}Type`) puts its qualified children in its own, as a nested one does.
    /// `None` for a body wrapper, whose children's namespace the model sets.
    block_ns: Option<&'o str>,
}

fn body_error() -> EncodeError {
    EncodeError::new("the body value must be a struct, a map or `()`")
}

macro_rules! body_reject {
    ($($m:ident($($t:ty),*);)*) => {$(
        fn $m(self, $(_: $t),*) -> Result<(), EncodeError> { Err(body_error()) }
    )*};
}

impl<'o> ser::Serializer for BodySer<'o> {
    type Ok = ();
    type Error = EncodeError;
    type SerializeSeq = Impossible<(), EncodeError>;
    type SerializeTuple = Impossible<(), EncodeError>;
    type SerializeTupleStruct = Impossible<(), EncodeError>;
    type SerializeTupleVariant = Impossible<(), EncodeError>;
    type SerializeMap = Children<'o, 'static>;
    type SerializeStruct = Children<'o, 'static>;
    type SerializeStructVariant = Impossible<(), EncodeError>;

    body_reject! {
        serialize_bool(bool); serialize_i8(i8); serialize_i16(i16); serialize_i32(i32); serialize_i64(i64);
        serialize_u8(u8); serialize_u16(u16); serialize_u32(u32); serialize_u64(u64);
        serialize_f32(f32); serialize_f64(f64); serialize_char(char); serialize_str(&str);
        serialize_bytes(&[u8]); serialize_none();
        serialize_unit_variant(&'static str, u32, &'static str);
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<(), EncodeError> {
        v.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), EncodeError> {
        Ok(())
    }
    fn serialize_unit_struct(self, _n: &'static str) -> Result<(), EncodeError> {
        Ok(())
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
        n: &'static str,
        _i: u32,
        v: &'static str,
        _value: &T,
    ) -> Result<(), EncodeError> {
        Err(variant_error(n, v))
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq, EncodeError> {
        Err(body_error())
    }
    fn serialize_tuple(self, _len: usize) -> Result<Self::SerializeTuple, EncodeError> {
        Err(body_error())
    }
    fn serialize_tuple_struct(
        self,
        _n: &'static str,
        _l: usize,
    ) -> Result<Self::SerializeTupleStruct, EncodeError> {
        Err(body_error())
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
    fn serialize_map(self, _len: Option<usize>) -> Result<Children<'o, 'static>, EncodeError> {
        Ok(Children {
            out: self.out,
            opts: self.opts,
            key: String::new(),
            close: None,
            ns: None,
            scope: None,
            tag_end: usize::MAX,
        })
    }
    fn serialize_struct(
        self,
        n: &'static str,
        _l: usize,
    ) -> Result<Children<'o, 'static>, EncodeError> {
        // A header block of a type of another schema: its qualified children are in the
        // type's namespace (IndienenBericht's `ReferentieHeader`).
        let ns = match self.block_ns {
            Some(block) if self.opts.default_ns => {
                clark(n).map(|(ns, _)| ns).filter(|ns| *ns != block)
            }
            _ => None,
        };
        Ok(Children {
            out: self.out,
            opts: self.opts,
            key: String::new(),
            close: None,
            ns,
            scope: None,
            tag_end: self.tag_end,
        })
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

/// The fields of a struct (or entries of a map), each written as a child element; `close`
/// is the element name to end when done (`None` for the body wrapper, ended by `encode`).
pub(crate) struct Children<'o, 'n> {
    out: &'o mut Vec<u8>,
    opts: &'o Opts,
    key: String,
    close: Option<&'n str>,
    /// The namespace the children are in when it is not the wrapper's: a struct whose serde
    /// name is `{ns}Type` in a qualified message (a type of another schema).
    ns: Option<&'static str>,
    /// The default namespace in scope inside this element (`None`: the wrapper's).
    scope: Option<&'static str>,
    /// Where the element's start tag ends while nothing follows it: an attribute field
    /// (`@name`) is written into the tag there (`usize::MAX`: a map, no attributes).
    tag_end: usize,
}

impl Children<'_, '_> {
    fn finish(self) {
        if let Some(name) = self.close {
            self.out.extend_from_slice(b"</");
            self.out.extend_from_slice(tag(name).as_bytes());
            self.out.push(b'>');
        }
    }
}

/// The element name of `name`, which may carry a namespace declaration (`f xmlns="ns"`).
///
/// Called for every end tag (each item of an array): a byte loop over the short name, not
/// `str::find(char)`, whose searcher cost 74 instructions per item of the 100,000-int array
/// (callgrind, `examples/ints_loop.rs`).
#[inline]
fn tag(name: &str) -> &str {
    match name.bytes().position(|b| b == b' ') {
        Some(i) => &name[..i],
        None => name,
    }
}

impl Children<'_, '_> {
    /// Writes a field renamed `{ns}local`: an element whose namespace is its own, not the
    /// one its parent's type puts its children in (a `ref` to another schema's global
    /// element, or a per-element `form`). Qualified style declares `ns` as the default
    /// namespace on it (`<local xmlns="ns">`, `xmlns=""` for `{}local`) so its content reads
    /// in that scope; unqualified style binds a prefix of its own (`<e:local xmlns:e="ns">`)
    /// so its unqualified children stay in no namespace.
    fn own_namespace<T: Serialize + ?Sized>(
        &mut self,
        ns: &'static str,
        local: &'static str,
        v: &T,
    ) -> Result<(), EncodeError> {
        let mut buf = Vec::new();
        write::attr(&mut buf, ns);
        let ns_text = String::from_utf8_lossy(&buf);
        self.key.clear();
        let scope = if self.opts.default_ns {
            self.key.push_str(local);
            if self.scope != Some(ns) {
                self.key.push_str(" xmlns=\"");
                self.key.push_str(&ns_text);
                self.key.push('"');
            }
            Some(ns)
        } else {
            if ns.is_empty() {
                self.key.push_str(local);
            } else {
                self.key.push_str("e:");
                self.key.push_str(local);
                self.key.push_str(" xmlns:e=\"");
                self.key.push_str(&ns_text);
                self.key.push('"');
            }
            self.scope
        };
        v.serialize(ValueSer {
            out: self.out,
            opts: self.opts,
            name: &self.key,
            kind: Kind::Field,
            scope,
        })
    }
}

impl<'o, 'n> ser::SerializeStruct for Children<'o, 'n> {
    type Ok = ();
    type Error = EncodeError;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        v: &T,
    ) -> Result<(), EncodeError> {
        self.opts.room(self.out, 0)?;
        if markup::is_markup(key) {
            return markup::field(self, key, v);
        }
        if let Some((ns, local)) = clark(key) {
            return self.own_namespace(ns, local, v);
        }
        match self.ns {
            // A child in another namespace than the one in scope declares it on itself.
            Some(ns) if self.scope != Some(ns) && key != raw::ANY => {
                self.key.clear();
                self.key.push_str(key);
                self.key.push_str(" xmlns=\"");
                let mut buf = Vec::new();
                write::attr(&mut buf, ns);
                self.key.push_str(&String::from_utf8_lossy(&buf));
                self.key.push('"');
                v.serialize(ValueSer {
                    out: self.out,
                    opts: self.opts,
                    name: &self.key,
                    kind: Kind::Field,
                    scope: Some(ns),
                })
            }
            _ => v.serialize(ValueSer {
                out: self.out,
                opts: self.opts,
                name: key,
                kind: Kind::Field,
                scope: self.scope,
            }),
        }
    }
    fn end(self) -> Result<(), EncodeError> {
        self.finish();
        Ok(())
    }
}

impl<'o, 'n> ser::SerializeMap for Children<'o, 'n> {
    type Ok = ();
    type Error = EncodeError;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), EncodeError> {
        self.key.clear();
        key.serialize(KeySer(&mut self.key))?;
        let ok = self
            .key
            .chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '_')
            && self
                .key
                .chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | ':'));
        if !ok {
            return Err(EncodeError::new(format!(
                "map key {} is not an xml name",
                crate::error::excerpt(&self.key)
            )));
        }
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), EncodeError> {
        self.opts.room(self.out, 0)?;
        v.serialize(ValueSer {
            out: self.out,
            opts: self.opts,
            name: &self.key,
            kind: Kind::Field,
            scope: self.scope,
        })
    }
    fn end(self) -> Result<(), EncodeError> {
        self.finish();
        Ok(())
    }
}

/// Where a value sits: decides what `None`, a sequence and `xsi:type` look like.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A struct field or map entry.
    Field,
    /// One element of a literal repeated sequence.
    LiteralItem,
    /// One item of an encoded array.
    ArrayItem,
}

/// Writes one value as an element named `name` (which may end in a namespace declaration,
/// `f xmlns="ns"`: end tags use [`tag`]).
pub(crate) struct ValueSer<'o, 'n> {
    out: &'o mut Vec<u8>,
    opts: &'o Opts,
    name: &'n str,
    kind: Kind,
    /// The default namespace in scope inside this element (`None`: the wrapper's).
    scope: Option<&'static str>,
}

impl<'o, 'n> ValueSer<'o, 'n> {
    fn typed(&self) -> bool {
        self.opts.typed && (self.kind != Kind::ArrayItem || self.opts.item_types)
    }

    /// `<name xsi:type="xsd:local">`
    #[inline]
    fn open_simple(&mut self, local: &str) {
        let out = &mut *self.out;
        out.push(b'<');
        out.extend_from_slice(self.name.as_bytes());
        if self.opts.typed && (self.kind != Kind::ArrayItem || self.opts.item_types) {
            out.extend_from_slice(b" xsi:type=\"xsd:");
            out.extend_from_slice(local.as_bytes());
            out.extend_from_slice(b"\">");
        } else {
            out.push(b'>');
        }
    }

    /// `<name>`
    fn open_plain(&mut self) {
        self.out.push(b'<');
        self.out.extend_from_slice(self.name.as_bytes());
        self.out.push(b'>');
    }

    /// `<name xsi:type="tns:Type">`; a type named in Clark notation (`{ns}Type`, a type of
    /// another schema) is `<name xsi:type="ns1:Type" xmlns:ns1="ns">`.
    fn open_named(&mut self, type_name: &str) {
        let typed = self.typed();
        let out = &mut *self.out;
        out.push(b'<');
        out.extend_from_slice(self.name.as_bytes());
        if typed {
            out.extend_from_slice(b" xsi:type=\"");
            match clark(type_name) {
                Some((ns, local)) => {
                    out.extend_from_slice(b"ns1:");
                    out.extend_from_slice(local.as_bytes());
                    out.extend_from_slice(b"\" xmlns:ns1=\"");
                    write::attr(out, ns);
                }
                None => {
                    if self.opts.tns {
                        out.extend_from_slice(b"tns:");
                    }
                    out.extend_from_slice(type_name.as_bytes());
                }
            }
            out.push(b'"');
        }
        out.push(b'>');
    }

    #[inline]
    fn close(&mut self) {
        let out = &mut *self.out;
        out.extend_from_slice(b"</");
        out.extend_from_slice(tag(self.name).as_bytes());
        out.push(b'>');
    }

    #[inline]
    fn simple(mut self, local: &str, body: impl FnOnce(&mut Vec<u8>)) -> Result<(), EncodeError> {
        self.open_simple(local);
        body(self.out);
        self.close();
        Ok(())
    }

    fn type_str(&self, p: &Probe) -> String {
        match p {
            Probe::Simple(x) => format!("xsd:{x}"),
            Probe::Named(n) if clark(n).is_some() => {
                format!("ns1:{}", clark(n).map_or("", |(_, local)| local))
            }
            Probe::Named(n) if self.opts.tns => format!("tns:{n}"),
            Probe::Named(n) => (*n).to_string(),
            Probe::Seq(..) => if self.opts.enc12 {
                "enc:Array"
            } else {
                "soapenc:Array"
            }
            .to_string(),
            Probe::Unknown => self.opts.any_type.to_string(),
        }
    }
}

macro_rules! int_methods {
    ($($m:ident($t:ty) => $x:literal;)*) => {$(
        #[inline]
        fn $m(self, v: $t) -> Result<(), EncodeError> {
            self.simple($x, |out| write::int(out, v))
        }
    )*};
}

impl<'o, 'n> ser::Serializer for ValueSer<'o, 'n> {
    type Ok = ();
    type Error = EncodeError;
    type SerializeSeq = SeqSer<'o, 'n>;
    type SerializeTuple = SeqSer<'o, 'n>;
    type SerializeTupleStruct = SeqSer<'o, 'n>;
    type SerializeTupleVariant = Impossible<(), EncodeError>;
    type SerializeMap = Children<'o, 'n>;
    type SerializeStruct = Children<'o, 'n>;
    type SerializeStructVariant = Impossible<(), EncodeError>;

    int_methods! {
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
    }

    fn serialize_bool(self, v: bool) -> Result<(), EncodeError> {
        self.simple("boolean", |out| {
            out.extend_from_slice(if v { b"true" } else { b"false" })
        })
    }
    fn serialize_f32(self, v: f32) -> Result<(), EncodeError> {
        self.simple("float", |out| write::f32(out, v))
    }
    fn serialize_f64(self, v: f64) -> Result<(), EncodeError> {
        self.simple("double", |out| write::f64(out, v))
    }
    fn serialize_char(self, v: char) -> Result<(), EncodeError> {
        let mut b = [0u8; 4];
        self.serialize_str(v.encode_utf8(&mut b))
    }
    #[inline]
    fn serialize_str(mut self, v: &str) -> Result<(), EncodeError> {
        self.opts.room(self.out, v.len())?;
        self.open_simple("string");
        write::text_checked(self.out, v).map_err(bad_char)?;
        self.close();
        Ok(())
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<(), EncodeError> {
        use base64::Engine;
        self.opts.room(self.out, v.len().saturating_mul(4) / 3)?;
        let s = base64::engine::general_purpose::STANDARD.encode(v);
        self.simple("base64Binary", |out| out.extend_from_slice(s.as_bytes()))
    }
    fn serialize_none(self) -> Result<(), EncodeError> {
        if !self.opts.encoded && self.kind == Kind::Field {
            return Ok(());
        }
        self.out.push(b'<');
        self.out.extend_from_slice(self.name.as_bytes());
        self.out.extend_from_slice(b" xsi:nil=\"true\"");
        if !self.opts.typed {
            self.out.extend_from_slice(b" xmlns:xsi=\"");
            self.out.extend_from_slice(XSI_NS_2001.as_bytes());
            self.out.push(b'"');
        }
        self.out.extend_from_slice(b"/>");
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<(), EncodeError> {
        v.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), EncodeError> {
        self.out.push(b'<');
        self.out.extend_from_slice(self.name.as_bytes());
        self.out.extend_from_slice(b"/>");
        Ok(())
    }
    fn serialize_unit_struct(self, _n: &'static str) -> Result<(), EncodeError> {
        self.serialize_unit()
    }
    fn serialize_unit_variant(
        mut self,
        name: &'static str,
        _i: u32,
        variant: &'static str,
    ) -> Result<(), EncodeError> {
        if self.name.starts_with(raw::CHOICE) {
            // An alternative of a choice with no content: the empty element.
            let name = raw::variant_name(self.name, variant);
            return ValueSer {
                name: &name,
                ..self
            }
            .serialize_unit();
        }
        self.open_named(name);
        write::text(self.out, variant);
        self.close();
        Ok(())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        mut self,
        name: &'static str,
        v: &T,
    ) -> Result<(), EncodeError> {
        if name == crate::any::RAW {
            return raw::write(self, v);
        }
        let Some(xsd) = name.strip_prefix(crate::xsd::RESERVED) else {
            return v.serialize(self);
        };
        let mut text = String::new();
        v.serialize(KeySer(&mut text))?;
        self.opts.room(self.out, text.len())?;
        if xsd == "QName" {
            // Clark notation `{ns}local` from xsd::QNameValue
            let (ns, local) = match text.strip_prefix('{').and_then(|r| r.split_once('}')) {
                Some((ns, local)) => (ns.to_string(), local.to_string()),
                None => (String::new(), text.clone()),
            };
            let typed = self.typed();
            // a QName in no namespace must be unprefixed with no default namespace in scope:
            // under a qualified wrapper the element names itself with `tns:` and undeclares it
            let undeclare = ns.is_empty() && self.opts.default_ns;
            let out = &mut *self.out;
            out.push(b'<');
            if undeclare {
                out.extend_from_slice(b"tns:");
            }
            out.extend_from_slice(self.name.as_bytes());
            if typed {
                out.extend_from_slice(b" xsi:type=\"xsd:QName\"");
            }
            if !ns.is_empty() {
                out.extend_from_slice(b" xmlns:q=\"");
                write::attr(out, &ns);
                out.extend_from_slice(b"\">q:");
            } else if undeclare {
                out.extend_from_slice(b" xmlns=\"\">");
            } else {
                out.push(b'>');
            }
            write::text(out, &local);
            out.extend_from_slice(b"</");
            if undeclare {
                out.extend_from_slice(b"tns:");
            }
            out.extend_from_slice(tag(self.name).as_bytes());
            out.push(b'>');
            return Ok(());
        }
        self.open_simple(xsd_static(xsd));
        write::text_checked(self.out, &text).map_err(bad_char)?;
        self.close();
        Ok(())
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        n: &'static str,
        _i: u32,
        v: &'static str,
        value: &T,
    ) -> Result<(), EncodeError> {
        if !self.name.starts_with(raw::CHOICE) {
            return Err(variant_error(n, v));
        }
        // An alternative of a choice: the element the variant is named after.
        let name = raw::variant_name(self.name, v);
        value.serialize(ValueSer {
            name: &name,
            kind: Kind::Field,
            ..self
        })
    }
    fn serialize_seq(mut self, len: Option<usize>) -> Result<SeqSer<'o, 'n>, EncodeError> {
        if self.opts.encoded {
            return Ok(SeqSer::Array(ArraySer::new(self, len)));
        }
        match self.kind {
            Kind::Field => Ok(SeqSer::Repeat(self)),
            _ => {
                // a literal sequence inside a sequence: one element holding `item`s
                self.open_plain();
                Ok(SeqSer::Wrapped(self))
            }
        }
    }
    fn serialize_tuple(self, len: usize) -> Result<SeqSer<'o, 'n>, EncodeError> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(
        self,
        _n: &'static str,
        len: usize,
    ) -> Result<SeqSer<'o, 'n>, EncodeError> {
        self.serialize_seq(Some(len))
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
    fn serialize_map(mut self, _len: Option<usize>) -> Result<Children<'o, 'n>, EncodeError> {
        self.open_plain();
        Ok(Children {
            out: self.out,
            opts: self.opts,
            key: String::new(),
            close: Some(self.name),
            ns: None,
            scope: self.scope,
            tag_end: usize::MAX,
        })
    }
    fn serialize_struct(
        mut self,
        name: &'static str,
        _l: usize,
    ) -> Result<Children<'o, 'n>, EncodeError> {
        if name.as_bytes().first() == Some(&b'$') && name.starts_with(crate::any::SEQUENCE) {
            // A choice alternative that is a sequence: its fields are the element that chose
            // the variant and its next siblings, with no element of their own around them.
            return Ok(Children {
                out: self.out,
                opts: self.opts,
                key: String::new(),
                close: None,
                ns: None,
                scope: self.scope,
                tag_end: usize::MAX,
            });
        }
        self.open_named(name);
        // Qualified children of a type of another schema are in its namespace.
        let ns = if self.opts.default_ns {
            clark(name).map(|(ns, _)| ns)
        } else {
            None
        };
        let tag_end = self.out.len();
        Ok(Children {
            out: self.out,
            opts: self.opts,
            key: String::new(),
            close: Some(self.name),
            ns,
            scope: self.scope,
            tag_end,
        })
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
