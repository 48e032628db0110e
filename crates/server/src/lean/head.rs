//! One request head, parsed by `httparse` (the parser hyper uses) and checked for the one
//! shape the lean loop serves; everything else is named [`Parsed::Unusual`] and goes to
//! hyper.
//!
//! It must never accept a head hyper would frame differently: a second `Content-Length`, a
//! `Transfer-Encoding`, an `Expect`, an `Upgrade` or a target that is not a path are all left
//! to hyper, so the lean loop can never read a body boundary wrong (request smuggling).

use bytes::Bytes;
use http::{Method, Version};
use soapstone_service::TlsClientCert;

use crate::view::{Headers, RequestView};

/// Headers parsed in place (hyper's own default); a larger `max_headers` sends a head with
/// more to hyper.
pub(crate) const MAX_HEADERS: usize = 100;

/// What the bytes so far hold.
pub(crate) enum Parsed {
    /// Not a whole head yet.
    Partial,
    /// A head of the common shape, now in the `Head` given to [`parse`].
    Complete,
    /// Over `max_header_bytes` or `max_headers`: `431`.
    TooLarge,
    /// Not an HTTP/1.x request head: `400`.
    Invalid(String),
    /// HTTP the lean loop leaves to hyper.
    Unusual,
}

#[derive(Clone, Copy, Default)]
struct Field {
    name: (usize, usize),
    value: (usize, usize),
}

/// A request head of the common shape, as offsets into the bytes it was parsed from.
pub(crate) struct Head {
    /// Bytes of the head, blank line included.
    pub(crate) len: usize,
    pub(crate) method: Method,
    target: (usize, usize),
    pub(crate) http10: bool,
    /// The body's length (0 without `Content-Length`: no body).
    pub(crate) content_length: u64,
    /// The connection stays open after the answer, as far as the client is concerned.
    pub(crate) keep_alive: bool,
    fields: [Field; MAX_HEADERS],
    count: usize,
    /// The head's bytes, once split off the read buffer (offsets above are into them).
    pub(crate) bytes: Bytes,
}

/// Parses the head at the start of `buf` into `head` (kept per connection: it is too large
/// to move around per request).
pub(crate) fn parse(buf: &[u8], max_bytes: usize, max_headers: usize, head: &mut Head) -> Parsed {
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut req = httparse::Request::new(&mut headers[..max_headers.min(MAX_HEADERS)]);
    let len = match req.parse(buf) {
        Ok(httparse::Status::Complete(n)) => n,
        Ok(httparse::Status::Partial) if buf.len() >= max_bytes => return Parsed::TooLarge,
        Ok(httparse::Status::Partial) => return Parsed::Partial,
        Err(httparse::Error::TooManyHeaders) if max_headers > MAX_HEADERS => {
            return Parsed::Unusual
        }
        Err(httparse::Error::TooManyHeaders) => return Parsed::TooLarge,
        Err(e) => return Parsed::Invalid(format!("invalid request head: {e}")),
    };
    if len > max_bytes {
        return Parsed::TooLarge;
    }
    let base = buf.as_ptr() as usize;
    let range = |s: &[u8]| {
        let start = s.as_ptr() as usize - base;
        (start, start + s.len())
    };
    let (Some(method), Some(target), Some(minor)) = (req.method, req.path, req.version) else {
        return Parsed::Invalid("invalid request head".into());
    };
    let Ok(method) = Method::from_bytes(method.as_bytes()) else {
        return Parsed::Invalid(format!("invalid method `{method}`"));
    };
    if !target.starts_with('/') {
        return Parsed::Unusual; // absolute-form or `*`
    }
    let http10 = minor == 0;
    let mut content_length = None;
    let (mut close, mut keep_alive) = (false, false);
    for (i, h) in req.headers.iter().enumerate() {
        let name = h.name.as_bytes();
        if name.eq_ignore_ascii_case(b"content-length") {
            match (parse_length(h.value), content_length) {
                (Some(n), None) => content_length = Some(n),
                _ => return Parsed::Unusual, // invalid or repeated: hyper's to refuse
            }
        } else if name.eq_ignore_ascii_case(b"transfer-encoding")
            || name.eq_ignore_ascii_case(b"expect")
            || name.eq_ignore_ascii_case(b"upgrade")
        {
            return Parsed::Unusual;
        } else if name.eq_ignore_ascii_case(b"connection") {
            for token in h.value.split(|&b| b == b',') {
                let token = token.trim_ascii();
                close |= token.eq_ignore_ascii_case(b"close");
                keep_alive |= token.eq_ignore_ascii_case(b"keep-alive");
            }
        }
        head.fields[i] = Field {
            name: range(name),
            value: range(h.value),
        };
    }
    head.count = req.headers.len();
    head.len = len;
    head.method = method;
    head.target = range(target.as_bytes());
    head.http10 = http10;
    head.content_length = content_length.unwrap_or(0);
    head.keep_alive = !close && (!http10 || keep_alive);
    Parsed::Complete
}

