//! Typed SOAP header blocks and typed fault details, for generated and hand-written services.
//!
//! The design follows CXF's `@WebParam(header = true)` for what a binding declares and tonic's
//! metadata for the rest: a generated server method receives each `soap:header` its binding
//! declares as a typed `Option<H>` parameter (decoded before it runs; a block that does not
//! decode is a Client fault naming it) and the [`Context`] for anything else (raw blocks, the
//! peer, response headers with [`Context::set_header`]). A generated client takes the same
//! typed headers per call, sends headers set once per client with `with_header`, and hands
//! response headers back in a [`WithHeaders`]. A `wsdl:fault` becomes a typed enum per
//! operation: the server returns it with `into_fault`, the client gets it back decoded in
//! [`CallError::Declared`].
//!
//! Must never decode a header block or a fault detail outside the envelope's limits, and never
//! drop a fault it cannot decode: an undeclared or undecodable fault stays a plain
//! [`CallError::Other`] with the whole [`Fault`].

// Handlers return `Result<_, Fault>`; these methods return a `Fault` so `?` just works there.
#![allow(clippy::result_large_err)]

use std::fmt;

use bytes::Bytes;
use serde::{de::DeserializeOwned, Serialize};
use soapstone_codec::{self as codec, Envelope, Fault, Limits, QName, Style, Version};

use crate::Context;

/// A type that is the content of one SOAP header block: its fields are the block's children.
/// Generated for every header type a WSDL declares; implement it by hand for others.
pub trait Header: Serialize + DeserializeOwned {
    /// The header block's element.
    fn element() -> QName;
    /// Whether the block's children are qualified with its namespace. Default: `true`.
    fn qualified() -> bool {
        true
    }
    /// `Some(namespace of the service's own types)` when the block is SOAP-encoded
    /// (`soap:header use="encoded"`): the block is then the value itself with `xsi:type`
    /// and unqualified children, as an rpc/encoded part (see
    /// [`codec::encode_encoded_header_block`]). Default: `None` (literal).
    fn encoded() -> Option<&'static str> {
        None
    }
}

/// The markup of header block `H` holding `value` (what a request or response carries), for
/// a SOAP 1.1 message (only an encoded block depends on the version: see [`header_xml_in`]).
pub fn header_xml<H: Header>(value: &H) -> Result<String, codec::EncodeError> {
    header_xml_in(value, Version::Soap11)
}

/// The markup of header block `H` holding `value` in a message of `version`.
pub fn header_xml_in<H: Header>(value: &H, version: Version) -> Result<String, codec::EncodeError> {
    match H::encoded() {
        Some(types_ns) => encoded_block_xml(&H::element(), types_ns, version, value),
        None => block_xml(&H::element(), H::qualified(), value),
    }
}

/// The markup of a SOAP-encoded header block `element` holding `value` (`types_ns`: the
/// namespace of the types whose serde name has none).
pub fn encoded_block_xml<T: Serialize + ?Sized>(
    element: &QName,
    types_ns: &str,
    version: Version,
    value: &T,
) -> Result<String, codec::EncodeError> {
    let mut out = Vec::with_capacity(256);
    codec::encode_encoded_header_block(&mut out, version, element, types_ns, value)?;
    // The writer only writes UTF-8 (it copies `&str`s and escapes).
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// The markup of an element `element` whose children are `value`'s fields (qualified with its
/// namespace when `qualified`): a header block or a fault detail.
pub fn block_xml<T: Serialize + ?Sized>(
    element: &QName,
    qualified: bool,
    value: &T,
) -> Result<String, codec::EncodeError> {
    let mut out = Vec::with_capacity(128);
    codec::encode_header_block(&mut out, element, qualified, value)?;
    // The writer only writes UTF-8 (it copies `&str`s and escapes).
    Ok(String::from_utf8_lossy(&out).into_owned())
}

impl Context {
    /// The request's header block `H`, decoded; `None` when the request has none.
    pub fn typed_header<H: Header>(&self) -> Result<Option<H>, Fault> {
        self.header::<H>(&H::element())
    }

    /// Adds header block `H` to the response.
    pub fn set_header<H: Header>(&self, value: &H) -> Result<(), Fault> {
        let xml = header_xml_in(value, self.version()).map_err(|e| {
            Fault::server(format!(
                "cannot encode header `{}`: {e}",
                H::element().local
            ))
        })?;
        self.add_header_xml(xml);
        Ok(())
    }
}

/// The header blocks of a response, decoded on demand from its bytes.
#[derive(Clone)]
pub struct ResponseHeaders {
    message: Bytes,
    limits: Limits,
    style: Style,
}

impl fmt::Debug for ResponseHeaders {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResponseHeaders")
            .field("message_bytes", &self.message.len())
            .finish_non_exhaustive()
    }
}

impl ResponseHeaders {
    /// The headers of the response envelope `message`, decoded under `limits` in `style`.
    pub fn new(message: Bytes, limits: Limits, style: Style) -> Self {
        ResponseHeaders {
            message,
            limits,
            style,
        }
    }

