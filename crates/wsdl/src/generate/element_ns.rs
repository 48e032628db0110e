//! Writing fields named `{ns}name` (elements with a namespace of their own): a local element
//! with `form` when `ns` is the schema's own namespace or none, else a `ref` to a global
//! element declared in `ns`'s schema, the way XML Schema says "this element is in another
//! namespace" (node-soap's `UpdateProfile` samples, `typeref/ns1.xsd`).
//! Must never publish a schema whose instances differ from what the codec writes for the
//! field (`<name xmlns="ns">` or `<e:name xmlns:e="ns">`), nor two global elements of one name
//! with different types.

use std::collections::BTreeMap;

use super::{esc, Writer};
use crate::model::{Body, ServiceModel};
use crate::xsd::{Field, TypeDef, TypeRef};

/// The global elements the `ref`s of `m` need, by namespace: `(local, type)`, each once.
pub(super) fn global_elements(m: &ServiceModel) -> BTreeMap<String, Vec<(String, TypeRef)>> {
    let mut out: BTreeMap<String, Vec<(String, TypeRef)>> = BTreeMap::new();
    for (holder, f) in owned_fields(m) {
        let Some((ns, local)) = f.own_namespace() else {
            continue;
        };
        if ns.is_empty() || ns == holder {
            continue;
        }
        let list = out.entry(ns.to_string()).or_default();
        if !list.iter().any(|(l, _)| l == local) {
            let ty = TypeRef {
                optional: false,
                repeated: false,
                ..f.ty.clone()
            };
            list.push((local.to_string(), ty));
        }
    }
    // The body elements of messages without wrapper (`Body::Parts`), each a global element
    // (but a `type=` part, `{}name`), and the rpc/literal parts that name an element.
    for op in &m.operations {
        let rpc = m.style.is_rpc();
        let bare = [(op.input_body, &op.input), (op.output_body, &op.output)];
        let parts = bare
            .iter()
            .filter(|b| b.0 == Body::Parts || rpc)
            .flat_map(|b| b.1);
        for p in parts {
            if rpc && crate::xsd::own_namespace(&p.name).is_none() {
                continue;
            }
            let (ns, local) = crate::xsd::own_namespace(&p.name).unwrap_or((&m.namespace, &p.name));
            if ns.is_empty() {
                continue;
            }
            let list = out.entry(ns.to_string()).or_default();
            if !list.iter().any(|(l, _)| l == local) {
                let ty = TypeRef {
                    optional: false,
                    repeated: false,
                    ..p.ty.clone()
                };
                list.push((local.to_string(), ty));
            }
        }
    }
    // Fault detail elements and literal header blocks of another namespace than the
    // service's.
    let headers = m
        .operations
        .iter()
        .flat_map(|op| op.input_headers.iter().chain(&op.output_headers))
        .filter(|h| !h.encoded)
        .map(|h| (&h.element, &h.ty));
    let faults = m
        .operations
        .iter()
        .flat_map(|op| &op.faults)
        .map(|f| (&f.element, &f.ty));
    for (element, ty) in faults.chain(headers) {
        if element.namespace == m.namespace {
            continue;
        }
        let list = out.entry(element.namespace.clone()).or_default();
        if !list.iter().any(|(l, _)| *l == element.local) {
            list.push((element.local.clone(), ty.clone()));
        }
    }
    out
}

/// Every element field with the namespace of the type (or wrapper) that holds it.
fn owned_fields(m: &ServiceModel) -> Vec<(String, Field)> {
    let mut out = Vec::new();
    for t in m.schema.types() {
        if let TypeDef::Struct(fields) = &t.def {
            out.extend(fields.iter().map(|f| (t.namespace.clone(), f.clone())));
        }
    }
    if !m.style.is_rpc() {
        for op in &m.operations {
            for p in op.input.iter().chain(&op.output) {
                out.push((
                    m.namespace.clone(),
                    Field::new(p.name.clone(), p.ty.clone()),
                ));
            }
        }
    }
    out
}

