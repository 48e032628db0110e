//! The tokenizer: markup and text out of a `&str`, as slices of it.
//!
//! Hand-written rather than quick-xml's `Reader` because SOAP bodies are long runs of tiny
//! elements (`<item>123</item>`), where the reader's general event machinery cost about 200
//! instructions per event (measured with callgrind on a 100,000-int array) against the 300
//! MB/s target. This scanner does one `memchr` per long text run, and hands out exactly
//! what the cursor needs: names, text, CDATA. A tag with attributes is handed over at the
//! end of its name: the cursor's attribute parser finds the tag's `>` as it reads the values
//! (`xml::next_attr`), so no value is scanned twice. Entity
//! decoding is still quick-xml's (`xml::unescape`). Well-formedness beyond what SOAP needs is
//! checked by the cursor (tag matching) and by the attribute scanner.
//! Must never: index outside the input or split a UTF-8 character (every cut is at an ASCII
//! delimiter, and `get` is used anyway), accept a DOCTYPE, or loop without advancing.

/// One piece of the document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Token<'a> {
    /// `<name>` or `<name/>` (`empty`).
    Start {
        name: &'a str,
        empty: bool,
    },
    /// `<name ...` with attributes from byte `from` of the input (the whitespace after the
    /// name): the tag's end is not searched here but found by the attribute parser reading
    /// the attributes (`xml::next_attr`), so each value is scanned once, not twice; the
    /// scanner stays at the `<` until [`Scanner::resume`].
    StartAttrs {
        name: &'a str,
        from: usize,
    },
    /// `</name>`.
    End(&'a str),
    /// Character data between tags, still escaped; `plain`: holds no `&` and no `\r`, so it
    /// needs no unescaping.
    Text {
        text: &'a str,
        plain: bool,
    },
    /// The content of `<![CDATA[...]]>`.
    CData(&'a str),
    /// A comment: skipped by the cursor.
    Skip,
    /// A processing instruction other than the XML declaration (offset of its `<?`): SOAP
    /// 1.1 (section 3) and 1.2 (Part 1 section 5) forbid them in a message, so the cursor
    /// refuses it.
    Pi(usize),
    /// `<?xml ...?>`.
    Decl,
    /// `<!DOCTYPE`.
    DocType,
    Eof,
}

/// What is malformed; formatted only when reported (keeps the hot path small).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ScanError {
    EndTagNotClosed,
    EmptyEndTag,
    PiNotClosed,
    EndsInTag,
    CommentNotClosed,
    CdataNotClosed,
    MarkupDeclaration,
    /// Byte offset of the tag.
    MalformedStartTag(usize),
    StartTagNotClosed(usize),
    AttrValueNotClosed(usize),
    BadUtf8,
}

impl ScanError {
    #[cold]
    #[inline(never)]
    pub(crate) fn describe(self, input: &str) -> String {
        let tag = |at: usize| {
            let rest = input.get(at..).unwrap_or("");
            let end = rest
                .bytes()
                .position(|b| NAME_END[b as usize] && b != b'<')
                .unwrap_or(rest.len());
            crate::error::excerpt(rest.get(..end.max(1)).unwrap_or(rest))
        };
        match self {
            ScanError::EndTagNotClosed => "end tag is not closed".into(),
            ScanError::EmptyEndTag => "malformed end tag `</>`".into(),
            ScanError::PiNotClosed => "processing instruction is not closed".into(),
            ScanError::EndsInTag => "document ends inside a tag".into(),
            ScanError::CommentNotClosed => "comment is not closed".into(),
            ScanError::CdataNotClosed => "cdata section is not closed".into(),
            ScanError::MarkupDeclaration => "markup declarations (`<!`) are not allowed".into(),
            ScanError::MalformedStartTag(at) => format!("malformed start tag {}", tag(at)),
            ScanError::StartTagNotClosed(at) => format!("start tag {} is not closed", tag(at)),
            ScanError::AttrValueNotClosed(at) => {
                format!("attribute value in {} is not closed", tag(at))
            }
            ScanError::BadUtf8 => "invalid utf-8 in markup".into(),
        }
    }
}

#[derive(Debug)]
pub(crate) struct Scanner<'a> {
    input: &'a str,
    pos: usize,
}

