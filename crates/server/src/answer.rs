//! The answer as the server builds it: a status, a media type and a body, which is what nearly
//! every answer is, with a header map only for one that needs other headers (`Retry-After`,
//! `Allow`, `Content-Encoding`, `Vary`).
//!
//! Why it exists: an `http::Response` keeps even its one `Content-Type` in a `HeaderMap`,
//! which the server filled, the lean loop walked to write the head and then cleared for the
//! next answer: about 500 instructions of an echoFloat request's 27,000 by callgrind
//! (docs/performance.md, round seven). The lean loop writes the head straight from these
//! fields; the tower service (hyper's connections, axum) gets an `http::Response` converted
//! from it, with the same headers in the same order.
//!
//! Must never: drop or reorder a header of the answer, or let a head say another length than
//! the body sent (the writer takes the length from the body).

use std::cell::Cell;
use std::time::Instant;

use bytes::Bytes;
use futures_util::FutureExt as _;
use http::header::{self, HeaderMap, HeaderName, HeaderValue};
use http::{Response, StatusCode};
use http_body_util::{BodyExt as _, Full};
use soapstone_http1::{write_answer_head, After};

use crate::dispatch::ResponseBody;

/// An answer: `content_type` (unless `None`), then `headers`, then the body.
#[derive(Debug)]
pub(crate) struct Answer {
    pub(crate) status: StatusCode,
    pub(crate) content_type: Option<HeaderValue>,
    /// Headers besides the content type, in order; `None` for the common answer.
    pub(crate) headers: Option<HeaderMap>,
    pub(crate) body: Bytes,
}

impl Answer {
    /// `body` with `status` and `content_type`, and no other header.
    pub(crate) fn new(status: StatusCode, content_type: Option<HeaderValue>, body: Bytes) -> Self {
        Answer {
            status,
            content_type,
            headers: None,
            body,
        }
    }

    /// Adds a header after the content type (replacing one of the same name).
    pub(crate) fn insert(&mut self, name: HeaderName, value: HeaderValue) {
        self.headers
            .get_or_insert_with(|| SPARE_HEADERS.with(Cell::take).unwrap_or_default())
            .insert(name, value);
    }

    /// Writes the head into `w` (`content-length` from the body, `connection` from `after`)
    /// and returns the body; a header map goes back for the next answer on this thread.
    pub(crate) fn write_head(
        self,
        w: &mut Vec<u8>,
        http10: bool,
        after: After,
        now: Instant,
    ) -> Bytes {
        let len = self.body.len();
        let ct = self.content_type.as_ref();
        write_answer_head(
            w,
            self.status,
            ct,
            self.headers.as_ref(),
            len,
            http10,
            after,
            now,
        );
        if let Some(headers) = self.headers {
            recycle_headers(headers);
        }
        self.body
    }
}

impl From<Response<ResponseBody>> for Answer {
    fn from(resp: Response<ResponseBody>) -> Self {
        let (parts, mut body) = resp.into_parts();
        // A `Full` body is one frame, ready at once.
        let body = match body.frame().now_or_never() {
            Some(Some(Ok(frame))) => frame.into_data().unwrap_or_default(),
            _ => Bytes::new(),
        };
        Answer {
            status: parts.status,
            content_type: None,
            headers: Some(parts.headers),
            body,
        }
    }
}

impl From<Answer> for Response<ResponseBody> {
    fn from(answer: Answer) -> Self {
        let mut resp = response(answer.body);
        *resp.status_mut() = answer.status;
        let map = resp.headers_mut();
        if let Some(ct) = answer.content_type {
            map.insert(header::CONTENT_TYPE, ct);
        }
        match answer.headers {
            Some(headers) if map.is_empty() => *map = headers,
            Some(headers) => map.extend(headers),
            None => {}
        }
        resp
    }
}

thread_local! {
    /// A response header map given back after its answer was written, cleared, for the next
    /// answer built on this thread that needs one: a map costs two allocations when first
    /// filled.
    static SPARE_HEADERS: Cell<Option<HeaderMap>> = const { Cell::new(None) };
}

/// A response with `body`, its header map a spare one when this thread has it.
pub(crate) fn response(body: Bytes) -> Response<ResponseBody> {
    let mut resp = Response::new(Full::new(body));
    if let Some(spare) = SPARE_HEADERS.with(Cell::take) {
        *resp.headers_mut() = spare;
    }
    resp
}

/// Gives a written answer's header map back for the next [`response`] on this thread (one
/// kept per thread, and only a small one: memory stays bounded).
fn recycle_headers(mut headers: HeaderMap) {
    if headers.capacity() <= 16 {
        headers.clear();
        SPARE_HEADERS.with(|s| s.set(Some(headers)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head(answer: Answer) -> String {
        let mut w = Vec::new();
        let body = answer.write_head(&mut w, false, After::KeepAlive, Instant::now());
        w.extend_from_slice(&body);
        String::from_utf8(w).unwrap()
    }

    fn xml() -> Option<HeaderValue> {
        Some(HeaderValue::from_static("text/xml; charset=utf-8"))
    }

    #[test]
    fn a_common_answer_is_written_with_its_media_type_and_no_map() {
        let answer = Answer::new(StatusCode::OK, xml(), Bytes::from_static(b"<e/>"));
        assert!(answer.headers.is_none());
        let text = head(answer);
        assert!(
            text.starts_with(
                "HTTP/1.1 200 OK\r\ncontent-type: text/xml; charset=utf-8\r\ncontent-length: 4\r\ndate: "
            ),
            "{text}"
        );
        assert!(text.ends_with(" GMT\r\n\r\n<e/>"), "{text}");
    }

    #[test]
    fn the_response_has_the_same_headers_in_the_same_order() {
        let mut answer = Answer::new(StatusCode::OK, xml(), Bytes::from_static(b"z"));
        answer.insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
        answer.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
        let resp = Response::from(answer);
        let names: Vec<_> = resp.headers().keys().map(|k| k.as_str()).collect();
        assert_eq!(names, ["content-type", "content-encoding", "vary"]);
        // and back: the lean loop writes a `Response` (an error answer) as it is
        let text = head(Answer::from(resp));
        let at = |s: &str| text.find(s).unwrap();
        assert!(
            at("content-type: text/xml") < at("content-encoding: gzip"),
            "{text}"
        );
        assert!(
            at("content-encoding: gzip") < at("vary: accept-encoding"),
            "{text}"
        );
        assert!(text.ends_with("\r\n\r\nz"), "{text}");
        // no media type (a 202): none written
        let resp = Response::from(Answer::new(StatusCode::ACCEPTED, None, Bytes::new()));
        assert!(resp.headers().is_empty());
        assert_eq!(resp.status(), StatusCode::ACCEPTED);
    }
}
