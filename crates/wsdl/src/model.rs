//! The abstract service model: what a SOAP service offers, independent of how it was written.
//!
//! It exists so that every front end (the `#[service]` macro today, a WSDL importer one day) and
//! every back end (WSDL generation, server dispatch, client stubs) meet at one set of plain
//! types, the way tonic-build works from `Service`/`Method` rather than from `.proto` syntax.
//! It must never hold Rust code or HTTP details: only names, namespaces, styles and types.

use std::collections::HashSet;
use std::fmt;

use soapstone_codec::{QName, Style};

use crate::xsd::{Schema, TypeDef, TypeRef};

/// How a service's messages look on the wire, chosen once per service.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum BindingStyle {
    /// document/literal wrapped: one element per message, named after the operation, whose
    /// children are the parameters; `elementFormDefault="qualified"` (children are in the
    /// service namespace). The default, and what WS-I Basic Profile clients expect.
    #[default]
    DocumentLiteral,
    /// rpc/encoded (SOAP 1.1 section 5): parts typed with `type=`, `xsi:type` on every value,
    /// SOAP-ENC arrays; parameter elements unqualified. What the 2001-2008 studies used.
    RpcEncoded,
    /// rpc/literal (WS-I Basic Profile's rpc): a wrapper named after the operation in the
    /// `soap:body` namespace, one unqualified child per part, no `xsi:type`, literal arrays.
    RpcLiteral,
}

impl BindingStyle {
    /// The codec body style of this binding.
    pub fn body_style(self) -> Style {
        match self {
            BindingStyle::DocumentLiteral => Style::Literal,
            BindingStyle::RpcEncoded => Style::Encoded,
            BindingStyle::RpcLiteral => Style::Literal,
        }
    }

    /// Whether the operation elements are rpc style (parts typed with `type=`, the wrapper
    /// named after the operation and written by the binding, not by the schema).
    pub fn is_rpc(self) -> bool {
        matches!(self, BindingStyle::RpcEncoded | BindingStyle::RpcLiteral)
    }

    /// Whether parameter elements are namespace-qualified (the codec's
    /// `EncodeOptions::qualified`). The WSDL's `elementFormDefault` says the same thing.
    pub fn qualified(self) -> bool {
        matches!(self, BindingStyle::DocumentLiteral)
    }
}

/// One parameter or result: a name and a type.
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    /// The element (and, in rpc style, message part) name.
    pub name: String,
    /// Its type.
    pub ty: TypeRef,
}

impl Part {
    /// A part.
    pub fn new(name: impl Into<String>, ty: TypeRef) -> Self {
        Part {
            name: name.into(),
            ty,
        }
    }
}

/// A SOAP header block an operation declares (`soap:header` in the binding): a literal block
/// is an element whose children are the fields of a named struct type of the schema, like a
/// body wrapper's; an encoded one (`use="encoded"`, rpc/encoded services such as SOAPBuilders
/// Round 2 group C) is a value of any type written as an rpc/encoded part is.
#[derive(Debug, Clone, PartialEq)]
pub struct HeaderPart {
    /// The header block's element: for a literal block, a global element (of the service
    /// namespace or another); for an encoded one, the part's name in the `soap:header`'s
    /// `namespace`.
    pub element: QName,
    /// The struct type of its content (literal), or the part's type (encoded).
    pub ty: TypeRef,
    /// `soap:header use="encoded"`: the block carries `xsi:type` and `encodingStyle`, its
    /// children are unqualified, and the WSDL declares it as a message part with `type=`.
    /// Default: `false`.
    pub encoded: bool,
}

impl HeaderPart {
    /// A literal header block `element` of type `ty`.
    pub fn new(element: QName, ty: TypeRef) -> Self {
        HeaderPart {
            element,
            ty,
            encoded: false,
        }
    }

    /// A SOAP-encoded header block `element` holding a value of type `ty`.
    pub fn encoded(element: QName, ty: TypeRef) -> Self {
        HeaderPart {
            element,
            ty,
            encoded: true,
        }
    }
}

/// A fault an operation declares (`wsdl:fault`): its `detail` holds one element whose children
/// are the fields of a named struct type.
#[derive(Debug, Clone, PartialEq)]
pub struct FaultPart {
    /// The `wsdl:fault` name (also the name of its message).
    pub name: String,
    /// The detail element (in the service namespace).
    pub element: QName,
    /// The struct type of its content.
    pub ty: TypeRef,
}

impl FaultPart {
    /// A fault `name` whose detail is `element` of type `ty`.
    pub fn new(name: impl Into<String>, element: QName, ty: TypeRef) -> Self {
        FaultPart {
            name: name.into(),
            element,
            ty,
        }
    }
}

