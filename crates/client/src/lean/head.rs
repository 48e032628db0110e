//! The head of an answer on the lean path: the shared parse (`soapstone_http1::response`: its
//! status, how its body ends, whether the connection survives it) and the two headers the
//! client reads besides. Must never: take an answer the shared rules refuse.

use soapstone_http1::response;

use super::Want;
use crate::Error;

pub(super) use response::Framing;

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

/// The last answer head a connection read ([`response::Recall`]) and the two headers the
/// client read from it, for the next head that repeats it.
#[derive(Default)]
pub(super) struct LastHead {
    recall: response::Recall,
    /// Whether its `Content-Type` was read (it is only when asked for).
    typed: bool,
    content_type: Option<String>,
    content_encoding: Option<Vec<u8>>,
}

/// The head at the start of `buf`, if whole: found by comparison with `last` when it repeats
/// it but for its length and date, else parsed in full (and remembered).
pub(super) fn parse_head(
    buf: &[u8],
    want: &Want,
    last: &mut LastHead,
) -> Result<Option<Meta>, Error> {
    if want.content_type && !last.typed {
        // What is remembered cannot say the type asked for now.
        last.recall = response::Recall::default();
    }
    let (mut content_type, mut content_encoding) = (None, None);
    let parsed = last
        .recall
        .parse(buf, |name, value| {
            if name.eq_ignore_ascii_case(b"content-type") && want.content_type {
                content_type = std::str::from_utf8(value).ok().map(str::to_owned);
            } else if name.eq_ignore_ascii_case(b"content-encoding") {
                let v = value.trim_ascii();
                if !v.is_empty() && !v.eq_ignore_ascii_case(b"identity") {
                    content_encoding = Some(v.to_vec());
                }
            }
        })
        .map_err(|e| Error::http(e.to_string()))?;
    let Some((head, repeated)) = parsed else {
        return Ok(None);
    };
    if repeated {
        if want.content_type {
            content_type.clone_from(&last.content_type);
        }
        content_encoding.clone_from(&last.content_encoding);
    } else {
        last.typed = want.content_type;
        last.content_type.clone_from(&content_type);
        last.content_encoding.clone_from(&content_encoding);
    }
    Ok(Some(Meta {
        status: head.status,
        head_len: head.len,
        framing: head.framing,
        close: head.close,
        content_type,
        content_encoding,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn want() -> Want {
        Want {
            content_type: true,
            max_body: 1 << 20,
            timeout: std::time::Duration::from_secs(1),
            busy_poll: std::time::Duration::ZERO,
        }
    }

    /// `buf`'s head read with a fresh memory (in full).
    fn fresh(buf: &[u8]) -> Result<Option<Meta>, Error> {
        parse_head(buf, &want(), &mut LastHead::default())
    }

    #[test]
    fn heads_and_their_framing() {
        let m = fresh(b"HTTP/1.1 200 OK\r\nContent-Length: 12\r\nContent-Type: text/xml\r\n\r\n")
            .unwrap()
            .unwrap();
        assert_eq!(
            (m.status, m.framing, m.close),
            (200, Framing::Length(12), false)
        );
        assert_eq!(m.content_type.as_deref(), Some("text/xml"));
        let m = fresh(b"HTTP/1.0 200 OK\r\ncontent-length: 1\r\n\r\n")
            .unwrap()
            .unwrap();
        assert!(m.close, "an http/1.0 answer ends its connection");
        let m =
            fresh(b"HTTP/1.1 200 OK\r\nConnection: keep-alive, Close\r\ncontent-length: 1\r\n\r\n")
                .unwrap()
                .unwrap();
        assert!(m.close);
        let m = fresh(b"HTTP/1.1 200 OK\r\n\r\n").unwrap().unwrap();
        assert_eq!((m.framing, m.close), (Framing::Eof, true));
        let m =
            fresh(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n")
                .unwrap()
                .unwrap();
        assert_eq!((m.framing, m.close), (Framing::Chunked, true));
        let m = fresh(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\n\r\n")
            .unwrap()
            .unwrap();
        assert_eq!((m.framing, m.close), (Framing::Length(0), true));
        let m = fresh(b"HTTP/1.1 204 No Content\r\n\r\n").unwrap().unwrap();
        assert_eq!((m.framing, m.close), (Framing::Length(0), false));
        assert!(fresh(b"HTTP/1.1 200 OK\r\nContent-Le").unwrap().is_none());
    }

    #[test]
    fn bad_heads_are_clear_errors() {
        let err = |head: &[u8]| fresh(head).err().unwrap().to_string();
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

    #[test]
    fn a_repeated_head_says_what_the_remembered_one_said() {
        let answer = |n: &str| {
            format!("HTTP/1.1 200 OK\r\ncontent-type: text/xml\r\ncontent-encoding: gzip\r\ncontent-length: {n}\r\n\r\n")
        };
        let untyped = Want {
            content_type: false,
            ..want()
        };
        let mut last = LastHead::default();
        let m = parse_head(answer("10").as_bytes(), &untyped, &mut last)
            .unwrap()
            .unwrap();
        assert_eq!(
            (m.content_type, m.content_encoding.as_deref()),
            (None, Some(&b"gzip"[..]))
        );
        let m = parse_head(answer("20").as_bytes(), &untyped, &mut last)
            .unwrap()
            .unwrap();
        assert_eq!(m.framing, Framing::Length(20));
        assert_eq!(
            (m.content_type, m.content_encoding.as_deref()),
            (None, Some(&b"gzip"[..]))
        );
        // The type asked for now was not read then: read in full, and remembered with it.
        for n in ["30", "40"] {
            let m = parse_head(answer(n).as_bytes(), &want(), &mut last)
                .unwrap()
                .unwrap();
            assert_eq!(m.content_type.as_deref(), Some("text/xml"), "{n}");
            assert_eq!(m.content_encoding.as_deref(), Some(&b"gzip"[..]), "{n}");
        }
        // A head that cannot be remembered leaves nothing stale behind.
        let chunked = b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n";
        let m = parse_head(chunked, &want(), &mut last).unwrap().unwrap();
        assert_eq!((m.content_type, m.content_encoding), (None, None));
        let m = parse_head(answer("50").as_bytes(), &want(), &mut last)
            .unwrap()
            .unwrap();
        assert_eq!(m.content_type.as_deref(), Some("text/xml"));
    }
}
