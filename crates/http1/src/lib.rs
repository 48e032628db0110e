//! The HTTP/1.1 framing of soapstone's lean engines, in one place: the server's connection
//! loop (`soapstone-server`, `lean/`), the client's exchange (`soapstone-client`, `lean.rs`)
//! and the load generator's (`soapstone-bench`, `conn/http.rs`). They parse heads with
//! `httparse` (the parser hyper uses), frame bodies by one strict `Content-Length` (the
//! client and the generator also read chunked ([`chunked`]) and read-to-EOF answers), read
//! `Connection` the same way and write heads without allocating; this crate holds those rules
//! once, with their tests, so that the sides cannot drift apart.
//!
//! Why hand-written over `httparse` rather than hyper: measured with callgrind on one
//! echoFloat request (docs/performance.md, round three), the server's lean loop costs 0.80x
//! the instructions of the same server on hyper (33,963 against 42,332 per request) and
//! none of hyper's 7 allocations per request (a body channel, the read buffer split off and
//! grown again, a boxed `Sleep` per head, a `HeaderMap` per response, a copied `SOAPAction`
//! name); the client's exchange cost 0.61x the instructions of hyper's client connection
//! and none of its 8 allocations per call. SOAP needs one request shape; hyper stays behind
//! both for everything else (TLS on the client, unusual requests on the server).
//!
//! It must never: do I/O (callers read and write), accept a `Content-Length` that is not
//! plain digits or that disagrees with another, decide a body boundary any way RFC 9112
//! section 6.3 does not, or allocate on the path of a well-formed head.

pub mod chunked;
pub mod request;
#[cfg(test)]
mod request_fuzz;
pub mod response;
mod write;

pub use write::{write_answer_head, write_decimal, write_response_head, After};

/// Headers parsed in place per head (hyper's own default); a head with more is refused (the
/// client) or handed to hyper (the server, when its `max_headers` is larger).
pub const MAX_HEADERS: usize = 100;

/// A `Content-Length` value: ASCII digits only (RFC 9110 section 8.6: no sign, no list, no
/// inner space), at most 19 of them, surrounding spaces ignored; `None` otherwise.
pub fn content_length(value: &[u8]) -> Option<u64> {
    let v = value.trim_ascii();
    if v.is_empty() || v.len() > 19 {
        return None;
    }
    // One pass, checking and adding (19 digits stay under `u64::MAX`): a check of every byte
    // first and a checked fold after took about 100 instructions for three digits
    // (callgrind).
    let mut n = 0u64;
    for &d in v {
        if !d.is_ascii_digit() {
            return None;
        }
        n = n * 10 + u64::from(d - b'0');
    }
    Some(n)
}

/// What a `Connection` header's comma-separated tokens say (any case).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Connection {
    /// `close` is among them.
    pub close: bool,
    /// `keep-alive` is among them.
    pub keep_alive: bool,
}

impl Connection {
    /// Adds the tokens of one `Connection` header's `value`.
    pub fn read(&mut self, value: &[u8]) {
        for token in value.split(|&b| b == b',') {
            let token = token.trim_ascii();
            self.close |= token.eq_ignore_ascii_case(b"close");
            self.keep_alive |= token.eq_ignore_ascii_case(b"keep-alive");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_length_is_digits_only() {
        assert_eq!(content_length(b"628"), Some(628));
        assert_eq!(content_length(b" 0 "), Some(0));
        assert_eq!(
            content_length(b"9999999999999999999"),
            Some(9_999_999_999_999_999_999)
        );
        for bad in [
            &b""[..],
            b"+5",
            b"-1",
            b"5,5",
            b"5 5",
            b"0x10",
            b"18446744073709551616",
            b"99999999999999999999",
        ] {
            assert_eq!(
                content_length(bad),
                None,
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
    }

    #[test]
    fn connection_tokens_in_any_case() {
        let mut c = Connection::default();
        c.read(b"foo, Close");
        assert_eq!(
            c,
            Connection {
                close: true,
                keep_alive: false
            }
        );
        let mut c = Connection::default();
        c.read(b"Keep-Alive");
        c.read(b"upgrade");
        assert!(c.keep_alive && !c.close);
        let mut c = Connection::default();
        c.read(b"closed, keep-alives");
        assert_eq!(c, Connection::default());
    }
}
