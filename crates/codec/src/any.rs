//! [`AnyXml`]: a raw XML element, the value of `xsd:anyType` elements and of `xsd:any`
//! wildcards, kept verbatim instead of being mapped to a Rust type.
//!
//! It exists because a vendor schema often leaves part of a message open (a `<xsd:any>`
//! extension point, an element with no type) and a client must still carry that part through
//! unchanged. An `AnyXml` always stands alone: the decoder writes the namespace declarations
//! in scope onto its root element, and one built by a user from a string is checked to be one
//! well-formed element first.
//! Must never: hold a document type declaration, a processing instruction, text outside its
//! one root element or an unbound prefix (so writing it cannot escape the element it sits in
//! or smuggle a DTD into a message); be built past the codec's [`Limits`].

use std::cell::Cell;
use std::fmt;
use std::str::FromStr;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

use crate::error::DecodeError;
use crate::xml::{unescape, Cursor, Ev, NsStack, Source};
use crate::Limits;

/// The reserved newtype name the codec recognizes (the serializer writes the element as it
/// is, the deserializer captures it).
pub(crate) const RAW: &str = "$xsd:anyType";
/// Prefix of a choice field's serde name: `$choice:` then the alternatives' local names
/// separated by `|` (see the conventions).
pub(crate) const CHOICE: &str = "$choice:";
/// The serde name of an `xsd:any` field.
pub(crate) const ANY: &str = "$any";
/// Prefix of the serde name of a struct that is a choice's sequence alternative
/// (`$sequence:StartSeq`): its fields are sibling elements with no element around them.
pub(crate) const SEQUENCE: &str = "$sequence";

/// One XML element, verbatim, standing alone (its namespace declarations on its root).
///
/// * For an `xsd:any` wildcard (a struct field whose serde name is `$any`, usually a
///   `Vec<AnyXml>`) the codec writes the element as it is.
/// * For an element of type `xsd:anyType` (an ordinary field of type `AnyXml`) the codec
///   writes the field's element name in place of the root's name and keeps the root's
///   attributes, declarations and content, so a value read from one field can be answered in
///   another.
///
/// ```
/// use soapstone_codec::xsd::AnyXml;
/// let x: AnyXml = r#"<p:note xmlns:p="urn:n">hi &amp; bye</p:note>"#.parse()?;
/// assert_eq!(x.local_name(), "note");
/// assert!("<a><b></a>".parse::<AnyXml>().is_err());
/// assert!("<!DOCTYPE a><a/>".parse::<AnyXml>().is_err());
/// # Ok::<(), soapstone_codec::DecodeError>(())
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct AnyXml {
    xml: String,
}

impl AnyXml {
    /// Checks `xml` is one well-formed element within [`Limits::default`] (no DOCTYPE, no
    /// processing instruction, every prefix declared) and keeps it.
    pub fn parse(xml: &str) -> Result<AnyXml, DecodeError> {
        AnyXml::parse_with(xml, &Limits::default())
    }

    /// [`AnyXml::parse`] within `limits`.
    pub fn parse_with(xml: &str, limits: &Limits) -> Result<AnyXml, DecodeError> {
        let xml = xml.trim_matches(|c| matches!(c, ' ' | '\t' | '\r' | '\n'));
        if xml.len() > limits.max_document_bytes {
            return Err(DecodeError::limit(format!(
                "raw xml of {} bytes exceeds the limit of {} bytes",
                xml.len(),
                limits.max_document_bytes
            )));
        }
        if !xml.starts_with('<') {
            return Err(DecodeError::malformed("raw xml must be one element"));
        }
        let src = Source::new(xml, limits.clone());
        let mut cur = Cursor::new(&src, 0, &[], NsStack::default());
        let mut depth = 0usize;
        loop {
            match cur.next()? {
                Ev::Start(name) => {
                    if depth == 0 && cur.last_start_at != 0 {
                        return Err(cur.malformed("raw xml must be one element"));
                    }
                    depth += 1;
                    cur.resolve_element(name)?;
                    for a in &cur.attrs {
                        cur.attr_ns(a)?;
                        a.value()?;
                    }
                }
                Ev::End => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                Ev::Text(t) if depth > 0 => {
                    unescape(t).map_err(|e| cur.err(e))?;
                }
                Ev::CData(_) if depth > 0 => {}
                Ev::Text(_) | Ev::CData(_) => {
                    return Err(cur.malformed("raw xml must be one element"))
                }
                Ev::Eof => return Err(cur.malformed("unexpected end of raw xml")),
            }
        }
        match cur.next()? {
            Ev::Eof => Ok(AnyXml {
                xml: xml.to_string(),
            }),
            _ => Err(cur.malformed("raw xml must be one element: content follows it")),
        }
    }

