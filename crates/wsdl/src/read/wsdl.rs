//! Reading a `wsdl:definitions` element: imports, inline schemas, messages, portTypes, SOAP 1.1
//! and 1.2 bindings (style, use, soapAction, `soap:header`, `soap:fault`), and services.
//!
//! Must never resolve a reference (a message may be defined by a document read later): that is
//! [`check`](super::check)'s job.

use roxmltree::Node;
use soapstone_codec::QName;

use super::components::{
    AbstractOperation, Binding, BindingOperation, BodyBinding, FaultBinding, HeaderBinding,
    Message, MessagePart, OpStyle, Port, PortType, Service, SoapVersion, Use,
};
use super::load::{attr, children, documentation, loc, qname_attr, resolve, Loader, WSDL_NS};
use super::{schema, ReadError};
use crate::xsd::XSD_NS;

const SOAP11: &str = "http://schemas.xmlsoap.org/wsdl/soap/";
const SOAP12: &str = "http://schemas.xmlsoap.org/wsdl/soap12/";

pub(super) fn read_definitions(
    ld: &mut Loader<'_>,
    file: &str,
    top: Node<'_, '_>,
    root: bool,
) -> Result<(), ReadError> {
    let tns = attr(top, "targetNamespace").unwrap_or("").to_string();
    if root {
        ld.defs.target_namespace = tns.clone();
        ld.defs.name = attr(top, "name").map(str::to_string);
        ld.defs.documentation = documentation(top, WSDL_NS);
    }
    let q = |local: &str| QName::new(tns.clone(), local.trim());
    let required = |n: Node<'_, '_>, name: &str| -> Result<String, ReadError> {
        attr(n, name).map(|s| s.trim().to_string()).ok_or_else(|| {
            ReadError::new(
                loc(file, n),
                format!("`wsdl:{}` has no `{name}`", n.tag_name().name()),
            )
        })
    };
    let qref = |n: Node<'_, '_>, name: &str| -> Result<QName, ReadError> {
        qname_attr(file, n, name)?.ok_or_else(|| {
            ReadError::new(
                loc(file, n),
                format!("`wsdl:{}` has no `{name}`", n.tag_name().name()),
            )
        })
    };
    for c in top.children().filter(|c| c.is_element()) {
        if c.tag_name().namespace() != Some(WSDL_NS) {
            continue;
        }
        let here = loc(file, c);
        match c.tag_name().name() {
            "import" => {
                let location = required(c, "location")?;
                let target = resolve(file, &location);
                let source = ld.fetch(&target, &here)?;
                // A `wsdl:import` may name a schema: WS-I forbids it, but it is common.
                if looks_like_schema(&source) {
                    ld.load_schema(&target, None, &here)?;
                } else {
                    ld.load_wsdl(source, false)?;
                }
            }
            "types" => {
                for s in children(c, XSD_NS, "schema") {
                    schema::read_schema(ld, file, s, None)?;
                }
                for s in c.children().filter(|s| {
                    s.is_element()
                        && s.tag_name().name() == "schema"
                        && s.tag_name()
                            .namespace()
                            .is_some_and(|ns| super::check::OLD_XSD.contains(&ns))
                }) {
                    let tns = attr(s, "targetNamespace").unwrap_or("").to_string();
                    let xsd = s.tag_name().namespace().unwrap_or("").to_string();
                    ld.defs.schema.draft_schemas.push((tns, xsd, loc(file, s)));
                }
            }
            "message" => {
                let name = q(&required(c, "name")?);
                let mut parts = Vec::new();
                for p in children(c, WSDL_NS, "part") {
                    parts.push(MessagePart {
                        name: required(p, "name")?,
                        element: qname_attr(file, p, "element")?,
                        ty: qname_attr(file, p, "type")?,
                        loc: loc(file, p),
                    });
                }
                let message = Message {
                    name: name.clone(),
                    parts,
                    loc: here,
                };
                ld.defs.messages.entry(name).or_insert(message);
            }
            "portType" => {
                let name = q(&required(c, "name")?);
                let mut operations = Vec::new();
                for o in children(c, WSDL_NS, "operation") {
                    let msg = |dir: &str| -> Result<Option<QName>, ReadError> {
                        match children(o, WSDL_NS, dir).next() {
                            Some(m) => qref(m, "message").map(Some),
                            None => Ok(None),
                        }
                    };
                    let mut faults = Vec::new();
                    for f in children(o, WSDL_NS, "fault") {
                        faults.push((required(f, "name")?, qref(f, "message")?));
                    }
                    // A solicit-response operation writes its output first (WSDL 1.1 2.4.4).
                    let first = o.children().find(|n| {
                        n.is_element()
                            && n.tag_name().namespace() == Some(WSDL_NS)
                            && matches!(n.tag_name().name(), "input" | "output")
                    });
                    operations.push(AbstractOperation {
                        name: required(o, "name")?,
                        input: msg("input")?,
                        output: msg("output")?,
                        output_first: first.is_some_and(|n| n.tag_name().name() == "output"),
                        faults,
                        documentation: documentation(o, WSDL_NS),
                        loc: loc(file, o),
                    });
                }
                let port_type = PortType {
                    name: name.clone(),
                    operations,
                    loc: here,
                };
                ld.defs.port_types.entry(name).or_insert(port_type);
            }
            "binding" => {
                let binding = binding(file, c, q(&required(c, "name")?), qref(c, "type")?)?;
                ld.defs
                    .bindings
                    .entry(binding.name.clone())
                    .or_insert(binding);
            }
            "service" => {
                let mut ports = Vec::new();
                for p in children(c, WSDL_NS, "port") {
                    let address = p
                        .children()
                        .find(|a| a.is_element() && a.tag_name().name() == "address")
                        .and_then(|a| attr(a, "location"))
                        .map(str::to_string);
                    ports.push(Port {
                        name: required(p, "name")?,
                        binding: qref(p, "binding")?,
                        address,
                        loc: loc(file, p),
                    });
                }
                ld.defs.services.push(Service {
                    name: q(&required(c, "name")?),
                    ports,
                    documentation: documentation(c, WSDL_NS),
                    loc: here,
                });
            }
            _ => {}
        }
    }
    Ok(())
}