/// Where a message's parts are in the SOAP Body.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Body {
    /// One element (the operation's `request` or `response`) whose children are the parts:
    /// document/literal wrapped, or bare with one part, and rpc. The default.
    #[default]
    Wrapper,
    /// The parts are the Body's children themselves, in order, each a global element
    /// (document/literal messages with several body parts, or none: an empty Body). WS-I BP
    /// R2201 forbids them, but vendor WSDLs have them and zeep and CXF accept them. Encoded
    /// and decoded as a struct whose serde name is `$body` (the codec's convention); the
    /// operation's wrapper name is then unused.
    Parts,
}

/// One operation of a service.
#[derive(Debug, Clone, PartialEq)]
pub struct OperationModel {
    /// The WSDL operation name.
    pub name: String,
    /// The SOAPAction (1.1) / `action` parameter (1.2) clients send.
    pub action: String,
    /// Local name of the request wrapper element (the first body child), in the service
    /// namespace. Usually the operation name.
    pub request: String,
    /// Local name of the response wrapper element. Usually `<name>Response`.
    pub response: String,
    /// The request wrapper's namespace when it is not the service's (a vendor WSDL whose
    /// message elements live in schemas of their own): the dispatcher routes on the
    /// qualified name. Default: `None` (the service namespace).
    pub request_namespace: Option<String>,
    /// The response wrapper's namespace when it is not the service's. Default: `None`.
    pub response_namespace: Option<String>,
    /// How the request's parts sit in the Body. Default: [`Body::Wrapper`].
    pub input_body: Body,
    /// How the response's parts sit in the Body. Default: [`Body::Wrapper`].
    pub output_body: Body,
    /// The request wrapper's children (`@name` parts: its attributes; one `$text` part: its
    /// text, a body element of a simple type), or with [`Body::Parts`] the Body's children.
    pub input: Vec<Part>,
    /// The response wrapper's children (empty: an empty response wrapper), named as `input`'s.
    pub output: Vec<Part>,
    /// Header blocks the request may carry (`soap:header` of the binding's input).
    pub input_headers: Vec<HeaderPart>,
    /// Header blocks the response may carry.
    pub output_headers: Vec<HeaderPart>,
    /// The faults the operation declares, with their detail.
    pub faults: Vec<FaultPart>,
    /// Human documentation (`wsdl:documentation`).
    pub documentation: Option<String>,
    /// A one-way operation (WSDL 1.1 section 2.4.1: an input and no output): the server
    /// answers HTTP 202 Accepted with no body once the handler succeeds, and `output`,
    /// `output_headers` and `faults` are empty (a processing error is still a Fault).
    /// Default: `false`.
    pub one_way: bool,
}

impl OperationModel {
    /// An operation with the conventional names: request wrapper `name`, response wrapper
    /// `<name>Response`, and `action`.
    pub fn new(name: impl Into<String>, action: impl Into<String>) -> Self {
        let name = name.into();
        OperationModel {
            request: name.clone(),
            response: format!("{name}Response"),
            name,
            action: action.into(),
            request_namespace: None,
            response_namespace: None,
            input_body: Body::Wrapper,
            output_body: Body::Wrapper,
            input: Vec::new(),
            output: Vec::new(),
            input_headers: Vec::new(),
            output_headers: Vec::new(),
            faults: Vec::new(),
            documentation: None,
            one_way: false,
        }
    }

    /// A one-way operation (see [`OperationModel::one_way`]) with the conventional names.
    pub fn one_way(name: impl Into<String>, action: impl Into<String>) -> Self {
        OperationModel {
            one_way: true,
            ..OperationModel::new(name, action)
        }
    }
}

/// A whole service: its operations and the schema of the types they use.
#[derive(Debug, Clone)]
pub struct ServiceModel {
    /// The service name (WSDL `service`, and the stem of the portType and binding names).
    pub name: String,
    /// The target namespace of the WSDL, the schema and the wrapper elements.
    pub namespace: String,
    /// The binding style of every operation.
    pub style: BindingStyle,
    /// Whether the elements inside the body (parameters and their fields) are qualified with
    /// the service namespace (`elementFormDefault="qualified"`) or unqualified. Default: what
    /// [`BindingStyle::qualified`] says (qualified for document/literal).
    pub qualified: bool,
    /// Human documentation of the service.
    pub documentation: Option<String>,
    /// The operations, in declaration order.
    pub operations: Vec<OperationModel>,
    /// The named types the operations' parts refer to.
    pub schema: Schema,
}

