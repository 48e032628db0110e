//! Checking, once every document is read, that every name a WSDL uses is defined: ports →
//! bindings → portTypes → messages → schema elements and types, and from there every type,
//! element, group and attribute group they reach; and that no type derives from itself and no
//! model group contains itself.
//!
//! Only what the services reach is checked (as zeep and wsdl2java do): a vendor schema often
//! carries unused declarations that refer to schemas nobody ships. Must never recurse on the
//! schema (a recursive type is legal): it walks with a work list and a visited set.

use std::collections::{BTreeSet, HashSet};

use soapstone_codec::QName;

use super::components::{
    AttrItem, Definitions, Loc, Particle, SimpleType, TypeDecl, TypeKind, TypeUse,
};
use super::hint::Kind;
use super::ReadError;
use crate::xsd::{SOAP_ENC_NS, XSD_NS};

/// Old XML Schema namespaces still found in 2001-era WSDLs; their types are built in too.
pub(super) const OLD_XSD: [&str; 2] = [
    "http://www.w3.org/1999/XMLSchema",
    "http://www.w3.org/2000/10/XMLSchema",
];

/// Whether `name` is a built-in type (XML Schema's, in any of its namespaces).
pub(super) fn is_builtin(name: &QName) -> bool {
    name.namespace == XSD_NS || OLD_XSD.contains(&name.namespace.as_str())
}

enum Work<'d> {
    Type(&'d QName, &'d Loc),
    Decl(&'d TypeDecl),
    Element(&'d QName, &'d Loc),
    Group(&'d QName, &'d Loc),
    AttrGroup(&'d QName, &'d Loc),
    Attribute(&'d QName, &'d Loc),
}

