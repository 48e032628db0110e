//! Reading the request headers that decide how a SOAP request is understood: the media type
//! (which tells the SOAP version), the action, and the content codings both ways.
//!
//! Pure functions over header values, so they are unit-tested here. They must never guess: a
//! media type or coding we do not speak is an error naming it, answered `415`.

use std::borrow::Cow;

use soapstone_codec::Version;
use soapstone_service::Action;

/// What the `Content-Type` of a SOAP POST says.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct SoapMediaType {
    pub(crate) version: Version,
    /// SOAP 1.2's `action` parameter, unquoted.
    pub(crate) action: Option<String>,
    /// The charset is a Latin-1 label: accepted only for a pure-ASCII body.
    pub(crate) ascii_only: bool,
}

const EXPECTED: &str = "expected `text/xml` (SOAP 1.1) or `application/soap+xml` (SOAP 1.2)";

/// The content type most SOAP 1.1 requests carry, read without the general parse: one
/// compare instead of a split into parameters, trims and a charset lookup (about 700
/// instructions a request). [`parse_media_type`] gives the same answer for it (tested).
const TEXT_XML_UTF8: &[u8] = b"text/xml; charset=utf-8";

/// Parses a `Content-Type` value.
pub(crate) fn soap_media_type(value: Option<&[u8]>) -> Result<SoapMediaType, String> {
    if value.is_some_and(|v| v.eq_ignore_ascii_case(TEXT_XML_UTF8)) {
        return Ok(SoapMediaType {
            version: Version::Soap11,
            action: None,
            ascii_only: false,
        });
    }
    parse_media_type(value)
}

/// [`soap_media_type`]'s general parse.
fn parse_media_type(value: Option<&[u8]>) -> Result<SoapMediaType, String> {
    let Some(value) = value else {
        return Err(format!("missing content type, {EXPECTED}"));
    };
    let value =
        std::str::from_utf8(value).map_err(|_| format!("content type is not ascii, {EXPECTED}"))?;
    let mut parts = split_params(value);
    let essence = parts.next().unwrap_or_default().trim_ascii();
    let version = if essence.eq_ignore_ascii_case("text/xml") {
        Version::Soap11
    } else if essence.eq_ignore_ascii_case("application/soap+xml") {
        Version::Soap12
    } else {
        return Err(format!("unsupported media type `{essence}`, {EXPECTED}"));
    };
    let mut action = None;
    let mut ascii_only = false;
    for param in parts {
        let Some((name, raw)) = param.split_once('=') else {
            continue;
        };
        let name = name.trim_ascii();
        let val = unquote(raw.trim_ascii());
        if name.eq_ignore_ascii_case("charset") {
            // Compared in place: a lower-cased copy would cost an allocation per request.
            let is = |names: &[&str]| names.iter().any(|n| val.eq_ignore_ascii_case(n));
            if is(&["iso-8859-1", "latin1", "iso_8859-1"]) {
                ascii_only = true;
            } else if !is(&["utf-8", "utf8", "us-ascii"]) {
                return Err(format!("unsupported charset `{val}`, expected `utf-8`"));
            }
        } else if name.eq_ignore_ascii_case("action")
            && version == Version::Soap12
            && !val.is_empty()
        {
            action = Some(val.into_owned());
        }
    }
    Ok(SoapMediaType {
        version,
        action,
        ascii_only,
    })
}

/// The value of a SOAP 1.1 `SOAPAction` header, unquoted; an empty action is `None`. An
/// [`Action`] of a usual length is inline: no allocation per request.
pub(crate) fn soap_action(value: Option<&[u8]>) -> Option<Action> {
    let raw = value?.trim_ascii();
    // The usual action, quoted or not, ASCII and without an escape, is taken by its bytes:
    // the same value as the general path below (which unescapes only inside quotes), with
    // one ASCII test instead of a UTF-8 check and a search for `\\`.
    let (inner, quoted) = match raw {
        [b'"', inner @ .., b'"'] => (inner, true),
        _ => (raw, false),
    };
    if !(quoted && inner.contains(&b'\\')) {
        if let Some(action) = Action::from_ascii(inner) {
            return (!inner.is_empty()).then_some(action);
        }
    }
    let value = std::str::from_utf8(raw).ok()?;
    let action = unquote(value);
    (!action.is_empty()).then(|| Action::new(&action))
}