/// What a schema with these global elements could not say: one name with two types, or a
/// global element of the service namespace named like a message's wrapper, header or fault.
pub(crate) fn problems(m: &ServiceModel) -> Vec<String> {
    let mut problems = Vec::new();
    // Decoding matches local names: two elements of one local name in one type (or message)
    // could not be told apart.
    let mut holders: Vec<(&str, Vec<&str>)> = Vec::new();
    for t in m.schema.types() {
        if let TypeDef::Struct(fields) = &t.def {
            holders.push((&t.name, fields.iter().map(|f| f.name.as_str()).collect()));
        }
    }
    if !m.style.is_rpc() {
        for op in &m.operations {
            holders.push((
                &op.request,
                op.input.iter().map(|p| p.name.as_str()).collect(),
            ));
            holders.push((
                &op.response,
                op.output.iter().map(|p| p.name.as_str()).collect(),
            ));
        }
    }
    for (holder, names) in holders {
        if !names.iter().any(|n| n.starts_with('{')) {
            continue;
        }
        let locals: Vec<&str> = names
            .iter()
            .map(|n| crate::xsd::own_namespace(n).map_or(*n, |(_, local)| local))
            .collect();
        let mut reported = std::collections::HashSet::new();
        for (i, local) in locals.iter().enumerate() {
            if locals[..i].contains(local) && reported.insert(*local) {
                problems.push(format!(
                    "`{holder}` has two elements named `{local}` in different namespaces: they are read by local name"
                ));
            }
        }
    }
    let mut seen: BTreeMap<(String, String), TypeRef> = BTreeMap::new();
    for (holder, f) in owned_fields(m) {
        let Some((ns, local)) = f.own_namespace() else {
            continue;
        };
        if ns.is_empty() || ns == holder {
            continue;
        }
        let ty = TypeRef {
            optional: false,
            repeated: false,
            ..f.ty.clone()
        };
        match seen.get(&(ns.to_string(), local.to_string())) {
            Some(other) if other.name != ty.name || other.nillable != ty.nillable => {
                problems.push(format!(
                    "element `{{{ns}}}{local}` is used with two types (`{}` and `{}`): a schema has one global element of a name",
                    other.name.local, ty.name.local
                ));
            }
            Some(_) => {}
            None => {
                if ns == m.namespace {
                    let clash = m.operations.iter().any(|op| {
                        (!m.style.is_rpc() && (op.request == local || op.response == local))
                            || op
                                .input_headers
                                .iter()
                                .chain(&op.output_headers)
                                .map(|h| &h.element)
                                .chain(op.faults.iter().map(|f| &f.element))
                                .any(|e| e.local == local)
                    });
                    if clash {
                        problems.push(format!(
                            "element `{local}` of the service namespace is both a field's element and a message's wrapper, header or fault"
                        ));
                    }
                }
                seen.insert((ns.to_string(), local.to_string()), ty);
            }
        }
    }
    problems
}

impl Writer<'_> {
    /// Writes `f` when it is an element with a namespace of its own (and says so).
    pub(super) fn own_namespace_element(&mut self, indent: usize, f: &Field) -> bool {
        let Some((ns, local)) = f.own_namespace() else {
            return false;
        };
        let mut el = if ns.is_empty() || ns == self.target {
            let (ty, decl) = self.qname(&f.ty.name);
            let form = if ns.is_empty() {
                "unqualified"
            } else {
                "qualified"
            };
            let mut el = format!(
                "<xsd:element name=\"{}\" type=\"{ty}\" form=\"{form}\"",
                esc(local)
            );
            if f.ty.nillable {
                el.push_str(" nillable=\"true\"");
            }
            el.push_str(&decl);
            el
        } else {
            let (name, decl) = self.qname(&soapstone_codec::QName::new(ns, local));
            format!("<xsd:element ref=\"{name}\"{decl}")
        };
        if f.ty.optional {
            el.push_str(" minOccurs=\"0\"");
        }
        if f.ty.repeated {
            el.push_str(" maxOccurs=\"unbounded\"");
        }
        el.push_str("/>");
        self.line(indent, &el);
        true
    }

    /// The global elements of one schema that `ref`s name.
    pub(super) fn global_elements(&mut self, indent: usize, elements: &[(String, TypeRef)]) {
        for (local, ty) in elements {
            let (name, decl) = self.qname(&ty.name);
            let nillable = if ty.nillable {
                " nillable=\"true\""
            } else {
                ""
            };
            self.line(
                indent,
                &format!(
                    "<xsd:element name=\"{}\" type=\"{name}\"{nillable}{decl}/>",
                    esc(local)
                ),
            );
        }
    }
}
