//! Lowering the attributes and the text content of complex types to fields named as the
//! codec names them (`@name`, `@{ns}name`, `$text`): local attributes, references to global
//! ones, attribute groups, attributes inherited through extension and restriction (less those a
//! restriction prohibits), `simpleContent` (the text's simple type, through derivations of
//! other simple-content types), `mixed` types that hold text but no element, and
//! `anyAttribute` (a field `@*`: the map of the attributes no other field names).
//!
//! An element whose type is mixed *with* elements (text between elements) is lowered to
//! `anyType` by [`Lower::mixed_with_elements`]: an `xsd::AnyXml` keeps text, elements and
//! attributes in document order, where a struct of fields would lose the order.
//!
//! Must never approximate what goes on the wire: an attribute of a non-simple type and
//! attributes on a body wrapper element are refused with the file and line of their
//! declaration.

use soapstone_codec::QName;

use super::check::is_builtin;
use super::components::{AttrItem, AttributeDecl, ComplexType, Loc, TypeKind, TypeUse};
use super::lower::LowerError;
use super::lower_types::Lower;
use crate::xsd::{
    Field, Schema, TypeDef, TypeRef, ANY_ATTRIBUTE, OTHER_ATTRIBUTES_FIELD, SOAP_ENC_NS,
    TEXT_FIELD, XSD_NS,
};

/// How deep derivations and attribute groups are followed.
const MAX_DEPTH: usize = 32;

/// One attribute in effect on a type: where it is used (`use`, `default`, `fixed`) and what
/// it is (the global declaration for a reference).
#[derive(Clone, Copy)]
struct InEffect<'d> {
    used: &'d AttributeDecl,
    decl: &'d AttributeDecl,
}

