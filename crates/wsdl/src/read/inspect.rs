//! What `soapstone wsdl inspect` prints: every service, port and operation of a WSDL with its
//! input and output signature, in the shape `python -m zeep` uses
//! (`echoString(inputString: xsd:string) -> return: xsd:string`).
//!
//! Must never fail on a WSDL that [`read`](super::read) accepted: a construct it cannot
//! summarise is shown as `xsd:anyType`, not refused.

use std::collections::BTreeMap;
use std::fmt::Write;

use soapstone_codec::QName;

use super::components::{
    BodyBinding, ComplexType, Definitions, Derivation, MaxOccurs, Message, OpStyle, Particle,
    SoapVersion, TypeKind, TypeUse,
};
use crate::xsd::{SOAP_ENC_NS, XSD_NS};

/// One operation of one port, summarised.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signature {
    /// The service's local name.
    pub service: String,
    /// The port's name.
    pub port: String,
    /// The SOAP version of the port's binding (`None`: not a SOAP binding).
    pub soap: Option<SoapVersion>,
    /// The operation's name.
    pub operation: String,
    /// The input parameters: name and type (`xsd:string`, `ns0:Contact[]`).
    pub input: Vec<(String, String)>,
    /// The output values: name and type.
    pub output: Vec<(String, String)>,
    /// The header blocks of the input: part name and type.
    pub headers: Vec<(String, String)>,
    /// Why the operation cannot be called (a message, or a part's element or type, that is
    /// not defined); `None` when it can.
    pub problem: Option<String>,
}

/// The signature of every operation of every port, in document order.
pub fn inspect(defs: &Definitions) -> Vec<Signature> {
    let prefixes = Prefixes::new(defs);
    let mut out = Vec::new();
    for service in &defs.services {
        for port in &service.ports {
            let Some(binding) = defs.bindings.get(&port.binding) else {
                continue;
            };
            let Some(pt) = defs.port_types.get(&binding.port_type) else {
                continue;
            };
            for op in &pt.operations {
                let bop = binding.operations.iter().find(|b| b.name == op.name);
                let style = bop.map_or(OpStyle::Document, |b| b.style);
                let params = |msg: &Option<QName>, body: Option<&BodyBinding>| {
                    let Some(m) = msg.as_ref().and_then(|m| defs.messages.get(m)) else {
                        return Vec::new();
                    };
                    let body_parts = body.and_then(|b| b.parts.as_ref());
                    let headers: Vec<&str> = body
                        .map(|b| {
                            b.headers
                                .iter()
                                .filter(|h| h.message == m.name)
                                .map(|h| h.part.as_str())
                                .collect()
                        })
                        .unwrap_or_default();
                    let parts = m.parts.iter().filter(|p| {
                        body_parts.map_or(!headers.contains(&p.name.as_str()), |bp| {
                            bp.contains(&p.name)
                        })
                    });
                    prefixes.parts(defs, m, parts, style)
                };
                let input_body = bop.and_then(|b| b.input.as_ref());
                let mut headers = Vec::new();
                for h in input_body.iter().flat_map(|b| &b.headers) {
                    if let Some(m) = defs.messages.get(&h.message) {
                        for p in m.parts.iter().filter(|p| p.name == h.part) {
                            let ty = match (&p.element, &p.ty) {
                                (Some(e), _) => prefixes.name(e),
                                (None, Some(t)) => prefixes.name(t),
                                (None, None) => "xsd:anyType".to_string(),
                            };
                            headers.push((p.name.clone(), ty));
                        }
                    }
                }
                let problem = operation_problem(defs, op);
                out.push(Signature {
                    service: service.name.local.clone(),
                    port: port.name.clone(),
                    soap: binding.soap,
                    operation: op.name.clone(),
                    input: params(&op.input, input_body),
                    output: params(&op.output, bop.and_then(|b| b.output.as_ref())),
                    headers,
                    problem,
                });
            }
        }
    }
    out
}