/// Bytes that end a name: XML whitespace, `=`, `/`, `>`, `<` (a table: one load per byte).
pub(crate) static NAME_END: [bool; 256] = {
    let mut t = [false; 256];
    t[b' ' as usize] = true;
    t[b'\t' as usize] = true;
    t[b'\r' as usize] = true;
    t[b'\n' as usize] = true;
    t[b'=' as usize] = true;
    t[b'/' as usize] = true;
    t[b'>' as usize] = true;
    t[b'<' as usize] = true;
    t
};

/// Classes of bytes for [`scan_name`]: [`END`] (a byte of [`NAME_END`]), [`QUOTE`] (`"`,
/// `'`), [`AMP`] (`&`).
static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        if NAME_END[i] {
            t[i] = END;
        }
        i += 1;
    }
    t[b'"' as usize] = QUOTE;
    t[b'\'' as usize] = QUOTE;
    t[b'&' as usize] = AMP;
    t
};
pub(crate) const END: u8 = 1;
pub(crate) const QUOTE: u8 = 2;
pub(crate) const AMP: u8 = 4;

/// Index of the first name-ending byte at or after `i` (or `b.len()`).
#[inline]
pub(crate) fn name_end(b: &[u8], i: usize) -> usize {
    scan_name(b, i, END)
}

/// Index of the first byte at or after `i` whose class is in `stop` (or `b.len()`), so that
/// a name is scanned and screened for the bytes it must not hold in one pass. Four bytes a
/// round with one bounds check: names are where the envelope parse spends most of its
/// byte-at-a-time work (about 800 of an echoFloat decode's 16,000 instructions, callgrind).
#[inline]
pub(crate) fn scan_name(b: &[u8], mut i: usize, stop: u8) -> usize {
    while let Some(&[c0, c1, c2, c3]) = b.get(i..i + 4) {
        if CLASS[c0 as usize] & stop != 0 {
            return i;
        }
        if CLASS[c1 as usize] & stop != 0 {
            return i + 1;
        }
        if CLASS[c2 as usize] & stop != 0 {
            return i + 2;
        }
        if CLASS[c3 as usize] & stop != 0 {
            return i + 3;
        }
        i += 4;
    }
    while i < b.len() && CLASS[b[i] as usize] & stop == 0 {
        i += 1;
    }
    i
}

/// Index of the first `a` followed by `b` (cheaper than a `memmem` searcher for the short
/// needles of XML: `?>`, `->`).
pub(crate) fn find_pair(h: &[u8], a: u8, b: u8) -> Option<usize> {
    let mut i = 0;
    while let Some(p) = memchr::memchr(a, h.get(i..)?) {
        if h.get(i + p + 1) == Some(&b) {
            return Some(i + p);
        }
        i += p + 1;
    }
    None
}

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

impl<'a> Scanner<'a> {
    pub(crate) fn new(input: &'a str, pos: usize) -> Self {
        Scanner {
            input,
            pos: pos.min(input.len()),
        }
    }

    /// Offset of the next unread byte.
    pub(crate) fn pos(&self) -> usize {
        self.pos
    }

