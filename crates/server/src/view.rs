//! What `dispatch` reads of a request, borrowed from whatever parsed it: hyper's
//! `http::Request` (the hyper engine and the tower service) or the lean loop's head bytes.
//!
//! It exists so that neither engine builds more than dispatch needs: the lean loop would
//! otherwise fill a `HeaderMap` (two allocations) per request only for dispatch to look five
//! headers up in it. It must never own or copy what it views.

use std::sync::OnceLock;

use http::{HeaderMap, Method, Version};
use soapstone_service::TlsClientCert;

use crate::negotiate::Negotiated;

pub(crate) use soapstone_http1::request::Known;

/// Header lookup by lower-case name; the first value when repeated.
pub(crate) trait Headers: Sync {
    fn get(&self, name: &str) -> Option<&[u8]>;

    /// One of the headers every SOAP request is read for: the lean head found them while it
    /// was parsed, a `HeaderMap` looks the name up.
    fn known(&self, header: Known) -> Option<&[u8]> {
        self.get(header.name())
    }
}

impl Headers for HeaderMap {
    fn get(&self, name: &str) -> Option<&[u8]> {
        HeaderMap::get(self, name).map(http::HeaderValue::as_bytes)
    }
}

/// One request as dispatch sees it.
pub(crate) struct RequestView<'a, B> {
    pub(crate) method: &'a Method,
    pub(crate) path: &'a str,
    pub(crate) query: Option<&'a str>,
    pub(crate) version: Version,
    /// The target's authority (absolute-form only), the host when `Host` is missing.
    pub(crate) authority: Option<&'a str>,
    pub(crate) headers: &'a dyn Headers,
    /// A verified TLS client certificate, for the authentication layer.
    pub(crate) client_cert: Option<&'a TlsClientCert>,
    /// Where the connection keeps what dispatch makes of this head, for the next head that
    /// repeats it (the lean loop's; `None` from hyper and the tower service): full when it
    /// was made from this very head, and dispatch then reads it instead of the headers.
    pub(crate) recall: Option<&'a OnceLock<Negotiated>>,
    pub(crate) body: B,
}

impl<'a, B> RequestView<'a, B> {
    /// The view of an `http::Request` taken apart.
    pub(crate) fn of(parts: &'a http::request::Parts, body: B) -> Self {
        RequestView {
            method: &parts.method,
            path: parts.uri.path(),
            query: parts.uri.query(),
            version: parts.version,
            authority: parts.uri.authority().map(http::uri::Authority::as_str),
            headers: &parts.headers,
            client_cert: parts.extensions.get::<TlsClientCert>(),
            recall: None,
            body,
        }
    }

    /// A header's value as text, if it is.
    pub(crate) fn header_str(&self, name: &str) -> Option<&'a str> {
        std::str::from_utf8(self.headers.get(name)?).ok()
    }

    /// What the connection remembers of this head, if it made it from this very head.
    pub(crate) fn recalled(&self) -> Option<&'a Negotiated> {
        self.recall.and_then(OnceLock::get)
    }

    /// A [`Known`] header's value.
    pub(crate) fn known(&self, header: Known) -> Option<&'a [u8]> {
        self.headers.known(header)
    }
}
