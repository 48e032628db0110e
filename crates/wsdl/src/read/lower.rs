//! Lowering one port of a read WSDL to the [`ServiceModel`] the `#[service]` macro builds, so
//! that the dispatcher, the client and the WSDL writer can serve or call what a vendor's WSDL
//! describes.
//!
//! The model is narrower than WSDL: one service namespace (document/literal body wrappers may
//! each have their own); document/literal (wrapped or bare: the same on the wire; several body
//! parts or none: `lower_body`), rpc/literal or rpc/encoded; `soap:header` blocks and `wsdl:fault` details whose
//! types are structs; types as [`lower_types`](super::lower_types) lowers them. What does not
//! fit is refused with a [`LowerError`] naming the construct and where it is; this module must
//! never approximate (a dropped attribute or a flattened choice would make the client send
//! what the server does not expect).

use std::fmt;

use soapstone_codec::QName;

use super::components::{
    BodyBinding, Definitions, ElementDecl, HeaderBinding, Loc, MessagePart, OpStyle, SoapVersion,
    Use,
};
use super::hint::Kind;
use super::lower_types::Lower;
use crate::model::{BindingStyle, Body, FaultPart, HeaderPart, OperationModel, ServiceModel};

/// Why a port cannot be expressed as a [`ServiceModel`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LowerError {
    /// Where the construct is (file and line; line 0 when it is the port as a whole).
    pub loc: Loc,
    /// What (lower case, offending name in backticks).
    pub message: String,
}

impl LowerError {
    pub(super) fn new(loc: &Loc, message: impl Into<String>) -> Self {
        LowerError {
            loc: loc.clone(),
            message: message.into(),
        }
    }
}

impl fmt::Display for LowerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.loc, self.message)
    }
}

impl std::error::Error for LowerError {}