/// `str::parse::<u64>` of a header's bytes (an optional `+`, one or more ASCII digits, no
/// overflow), read by bytes: the UTF-8 check and `parse` it replaces cost about 100
/// instructions for a `Content-Length` by callgrind, this loop a fraction of it.
pub(crate) fn decimal(value: &[u8]) -> Option<u64> {
    let digits = value.strip_prefix(b"+").unwrap_or(value);
    if digits.is_empty() {
        return None;
    }
    digits.iter().try_fold(0u64, |n, &b| {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        n.checked_mul(10)?.checked_add(u64::from(d))
    })
}

/// What dispatch made of a SOAP POST's head, kept beside the head by a connection that can
/// tell when the next head repeats it (the lean loop: [`soapstone_http1::request::Head::repeats`],
/// every byte the same but the `Content-Length` digits) and handed to dispatch with that
/// head, which then reads none of its headers again: the route, the media type, the action
/// and both codings are functions of those bytes and of the server's fixed configuration.
/// Made only from a head that passed every check (a refused head is read again, and refused
/// again, each time), and only while the head frames a body. About 500 of a SOAP request's
/// instructions on the echoFloat path (callgrind), most of them the action's.
#[derive(Debug, Clone)]
pub(crate) struct Negotiated {
    /// The target's path and query, as the view reads them (empty where the negotiation is
    /// not kept).
    pub(crate) path: String,
    pub(crate) query: Option<String>,
    /// The service mounted at `path`.
    pub(crate) mount: usize,
    pub(crate) version: Version,
    /// Unquoted, from `SOAPAction` (SOAP 1.1) or the media type's `action` (SOAP 1.2).
    pub(crate) action: Option<Action>,
    /// The media type's charset is Latin-1: only an ASCII body is taken.
    pub(crate) ascii_only: bool,
    /// The request's `Content-Encoding`.
    pub(crate) coding: Option<Coding>,
    /// The answer's coding, from `Accept-Encoding`.
    pub(crate) respond_with: Option<Coding>,
    /// The head frames a body (`Content-Length` or `Transfer-Encoding`): only such a head's
    /// negotiation is kept (one that does not was accepted for its body, not its bytes).
    pub(crate) framed: bool,
}

/// A content coding we read and write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Coding {
    Gzip,
    /// HTTP's `deflate`: the zlib format (RFC 1950).
    Deflate,
}

impl Coding {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Coding::Gzip => "gzip",
            Coding::Deflate => "deflate",
        }
    }
}

/// Parses a request's `Content-Encoding`: `None` for identity.
pub(crate) fn content_coding(value: Option<&[u8]>) -> Result<Option<Coding>, String> {
    let Some(value) = value else { return Ok(None) };
    let value = String::from_utf8_lossy(value);
    let mut codings = value
        .split(',')
        .map(str::trim)
        .filter(|c| !c.is_empty() && !c.eq_ignore_ascii_case("identity"));
    let coding = match codings.next() {
        None => return Ok(None),
        Some(c) if c.eq_ignore_ascii_case("gzip") || c.eq_ignore_ascii_case("x-gzip") => {
            Coding::Gzip
        }
        Some(c) if c.eq_ignore_ascii_case("deflate") => Coding::Deflate,
        Some(c) => {
            return Err(format!(
                "unsupported content encoding `{c}`, expected `gzip` or `deflate`"
            ))
        }
    };
    if let Some(extra) = codings.next() {
        return Err(format!(
            "unsupported stacked content encoding `{extra}`, expected one coding"
        ));
    }
    Ok(Some(coding))
}

/// Picks the response coding from `Accept-Encoding`: gzip, then deflate, if their q > 0.
pub(crate) fn accepted_coding(value: Option<&[u8]>) -> Option<Coding> {
    let value = std::str::from_utf8(value?).ok()?;
    let (mut gzip, mut deflate, mut star) = (None, None, None);
    for item in value.split(',') {
        let mut parts = item.split(';');
        let name = parts.next().unwrap_or_default().trim();
        let mut q = 1.0f32;
        for p in parts {
            if let Some((k, v)) = p.split_once('=') {
                if k.trim().eq_ignore_ascii_case("q") {
                    q = v.trim().parse().unwrap_or(0.0);
                }
            }
        }
        if name.eq_ignore_ascii_case("gzip") || name.eq_ignore_ascii_case("x-gzip") {
            gzip = Some(q);
        } else if name.eq_ignore_ascii_case("deflate") {
            deflate = Some(q);
        } else if name == "*" {
            star = Some(q);
        }
    }
    let ok = |q: Option<f32>| q.or(star).is_some_and(|q| q > 0.0);
    if ok(gzip) {
        Some(Coding::Gzip)
    } else if ok(deflate) {
        Some(Coding::Deflate)
    } else {
        None
    }
}

