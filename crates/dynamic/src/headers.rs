//! SOAP header blocks in the dynamic client: the request's written from a JSON object keyed by
//! the binding's `soap:header` part names, the response's read back into one.
//!
//! A header part names a global element (literal) or, encoded, a type whose element is the
//! part name in the `soap:header`'s `namespace` (WSDL 1.1 sections 3.5 and 3.7). Must never
//! send a block the binding does not declare (a JSON key that names none is an [`ArgError`])
//! nor drop a declared response block it could not read (that is an error with its path).

use serde_json::{Map, Value};
use soapstone_codec::{QName, Version};
use soapstone_wsdl::read::{BodyBinding, Definitions, HeaderBinding, MessagePart, Use};

use crate::decode::Reader;
use crate::encode::{ArgError, Item, Writer};
use crate::schema::Ty;

const SOAP11_ENC: &str = "http://schemas.xmlsoap.org/soap/encoding/";
const SOAP12_ENC: &str = "http://www.w3.org/2003/05/soap-encoding";

/// One declared header block: its part, element name and type.
pub(crate) struct Block<'d> {
    pub(crate) part: &'d str,
    pub(crate) item: Item<'d>,
    pub(crate) encoded: bool,
}

/// The header blocks `body` (one direction of a binding operation) declares, in order.
pub(crate) fn declared<'d>(
    defs: &'d Definitions,
    body: Option<&'d BodyBinding>,
) -> Result<Vec<Block<'d>>, String> {
    let mut out = Vec::new();
    for h in body.iter().flat_map(|b| &b.headers) {
        let part = part(defs, h)?;
        let encoded = h.use_ == Use::Encoded;
        let element = part
            .element
            .as_ref()
            .and_then(|e| defs.schema.elements.get(e));
        let item = match (element, &part.ty) {
            (Some(e), _) => Item {
                name: e.name.clone(),
                ty: Ty::Use(e.ty.as_ref()),
                repeats: false,
                optional: true,
                nillable: e.nillable,
            },
            (None, Some(t)) => Item {
                name: QName::new(h.namespace.clone().unwrap_or_default(), part.name.clone()),
                ty: Ty::Name(t),
                repeats: false,
                optional: true,
                nillable: true,
            },
            (None, None) => {
                return Err(format!(
                    "header part `{}` of message `{}` names no defined element or type ({})",
                    h.part, h.message.local, h.loc
                ))
            }
        };
        out.push(Block {
            part: &part.name,
            item,
            encoded,
        });
    }
    Ok(out)
}

fn part<'d>(defs: &'d Definitions, h: &HeaderBinding) -> Result<&'d MessagePart, String> {
    defs.messages
        .get(&h.message)
        .and_then(|m| m.parts.iter().find(|p| p.name == h.part))
        .ok_or_else(|| {
            format!(
                "header part `{}` of message `{}` is not defined ({})",
                h.part, h.message.local, h.loc
            )
        })
}

/// Writes `<Header>` with the blocks `headers` (a JSON object by part name) gives values
/// for; nothing when it gives none.
pub(crate) fn write<'d>(
    w: &mut Writer<'d>,
    blocks: &[Block<'d>],
    headers: &Value,
) -> Result<(), ArgError> {
    let map = match headers {
        Value::Null => return Ok(()),
        Value::Object(m) => m,
        _ => {
            return Err(ArgError {
                path: "/".into(),
                message: "expected a JSON object of header blocks by part name".into(),
            })
        }
    };
    for key in map.keys() {
        if !blocks.iter().any(|b| b.part == key) {
            let names: Vec<&str> = blocks.iter().map(|b| b.part).collect();
            return Err(ArgError {
                path: format!("/{key}"),
                message: format!(
                    "unknown header `{key}` (the operation declares: {})",
                    if names.is_empty() {
                        "none".to_string()
                    } else {
                        names.join(", ")
                    }
                ),
            });
        }
    }
    if map.is_empty() {
        return Ok(());
    }
    w.out.push_str("<soapenv:Header>");
    let body_encoded = w.encoded;
    for b in blocks {
        let Some(value) = map.get(b.part) else {
            continue;
        };
        w.encoded = b.encoded;
        let start = w.out.len();
        let result = w.item(&b.item, Some(value), "", "", 1);
        w.encoded = body_encoded;
        result?;
        if b.encoded {
            // An encoded block says so itself (SOAP 1.1 section 4.2: `encodingStyle` on a
            // header entry), right after its name.
            let enc = match w.version {
                Version::Soap11 => SOAP11_ENC,
                Version::Soap12 => SOAP12_ENC,
            };
            let at = start + 1 + b.item.name.local.len();
            w.out
                .insert_str(at, &format!(" soapenv:encodingStyle=\"{enc}\""));
        }
    }
    w.out.push_str("</soapenv:Header>");
    Ok(())
}

/// The declared header blocks of a response envelope, by part name (absent ones are left
/// out: a header block is optional unless the service says otherwise).
pub(crate) fn read(
    reader: &Reader<'_, '_, '_>,
    doc: &roxmltree::Document<'_>,
    blocks: &[Block<'_>],
) -> Result<Value, String> {
    let mut out = Map::new();
    let env = doc.root_element();
    let Some(header) = env
        .children()
        .find(|c| c.is_element() && c.tag_name().name() == "Header")
    else {
        return Ok(Value::Object(out));
    };
    for b in blocks {
        let name = &b.item.name;
        let node = header.children().find(|c| {
            c.is_element()
                && c.tag_name().name() == name.local
                && c.tag_name().namespace().unwrap_or("") == name.namespace
        });
        if let Some(node) = node {
            let path = format!("/Header/{}", name.local);
            let v = reader.value(node, b.item.ty, &path, 0)?;
            out.insert(b.part.to_string(), v);
        }
    }
    Ok(Value::Object(out))
}