/// A document/literal message's body: one element, or its parts (several or none).
enum BodyOf<'d> {
    One(&'d ElementDecl),
    Parts(Vec<&'d MessagePart>),
}

impl Definitions {
    /// The [`ServiceModel`] of port `port` of service `service` (local names), as the
    /// `#[service]` macro would have built it for the same contract.
    pub fn service_model(&self, service: &str, port: &str) -> Result<ServiceModel, LowerError> {
        let whole = Loc::default();
        let svc = self
            .services
            .iter()
            .find(|s| s.name.local == service)
            .ok_or_else(|| LowerError::new(&whole, format!("no service `{service}`")))?;
        let p = svc.ports.iter().find(|p| p.name == port).ok_or_else(|| {
            LowerError::new(
                &svc.loc,
                format!("service `{service}` has no port `{port}`"),
            )
        })?;
        let binding = self.bindings.get(&p.binding).ok_or_else(|| {
            LowerError::new(
                &p.loc,
                format!("binding `{}` is not defined", p.binding.local),
            )
        })?;
        if binding.soap.is_none() {
            let what = match &binding.other {
                Some(ext) => format!(" (it is bound by `{ext}`)"),
                None => " (it has no `soap:binding`)".to_string(),
            };
            return Err(LowerError::new(
                &binding.loc,
                format!(
                    "binding `{}` is not a SOAP binding{what}: the service model describes SOAP ports",
                    binding.name.local
                ),
            ));
        }
        let pt = self.port_types.get(&binding.port_type).ok_or_else(|| {
            LowerError::new(
                &binding.loc,
                format!("portType `{}` is not defined", binding.port_type.local),
            )
        })?;
        let mut style = None;
        let mut namespace: Option<String> = None;
        let mut ops = Vec::new();
        for op in &pt.operations {
            let Some(bop) = binding.operations.iter().find(|b| b.name == op.name) else {
                return Err(LowerError::new(
                    &op.loc,
                    format!(
                        "operation `{}` is not bound by `{}`",
                        op.name, binding.name.local
                    ),
                ));
            };
            let uses = [bop.input.as_ref(), bop.output.as_ref()].map(|b| b.map(|b| b.use_));
            if uses[0].is_some() && uses[1].is_some() && uses[0] != uses[1] {
                return Err(LowerError::new(
                    &bop.loc,
                    format!("operation `{}` mixes literal and encoded messages", op.name),
                ));
            }
            let this = match (bop.style, uses[0].or(uses[1])) {
                (OpStyle::Document, Some(Use::Literal)) => BindingStyle::DocumentLiteral,
                (OpStyle::Rpc, Some(Use::Encoded)) => BindingStyle::RpcEncoded,
                (OpStyle::Rpc, Some(Use::Literal)) => BindingStyle::RpcLiteral,
                (OpStyle::Document, Some(Use::Encoded)) => {
                    return Err(LowerError::new(
                        &bop.loc,
                        format!("operation `{}` is document/encoded, which no toolkit agrees on (WS-I forbids it)", op.name),
                    ));
                }
                (_, None) => {
                    let at = bop.misplaced.as_ref().map_or(&bop.loc, |(_, at)| at);
                    let why = match &bop.misplaced {
                        Some((tag, _)) => format!(
                            ": `{tag}` stands where `wsdl:{}` belongs (the binding's input and output are WSDL elements holding a `soap:body`)",
                            tag.rsplit(':').next().unwrap_or(tag)
                        ),
                        None => String::new(),
                    };
                    return Err(LowerError::new(
                        at,
                        format!("operation `{}` binds no input or output body{why}", op.name),
                    ));
                }
            };
            if *style.get_or_insert(this) != this {
                return Err(LowerError::new(
                    &bop.loc,
                    format!(
                        "operation `{}` has another style than the binding's first operation",
                        op.name
                    ),
                ));
            }
            if op.output_first && op.input.is_some() {
                return Err(LowerError::new(
                    &op.loc,
                    format!(
                        "operation `{}` is a solicit-response (its output comes first): WSDL 1.1's SOAP binding has none and WS-I BP R2303 forbids it",
                        op.name
                    ),
                ));
            }
            if op.input.is_none() {
                // WSDL 1.1 section 2.4 defines no binding for it, and WS-I Basic Profile
                // R2303 forbids it: a server over HTTP cannot send what nobody asked for.
                return Err(LowerError::new(
                    &op.loc,
                    format!(
                        "operation `{}` is a notification (an output and no input): WSDL 1.1's SOAP binding has none and WS-I BP R2303 forbids it",
                        op.name
                    ),
                ));
            }
            if op.output.is_none() && !op.faults.is_empty() {
                return Err(LowerError::new(
                    &op.loc,
                    format!(
                        "one-way operation `{}` declares faults: WSDL 1.1 section 2.4.1 gives a one-way operation an input only",
                        op.name
                    ),
                ));
            }
            ops.push((op, bop));
        }
        let style = style.unwrap_or_default();
        // The namespace: the body elements' (document) or the soap:body namespace (rpc).
        for (op, bop) in &ops {
            let ns = match style {
                BindingStyle::DocumentLiteral => {
                    match self.body_element(op.input.as_ref(), bop.input.as_ref(), &op.loc)? {
                        BodyOf::One(element) => element.name.namespace.clone(),
                        // The first part's namespace, if any.
                        BodyOf::Parts(parts) => {
                            match parts.first().and_then(|p| p.element.as_ref()) {
                                Some(e) => e.namespace.clone(),
                                None => continue,
                            }
                        }
                    }
                }
                _ => binding.rpc_namespace(bop),
            };
            match &namespace {
                None => namespace = Some(ns),
                // A document/literal wrapper of another namespace keeps its own
                // (`OperationModel::request_namespace`); an rpc one cannot.
                Some(first) if *first != ns && style.is_rpc() => {
                    return Err(LowerError::new(
                        &op.loc,
                        format!("operation `{}` is in namespace `{ns}`, not `{first}`: the service model has one namespace", op.name),
                    ))
                }
                Some(_) => {}
            }
        }
        let namespace = namespace.unwrap_or_else(|| self.target_namespace.clone());
        let mut model = ServiceModel::new(svc.name.local.clone(), namespace, style);
        model.documentation = self.documentation.clone();
        let mut lower = Lower::new(self, model.namespace.clone(), style);
        for (op, bop) in ops {
            let mut m =
                OperationModel::new(op.name.clone(), bop.action.clone().unwrap_or_default());
            m.one_way = op.output.is_none();
            m.documentation = op.documentation.clone();
            let schema = &mut model.schema;
            match style {
                BindingStyle::DocumentLiteral => {
                    let own = |e: &ElementDecl| {
                        (e.name.namespace != model.namespace).then(|| e.name.namespace.clone())
                    };
                    match self.body_element(op.input.as_ref(), bop.input.as_ref(), &op.loc)? {
                        BodyOf::One(request) => {
                            m.request = request.name.local.clone();
                            m.request_namespace = own(request);
                            if let Some(text) = lower.simple_body(schema, request)? {
                                m.input = text;
                            } else {
                                let fields = lower.content_of(
                                    super::subst::effective_type(&self.schema, request),
                                    request,
                                )?;
                                m.input = lower.wrapper_attributes(schema, request)?;
                                m.input.extend(lower.fields(schema, fields)?);
                            }
                        }
                        BodyOf::Parts(parts) => {
                            m.input_body = Body::Parts;
                            m.input = lower.bare_parts(schema, &parts)?;
                        }
                    }
                    if !m.one_way {
                        match self.body_element(op.output.as_ref(), bop.output.as_ref(), &op.loc)? {
                            BodyOf::One(response) => {
                                m.response = response.name.local.clone();
                                m.response_namespace = own(response);
                                if let Some(text) = lower.simple_body(schema, response)? {
                                    m.output = text;
                                } else {
                                    let fields = lower.content_of(
                                        super::subst::effective_type(&self.schema, response),
                                        response,
                                    )?;
                                    m.output = lower.wrapper_attributes(schema, response)?;
                                    m.output.extend(lower.fields(schema, fields)?);
                                }
                            }
                            BodyOf::Parts(parts) => {
                                m.output_body = Body::Parts;
                                m.output = lower.bare_parts(schema, &parts)?;
                            }
                        }
                    }
                }
                _ => {
                    let parts = self.body_parts(op.input.as_ref(), bop.input.as_ref(), &op.loc)?;
                    m.input = lower.rpc_parts(schema, &parts)?;
                    if !m.one_way {
                        let parts =
                            self.body_parts(op.output.as_ref(), bop.output.as_ref(), &op.loc)?;
                        m.output = lower.rpc_parts(schema, &parts)?;
                    }
                }
            }
            for (body, out) in [
                (&bop.input, &mut m.input_headers),
                (&bop.output, &mut m.output_headers),
            ] {
                for h in body.iter().flat_map(|b| &b.headers) {
                    if h.use_ == Use::Encoded {
                        let (element, ty) = self.encoded_header(h, &model.namespace, style)?;
                        out.push(HeaderPart::encoded(
                            element,
                            lower.type_ref(schema, ty, &h.loc)?,
                        ));
                        continue;
                    }
                    let element = self.header_element(h)?;
                    // A block of another namespace has its type there (as a fault detail).
                    let ty = if element.name.namespace == model.namespace {
                        lower.block_type(schema, element)?
                    } else {
                        lower.detail_type(schema, element)?
                    };
                    out.push(HeaderPart::new(element.name.clone(), ty));
                }
            }
            for (name, message) in &op.faults {
                if let Some(fb) = bop.faults.iter().find(|f| &f.name == name) {
                    if fb.use_ == Use::Encoded {
                        return Err(LowerError::new(&bop.loc, format!("fault `{name}` of `{}` is encoded: the service model's fault details are literal", op.name)));
                    }
                }
                let element = self.fault_element(message, name, &op.loc)?;
                m.faults.push(FaultPart::new(
                    name.clone(),
                    element.name.clone(),
                    lower.detail_type(schema, element)?,
                ));
            }
            model.operations.push(m);
        }
        if let Some((qualified, _)) = lower.qualified {
            model.qualified = qualified;
        }
        if let (true, Some((at, local))) = (model.qualified, &lower.back_to_service) {
            return Err(LowerError::new(
                at,
                format!("a type of another namespace holds `{local}` of the service namespace: the service model cannot write qualified elements back in the service namespace"),
            ));
        }
        model
            .validate()
            .map_err(|e| LowerError::new(&svc.loc, e.to_string()))?;
        Ok(model)
    }

    /// The SOAP 1.1 port of `service` if it has one, else its first SOAP port: the port a
    /// caller that does not say which gets.
    pub fn default_port(&self, service: &str) -> Option<&str> {
        let svc = self.services.iter().find(|s| s.name.local == service)?;
        let soap = |v: Option<SoapVersion>| {
            svc.ports.iter().find(|p| {
                self.bindings
                    .get(&p.binding)
                    .is_some_and(|b| b.soap.is_some() && (v.is_none() || b.soap == v))
            })
        };
        soap(Some(SoapVersion::Soap11))
            .or_else(|| soap(None))
            .map(|p| p.name.as_str())
    }

    /// The parts of a message that go in the Body: those `soap:body parts=` names, else all
    /// but those bound as headers of the same message.
    fn body_parts(
        &self,
        message: Option<&QName>,
        body: Option<&BodyBinding>,
        at: &Loc,
    ) -> Result<Vec<&MessagePart>, LowerError> {
        let Some(name) = message else {
            return Err(LowerError::new(
                at,
                "an operation without an input or output message",
            ));
        };
        let m = self.messages.get(name).ok_or_else(|| {
            LowerError::new(
                at,
                format!(
                    "the operation's message `{}` is not defined (no `wsdl:message` of that name in `{}`)",
                    name.local, name.namespace
                ),
            )
        })?;
        Ok(m.parts
            .iter()
            .filter(|p| match body {
                Some(BodyBinding {
                    parts: Some(names), ..
                }) => names.contains(&p.name),
                Some(b) => !b
                    .headers
                    .iter()
                    .any(|h| h.message == m.name && h.part == p.name),
                None => true,
            })
            .collect())
    }

    /// The one element of a document/literal message's body (wrapped or bare: either way its
    /// children are what the model's parts describe), or its parts when it has several or
    /// none (`lower_body`).
    fn body_element(
        &self,
        message: Option<&QName>,
        body: Option<&BodyBinding>,
        at: &Loc,
    ) -> Result<BodyOf<'_>, LowerError> {
        let parts = self.body_parts(message, body, at)?;
        let [part] = parts.as_slice() else {
            return Ok(BodyOf::Parts(parts));
        };
        match &part.element {
            // A part with `type=` (WS-I BP R2204 forbids it; zeep, CXF and .NET accept it):
            // its accessor is the part name, unqualified (`lower_body`).
            None if part.ty.is_some() => Ok(BodyOf::Parts(parts)),
            // The head of a substitution group would make the body a choice of elements.
            Some(e) if self.schema.substitutes.contains_key(e) => Err(LowerError::new(
                &part.loc,
                format!(
                    "part `{}` names the element `{}`, the head of a substitution group (or abstract): a message part is one element, name a member instead",
                    part.name, e.local
                ),
            )),
            Some(e) => self.schema.elements.get(e).map(BodyOf::One).ok_or_else(|| {
                LowerError::new(
                    &part.loc,
                    format!(
                        "part `{}` names the element `{{{}}}{}`, which is not defined{}",
                        part.name,
                        e.namespace,
                        e.local,
                        self.why_undefined(Kind::Element, e)
                    ),
                )
            }),
            None => Err(LowerError::new(
                &part.loc,
                format!(
                    "part `{}` names neither an element nor a type (`element=` or `type=`)",
                    part.name
                ),
            )),
        }
    }

    /// The element and type of an encoded `soap:header`: the part (by `type=`) named after
    /// itself in the `soap:header`'s `namespace` (WSDL 1.1 sections 3.5 and 3.7; the service
    /// namespace when it gives none). Only in an rpc/encoded binding, whose style the codec
    /// reads header blocks in.
    fn encoded_header(
        &self,
        h: &HeaderBinding,
        ns: &str,
        style: BindingStyle,
    ) -> Result<(QName, &QName), LowerError> {
        if style != BindingStyle::RpcEncoded {
            return Err(LowerError::new(
                &h.loc,
                format!(
                    "header part `{}` is encoded in a literal binding: the service model reads header blocks in the body's style",
                    h.part
                ),
            ));
        }
        let part = self.header_part(h)?;
        let Some(ty) = &part.ty else {
            return Err(LowerError::new(
                &part.loc,
                format!(
                    "encoded header part `{}` names an element: an encoded part has `type=` (WSDL 1.1 section 3.5)",
                    h.part
                ),
            ));
        };
        let namespace = h.namespace.clone().unwrap_or_else(|| ns.to_string());
        Ok((QName::new(namespace, h.part.clone()), ty))
    }

    /// The message part a `soap:header` names.
    fn header_part(&self, h: &HeaderBinding) -> Result<&MessagePart, LowerError> {
        let Some(message) = self.messages.get(&h.message) else {
            return Err(LowerError::new(
                &h.loc,
                format!(
                    "header part `{}` names the message `{}`, which is not defined (WSDL 1.1 section 3.7)",
                    h.part, h.message.local
                ),
            ));
        };
        message
            .parts
            .iter()
            .find(|p| p.name == h.part)
            .ok_or_else(|| {
                LowerError::new(
                    &h.loc,
                    format!(
                        "header part `{}` is not a part of message `{}`",
                        h.part, h.message.local
                    ),
                )
            })
    }

    /// The element of a literal `soap:header` (a part of a message, by `element=`), of any
    /// namespace: a block is written in its own.
    fn header_element(&self, h: &HeaderBinding) -> Result<&ElementDecl, LowerError> {
        let part = self.header_part(h)?;
        self.block_element(part)
    }

    /// The detail element of fault `name` (its message's one part).
    fn fault_element(
        &self,
        message: &QName,
        name: &str,
        at: &Loc,
    ) -> Result<&ElementDecl, LowerError> {
        let m = self.messages.get(message).ok_or_else(|| {
            LowerError::new(
                at,
                format!(
                    "fault `{name}` names the message `{}`, which is not defined",
                    message.local
                ),
            )
        })?;
        let [part] = m.parts.as_slice() else {
            return Err(LowerError::new(
                &m.loc,
                format!(
                    "fault message `{}` has {} parts: a fault detail has one",
                    m.name.local,
                    m.parts.len()
                ),
            ));
        };
        // A detail element may be of any namespace: it is written in its own.
        self.block_element(part)
    }

    /// The element of a header or fault part, of any namespace.
    fn block_element(&self, part: &MessagePart) -> Result<&ElementDecl, LowerError> {
        let Some(name) = &part.element else {
            return Err(LowerError::new(
                &part.loc,
                format!(
                    "part `{}` has `type=`: a literal header or fault part names an element (WSDL 1.1 section 3.5, WS-I BP R2205)",
                    part.name
                ),
            ));
        };
        let element = self.schema.elements.get(name).ok_or_else(|| {
            LowerError::new(
                &part.loc,
                format!(
                    "part `{}` names the element `{{{}}}{}`, which is not defined{}",
                    part.name,
                    name.namespace,
                    name.local,
                    self.why_undefined(Kind::Element, name)
                ),
            )
        })?;
        Ok(element)
    }
}
