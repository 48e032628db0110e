//! The codec's two error types.
//!
//! A [`DecodeError`] says *where* (a path of local names into the document, like
//! `/Envelope/Body/reserve/am`) and *what* (lower-case, offending token in backticks). It also
//! carries a private kind so that [`crate::Fault::from`] can pick the right fault code
//! (VersionMismatch, DataEncodingUnknown, Client). Must never: hold borrowed input (errors
//! outlive the request buffer) or print more than a short excerpt of hostile input.

use std::fmt;

/// What class of problem a [`DecodeError`] is; decides the fault code it maps to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Malformed XML, refused constructs, wrong structure: a Client/Sender fault.
    Malformed,
    /// A value of the wrong type or lexical form: a Client/Sender fault.
    Value,
    /// A configured limit was exceeded: a Client/Sender fault.
    Limit,
    /// The envelope namespace is not SOAP 1.1 or 1.2.
    VersionMismatch,
    /// SOAP 1.2: a body or header element names an unknown `encodingStyle`.
    DataEncodingUnknown,
    /// A serde `custom` error raised by the target type itself.
    Custom,
    /// An `href`/`enc:ref` names no element's id: a Client/Sender fault with the SOAP 1.2
    /// subcode `enc:MissingID` (Part 2 section 3.3).
    MissingId,
    /// A SOAP 1.2 encoded value whose type neither `xsi:type` nor the target tells: a
    /// Client/Sender fault with the subcode `enc:UntypedValue` (Part 2 section 3.3).
    UntypedValue,
}

/// Why a document could not be decoded. Messages are lower-case and quote the offending token
/// in backticks, with a path into the document: `/Envelope/Body/reserve/am: expected xsd:int, found \`abc\``.
#[derive(Debug, Clone, PartialEq)]
pub struct DecodeError(Box<Inner>);

/// Boxed so that `Result<T, DecodeError>` stays small on the decoder's hot paths.
#[derive(Debug, Clone, PartialEq)]
struct Inner {
    message: String,
    kind: Kind,
    has_path: bool,
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.message)
    }
}

impl std::error::Error for DecodeError {}

// The constructors are `#[cold]`: a call to one marks its branch unlikely, so the compiler
// lays the error's construction (often a `format!`) out of the hot path's way instead of
// between the instructions of a successful read, whose code then spans fewer cache lines.
impl DecodeError {
    #[cold]
    pub(crate) fn new(kind: Kind, message: impl Into<String>) -> Self {
        DecodeError(Box::new(Inner {
            message: message.into(),
            kind,
            has_path: false,
        }))
    }

    #[cold]
    pub(crate) fn malformed(message: impl Into<String>) -> Self {
        Self::new(Kind::Malformed, message)
    }

    #[cold]
    pub(crate) fn value(message: impl Into<String>) -> Self {
        Self::new(Kind::Value, message)
    }

    #[cold]
    pub(crate) fn limit(message: impl Into<String>) -> Self {
        Self::new(Kind::Limit, message)
    }

    /// Prefixes the message with a document path unless it already has one.
    #[cold]
    pub(crate) fn at(mut self, path: impl FnOnce() -> String) -> Self {
        if !self.0.has_path {
            let p = path();
            if !p.is_empty() {
                self.0.message = format!("{p}: {}", self.0.message);
            }
            self.0.has_path = true;
        }
        self
    }

    /// The same error with another message (its kind and path flag kept).
    pub(crate) fn with_message(mut self, message: String) -> Self {
        self.0.message = message;
        self
    }

    pub(crate) fn kind(&self) -> Kind {
        self.0.kind
    }

    /// The envelope namespace was not SOAP 1.1 or 1.2 (answer with a VersionMismatch fault).
    pub fn is_version_mismatch(&self) -> bool {
        self.0.kind == Kind::VersionMismatch
    }

    /// A SOAP 1.2 `encodingStyle` was not one this codec knows (answer with a
    /// DataEncodingUnknown fault).
    pub fn is_data_encoding_unknown(&self) -> bool {
        self.0.kind == Kind::DataEncodingUnknown
    }

    /// A [`crate::Limits`] bound was exceeded (the document is too big, too deep, ...).
    pub fn is_limit(&self) -> bool {
        self.0.kind == Kind::Limit
    }

    /// The message, as [`Display`](fmt::Display) prints it.
    pub fn message(&self) -> &str {
        &self.0.message
    }
}

impl serde::de::Error for DecodeError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        DecodeError::new(Kind::Custom, msg.to_string())
    }
}

/// Why a value could not be encoded.
#[derive(Debug, Clone, PartialEq)]
pub struct EncodeError {
    message: String,
}

impl EncodeError {
    #[cold]
    pub(crate) fn new(message: impl Into<String>) -> Self {
        EncodeError {
            message: message.into(),
        }
    }
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for EncodeError {}

impl serde::ser::Error for EncodeError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        EncodeError::new(msg.to_string())
    }
}

/// Quotes at most 40 characters of hostile input for an error message.
pub(crate) fn excerpt(s: &str) -> String {
    let mut end = s.len().min(40);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    if end < s.len() {
        format!("`{}...`", &s[..end])
    } else {
        format!("`{s}`")
    }
}
