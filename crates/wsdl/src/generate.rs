//! WSDL 1.1 generation from a [`ServiceModel`].
//!
//! One document per service: types (an inline XML Schema), messages, one portType, a SOAP 1.1
//! and a SOAP 1.2 binding, and a service with one port per binding. Every schema the
//! document refers to is imported with a `schemaLocation` under the endpoint itself
//! (`?xsd=soapenc`), so clients on a network without internet access can build from it.
//!
//! Written by hand into a `String` (with quick-xml's escaping) rather than through an XML
//! writer: the document is small, its shape is fixed, and the code reads like the output.
//! Must never fetch anything or depend on HTTP: the endpoint URL is just text here.

mod element_ns;
mod markup;

use std::fmt::Write;

use quick_xml::escape::escape;
use soapstone_codec::QName;

use crate::model::{message_name, BindingStyle, Body, OperationModel, ServiceModel};
use crate::soapenc::SOAP_ENCODING_SCHEMA;
use crate::xsd::{Field, TypeDef, TypeRef, SOAP_ENC_NS, XSD_NS};
pub(crate) use element_ns::problems as element_ns_problems;
pub(crate) use markup::problems as markup_problems;

const WSDL_NS: &str = "http://schemas.xmlsoap.org/wsdl/";
const WSDL_SOAP11_NS: &str = "http://schemas.xmlsoap.org/wsdl/soap/";
const WSDL_SOAP12_NS: &str = "http://schemas.xmlsoap.org/wsdl/soap12/";
/// The SOAP 1.2 encoding namespace.
const SOAP12_ENC_NS: &str = "http://www.w3.org/2003/05/soap-encoding";
const HTTP_TRANSPORT: &str = "http://schemas.xmlsoap.org/soap/http";

/// The query (after `?`) that asks for the WSDL.
pub const WSDL_QUERY: &str = "wsdl";
/// The query that asks for the bundled SOAP encoding schema.
pub const SOAP_ENC_QUERY: &str = "xsd=soapenc";

/// The description document for `GET endpoint?query`: `wsdl` (any case) gives the WSDL,
/// `xsd=soapenc` the bundled SOAP 1.1 encoding schema; anything else is `None`.
pub fn document(model: &ServiceModel, query: &str, endpoint: &str) -> Option<String> {
    if query.eq_ignore_ascii_case(WSDL_QUERY) {
        Some(wsdl(model, endpoint))
    } else if query == SOAP_ENC_QUERY {
        Some(SOAP_ENCODING_SCHEMA.to_string())
    } else {
        None
    }
}

/// The URL of the document `query` under `endpoint`.
pub fn document_url(endpoint: &str, query: &str) -> String {
    let sep = if endpoint.contains('?') { '&' } else { '?' };
    format!("{endpoint}{sep}{query}")
}

/// The WSDL 1.1 document of `model`, served at `endpoint` (an absolute URL written into the
/// `soap:address`es and `schemaLocation`s).
pub fn wsdl(model: &ServiceModel, endpoint: &str) -> String {
    let mut w = Writer {
        out: String::with_capacity(8 * 1024),
        ns: &model.namespace,
        target: model.namespace.clone(),
        schema: Some(&model.schema),
    };
    w.definitions(model, endpoint);
    w.out
}

pub(crate) struct Writer<'a> {
    pub(crate) out: String,
    pub(crate) ns: &'a str,
    /// The target namespace of the schema being written.
    pub(crate) target: String,
    /// The schema's choices, written inline where a field refers to one.
    pub(crate) schema: Option<&'a crate::Schema>,
}

fn esc(s: &str) -> std::borrow::Cow<'_, str> {
    escape(s)
}

