//! The action of a request (SOAP 1.1 `SOAPAction`, SOAP 1.2's `action` media-type parameter)
//! as a value that costs no allocation to make or to clone in the common case.
//!
//! Every request carries one, and it used to be an owned `String`: one allocation per request
//! for a value that is read once (to find the operation) and cloned into a handler's
//! [`Context`](crate::Context). Actions are short URIs (`http://soapinterop.org/`,
//! `http://tempuri.org/echoFloat`, `urn:charging#releaseRes`), so up to [`Action::INLINE`] bytes
//! are kept inline; a longer one is shared [`Bytes`] (one allocation to copy it in, none to
//! clone, or none at all when a transport hands over a slice of its own read buffer with
//! [`Action::from_shared`]).
//!
//! Must never: hold anything but UTF-8 (it derefs to `str`), or allocate for an action of up to
//! [`Action::INLINE`] bytes.

use std::fmt;
use std::ops::Deref;

use bytes::Bytes;

/// A request's action, unquoted: derefs to `str`, clones without allocating.
#[derive(Clone)]
pub struct Action(Repr);

#[derive(Clone)]
enum Repr {
    Inline {
        len: u8,
        buf: [u8; Action::INLINE],
    },
    /// Always valid UTF-8 (checked where it is built).
    Shared(Bytes),
}

impl Action {
    /// The longest action kept inline (no allocation): `62` bytes.
    pub const INLINE: usize = 62;

    /// An action holding a copy of `value`: inline up to [`Action::INLINE`] bytes, one
    /// allocation past that.
    pub fn new(value: &str) -> Self {
        let bytes = value.as_bytes();
        if bytes.len() <= Self::INLINE {
            let mut buf = [0u8; Self::INLINE];
            buf[..bytes.len()].copy_from_slice(bytes);
            // (fits: INLINE < 256)
            Action(Repr::Inline {
                len: bytes.len() as u8,
                buf,
            })
        } else {
            Action(Repr::Shared(Bytes::copy_from_slice(bytes)))
        }
    }

    /// An action holding a copy of `value` if it is ASCII (as a header's action nearly always
    /// is), else `None`: a transport that has the bytes need not check them as UTF-8 first
    /// (`str::from_utf8` costs about 130 instructions on a 25-byte action by callgrind,
    /// `is_ascii` a word at a time a fraction of it), and ASCII is UTF-8.
    pub fn from_ascii(value: &[u8]) -> Option<Self> {
        if !value.is_ascii() {
            return None;
        }
        if value.len() <= Self::INLINE {
            let mut buf = [0u8; Self::INLINE];
            buf[..value.len()].copy_from_slice(value);
            Some(Action(Repr::Inline {
                len: value.len() as u8,
                buf,
            }))
        } else {
            Some(Action(Repr::Shared(Bytes::copy_from_slice(value))))
        }
    }

    /// An action over shared bytes (e.g. a slice of a transport's read buffer), without
    /// copying them; an error when they are not UTF-8.
    pub fn from_shared(value: Bytes) -> Result<Self, std::str::Utf8Error> {
        std::str::from_utf8(&value)?;
        Ok(Action(Repr::Shared(value)))
    }

    /// The action's bytes (UTF-8), without the check [`Action::as_str`] makes again on each
    /// call (a lookup by bytes needs none).
    pub fn as_bytes(&self) -> &[u8] {
        match &self.0 {
            Repr::Inline { len, buf } => &buf[..*len as usize],
            Repr::Shared(b) => b,
        }
    }

    /// The action as a string slice.
    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Inline { len, buf } => {
                // Built from a `&str` cut at its own length: always a char boundary.
                std::str::from_utf8(&buf[..*len as usize]).unwrap_or_default()
            }
            Repr::Shared(b) => std::str::from_utf8(b).unwrap_or_default(),
        }
    }
}

impl Deref for Action {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Action {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl From<&str> for Action {
    fn from(value: &str) -> Self {
        Action::new(value)
    }
}

impl From<String> for Action {
    fn from(value: String) -> Self {
        if value.len() <= Self::INLINE {
            Action::new(&value)
        } else {
            // Takes the `String`'s buffer over: no copy.
            Action(Repr::Shared(Bytes::from(value)))
        }
    }
}

impl From<&String> for Action {
    fn from(value: &String) -> Self {
        Action::new(value)
    }
}

/// By bytes: an action is UTF-8 by construction, so equal bytes are equal strings, and
/// [`Action::as_str`] would check both again.
impl PartialEq for Action {
    fn eq(&self, other: &Self) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl Eq for Action {}

impl PartialEq<str> for Action {
    fn eq(&self, other: &str) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl PartialEq<&str> for Action {
    fn eq(&self, other: &&str) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl std::hash::Hash for Action {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl fmt::Debug for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_are_the_strings() {
        let long = "urn:".to_owned() + &"\u{e9}".repeat(40);
        for a in ["", "http://soapinterop.org/", &long] {
            let action = Action::new(a);
            assert_eq!(action.as_bytes(), a.as_bytes());
            assert_eq!(action.as_str(), a);
        }
        let shared = Action::from_shared(Bytes::from_static(b"urn:x")).unwrap();
        assert_eq!(shared.as_bytes(), b"urn:x");
    }

    #[test]
    fn short_actions_are_inline_and_long_ones_shared() {
        let short = Action::new("http://soapinterop.org/");
        assert!(matches!(short.0, Repr::Inline { len: 23, .. }));
        assert_eq!(&*short, "http://soapinterop.org/");
        let edge = "a".repeat(Action::INLINE);
        assert!(matches!(Action::new(&edge).0, Repr::Inline { .. }));
        let long = "urn:".to_owned() + &"é".repeat(40);
        let action = Action::from(long.clone());
        assert!(matches!(action.0, Repr::Shared(_)));
        assert_eq!(action, *long.as_str());
        assert_eq!(action.clone().to_string(), long);
    }

    #[test]
    fn shared_bytes_must_be_utf8() {
        assert!(Action::from_shared(Bytes::from_static(b"urn:\xff")).is_err());
        let ok = Action::from_shared(Bytes::from_static(b"urn:a#b")).unwrap();
        assert_eq!(ok.as_str(), "urn:a#b");
        assert_eq!(format!("{ok:?}"), "\"urn:a#b\"");
    }
}