fn looks_like_schema(source: &super::load::Source) -> bool {
    let head = source.text.get(..4096).unwrap_or(&source.text);
    !head.contains("definitions") && head.contains("schema")
}

/// The first child of `n` in one of the SOAP binding namespaces named `local`, and its version.
fn soap_child<'a, 'i>(n: Node<'a, 'i>, local: &str) -> Option<(Node<'a, 'i>, SoapVersion)> {
    n.children().find_map(|c| {
        if !c.is_element() || c.tag_name().name() != local {
            return None;
        }
        match c.tag_name().namespace() {
            Some(SOAP11) => Some((c, SoapVersion::Soap11)),
            Some(SOAP12) => Some((c, SoapVersion::Soap12)),
            _ => None,
        }
    })
}

fn use_of(n: Node<'_, '_>) -> Use {
    if attr(n, "use") == Some("encoded") {
        Use::Encoded
    } else {
        Use::Literal
    }
}

fn style_of(n: Node<'_, '_>) -> Option<OpStyle> {
    match attr(n, "style") {
        Some("rpc") => Some(OpStyle::Rpc),
        Some("document") => Some(OpStyle::Document),
        _ => None,
    }
}

fn binding(
    file: &str,
    b: Node<'_, '_>,
    name: QName,
    port_type: QName,
) -> Result<Binding, ReadError> {
    let soap = soap_child(b, "binding");
    let default_style = soap
        .and_then(|(s, _)| style_of(s))
        .unwrap_or(OpStyle::Document);
    let mut operations = Vec::new();
    for o in children(b, WSDL_NS, "operation") {
        let op_name = attr(o, "name").unwrap_or("").trim().to_string();
        let soap_op = soap_child(o, "operation");
        let body = |dir: &str| -> Result<Option<BodyBinding>, ReadError> {
            let Some(d) = children(o, WSDL_NS, dir).next() else {
                return Ok(None);
            };
            let soap_body = soap_child(d, "body").map(|(n, _)| n);
            let mut headers = Vec::new();
            for h in d.children().filter(|h| {
                h.is_element()
                    && h.tag_name().name() == "header"
                    && matches!(h.tag_name().namespace(), Some(SOAP11 | SOAP12))
            }) {
                let Some(message) = qname_attr(file, h, "message")? else {
                    return Err(ReadError::new(
                        loc(file, h),
                        "`soap:header` has no `message`",
                    ));
                };
                headers.push(HeaderBinding {
                    message,
                    part: attr(h, "part").unwrap_or("").to_string(),
                    use_: use_of(h),
                    namespace: attr(h, "namespace").map(str::to_string),
                    loc: loc(file, h),
                });
            }
            Ok(Some(BodyBinding {
                use_: soap_body.map_or(Use::Literal, use_of),
                namespace: soap_body
                    .and_then(|n| attr(n, "namespace"))
                    .map(str::to_string),
                parts: soap_body
                    .and_then(|n| attr(n, "parts"))
                    .map(|p| p.split_whitespace().map(str::to_string).collect()),
                headers,
            }))
        };
        // `soap:input` where `wsdl:input` belongs (node-soap's `addPrefix` sample).
        let misplaced = o.children().find_map(|c| {
            let (n, v) = (c.tag_name().name(), c.tag_name().namespace());
            (c.is_element()
                && matches!(n, "input" | "output")
                && matches!(v, Some(SOAP11 | SOAP12))
                && children(o, WSDL_NS, n).next().is_none())
            .then(|| {
                let prefix = c
                    .lookup_prefix(v.unwrap_or(""))
                    .filter(|p| !p.is_empty())
                    .unwrap_or("soap");
                (format!("{prefix}:{n}"), loc(file, c))
            })
        });
        let faults = children(o, WSDL_NS, "fault")
            .map(|f| FaultBinding {
                name: attr(f, "name").unwrap_or("").to_string(),
                use_: soap_child(f, "fault").map_or(Use::Literal, |(n, _)| use_of(n)),
            })
            .collect();
        operations.push(BindingOperation {
            name: op_name,
            action: soap_op
                .and_then(|(n, _)| attr(n, "soapAction"))
                .map(str::to_string),
            style: soap_op
                .and_then(|(n, _)| style_of(n))
                .unwrap_or(default_style),
            input: body("input")?,
            output: body("output")?,
            faults,
            misplaced,
            loc: loc(file, o),
        });
    }
    // The extension element of a binding that is not SOAP's (`http:binding verb="POST"`).
    let other = b
        .children()
        .find(|c| {
            c.is_element()
                && c.tag_name().name() == "binding"
                && !matches!(c.tag_name().namespace(), Some(SOAP11 | SOAP12 | WSDL_NS))
        })
        .filter(|_| soap.is_none())
        .map(|c| {
            let ns = c.tag_name().namespace().unwrap_or("");
            let name = match c.lookup_prefix(ns) {
                Some(p) if !p.is_empty() => format!("{p}:binding"),
                _ => format!("{{{ns}}}binding"),
            };
            let attrs: Vec<String> = c
                .attributes()
                .map(|a| format!("{}=\"{}\"", a.name(), a.value()))
                .collect();
            if attrs.is_empty() {
                name
            } else {
                format!("{name} {}", attrs.join(" "))
            }
        });
    Ok(Binding {
        name,
        port_type,
        soap: soap.map(|(_, v)| v),
        other,
        operations,
        loc: loc(file, b),
    })
}
