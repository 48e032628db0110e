//! A response head, parsed by `httparse`: its status, how its body ends and whether the
//! connection survives it (RFC 9112 section 6.3's framing, `Connection: close`, HTTP/1.0),
//! the rules the lean client exchange reads answers by.
//!
//! It must never accept a `Content-Length` that is not plain digits or that disagrees with
//! another, or a transfer coding other than `chunked` (and `identity`), since a body boundary
//! read wrong desynchronises every later answer on the connection.
//!
//! A server answers a client's calls with the same head each time but for the digits of its
//! `Content-Length` and the text of its `Date`. [`Recall`] keeps the last head a connection
//! read; the next one that is byte for byte the same outside those two values (as many digits,
//! a date as long and of plain header characters) is the same head with the new length, found
//! by comparison: about 100 instructions where `httparse` and the header walk took 1,400 of a
//! client's echoFloat call (callgrind). It must never find a head a full parse would not: only
//! a head with one `Content-Length`, at most one `Date`, no `Transfer-Encoding` and a final
//! status is remembered, and the varying bytes are checked for what a full parse would accept
//! there.

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
pub fn parse(buf: &[u8], other: impl FnMut(&[u8], &[u8])) -> Result<Option<Head>, Error> {
    parse_into(buf, None, other)
}

/// The longest head a [`Recall`] keeps (a SOAP server's answer head is 100 to 300 bytes).
const REMEMBERED: usize = 1 << 10;

/// The last response head read on a connection, for reading the next one by comparison
/// ([`Recall::parse`]). Holds at most 1 KiB.
#[derive(Debug, Default)]
pub struct Recall {
    /// The head's bytes (empty: nothing remembered).
    bytes: Vec<u8>,
    /// Where its `Content-Length` value lies in `bytes`.
    length: (usize, usize),
    /// Where its `Date` value lies in `bytes`, if it has one.
    date: Option<(usize, usize)>,
    /// What it said, but for the length.
    head: Option<Head>,
}

impl Recall {
    /// The head at the start of `buf` like [`parse`], and whether it was found by comparison
    /// with the last one remembered (`other` then sees nothing: its headers are the last one's
    /// but for `Date`). A whole head read in full replaces the one remembered (or empties the
    /// memory, when it cannot be read by comparison); a partial one or an error leaves it.
    pub fn parse(
        &mut self,
        buf: &[u8],
        other: impl FnMut(&[u8], &[u8]),
    ) -> Result<Option<(Head, bool)>, Error> {
        if let Some(head) = self.same_as_last(buf) {
            return Ok(Some((head, true)));
        }
        Ok(parse_into(buf, Some(self), other)?.map(|head| (head, false)))
    }

    /// The remembered head with the length `buf` gives, when `buf` starts with its bytes but
    /// for the length's digits and the date's characters.
    fn same_as_last(&self, buf: &[u8]) -> Option<Head> {
        let head = self.head?;
        let last = &self.bytes[..];
        let rest = buf.get(..last.len())?;
        let length = self.length;
        // The two places that may differ, in the order they come.
        let holes = match self.date {
            Some(date) if date.0 < length.0 => [Some(date), Some(length)],
            date => [Some(length), date],
        };
        let mut from = 0;
        for (at, end) in holes.into_iter().flatten() {
            if rest[from..at] != last[from..at] {
                return None;
            }
            from = end;
        }
        if rest[from..] != last[from..] {
            return None;
        }
        if let Some((at, end)) = self.date {
            if !plain_value(&rest[at..end]) {
                return None;
            }
        }
        // Digits only where the last head had them: a space there is read in full.
        let digits = &rest[length.0..length.1];
        if !digits.iter().all(u8::is_ascii_digit) {
            return None;
        }
        let n = content_length(digits).and_then(|n| usize::try_from(n).ok())?;
        Some(Head {
            framing: Framing::Length(n),
            ..head
        })
    }
}

/// Whether a header value's bytes are printable ASCII (space to `~`): ones a full parse takes
/// as they are. Stricter than a parse (a tab or a byte past ASCII is refused here, and that
/// head is then read in full), for one test a byte that the compiler vectorizes: a fold
/// without early exit (a date is 29 bytes; `all` with a range test took 14 instructions a
/// byte, callgrind).
fn plain_value(value: &[u8]) -> bool {
    value
        .iter()
        .fold(true, |ok, &b| ok & (b.wrapping_sub(b' ') < 0x5f))
}

