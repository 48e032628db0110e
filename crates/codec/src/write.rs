//! Byte-level output helpers: escaping and number formatting straight into a `Vec<u8>`.
//!
//! Hand-written instead of quick-xml's `Writer` because the encoder's speed target (1 GB/s of
//! SOAP-encoded arrays) leaves no room for per-event structs or `Cow` escapes: text is scanned
//! with `memchr` and copied in runs, integers go through `itoa`, floats through `ryu`.
//! Must never: write unescaped markup characters from user strings, or allocate per value.

/// Appends `s` with `<`, `>`, `&` (and `\r`, which would otherwise be normalized away)
/// escaped, for element content.
pub(crate) fn text(out: &mut Vec<u8>, s: &str) {
    let b = s.as_bytes();
    if memchr::memchr(b'\r', b).is_none() {
        markup(out, b);
        return;
    }
    let mut first = true;
    for part in b.split(|&c| c == b'\r') {
        if !first {
            out.extend_from_slice(b"&#13;");
        }
        first = false;
        markup(out, part);
    }
}

fn markup(out: &mut Vec<u8>, b: &[u8]) {
    let mut start = 0;
    for p in memchr::memchr3_iter(b'<', b'&', b'>', b) {
        out.extend_from_slice(&b[start..p]);
        out.extend_from_slice(match b[p] {
            b'<' => b"&lt;",
            b'>' => b"&gt;",
            _ => b"&amp;",
        });
        start = p + 1;
    }
    out.extend_from_slice(&b[start..]);
}

/// Byte classes for [`text_checked`]: 0 plain, 1 escape, 2 not allowed in XML, 3 maybe the
/// start of U+FFFE/U+FFFF.
static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 0x20 {
        t[c] = 2;
        c += 1;
    }
    t[b'\t' as usize] = 0;
    t[b'\n' as usize] = 0;
    t[b'\r' as usize] = 1;
    t[b'<' as usize] = 1;
    t[b'>' as usize] = 1;
    t[b'&' as usize] = 1;
    t[0xEF] = 3;
    t
};

/// Appends `s` escaped for element content, in one pass that also refuses what XML 1.0
/// cannot carry (C0 controls but tab, LF, CR; U+FFFE, U+FFFF). `Err` holds the character.
#[inline]
pub(crate) fn text_checked(out: &mut Vec<u8>, s: &str) -> Result<(), u32> {
    let b = s.as_bytes();
    let mut start = 0;
    let mut i = 0;
    while i < b.len() {
        match CLASS[b[i] as usize] {
            0 => i += 1,
            1 => {
                out.extend_from_slice(&b[start..i]);
                out.extend_from_slice(match b[i] {
                    b'<' => b"&lt;",
                    b'>' => b"&gt;",
                    b'&' => b"&amp;",
                    _ => b"&#13;",
                });
                i += 1;
                start = i;
            }
            2 => return Err(u32::from(b[i])),
            _ => {
                if b.get(i + 1) == Some(&0xBF) {
                    if let Some(&c @ (0xBE | 0xBF)) = b.get(i + 2) {
                        return Err(0xFFFE + u32::from(c - 0xBE));
                    }
                }
                i += 1;
            }
        }
    }
    out.extend_from_slice(&b[start..]);
    Ok(())
}

/// The bytes [`attr`] escapes.
static ATTR_ESCAPE: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 7 {
        t[b"<>&\"\r\n\t"[i] as usize] = true;
        i += 1;
    }
    t
};

/// Appends `s` escaped for a double-quoted attribute value.
pub(crate) fn attr(out: &mut Vec<u8>, s: &str) {
    let b = s.as_bytes();
    // Most values (namespace URIs, names) have nothing to escape: one table scan and one
    // copy, instead of a seven-way match per byte.
    let Some(first) = b.iter().position(|&c| ATTR_ESCAPE[usize::from(c)]) else {
        out.extend_from_slice(b);
        return;
    };
    let mut start = 0;
    for (i, &c) in b.iter().enumerate().skip(first) {
        let rep: &[u8] = match c {
            b'<' => b"&lt;",
            b'>' => b"&gt;",
            b'&' => b"&amp;",
            b'"' => b"&quot;",
            b'\r' => b"&#13;",
            b'\n' => b"&#10;",
            b'\t' => b"&#9;",
            _ => continue,
        };
        out.extend_from_slice(&b[start..i]);
        out.extend_from_slice(rep);
        start = i + 1;
    }
    out.extend_from_slice(&b[start..]);
}

pub(crate) fn int<I: itoa::Integer>(out: &mut Vec<u8>, v: I) {
    let mut buf = itoa::Buffer::new();
    out.extend_from_slice(buf.format(v).as_bytes());
}

/// XML Schema lexical form of a float: shortest round-trip digits, `INF`, `-INF`, `NaN`.
///
/// By `zmij` (Żmij, the successor of Ryū by the same kind of shortest-digits search): 193
/// instructions for 654.321 where `ryu` took 294 (callgrind, one call in a loop), the largest
/// single cost of an echoFloat answer. Its exponent carries a `+` (`1e+20`) that `ryu`'s did
/// not; both are XML Schema floats, and the `+` is dropped so the bytes stay what they were.
pub(crate) fn f32(out: &mut Vec<u8>, v: f32) {
    if v.is_finite() {
        let mut buf = zmij::Buffer::new();
        shortest(out, buf.format_finite(v));
    } else {
        nonfinite(out, v.is_nan(), v.is_sign_negative());
    }
}