/// Why a [`ServiceModel`] cannot be published: every problem found, one per line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelError {
    problems: Vec<String>,
}

impl ModelError {
    /// Every problem found.
    pub fn problems(&self) -> &[String] {
        &self.problems
    }
}

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.problems.join("; "))
    }
}

impl std::error::Error for ModelError {}

impl ServiceModel {
    /// An empty service whose schema has the same namespace and encoding.
    pub fn new(name: impl Into<String>, namespace: impl Into<String>, style: BindingStyle) -> Self {
        let namespace = namespace.into();
        ServiceModel {
            name: name.into(),
            schema: Schema::new(namespace.clone(), style.body_style()),
            namespace,
            style,
            qualified: style.qualified(),
            documentation: None,
            operations: Vec::new(),
        }
    }

    /// The operation whose request wrapper is `local`.
    pub fn operation_by_request(&self, local: &str) -> Option<(usize, &OperationModel)> {
        self.operations
            .iter()
            .enumerate()
            .find(|(_, op)| op.request == local)
    }

    /// The operation clients call with this action.
    pub fn operation_by_action(&self, action: &str) -> Option<(usize, &OperationModel)> {
        self.operations
            .iter()
            .enumerate()
            .find(|(_, op)| op.action == action)
    }

    /// The body element a request of `op` starts with, by which the dispatcher finds the
    /// operation: its wrapper, or for [`Body::Parts`] its first part's element (`None` for a
    /// request with an empty Body, found by its action or as the only such operation).
    pub fn request_key(&self, op: &OperationModel) -> Option<QName> {
        let ns = op.request_namespace.as_deref().unwrap_or(&self.namespace);
        match op.input_body {
            Body::Wrapper => Some(QName::new(ns, op.request.clone())),
            Body::Parts => op
                .input
                .first()
                .map(|p| match crate::xsd::own_namespace(&p.name) {
                    Some((ns, local)) => QName::new(ns, local),
                    None => QName::new(ns, p.name.clone()),
                }),
        }
    }

    /// The header blocks any operation declares in its requests: what this service understands
    /// (a `mustUnderstand` block among them is not a MustUnderstand fault).
    pub fn declared_request_headers(&self) -> impl Iterator<Item = &QName> {
        self.operations
            .iter()
            .flat_map(|op| op.input_headers.iter().map(|h| &h.element))
    }

    /// The qualified name of an operation's request wrapper (for [`Body::Parts`], an empty
    /// local name in the namespace of the parts: the codec writes them straight into Body).
    pub fn request_name(&self, op: &OperationModel) -> QName {
        let ns = op.request_namespace.as_deref().unwrap_or(&self.namespace);
        match op.input_body {
            Body::Wrapper => QName::new(ns, op.request.clone()),
            Body::Parts => QName::new(ns, ""),
        }
    }

    /// The qualified name of an operation's response wrapper (see
    /// [`ServiceModel::request_name`]).
    pub fn response_name(&self, op: &OperationModel) -> QName {
        let ns = op.response_namespace.as_deref().unwrap_or(&self.namespace);
        match op.output_body {
            Body::Wrapper => QName::new(ns, op.response.clone()),
            Body::Parts => QName::new(ns, ""),
        }
    }

