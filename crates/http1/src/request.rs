//! A request head, parsed by `httparse` into offsets and checked for the one shape the lean
//! server engine frames itself; everything else is named [`Parsed::Unusual`] for the server
//! to hand to hyper.
//!
//! It must never accept a head hyper would frame differently: a second `Content-Length`, a
//! `Transfer-Encoding`, an `Expect`, an `Upgrade` or a target that is not a path are all
//! [`Parsed::Unusual`], so the lean loop can never read a body boundary wrong (request
//! smuggling).

use std::mem::MaybeUninit;

use http::Method;

use crate::{content_length, Connection, MAX_HEADERS};

/// What the bytes so far hold.
#[derive(Debug)]
pub enum Parsed {
    /// Not a whole head yet.
    Partial,
    /// A head of the common shape, now in the [`Head`] given to [`parse`].
    Complete,
    /// Over the byte or header limit: `431`.
    TooLarge,
    /// Not an HTTP/1.x request head: `400`, with the reason.
    Invalid(String),
    /// HTTP the lean loop leaves to hyper.
    Unusual,
}

/// The headers a SOAP server reads on every request, found once while the head is parsed
/// (their first occurrence), so that reading one is an index, not a scan of every header
/// name again ([`Head::known`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Known {
    /// `Content-Type`.
    ContentType,
    /// `Content-Length`.
    ContentLength,
    /// `Content-Encoding`.
    ContentEncoding,
    /// `Accept-Encoding`.
    AcceptEncoding,
    /// `SOAPAction`.
    SoapAction,
    /// `Host`.
    Host,
}

impl Known {
    const COUNT: usize = 6;

    /// The header's name, lower-case.
    pub const fn name(self) -> &'static str {
        match self {
            Known::ContentType => "content-type",
            Known::ContentLength => "content-length",
            Known::ContentEncoding => "content-encoding",
            Known::AcceptEncoding => "accept-encoding",
            Known::SoapAction => "soapaction",
            Known::Host => "host",
        }
    }
}

// `Head::known` keeps header indexes plus one in a `u8`.
const _: () = assert!(MAX_HEADERS < 255);

/// What a header name means to [`parse`].
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Known(Known),
    /// `Transfer-Encoding`, `Expect`, `Upgrade`: framing the lean engines leave to hyper.
    Unusual,
    Connection,
    Other,
}

/// `name` is `lower` (lower-case letters and `-` only) in any case. Exact for token
/// characters, which is all `httparse` lets through a header name: the only bytes that `| 0x20`
/// maps onto a lower-case letter are its two cases, and onto `-` are `-` and CR.
fn is(name: &[u8], lower: &[u8]) -> bool {
    name.len() == lower.len()
        && name
            .iter()
            .zip(lower)
            .fold(0, |diff, (&a, &b)| diff | ((a | 0x20) ^ b))
            == 0
}

/// Classifies a header name (a token, any case) by its length first: one comparison at most.
fn classify(name: &[u8]) -> Class {
    let (class, lower): (Class, &[u8]) = match name.len() {
        4 => (Class::Known(Known::Host), b"host"),
        6 => (Class::Unusual, b"expect"),
        7 => (Class::Unusual, b"upgrade"),
        10 if name[0] | 0x20 == b'c' => (Class::Connection, b"connection"),
        10 => (Class::Known(Known::SoapAction), b"soapaction"),
        12 => (Class::Known(Known::ContentType), b"content-type"),
        14 => (Class::Known(Known::ContentLength), b"content-length"),
        15 => (Class::Known(Known::AcceptEncoding), b"accept-encoding"),
        16 => (Class::Known(Known::ContentEncoding), b"content-encoding"),
        17 => (Class::Unusual, b"transfer-encoding"),
        _ => return Class::Other,
    };
    if is(name, lower) {
        class
    } else {
        Class::Other
    }
}

#[derive(Clone, Copy, Default)]
struct Field {
    name: (usize, usize),
    value: (usize, usize),
}

