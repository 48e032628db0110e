//! A response head written into the connection's write buffer, the way hyper writes it
//! (lower-case names, `content-length`, a cached `date`), so that the two engines answer the
//! same bytes but for the order of headers.
//!
//! It must never write a head whose `content-length` differs from the body that follows,
//! and never allocate: the buffer is the connection's, the date is formatted once a second.

use std::cell::RefCell;
use std::io::Write as _;
use std::time::{SystemTime, UNIX_EPOCH};

use http::response::Parts;

/// What the connection does after this answer.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum After {
    KeepAlive,
    Close,
}

/// The status line and headers of `parts` with a body of `body_len` bytes into `w`.
pub(crate) fn write_head(
    w: &mut Vec<u8>,
    parts: &Parts,
    body_len: usize,
    http10: bool,
    after: After,
) {
    w.extend_from_slice(if http10 { b"HTTP/1.0 " } else { b"HTTP/1.1 " });
    w.extend_from_slice(parts.status.as_str().as_bytes());
    w.push(b' ');
    w.extend_from_slice(parts.status.canonical_reason().unwrap_or("").as_bytes());
    w.extend_from_slice(b"\r\n");
    for (name, value) in &parts.headers {
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
    let _ = write!(w, "content-length: {body_len}\r\ndate: ");
    DATE.with(|d| w.extend_from_slice(d.borrow_mut().now()));
    w.extend_from_slice(b"\r\n\r\n");
}

/// An IMF-fixdate, formatted again when the second changes.
struct CachedDate {
    second: u64,
    text: [u8; 29],
}

impl CachedDate {
    fn now(&mut self) -> &[u8] {
        let now = SystemTime::now();
        let second = now.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
        if second != self.second {
            self.second = second;
            let mut out = &mut self.text[..];
            let _ = write!(out, "{}", httpdate::HttpDate::from(now));
        }
        &self.text
    }
}

thread_local!(static DATE: RefCell<CachedDate> = const {
    RefCell::new(CachedDate { second: 0, text: [b' '; 29] })
});

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_head_says_its_length_and_whether_it_closes() {
        let (parts, ()) = http::Response::builder()
            .status(413)
            .header("content-type", "text/plain")
            .body(())
            .unwrap()
            .into_parts();
        let mut w = Vec::new();
        write_head(&mut w, &parts, 7, false, After::Close);
        let text = String::from_utf8(w).unwrap();
        assert!(
            text.starts_with("HTTP/1.1 413 Payload Too Large\r\ncontent-type: text/plain\r\nconnection: close\r\ncontent-length: 7\r\ndate: "),
            "{text}"
        );
        assert!(text.ends_with(" GMT\r\n\r\n"), "{text}");
        let mut w = Vec::new();
        write_head(&mut w, &parts, 0, true, After::KeepAlive);
        assert!(String::from_utf8(w)
            .unwrap()
            .contains("HTTP/1.0 413 Payload Too Large\r\n"));
    }
}