/// [`parse`], remembering the head in `recall` when it can be read by comparison next time.
fn parse_into(
    buf: &[u8],
    mut recall: Option<&mut Recall>,
    mut other: impl FnMut(&[u8], &[u8]),
) -> Result<Option<Head>, Error> {
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
    let base = buf.as_ptr() as usize;
    let place = |v: &[u8]| {
        let at = v.as_ptr() as usize - base;
        (at, at + v.len())
    };
    // Where the one `Content-Length` and the one `Date` lie; `None` once one repeats.
    let mut length_at = None;
    let mut date_at = None;
    let mut repeated = false;
    for h in resp.headers.iter() {
        let name = h.name.as_bytes();
        if name.eq_ignore_ascii_case(b"content-length") {
            let n = content_length(h.value)
                .and_then(|n| usize::try_from(n).ok())
                .ok_or_else(|| Error::InvalidLength(lossy(h.value)))?;
            if length.is_some_and(|l| l != n) {
                return Err(Error::ConflictingLength(lossy(h.value)));
            }
            repeated |= length.is_some();
            length = Some(n);
            length_at = Some(place(h.value));
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
            if name.eq_ignore_ascii_case(b"date") {
                repeated |= date_at.is_some();
                date_at = Some(place(h.value));
            }
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
    let head = Head {
        status,
        len,
        framing,
        close,
    };
    if let Some(recall) = recall.as_mut() {
        // This head replaces the one remembered, or, when it cannot be read by comparison,
        // empties the memory: a caller that keeps what it read of the remembered head beside
        // it (the client's headers) never finds it stale.
        recall.head = None;
        // A final answer of one length (a 1xx one, or a 204 or 304 whose length is not read,
        // is read in full each time), one `Date` at most, no transfer coding.
        let framed_by_length = status >= 200 && status != 204 && status != 304 && !chunked;
        if let (Some(at), Framing::Length(_), true) = (length_at, framing, framed_by_length) {
            if !repeated && len <= REMEMBERED {
                recall.bytes.clear();
                recall.bytes.extend_from_slice(&buf[..len]);
                recall.length = at;
                recall.date = date_at;
                recall.head = Some(head);
            }
        }
    }
    Ok(Some(head))
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

    fn answer(length: &str, date: &str) -> Vec<u8> {
        answer_with("200 OK", length, date)
    }

    fn answer_with(status: &str, length: &str, date: &str) -> Vec<u8> {
        format!(
            "HTTP/1.1 {status}\r\ncontent-type: text/xml; charset=utf-8\r\ncontent-length: {length}\r\ndate: {date}\r\n\r\n<x/>"
        )
        .into_bytes()
    }

    /// Reads `buf` with `recall`: the head and whether it was found by comparison, or the
    /// error's text.
    fn recalled(recall: &mut Recall, buf: &[u8]) -> Result<Option<(Head, bool)>, String> {
        recall.parse(buf, |_, _| {}).map_err(|e| e.to_string())
    }

    #[test]
    fn a_head_repeats_the_last_one_but_for_its_length_and_date() {
        let mut r = Recall::default();
        let date = "Tue, 08 Dec 2026 02:10:00 GMT";
        let first = recalled(&mut r, &answer("12", date)).unwrap().unwrap();
        assert_eq!((first.0.framing, first.1), (Framing::Length(12), false));
        // Other digits, as many; another date, as long: found by comparison, with the length.
        let next = recalled(&mut r, &answer("57", "Tue, 08 Dec 2026 02:10:01 GMT"))
            .unwrap()
            .unwrap();
        assert_eq!(
            next,
            (
                Head {
                    framing: Framing::Length(57),
                    ..first.0
                },
                true
            )
        );
        // Whatever differs elsewhere is read in full, and remembered in its place.
        for (buf, why) in [
            (answer("5", date), "fewer digits"),
            (answer("123", date), "more digits"),
            (
                answer("12", "Tue, 08 Dec 2026 02:10:01 GMT+"),
                "a longer date",
            ),
            (
                answer_with("500 Internal Server Error", "12", date),
                "another status",
            ),
        ] {
            let (head, again) = recalled(&mut r, &buf).unwrap().unwrap();
            assert!(!again, "{why}");
            assert_eq!(Some(head), parse(&buf, |_, _| {}).unwrap(), "{why}");
            assert_eq!(
                recalled(&mut r, &buf).unwrap().unwrap(),
                (head, true),
                "{why}, again"
            );
        }
        // A part of a head is not one (the full parse says it is partial), and leaves what is
        // remembered as it was.
        recalled(&mut r, &answer("12", date)).unwrap();
        let whole = answer("34", date);
        assert_eq!(recalled(&mut r, &whole[..20]).unwrap(), None);
        let (head, again) = recalled(&mut r, &whole).unwrap().unwrap();
        assert_eq!((head.framing, again), (Framing::Length(34), true));
    }

    #[test]
    fn only_what_a_full_parse_would_read_the_same_is_recalled() {
        let date = "Tue, 08 Dec 2026 02:10:00 GMT";
        let mut r = Recall::default();
        recalled(&mut r, &answer("12", date)).unwrap();
        // Not digits where the length was: read in full, and refused as a full read refuses.
        assert_eq!(
            recalled(&mut r, &answer("1x", date)).unwrap_err(),
            "invalid content-length `1x`"
        );
        recalled(&mut r, &answer("12", date)).unwrap();
        // A line end inside the date's place moves the headers: read in full.
        let split = answer("12", "Tue, 08 Dec\r\nx: 2026 02:1 GMT");
        let (head, again) = recalled(&mut r, &split).unwrap().unwrap();
        assert!(!again);
        assert_eq!(Some(head), parse(&split, |_, _| {}).unwrap());
        // Heads that are never remembered: two lengths, two dates, chunked, interim, no length.
        for buf in [
            &b"HTTP/1.1 200 OK\r\ncontent-length: 3\r\ncontent-length: 3\r\n\r\n"[..],
            b"HTTP/1.1 200 OK\r\ncontent-length: 3\r\ndate: a\r\ndate: b\r\n\r\n",
            b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n",
            b"HTTP/1.1 100 Continue\r\ncontent-length: 0\r\n\r\n",
            b"HTTP/1.1 204 No Content\r\ncontent-length: 0\r\n\r\n",
            b"HTTP/1.1 200 OK\r\n\r\n",
        ] {
            let mut r = Recall::default();
            let first = recalled(&mut r, buf).unwrap().unwrap();
            assert_eq!(recalled(&mut r, buf).unwrap().unwrap(), (first.0, false));
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config {
            cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(2000),
            failure_persistence: None,
            ..proptest::test_runner::Config::default()
        })]
        /// After any head, any bytes read with the recall read as a full parse reads them:
        /// the same head, or the same error, or partial alike.
        #[test]
        fn the_recall_reads_what_a_full_parse_reads(
            first in 0..4usize,
            flips in proptest::collection::vec(
                (
                    proptest::prelude::any::<usize>(),
                    // Digits and line ends as often as any other byte.
                    proptest::prop_oneof![
                        proptest::prelude::any::<u8>(),
                        b'0'..=b'9',
                        proptest::strategy::Just(b'\r'),
                        proptest::strategy::Just(b'\n'),
                    ],
                ),
                0..4,
            ),
        ) {
            let date = "Tue, 08 Dec 2026 02:10:00 GMT";
            let heads = [
                answer("621", date),
                answer_with("500 Internal Server Error", "3", date),
                b"HTTP/1.1 200 OK\r\ncontent-length: 42\r\n\r\n".to_vec(),
                b"HTTP/1.0 200 OK\r\nDate: x\r\nContent-Length: 7\r\nConnection: keep-alive\r\n\r\n".to_vec(),
            ];
            let mut r = Recall::default();
            recalled(&mut r, &heads[first]).unwrap();
            let mut next = heads[first].clone();
            for (at, v) in flips {
                let n = next.len();
                next[at % n] = v;
            }
            let full = parse(&next, |_, _| {}).map_err(|e| e.to_string());
            let by_recall = recalled(&mut r, &next).map(|h| h.map(|(head, _)| head));
            proptest::prop_assert_eq!(by_recall, full);
        }
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