/// A request head of the common shape, as offsets into the bytes it was parsed from (kept per
/// connection: it is too large to move around per request).
pub struct Head {
    /// Bytes of the head, blank line included.
    pub len: usize,
    /// The method.
    pub method: Method,
    target: (usize, usize),
    /// An HTTP/1.0 request (else 1.1).
    pub http10: bool,
    /// The body's length (0 without `Content-Length`: no body).
    pub content_length: u64,
    /// The connection stays open after the answer, as far as the client is concerned.
    pub keep_alive: bool,
    fields: [Field; MAX_HEADERS],
    count: usize,
    /// Per [`Known`] header, its index in `fields` plus one (`0`: absent).
    known: [u8; Known::COUNT],
    /// The bytes of the head this one holds, when it was parsed whole and is at most
    /// [`REMEMBERED`] bytes (else empty): the next head is compared with them.
    last: Vec<u8>,
    /// Where its `Content-Length` value lies in `last`.
    last_length: Option<(usize, usize)>,
    /// Whether this head was found by comparing it with the last one ([`Head::repeats`]).
    repeated: bool,
}

/// The longest head a [`Head`] keeps a copy of (a client's SOAP request head is 150 to 300
/// bytes): a connection holds at most this much for it.
const REMEMBERED: usize = 1 << 10;

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
            known: [0; Known::COUNT],
            last: Vec::new(),
            last_length: None,
            repeated: false,
        }
    }
}

impl Head {
    /// Whether the head [`parse`] found last is byte for byte the one this `Head` held before
    /// it, but for the digits of its `Content-Length` (as many as before): then everything
    /// read from its method, target, version and other headers is what it was, and a caller
    /// may reuse what it made of them (the server keeps its negotiation of the media type,
    /// action and codings per connection). `false` after a head parsed in full, and after any
    /// parse that did not complete.
    pub fn repeats(&self) -> bool {
        self.repeated
    }

    /// The request target, out of `bytes` (those the head was parsed from, or a copy).
    pub fn target<'b>(&self, bytes: &'b [u8]) -> &'b [u8] {
        &bytes[self.target.0..self.target.1]
    }

    /// The first header called `name` (any case), out of `bytes`: a scan over a handful of
    /// headers beats a map that must be built first.
    pub fn header<'b>(&self, bytes: &'b [u8], name: &str) -> Option<&'b [u8]> {
        self.fields[..self.count]
            .iter()
            .find(|f| bytes[f.name.0..f.name.1].eq_ignore_ascii_case(name.as_bytes()))
            .map(|f| &bytes[f.value.0..f.value.1])
    }

    /// The first `header` of the [`Known`] ones, out of `bytes`: found by [`parse`] already.
    pub fn known<'b>(&self, bytes: &'b [u8], header: Known) -> Option<&'b [u8]> {
        let i = usize::from(self.known[header as usize]).checked_sub(1)?;
        let f = &self.fields[i];
        Some(&bytes[f.value.0..f.value.1])
    }

    /// Whether `buf` starts with the head this one holds, but for the digits of its
    /// `Content-Length` (as many as before, and only digits), now read into it: then `parse`
    /// would find the same head at the same offsets, as the same bytes read the same way. A
    /// client sends the same head call after call; comparing it costs a tenth of parsing it.
    fn same_as_last(&mut self, buf: &[u8], max_bytes: usize, max_headers: usize) -> bool {
        let last = &self.last[..];
        if last.is_empty()
            || buf.len() < last.len()
            || last.len() > max_bytes
            || self.count > max_headers
        {
            return false;
        }
        let Some((at, end)) = self.last_length else {
            return buf.starts_with(last);
        };
        let value = &buf[at..end];
        let same = buf.starts_with(&last[..at])
            && buf[end..].starts_with(&last[end..])
            && value.iter().all(u8::is_ascii_digit);
        match content_length(value) {
            Some(n) if same => {
                self.content_length = n;
                true
            }
            _ => false,
        }
    }
}

