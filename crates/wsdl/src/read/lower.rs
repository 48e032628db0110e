//! Lowering one port of a read WSDL to the [`ServiceModel`] the `#[service]` macro builds, so
//! that the dispatcher, the client and the WSDL writer can serve or call what a vendor's WSDL
//! describes.
//!
//! The model is narrower than WSDL: one namespace, document/literal wrapped or rpc/encoded,
//! named types that are sequences, string enumerations, SOAP-ENC arrays or list wrappers.
//! What does not fit is refused with a [`LowerError`] naming the construct and where it is;
//! this module must never approximate (a dropped attribute or a flattened choice would make
//! the client send what the server does not expect).

use std::fmt;

use soapstone_codec::QName;

use super::check::is_builtin;
use super::components::{
    AttrItem, ComplexType, Definitions, Derivation, ElementDecl, Loc, MaxOccurs, OpStyle, Particle,
    SimpleType, SoapVersion, TypeKind, TypeUse, Use,
};
use crate::model::{BindingStyle, OperationModel, Part, ServiceModel};
use crate::xsd::{Field, Schema, TypeDef, TypeRef, SOAP_ENC_NS, XSD_NS};

/// Why a port cannot be expressed as a [`ServiceModel`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LowerError {
    /// Where the construct is (file and line; line 0 when it is the port as a whole).
    pub loc: Loc,
    /// What (lower case, offending name in backticks).
    pub message: String,
}

