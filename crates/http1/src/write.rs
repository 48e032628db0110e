//! Heads written into a caller's buffer: a response head the way hyper writes it (lower-case
//! names, `content-length`, a cached `date`), so that the server's two engines answer the same
//! bytes but for the order of headers, and the decimal of a `Content-Length`.
//!
//! The `date` is the caller's: it passes the monotonic instant it has (a server reads the clock
//! once when a request is read and once when it is answered), and the text is formatted again
//! only once that instant passes the next second. Reading the wall clock for every answer cost
//! 27 ns here (a `rdtsc` under KVM), a quarter of a percent of a whole echoFloat round trip.
//!
//! The head of the usual answer (a status, a content type, no other header) up to
//! `content-length: ` is the last one's on that thread, copied rather than written piece by
//! piece (the "precomputed response head"; `LastStart`).
//!
//! It must never write a head whose `content-length` differs from the body that follows, and
//! never allocate beyond the caller's buffer: the date is formatted once a second per thread,
//! and the remembered start (at most 512 bytes) is rewritten only when its inputs change.

use std::cell::RefCell;
use std::io::Write as _;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use http::{HeaderMap, HeaderValue, StatusCode};

/// What the connection does after an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum After {
    /// Stays open for the next request.
    KeepAlive,
    /// Closes.
    Close,
}

/// `n` in decimal, appended to `out` (by `itoa`: two digits a step, where a loop of one
/// digit a step took 84 instructions for a `content-length` of 621, callgrind).
pub fn write_decimal(out: &mut Vec<u8>, n: usize) {
    out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
}

/// The status line and `headers` of an answer with a body of `body_len` bytes, appended to
/// `w`: `content-length` and `connection` are written from `body_len` and `after` (any in
/// `headers` are left out), then `date`, the date at `now` (a recent instant).
pub fn write_response_head(
    w: &mut Vec<u8>,
    status: StatusCode,
    headers: &HeaderMap,
    body_len: usize,
    http10: bool,
    after: After,
    now: Instant,
) {
    write_answer_head(w, status, None, Some(headers), body_len, http10, after, now);
}

/// [`write_response_head`] with the `content-type` apart: written first, then `headers`
/// (when there are any). The common answer (a status, a media type, a body) is written
/// without a `HeaderMap` to fill, walk and clear: about 450 instructions an answer.
#[allow(clippy::too_many_arguments)] // each is one thing the head says, taken from the answer
pub fn write_answer_head(
    w: &mut Vec<u8>,
    status: StatusCode,
    content_type: Option<&HeaderValue>,
    headers: Option<&HeaderMap>,
    body_len: usize,
    http10: bool,
    after: After,
    now: Instant,
) {
    match headers {
        // The usual answer: its head up to `content-length: ` is the last one's, copied.
        None => {
            let copied = LAST_START.with(|last| {
                let mut last = last.try_borrow_mut().ok()?;
                last.write(w, status, content_type, http10, after);
                Some(())
            });
            if copied.is_none() {
                write_start(w, status, content_type, None, http10, after);
            }
        }
        Some(_) => write_start(w, status, content_type, headers, http10, after),
    }
    write_decimal(w, body_len);
    w.extend_from_slice(b"\r\ndate: ");
    DATE.with(|d| w.extend_from_slice(d.borrow_mut().at(now)));
    w.extend_from_slice(b"\r\n\r\n");
}

/// The head up to and with `content-length: `: the status line, `content-type`, `headers`
/// (but `content-length` and `connection`), and `connection` from `after`.
fn write_start(
    w: &mut Vec<u8>,
    status: StatusCode,
    content_type: Option<&HeaderValue>,
    headers: Option<&HeaderMap>,
    http10: bool,
    after: After,
) {
    w.extend_from_slice(if http10 { b"HTTP/1.0 " } else { b"HTTP/1.1 " });
    w.extend_from_slice(status.as_str().as_bytes());
    w.push(b' ');
    w.extend_from_slice(status.canonical_reason().unwrap_or("").as_bytes());
    w.extend_from_slice(b"\r\n");
    if let Some(value) = content_type {
        w.extend_from_slice(b"content-type: ");
        w.extend_from_slice(value.as_bytes());
        w.extend_from_slice(b"\r\n");
    }
    for (name, value) in headers.into_iter().flatten() {
        if name == http::header::CONTENT_LENGTH || name == http::header::CONNECTION {
            continue; // written below, from what is actually sent and done
        }
        w.extend_from_slice(name.as_str().as_bytes());
        w.extend_from_slice(b": ");
        w.extend_from_slice(value.as_bytes());
        w.extend_from_slice(b"\r\n");
    }
    match (after, http10) {
        (After::Close, false) => w.extend_from_slice(b"connection: close\r\n"),
        (After::KeepAlive, true) => w.extend_from_slice(b"connection: keep-alive\r\n"),
        _ => {}
    }
    w.extend_from_slice(b"content-length: ");
}