    /// Keeps text this codec checked already (one standalone element).
    pub(crate) fn checked(xml: String) -> AnyXml {
        AnyXml { xml }
    }

    /// The element as text.
    pub fn as_str(&self) -> &str {
        &self.xml
    }

    /// The element as text.
    pub fn into_string(self) -> String {
        self.xml
    }

    /// The root element's qualified name as written (`p:note`).
    pub fn name(&self) -> &str {
        let rest = &self.xml[1..];
        let end = rest
            .find(|c: char| c.is_ascii_whitespace() || c == '/' || c == '>')
            .unwrap_or(rest.len());
        &rest[..end]
    }

    /// The root element's local name (`note`).
    pub fn local_name(&self) -> &str {
        let n = self.name();
        n.rsplit(':').next().unwrap_or(n)
    }
}

thread_local! {
    /// Set while this codec's decoder hands over an element it captured from a document it
    /// checked (well-formed, within its limits, declarations made explicit), so it is not
    /// parsed a second time. No other deserializer can set it.
    static CAPTURED: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` (the hand-over of a captured element) with [`CAPTURED`] set.
pub(crate) fn captured<R>(f: impl FnOnce() -> R) -> R {
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            CAPTURED.set(false);
        }
    }
    CAPTURED.set(true);
    let _reset = Reset;
    f()
}

impl fmt::Debug for AnyXml {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "AnyXml({:?})", self.xml)
    }
}

impl fmt::Display for AnyXml {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.xml)
    }
}

impl FromStr for AnyXml {
    type Err = DecodeError;
    fn from_str(s: &str) -> Result<Self, DecodeError> {
        AnyXml::parse(s)
    }
}

impl Serialize for AnyXml {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_newtype_struct(RAW, self.xml.as_str())
    }
}

impl<'de> Deserialize<'de> for AnyXml {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = AnyXml;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("one xml element")
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<AnyXml, E> {
                if CAPTURED.get() {
                    // Made by this codec's decoder from a checked document (see `captured`).
                    return Ok(AnyXml { xml: v });
                }
                self.visit_str(&v)
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<AnyXml, E> {
                // Only checked here: the text is in memory already (the codec's limits bounded
                // it when it came off the wire), and the check reads it without recursion.
                let unbounded = Limits {
                    max_document_bytes: usize::MAX,
                    max_depth: usize::MAX,
                    max_attributes: usize::MAX,
                    max_name_len: usize::MAX,
                    max_text_len: usize::MAX,
                    ..Limits::default()
                };
                AnyXml::parse_with(v, &unbounded).map_err(E::custom)
            }
            fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<AnyXml, D::Error> {
                d.deserialize_str(self)
            }
        }
        d.deserialize_newtype_struct(RAW, V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_checks_one_standalone_element() {
        let x = AnyXml::parse(" <a:b xmlns:a=\"urn:a\" k='v'><c/>t</a:b>\n").unwrap();
        assert_eq!(x.as_str(), "<a:b xmlns:a=\"urn:a\" k='v'><c/>t</a:b>");
        assert_eq!((x.name(), x.local_name()), ("a:b", "b"));
        for bad in [
            "<a>",
            "<a></b>",
            "<a/><b/>",
            "text",
            "<a/>tail",
            "<!DOCTYPE a [<!ENTITY x 'y'>]><a>&x;</a>",
            "<?pi x?><a/>",
            "<p:a/>",
            "<a q:k='1'/>",
            "<a>&unknown;</a>",
        ] {
            assert!(AnyXml::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn limits_apply() {
        let limits = Limits {
            max_depth: 3,
            ..Limits::default()
        };
        assert!(AnyXml::parse_with("<a><b><c/></b></a>", &limits).is_ok());
        let e = AnyXml::parse_with("<a><b><c><d/></c></b></a>", &limits).unwrap_err();
        assert!(e.is_limit(), "{e}");
    }
}