impl Definitions {
    /// Checks that every reference reachable from the services resolves.
    pub(super) fn check(&mut self) -> Result<(), ReadError> {
        self.relink();
        let mut problems = Vec::new();
        let mut work: Vec<Work<'_>> = Vec::new();
        let this = &*self;
        let undefined = |what: &str, name: &QName, at: &Loc| {
            let why = match what {
                "type" => this.why_undefined(Kind::Type, name),
                "element" => this.why_undefined(Kind::Element, name),
                _ => String::new(),
            };
            ReadError::new(
                at.clone(),
                format!(
                    "{what} `{{{}}}{}` is not defined{why}",
                    name.namespace, name.local
                ),
            )
        };
        // The members of each head: what may stand where the head is referred to is reached
        // too (`subst`).
        let mut members: std::collections::HashMap<&QName, Vec<&QName>> = Default::default();
        for e in this.schema.elements.values() {
            if let Some(head) = &e.substitution_group {
                members.entry(head).or_default().push(&e.name);
            }
        }
        let mut messages = BTreeSet::new();
        for service in &self.services {
            for port in &service.ports {
                let Some(binding) = self.bindings.get(&port.binding) else {
                    problems.push(undefined("binding", &port.binding, &port.loc));
                    continue;
                };
                let Some(pt) = self.port_types.get(&binding.port_type) else {
                    problems.push(undefined("portType", &binding.port_type, &binding.loc));
                    continue;
                };
                for bop in &binding.operations {
                    if !pt.operations.iter().any(|o| o.name == bop.name) {
                        problems.push(ReadError::new(
                            bop.loc.clone(),
                            format!(
                                "binding operation `{}` is not an operation of portType `{}`",
                                bop.name, pt.name.local
                            ),
                        ));
                    }
                    for h in bop.input.iter().chain(&bop.output).flat_map(|b| &b.headers) {
                        messages.insert((&h.message, &h.loc));
                    }
                }
                for op in &pt.operations {
                    for m in op.input.iter().chain(&op.output) {
                        messages.insert((m, &op.loc));
                    }
                    for (_, m) in &op.faults {
                        messages.insert((m, &op.loc));
                    }
                }
            }
        }
        for (name, at) in messages {
            let Some(message) = self.messages.get(name) else {
                problems.push(undefined("message", name, at));
                continue;
            };
            for part in &message.parts {
                match (&part.element, &part.ty) {
                    (Some(e), _) => work.push(Work::Element(e, &part.loc)),
                    (None, Some(t)) => work.push(Work::Type(t, &part.loc)),
                    (None, None) => problems.push(ReadError::new(
                        part.loc.clone(),
                        format!("part `{}` has neither `element` nor `type`", part.name),
                    )),
                }
            }
        }
        let schema = &self.schema;
        let mut seen: HashSet<(u8, &QName)> = HashSet::new();
        let mut decls: HashSet<*const TypeDecl> = HashSet::new();
        while let Some(item) = work.pop() {
            match item {
                Work::Type(name, at) => {
                    if is_builtin(name) || !seen.insert((0, name)) {
                        continue;
                    }
                    match schema.types.get(name) {
                        Some(decl) => work.push(Work::Decl(decl)),
                        None if name.namespace == SOAP_ENC_NS
                            || name.namespace == super::lower_types::SOAP12_ENC_NS => {}
                        None => problems.push(undefined("type", name, at)),
                    }
                }
                Work::Element(name, at) => {
                    if !seen.insert((1, name)) {
                        continue;
                    }
                    let Some(e) = schema.elements.get(name) else {
                        problems.push(undefined("element", name, at));
                        continue;
                    };
                    push_use(&mut work, e.ty.as_ref(), &e.loc);
                    if let Some(g) = &e.substitution_group {
                        work.push(Work::Element(g, &e.loc));
                    }
                    for m in members.get(name).into_iter().flatten() {
                        work.push(Work::Element(m, &e.loc));
                    }
                }
                Work::Group(name, at) => {
                    if !seen.insert((2, name)) {
                        continue;
                    }
                    let Some((p, _)) = schema.groups.get(name) else {
                        problems.push(undefined("group", name, at));
                        continue;
                    };
                    push_particle(&mut work, p);
                }
                Work::AttrGroup(name, at) => {
                    if !seen.insert((3, name)) {
                        continue;
                    }
                    let Some((attrs, _)) = schema.attribute_groups.get(name) else {
                        problems.push(undefined("attributeGroup", name, at));
                        continue;
                    };
                    push_attrs(&mut work, attrs);
                }
                Work::Attribute(name, at) => {
                    if name.namespace == super::load::XML_NS
                        || name.namespace == SOAP_ENC_NS
                        || name.namespace == super::lower_types::SOAP12_ENC_NS
                        || !seen.insert((4, name))
                    {
                        continue;
                    }
                    let Some(a) = schema.attributes.get(name) else {
                        problems.push(undefined("attribute", name, at));
                        continue;
                    };
                    push_use(&mut work, a.ty.as_ref(), &a.loc);
                }
                Work::Decl(decl) => {
                    if !decls.insert(decl as *const TypeDecl) {
                        continue;
                    }
                    match &decl.kind {
                        TypeKind::Simple(s) => match s {
                            SimpleType::Restriction { base, .. } => {
                                push_use(&mut work, Some(base), &decl.loc)
                            }
                            SimpleType::List { item } => push_use(&mut work, Some(item), &decl.loc),
                            SimpleType::Union { members } => {
                                for m in members {
                                    push_use(&mut work, Some(m), &decl.loc);
                                }
                            }
                        },
                        TypeKind::Complex(c) => {
                            if let Some((base, _)) = &c.base {
                                work.push(Work::Type(base, &decl.loc));
                            }
                            if let Some(p) = &c.content {
                                push_particle(&mut work, p);
                            }
                            push_attrs(&mut work, &c.attributes);
                        }
                    }
                }
            }
        }
        problems.sort_by(|a, b| (&a.loc, &a.message).cmp(&(&b.loc, &b.message)));
        problems.dedup();
        self.problems = problems;
        self.check_cycles()
    }