    /// Checks what a WSDL consumer would trip over: empty or invalid names, duplicate
    /// operations, wrappers, parts and message names, and schema conflicts.
    pub fn validate(&self) -> Result<(), ModelError> {
        let mut problems = Vec::new();
        if !is_ncname(&self.name) {
            problems.push(format!("service name `{}` is not an XML name", self.name));
        }
        if self.namespace.is_empty() {
            problems.push("service namespace is empty".to_string());
        }
        let mut ops = HashSet::new();
        let mut elements: std::collections::BTreeMap<QName, Vec<(&OperationModel, bool)>> =
            std::collections::BTreeMap::new();
        let mut messages = HashSet::new();
        for op in &self.operations {
            let names = [
                ("operation", &op.name, true),
                (
                    "request element",
                    &op.request,
                    op.input_body == Body::Wrapper,
                ),
                (
                    "response element",
                    &op.response,
                    op.output_body == Body::Wrapper,
                ),
            ];
            for (what, name, _) in names.iter().filter(|n| n.2) {
                if !is_ncname(name) {
                    problems.push(format!("{what} name `{name}` is not an XML name"));
                }
            }
            if !ops.insert(op.name.as_str()) {
                problems.push(format!("operation `{}` is declared twice", op.name));
            }
            let request = self.request_key(op);
            if let Some(request) = &request {
                elements
                    .entry(request.clone())
                    .or_default()
                    .push((op, true));
            }
            let response = self.response_name(op);
            if op.output_body == Body::Wrapper && Some(&response) != request.as_ref() && !op.one_way
            {
                elements.entry(response).or_default().push((op, false));
            }
            let bare = op.input_body == Body::Parts || op.output_body == Body::Parts;
            if bare && self.style.is_rpc() {
                problems.push(format!(
                    "operation `{}` has a message without wrapper in an rpc binding: rpc messages are wrapped in the operation's element",
                    op.name
                ));
            }
            if op.input_body == Body::Parts && op.input.is_empty() {
                // An empty Body names no operation: its action must, or it must be the only one.
                let by_action = !op.action.is_empty()
                    && self
                        .operations
                        .iter()
                        .filter(|o| o.action == op.action)
                        .count()
                        == 1;
                let empty = self
                    .operations
                    .iter()
                    .filter(|o| o.input_body == Body::Parts && o.input.is_empty())
                    .count();
                if !by_action && empty > 1 {
                    problems.push(format!(
                        "operation `{}` has an empty request Body and no action of its own: {empty} operations take an empty Body and the dispatcher could not tell which is called",
                        op.name
                    ));
                }
            }
            // Two operations may share an action (SOAPBuilders' WSDLs give every operation
            // `http://soapinterop.org/`): the dispatcher then routes by the body element.
            let outputs = if op.one_way { 1 } else { 2 };
            for message in [message_name(op, true), message_name(op, false)]
                .into_iter()
                .take(outputs)
            {
                if !messages.insert(message.clone()) {
                    problems.push(format!("message name `{message}` is used twice"));
                }
            }
            // An encoded header block is a part typed with `type=` in a namespace of its own:
            // any type, any namespace.
            let headers = op.input_headers.iter().chain(&op.output_headers);
            // A fault's detail element and a literal header block may be of another
            // namespace than the service's: each is written in its own.
            let blocks = headers
                .filter(|h| !h.encoded)
                .map(|h| (&h.element, &h.ty))
                .chain(op.faults.iter().map(|f| (&f.element, &f.ty)));
            for (element, ty) in blocks {
                let struct_type = self.schema.types().iter().any(|t| {
                    t.name == ty.name.local
                        && t.namespace == ty.name.namespace
                        && matches!(t.def, TypeDef::Struct(_))
                });
                if !struct_type {
                    problems.push(format!(
                        "header or fault element `{}` of `{}` has a type that is not a struct of the schema",
                        element.local, op.name
                    ));
                }
            }
            if op.one_way
                && !(op.output.is_empty() && op.output_headers.is_empty() && op.faults.is_empty())
            {
                problems.push(format!(
                    "one-way operation `{}` declares an output, response headers or faults",
                    op.name
                ));
            }
            let mut fault_names = HashSet::new();
            for f in &op.faults {
                if !is_ncname(&f.name) || !fault_names.insert(f.name.as_str()) {
                    problems.push(format!(
                        "fault `{}` of `{}` is not an XML name or is declared twice",
                        f.name, op.name
                    ));
                }
            }
            for (dir, parts) in [("input", &op.input), ("output", &op.output)] {
                let mut seen = HashSet::new();
                for part in parts {
                    // `$text`: the wrapper's text, a body element of a simple type.
                    // `{ns}local`: a part that is a global element (a bare body's part; an
                    // rpc/literal part with `element=`) or a `type=` part in no namespace.
                    let own =
                        crate::xsd::own_namespace(&part.name).is_some_and(|(_, l)| is_ncname(l));
                    let open = ((is_open_content_name(&part.name)
                        || part.name == crate::xsd::TEXT_FIELD
                        || crate::xsd::attribute_name(&part.name)
                            .is_some_and(|(_, l)| is_ncname(l)))
                        && !self.style.is_rpc())
                        || (own && self.style != BindingStyle::RpcEncoded);
                    if !is_ncname(&part.name) && !open {
                        problems.push(format!(
                            "{dir} part `{}` of `{}` is not an XML name",
                            part.name, op.name
                        ));
                    }
                    if !seen.insert(part.name.as_str()) {
                        problems.push(format!(
                            "{dir} part `{}` of `{}` is declared twice",
                            part.name, op.name
                        ));
                    }
                }
            }
        }
        for (element, uses) in &elements {
            shared_element_problems(&element.local, uses, &mut problems);
        }
        problems.extend(self.schema.problems().iter().cloned());
        crate::xsd::check_choices(&self.schema, &mut problems);
        problems.extend(crate::generate::markup_problems(&self.schema));
        problems.extend(crate::generate::element_ns_problems(self));
        if problems.is_empty() {
            Ok(())
        } else {
            Err(ModelError { problems })
        }
    }
}

