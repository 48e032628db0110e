//! The nesting depth of a document, measured before a DOM parser sees it.
//!
//! Why it exists: roxmltree (the DOM the WSDL reader, WS-Security and the dynamic client use)
//! recurses once per element level with no bound of its own, so a document of a few hundred
//! KB nested deep enough overflows the parsing thread's stack, which aborts the whole process
//! (no panic to catch). This scan is iterative; a caller refuses a document past its depth
//! before the DOM parser runs. It must never allocate, never report a document within the
//! limit, and never stop early on malformed input (the parser reports that once the depth is
//! known to be safe). The codec's own reader needs none of this: it is streaming and checks
//! [`Limits::max_depth`](crate::Limits) as it goes.

/// The 1-based line of the first start tag past `max` levels of element nesting, if any.
///
/// ```
/// assert_eq!(soapstone_codec::nested_past("<a><b/></a>", 1), None);
/// assert_eq!(soapstone_codec::nested_past("<a>\n<b><c/></b></a>", 1), Some(2));
/// ```
pub fn nested_past(text: &str, max: usize) -> Option<u32> {
    let b = text.as_bytes();
    let skip_to = |from: usize, end: &[u8]| {
        b.get(from..)
            .and_then(|rest| rest.windows(end.len()).position(|w| w == end))
            .map_or(b.len(), |p| from + p + end.len())
    };
    let mut depth = 0usize;
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'<' {
            i += 1;
            continue;
        }
        let rest = &b[i..];
        i = if rest.starts_with(b"<!--") {
            skip_to(i + 4, b"-->")
        } else if rest.starts_with(b"<![CDATA[") {
            skip_to(i + 9, b"]]>")
        } else if rest.starts_with(b"<?") {
            skip_to(i + 2, b"?>")
        } else if rest.starts_with(b"<!") {
            skip_to(i + 2, b">")
        } else if rest.starts_with(b"</") {
            depth = depth.saturating_sub(1);
            skip_to(i + 2, b">")
        } else {
            // a start tag: its end is the first `>` outside a quoted attribute value
            let mut j = i + 1;
            let mut quote = None;
            while j < b.len() {
                match (quote, b[j]) {
                    (None, q @ (b'"' | b'\'')) => quote = Some(q),
                    (Some(q), c) if c == q => quote = None,
                    (None, b'>') => break,
                    _ => {}
                }
                j += 1;
            }
            if !(j < b.len() && b[j - 1] == b'/') {
                depth += 1;
                if depth > max {
                    return Some(b[..i].iter().filter(|&&c| c == b'\n').count() as u32 + 1);
                }
            }
            j + 1
        };
    }
    None
}

#[cfg(test)]
mod tests {
    use super::nested_past as too_deep;

    #[test]
    fn depth_counts_elements_only() {
        let doc =
            "<a>\n<b x='>' y=\"/>\"><c/><!-- <d> --><![CDATA[<e>]]><?p <f>?></b>\n<g><h/></g></a>";
        assert_eq!(too_deep(doc, 2), None);
        assert_eq!(too_deep(doc, 1), Some(2));
        assert_eq!(too_deep("<a><b><c>", 2), Some(1));
        assert_eq!(too_deep("", 0), None);
        assert_eq!(too_deep("<a", 0), Some(1));
    }
}
