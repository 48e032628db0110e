//! SOAP-encoded header blocks (`soap:header use="encoded"`, SOAP 1.1 section 4.2 and 5): the
//! block is the value itself, written as an rpc/encoded part is (`xsi:type`, unqualified
//! children, SOAP-ENC arrays), under the block's qualified name.
//!
//! A header entry is written apart from the envelope that will carry it, so it declares every
//! prefix it uses (its own, `xsi`, `xsd`, SOAP-ENC, the envelope's for `encodingStyle`) on
//! itself. Must never rely on a declaration of the envelope: the same block may travel in a
//! literal message or one of the other SOAP version.

use serde::Serialize;

use super::{Kind, Opts, ValueSer, XSI_NS_2001};
use crate::error::EncodeError;
use crate::write;
use crate::{QName, Version};

/// Writes one SOAP-encoded header block: an element `name` holding `value` as an encoded
/// value (a simple value is its text with `xsi:type`, a struct its unqualified fields), with
/// `encodingStyle` of `version`. `types_ns` is the namespace of the types whose serde name
/// carries none (the service's own, written `tns:Type` in `xsi:type`). The result is what
/// [`encode`](super::encode) takes in `headers`.
pub fn encode_encoded_header_block<T: Serialize + ?Sized>(
    out: &mut Vec<u8>,
    version: Version,
    name: &QName,
    types_ns: &str,
    value: &T,
) -> Result<(), EncodeError> {
    let enc12 = version == Version::Soap12;
    let opts = Opts {
        typed: true,
        encoded: true,
        enc12,
        item_types: false,
        tns: !types_ns.is_empty(),
        default_ns: false,
        any_type: "xsd:anyType",
        max_bytes: usize::MAX,
    };
    let encoding = if enc12 {
        "http://www.w3.org/2003/05/soap-encoding"
    } else {
        "http://schemas.xmlsoap.org/soap/encoding/"
    };
    // The start tag's name with every declaration the block needs: `ValueSer` writes it as
    // is and ends the element with the part before the first space.
    let mut tag = Vec::with_capacity(256);
    let prefixed = !name.namespace.is_empty();
    if prefixed {
        tag.extend_from_slice(b"h:");
    }
    tag.extend_from_slice(name.local.as_bytes());
    if prefixed {
        tag.extend_from_slice(b" xmlns:h=\"");
        write::attr(&mut tag, &name.namespace);
        tag.push(b'"');
    }
    if opts.tns {
        tag.extend_from_slice(b" xmlns:tns=\"");
        write::attr(&mut tag, types_ns);
        tag.push(b'"');
    }
    tag.extend_from_slice(b" xmlns:xsi=\"");
    tag.extend_from_slice(XSI_NS_2001.as_bytes());
    tag.extend_from_slice(b"\" xmlns:xsd=\"http://www.w3.org/2001/XMLSchema\"");
    tag.extend_from_slice(if enc12 {
        b" xmlns:enc=\"http://www.w3.org/2003/05/soap-encoding\"".as_slice()
    } else {
        b" xmlns:soapenc=\"http://schemas.xmlsoap.org/soap/encoding/\"".as_slice()
    });
    tag.extend_from_slice(b" xmlns:e=\"");
    tag.extend_from_slice(version.envelope_ns().as_bytes());
    tag.extend_from_slice(b"\" e:encodingStyle=\"");
    tag.extend_from_slice(encoding.as_bytes());
    tag.push(b'"');
    // Built from `&str`s and escaped attribute values only.
    let tag = String::from_utf8(tag).map_err(|_| EncodeError::new("header name is not UTF-8"))?;
    value.serialize(ValueSer {
        out,
        opts: &opts,
        name: &tag,
        kind: Kind::Field,
        scope: None,
    })
}