impl<'d> Lower<'d> {
    /// The attributes in effect on `c`: its base's (complex derivations), then its own and its
    /// groups', a redeclaration replacing the base's and `use="prohibited"` removing it.
    fn attributes_in_effect(
        &self,
        c: &'d ComplexType,
        at: &Loc,
        depth: usize,
    ) -> Result<Vec<InEffect<'d>>, LowerError> {
        if depth > MAX_DEPTH {
            return Err(LowerError::new(
                at,
                "derivations or attribute groups nest too deep",
            ));
        }
        let mut out = Vec::new();
        if let Some((base, _)) = &c.base {
            if let Some(TypeKind::Complex(b)) = self.defs.schema.types.get(base).map(|d| &d.kind) {
                if base.namespace != SOAP_ENC_NS {
                    out = self.attributes_in_effect(b, at, depth + 1)?;
                }
            }
        }
        self.add_items(&c.attributes, depth, &mut out)?;
        Ok(out)
    }

    fn add_items(
        &self,
        items: &'d [AttrItem],
        depth: usize,
        out: &mut Vec<InEffect<'d>>,
    ) -> Result<(), LowerError> {
        for item in items {
            match item {
                AttrItem::Attribute(a) => {
                    let decl = match &a.reference {
                        Some(r) => self.defs.schema.attributes.get(r).ok_or_else(|| {
                            LowerError::new(
                                &a.loc,
                                format!("attribute `{}` is not defined", r.local),
                            )
                        })?,
                        None => a,
                    };
                    out.retain(|e| e.decl.name != decl.name);
                    if !a.prohibited {
                        out.push(InEffect { used: a, decl });
                    }
                }
                AttrItem::GroupRef(g, loc) => {
                    let (group, _) = self.defs.schema.attribute_groups.get(g).ok_or_else(|| {
                        LowerError::new(
                            loc,
                            format!("attribute group `{}` is not defined", g.local),
                        )
                    })?;
                    if depth > MAX_DEPTH {
                        return Err(LowerError::new(loc, "attribute groups nest too deep"));
                    }
                    self.add_items(group, depth + 1, out)?;
                }
                // A field of its own (`@*`, see `any_attribute`), not an attribute in effect.
                AttrItem::Any => {}
            }
        }
        Ok(())
    }

    /// Whether a complexContent restriction of `base` is read as the content it restates: the
    /// base is a complex type of the schema that is no SOAP-ENC array (an array's restriction
    /// says its items by `arrayType`, not by elements).
    pub(super) fn restates_content(&self, base: &QName, depth: usize) -> bool {
        let mut name = base;
        for _ in depth..MAX_DEPTH {
            if name.namespace == SOAP_ENC_NS {
                return false;
            }
            match self.defs.schema.types.get(name).map(|d| &d.kind) {
                Some(TypeKind::Complex(c)) if !c.simple_content => match &c.base {
                    Some((b, _)) => name = b,
                    None => return true,
                },
                _ => return false,
            }
        }
        false
    }

    /// Whether `c` (through its base and its attribute groups) has an `xsd:anyAttribute`.
    fn any_attribute(
        &self,
        c: &'d ComplexType,
        at: &Loc,
        depth: usize,
    ) -> Result<bool, LowerError> {
        if depth > MAX_DEPTH {
            return Err(LowerError::new(
                at,
                "derivations or attribute groups nest too deep",
            ));
        }
        if let Some((base, _)) = &c.base {
            if let Some(TypeKind::Complex(b)) = self.defs.schema.types.get(base).map(|d| &d.kind) {
                if base.namespace != SOAP_ENC_NS && self.any_attribute(b, at, depth + 1)? {
                    return Ok(true);
                }
            }
        }
        self.any_in_items(&c.attributes, depth)
    }

    fn any_in_items(&self, items: &'d [AttrItem], depth: usize) -> Result<bool, LowerError> {
        for item in items {
            match item {
                AttrItem::Any => return Ok(true),
                AttrItem::GroupRef(g, loc) => {
                    if depth > MAX_DEPTH {
                        return Err(LowerError::new(loc, "attribute groups nest too deep"));
                    }
                    if let Some((group, _)) = self.defs.schema.attribute_groups.get(g) {
                        if self.any_in_items(group, depth + 1)? {
                            return Ok(true);
                        }
                    }
                }
                AttrItem::Attribute(_) => {}
            }
        }
        Ok(false)
    }

    /// Refuses what a body wrapper element cannot have: text (operation parameters are the
    /// wrapper's attributes and child elements).
    pub(super) fn refuse_wrapper_markup(
        &self,
        c: &'d ComplexType,
        element: &str,
        at: &Loc,
    ) -> Result<(), LowerError> {
        if c.simple_content || c.mixed {
            return Err(LowerError::new(
                at,
                format!("element `{element}` is a body wrapper with text content: operation parameters are its child elements"),
            ));
        }
        // Its attributes are parameters too (`lower_wrapper`).
        Ok(())
    }

    /// Whether `ty` is a complex type with `mixed="true"` and child elements (its own or its
    /// extension bases'): text between elements, which no struct of fields can hold in
    /// document order. An element of such a type is lowered to `anyType` (an
    /// `xsd::AnyXml`: the element verbatim, text, elements and attributes in their order).
    pub(super) fn mixed_with_elements(
        &self,
        ty: &'d TypeUse,
        at: &Loc,
    ) -> Result<bool, LowerError> {
        let c = match ty {
            TypeUse::Inline(d) => match &d.kind {
                TypeKind::Complex(c) => c,
                TypeKind::Simple(_) => return Ok(false),
            },
            TypeUse::Named(q) => match self.defs.schema.types.get(q).map(|d| &d.kind) {
                Some(TypeKind::Complex(c)) => c,
                _ => return Ok(false),
            },
        };
        if !c.mixed || c.simple_content {
            return Ok(false);
        }
        Ok(!self.flattened(c, at, 0)?.is_empty())
    }

    /// The attribute fields of `c` (first) and its text field, for the type `owner`;
    /// `has_elements`: `c` has child elements too.
    pub(super) fn markup_fields(
        &mut self,
        schema: &mut Schema,
        c: &'d ComplexType,
        owner: &QName,
        at: &Loc,
        has_elements: bool,
    ) -> Result<Vec<Field>, LowerError> {
        let mut fields = Vec::new();
        for a in self.attributes_in_effect(c, at, 0)? {
            fields.push(self.attribute_field(schema, a, owner)?);
        }
        if self.any_attribute(c, at, 0)? {
            fields.push(Field::new(
                OTHER_ATTRIBUTES_FIELD,
                TypeRef::xsd(ANY_ATTRIBUTE),
            ));
        }
        if c.simple_content {
            let t = self.text_type(schema, c, at, 0)?;
            fields.push(Field::new(TEXT_FIELD, t));
        } else if c.mixed {
            if has_elements {
                return Err(LowerError::new(
                    at,
                    format!("mixed content of `{}` (text between elements): the service model holds text beside attributes only", owner.local),
                ));
            }
            fields.push(Field::new(TEXT_FIELD, TypeRef::xsd("string")));
        }
        Ok(fields)
    }

    fn attribute_field(
        &mut self,
        schema: &mut Schema,
        a: InEffect<'d>,
        owner: &QName,
    ) -> Result<Field, LowerError> {
        let InEffect { used, decl } = a;
        let name = &decl.name;
        if name.namespace == SOAP_ENC_NS || name.namespace == XSD_NS {
            return Err(LowerError::new(
                &used.loc,
                format!("attribute `{}` of the namespace `{}` is the encoding's or the schema's, not data", name.local, name.namespace),
            ));
        }
        // An attribute of another namespace than its type's (a `ref` to another schema's
        // global attribute, `xml:lang` style) is a field `@{ns}local`, as a qualified one of
        // the type's own namespace is: the codec writes it with a prefix bound to `ns`.
        let mut t = match &decl.ty {
            Some(TypeUse::Named(q)) => self.type_ref(schema, q, &decl.loc)?,
            Some(TypeUse::Inline(d)) => {
                let hint = format!("{}{}", owner.local, upper_first(&name.local));
                self.anonymous_ref(schema, d, &hint, &owner.namespace)?
            }
            None => TypeRef::xsd("string"),
        };
        let simple = (t.name.namespace == XSD_NS && t.name.local != "anyType")
            || matches!(schema.get(&t.name.local), Some(TypeDef::Enum(_)));
        if !simple {
            return Err(LowerError::new(
                &used.loc,
                format!("attribute `{}` has the type `{}`, which is not a simple type the service model knows", name.local, t.name.local),
            ));
        }
        t.optional = !used.required;
        let wire = if name.namespace.is_empty() {
            format!("@{}", name.local)
        } else {
            format!("@{{{}}}{}", name.namespace, name.local)
        };
        let default = used.default.clone().or_else(|| decl.default.clone());
        let fixed = used.fixed.clone().or_else(|| decl.fixed.clone());
        Ok(Field::new(wire, t).with_values(default, fixed))
    }

    /// The simple type of the text of a `simpleContent` type: its base, through other
    /// simple-content types it derives from.
    fn text_type(
        &mut self,
        schema: &mut Schema,
        c: &'d ComplexType,
        at: &Loc,
        depth: usize,
    ) -> Result<TypeRef, LowerError> {
        let Some((base, _)) = &c.base else {
            return Ok(TypeRef::xsd("string"));
        };
        if is_builtin(base) {
            if base.local == "anyType" {
                return Ok(TypeRef::xsd("string"));
            }
            return self.type_ref(schema, base, at);
        }
        let decl = self.defs.schema.types.get(base).ok_or_else(|| {
            LowerError::new(
                at,
                format!(
                    "type `{}` is not defined{}",
                    base.local,
                    self.defs.why_undefined(super::hint::Kind::Type, base)
                ),
            )
        })?;
        match &decl.kind {
            TypeKind::Simple(_) => self.type_ref(schema, base, at),
            TypeKind::Complex(b) if b.simple_content && depth < MAX_DEPTH => {
                // a restriction narrows the base's values (facets are not checked)
                self.text_type(schema, b, at, depth + 1)
            }
            TypeKind::Complex(b) if b.mixed && b.content.is_none() && depth < MAX_DEPTH => {
                Ok(TypeRef::xsd("string"))
            }
            TypeKind::Complex(_) => Err(LowerError::new(
                at,
                format!(
                    "simple content derived from `{}`, which has element content",
                    base.local
                ),
            )),
        }
    }
}

fn upper_first(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}
