//! What a handler may know about its request beyond its arguments: the SOAP header blocks, the
//! peer, the authenticated principal, and anything a layer in front of the service attached.
//!
//! A `#[service]` method that declares `ctx: &Context` right after `&self` receives one; methods
//! that do not pay nothing for it (the request bytes are released before their handler runs).
//! Header blocks are decoded on demand from the request bytes (shared, never copied), so a
//! handler that asks for no header costs no parsing. Layers (authentication, the server's TLS
//! path) pass facts in through [`Extensions`] on the [`SoapRequest`]; the handler reads them
//! here. A handler adds response header blocks with [`Context::add_header`].
//!
//! Must never hand out a borrowed view of the request that outlives the call, nor decode more
//! than the envelope's own limits allow (header decoding runs under the service's `Limits`).

// Handlers return `Result<_, Fault>`; these methods return a `Fault` so `?` just works there.
#![allow(clippy::result_large_err)]

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use serde::{de::DeserializeOwned, Serialize};
use soapstone_codec::{self as codec, Envelope, Fault, HeaderBlock, Limits, QName, Style, Version};

use crate::SoapRequest;

/// A type map for facts a layer attaches to a request (a TLS client identity, a
/// [`Principal`]); cheap to clone (values are shared).
#[derive(Clone, Default)]
pub struct Extensions {
    map: HashMap<TypeId, Arc<dyn Any + Send + Sync>>,
}

impl Extensions {
    /// An empty map.
    pub fn new() -> Self {
        Self::default()
    }

    /// Stores `value`, replacing one of the same type.
    pub fn insert<T: Send + Sync + 'static>(&mut self, value: T) {
        self.map.insert(TypeId::of::<T>(), Arc::new(value));
    }

    /// The value of type `T`, if one was stored.
    pub fn get<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.map.get(&TypeId::of::<T>())?.downcast_ref::<T>()
    }

    /// Whether nothing is stored.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

impl fmt::Debug for Extensions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Extensions")
            .field("len", &self.map.len())
            .finish()
    }
}

/// Header blocks a layer in front of the service processed (a WS-Security layer and its
/// `wsse:Security`): the service treats them as understood, so their `mustUnderstand` is
/// obeyed by the layer. A service reached without that layer still refuses them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UnderstoodHeaders(pub Vec<QName>);

/// The leaf certificate (DER) the TLS client presented and the server verified against its
/// client CAs; put into the request's extensions by soapstone's server on mutual TLS.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsClientCert(pub Bytes);

/// Who sent a request, as an authentication layer established it, and what they may do.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Principal {
    /// The user (or certificate subject) name.
    pub name: String,
    /// The permissions granted, e.g. `read`, `move` (sorted, unique).
    pub permissions: Vec<String>,
}

impl Principal {
    /// A principal with `permissions` (sorted and deduplicated here).
    pub fn new(name: impl Into<String>, permissions: impl IntoIterator<Item = String>) -> Self {
        let mut permissions: Vec<String> = permissions.into_iter().collect();
        permissions.sort();
        permissions.dedup();
        Principal {
            name: name.into(),
            permissions,
        }
    }

    /// Whether `permission` was granted.
    pub fn may(&self, permission: &str) -> bool {
        self.permissions
            .binary_search_by(|p| p.as_str().cmp(permission))
            .is_ok()
    }
}

/// The request a handler is answering, beyond its arguments. See the module documentation.
pub struct Context {
    version: Version,
    action: Option<crate::Action>,
    peer: Option<SocketAddr>,
    message: Bytes,
    limits: Limits,
    style: Style,
    extensions: Extensions,
    response_headers: Mutex<Vec<String>>,
}

impl fmt::Debug for Context {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Context")
            .field("version", &self.version)
            .field("action", &self.action)
            .field("peer", &self.peer)
            .field("message_bytes", &self.message.len())
            .field("extensions", &self.extensions)
            .finish_non_exhaustive()
    }
}