    /// The fast path of a simple element: if the input continues with text free of markup,
    /// `&` and `\r`, then `</name>`, consumes both and returns the text (possibly empty).
    #[inline]
    pub(crate) fn simple_text(&mut self, name: &str) -> Option<&'a str> {
        let b = self.input.as_bytes();
        let start = self.pos;
        let mut i = start;
        let limit = b.len().min(start + 64);
        while i < limit {
            match b[i] {
                b'<' => break,
                b'&' | b'\r' => return None,
                _ => i += 1,
            }
        }
        if b.get(i) != Some(&b'<') || b.get(i + 1) != Some(&b'/') {
            return None;
        }
        let n = name.len();
        let end_name = b.get(i + 2..i + 2 + n)?;
        if !end_name.iter().zip(name.as_bytes()).all(|(x, y)| x == y)
            || b.get(i + 2 + n) != Some(&b'>')
        {
            return None;
        }
        let text = self.input.get(start..i)?;
        self.pos = i + 3 + n;
        Some(text)
    }

    #[inline]
    fn slice(&self, a: usize, b: usize) -> Result<&'a str, ScanError> {
        self.input.get(a..b).ok_or(ScanError::BadUtf8)
    }

    fn find(&self, from: usize, needle: &[u8]) -> Option<usize> {
        let hay = self.input.as_bytes().get(from..)?;
        memchr::memmem::find(hay, needle).map(|i| from + i)
    }

    /// The next token; `Err` is a lower-case message about malformed markup.
    #[inline]
    pub(crate) fn next(&mut self) -> Result<Token<'a>, ScanError> {
        let b = self.input.as_bytes();
        let start = self.pos;
        let Some(&first) = b.get(start) else {
            return Ok(Token::Eof);
        };
        if first != b'<' {
            // short runs (array items) are scanned inline; long ones with memchr
            let mut i = start;
            let limit = b.len().min(start + 32);
            let mut plain = true;
            while i < limit {
                match b[i] {
                    b'<' => break,
                    b'&' | b'\r' => plain = false,
                    _ => {}
                }
                i += 1;
            }
            if i == limit && i < b.len() {
                i = match memchr::memchr(b'<', &b[i..]) {
                    Some(j) => i + j,
                    None => b.len(),
                };
                plain = plain && memchr::memchr2(b'&', b'\r', &b[limit..i]).is_none();
            }
            self.pos = i;
            return self.slice(start, i).map(|text| Token::Text { text, plain });
        }
        match b.get(start + 1) {
            Some(b'/') => {
                let mut i = name_end(b, start + 2);
                let name_end = i;
                while i < b.len() && is_ws(b[i]) {
                    i += 1;
                }
                if b.get(i) != Some(&b'>') {
                    return Err(ScanError::EndTagNotClosed);
                }
                let name = self.slice(start + 2, name_end)?;
                if name.is_empty() {
                    return Err(ScanError::EmptyEndTag);
                }
                self.pos = i + 1;
                Ok(Token::End(name))
            }
            Some(b'!') => self.bang(start),
            Some(b'?') => {
                let end = b
                    .get(start + 2..)
                    .and_then(|h| find_pair(h, b'?', b'>'))
                    .map(|i| start + 2 + i);
                let end = end.ok_or(ScanError::PiNotClosed)?;
                self.pos = end + 2;
                let target_end = b[start + 2..end]
                    .iter()
                    .position(|&c| is_ws(c))
                    .map_or(end, |i| start + 2 + i);
                if b[start + 2..target_end].eq_ignore_ascii_case(b"xml") {
                    return Ok(Token::Decl);
                }
                Ok(Token::Pi(start))
            }
            Some(_) => self.start_tag(start),
            None => Err(ScanError::EndsInTag),
        }
    }

    fn bang(&mut self, start: usize) -> Result<Token<'a>, ScanError> {
        let rest = &self.input.as_bytes()[start..];
        if rest.starts_with(b"<!--") {
            let end = self
                .find(start + 4, b"-->")
                .ok_or(ScanError::CommentNotClosed)?;
            self.pos = end + 3;
            Ok(Token::Skip)
        } else if rest.starts_with(b"<![CDATA[") {
            let end = self
                .find(start + 9, b"]]>")
                .ok_or(ScanError::CdataNotClosed)?;
            self.pos = end + 3;
            self.slice(start + 9, end).map(Token::CData)
        } else if rest.len() >= 9 && rest[2..9].eq_ignore_ascii_case(b"DOCTYPE") {
            Ok(Token::DocType)
        } else {
            Err(ScanError::MarkupDeclaration)
        }
    }

    /// `<name ... >`: the name ends at whitespace, `/` or `>`; a tag with attributes is
    /// handed to the cursor at the end of its name ([`Token::StartAttrs`]).
    #[inline]
    fn start_tag(&mut self, start: usize) -> Result<Token<'a>, ScanError> {
        let b = self.input.as_bytes();
        // `<` and `=` end a name; a quote stops the scan so that it is refused here
        let i = scan_name(b, start + 1, END | QUOTE);
        let name = self.slice(start + 1, i)?;
        if name.is_empty() || CLASS[usize::from(b.get(i).copied().unwrap_or(b'>'))] == QUOTE {
            return Err(ScanError::MalformedStartTag(start));
        }
        // the common cases: `<name>` and `<name/>`
        match (b.get(i), b.get(i + 1)) {
            (Some(b'>'), _) => {
                self.pos = i + 1;
                return Ok(Token::Start { name, empty: false });
            }
            (Some(b'/'), Some(b'>')) => {
                self.pos = i + 2;
                return Ok(Token::Start { name, empty: true });
            }
            _ => {}
        }
        // a tag with attributes: the cursor's attribute parser reads them and finds the tag's
        // end (`>` outside a quoted value) in the same pass, then calls `resume`
        Ok(Token::StartAttrs { name, from: i })
    }

    /// Continues after a start tag whose attributes the cursor read (`end`: just past its `>`).
    #[inline]
    pub(crate) fn resume(&mut self, end: usize) {
        debug_assert!(end > self.pos && end <= self.input.len());
        self.pos = end.min(self.input.len());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `scan_name`'s unrolled rounds stop where a byte-at-a-time scan would, for every stop
    /// byte at every offset (each position within a round of four and the tail after it) and
    /// every mask.
    #[test]
    fn scan_name_stops_where_a_byte_loop_does() {
        let naive = |b: &[u8], i: usize, stop: u8| {
            (i..b.len())
                .find(|&j| CLASS[b[j] as usize] & stop != 0)
                .unwrap_or(b.len())
        };
        for len in 0..14 {
            for at in 0..=len {
                for c in [
                    b' ', b'\t', b'\n', b'\r', b'=', b'/', b'>', b'<', b'"', b'\'', b'&', 0xC3,
                ] {
                    let mut b = vec![b'a'; len];
                    if at < len {
                        b[at] = c;
                    }
                    for from in 0..=len {
                        for stop in [END, END | QUOTE, END | QUOTE | AMP] {
                            assert_eq!(
                                scan_name(&b, from, stop),
                                naive(&b, from, stop),
                                "{b:?} from {from} mask {stop}"
                            );
                        }
                    }
                }
            }
        }
    }

    fn all(s: &str) -> Vec<Token<'_>> {
        let mut sc = Scanner::new(s, 0);
        let mut v = Vec::new();
        loop {
            match sc.next().unwrap() {
                Token::Eof => return v,
                t => v.push(t),
            }
        }
    }

    #[test]
    fn tokens() {
        assert_eq!(
            all("<a>t&amp;<b/><![CDATA[<x>]]><!-- c --><?pi x?></a >"),
            vec![
                Token::Start {
                    name: "a",
                    empty: false
                },
                Token::Text {
                    text: "t&amp;",
                    plain: false
                },
                Token::Start {
                    name: "b",
                    empty: true
                },
                Token::CData("<x>"),
                Token::Skip,
                Token::Pi(38),
                Token::End("a"),
            ]
        );
        assert_eq!(all("<?xml version='1.0'?>"), vec![Token::Decl]);
        let long = "x".repeat(100);
        assert_eq!(
            all(&format!("{long}<a/>"))[0],
            Token::Text {
                text: &long,
                plain: true
            }
        );
        let long_amp = format!("{long}&amp;");
        assert_eq!(
            all(&format!("{long_amp}<a/>"))[0],
            Token::Text {
                text: &long_amp,
                plain: false
            }
        );
        assert_eq!(
            all("<a></a\n>"),
            vec![
                Token::Start {
                    name: "a",
                    empty: false
                },
                Token::End("a")
            ]
        );
        assert_eq!(Scanner::new("<!DOCTYPE x>", 0).next(), Ok(Token::DocType));
        assert_eq!(
            Scanner::new("<a", 0).next(),
            Ok(Token::StartAttrs { name: "a", from: 2 })
        );
        // a tag with attributes is handed over at the end of its name, the scanner left at
        // its `<` (the cursor's attribute parser finds the `>`)
        let mut sc = Scanner::new("<a x='>' y=\"/>\">", 0);
        assert_eq!(sc.next(), Ok(Token::StartAttrs { name: "a", from: 2 }));
        assert_eq!(sc.pos(), 0);
        sc.resume(16);
        assert_eq!(sc.next(), Ok(Token::Eof));
        assert!(Scanner::new("</a", 0).next().is_err());
        assert!(Scanner::new("<!ENTITY x 'y'>", 0).next().is_err());
        assert!(Scanner::new("<", 0).next().is_err());
        assert!(Scanner::new("<>", 0).next().is_err());
        assert!(Scanner::new("</>", 0).next().is_err());
    }
}
