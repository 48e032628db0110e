//! The seeds' causes, on purpose: a server that sends like the toolkits the thesis traced.
//!
//! The thesis's SOAP call took hundreds of milliseconds because the server left Nagle on and
//! wrote the HTTP head and the body in two writes: the head left at once, the body waited for
//! the head's ACK, which the client delayed (40 ms on Linux, up to 200 ms on the thesis's
//! stacks). These modes exist so that the lab can show that disease and its cure side by side.
//!
//! They must never be on unless asked for by name: [`NaiveModes::default`] is all off, each
//! mode is its own explicit call, and a server with any of them on says so at WARN level. The
//! cured path must pay nothing for their existence but one branch per write.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// Deliberately slow wire behaviour for the lab, all off by default. Build with
/// `NaiveModes::default()` and switch causes on one by one with the methods.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct NaiveModes {
    /// Leave Nagle's algorithm on (no `TCP_NODELAY`). Default: `false` (Nagle off).
    pub nagle: bool,
    /// Write each response's head and body in two separate writes instead of one.
    /// Default: `false` (one write).
    pub split_writes: bool,
    /// Parse each request into a DOM (`roxmltree`) before the streaming codec decodes it, as
    /// the thesis's Axis and Ruby's Tomcat stacks did (thesis Table 3). Default: `false`.
    pub dom: bool,
}

impl NaiveModes {
    /// Leaves Nagle on: small segments wait for the ACK of what is in flight.
    pub fn with_nagle(mut self) -> Self {
        self.nagle = true;
        self
    }

    /// Writes head and body separately: with Nagle on, the body waits for the head's ACK.
    pub fn with_split_writes(mut self) -> Self {
        self.split_writes = true;
        self
    }

    /// Parses each request into a DOM before decoding it: the parser's cost, on purpose.
    pub fn with_dom(mut self) -> Self {
        self.dom = true;
        self
    }

    /// Both of the thesis's packet causes (`nagle`, `split-writes`; `dom` is named on its own).
    pub fn all() -> Self {
        NaiveModes::default().with_nagle().with_split_writes()
    }

    /// Whether any cause is on.
    pub fn any(&self) -> bool {
        self.nagle || self.split_writes || self.dom
    }

    /// Parses a comma-separated list of causes: `nagle`, `split-writes`, `dom`, `all` (the
    /// two packet causes).
    pub fn parse(list: &str) -> Result<Self, String> {
        let mut modes = NaiveModes::default();
        for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            modes = match name {
                "nagle" => modes.with_nagle(),
                "split-writes" => modes.with_split_writes(),
                "dom" => modes.with_dom(),
                "all" => NaiveModes {
                    dom: modes.dom,
                    ..NaiveModes::all()
                },
                other => {
                    return Err(format!(
                        "unknown server naive mode `{other}`, expected `nagle`, `split-writes`, `dom` or `all`"
                    ))
                }
            };
        }
        Ok(modes)
    }
}

/// The `dom` cause: parses `body` into a DOM and walks it, as a DOM-based stack did before
/// its deserializer ran; the tree is then dropped and the codec decodes the same bytes, so the
/// answer (or the fault for a malformed body) is exactly the cured one and only the time
/// differs. Returns the number of nodes (0 when the body is not well-formed UTF-8 XML: the
/// codec's fault says why). Memory is bounded by the body (already at most
/// `max_body_bytes`): roxmltree keeps one node of a few dozen bytes per element, attribute or
/// text run, and refuses DTDs, so no entity expansion.
pub(crate) fn parse_dom(body: &[u8]) -> usize {
    let Ok(text) = std::str::from_utf8(body) else {
        return 0;
    };
    // roxmltree recurses per level: a deep body would overflow the stack and abort the server
    // (the codec refuses it past `Limits::max_depth` anyway).
    if soapstone_codec::nested_past(text, 256).is_some() {
        return 0;
    }
    match roxmltree::Document::parse(text) {
        Ok(doc) => std::hint::black_box(doc.descendants().count()),
        Err(_) => 0,
    }
}

/// A connection's IO that, when `split` is set, writes only the first buffer of a vectored
/// write, so that hyper's queued head and body leave in two `write` calls.
#[derive(Debug)]
pub(crate) struct SplitWrites<T> {
    inner: T,
    split: bool,
}

impl<T> SplitWrites<T> {
    pub(crate) fn new(inner: T, split: bool) -> Self {
        SplitWrites { inner, split }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for SplitWrites<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for SplitWrites<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        if self.split {
            let first = bufs
                .iter()
                .find(|b| !b.is_empty())
                .map_or(&[][..], |b| &**b);
            return Pin::new(&mut self.inner).poll_write(cx, first);
        }
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.split || self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn off_by_default_and_parsed_by_name() {
        assert!(!NaiveModes::default().any());
        assert_eq!(NaiveModes::parse("").unwrap(), NaiveModes::default());
        assert_eq!(
            NaiveModes::parse("nagle, split-writes").unwrap(),
            NaiveModes::all()
        );
        let dom = NaiveModes::parse("all,dom").unwrap();
        assert!(dom.dom && dom.nagle && dom.split_writes);
        assert_eq!(NaiveModes::parse("dom,all").unwrap(), dom);
        assert!(!NaiveModes::all().dom);
        let e = NaiveModes::parse("nagel").unwrap_err();
        assert!(e.contains("`nagel`"), "{e}");
    }

    #[test]
    fn the_dom_cause_builds_the_whole_tree_and_leaves_bad_bodies_to_the_codec() {
        let env = br#"<e:Envelope xmlns:e="urn:e"><e:Body><f a="1">3.5</f></e:Body></e:Envelope>"#;
        // Envelope, Body, f, its text, and the root node.
        assert_eq!(parse_dom(env), 5);
        assert_eq!(parse_dom(b"<unclosed>"), 0);
        assert_eq!(parse_dom(b"\xff\xfe"), 0);
        assert_eq!(parse_dom(b"<!DOCTYPE x [<!ENTITY a 'aaaa'>]><x>&a;</x>"), 0);
        // 200,000 levels overflowed a 512 KiB stack inside roxmltree (the process aborted)
        let deep = std::thread::Builder::new()
            .stack_size(512 << 10)
            .spawn(|| {
                let body = format!("{}{}", "<a>".repeat(200_000), "</a>".repeat(200_000));
                parse_dom(body.as_bytes())
            })
            .unwrap();
        assert_eq!(deep.join().unwrap(), 0);
    }
}