impl Context {
    /// The context of `request`, decoding header blocks in `style` under `limits`. Shares the
    /// request's bytes (no copy).
    pub fn new(request: &SoapRequest, version: Version, limits: &Limits, style: Style) -> Self {
        Context {
            version,
            action: request.action.clone(),
            peer: request.peer,
            message: request.body.clone(),
            limits: limits.clone(),
            style,
            extensions: request.extensions.clone(),
            response_headers: Mutex::new(Vec::new()),
        }
    }

    /// The SOAP version of the request (the response is written in it).
    pub fn version(&self) -> Version {
        self.version
    }

    /// The SOAPAction (1.1) or `action` media-type parameter (1.2), unquoted.
    pub fn action(&self) -> Option<&str> {
        self.action.as_deref()
    }

    /// The peer's address, when the server knows it.
    pub fn peer(&self) -> Option<SocketAddr> {
        self.peer
    }

    /// What layers in front of the service attached to the request.
    pub fn extensions(&self) -> &Extensions {
        &self.extensions
    }

    /// The verified TLS client certificate of the connection, on mutual TLS.
    pub fn tls_client_cert(&self) -> Option<&TlsClientCert> {
        self.extensions.get::<TlsClientCert>()
    }

    /// The authenticated principal, when an authentication layer established one.
    pub fn principal(&self) -> Option<&Principal> {
        self.extensions.get::<Principal>()
    }

    /// The request's header blocks (name, mustUnderstand, role), in document order.
    pub fn header_blocks(&self) -> Result<Vec<HeaderBlock>, Fault> {
        Ok(self.envelope()?.headers().to_vec())
    }

    /// The raw markup of the first header block named `name` (prefixes declared on Envelope
    /// or Header are not repeated in it), or `None` when the request has none.
    pub fn header_xml(&self, name: &QName) -> Result<Option<String>, Fault> {
        let envelope = self.envelope()?;
        let index = envelope.headers().iter().position(|h| &h.name == name);
        Ok(index
            .and_then(|i| envelope.header_xml(i))
            .map(str::to_owned))
    }

    /// Decodes the first header block named `name` like a body wrapper (its children become
    /// `T`'s fields); `None` when the request has no such block. A block that does not decode
    /// is a Client fault naming it.
    pub fn header<T: DeserializeOwned>(&self, name: &QName) -> Result<Option<T>, Fault> {
        let envelope = self.envelope()?;
        let Some(index) = envelope.headers().iter().position(|h| &h.name == name) else {
            return Ok(None);
        };
        envelope.header(index, self.style).map(Some).map_err(|e| {
            let mut fault = Fault::from(&e);
            fault.reason = format!("header `{}`: {}", name.local, fault.reason);
            fault
        })
    }

    /// Adds a literal header block to the response: `value`'s fields become the children of an
    /// element `name`, qualified in its namespace (see [`codec::encode_header_block`]).
    pub fn add_header<T: Serialize>(&self, name: &QName, value: &T) -> Result<(), Fault> {
        let mut xml = Vec::with_capacity(128);
        codec::encode_header_block(&mut xml, name, true, value)
            .map_err(|e| Fault::server(format!("cannot encode header `{}`: {e}", name.local)))?;
        // The writer only writes UTF-8 (it copies `&str`s and escapes).
        let xml = String::from_utf8(xml)
            .map_err(|_| Fault::server(format!("header `{}` is not UTF-8", name.local)))?;
        self.add_header_xml(xml);
        Ok(())
    }

    /// Adds a header block given as markup (one element, namespaces declared on it).
    pub fn add_header_xml(&self, xml: impl Into<String>) {
        self.response_headers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(xml.into());
    }

    /// The response header blocks added so far, taken out (the dispatcher writes them).
    pub fn take_response_headers(&self) -> Vec<String> {
        std::mem::take(
            &mut *self
                .response_headers
                .lock()
                .unwrap_or_else(|e| e.into_inner()),
        )
    }

    fn envelope(&self) -> Result<Envelope<'_>, Fault> {
        Envelope::parse(&self.message, &self.limits).map_err(|e| Fault::from(&e))
    }
}
