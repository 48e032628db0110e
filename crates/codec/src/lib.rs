//! The SOAP codec: bytes off the wire in, typed Rust values out, and back, without a DOM.
//!
//! * [`Envelope::parse`] reads a SOAP 1.1 or 1.2 envelope up to the first Body child, so a
//!   server can dispatch on [`Envelope::body_element`]; [`Envelope::headers`] gives the
//!   header blocks (mustUnderstand, actor/role; [`Envelope::header_relay`]); then
//!   [`Envelope::body`] deserializes the wrapper into any `T: DeserializeOwned`, literal or
//!   SOAP-encoded, and [`Envelope::fault`] reads a Fault.
//! * [`encode`] writes an envelope around any `T: Serialize`; [`encode_fault`],
//!   [`encode_must_understand_fault`] and [`encode_version_mismatch_fault`] write faults.
//! * [`xsd`] has value types for XML Schema types Rust lacks, and [`xsd_type_name`] the
//!   Rust-to-XSD type map.
//!
//! Decoding runs over a small tokenizer of its own (quick-xml decodes entities), with its own
//! namespace resolution, and enforces every bound in [`Limits`]: no DOCTYPE (so no entity
//! expansion and no external fetch), only UTF-8, bounded size, depth, attributes, names, text
//! and array lengths, and two budgets for multi-ref `href`s: XML events read (work), and bytes
//! of referenced elements decoded again (memory: by default at most `4 x input + 64 KiB`
//! bytes of replays, see [`Limits::reference_bytes_per_input_byte`]). [`EncodeOptions::max_bytes`]
//! bounds what the encoder writes, so a server's answer is bounded too.
//! [`Limits::lenient`] ([`Lenient`]) lets a client (or a configured server) read what old
//! toolkits send against the specifications, logging each; it is off by default.
//!
//! What SOAP forbids is refused as the sender's error ([`Fault::from`] a [`DecodeError`] gives
//! `Client`, SOAP 1.2 `Sender`): processing instructions (SOAP 1.1 section 3, 1.2 Part 1
//! section 5), raw control characters, a second Body or body element. SOAP 1.2 encoding errors
//! carry their Part 2 3.3 subcode: `enc:MissingID` for an `href`/`enc:ref` to no id (ids in
//! header blocks count: a body value may refer to data a header carries), `enc:UntypedValue`
//! for an encoded value without `xsi:type` read into a self-describing target. An unknown
//! `encodingStyle` on any body element is `DataEncodingUnknown`.
//!
//! Must never: do I/O, build a DOM, expand entities, accept a DOCTYPE, panic on any input.
//!
//! ```
//! use serde::{Deserialize, Serialize};
//! use soapstone_codec::{encode, EncodeOptions, Envelope, Limits, QName, Style};
//!
//! #[derive(Serialize, Deserialize, Debug, PartialEq)]
//! struct Reserve { id: i32, am: i32 }
//!
//! let mut opts = EncodeOptions::default();
//! opts.style = Style::Encoded;
//! let mut out = Vec::new();
//! encode(&mut out, &opts, &[], &QName::new("urn:charging", "reserve"), &Reserve { id: 2, am: 520 })?;
//!
//! let env = Envelope::parse(&out, &Limits::default())?;
//! assert_eq!(env.body_element(), Some(&QName::new("urn:charging", "reserve")));
//! assert_eq!(env.body::<Reserve>(Style::Encoded)?, Reserve { id: 2, am: 520 });
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
#![doc = include_str!("docs/conventions.md")]

mod any;
mod any_read;
pub mod calendar;
mod de;
mod depth;
mod envelope;
mod error;
mod fault;
mod lenient;
mod lexical;
mod list;
mod scan;
mod ser;
mod write;
mod xml;
pub mod xsd;

pub use depth::nested_past;
pub use envelope::Envelope;
pub use error::{DecodeError, EncodeError};
pub use fault::{encode_fault, encode_must_understand_fault, encode_version_mismatch_fault};
pub use lenient::Lenient;
pub use lexical::{check_fixed, check_fixed_value, parse_lexical};
pub use ser::{encode, encode_encoded_header_block, encode_header_block};
pub use xsd::xsd_type_name;

