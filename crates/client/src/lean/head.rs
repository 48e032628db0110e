//! The head of an answer on the lean path: its status, how its body ends, whether the
//! connection survives it, from `httparse`'s parse. Exists apart from the exchange so that
//! the rules (RFC 9112 section 6.3's framing, `Connection: close`, HTTP/1.0) read in one
//! place. Must never: accept a `Content-Length` that is not plain digits or that disagrees
//! with another, or a transfer coding it cannot undo.

use super::{Want, MAX_HEADERS};
use crate::Error;

/// How the body of an answer ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Framing {
    Length(usize),
    Chunked,
    Eof,
}

/// What the head of an answer says, owned so that the read buffer can move on.
pub(super) struct Meta {
    pub(super) status: u16,
    pub(super) head_len: usize,
    pub(super) framing: Framing,
    /// The connection ends after this answer (HTTP/1.0, `Connection: close`, both framings).
    pub(super) close: bool,
    pub(super) content_type: Option<String>,
    pub(super) content_encoding: Option<Vec<u8>>,
}

/// The head at the start of `buf`, if whole.
pub(super) fn parse_head(buf: &[u8], want: &Want) -> Result<Option<Meta>, Error> {
    if buf.is_empty() {
        return Ok(None);
    }
    // Left uninitialised: zeroing 100 headers cost more than parsing the head (callgrind).
    let mut headers = [const { std::mem::MaybeUninit::uninit() }; MAX_HEADERS];
    let mut resp = httparse::Response::new(&mut []);
    let parsed = httparse::ParserConfig::default().parse_response_with_uninit_headers(
        &mut resp,
        buf,
        &mut headers,
    );
    let head_len = match parsed {
        Ok(httparse::Status::Complete(n)) => n,
        Ok(httparse::Status::Partial) => return Ok(None),
        Err(e) => return Err(Error::http(format!("malformed response head: {e}"))),
    };
    let status = resp.code.unwrap_or(0);
    let mut meta = Meta {
        status,
        head_len,
        framing: Framing::Eof,
        close: resp.version != Some(1),
        content_type: None,
        content_encoding: None,
    };
    let mut length: Option<usize> = None;
    let mut chunked = false;
    for h in resp.headers.iter() {
        let name = h.name.as_bytes();
        if name.eq_ignore_ascii_case(b"content-length") {
            let n = parse_length(h.value)?;
            if length.is_some_and(|l| l != n) {
                return Err(Error::http(format!(
                    "conflicting content-length `{}`",
                    String::from_utf8_lossy(h.value)
                )));
            }
            length = Some(n);
        } else if name.eq_ignore_ascii_case(b"transfer-encoding") {
            for coding in h.value.split(|&b| b == b',').map(<[u8]>::trim_ascii) {
                if coding.eq_ignore_ascii_case(b"chunked") && !chunked {
                    chunked = true;
                } else if !coding.is_empty() && !coding.eq_ignore_ascii_case(b"identity") {
                    return Err(Error::http(format!(
                        "unsupported transfer-encoding `{}`",
                        String::from_utf8_lossy(h.value)
                    )));
                }
            }
        } else if name.eq_ignore_ascii_case(b"connection") {
            meta.close |= h
                .value
                .split(|&b| b == b',')
                .any(|t| t.trim_ascii().eq_ignore_ascii_case(b"close"));
        } else if name.eq_ignore_ascii_case(b"content-type") && want.content_type {
            meta.content_type = std::str::from_utf8(h.value).ok().map(str::to_owned);
        } else if name.eq_ignore_ascii_case(b"content-encoding") {
            let v = h.value.trim_ascii();
            if !v.is_empty() && !v.eq_ignore_ascii_case(b"identity") {
                meta.content_encoding = Some(v.to_vec());
            }
        }
    }
    // After `101 Switching Protocols` the connection speaks something else: never pooled.
    meta.close |= status == 101;
    meta.framing = if status == 204 || status == 304 || (100..200).contains(&status) {
        Framing::Length(0)
    } else if chunked {
        // Both framings: chunked wins, and the connection is not trusted afterwards (RFC 9112
        // 6.3).
        meta.close |= length.is_some();
        Framing::Chunked
    } else if let Some(n) = length {
        Framing::Length(n)
    } else {
        meta.close = true;
        Framing::Eof
    };
    Ok(Some(meta))
}

/// A `Content-Length` value: ASCII digits only.
fn parse_length(value: &[u8]) -> Result<usize, Error> {
    let v = value.trim_ascii();
    let bad = || {
        Error::http(format!(
            "invalid content-length `{}`",
            String::from_utf8_lossy(value)
        ))
    };
    if v.is_empty() || v.len() > 19 || !v.iter().all(u8::is_ascii_digit) {
        return Err(bad());
    }
    v.iter()
        .try_fold(0usize, |n, &d| {
            n.checked_mul(10)?.checked_add((d - b'0') as usize)
        })
        .ok_or_else(bad)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn want() -> Want {
        Want {
            content_type: true,
            max_body: 1 << 20,
            timeout: std::time::Duration::from_secs(1),
        }
    }

    #[test]
    fn heads_and_their_framing() {
        let m = parse_head(
            b"HTTP/1.1 200 OK\r\nContent-Length: 12\r\nContent-Type: text/xml\r\n\r\n",
            &want(),
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            (m.status, m.framing, m.close),
            (200, Framing::Length(12), false)
        );
        assert_eq!(m.content_type.as_deref(), Some("text/xml"));
        let m = parse_head(b"HTTP/1.0 200 OK\r\ncontent-length: 1\r\n\r\n", &want())
            .unwrap()
            .unwrap();
        assert!(m.close, "an http/1.0 answer ends its connection");
        let m = parse_head(
            b"HTTP/1.1 200 OK\r\nConnection: keep-alive, Close\r\ncontent-length: 1\r\n\r\n",
            &want(),
        )
        .unwrap()
        .unwrap();
        assert!(m.close);
        let m = parse_head(b"HTTP/1.1 200 OK\r\n\r\n", &want())
            .unwrap()
            .unwrap();
        assert_eq!((m.framing, m.close), (Framing::Eof, true));
        let m = parse_head(
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n",
            &want(),
        )
        .unwrap()
        .unwrap();
        assert_eq!((m.framing, m.close), (Framing::Chunked, true));
        let m = parse_head(
            b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\n\r\n",
            &want(),
        )
        .unwrap()
        .unwrap();
        assert_eq!((m.framing, m.close), (Framing::Length(0), true));
        let m = parse_head(b"HTTP/1.1 204 No Content\r\n\r\n", &want())
            .unwrap()
            .unwrap();
        assert_eq!((m.framing, m.close), (Framing::Length(0), false));
        assert!(parse_head(b"HTTP/1.1 200 OK\r\nContent-Le", &want())
            .unwrap()
            .is_none());
    }

    #[test]
    fn bad_heads_are_clear_errors() {
        let err = |head: &[u8]| parse_head(head, &want()).err().unwrap().to_string();
        assert_eq!(
            err(b"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n"),
            "http error: invalid content-length `-1`"
        );
        assert_eq!(
            err(b"HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n"),
            "http error: invalid content-length `99999999999999999999`"
        );
        assert_eq!(
            err(b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n"),
            "http error: conflicting content-length `2`"
        );
        assert_eq!(
            err(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"),
            "http error: unsupported transfer-encoding `gzip, chunked`"
        );
        assert!(err(b"HTTP/1.1 2x0 OK\r\n\r\n").starts_with("http error: malformed response head"));
    }
}