/// The first undefined name an operation's messages use directly.
fn operation_problem(
    defs: &Definitions,
    op: &super::components::AbstractOperation,
) -> Option<String> {
    let messages = op
        .input
        .iter()
        .chain(&op.output)
        .chain(op.faults.iter().map(|(_, m)| m));
    for m in messages {
        let Some(message) = defs.messages.get(m) else {
            return Some(format!("message `{}` is not defined", m.local));
        };
        for p in &message.parts {
            match (&p.element, &p.ty) {
                (Some(e), _) if !defs.schema.elements.contains_key(e) => {
                    return Some(format!("element `{}` is not defined", e.local))
                }
                (None, Some(t))
                    if !super::check::is_builtin(t)
                        && t.namespace != SOAP_ENC_NS
                        && !defs.schema.types.contains_key(t) =>
                {
                    return Some(format!("type `{}` is not defined", t.local))
                }
                _ => {}
            }
        }
    }
    None
}

impl Definitions {
    /// The text `soapstone wsdl inspect` prints.
    pub fn inspect_text(&self) -> String {
        let prefixes = Prefixes::new(self);
        let mut out = String::from("Prefixes:\n");
        for (ns, p) in &prefixes.map {
            let _ = writeln!(out, "     {p}: {ns}");
        }
        let signatures = inspect(self);
        let mut last: Option<(&str, &str)> = None;
        for s in &signatures {
            if last.map(|l| l.0) != Some(&s.service) {
                let _ = writeln!(out, "\nService: {}", s.service);
            }
            if last != Some((&s.service, &s.port)) {
                let soap = match s.soap {
                    Some(SoapVersion::Soap11) => "SOAP 1.1",
                    Some(SoapVersion::Soap12) => "SOAP 1.2",
                    None => "not SOAP",
                };
                let _ = writeln!(out, "     Port: {} ({soap})\n         Operations:", s.port);
            }
            last = Some((&s.service, &s.port));
            let join = |v: &[(String, String)]| {
                v.iter()
                    .map(|(n, t)| format!("{n}: {t}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let mut input = join(&s.input);
            if !s.headers.is_empty() {
                if !input.is_empty() {
                    input.push_str(", ");
                }
                let _ = write!(input, "_soapheaders={{{}}}", join(&s.headers));
            }
            let _ = writeln!(
                out,
                "            {}({input}) -> {}",
                s.operation,
                join(&s.output)
            );
            if let Some(p) = &s.problem {
                let _ = writeln!(out, "                (cannot be called: {p})");
            }
        }
        out
    }
}

/// Short prefixes for namespaces: `xsd`, `soapenc`, then `ns0`, `ns1`... in name order.
struct Prefixes {
    map: BTreeMap<String, String>,
}

impl Prefixes {
    fn new(defs: &Definitions) -> Self {
        let mut map = BTreeMap::new();
        map.insert(XSD_NS.to_string(), "xsd".to_string());
        map.insert(SOAP_ENC_NS.to_string(), "soapenc".to_string());
        let mut namespaces: Vec<&String> = defs.schema.namespaces.iter().collect();
        namespaces.push(&defs.target_namespace);
        for ns in namespaces {
            if !map.contains_key(ns) {
                let p = format!("ns{}", map.len() - 2);
                map.insert(ns.clone(), p);
            }
        }
        Prefixes { map }
    }

    fn name(&self, q: &QName) -> String {
        match self.map.get(&q.namespace) {
            Some(p) => format!("{p}:{}", q.local),
            None if q.namespace.is_empty() => q.local.clone(),
            None => format!("{{{}}}{}", q.namespace, q.local),
        }
    }

    fn type_use(&self, t: Option<&TypeUse>) -> String {
        match t {
            Some(TypeUse::Named(q)) => self.name(q),
            Some(TypeUse::Inline(d)) => match &d.kind {
                TypeKind::Simple(_) => "xsd:string".to_string(),
                TypeKind::Complex(_) => "anonymous".to_string(),
            },
            None => "xsd:anyType".to_string(),
        }
    }

    /// The parameters of a message: a document-style single element part is unwrapped into
    /// its children (the wrapped convention, as zeep shows it); other parts are listed as is.
    fn parts<'m>(
        &self,
        defs: &Definitions,
        _message: &Message,
        parts: impl Iterator<Item = &'m super::components::MessagePart>,
        style: OpStyle,
    ) -> Vec<(String, String)> {
        let parts: Vec<_> = parts.collect();
        if let (OpStyle::Document, [part]) = (style, parts.as_slice()) {
            if let Some(e) = part
                .element
                .as_ref()
                .and_then(|e| defs.schema.elements.get(e))
            {
                let complex = match &e.ty {
                    Some(TypeUse::Inline(d)) => match &d.kind {
                        TypeKind::Complex(c) => Some(c),
                        _ => None,
                    },
                    Some(TypeUse::Named(q)) => match defs.schema.types.get(q).map(|d| &d.kind) {
                        Some(TypeKind::Complex(c)) => Some(c),
                        _ => None,
                    },
                    None => None,
                };
                if let Some(c) = complex {
                    let mut out = Vec::new();
                    self.fields(defs, c, &mut out, 0);
                    return out;
                }
            }
        }
        parts
            .iter()
            .map(|p| {
                let ty = match (&p.element, &p.ty) {
                    (Some(e), _) => self.name(e),
                    (None, Some(t)) => self.name(t),
                    (None, None) => "xsd:anyType".to_string(),
                };
                (p.name.clone(), ty)
            })
            .collect()
    }

    /// The elements of a complex type's content, its bases' first.
    fn fields(
        &self,
        defs: &Definitions,
        c: &ComplexType,
        out: &mut Vec<(String, String)>,
        depth: usize,
    ) {
        if depth > 32 {
            return;
        }
        if let Some((base, Derivation::Extension)) = &c.base {
            if let Some(TypeKind::Complex(b)) = defs.schema.types.get(base).map(|d| &d.kind) {
                self.fields(defs, b, out, depth + 1);
            }
        }
        let mut stack: Vec<(&Particle, bool)> = c.content.iter().map(|p| (p, false)).collect();
        let mut groups = 0;
        while let Some((p, many)) = stack.pop() {
            match p {
                // A head of a substitution group: the elements that may stand for it, which
                // are what `call` takes.
                Particle::Element(e)
                    if e.reference
                        .as_ref()
                        .is_some_and(|r| defs.schema.substitutes.contains_key(r)) =>
                {
                    let alternatives = e
                        .reference
                        .as_ref()
                        .and_then(|r| defs.schema.substitutes.get(r));
                    for a in alternatives.into_iter().flatten() {
                        let Particle::Element(a) = a else { continue };
                        let Some(g) = a
                            .reference
                            .as_ref()
                            .and_then(|r| defs.schema.elements.get(r))
                        else {
                            continue;
                        };
                        let ty = self.type_use(super::subst::effective_type(&defs.schema, g));
                        let suffix = if many || e.max.repeats() { "[]" } else { "" };
                        out.push((g.name.local.clone(), format!("{ty}{suffix}")));
                    }
                }
                Particle::Element(e) => {
                    let (name, ty) = match &e.reference {
                        Some(r) => (
                            r.local.clone(),
                            defs.schema
                                .elements
                                .get(r)
                                .map_or("xsd:anyType".to_string(), |g| {
                                    self.type_use(g.ty.as_ref())
                                }),
                        ),
                        None => (e.name.local.clone(), self.type_use(e.ty.as_ref())),
                    };
                    let suffix = if many || e.max.repeats() { "[]" } else { "" };
                    out.push((name, format!("{ty}{suffix}")));
                }
                Particle::Group { items, max, .. } => {
                    let many = many || max.repeats();
                    stack.extend(items.iter().rev().map(|i| (i, many)));
                }
                Particle::GroupRef { name, max, .. } => {
                    groups += 1;
                    if groups < 64 {
                        if let Some((g, _)) = defs.schema.groups.get(name) {
                            stack.push((g, many || max.repeats()));
                        }
                    }
                }
                Particle::Any { max, .. } => {
                    let suffix = if *max != MaxOccurs::Bounded(1) {
                        "[]"
                    } else {
                        ""
                    };
                    out.push(("_value_1".to_string(), format!("xsd:any{suffix}")));
                }
            }
        }
    }
}