impl LowerError {
    fn new(loc: &Loc, message: impl Into<String>) -> Self {
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

/// What registers lowered types in a [`Schema`] (the "Rust type" of [`Schema::define`]).
const FROM_WSDL: &str = "soapstone_wsdl::read";

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
            return Err(LowerError::new(
                &binding.loc,
                format!("binding `{}` is not a SOAP binding", binding.name.local),
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
            let this = match (bop.style, bop.input.as_ref().map(|b| b.use_)) {
                (OpStyle::Document, Some(Use::Literal)) => BindingStyle::DocumentLiteral,
                (OpStyle::Rpc, Some(Use::Encoded)) => BindingStyle::RpcEncoded,
                (s, u) => {
                    let s = if s == OpStyle::Rpc { "rpc" } else { "document" };
                    let u = if u == Some(Use::Encoded) {
                        "encoded"
                    } else {
                        "literal"
                    };
                    return Err(LowerError::new(
                        &bop.loc,
                        format!("operation `{}` is {s}/{u}: the service model has document/literal wrapped and rpc/encoded", op.name),
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
            let bodies = [bop.input.as_ref(), bop.output.as_ref()];
            if bodies.iter().flatten().any(|b| !b.headers.is_empty()) || !op.faults.is_empty() {
                return Err(LowerError::new(
                    &bop.loc,
                    format!("operation `{}` declares SOAP headers or faults, which the service model does not carry yet", op.name),
                ));
            }
            ops.push((op, bop));
        }
        let style = style.unwrap_or_default();
        // The namespace: the wrappers' (document) or the soap:body namespace (rpc).
        for (op, bop) in &ops {
            let ns = match style {
                BindingStyle::DocumentLiteral => {
                    let (element, _) = self.wrapper(op.input.as_ref(), &op.loc, &op.name)?;
                    element.name.namespace.clone()
                }
                BindingStyle::RpcEncoded => bop
                    .input
                    .as_ref()
                    .and_then(|b| b.namespace.clone())
                    .unwrap_or_default(),
            };
            match &namespace {
                None => namespace = Some(ns),
                Some(first) if *first != ns => {
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
        let mut lower = Lower {
            defs: self,
            namespace: model.namespace.clone(),
        };
        for (op, bop) in ops {
            let mut m =
                OperationModel::new(op.name.clone(), bop.action.clone().unwrap_or_default());
            m.documentation = op.documentation.clone();
            match style {
                BindingStyle::DocumentLiteral => {
                    let (request, fields) = self.wrapper(op.input.as_ref(), &op.loc, &op.name)?;
                    m.request = request.name.local.clone();
                    m.input = lower.fields(&mut model.schema, fields, &request.loc)?;
                    let (response, fields) = self.wrapper(op.output.as_ref(), &op.loc, &op.name)?;
                    m.response = response.name.local.clone();
                    m.output = lower.fields(&mut model.schema, fields, &response.loc)?;
                }
                BindingStyle::RpcEncoded => {
                    m.input = lower.rpc_parts(&mut model.schema, op.input.as_ref(), &op.loc)?;
                    m.output = lower.rpc_parts(&mut model.schema, op.output.as_ref(), &op.loc)?;
                }
            }
            model.operations.push(m);
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

    /// The wrapper element of a document/literal wrapped message and its child elements.
    fn wrapper(
        &self,
        message: Option<&QName>,
        at: &Loc,
        op: &str,
    ) -> Result<(&ElementDecl, Vec<&ElementDecl>), LowerError> {
        let m = message.and_then(|m| self.messages.get(m)).ok_or_else(|| {
            LowerError::new(
                at,
                format!("operation `{op}` has no input or output message"),
            )
        })?;
        let [part] = m.parts.as_slice() else {
            return Err(LowerError::new(
                &m.loc,
                format!(
                    "message `{}` has {} parts: document/literal wrapped has one",
                    m.name.local,
                    m.parts.len()
                ),
            ));
        };
        let element = part
            .element
            .as_ref()
            .and_then(|e| self.schema.elements.get(e))
            .ok_or_else(|| {
                LowerError::new(
                    &part.loc,
                    format!("part `{}` names no defined element", part.name),
                )
            })?;
        let c = match &element.ty {
            Some(TypeUse::Inline(d)) => match &d.kind {
                TypeKind::Complex(c) => c,
                TypeKind::Simple(_) => {
                    return Err(LowerError::new(&element.loc, format!("wrapper element `{}` has a simple type", element.name.local)))
                }
            },
            _ => {
                return Err(LowerError::new(
                    &element.loc,
                    format!("wrapper element `{}` has a named type: the service model's wrappers are anonymous sequences", element.name.local),
                ))
            }
        };
        Ok((element, sequence(c, &element.loc)?))
    }
}

/// The elements of a complex type that is a plain sequence of local elements.
fn sequence<'d>(c: &'d ComplexType, at: &Loc) -> Result<Vec<&'d ElementDecl>, LowerError> {
    if c.base.is_some() || c.simple_content || c.mixed {
        return Err(LowerError::new(
            at,
            "a derived, mixed or simple-content type is not a plain sequence",
        ));
    }
    own_sequence(c, at)
}

/// The elements `c` itself declares (for an extension: what it adds to its base).
fn own_sequence<'d>(c: &'d ComplexType, at: &Loc) -> Result<Vec<&'d ElementDecl>, LowerError> {
    if let Some(a) = c.attributes.first() {
        let what = match a {
            AttrItem::Attribute(a) => format!("attribute `{}`", a.name.local),
            AttrItem::GroupRef(g, _) => format!("attribute group `{}`", g.local),
            AttrItem::Any => "`anyAttribute`".to_string(),
        };
        return Err(LowerError::new(
            at,
            format!("{what}: the service model has no attributes yet"),
        ));
    }
    match &c.content {
        None => Ok(Vec::new()),
        Some(Particle::Group {
            compositor: super::Compositor::Sequence,
            min: 1,
            max: MaxOccurs::Bounded(1),
            items,
        }) => items
            .iter()
            .map(|p| match p {
                Particle::Element(e) if e.reference.is_none() => Ok(e),
                Particle::Element(e) => Err(LowerError::new(
                    &e.loc,
                    format!(
                        "element reference `{}`: the service model has local elements only",
                        e.name.local
                    ),
                )),
                Particle::Any { .. } => Err(LowerError::new(
                    at,
                    "`xsd:any`: the service model has no raw XML values yet",
                )),
                _ => Err(LowerError::new(
                    at,
                    "a nested model group or group reference is not a plain sequence",
                )),
            })
            .collect(),
        Some(_) => Err(LowerError::new(
            at,
            "`choice`, `all` or a repeated sequence is not a plain sequence",
        )),
    }
}

struct Lower<'d> {
    defs: &'d Definitions,
    namespace: String,
}

/// The elements of `c` with its extension bases' first: a literal instance of an extension is
/// its base's elements followed by its own, so the flattened sequence is the same on the wire
/// (what is lost is only substitution by `xsi:type`, which the model does not do).
fn flattened<'t>(
    defs: &'t Definitions,
    c: &'t ComplexType,
    at: &Loc,
    depth: usize,
) -> Result<Vec<&'t ElementDecl>, LowerError> {
    match &c.base {
        Some((base, Derivation::Extension)) if !c.simple_content && !c.mixed && depth < 32 => {
            let Some(TypeKind::Complex(b)) = defs.schema.types.get(base).map(|d| &d.kind) else {
                return Err(LowerError::new(
                    at,
                    format!(
                        "extension of `{}`, which is not a complex type of the schema",
                        base.local
                    ),
                ));
            };
            let mut out = flattened(defs, b, at, depth + 1)?;
            out.extend(own_sequence(c, at)?);
            Ok(out)
        }
        _ => sequence(c, at),
    }
}

impl Lower<'_> {
    fn fields(
        &mut self,
        schema: &mut Schema,
        elements: Vec<&ElementDecl>,
        _at: &Loc,
    ) -> Result<Vec<Part>, LowerError> {
        elements
            .into_iter()
            .map(|e| {
                Ok(Part::new(
                    e.name.local.clone(),
                    self.element_ref(schema, e)?,
                ))
            })
            .collect()
    }

    fn element_ref(&mut self, schema: &mut Schema, e: &ElementDecl) -> Result<TypeRef, LowerError> {
        let name = match &e.ty {
            Some(TypeUse::Named(q)) => q.clone(),
            Some(TypeUse::Inline(_)) => {
                return Err(LowerError::new(
                    &e.loc,
                    format!(
                        "element `{}` has an anonymous type: the service model names every type",
                        e.name.local
                    ),
                ))
            }
            None => QName::new(XSD_NS, "anyType"),
        };
        let mut t = self.type_ref(schema, &name, &e.loc)?;
        t.optional = e.min == 0;
        t.repeated = e.max.repeats();
        t.nillable = e.nillable;
        Ok(t)
    }

    fn rpc_parts(
        &mut self,
        schema: &mut Schema,
        message: Option<&QName>,
        at: &Loc,
    ) -> Result<Vec<Part>, LowerError> {
        let Some(m) = message.and_then(|m| self.defs.messages.get(m)) else {
            return Err(LowerError::new(
                at,
                "an operation without an input or output message",
            ));
        };
        m.parts
            .iter()
            .map(|p| match &p.ty {
                Some(t) => Ok(Part::new(p.name.clone(), self.type_ref(schema, t, &p.loc)?)),
                None => Err(LowerError::new(
                    &p.loc,
                    format!("rpc part `{}` names an element, not a type", p.name),
                )),
            })
            .collect()
    }

    /// Registers the named type `name` (and what it uses) and refers to it.
    fn type_ref(
        &mut self,
        schema: &mut Schema,
        name: &QName,
        at: &Loc,
    ) -> Result<TypeRef, LowerError> {
        if is_builtin(name) {
            return Ok(TypeRef::xsd(&name.local));
        }
        if name.namespace != self.namespace {
            return Err(LowerError::new(
                at,
                format!("type `{{{}}}{}` is not in the service namespace `{}`: the service model has one namespace", name.namespace, name.local, self.namespace),
            ));
        }
        let decl =
            self.defs.schema.types.get(name).ok_or_else(|| {
                LowerError::new(at, format!("type `{}` is not defined", name.local))
            })?;
        if schema.get(&name.local).is_some() {
            return Ok(TypeRef::new(name.clone()));
        }
        // An array's item type is registered before the array, as `Vec<T>` describes itself.
        if let TypeKind::Complex(c) = &decl.kind {
            for a in &c.attributes {
                if let AttrItem::Attribute(a) = a {
                    if let Some((item, brackets)) = &a.array_type {
                        self.type_ref(schema, item, &a.loc)?;
                        // `Vec<Vec<T>>` describes `Vec<T>` (the 1-d array) first.
                        for d in 1..brackets.matches(',').count() + 1 {
                            let lower = match d {
                                1 => format!("ArrayOf{}", item.local),
                                d => format!("ArrayOf{}{d}D", item.local),
                            };
                            let lower = QName::new(self.namespace.clone(), lower);
                            if self.defs.schema.types.contains_key(&lower) {
                                self.type_ref(schema, &lower, &a.loc)?;
                            }
                        }
                    }
                }
            }
        }
        let mut error = None;
        let tref = schema.define(&name.local, FROM_WSDL, |s| {
            match self.type_def(s, name, decl) {
                Ok(def) => def,
                Err(e) => {
                    error = Some(e);
                    TypeDef::Struct(Vec::new())
                }
            }
        });
        match error {
            Some(e) => Err(e),
            None => Ok(tref),
        }
    }

    fn type_def(
        &mut self,
        schema: &mut Schema,
        name: &QName,
        decl: &super::TypeDecl,
    ) -> Result<TypeDef, LowerError> {
        let at = &decl.loc;
        match &decl.kind {
            TypeKind::Simple(SimpleType::Restriction { base: TypeUse::Named(b), enumeration })
                if b.namespace == XSD_NS && b.local == "string" && !enumeration.is_empty() =>
            {
                Ok(TypeDef::Enum(enumeration.clone()))
            }
            TypeKind::Simple(_) => Err(LowerError::new(at, format!("simple type `{}` is not a string enumeration: the service model has no other named simple types yet", name.local))),
            TypeKind::Complex(c) => {
                if let Some((base, Derivation::Restriction)) = &c.base {
                    if base.namespace == SOAP_ENC_NS && base.local == "Array" {
                        return self.soap_array(c, name, at);
                    }
                }
                let elements = flattened(self.defs, c, at, 0)?;
                // The list wrapper the writer emits for a `Vec` in a `Vec` (literal style).
                if let [item] = elements.as_slice() {
                    if item.name.local == "item" && name.local.starts_with("ArrayOf") && item.max.repeats() && item.min == 0 {
                        let mut t = self.element_ref(schema, item)?;
                        t.optional = true;
                        t.repeated = true;
                        return Ok(TypeDef::List(t));
                    }
                }
                let mut fields = Vec::new();
                for e in elements {
                    fields.push(Field::new(e.name.local.clone(), self.element_ref(schema, e)?));
                }
                Ok(TypeDef::Struct(fields))
            }
        }
    }

    fn soap_array(
        &mut self,
        c: &ComplexType,
        name: &QName,
        at: &Loc,
    ) -> Result<TypeDef, LowerError> {
        let array_type = c.attributes.iter().find_map(|a| match a {
            AttrItem::Attribute(a) => a.array_type.clone(),
            _ => None,
        });
        let Some((item, brackets)) = array_type else {
            return Err(LowerError::new(
                at,
                format!("SOAP-ENC array `{}` has no `wsdl:arrayType`", name.local),
            ));
        };
        if brackets.matches('[').count() != 1 {
            return Err(LowerError::new(
                at,
                format!(
                    "array of arrays `{}{brackets}` is not in the service model",
                    item.local
                ),
            ));
        }
        let dims = brackets.matches(',').count() + 1;
        Ok(TypeDef::Array { item, dims })
    }
}