    /// The names of the header blocks, in document order.
    pub fn names(&self) -> Vec<QName> {
        match Envelope::parse(&self.message, &self.limits) {
            Ok(e) => e.headers().iter().map(|h| h.name.clone()).collect(),
            Err(_) => Vec::new(),
        }
    }

    /// The first header block named `H::element()`, decoded; `None` when there is none.
    pub fn get<H: Header>(&self) -> Result<Option<H>, codec::DecodeError> {
        let envelope = Envelope::parse(&self.message, &self.limits)?;
        let name = H::element();
        match envelope.headers().iter().position(|h| h.name == name) {
            Some(i) => envelope.header(i, self.style).map(Some),
            None => Ok(None),
        }
    }

    /// The raw markup of the first header block named `name`.
    pub fn xml(&self, name: &QName) -> Option<String> {
        let envelope = Envelope::parse(&self.message, &self.limits).ok()?;
        let i = envelope.headers().iter().position(|h| &h.name == name)?;
        envelope.header_xml(i).map(str::to_owned)
    }
}

/// A result with the response's header blocks (what a generated client method returns for an
/// operation whose binding declares response headers).
#[derive(Debug, Clone)]
pub struct WithHeaders<T> {
    /// The result.
    pub value: T,
    /// The response's header blocks.
    pub headers: ResponseHeaders,
}

impl<T> WithHeaders<T> {
    /// The result alone.
    pub fn into_inner(self) -> T {
        self.value
    }
}

/// The faults an operation declares, as one enum (generated per operation).
pub trait DeclaredFault: Sized {
    /// The declared fault `fault` carries in its detail, if it is one (decoded).
    fn from_fault(fault: &Fault) -> Option<Self>;
}

/// Decodes the detail of `fault` as element `element` holding `T` (`None` when the detail is
/// another element or does not decode).
pub fn decode_detail<T: DeserializeOwned>(fault: &Fault, element: &QName) -> Option<T> {
    let detail = fault.detail.as_deref()?;
    // The detail's content is one element; read it as the body of an envelope of its own so
    // that the codec's limits and rules apply exactly as to a body.
    let doc = format!(
        "<e:Envelope xmlns:e=\"http://schemas.xmlsoap.org/soap/envelope/\"><e:Body>{}</e:Body></e:Envelope>",
        detail.trim()
    );
    let envelope = Envelope::parse(doc.as_bytes(), &Limits::default()).ok()?;
    let found = envelope.body_element()?;
    if found.local != element.local
        || !(found.namespace.is_empty() || found.namespace == element.namespace)
    {
        return None;
    }
    envelope.body::<T>(Style::Literal).ok()
}

/// `fault` with `value` as its detail: element `element` whose children are `value`'s fields.
pub fn with_detail<T: Serialize>(
    mut fault: Fault,
    element: &QName,
    qualified: bool,
    value: &T,
) -> Fault {
    match block_xml(element, qualified, value) {
        Ok(xml) => fault.detail = Some(xml),
        Err(e) => {
            fault = Fault::server(format!(
                "cannot encode the detail `{}` of a fault: {e}",
                element.local
            ))
        }
    }
    fault
}

/// What a generated client method of an operation with declared faults returns on failure.
#[derive(Debug)]
pub enum CallError<F> {
    /// The server answered with a fault the operation declares; its detail, decoded.
    Declared {
        /// The decoded detail.
        detail: F,
        /// The whole fault (code, reason, raw detail).
        fault: Fault,
    },
    /// Anything else: transport, an undeclared fault, a response that does not decode.
    Other(crate::client::Error),
}

impl<F: DeclaredFault> From<crate::client::Error> for CallError<F> {
    fn from(e: crate::client::Error) -> Self {
        match e
            .fault()
            .and_then(|f| F::from_fault(f).map(|d| (d, f.clone())))
        {
            Some((detail, fault)) => CallError::Declared { detail, fault },
            None => CallError::Other(e),
        }
    }
}

impl<F> CallError<F> {
    /// The declared fault's detail, if that is what this is.
    pub fn declared(&self) -> Option<&F> {
        match self {
            CallError::Declared { detail, .. } => Some(detail),
            CallError::Other(_) => None,
        }
    }

    /// The fault the server answered with, declared or not.
    pub fn fault(&self) -> Option<&Fault> {
        match self {
            CallError::Declared { fault, .. } => Some(fault),
            CallError::Other(e) => e.fault(),
        }
    }
}

impl<F: fmt::Debug> fmt::Display for CallError<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CallError::Declared { detail, fault } => {
                write!(f, "fault `{:?}`: {} ({detail:?})", fault.code, fault.reason)
            }
            CallError::Other(e) => write!(f, "{e}"),
        }
    }
}

impl<F: fmt::Debug> std::error::Error for CallError<F> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CallError::Declared { .. } => None,
            CallError::Other(e) => Some(e),
        }
    }
}