    /// Binds WSDL references that name the wrong namespace (an unprefixed name taking the
    /// WSDL namespace, a binding imported under another namespace) to the one component
    /// with that local name, as zeep and wsdl2java do; an ambiguous name stays unresolved.
    fn relink(&mut self) {
        fn fix<V>(map: &std::collections::BTreeMap<QName, V>, q: &mut QName) {
            if map.contains_key(q) {
                return;
            }
            let mut found = map.keys().filter(|k| k.local == q.local);
            if let (Some(one), None) = (found.next(), found.next()) {
                *q = one.clone();
            }
        }
        for service in &mut self.services {
            for port in &mut service.ports {
                fix(&self.bindings, &mut port.binding);
            }
        }
        for binding in self.bindings.values_mut() {
            fix(&self.port_types, &mut binding.port_type);
            for op in &mut binding.operations {
                for body in op.input.iter_mut().chain(op.output.iter_mut()) {
                    for h in &mut body.headers {
                        fix(&self.messages, &mut h.message);
                    }
                }
            }
        }
        for pt in self.port_types.values_mut() {
            for op in &mut pt.operations {
                for m in op.input.iter_mut().chain(op.output.iter_mut()) {
                    fix(&self.messages, m);
                }
                for (_, m) in &mut op.faults {
                    fix(&self.messages, m);
                }
            }
        }
    }

    /// A type that derives from itself, or a group that contains itself, has no meaning.
    /// Linear in the number of types: a chain stops at a type already known to end without a
    /// cycle (walking every type's whole chain was cubic: a chain of 1,000 types derived one
    /// from the next took 17 s to read).
    fn check_cycles(&self) -> Result<(), ReadError> {
        let mut acyclic: HashSet<&QName> = HashSet::new();
        for (name, decl) in &self.schema.types {
            let mut chain = vec![name];
            let mut on_chain = HashSet::from([name]);
            let mut current = decl;
            while let TypeKind::Complex(c) = &current.kind {
                let Some((base, _)) = &c.base else { break };
                if acyclic.contains(base) {
                    break;
                }
                if !on_chain.insert(base) {
                    chain.push(base);
                    let names: Vec<&str> = chain.iter().map(|q| q.local.as_str()).collect();
                    return Err(ReadError::new(
                        decl.loc.clone(),
                        format!(
                            "type `{}` derives from itself: {}",
                            name.local,
                            names.join(" → ")
                        ),
                    ));
                }
                chain.push(base);
                match self.schema.types.get(base) {
                    Some(next) => current = next,
                    None => break,
                }
            }
            acyclic.extend(chain);
        }
        for (name, (particle, at)) in &self.schema.groups {
            let mut stack = vec![particle];
            let mut visited = HashSet::new();
            while let Some(p) = stack.pop() {
                match p {
                    Particle::GroupRef { name: r, .. } => {
                        if r == name {
                            return Err(ReadError::new(
                                at.clone(),
                                format!("group `{}` contains itself", name.local),
                            ));
                        }
                        if visited.insert(r) {
                            if let Some((g, _)) = self.schema.groups.get(r) {
                                stack.push(g);
                            }
                        }
                    }
                    Particle::Group { items, .. } => stack.extend(items),
                    _ => {}
                }
            }
        }
        Ok(())
    }
}

fn push_use<'d>(work: &mut Vec<Work<'d>>, ty: Option<&'d TypeUse>, at: &'d Loc) {
    match ty {
        Some(TypeUse::Named(q)) => work.push(Work::Type(q, at)),
        Some(TypeUse::Inline(d)) => work.push(Work::Decl(d)),
        None => {}
    }
}

fn push_particle<'d>(work: &mut Vec<Work<'d>>, p: &'d Particle) {
    let mut stack = vec![p];
    while let Some(p) = stack.pop() {
        match p {
            Particle::Element(e) => match &e.reference {
                Some(r) => work.push(Work::Element(r, &e.loc)),
                None => push_use(work, e.ty.as_ref(), &e.loc),
            },
            Particle::Group { items, .. } => stack.extend(items),
            Particle::GroupRef { name, loc, .. } => work.push(Work::Group(name, loc)),
            Particle::Any { .. } => {}
        }
    }
}

fn push_attrs<'d>(work: &mut Vec<Work<'d>>, attrs: &'d [AttrItem]) {
    for a in attrs {
        match a {
            AttrItem::Attribute(a) => match &a.reference {
                Some(r) => work.push(Work::Attribute(r, &a.loc)),
                None => push_use(work, a.ty.as_ref(), &a.loc),
            },
            AttrItem::GroupRef(name, at) => work.push(Work::AttrGroup(name, at)),
            AttrItem::Any => {}
        }
    }
}