/// The start of the last head a thread wrote without a header map ([`write_start`]), and
/// what it was written from: the precomputed response head. An answer's start depends only on
/// its status, content type, HTTP version and `after`, all compared in full (the content type
/// by its bytes), so a copy is exactly what would be written. A start longer than
/// [`MAX_START`] (a very long content type) is written every time.
struct LastStart {
    status: StatusCode,
    http10: bool,
    after: After,
    /// The content type's bytes (`None`: there was none).
    content_type: Option<Vec<u8>>,
    /// `None`: nothing remembered yet.
    bytes: Option<Vec<u8>>,
}

/// The longest start remembered.
const MAX_START: usize = 512;

impl LastStart {
    /// Appends the start for these to `w`: from memory, or written (and remembered).
    fn write(
        &mut self,
        w: &mut Vec<u8>,
        status: StatusCode,
        content_type: Option<&HeaderValue>,
        http10: bool,
        after: After,
    ) {
        let ct = content_type.map(HeaderValue::as_bytes);
        if let Some(bytes) = &self.bytes {
            if self.status == status
                && self.http10 == http10
                && self.after == after
                && self.content_type.as_deref() == ct
            {
                w.extend_from_slice(bytes);
                return;
            }
        }
        let from = w.len();
        write_start(w, status, content_type, None, http10, after);
        if w.len() - from <= MAX_START {
            self.status = status;
            self.http10 = http10;
            self.after = after;
            match (&mut self.content_type, ct) {
                (Some(kept), Some(ct)) => {
                    kept.clear();
                    kept.extend_from_slice(ct);
                }
                (kept, ct) => *kept = ct.map(<[u8]>::to_vec),
            }
            let bytes = self.bytes.get_or_insert_with(Vec::new);
            bytes.clear();
            bytes.extend_from_slice(&w[from..]);
        } else {
            self.bytes = None;
        }
    }
}

thread_local!(static LAST_START: RefCell<LastStart> = const {
    RefCell::new(LastStart {
        status: StatusCode::OK,
        http10: false,
        after: After::KeepAlive,
        content_type: None,
        bytes: None,
    })
});

/// An IMF-fixdate, formatted again when the second changes: the wall clock is read only once
/// the caller's monotonic instant passes `until`, the start of the next second.
struct CachedDate {
    until: Option<Instant>,
    text: [u8; 29],
}

impl CachedDate {
    fn at(&mut self, now: Instant) -> &[u8] {
        if self.until.is_none_or(|until| now >= until) {
            let wall = SystemTime::now();
            let since = wall.duration_since(UNIX_EPOCH).unwrap_or_default();
            let rest =
                Duration::from_secs(1) - Duration::from_nanos(u64::from(since.subsec_nanos()));
            // From `now`, which is at most as late as the wall clock's reading: the text is
            // formatted again at the boundary or a little before, never after.
            self.until = Some(now + rest);
            let mut out = &mut self.text[..];
            let _ = write!(out, "{}", httpdate::HttpDate::from(wall));
        }
        &self.text
    }
}