impl Default for Head {
    fn default() -> Self {
        Head {
            len: 0,
            method: Method::GET,
            target: (0, 0),
            http10: false,
            content_length: 0,
            keep_alive: true,
            fields: [Field::default(); MAX_HEADERS],
            count: 0,
            bytes: Bytes::new(),
        }
    }
}

/// `Content-Length`'s value: digits only (RFC 9110 8.6), no sign, no list.
fn parse_length(v: &[u8]) -> Option<u64> {
    let v = v.trim_ascii();
    if v.is_empty() || v.len() > 19 || !v.iter().all(u8::is_ascii_digit) {
        return None;
    }
    v.iter().try_fold(0u64, |n, d| {
        n.checked_mul(10)?.checked_add(u64::from(d - b'0'))
    })
}

impl Head {
    /// The view dispatch reads, borrowing this head and its bytes (`bytes`, set once the
    /// head is split off the read buffer).
    pub(crate) fn view<'a, B>(
        &'a self,
        body: B,
        client_cert: Option<&'a TlsClientCert>,
    ) -> Result<RequestView<'a, B>, String> {
        let target = std::str::from_utf8(&self.bytes[self.target.0..self.target.1])
            .map_err(|_| "invalid request target: not utf-8".to_owned())?;
        let (path, query) = match target.split_once('?') {
            Some((path, query)) => (path, Some(query)),
            None => (target, None),
        };
        Ok(RequestView {
            method: &self.method,
            path,
            query,
            version: if self.http10 {
                Version::HTTP_10
            } else {
                Version::HTTP_11
            },
            authority: None,
            headers: self,
            client_cert,
            body,
        })
    }
}

/// Looked up in place: a scan over a handful of headers beats a map that must be built first.
impl Headers for Head {
    fn get(&self, name: &str) -> Option<&[u8]> {
        self.fields[..self.count]
            .iter()
            .find(|f| self.bytes[f.name.0..f.name.1].eq_ignore_ascii_case(name.as_bytes()))
            .map(|f| &self.bytes[f.value.0..f.value.1])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_all(buf: &[u8]) -> Parsed {
        parse(buf, 16 << 10, 100, &mut Head::default())
    }

    #[test]
    fn the_common_shape_is_served_and_the_rest_left_to_hyper() {
        let ok = b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello";
        let mut h = Head::default();
        assert!(matches!(parse(ok, 16 << 10, 100, &mut h), Parsed::Complete));
        assert_eq!(
            (h.len, h.content_length, h.keep_alive),
            (ok.len() - 5, 5, true)
        );
        for unusual in [
            &b"POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"[..],
            b"POST /echo HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n",
            b"POST /echo HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n",
            b"POST /echo HTTP/1.1\r\nContent-Length: +5\r\n\r\n",
            b"GET /echo HTTP/1.1\r\nUpgrade: h2c\r\n\r\n",
            b"GET http://x/echo HTTP/1.1\r\n\r\n",
        ] {
            assert!(
                matches!(parse_all(unusual), Parsed::Unusual),
                "{}",
                String::from_utf8_lossy(unusual)
            );
        }
        assert!(matches!(
            parse_all(b"POST /echo HTTP/1.1\r\nHo"),
            Parsed::Partial
        ));
        assert!(matches!(parse_all(b"GARBAGE\r\n\r\n"), Parsed::Invalid(_)));
    }

    #[test]
    fn headers_are_found_in_place_by_any_case() {
        let buf = b"POST /echo?x=1 HTTP/1.1\r\nSOAPAction: \"a\"\r\nHost: h\r\n\r\n";
        let mut h = Head::default();
        assert!(matches!(parse(buf, 1 << 10, 100, &mut h), Parsed::Complete));
        h.bytes = Bytes::copy_from_slice(&buf[..h.len]);
        assert_eq!(h.get("soapaction"), Some(&b"\"a\""[..]));
        assert_eq!(h.get("host"), Some(&b"h"[..]));
        assert_eq!(h.get("content-type"), None);
        let v = h.view((), None).unwrap();
        assert_eq!((v.path, v.query), ("/echo", Some("x=1")));
    }

    #[test]
    fn http10_closes_unless_asked_and_close_is_heard() {
        let keep = |buf: &[u8]| {
            let mut h = Head::default();
            assert!(matches!(parse(buf, 1 << 10, 100, &mut h), Parsed::Complete));
            h.keep_alive
        };
        assert!(!keep(b"GET / HTTP/1.0\r\n\r\n"));
        assert!(keep(b"GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n"));
        assert!(!keep(b"GET / HTTP/1.1\r\nConnection: foo, close\r\n\r\n"));
    }

    #[test]
    fn limits_name_the_head_too_large() {
        let many: String = (0..12).map(|i| format!("X-{i}: v\r\n")).collect();
        let head = format!("GET / HTTP/1.1\r\n{many}\r\n");
        let mut h = Head::default();
        assert!(matches!(
            parse(head.as_bytes(), 1 << 10, 10, &mut h),
            Parsed::TooLarge
        ));
        assert!(matches!(
            parse(head.as_bytes(), 20, 100, &mut h),
            Parsed::TooLarge
        ));
        assert!(matches!(
            parse(b"GET / HT", 8, 100, &mut h),
            Parsed::TooLarge
        ));
    }
}
