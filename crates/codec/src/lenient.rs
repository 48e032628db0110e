//! Lenient reading for old peers: constructs real toolkits send that the specifications forbid.
//!
//! soapstone refuses these by default, as it should: a server that accepts everything teaches
//! its clients nothing, and each leniency is a small hole in what the test collections check.
//! But a *client* talking to a deployed gSOAP, Axis 1.4 or PHP ext/soap service cannot fix the
//! peer, so [`Lenient`] lets it accept exactly these, one flag each:
//!
//! * `encodingStyle` on a SOAP 1.2 `Body` (gSOAP writes it on every SOAP 1.2 message; SOAP 1.2
//!   Part 1 5.1.1 forbids it there);
//! * a character above U+FFFF written as two character references to its UTF-16 surrogates,
//!   `&#xD83D;&#xDE00;` (Axis 1.4; XML 1.0 production 66 allows only references to characters,
//!   and a surrogate is not one);
//! * `xsi:type="xsd:int"` (any XSD integer type) with `1`/`0` read into a `bool` (PHP ext/soap).
//!
//! Each accepted construct is logged through `tracing`: at `warn` the first time each kind is
//! seen in the process (so an operator learns the peer needs it), at `debug` every time, with
//! the path into the document. Must never: accept anything beyond these three, change how a
//! strict decode behaves or what it costs on its fast path (leniency is consulted only once a
//! strict reading has already failed), or let a leniency read more input than a strict decode.

use std::borrow::Cow;
use std::sync::atomic::{AtomicBool, Ordering};

/// Which non-conforming constructs of old toolkits a decode accepts. Carried in
/// [`crate::Limits::lenient`]. Default: all off (strict), as a server should be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct Lenient {
    /// Accept `env:encodingStyle` on a SOAP 1.2 `Body` (gSOAP); its value must still name a
    /// known encoding. Default: `false`.
    pub body_encoding_style: bool,
    /// Join a pair of character references to UTF-16 surrogates into the one character they
    /// encode (Axis 1.4); a lone surrogate is still refused. Default: `false`.
    pub surrogate_pairs: bool,
    /// Read a `bool` from an element typed as an XSD integer (`xsi:type="xsd:int"`) holding
    /// `1` or `0` (PHP ext/soap); other integers are still refused. Default: `false`.
    pub int_booleans: bool,
}

impl Lenient {
    /// Everything refused (the default).
    pub const STRICT: Lenient = Lenient {
        body_encoding_style: false,
        surrogate_pairs: false,
        int_booleans: false,
    };

    /// Every leniency on: what a client of old peers wants.
    pub fn all() -> Self {
        Lenient {
            body_encoding_style: true,
            surrogate_pairs: true,
            int_booleans: true,
        }
    }

    /// Whether no leniency is on.
    pub fn is_strict(&self) -> bool {
        *self == Lenient::STRICT
    }
}

/// The kinds of leniency, for logging.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Accepted {
    BodyEncodingStyle,
    SurrogatePair,
    IntBoolean,
}

static WARNED: [AtomicBool; 3] = [
    AtomicBool::new(false),
    AtomicBool::new(false),
    AtomicBool::new(false),
];

impl Accepted {
    fn describe(self) -> &'static str {
        match self {
            Accepted::BodyEncodingStyle => "accepted `encodingStyle` on the soap 1.2 Body",
            Accepted::SurrogatePair => {
                "joined character references to a utf-16 surrogate pair into one character"
            }
            Accepted::IntBoolean => "read an xsd integer `1`/`0` as a boolean",
        }
    }
}

/// Says in tracing that a leniency let a document through: `warn` once per kind and process,
/// `debug` every time.
#[cold]
pub(crate) fn log(kind: Accepted, path: &str) {
    let what = kind.describe();
    if !WARNED[kind as usize].swap(true, Ordering::Relaxed) {
        tracing::warn!(
            target: "soapstone_codec::lenient",
            path,
            "lenient decoding {what} (not allowed by the specification; logged once, then at debug)"
        );
    }
    tracing::debug!(target: "soapstone_codec::lenient", path, "lenient decoding {what}");
}

/// Replaces every `&#xD8xx;&#xDCxx;` (hex or decimal) surrogate pair of character references
/// in `raw` with the character it encodes; anything else is left for [`crate::xml::unescape`]
/// to judge (a lone surrogate stays and is refused there). `None` if there is no pair. The
/// output is never longer than the input (a pair of references is at least 14 bytes, the
/// character 4).
pub(crate) fn join_surrogates(raw: &str) -> Option<Cow<'_, str>> {
    let mut out = String::new();
    let mut copied = 0;
    let mut from = 0;
    let mut joined = false;
    while let Some(rel) = raw.get(from..).and_then(|s| s.find("&#")) {
        let at = from + rel;
        let Some((hi, after_hi)) = char_ref(raw, at) else {
            from = at + 2;
            continue;
        };
        if (0xD800..0xDC00).contains(&hi) {
            if let Some((lo, after_lo)) = char_ref(raw, after_hi) {
                if (0xDC00..0xE000).contains(&lo) {
                    let c = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                    if let Some(c) = char::from_u32(c) {
                        out.push_str(raw.get(copied..at).unwrap_or(""));
                        out.push(c);
                        copied = after_lo;
                        joined = true;
                        from = after_lo;
                        continue;
                    }
                }
            }
        }
        from = after_hi;
    }
    if !joined {
        return None;
    }
    out.push_str(raw.get(copied..).unwrap_or(""));
    Some(Cow::Owned(out))
}

/// The code point of the character reference starting at `at` (`&#123;` or `&#x7B;`) and the
/// offset after its `;`.
fn char_ref(s: &str, at: usize) -> Option<(u32, usize)> {
    let rest = s.get(at..)?.strip_prefix("&#")?;
    let end = rest.find(';')?;
    let body = rest.get(..end)?;
    let code = match body.strip_prefix('x') {
        Some(hex) if !hex.is_empty() && hex.len() <= 6 => u32::from_str_radix(hex, 16).ok()?,
        None if !body.is_empty() && body.len() <= 7 => body.parse().ok()?,
        _ => return None,
    };
    Some((code, at + 2 + end + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joins_hex_and_decimal_pairs() {
        assert_eq!(
            join_surrogates("a&#xD83D;&#xDE00;b").as_deref(),
            Some("a\u{1F600}b")
        );
        assert_eq!(
            join_surrogates("&#55357;&#56832;&amp;").as_deref(),
            Some("\u{1F600}&amp;")
        );
    }

    #[test]
    fn leaves_lone_and_reversed_surrogates() {
        assert_eq!(join_surrogates("&#xD83D;x"), None);
        assert_eq!(join_surrogates("&#xDE00;&#xD83D;"), None);
        assert_eq!(join_surrogates("&#x41;&#x"), None);
        assert_eq!(
            join_surrogates("&#xD83D;&#xD83D;&#xDE00;").as_deref(),
            Some("&#xD83D;\u{1F600}")
        );
    }
}
