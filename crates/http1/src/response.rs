//! A response head, parsed by `httparse`: its status, how its body ends and whether the
//! connection survives it (RFC 9112 section 6.3's framing, `Connection: close`, HTTP/1.0),
//! the rules the lean client exchange reads answers by.
//!
//! It must never accept a `Content-Length` that is not plain digits or that disagrees with
//! another, or a transfer coding other than `chunked` (and `identity`), since a body boundary
//! read wrong desynchronises every later answer on the connection.

use std::fmt;
use std::mem::MaybeUninit;

use crate::{content_length, Connection, MAX_HEADERS};

/// How the body of an answer ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// After this many bytes.
    Length(usize),
    /// Chunked transfer coding.
    Chunked,
    /// When the server closes the connection.
    Eof,
}

/// What a response head says about framing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Head {
    /// The status code.
    pub status: u16,
    /// Bytes of the head, blank line included.
    pub len: usize,
    /// How the body ends.
    pub framing: Framing,
    /// The connection ends after this answer (HTTP/1.0, `Connection: close`, both framings,
    /// `101`, or a body read to EOF).
    pub close: bool,
}

/// A response head that cannot be framed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// Not an HTTP/1.x response head (or more than [`MAX_HEADERS`] headers).
    Malformed(httparse::Error),
    /// A `Content-Length` that is not plain digits (its value).
    InvalidLength(String),
    /// A `Content-Length` that disagrees with an earlier one (its value).
    ConflictingLength(String),
    /// A transfer coding other than `chunked` (the header's value).
    UnsupportedCoding(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Malformed(e) => write!(f, "malformed response head: {e}"),
            Error::InvalidLength(v) => write!(f, "invalid content-length `{v}`"),
            Error::ConflictingLength(v) => write!(f, "conflicting content-length `{v}`"),
            Error::UnsupportedCoding(v) => write!(f, "unsupported transfer-encoding `{v}`"),
        }
    }
}

impl std::error::Error for Error {}

/// The head at the start of `buf`, if whole; `other` sees every header this module does not
/// read itself (all but `Content-Length`, `Transfer-Encoding` and `Connection`).
pub fn parse(buf: &[u8], mut other: impl FnMut(&[u8], &[u8])) -> Result<Option<Head>, Error> {
    if buf.is_empty() {
        return Ok(None);
    }
    // Left uninitialised: zeroing 100 headers cost more than parsing the head (callgrind).
    let mut headers = [const { MaybeUninit::uninit() }; MAX_HEADERS];
    let mut resp = httparse::Response::new(&mut []);
    let parsed = httparse::ParserConfig::default().parse_response_with_uninit_headers(
        &mut resp,
        buf,
        &mut headers,
    );
    let len = match parsed {
        Ok(httparse::Status::Complete(n)) => n,
        Ok(httparse::Status::Partial) => return Ok(None),
        Err(e) => return Err(Error::Malformed(e)),
    };
    let status = resp.code.unwrap_or(0);
    let lossy = |v: &[u8]| String::from_utf8_lossy(v).into_owned();
    let mut connection = Connection::default();
    let mut length: Option<usize> = None;
    let mut chunked = false;
    for h in resp.headers.iter() {
        let name = h.name.as_bytes();
        if name.eq_ignore_ascii_case(b"content-length") {
            let n = content_length(h.value)
                .and_then(|n| usize::try_from(n).ok())
                .ok_or_else(|| Error::InvalidLength(lossy(h.value)))?;
            if length.is_some_and(|l| l != n) {
                return Err(Error::ConflictingLength(lossy(h.value)));
            }
            length = Some(n);
        } else if name.eq_ignore_ascii_case(b"transfer-encoding") {
            for coding in h.value.split(|&b| b == b',').map(<[u8]>::trim_ascii) {
                if coding.eq_ignore_ascii_case(b"chunked") && !chunked {
                    chunked = true;
                } else if !coding.is_empty() && !coding.eq_ignore_ascii_case(b"identity") {
                    return Err(Error::UnsupportedCoding(lossy(h.value)));
                }
            }
        } else if name.eq_ignore_ascii_case(b"connection") {
            connection.read(h.value);
        } else {
            other(name, h.value);
        }
    }
    // After `101 Switching Protocols` the connection speaks something else: never reused.
    let mut close = resp.version != Some(1) || connection.close || status == 101;
    let framing = if status == 204 || status == 304 || (100..200).contains(&status) {
        Framing::Length(0)
    } else if chunked {
        // Both framings: chunked wins, and the connection is not trusted afterwards (RFC 9112
        // 6.3).
        close |= length.is_some();
        Framing::Chunked
    } else if let Some(n) = length {
        Framing::Length(n)
    } else {
        close = true;
        Framing::Eof
    };
    Ok(Some(Head {
        status,
        len,
        framing,
        close,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head(buf: &[u8]) -> Head {
        parse(buf, |_, _| {}).unwrap().unwrap()
    }

    #[test]
    fn heads_and_their_framing() {
        let mut seen = Vec::new();
        let h = parse(
            b"HTTP/1.1 200 OK\r\nContent-Length: 12\r\nContent-Type: text/xml\r\n\r\n",
            |n, v| seen.push((n.to_vec(), v.to_vec())),
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            (h.status, h.framing, h.close),
            (200, Framing::Length(12), false)
        );
        assert_eq!(seen, [(b"Content-Type".to_vec(), b"text/xml".to_vec())]);
        let h = head(b"HTTP/1.0 200 OK\r\ncontent-length: 1\r\n\r\n");
        assert!(h.close, "an http/1.0 answer ends its connection");
        let h =
            head(b"HTTP/1.1 200 OK\r\nConnection: keep-alive, Close\r\ncontent-length: 1\r\n\r\n");
        assert!(h.close);
        let h = head(b"HTTP/1.1 200 OK\r\n\r\n");
        assert_eq!((h.framing, h.close), (Framing::Eof, true));
        let h = head(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n");
        assert_eq!((h.framing, h.close), (Framing::Chunked, true));
        let h = head(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\n\r\n");
        assert_eq!((h.framing, h.close), (Framing::Length(0), true));
        let h = head(b"HTTP/1.1 204 No Content\r\n\r\n");
        assert_eq!((h.framing, h.close), (Framing::Length(0), false));
        let h = head(b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\n");
        assert_eq!(h.framing, Framing::Length(3));
        assert_eq!(parse(b"HTTP/1.1 200 OK\r\nContent-Le", |_, _| {}), Ok(None));
        assert_eq!(parse(b"", |_, _| {}), Ok(None));
    }

    #[test]
    fn bad_heads_are_clear_errors() {
        let err = |buf: &[u8]| parse(buf, |_, _| {}).unwrap_err().to_string();
        assert_eq!(
            err(b"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n"),
            "invalid content-length `-1`"
        );
        assert_eq!(
            err(b"HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n"),
            "invalid content-length `99999999999999999999`"
        );
        assert_eq!(
            err(b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n"),
            "conflicting content-length `2`"
        );
        assert_eq!(
            err(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"),
            "unsupported transfer-encoding `gzip, chunked`"
        );
        assert_eq!(
            err(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, chunked\r\n\r\n"),
            "unsupported transfer-encoding `chunked, chunked`"
        );
        assert!(err(b"HTTP/1.1 2x0 OK\r\n\r\n").starts_with("malformed response head"));
    }
}