/// Two operations may use one body element (node-soap's `non_identifier_chars_in_operation`:
/// `MyOperation` and `prefixed-MyOperation` both take `Request`) when it holds the same parts
/// in each (the WSDL declares it once) and, as a request, when each operation has a SOAPAction
/// of its own: the dispatcher routes by the action, which is then all that tells them apart.
fn shared_element_problems(
    element: &str,
    uses: &[(&OperationModel, bool)],
    problems: &mut Vec<String>,
) {
    let [(first, first_request), rest @ ..] = uses else {
        return;
    };
    let parts = |op: &OperationModel, request: bool| {
        if request {
            op.input.clone()
        } else {
            op.output.clone()
        }
    };
    for (op, request) in rest {
        if parts(op, *request) != parts(first, *first_request) {
            problems.push(format!(
                "element `{element}` is used by operations `{}` and `{}` with different content",
                first.name, op.name
            ));
        }
    }
    let requests: Vec<&OperationModel> = uses.iter().filter(|u| u.1).map(|u| u.0).collect();
    for (i, op) in requests.iter().enumerate() {
        let same = requests[..i]
            .iter()
            .find(|o| o.action == op.action || o.action.is_empty() || op.action.is_empty());
        if let Some(other) = same {
            problems.push(format!(
                "element `{element}` is the request of operations `{}` and `{}`, and no SOAPAction tells them apart (`{}`)",
                other.name, op.name, op.action
            ));
        }
    }
}

/// The WSDL message name of an operation's input (`true`) or output message.
pub(crate) fn message_name(op: &OperationModel, input: bool) -> String {
    if input {
        format!("{}Request", op.name)
    } else {
        format!("{}Response", op.name)
    }
}

/// Whether `s` names a choice (`$choice:a|b`) or a wildcard (`$any`) rather than an element.
pub(crate) fn is_open_content_name(s: &str) -> bool {
    s == crate::xsd::ANY_FIELD
        || s.strip_prefix(crate::xsd::CHOICE_FIELD)
            .is_some_and(|list| list.split('|').all(is_ncname))
}

/// Whether `s` is an XML NCName (ASCII approximation plus any non-ASCII letter).
pub(crate) fn is_ncname(s: &str) -> bool {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if c.is_alphabetic() || c == '_' => {}
        _ => return false,
    }
    chars.all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xsd::XsdType;

    #[test]
    fn validate_reports_every_problem() {
        let mut model = ServiceModel::new("Bad Name", "urn:x", BindingStyle::DocumentLiteral);
        let mut a = OperationModel::new("a", "urn:x#a");
        a.input
            .push(Part::new("x", i32::describe(&mut model.schema)));
        a.input
            .push(Part::new("x", i32::describe(&mut model.schema)));
        model.operations.push(a.clone());
        model.operations.push(a);
        let err = model.validate().unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("service name `Bad Name` is not an XML name"),
            "{text}"
        );
        assert!(text.contains("operation `a` is declared twice"), "{text}");
        assert!(
            text.contains("input part `x` of `a` is declared twice"),
            "{text}"
        );
    }

    #[test]
    fn messages_without_wrapper_are_checked() {
        let mut model = ServiceModel::new("S", "urn:x", BindingStyle::DocumentLiteral);
        for name in ["a", "b"] {
            let mut op = OperationModel::new(name, "");
            op.input_body = Body::Parts;
            model.operations.push(op);
        }
        // Two empty request Bodies and no action: which one is called cannot be told.
        let text = model.validate().unwrap_err().to_string();
        assert!(
            text.contains("operation `a` has an empty request Body and no action of its own"),
            "{text}"
        );
        model.operations[0].action = "urn:x#a".into();
        model.operations[1].action = "urn:x#b".into();
        assert!(model.validate().is_ok());
        assert_eq!(model.request_key(&model.operations[0]), None);
        assert_eq!(
            model.request_name(&model.operations[0]),
            QName::new("urn:x", "")
        );
        model.style = BindingStyle::RpcLiteral;
        let text = model.validate().unwrap_err().to_string();
        assert!(text.contains("without wrapper in an rpc binding"), "{text}");
    }

    #[test]
    fn ncnames() {
        assert!(is_ncname("echoFloat"));
        assert!(is_ncname("_a-b.c1"));
        assert!(!is_ncname("1a"));
        assert!(!is_ncname("a:b"));
        assert!(!is_ncname(""));
    }
}