/// SOAP version, told by the envelope namespace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Version {
    /// `http://schemas.xmlsoap.org/soap/envelope/`, media type `text/xml`.
    Soap11,
    /// `http://www.w3.org/2003/05/soap-envelope`, media type `application/soap+xml`.
    Soap12,
}

impl Version {
    /// The envelope namespace URI.
    pub fn envelope_ns(self) -> &'static str {
        match self {
            Version::Soap11 => "http://schemas.xmlsoap.org/soap/envelope/",
            Version::Soap12 => "http://www.w3.org/2003/05/soap-envelope",
        }
    }
    /// The HTTP media type (without parameters).
    pub fn media_type(self) -> &'static str {
        match self {
            Version::Soap11 => "text/xml",
            Version::Soap12 => "application/soap+xml",
        }
    }
}

/// How a body is encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Style {
    /// document/literal or rpc/literal: elements, no `xsi:type`, `Vec` = repeated elements.
    Literal,
    /// SOAP 1.1 section 5 encoding: `xsi:type` on every value, SOAP-ENC arrays, `href`/`id`.
    Encoded,
}

/// A qualified name; `namespace` is empty for an unqualified name.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct QName {
    /// Namespace URI (empty: no namespace).
    pub namespace: String,
    /// Local part.
    pub local: String,
}

impl QName {
    /// A new qualified name.
    pub fn new(namespace: impl Into<String>, local: impl Into<String>) -> Self {
        QName {
            namespace: namespace.into(),
            local: local.into(),
        }
    }
}

/// Limits on hostile input, and the leniency towards old peers; every decode takes one.
/// Defaults are safe for a public server (and strict).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// Largest document accepted. Default: `4 MiB`.
    pub max_document_bytes: usize,
    /// Deepest element nesting. Default: `64`.
    pub max_depth: usize,
    /// Most attributes (namespace declarations included) on one element. Default: `64`.
    pub max_attributes: usize,
    /// Longest element or attribute name. Default: `256`.
    pub max_name_len: usize,
    /// Longest text node or attribute value. Default: `1 MiB`.
    pub max_text_len: usize,
    /// Most items in one array (an `arrayType` size or a repeated element). Default: `1_000_000`.
    pub max_array_len: usize,
    /// Multi-ref budget, per byte of input: following an `href="#id"` (SOAP 1.2 `enc:ref`)
    /// decodes the target element again, so every time a reference is followed the byte length
    /// of its target is charged, *before* it is read, to a budget of
    /// `reference_bytes_per_input_byte x input length + reference_bytes_allowance` (at most
    /// [`Self::max_reference_bytes`]), shared by every [`Envelope::body`] and
    /// [`Envelope::header`] call on one envelope. With the defaults the text a decode
    /// materializes is thus at most `5 x input + 64 KiB` (its own pass reads each byte of the
    /// input once, and unescaping never lengthens text). Default: `4`.
    pub reference_bytes_per_input_byte: usize,
    /// The constant part of the multi-ref budget, so small documents may share small values
    /// freely. Default: `64 KiB`.
    pub reference_bytes_allowance: usize,
    /// Absolute cap of the multi-ref budget, whatever the input length. Default: `64 MiB`.
    pub max_reference_bytes: usize,
    /// Which non-conforming constructs of old toolkits to accept (gSOAP, Axis 1.4, PHP); see
    /// [`Lenient`]. Default: none ([`Lenient::STRICT`]).
    pub lenient: Lenient,
}

impl Limits {
    /// The multi-ref budget of a document of `input_len` bytes:
    /// `min(reference_bytes_per_input_byte x input_len + reference_bytes_allowance,
    /// max_reference_bytes)`.
    pub fn reference_budget(&self, input_len: usize) -> usize {
        self.reference_bytes_per_input_byte
            .saturating_mul(input_len)
            .saturating_add(self.reference_bytes_allowance)
            .min(self.max_reference_bytes)
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_document_bytes: 4 << 20,
            max_depth: 64,
            max_attributes: 64,
            max_name_len: 256,
            max_text_len: 1 << 20,
            max_array_len: 1_000_000,
            reference_bytes_per_input_byte: 4,
            reference_bytes_allowance: 64 << 10,
            max_reference_bytes: 64 << 20,
            lenient: Lenient::STRICT,
        }
    }
}

