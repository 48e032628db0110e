//! Writing what is not a typed value: a raw element ([`crate::xsd::AnyXml`]) and the
//! alternatives of a choice (a field named `$choice:a|b`, whose enum variant names the
//! element written).
//!
//! Must never: write a raw element that was not checked well-formed (only `AnyXml`, which is
//! checked when built, reaches here), or write the marker name of a picked field as an
//! element.

use std::borrow::Cow;

use serde::Serialize;

use super::seq::KeySer;
use super::{tag, ValueSer};
use crate::error::EncodeError;

pub(crate) use crate::any::{ANY, CHOICE};

/// Writes an `AnyXml`: as it is in an `xsd:any` field; in any other place (an `anyType`
/// element) under the element name of that place, keeping the root's attributes,
/// declarations and content.
pub(super) fn write<T: Serialize + ?Sized>(s: ValueSer<'_, '_>, v: &T) -> Result<(), EncodeError> {
    let mut xml = String::new();
    v.serialize(KeySer(&mut xml))?;
    s.opts.room(s.out, xml.len() + 2 * s.name.len())?;
    if tag(s.name) == ANY || !xml.starts_with('<') {
        s.out.extend_from_slice(xml.as_bytes());
        return Ok(());
    }
    let rest = &xml[1..];
    let name_len = rest
        .find(|c: char| c.is_ascii_whitespace() || c == '/' || c == '>')
        .unwrap_or(rest.len());
    let body = &rest[name_len..];
    s.out.push(b'<');
    s.out.extend_from_slice(s.name.as_bytes());
    // Attribute values cannot hold `<`, so the last `</` is the root's end tag.
    match body.rfind("</") {
        Some(i) => {
            s.out.extend_from_slice(&body.as_bytes()[..i]);
            s.out.extend_from_slice(b"</");
            s.out.extend_from_slice(tag(s.name).as_bytes());
            s.out.push(b'>');
        }
        None => s.out.extend_from_slice(body.as_bytes()),
    }
    Ok(())
}

/// The element name of a choice's variant: the variant's name, with the namespace declaration
/// the choice field carries when its type is of another schema (`$choice:a|b xmlns="ns"`).
pub(super) fn variant_name<'v>(field: &str, variant: &'v str) -> Cow<'v, str> {
    match field.find(' ') {
        Some(i) => Cow::Owned(format!("{variant}{}", &field[i..])),
        None => Cow::Borrowed(variant),
    }
}
