//! Writing a complex type whose fields include attributes (`@name`) or text content
//! (`$text`): `xsd:attribute`s after the sequence, and `simpleContent` (an extension of the
//! text's simple type) when the type has text and no elements.
//! Must never write a schema that describes other messages than the codec writes for the same
//! fields (attributes with `form`, `use`, `default`, `fixed` as the model holds them).

use super::{esc, Writer};
use crate::xsd::{Field, TypeRef, XSD_NS};

impl Writer<'_> {
    /// The content of an `xsd:complexType` (what goes between its tags) for `fields`.
    pub(super) fn complex_body(&mut self, indent: usize, fields: &[Field]) {
        let elements: Vec<Field> = fields.iter().filter(|f| f.is_element()).cloned().collect();
        let text = fields.iter().find(|f| f.is_text());
        let attributes: Vec<&Field> = fields.iter().filter(|f| f.attribute().is_some()).collect();
        match text {
            Some(text) if elements.is_empty() => {
                let (base, decl) = self.qname(&text.ty.name);
                self.line(indent, "<xsd:simpleContent>");
                self.line(
                    indent + 1,
                    &format!("<xsd:extension base=\"{base}\"{decl}>"),
                );
                self.attributes(indent + 2, &attributes);
                self.line(indent + 1, "</xsd:extension>");
                self.line(indent, "</xsd:simpleContent>");
            }
            _ => {
                self.sequence(indent, &elements);
                self.attributes(indent, &attributes);
            }
        }
    }

    fn attributes(&mut self, indent: usize, attributes: &[&Field]) {
        for f in attributes {
            let Some((ns, local)) = f.attribute() else {
                continue;
            };
            if f.name == crate::xsd::OTHER_ATTRIBUTES_FIELD {
                // What the codec reads and writes: any attribute, kept as it is.
                self.line(indent, "<xsd:anyAttribute processContents=\"lax\"/>");
                continue;
            }
            let mut a = if ns.is_empty() || ns == self.target {
                let (ty, decl) = self.qname(&f.ty.name);
                let form = if ns.is_empty() {
                    ""
                } else {
                    " form=\"qualified\""
                };
                format!(
                    "<xsd:attribute name=\"{}\" type=\"{ty}\"{form}{decl}",
                    esc(local)
                )
            } else {
                // Of another namespace: a `ref` to the global attribute its schema declares
                // (`global_attributes`).
                let (name, decl) = self.qname(&soapstone_codec::QName::new(ns, local));
                format!("<xsd:attribute ref=\"{name}\"{decl}")
            };
            if !f.ty.optional {
                a.push_str(" use=\"required\"");
            }
            if let Some(d) = &f.default {
                a.push_str(&format!(" default=\"{}\"", esc(d)));
            }
            if let Some(v) = &f.fixed {
                a.push_str(&format!(" fixed=\"{}\"", esc(v)));
            }
            a.push_str("/>");
            self.line(indent, &a);
        }
    }

    /// The global attributes of one schema that the `ref`s of other schemas' types name.
    pub(super) fn global_attributes(&mut self, indent: usize, attributes: &[(String, TypeRef)]) {
        for (local, ty) in attributes {
            let (name, decl) = self.qname(&ty.name);
            self.line(
                indent,
                &format!(
                    "<xsd:attribute name=\"{}\" type=\"{name}\"{decl}/>",
                    esc(local)
                ),
            );
        }
    }
}

/// The global attributes the `ref`s of `m`'s types need, by namespace: attributes of another
/// namespace than the type that holds them, each once.
pub(super) fn global_attributes(
    m: &crate::ServiceModel,
) -> std::collections::BTreeMap<String, Vec<(String, TypeRef)>> {
    let mut out: std::collections::BTreeMap<String, Vec<(String, TypeRef)>> = Default::default();
    for t in m.schema.types() {
        let crate::TypeDef::Struct(fields) = &t.def else {
            continue;
        };
        for f in fields {
            let Some((ns, local)) = f.attribute() else {
                continue;
            };
            if ns.is_empty() || ns == t.namespace || f.name == crate::xsd::OTHER_ATTRIBUTES_FIELD {
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
    }
    out
}

/// Whether a type may be the type of an attribute or of text content: a built-in simple type or
/// a string enumeration of the schema.
pub(crate) fn is_simple(schema: &crate::Schema, name: &soapstone_codec::QName) -> bool {
    name.namespace == XSD_NS && name.local != "anyType"
        || matches!(schema.get(&name.local), Some(crate::TypeDef::Enum(_)))
}

/// What the codec cannot write as the schema says: an attribute or text field of a type that
/// is not simple or that repeats, two text fields, an attribute after an element.
pub(crate) fn problems(schema: &crate::Schema) -> Vec<String> {
    let mut out = Vec::new();
    for t in schema.types() {
        let crate::TypeDef::Struct(fields) = &t.def else {
            continue;
        };
        let mut after_content = None;
        for f in fields {
            let markup = f.attribute().is_some() || f.is_text();
            if markup && (f.ty.repeated || !is_simple(schema, &f.ty.name)) {
                out.push(format!(
                    "field `{}` of `{}` is an attribute or text content of the type `{}`, which is not a simple type",
                    f.name, t.name, f.ty.name.local
                ));
            }
            if f.attribute().is_some() {
                if let Some(first) = after_content {
                    out.push(format!(
                        "attribute field `{}` of `{}` comes after `{first}`: attributes come first",
                        f.name, t.name
                    ));
                }
            } else if after_content.is_none() {
                after_content = Some(f.name.as_str());
            }
        }
        if fields.iter().filter(|f| f.is_text()).count() > 1 {
            out.push(format!("`{}` has two text fields", t.name));
        }
    }
    out
}