/// XML Schema lexical form of a double (see [`f32`]).
pub(crate) fn f64(out: &mut Vec<u8>, v: f64) {
    if v.is_finite() {
        let mut buf = zmij::Buffer::new();
        shortest(out, buf.format_finite(v));
    } else {
        nonfinite(out, v.is_nan(), v.is_sign_negative());
    }
}

/// Writes zmij's digits as ryu wrote them: `1` for `1.0` (the same value, shorter), `1e20`
/// for `1e+20`. The `+` can only be among the last five bytes (an exponent has at most three
/// digits), where it is looked for: this runs on every float written.
#[inline]
fn shortest(out: &mut Vec<u8>, s: &str) {
    let s = match s.as_bytes() {
        [whole @ .., b'.', b'0'] => whole,
        s => s,
    };
    let tail = s.len().saturating_sub(5);
    match s[tail..].iter().position(|&b| b == b'+') {
        None => out.extend_from_slice(s),
        Some(plus) => {
            out.extend_from_slice(&s[..tail + plus]);
            out.extend_from_slice(&s[tail + plus + 1..]);
        }
    }
}

fn nonfinite(out: &mut Vec<u8>, nan: bool, neg: bool) {
    out.extend_from_slice(match (nan, neg) {
        (true, _) => b"NaN",
        (false, false) => b"INF",
        (false, true) => b"-INF",
    });
}

#[cfg(test)]
mod tests {
    fn t(s: &str) -> String {
        let mut v = Vec::new();
        super::text(&mut v, s);
        String::from_utf8(v).unwrap()
    }

    #[test]
    fn checked_text() {
        let mut v = Vec::new();
        super::text_checked(&mut v, "a<b>&\r\nc é\u{FFFD}").unwrap();
        assert_eq!(
            String::from_utf8(v).unwrap(),
            "a&lt;b&gt;&amp;&#13;\nc é\u{FFFD}"
        );
        assert_eq!(super::text_checked(&mut Vec::new(), "x\u{1}"), Err(1));
        assert_eq!(
            super::text_checked(&mut Vec::new(), "\u{FFFF}"),
            Err(0xFFFF)
        );
        assert_eq!(
            super::text_checked(&mut Vec::new(), "\u{FFFE}"),
            Err(0xFFFE)
        );
    }

    #[test]
    fn escapes_attribute_values() {
        let a = |s: &str| {
            let mut v = b"=".to_vec();
            super::attr(&mut v, s);
            String::from_utf8(v).unwrap()
        };
        assert_eq!(a("http://soapinterop.org/"), "=http://soapinterop.org/");
        assert_eq!(a(""), "=");
        assert_eq!(a("<"), "=&lt;");
        assert_eq!(
            a("a\"b<c>d&e\rf\ng\th é"),
            "=a&quot;b&lt;c&gt;d&amp;e&#13;f&#10;g&#9;h é"
        );
        assert_eq!(a("x&"), "=x&amp;");
    }

    #[test]
    fn escapes_text() {
        assert_eq!(t("a<b>&c"), "a&lt;b&gt;&amp;c");
        assert_eq!(t("plain"), "plain");
        assert_eq!(t("x\r\ny<"), "x&#13;\ny&lt;");
        assert_eq!(t("\r"), "&#13;");
        assert_eq!(t("é<ü"), "é&lt;ü");
    }

    #[test]
    #[allow(clippy::approx_constant)] // 3.14159 is Sam Ruby's echoFloat value
    fn floats_round_trip_short() {
        let mut v = Vec::new();
        super::f32(&mut v, 3.14159);
        v.push(b' ');
        super::f64(&mut v, 1.0);
        v.push(b' ');
        super::f64(&mut v, f64::NEG_INFINITY);
        v.push(b' ');
        super::f32(&mut v, f32::NAN);
        assert_eq!(String::from_utf8(v).unwrap(), "3.14159 1 -INF NaN");
    }

    fn ryu32(v: f32) -> String {
        let s = ryu::Buffer::new().format_finite(v).to_string();
        s.strip_suffix(".0").map_or(s.clone(), str::to_string)
    }

    fn ryu64(v: f64) -> String {
        let s = ryu::Buffer::new().format_finite(v).to_string();
        s.strip_suffix(".0").map_or(s.clone(), str::to_string)
    }

    fn ours<F>(write: F) -> String
    where
        F: FnOnce(&mut Vec<u8>),
    {
        let mut v = Vec::new();
        write(&mut v);
        String::from_utf8(v).unwrap()
    }

    #[test]
    fn floats_are_written_as_before_zmij() {
        for v in [
            1e20f32,
            -8.522675e22,
            1.5e-7,
            654.321,
            123456790.0,
            1e-45,
            f32::MAX,
            0.0,
            -0.0,
        ] {
            assert_eq!(ours(|o| super::f32(o, v)), ryu32(v), "{v}");
        }
        for v in [1e300f64, 1e20, -2.5e-300, 5e-324, f64::MAX, 0.1, 0.0] {
            assert_eq!(ours(|o| super::f64(o, v)), ryu64(v), "{v}");
        }
    }

    proptest::proptest! {
        #[test]
        fn any_float_is_written_as_before_zmij(bits32 in proptest::prelude::any::<u32>(), bits64 in proptest::prelude::any::<u64>()) {
            let (a, b) = (f32::from_bits(bits32), f64::from_bits(bits64));
            if a.is_finite() {
                proptest::prop_assert_eq!(ours(|o| super::f32(o, a)), ryu32(a));
            }
            if b.is_finite() {
                proptest::prop_assert_eq!(ours(|o| super::f64(o, b)), ryu64(b));
            }
        }
    }
}