impl Writer<'_> {
    pub(crate) fn line(&mut self, indent: usize, text: &str) {
        for _ in 0..indent {
            self.out.push_str("  ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    /// `prefix:local` for a type name, plus an `xmlns` declaration when the namespace has no
    /// prefix bound on the root.
    pub(crate) fn qname(&self, q: &QName) -> (String, String) {
        let prefix = match q.namespace.as_str() {
            XSD_NS => "xsd",
            SOAP_ENC_NS => "soapenc",
            ns if ns == self.ns => "tns",
            "" => return (q.local.clone(), String::new()),
            ns => {
                return (
                    format!("q:{}", q.local),
                    format!(" xmlns:q=\"{}\"", esc(ns)),
                )
            }
        };
        (format!("{prefix}:{}", q.local), String::new())
    }

    fn definitions(&mut self, m: &ServiceModel, endpoint: &str) {
        self.line(0, r#"<?xml version="1.0" encoding="UTF-8"?>"#);
        let mut root = format!(
            "<wsdl:definitions name=\"{name}\" targetNamespace=\"{ns}\" xmlns:tns=\"{ns}\" xmlns:wsdl=\"{WSDL_NS}\" \
             xmlns:soap=\"{WSDL_SOAP11_NS}\" xmlns:soap12=\"{WSDL_SOAP12_NS}\" xmlns:xsd=\"{XSD_NS}\"",
            name = esc(&m.name),
            ns = esc(&m.namespace),
        );
        if m.schema.uses_soap_enc() {
            let _ = write!(root, " xmlns:soapenc=\"{SOAP_ENC_NS}\"");
        }
        root.push('>');
        self.line(0, &root);
        if let Some(doc) = &m.documentation {
            self.line(
                1,
                &format!("<wsdl:documentation>{}</wsdl:documentation>", esc(doc)),
            );
        }
        self.types(m, endpoint);
        self.messages(m);
        self.port_type(m);
        self.binding(m, false);
        self.binding(m, true);
        self.line(1, &format!("<wsdl:service name=\"{}\">", esc(&m.name)));
        for (soap12, prefix) in [(false, "soap"), (true, "soap12")] {
            let (port, binding) = names(m, soap12);
            self.line(
                2,
                &format!("<wsdl:port name=\"{port}\" binding=\"tns:{binding}\">"),
            );
            self.line(
                3,
                &format!("<{prefix}:address location=\"{}\"/>", esc(endpoint)),
            );
            self.line(2, "</wsdl:port>");
        }
        self.line(1, "</wsdl:service>");
        self.line(0, "</wsdl:definitions>");
    }

    fn types(&mut self, m: &ServiceModel, endpoint: &str) {
        self.line(1, "<wsdl:types>");
        let form = if m.qualified {
            " elementFormDefault=\"qualified\""
        } else {
            ""
        };
        self.line(
            2,
            &format!(
                "<xsd:schema targetNamespace=\"{}\"{form}>",
                esc(&m.namespace)
            ),
        );
        // Imported only when referenced: zeep resolves the names of the soapenc schema it
        // loads by fetching its canonical URL again (it does not count a schema's own
        // namespace as imported), so a WSDL that never names soapenc stays fully offline.
        if m.schema.uses_soap_enc() {
            self.line(
                3,
                &format!(
                    "<xsd:import namespace=\"{SOAP_ENC_NS}\" schemaLocation=\"{}\"/>",
                    esc(&document_url(endpoint, SOAP_ENC_QUERY))
                ),
            );
        }
        let globals = element_ns::global_elements(m);
        let wrappers = foreign_wrappers(m);
        let attributes = markup::global_attributes(m);
        let mut others: Vec<&str> = m.schema.other_namespaces();
        others.extend(globals.keys().map(String::as_str));
        others.extend(attributes.keys().map(String::as_str));
        others.extend(wrappers.keys().copied());
        others.retain(|ns| *ns != m.namespace);
        others.sort_unstable();
        others.dedup();
        for other in &others {
            self.line(3, &format!("<xsd:import namespace=\"{}\"/>", esc(other)));
        }
        if let Some(own) = wrappers.get(m.namespace.as_str()) {
            for (name, fields) in own {
                self.wrapper_element(name, fields);
            }
        }
        // Header and fault elements, each once.
        let mut declared = std::collections::HashSet::new();
        for op in &m.operations {
            // An encoded header block is a part with `type=`: no element to declare.
            let headers = op.input_headers.iter().chain(&op.output_headers);
            let blocks = headers
                .filter(|h| !h.encoded)
                .map(|h| (&h.element, &h.ty))
                .chain(op.faults.iter().map(|f| (&f.element, &f.ty)));
            for (element, ty) in blocks {
                // Others are declared in their namespace's schema (`element_ns`).
                if element.namespace == m.namespace && declared.insert(element.local.clone()) {
                    let (ty, decl) = self.qname(&ty.name);
                    self.line(
                        3,
                        &format!(
                            "<xsd:element name=\"{}\" type=\"{ty}\"{decl}/>",
                            esc(&element.local)
                        ),
                    );
                }
            }
        }
        self.schema_types(m, &m.namespace);
        if let Some(elements) = globals.get(&m.namespace) {
            self.global_elements(3, elements);
        }
        if let Some(list) = attributes.get(&m.namespace) {
            self.global_attributes(3, list);
        }
        self.line(2, "</xsd:schema>");
        // Types of other namespaces (a vendor's WSDL read with types in a schema of their own),
        // one schema each, importing the others.
        for &ns in &others {
            self.target = ns.to_string();
            self.line(
                2,
                &format!("<xsd:schema targetNamespace=\"{}\"{form}>", esc(ns)),
            );
            if m.schema.uses_soap_enc() {
                self.line(
                    3,
                    &format!(
                        "<xsd:import namespace=\"{SOAP_ENC_NS}\" schemaLocation=\"{}\"/>",
                        esc(&document_url(endpoint, SOAP_ENC_QUERY))
                    ),
                );
            }
            self.line(
                3,
                &format!("<xsd:import namespace=\"{}\"/>", esc(&m.namespace)),
            );
            for other in others.iter().filter(|o| **o != ns) {
                self.line(3, &format!("<xsd:import namespace=\"{}\"/>", esc(other)));
            }
            if let Some(own) = wrappers.get(ns) {
                for (name, fields) in own {
                    self.wrapper_element(name, fields);
                }
            }
            self.schema_types(m, ns);
            if let Some(elements) = globals.get(ns) {
                self.global_elements(3, elements);
            }
            if let Some(list) = attributes.get(ns) {
                self.global_attributes(3, list);
            }
            self.line(2, "</xsd:schema>");
        }
        self.target = m.namespace.clone();
        self.line(1, "</wsdl:types>");
    }

    /// The named types of namespace `ns`.
    fn schema_types(&mut self, m: &ServiceModel, ns: &str) {
        for t in m.schema.types().iter().filter(|t| t.namespace == ns) {
            match &t.def {
                TypeDef::Struct(fields) => {
                    let mixed =
                        fields.iter().any(|f| f.is_text()) && fields.iter().any(|f| f.is_element());
                    let mixed = if mixed { " mixed=\"true\"" } else { "" };
                    self.line(
                        3,
                        &format!("<xsd:complexType name=\"{}\"{mixed}>", esc(&t.name)),
                    );
                    self.complex_body(4, fields);
                    self.line(3, "</xsd:complexType>");
                }
                TypeDef::List(item) => {
                    self.line(3, &format!("<xsd:complexType name=\"{}\">", esc(&t.name)));
                    self.sequence(
                        4,
                        &[Field::new(
                            "item",
                            TypeRef {
                                optional: true,
                                repeated: true,
                                ..item.clone()
                            },
                        )],
                    );
                    self.line(3, "</xsd:complexType>");
                }
                TypeDef::Enum(values) => {
                    self.line(3, &format!("<xsd:simpleType name=\"{}\">", esc(&t.name)));
                    self.line(4, "<xsd:restriction base=\"xsd:string\">");
                    for v in values {
                        self.line(5, &format!("<xsd:enumeration value=\"{}\"/>", esc(v)));
                    }
                    self.line(4, "</xsd:restriction>");
                    self.line(3, "</xsd:simpleType>");
                }
                TypeDef::Choice(_) | TypeDef::SimpleList(_) | TypeDef::Sequence(_) => {
                    self.open_type(&t.name, &t.def)
                }
                TypeDef::Array { item, dims } => {
                    let (item, decl) = self.qname(item);
                    let commas = ",".repeat(dims.saturating_sub(1));
                    self.line(3, &format!("<xsd:complexType name=\"{}\">", esc(&t.name)));
                    self.line(4, "<xsd:complexContent>");
                    self.line(5, "<xsd:restriction base=\"soapenc:Array\">");
                    self.line(
                        6,
                        &format!("<xsd:attribute ref=\"soapenc:arrayType\" wsdl:arrayType=\"{item}[{commas}]\"{decl}/>"),
                    );
                    self.line(5, "</xsd:restriction>");
                    self.line(4, "</xsd:complexContent>");
                    self.line(3, "</xsd:complexType>");
                }
            }
        }
    }

    fn wrapper_element(&mut self, name: &str, fields: &[Field]) {
        if name.is_empty() {
            return;
        }
        self.line(3, &format!("<xsd:element name=\"{}\">", esc(name)));
        self.line(4, "<xsd:complexType>");
        self.complex_body(5, fields);
        self.line(4, "</xsd:complexType>");
        self.line(3, "</xsd:element>");
    }

    pub(crate) fn sequence(&mut self, indent: usize, fields: &[Field]) {
        if fields.is_empty() {
            self.line(indent, "<xsd:sequence/>");
            return;
        }
        self.line(indent, "<xsd:sequence>");
        for f in fields {
            if self.open_content(indent + 1, f) || self.own_namespace_element(indent + 1, f) {
                continue;
            }
            let (ty, decl) = self.qname(&f.ty.name);
            let mut el = format!("<xsd:element name=\"{}\" type=\"{ty}\"", esc(&f.name));
            if f.ty.optional {
                el.push_str(" minOccurs=\"0\"");
            }
            if f.ty.repeated {
                el.push_str(" maxOccurs=\"unbounded\"");
            }
            if f.ty.nillable {
                el.push_str(" nillable=\"true\"");
            }
            el.push_str(&decl);
            el.push_str("/>");
            self.line(indent + 1, &el);
        }
        self.line(indent, "</xsd:sequence>");
    }

    fn messages(&mut self, m: &ServiceModel) {
        for op in &m.operations {
            let directions: &[bool] = if op.one_way { &[true] } else { &[true, false] };
            for &input in directions {
                let name = message_name(op, input);
                self.line(1, &format!("<wsdl:message name=\"{}\">", esc(&name)));
                let (body, parts) = if input {
                    (op.input_body, &op.input)
                } else {
                    (op.output_body, &op.output)
                };
                match m.style {
                    // Several parts, or none: one message part per body element.
                    BindingStyle::DocumentLiteral if body == Body::Parts => {
                        for part in parts {
                            let (ns, local) = crate::xsd::own_namespace(&part.name)
                                .unwrap_or((&m.namespace, &part.name));
                            if ns.is_empty() {
                                // A `type=` part: its accessor is the part name, unqualified.
                                let (ty, decl) = self.qname(&part.ty.name);
                                self.line(
                                    2,
                                    &format!(
                                        "<wsdl:part name=\"{}\" type=\"{ty}\"{decl}/>",
                                        esc(local)
                                    ),
                                );
                                continue;
                            }
                            let (element, decl) = self.qname(&QName::new(ns, local));
                            self.line(
                                2,
                                &format!(
                                    "<wsdl:part name=\"{}\" element=\"{element}\"{decl}/>",
                                    esc(local)
                                ),
                            );
                        }
                    }
                    BindingStyle::DocumentLiteral => {
                        let name = if input {
                            m.request_name(op)
                        } else {
                            m.response_name(op)
                        };
                        let (element, decl) = self.qname(&name);
                        self.line(
                            2,
                            &format!(
                                "<wsdl:part name=\"parameters\" element=\"{element}\"{decl}/>"
                            ),
                        );
                    }
                    _ => {
                        for part in if input { &op.input } else { &op.output } {
                            // An rpc/literal part that is a global element (`{ns}local`).
                            if let Some((ns, local)) = crate::xsd::own_namespace(&part.name) {
                                let (element, decl) = self.qname(&QName::new(ns, local));
                                self.line(
                                    2,
                                    &format!(
                                        "<wsdl:part name=\"{}\" element=\"{element}\"{decl}/>",
                                        esc(local)
                                    ),
                                );
                                continue;
                            }
                            let (ty, decl) = self.qname(&part.ty.name);
                            self.line(
                                2,
                                &format!(
                                    "<wsdl:part name=\"{}\" type=\"{ty}\"{decl}/>",
                                    esc(&part.name)
                                ),
                            );
                        }
                    }
                }
                self.line(1, "</wsdl:message>");
                let headers = if input {
                    &op.input_headers
                } else {
                    &op.output_headers
                };
                if !headers.is_empty() {
                    let name = header_message_name(op, input);
                    self.line(1, &format!("<wsdl:message name=\"{}\">", esc(&name)));
                    for h in headers {
                        if h.encoded {
                            let (ty, decl) = self.qname(&h.ty.name);
                            self.line(
                                2,
                                &format!(
                                    "<wsdl:part name=\"{}\" type=\"{ty}\"{decl}/>",
                                    esc(&h.element.local)
                                ),
                            );
                            continue;
                        }
                        // A block of another namespace is declared in its schema.
                        let (element, decl) = self.qname(&h.element);
                        self.line(
                            2,
                            &format!(
                                "<wsdl:part name=\"{}\" element=\"{element}\"{decl}/>",
                                esc(&h.element.local)
                            ),
                        );
                    }
                    self.line(1, "</wsdl:message>");
                }
            }
            for f in &op.faults {
                self.line(
                    1,
                    &format!(
                        "<wsdl:message name=\"{}\">",
                        esc(&fault_message_name(op, &f.name))
                    ),
                );
                // A detail element of another namespace than the service's (`{ns}name`).
                let (element, decl) = self.qname(&f.element);
                self.line(
                    2,
                    &format!("<wsdl:part name=\"detail\" element=\"{element}\"{decl}/>"),
                );
                self.line(1, "</wsdl:message>");
            }
        }
    }

    fn port_type(&mut self, m: &ServiceModel) {
        self.line(
            1,
            &format!("<wsdl:portType name=\"{}PortType\">", esc(&m.name)),
        );
        for op in &m.operations {
            self.line(2, &format!("<wsdl:operation name=\"{}\">", esc(&op.name)));
            if let Some(doc) = &op.documentation {
                self.line(
                    3,
                    &format!("<wsdl:documentation>{}</wsdl:documentation>", esc(doc)),
                );
            }
            self.line(
                3,
                &format!(
                    "<wsdl:input message=\"tns:{}\"/>",
                    esc(&message_name(op, true))
                ),
            );
            if !op.one_way {
                self.line(
                    3,
                    &format!(
                        "<wsdl:output message=\"tns:{}\"/>",
                        esc(&message_name(op, false))
                    ),
                );
            }
            for f in &op.faults {
                self.line(
                    3,
                    &format!(
                        "<wsdl:fault name=\"{}\" message=\"tns:{}\"/>",
                        esc(&f.name),
                        esc(&fault_message_name(op, &f.name))
                    ),
                );
            }
            self.line(2, "</wsdl:operation>");
        }
        self.line(1, "</wsdl:portType>");
    }

    fn binding(&mut self, m: &ServiceModel, soap12: bool) {
        let p = if soap12 { "soap12" } else { "soap" };
        let (_, binding) = names(m, soap12);
        let style = if m.style.is_rpc() { "rpc" } else { "document" };
        let body = match m.style {
            BindingStyle::DocumentLiteral => format!("<{p}:body use=\"literal\"/>"),
            BindingStyle::RpcLiteral => format!(
                "<{p}:body use=\"literal\" namespace=\"{}\"/>",
                esc(&m.namespace)
            ),
            // The codec writes SOAP 1.2 encoding (enc:itemType, enc:arraySize) in 1.2 envelopes.
            BindingStyle::RpcEncoded => format!(
                "<{p}:body use=\"encoded\" namespace=\"{}\" encodingStyle=\"{}\"/>",
                esc(&m.namespace),
                if soap12 { SOAP12_ENC_NS } else { SOAP_ENC_NS }
            ),
        };
        self.line(
            1,
            &format!(
                "<wsdl:binding name=\"{binding}\" type=\"tns:{}PortType\">",
                esc(&m.name)
            ),
        );
        self.line(
            2,
            &format!("<{p}:binding style=\"{style}\" transport=\"{HTTP_TRANSPORT}\"/>"),
        );
        for op in &m.operations {
            self.line(2, &format!("<wsdl:operation name=\"{}\">", esc(&op.name)));
            let required = if soap12 {
                " soapActionRequired=\"false\""
            } else {
                ""
            };
            self.line(
                3,
                &format!(
                    "<{p}:operation soapAction=\"{}\"{required} style=\"{style}\"/>",
                    esc(&op.action)
                ),
            );
            let directions: &[(&str, bool)] = if op.one_way {
                &[("input", true)]
            } else {
                &[("input", true), ("output", false)]
            };
            for &(dir, input) in directions {
                self.line(3, &format!("<wsdl:{dir}>"));
                self.line(4, &body);
                let headers = if input {
                    &op.input_headers
                } else {
                    &op.output_headers
                };
                for h in headers {
                    let use_ = if h.encoded {
                        format!(
                            "use=\"encoded\" namespace=\"{}\" encodingStyle=\"{}\"",
                            esc(&h.element.namespace),
                            if soap12 { SOAP12_ENC_NS } else { SOAP_ENC_NS }
                        )
                    } else {
                        "use=\"literal\"".to_string()
                    };
                    self.line(
                        4,
                        &format!(
                            "<{p}:header message=\"tns:{}\" part=\"{}\" {use_}/>",
                            esc(&header_message_name(op, input)),
                            esc(&h.element.local)
                        ),
                    );
                }
                self.line(3, &format!("</wsdl:{dir}>"));
            }
            for f in &op.faults {
                self.line(3, &format!("<wsdl:fault name=\"{}\">", esc(&f.name)));
                self.line(
                    4,
                    &format!("<{p}:fault name=\"{}\" use=\"literal\"/>", esc(&f.name)),
                );
                self.line(3, "</wsdl:fault>");
            }
            self.line(2, "</wsdl:operation>");
        }
        self.line(1, "</wsdl:binding>");
    }
}

/// The message holding an operation's request (`true`) or response header parts.
fn header_message_name(op: &OperationModel, input: bool) -> String {
    format!("{}Headers", message_name(op, input))
}

/// The message of an operation's fault `name`.
fn fault_message_name(op: &OperationModel, name: &str) -> String {
    format!("{}_{name}Fault", op.name)
}

/// (port name, binding name) of the SOAP 1.1 or 1.2 binding.
fn names(m: &ServiceModel, soap12: bool) -> (String, String) {
    let v = if soap12 { "Soap12" } else { "Soap11" };
    (
        format!("{}{v}Port", m.name),
        format!("{}{v}Binding", m.name),
    )
}

/// The wrapper elements of document/literal messages by namespace (the service's, or an
/// operation's own), each with its children, in operation order.
fn foreign_wrappers<'a>(
    m: &'a ServiceModel,
) -> std::collections::BTreeMap<&'a str, Vec<(&'a str, Vec<Field>)>> {
    let mut out: std::collections::BTreeMap<&'a str, Vec<(&'a str, Vec<Field>)>> =
        Default::default();
    if m.style.is_rpc() {
        return out;
    }
    let fields = |parts: &[crate::model::Part]| -> Vec<Field> {
        parts
            .iter()
            .map(|p| Field::new(p.name.clone(), p.ty.clone()))
            .collect()
    };
    // An element two operations share (told apart by SOAPAction; the model checks that it
    // holds the same parts in both) is declared once.
    let mut add = |ns, name: &'a str, parts: &[crate::model::Part]| {
        let list: &mut Vec<(&str, Vec<Field>)> = out.entry(ns).or_default();
        if !list.iter().any(|(n, _)| *n == name) {
            list.push((name, fields(parts)));
        }
    };
    for op in &m.operations {
        let request_ns = op.request_namespace.as_deref().unwrap_or(&m.namespace);
        if op.input_body == Body::Wrapper {
            add(request_ns, &op.request, &op.input);
        }
        let response_ns = op.response_namespace.as_deref().unwrap_or(&m.namespace);
        let same = op.response == op.request && response_ns == request_ns;
        if op.output_body == Body::Wrapper && !same && !op.one_way {
            add(response_ns, &op.response, &op.output);
        }
    }
    out
}