/// A SOAP fault, the on-the-wire error of both versions (like tonic's `Status`).
#[derive(Debug, Clone, PartialEq)]
pub struct Fault {
    /// The fault code.
    pub code: FaultCode,
    /// SOAP 1.2 subcodes, outermost first (ignored when written as 1.1).
    pub subcodes: Vec<QName>,
    /// 1.1 faultstring / 1.2 Reason/Text.
    pub reason: String,
    /// 1.1 faultactor / 1.2 Role.
    pub actor: Option<String>,
    /// 1.2 Node.
    pub node: Option<String>,
    /// The raw XML content of `detail` / `Detail`, if any.
    pub detail: Option<String>,
}

/// Fault codes; `Client`/`Server` are 1.2's `Sender`/`Receiver`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FaultCode {
    /// The envelope namespace was not one we speak.
    VersionMismatch,
    /// A mustUnderstand header was not understood.
    MustUnderstand,
    /// 1.2 DataEncodingUnknown.
    DataEncodingUnknown,
    /// 1.1 Client / 1.2 Sender: the request was wrong.
    Client,
    /// 1.1 Server / 1.2 Receiver: the service failed.
    Server,
    /// Any other code.
    Other(QName),
}

impl Fault {
    /// A Client/Sender fault with this reason.
    pub fn client(reason: impl Into<String>) -> Self {
        Fault {
            code: FaultCode::Client,
            subcodes: vec![],
            reason: reason.into(),
            actor: None,
            node: None,
            detail: None,
        }
    }
    /// A Server/Receiver fault with this reason.
    pub fn server(reason: impl Into<String>) -> Self {
        Fault {
            code: FaultCode::Server,
            subcodes: vec![],
            reason: reason.into(),
            actor: None,
            node: None,
            detail: None,
        }
    }
}

/// A header block as found in the envelope.
#[derive(Debug, Clone, PartialEq)]
pub struct HeaderBlock {
    /// The block's element name.
    pub name: QName,
    /// `mustUnderstand` (1.1 `1`/`0`, 1.2 `true`/`false`/`1`/`0`).
    pub must_understand: bool,
    /// 1.1 `actor` / 1.2 `role`.
    pub role: Option<String>,
}

/// Which XML Schema namespace `xsd:`/`xsi:` refer to on output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SchemaNs {
    /// `http://www.w3.org/2001/XMLSchema` (default).
    #[default]
    Xsd2001,
    /// `http://www.w3.org/1999/XMLSchema` (Apache SOAP era messages).
    Xsd1999,
}

/// How to write a message.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct EncodeOptions {
    /// SOAP version. Default: `Soap11`.
    pub version: Version,
    /// Body style. Default: `Literal`.
    pub style: Style,
    /// Children of the wrapper in the wrapper's namespace (elementFormDefault qualified).
    /// Default: `false`.
    pub qualified: bool,
    /// Write `xsi:type` (always true for `Encoded`). Default: follows the style.
    pub xsi_types: Option<bool>,
    /// Schema namespace. Default: 2001.
    pub schema_ns: SchemaNs,
    /// Write `<?xml version="1.0" encoding="UTF-8"?>`. Default: `true`.
    pub xml_declaration: bool,
    /// In encoded arrays, also write `xsi:type` on every item (the array's `arrayType`
    /// already says it; some old toolkits want both). Default: `false`.
    pub array_item_types: bool,
    /// Largest envelope [`encode`] may write: past it, encoding stops with an
    /// [`EncodeError`] (checked before each value and before each string is copied, so the
    /// output buffer never grows much past the limit and nothing truncated is returned).
    /// A server sets it from its response limit. Default: `usize::MAX` (no limit).
    pub max_bytes: usize,
    /// SOAP 1.2 RPC responses (`Encoded` style, `Soap12`): the name of the accessor that holds
    /// the return value, written as the wrapper's first child `<rpc:result>` (SOAP 1.2 Part 2
    /// section 4.2.2 requires it of a non-void result); ignored otherwise. Default: `None`.
    pub rpc_result: Option<String>,
}

impl Default for EncodeOptions {
    fn default() -> Self {
        EncodeOptions {
            version: Version::Soap11,
            style: Style::Literal,
            qualified: false,
            xsi_types: None,
            schema_ns: SchemaNs::Xsd2001,
            xml_declaration: true,
            array_item_types: false,
            max_bytes: usize::MAX,
            rpc_result: None,
        }
    }
}