/// Parses the head at the start of `buf` into `head`: at most `max_bytes` bytes and
/// `max_headers` headers (past [`MAX_HEADERS`], a head with more is `Unusual`).
pub fn parse(buf: &[u8], max_bytes: usize, max_headers: usize, head: &mut Head) -> Parsed {
    head.repeated = head.same_as_last(buf, max_bytes, max_headers);
    if head.repeated {
        return Parsed::Complete;
    }
    // What `head` holds is overwritten below, or left half-written by a head that is not of
    // the common shape: either way it is not the last head's any more.
    head.last.clear();
    // Left uninitialised: zeroing 100 headers costs more than parsing the head (callgrind).
    let mut headers = [const { MaybeUninit::uninit() }; MAX_HEADERS];
    let mut req = httparse::Request::new(&mut []);
    let parsed = httparse::ParserConfig::default().parse_request_with_uninit_headers(
        &mut req,
        buf,
        &mut headers[..max_headers.min(MAX_HEADERS)],
    );
    let len = match parsed {
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
    let mut length = None;
    let mut length_at = None;
    let mut connection = Connection::default();
    let mut known = [0u8; Known::COUNT];
    for (i, h) in req.headers.iter().enumerate() {
        let name = h.name.as_bytes();
        match classify(name) {
            Class::Known(k) => {
                if k == Known::ContentLength {
                    match (content_length(h.value), length) {
                        (Some(n), None) => length = Some(n),
                        _ => return Parsed::Unusual, // invalid or repeated: hyper's to refuse
                    }
                    length_at = Some(range(h.value));
                }
                let slot = &mut known[k as usize];
                if *slot == 0 {
                    // At most `MAX_HEADERS` (100) headers: `i + 1` fits.
                    *slot = (i + 1) as u8;
                }
            }
            Class::Unusual => return Parsed::Unusual,
            Class::Connection => connection.read(h.value),
            Class::Other => {}
        }
        head.fields[i] = Field {
            name: range(name),
            value: range(h.value),
        };
    }
    head.count = req.headers.len();
    head.known = known;
    head.len = len;
    head.method = method;
    head.target = range(target.as_bytes());
    head.http10 = http10;
    head.content_length = length.unwrap_or(0);
    head.keep_alive = !connection.close && (!http10 || connection.keep_alive);
    if len <= REMEMBERED {
        head.last.extend_from_slice(&buf[..len]);
        head.last_length = length_at;
    }
    Parsed::Complete
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
            b"POST /echo HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n",
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
        assert_eq!(h.header(buf, "soapaction"), Some(&b"\"a\""[..]));
        assert_eq!(h.header(buf, "host"), Some(&b"h"[..]));
        assert_eq!(h.header(buf, "content-type"), None);
        assert_eq!(h.target(buf), b"/echo?x=1");
    }

    #[test]
    fn known_headers_are_classified_exactly_as_by_any_case_comparison() {
        // Every name of a known length that differs from a known one in one byte, that byte
        // any token character: classified as the known header exactly when it is one.
        let tchars: Vec<u8> = (0u8..=127)
            .filter(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(b))
            .collect();
        let names = [
            "host",
            "expect",
            "upgrade",
            "connection",
            "soapaction",
            "content-type",
            "content-length",
            "accept-encoding",
            "content-encoding",
            "transfer-encoding",
        ];
        for name in names {
            for at in 0..name.len() {
                for &b in &tchars {
                    let mut n = name.as_bytes().to_vec();
                    n[at] = b;
                    let want = names.iter().find(|k| n.eq_ignore_ascii_case(k.as_bytes()));
                    let got = classify(&n);
                    let expected = match want.copied() {
                        None => Class::Other,
                        Some("expect" | "upgrade" | "transfer-encoding") => Class::Unusual,
                        Some("connection") => Class::Connection,
                        Some(k) => Class::Known(
                            [
                                Known::ContentType,
                                Known::ContentLength,
                                Known::ContentEncoding,
                                Known::AcceptEncoding,
                                Known::SoapAction,
                                Known::Host,
                            ]
                            .into_iter()
                            .find(|x| x.name() == k)
                            .unwrap(),
                        ),
                    };
                    assert!(got == expected, "{}", String::from_utf8_lossy(&n));
                }
            }
        }
    }

    #[test]
    fn known_headers_are_the_first_of_their_name() {
        let buf = b"POST / HTTP/1.1\r\nHOST: a\r\nsoapAction: \"x\"\r\nSOAPAction: y\r\nX-Soap-Act: z\r\n\r\n";
        let mut h = Head::default();
        assert!(matches!(parse(buf, 1 << 10, 100, &mut h), Parsed::Complete));
        assert_eq!(h.known(buf, Known::SoapAction), Some(&b"\"x\""[..]));
        assert_eq!(h.known(buf, Known::Host), Some(&b"a"[..]));
        assert_eq!(h.known(buf, Known::ContentType), None);
        let again = b"POST / HTTP/1.1\r\nContent-Type: t\r\n\r\n";
        assert!(matches!(
            parse(again, 1 << 10, 100, &mut h),
            Parsed::Complete
        ));
        assert_eq!(h.known(again, Known::SoapAction), None);
        assert_eq!(h.known(again, Known::ContentType), Some(&b"t"[..]));
    }

    #[test]
    fn a_head_parsed_again_forgets_the_headers_before() {
        let mut h = Head::default();
        let first = b"POST / HTTP/1.1\r\nSOAPAction: a\r\nX: y\r\n\r\n";
        assert!(matches!(
            parse(first, 1 << 10, 100, &mut h),
            Parsed::Complete
        ));
        let second = b"GET / HTTP/1.1\r\nHost: h\r\n\r\n";
        assert!(matches!(
            parse(second, 1 << 10, 100, &mut h),
            Parsed::Complete
        ));
        assert_eq!(h.header(second, "soapaction"), None);
        assert_eq!(h.method, Method::GET);
    }

    #[test]
    fn a_head_repeats_the_last_one_only_byte_for_byte_but_for_its_length() {
        let head = |len: &str, action: &str| {
            format!("POST /a HTTP/1.1\r\nSOAPAction: \"{action}\"\r\nContent-Length: {len}\r\n\r\n")
        };
        let mut h = Head::default();
        let mut repeats = |buf: String| {
            let parsed = parse(buf.as_bytes(), 1 << 10, 100, &mut h);
            (matches!(parsed, Parsed::Complete), h.repeats())
        };
        assert_eq!(repeats(head("12", "x")), (true, false), "the first head");
        assert_eq!(repeats(head("12", "x")), (true, true), "the same bytes");
        assert_eq!(repeats(head("57", "x")), (true, true), "other digits");
        assert_eq!(repeats(head("5", "x")), (true, false), "fewer digits");
        assert_eq!(repeats(head("7", "x")), (true, true));
        assert_eq!(repeats(head("7", "y")), (true, false), "another action");
        assert_eq!(
            repeats(head("7", "y")[..20].to_owned()),
            (false, false),
            "a part"
        );
        // A part is parsed in full (and fails): the head before is forgotten.
        assert_eq!(repeats(head("7", "y")), (true, false), "whole again");
        assert_eq!(repeats(head("7", "y")), (true, true));
        let other = "GET /a HTTP/1.1\r\n\r\n".to_owned();
        assert_eq!(
            repeats(other.clone()),
            (true, false),
            "a head without a length"
        );
        assert_eq!(repeats(other), (true, true));
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
        let lots: String = (0..120).map(|i| format!("X-{i}: v\r\n")).collect();
        let head = format!("GET / HTTP/1.1\r\n{lots}\r\n");
        assert!(matches!(
            parse(head.as_bytes(), 16 << 10, 200, &mut h),
            Parsed::Unusual
        ));
    }
}
