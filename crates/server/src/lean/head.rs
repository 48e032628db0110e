//! One request head as the lean loop keeps it: the shared parse (`soapstone_http1::request`,
//! which decides what the lean loop frames itself and what goes to hyper) and the head's bytes
//! once taken off the read buffer, read by dispatch through [`RequestView`].
//!
//! It must never hand dispatch a header or target from other bytes than the head's own.

use std::ops::Deref;
use std::sync::OnceLock;

use bytes::{Buf, BytesMut};
use http::Version;
use soapstone_http1::request;
use soapstone_service::TlsClientCert;

use crate::negotiate::Negotiated;
use crate::view::{Headers, Known, RequestView};

pub(crate) use request::Parsed;

/// A parsed head and its bytes (kept per connection: too large to move around per request).
#[derive(Default)]
pub(crate) struct Head {
    parsed: request::Head,
    /// The head's bytes, once taken off the read buffer (the parse's offsets are into them):
    /// copied into a buffer the connection keeps ([`Head::take_bytes`]).
    bytes: Vec<u8>,
    /// What dispatch made of this head: kept while the heads that follow repeat it
    /// ([`request::Head::repeats`]), emptied by the first that does not.
    negotiated: OnceLock<Negotiated>,
}

impl Deref for Head {
    type Target = request::Head;

    fn deref(&self) -> &request::Head {
        &self.parsed
    }
}

/// Parses the head at the start of `buf` into `head` (see [`request::parse`]).
pub(crate) fn parse(buf: &[u8], max_bytes: usize, max_headers: usize, head: &mut Head) -> Parsed {
    let parsed = request::parse(buf, max_bytes, max_headers, &mut head.parsed);
    if !head.parsed.repeats() {
        head.negotiated.take();
    }
    parsed
}

impl Head {
    /// Takes the parsed head's bytes off the front of `rbuf` into this head's own buffer.
    /// Copied, not split off as shared `Bytes`: a split and the drop of its part are two
    /// locked instructions on the buffer's reference count (about 20 cycles each, which
    /// callgrind counts as two instructions) and about 40 instructions of bookkeeping, where
    /// a head of a couple of hundred bytes copies in about 30.
    pub(crate) fn take_bytes(&mut self, rbuf: &mut BytesMut) {
        self.bytes.clear();
        self.bytes.extend_from_slice(&rbuf[..self.parsed.len]);
        rbuf.advance(self.parsed.len);
    }

    /// Forgets the head's bytes once the request is answered; a buffer grown past
    /// [`KEEP`](super::KEEP) by a large head is given back.
    pub(crate) fn clear_bytes(&mut self) {
        if self.bytes.capacity() > super::KEEP {
            self.bytes = Vec::new();
        } else {
            self.bytes.clear();
        }
    }

    /// The view dispatch reads, borrowing this head and its bytes (set by
    /// [`Head::take_bytes`]).
    pub(crate) fn view<'a, B>(
        &'a self,
        body: B,
        client_cert: Option<&'a TlsClientCert>,
    ) -> Result<RequestView<'a, B>, String> {
        if let Some(n) = self.negotiated.get() {
            // This head repeats the one it was made from: the same target.
            return Ok(self.view_with(n.path.as_str(), n.query.as_deref(), body, client_cert));
        }
        // Split by bytes, then checked: `str::split_once(char)`'s searcher cost 81
        // instructions a request for `/echo` (callgrind).
        let target = self.parsed.target(&self.bytes);
        let utf8 =
            |b| std::str::from_utf8(b).map_err(|_| "invalid request target: not utf-8".to_owned());
        let (path, query) = match target.iter().position(|&b| b == b'?') {
            Some(at) => (utf8(&target[..at])?, Some(utf8(&target[at + 1..])?)),
            None => (utf8(target)?, None),
        };
        Ok(self.view_with(path, query, body, client_cert))
    }

    fn view_with<'a, B>(
        &'a self,
        path: &'a str,
        query: Option<&'a str>,
        body: B,
        client_cert: Option<&'a TlsClientCert>,
    ) -> RequestView<'a, B> {
        RequestView {
            method: &self.parsed.method,
            path,
            query,
            version: if self.parsed.http10 {
                Version::HTTP_10
            } else {
                Version::HTTP_11
            },
            authority: None,
            headers: self,
            client_cert,
            recall: Some(&self.negotiated),
            body,
        }
    }
}

/// Looked up in place: a scan over a handful of headers beats a map that must be built first.
impl Headers for Head {
    fn get(&self, name: &str) -> Option<&[u8]> {
        self.parsed.header(&self.bytes, name)
    }

    fn known(&self, header: Known) -> Option<&[u8]> {
        self.parsed.known(&self.bytes, header)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_view_reads_the_heads_own_bytes() {
        let buf = b"POST /echo?x=1 HTTP/1.1\r\nSOAPAction: \"a\"\r\nHost: h\r\n\r\n<body/>";
        let mut h = Head::default();
        assert!(matches!(parse(buf, 1 << 10, 100, &mut h), Parsed::Complete));
        let mut rbuf = BytesMut::from(&buf[..]);
        h.take_bytes(&mut rbuf);
        // The body's bytes are left to read, and the head's are its own.
        assert_eq!(&rbuf[..], b"<body/>");
        rbuf.clear();
        rbuf.extend_from_slice(b"GET /other HTTP/1.1\r\n\r\n");
        assert_eq!(h.get("soapaction"), Some(&b"\"a\""[..]));
        assert_eq!(h.known(Known::SoapAction), Some(&b"\"a\""[..]));
        assert_eq!(h.known(Known::Host), Some(&b"h"[..]));
        assert_eq!(h.known(Known::ContentType), None);
        let v = h.view((), None).unwrap();
        assert_eq!((v.path, v.query), ("/echo", Some("x=1")));
        assert_eq!(v.version, Version::HTTP_11);
    }
}