/// Splits `a; b="x;y"; c` on semicolons outside quotes. By bytes: the three it looks for are
/// ASCII, so every split falls on a character boundary (a walk by `char` decoded each one).
fn split_params(value: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(value);
    std::iter::from_fn(move || {
        let s = rest?;
        let mut quoted = false;
        let mut escaped = false;
        for (i, &b) in s.as_bytes().iter().enumerate() {
            match b {
                _ if escaped => escaped = false,
                b'\\' if quoted => escaped = true,
                b'"' => quoted = !quoted,
                b';' if !quoted => {
                    rest = Some(&s[i + 1..]);
                    return Some(&s[..i]);
                }
                _ => {}
            }
        }
        rest = None;
        Some(s)
    })
}

/// Removes surrounding double quotes and backslash escapes; borrows unless there are escapes
/// (the usual case, so reading a content type or an action allocates nothing of its own).
fn unquote(s: &str) -> Cow<'_, str> {
    match s.strip_prefix('"').and_then(|s| s.strip_suffix('"')) {
        Some(inner) if !inner.contains('\\') => Cow::Borrowed(inner),
        Some(inner) => {
            let mut out = String::with_capacity(inner.len());
            let mut chars = inner.chars();
            while let Some(c) = chars.next() {
                if c == '\\' {
                    if let Some(next) = chars.next() {
                        out.push(next);
                    }
                } else {
                    out.push(c);
                }
            }
            Cow::Owned(out)
        }
        None => Cow::Borrowed(s),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mt(s: &str) -> Result<SoapMediaType, String> {
        soap_media_type(Some(s.as_bytes()))
    }

    #[test]
    fn soap11_media_type() {
        let m = mt("text/xml; charset=utf-8").unwrap();
        assert_eq!(m.version, Version::Soap11);
        assert_eq!(m.action, None);
        assert!(!m.ascii_only);
        assert_eq!(mt("Text/XML").unwrap().version, Version::Soap11);
    }

    #[test]
    fn soap12_media_type_with_action() {
        let m = mt(r#"application/soap+xml;charset=UTF-8;action="urn:a;b\"c""#).unwrap();
        assert_eq!(m.version, Version::Soap12);
        assert_eq!(m.action.as_deref(), Some("urn:a;b\"c"));
        assert_eq!(
            mt("application/soap+xml; action=urn:x")
                .unwrap()
                .action
                .as_deref(),
            Some("urn:x")
        );
    }

    #[test]
    fn wrong_media_types_name_the_token() {
        assert_eq!(
            mt("application/json").unwrap_err(),
            "unsupported media type `application/json`, expected `text/xml` (SOAP 1.1) or `application/soap+xml` (SOAP 1.2)"
        );
        assert!(soap_media_type(None)
            .unwrap_err()
            .starts_with("missing content type"));
        assert_eq!(
            mt("text/xml; charset=utf-16").unwrap_err(),
            "unsupported charset `utf-16`, expected `utf-8`"
        );
        assert!(mt("text/xml; charset=ISO-8859-1").unwrap().ascii_only);
    }

    #[test]
    fn params_split_outside_quotes_by_bytes_and_ascii_space_is_trimmed() {
        let m =
            mt("\tapplication/soap+xml ;action=\"urn:\u{e9}t\u{e9};\\\u{e9}\" ; charset=utf-8 ")
                .unwrap();
        assert_eq!(m.action.as_deref(), Some("urn:\u{e9}t\u{e9};\u{e9}"));
        // Only HTTP's (ASCII) white space surrounds a token: a no-break space is part of it.
        assert_eq!(
            mt("text/xml\u{a0}").unwrap_err(),
            "unsupported media type `text/xml\u{a0}`, expected `text/xml` (SOAP 1.1) or `application/soap+xml` (SOAP 1.2)"
        );
    }

    #[test]
    fn the_common_content_type_reads_as_the_general_parse_does() {
        for v in [
            "text/xml; charset=utf-8",
            "Text/XML; Charset=UTF-8",
            "text/xml;charset=utf-8",
            "text/xml; charset=utf-8 ",
            "text/xml; charset=utf-16",
            "text/xml; charset=utf-8; action=x",
        ] {
            let v = Some(v.as_bytes());
            assert_eq!(soap_media_type(v), parse_media_type(v), "{v:?}");
        }
    }

    #[test]
    fn soap_action_is_unquoted() {
        assert_eq!(
            soap_action(Some(b"\"http://tempuri.org/echoFloat\"")).as_deref(),
            Some("http://tempuri.org/echoFloat")
        );
        assert_eq!(soap_action(Some(b"urn:x")).as_deref(), Some("urn:x"));
        assert_eq!(soap_action(Some(b"\"\"")), None);
        assert_eq!(soap_action(None), None);
    }

    /// `decimal` reads what `str::parse::<u64>` reads, and refuses what it refuses.
    #[test]
    fn decimal_is_parse_u64() {
        let mut cases: Vec<Vec<u8>> = [
            "",
            "+",
            "++5",
            "-5",
            "0",
            "+0",
            "007",
            "628",
            " 628",
            "628 ",
            "6 28",
            "1e3",
            "0x10",
            "18446744073709551615",
            "18446744073709551616",
            "99999999999999999999",
            "+18446744073709551615",
            "١٢",
            "\u{ff10}",
        ]
        .iter()
        .map(|s| s.as_bytes().to_vec())
        .collect();
        cases.push(vec![b'1', 0xff]);
        for b in 0..=255u8 {
            cases.push(vec![b]);
            cases.push(vec![b'4', b]);
            cases.push(vec![b, b'4']);
        }
        for v in cases {
            let want = std::str::from_utf8(&v)
                .ok()
                .and_then(|s| s.parse::<u64>().ok());
            assert_eq!(decimal(&v), want, "{v:?}");
        }
    }

    /// The by-bytes path gives what the general one (UTF-8 check, trim, unquote) gives, for
    /// every mix of quotes, escapes, white space and non-ASCII bytes.
    #[test]
    fn soap_action_by_bytes_is_the_general_path() {
        let general = |v: &[u8]| {
            let value = std::str::from_utf8(v).ok()?.trim_ascii();
            let action = unquote(value);
            (!action.is_empty()).then(|| action.into_owned())
        };
        let parts: [&[u8]; 9] = [
            b"\"",
            b"\\",
            b"urn:a",
            b" ",
            b"\t",
            "é".as_bytes(),
            b"\xff",
            b"#",
            b"",
        ];
        for a in parts {
            for b in parts {
                for c in parts {
                    for d in parts {
                        let v = [a, b, c, d].concat();
                        assert_eq!(
                            soap_action(Some(&v)).as_deref(),
                            general(&v).as_deref(),
                            "{v:?}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn content_codings() {
        assert_eq!(content_coding(None), Ok(None));
        assert_eq!(content_coding(Some(b"identity")), Ok(None));
        assert_eq!(content_coding(Some(b"GZIP")), Ok(Some(Coding::Gzip)));
        assert_eq!(content_coding(Some(b"deflate")), Ok(Some(Coding::Deflate)));
        assert_eq!(
            content_coding(Some(b"br")).unwrap_err(),
            "unsupported content encoding `br`, expected `gzip` or `deflate`"
        );
        assert!(content_coding(Some(b"gzip, gzip")).is_err());
    }

    #[test]
    fn accept_encoding_with_q_values() {
        assert_eq!(accepted_coding(Some(b"gzip, deflate")), Some(Coding::Gzip));
        assert_eq!(accepted_coding(Some(b"deflate")), Some(Coding::Deflate));
        assert_eq!(
            accepted_coding(Some(b"gzip;q=0, deflate;q=0.5")),
            Some(Coding::Deflate)
        );
        assert_eq!(accepted_coding(Some(b"*")), Some(Coding::Gzip));
        assert_eq!(accepted_coding(Some(b"*;q=0")), None);
        assert_eq!(accepted_coding(Some(b"br")), None);
        assert_eq!(accepted_coding(None), None);
    }
}