thread_local!(static DATE: RefCell<CachedDate> = const {
    RefCell::new(CachedDate { until: None, text: [b' '; 29] })
});

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal() {
        for n in [0, 7, 10, 628, usize::MAX] {
            let mut out = b"x".to_vec();
            write_decimal(&mut out, n);
            assert_eq!(out, format!("x{n}").as_bytes());
        }
    }

    #[test]
    fn a_head_says_its_length_and_whether_it_closes() {
        let mut headers = HeaderMap::new();
        headers.insert("content-type", "text/plain".parse().unwrap());
        headers.insert("content-length", "999".parse().unwrap());
        let status = StatusCode::PAYLOAD_TOO_LARGE;
        let mut w = Vec::new();
        write_response_head(
            &mut w,
            status,
            &headers,
            7,
            false,
            After::Close,
            Instant::now(),
        );
        let text = String::from_utf8(w).unwrap();
        assert!(
            text.starts_with("HTTP/1.1 413 Payload Too Large\r\ncontent-type: text/plain\r\nconnection: close\r\ncontent-length: 7\r\ndate: "),
            "{text}"
        );
        assert!(text.ends_with(" GMT\r\n\r\n"), "{text}");
        assert_eq!(text.len(), text.find("date: ").unwrap() + 6 + 29 + 4);
        let mut w = Vec::new();
        write_response_head(
            &mut w,
            status,
            &headers,
            0,
            true,
            After::KeepAlive,
            Instant::now(),
        );
        let text = String::from_utf8(w).unwrap();
        assert!(
            text.starts_with("HTTP/1.0 413 Payload Too Large\r\n"),
            "{text}"
        );
        assert!(text.contains("\r\nconnection: keep-alive\r\n"), "{text}");
        let mut w = Vec::new();
        write_response_head(
            &mut w,
            StatusCode::OK,
            &HeaderMap::new(),
            5,
            false,
            After::KeepAlive,
            Instant::now(),
        );
        assert!(!String::from_utf8(w).unwrap().contains("connection"));
    }

    #[test]
    fn the_content_type_apart_is_written_first_and_the_same_as_from_a_map() {
        let ct = HeaderValue::from_static("text/xml; charset=utf-8");
        let mut vary = HeaderMap::new();
        vary.insert("vary", "accept-encoding".parse().unwrap());
        vary.insert("content-length", "999".parse().unwrap());
        let mut all = HeaderMap::new();
        all.insert("content-type", ct.clone());
        all.insert("vary", "accept-encoding".parse().unwrap());
        for (others, map) in [
            (None, {
                let mut m = HeaderMap::new();
                m.insert("content-type", ct.clone());
                m
            }),
            (Some(&vary), all),
        ] {
            let (mut apart, mut whole) = (Vec::new(), Vec::new());
            let ok = StatusCode::OK;
            write_answer_head(
                &mut apart,
                ok,
                Some(&ct),
                others,
                12,
                false,
                After::KeepAlive,
                Instant::now(),
            );
            write_response_head(
                &mut whole,
                ok,
                &map,
                12,
                false,
                After::KeepAlive,
                Instant::now(),
            );
            let (apart, whole) = (
                String::from_utf8(apart).unwrap(),
                String::from_utf8(whole).unwrap(),
            );
            assert!(
                apart.starts_with("HTTP/1.1 200 OK\r\ncontent-type: text/xml; charset=utf-8\r\n"),
                "{apart}"
            );
            // the same bytes up to the date (which may turn a second between the two)
            let before_date = |t: &str| t[..t.find("\r\ndate: ").unwrap()].to_owned();
            assert_eq!(before_date(&apart), before_date(&whole));
        }
        let mut w = Vec::new();
        write_answer_head(
            &mut w,
            StatusCode::ACCEPTED,
            None,
            None,
            0,
            false,
            After::Close,
            Instant::now(),
        );
        let text = String::from_utf8(w).unwrap();
        assert!(
            text.starts_with(
                "HTTP/1.1 202 Accepted\r\nconnection: close\r\ncontent-length: 0\r\ndate: "
            ),
            "{text}"
        );
    }

    #[test]
    fn the_date_is_the_wall_clocks_and_formatted_again_only_past_its_second() {
        let mut date = CachedDate {
            until: None,
            text: [b' '; 29],
        };
        let t0 = Instant::now();
        let before = SystemTime::now();
        let text = String::from_utf8(date.at(t0).to_vec()).unwrap();
        let after = SystemTime::now();
        let shown = httpdate::parse_http_date(&text).unwrap();
        assert!(
            shown <= after && shown + Duration::from_secs(1) > before,
            "{text}"
        );
        let until = date.until.unwrap();
        assert!(until > t0 && until <= t0 + Duration::from_secs(1));
        date.text = [b'x'; 29];
        assert_eq!(date.at(until - Duration::from_nanos(1)), [b'x'; 29]);
        assert_ne!(date.at(until), [b'x'; 29]);
        assert!(date.until.unwrap() > until);
    }

    #[test]
    fn a_remembered_start_is_the_one_that_would_be_written() {
        let types = [
            None,
            Some(HeaderValue::from_static("text/xml; charset=utf-8")),
            Some(HeaderValue::from_static(
                "application/soap+xml; charset=utf-8",
            )),
            Some(HeaderValue::from_static("text/xml; charset=utf-9")),
            Some(HeaderValue::from_str(&format!("text/{}", "x".repeat(600))).unwrap()),
        ];
        let statuses = [
            StatusCode::OK,
            StatusCode::INTERNAL_SERVER_ERROR,
            StatusCode::ACCEPTED,
        ];
        let mut all = Vec::new();
        for s in 0..statuses.len() {
            for c in 0..types.len() {
                for h in 0..2 {
                    for a in 0..2 {
                        all.push([s, c, h, a]);
                    }
                }
            }
        }
        // Four orders, each changing one input at a time between most neighbours.
        let mut cases = Vec::new();
        for last in 0..4 {
            let mut order = all.clone();
            order.sort_by_key(|k| {
                let mut k = *k;
                k.swap(last, 3);
                k
            });
            cases.extend(order.into_iter().map(|[s, c, h, a]| {
                let after = if a == 0 {
                    After::KeepAlive
                } else {
                    After::Close
                };
                (statuses[s], types[c].clone(), h == 1, after)
            }));
        }
        let now = Instant::now();
        // Each case right after itself (from memory) and after every other (written again).
        for round in 0..2 {
            for (i, (status, ct, http10, after)) in cases.iter().enumerate() {
                let len = 17 + i * round;
                let mut want = b"x".to_vec();
                write_start(&mut want, *status, ct.as_ref(), None, *http10, *after);
                write_decimal(&mut want, len);
                for _ in 0..2 {
                    let mut got = b"x".to_vec();
                    write_answer_head(
                        &mut got,
                        *status,
                        ct.as_ref(),
                        None,
                        len,
                        *http10,
                        *after,
                        now,
                    );
                    let text = String::from_utf8(got).unwrap();
                    assert!(
                        text.starts_with(std::str::from_utf8(&want).unwrap()),
                        "{text}"
                    );
                    assert!(text.ends_with(" GMT\r\n\r\n"), "{text}");
                }
            }
        }
    }
}
