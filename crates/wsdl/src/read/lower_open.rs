//! Lowering what a sequence of named elements cannot say: `xsd:any` wildcards and `anyType`
//! elements (raw XML values), `choice` (an enum with one variant per alternative element),
//! optional sequences (their elements optional), and the simple types that are not a
//! restriction of a built-in: `list` (`xsd::List<T>`), `union` (its members' one built-in
//! type, else a string) and an enumeration restricting an enumeration (an enum of its own).
//!
//! Kept apart from `lower_types` so the sequence-flattening there stays small (a choice that
//! occurs once with a sequence among its alternatives is flattened there: every alternative's
//! elements, each optional). A repeated choice with a sequence among its alternatives is a
//! `Vec` of an enum whose sequence variant holds a [`TypeDef::Sequence`] (read from sibling
//! elements, in document order). Must never approximate an instance on the wire: a choice
//! whose alternative is a nested choice, group or `any`, an element named twice in one
//! choice, an alternative that is also a field of the type, or two wildcards in one type are
//! refused with their file and line.

use soapstone_codec::QName;

use super::check::is_builtin;
use super::components::{ElementDecl, Loc, MaxOccurs, Particle, SimpleType, TypeKind, TypeUse};
use super::lower::LowerError;
use super::lower_types::Lower;
use crate::model::BindingStyle;
use crate::xsd::{choice_field_name, Field, Schema, TypeDef, TypeRef, ANY_FIELD, XSD_NS};

/// How deep simple-type derivations are followed.
const MAX_DEPTH: usize = 32;

/// What the registered choice and list types are registered by (see [`Schema::define`]).
const SIMPLE_LIST: &str = "soapstone_wsdl::SimpleList";

/// One item of a complex type's flattened content.
pub(super) enum Item<'d> {
    /// An element; `optional` when it sits in an optional sequence.
    Element(&'d ElementDecl, bool),
    /// `xsd:any`.
    Any { min: u32, max: MaxOccurs, loc: Loc },
    /// A `choice` of `items` (`head`: they are the elements that may stand for that head of a
    /// substitution group, which are not expanded again, and the choice is named after it).
    Choice {
        items: &'d [Particle],
        head: Option<&'d QName>,
        min: u32,
        max: MaxOccurs,
        loc: Loc,
    },
}

impl Item<'_> {
    /// Where it was declared.
    pub(super) fn loc(&self) -> Loc {
        match self {
            Item::Element(e, _) => e.loc.clone(),
            Item::Any { loc, .. } | Item::Choice { loc, .. } => loc.clone(),
        }
    }
}

impl<'d> Lower<'d> {
    /// The field name and type of an item of a type whose elements are in `owner`.
    pub(super) fn item_ref(
        &mut self,
        schema: &mut Schema,
        item: &Item<'d>,
        owner: &str,
    ) -> Result<(String, TypeRef), LowerError> {
        if let Item::Any { max, loc, .. } | Item::Choice { max, loc, .. } = item {
            if max.repeats() && self.style == BindingStyle::RpcEncoded {
                return Err(LowerError::new(
                    loc,
                    "a repeated `choice` or `xsd:any` in an rpc/encoded binding: SOAP encoding writes a repetition as an array",
                ));
            }
        }
        match item {
            Item::Element(e, optional) => {
                let (name, mut t) = self.element_ref(schema, e, owner)?;
                t.optional |= *optional;
                Ok((name, t))
            }
            Item::Any { min, max, .. } => {
                let mut t = TypeRef::xsd("anyType");
                t.optional = *min == 0;
                t.repeated = max.repeats();
                Ok((ANY_FIELD.to_string(), t))
            }
            Item::Choice {
                items,
                head,
                min,
                max,
                loc,
            } => {
                // One type per head and owner: every reference to the head shares it (the
                // model grows by each head's alternatives once, not once per reference).
                let shared_key = head.map(|h| (h.clone(), owner.to_string()));
                if let Some((field, t)) = shared_key.as_ref().and_then(|k| self.head_choices.get(k))
                {
                    let mut t = t.clone();
                    t.optional = *min == 0 || t.optional;
                    t.repeated = max.repeats();
                    return Ok((field.clone(), t));
                }
                let mut alternatives = Vec::new();
                // An alternative that may be absent makes the whole choice optional (the
                // variant holds the value itself, not an `Option`).
                let mut may_be_empty = false;
                // A reference to the head of a substitution group (once) is its elements.
                let mut expanded: Vec<&'d Particle> = Vec::new();
                for p in items.iter() {
                    match p {
                        Particle::Element(e) if head.is_none() && self.substitutes(e).is_some() => {
                            if e.min != 1 || e.max != MaxOccurs::Bounded(1) {
                                return Err(LowerError::new(
                                    &e.loc,
                                    format!("a `choice` alternative that refers to the head of a substitution group (`{}`) may be absent or repeat: the service model's choice alternatives of a substitution group occur once", e.name.local),
                                ));
                            }
                            expanded.extend(self.substitutes(e).unwrap_or_default());
                        }
                        p => expanded.push(p),
                    }
                }
                for p in expanded {
                    if let Some(seq) = sequence_of_elements(p) {
                        // A sequence alternative: a `$sequence` struct read from the element
                        // that starts it and its siblings (the codec's convention).
                        alternatives.push(self.sequence_alternative(schema, seq, owner, loc)?);
                        continue;
                    }
                    let Particle::Element(e) = p else {
                        return Err(LowerError::new(
                            loc,
                            "a `choice` whose alternative is not an element or a sequence of elements (a nested choice, group or `any`): the service model's choices are of elements and sequences",
                        ));
                    };
                    let (name, mut t) = self.element_ref(schema, e, owner)?;
                    if name.starts_with('{') && head.is_some() {
                        return Err(LowerError::new(
                            loc,
                            format!("the element `{name}` of a substitution group (declared at {}) is in another namespace than the type's elements: the service model's choices name their alternatives by local name", e.loc),
                        ));
                    }
                    if name.starts_with('{') {
                        return Err(LowerError::new(
                            loc,
                            format!("the `choice` alternative `{name}` is in another namespace (or form) than the type's elements: the service model's choices name their alternatives by local name"),
                        ));
                    }
                    if t.optional {
                        may_be_empty = true;
                        t.optional = t.repeated;
                    }
                    alternatives.push(Field::new(name, t));
                }
                let Some(first) = alternatives.first() else {
                    return Err(LowerError::new(loc, "an empty `choice`"));
                };
                // The codec tells the alternatives, and a sequence's elements, apart by name.
                let mut names = std::collections::HashSet::new();
                for a in &alternatives {
                    let inner = match schema.get(&a.ty.name.local) {
                        Some(TypeDef::Sequence(elements)) => elements.iter().skip(1).collect(),
                        _ => Vec::new(),
                    };
                    for n in std::iter::once(&a.name).chain(inner.iter().map(|e| &e.name)) {
                        if !names.insert(n.clone()) {
                            return Err(LowerError::new(
                                loc,
                                format!("element `{n}` occurs twice in one `choice`: the service model tells its alternatives and their elements apart by name"),
                            ));
                        }
                    }
                }
                // Named after the first alternative, or the head a substitution group stands for.
                let named = head.map_or(first.name.as_str(), |h| h.local.as_str());
                let local = self.unique_name(&format!("{}Choice", pascal(named)));
                let key = if owner.is_empty() || owner == self.namespace {
                    local.clone()
                } else {
                    format!("{{{owner}}}{local}")
                };
                let ns = if owner.is_empty() {
                    self.namespace.clone()
                } else {
                    owner.to_string()
                };
                let field = choice_field_name(alternatives.iter().map(|a| a.name.as_str()));
                let mut t = schema.define(&key, FROM_CHOICE, |_| TypeDef::Choice(alternatives));
                debug_assert_eq!(t.name, QName::new(ns, local));
                if let Some(k) = shared_key {
                    let mut shared = t.clone();
                    shared.optional = may_be_empty;
                    self.head_choices.insert(k, (field.clone(), shared));
                }
                t.optional = *min == 0 || may_be_empty;
                t.repeated = max.repeats();
                Ok((field, t))
            }
        }
    }

    /// The alternative of a choice that is a sequence of elements: named after its first
    /// element, of a [`TypeDef::Sequence`] of its elements (`{First}Seq`). Refused where the
    /// codec could not tell its elements from the other alternatives (a name twice) or write
    /// them in the type's namespace (a type of another namespace than the service's).
    fn sequence_alternative(
        &mut self,
        schema: &mut Schema,
        items: &'d [Particle],
        owner: &str,
        loc: &Loc,
    ) -> Result<Field, LowerError> {
        if !(owner.is_empty() || owner == self.namespace) {
            return Err(LowerError::new(
                loc,
                "a `choice` with a sequence alternative in a type of another namespace than the service's: the codec writes a sequence alternative's elements in the service namespace",
            ));
        }
        let mut fields = Vec::new();
        for p in items {
            let Particle::Element(e) = p else {
                return Err(LowerError::new(
                    loc,
                    "a `choice`'s sequence alternative holds something other than elements: the service model's sequence alternatives are of elements",
                ));
            };
            if self.substitutes(e).is_some() {
                return Err(LowerError::new(
                    &e.loc,
                    format!("a `choice`'s sequence alternative refers to the head of a substitution group (`{}`): the service model's sequence alternatives are of plain elements", e.name.local),
                ));
            }
            let (name, t) = self.element_ref(schema, e, owner)?;
            if name.starts_with('{') {
                return Err(LowerError::new(
                    loc,
                    format!("the `choice` alternative's element `{name}` is in another namespace (or form) than the type's elements: the service model's choices name their elements by local name"),
                ));
            }
            fields.push(Field::new(name, t));
        }
        let Some(first) = fields.first() else {
            return Err(LowerError::new(loc, "an empty sequence in a `choice`"));
        };
        if first.ty.optional || first.ty.repeated {
            return Err(LowerError::new(
                loc,
                format!("the sequence alternative's first element `{}` may be absent or repeat: the codec tells the alternative by it, once", first.name),
            ));
        }
        let name = first.name.clone();
        let local = self.unique_name(&format!("{}Seq", pascal(&name)));
        let t = schema.define(&local, FROM_CHOICE, |_| TypeDef::Sequence(fields));
        Ok(Field::new(name, t))
    }

    /// Checks that no element is both a field and an alternative of a choice of one type, and
    /// that it has one wildcard at most (the codec picks an element by its name).
    pub(super) fn check_open(&self, fields: &[Field], at: &Loc) -> Result<(), LowerError> {
        let mut names = std::collections::HashSet::new();
        for f in fields {
            let own: Vec<&str> = match f.choice() {
                Some(alts) => alts.collect(),
                None => vec![f.name.as_str()],
            };
            for n in own {
                if !names.insert(n) {
                    return Err(LowerError::new(
                        at,
                        format!(
                            "element `{n}` occurs twice in one type (as a field or an alternative of a choice, or two `xsd:any`): the service model tells them apart by name"
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// `ListOf<item>` for a `list` simple type (what `xsd::List<T>` describes).
    pub(super) fn list_ref(
        &mut self,
        schema: &mut Schema,
        item: &'d TypeUse,
        at: &Loc,
    ) -> Result<TypeRef, LowerError> {
        let item = match item {
            TypeUse::Named(q) => self.type_ref(schema, q, at)?,
            TypeUse::Inline(d) => match &d.kind {
                TypeKind::Simple(s) => match self.simple_builtin(s, 0) {
                    Some(t) => t,
                    None => {
                        return Err(LowerError::new(
                            at,
                            "a list of an anonymous enumeration: name the item type",
                        ))
                    }
                },
                TypeKind::Complex(_) => {
                    return Err(LowerError::new(at, "a list of a complex type"));
                }
            },
        };
        let simple = item.name.namespace == XSD_NS
            || matches!(schema.get(&item.name.local), Some(TypeDef::Enum(_)));
        if !simple || item.name.local == "anyType" {
            return Err(LowerError::new(
                at,
                format!(
                    "a list of `{}`, which is not a simple type",
                    item.name.local
                ),
            ));
        }
        let name = format!("ListOf{}", item.name.local);
        Ok(schema.define(&name, SIMPLE_LIST, |_| TypeDef::SimpleList(item)))
    }

    /// The built-in a union's members all are, else `string` (what a union's text always is).
    pub(super) fn union_base(&self, members: &[TypeUse], depth: usize) -> TypeRef {
        let mut common: Option<TypeRef> = None;
        for m in members {
            let t = match m {
                TypeUse::Named(q) if is_builtin(q) => Some(TypeRef::xsd(&q.local)),
                TypeUse::Named(q) if depth < MAX_DEPTH => {
                    match self.defs.schema.types.get(q).map(|d| &d.kind) {
                        Some(TypeKind::Simple(s)) => self.simple_builtin(s, depth + 1),
                        _ => None,
                    }
                }
                TypeUse::Inline(d) if depth < MAX_DEPTH => match &d.kind {
                    TypeKind::Simple(s) => self.simple_builtin(s, depth + 1),
                    _ => None,
                },
                _ => None,
            };
            match (t, &common) {
                (Some(t), None) => common = Some(t),
                (Some(t), Some(c)) if t.name == c.name => {}
                _ => return TypeRef::xsd("string"),
            }
        }
        common.unwrap_or_else(|| TypeRef::xsd("string"))
    }

    /// The built-in a simple type's text is (an enumeration's is a string; a list has none).
    fn simple_builtin(&self, s: &SimpleType, depth: usize) -> Option<TypeRef> {
        match s {
            SimpleType::Union { members } => Some(self.union_base(members, depth)),
            SimpleType::List { .. } => None,
            SimpleType::Restriction { base, .. } => match base {
                TypeUse::Named(b) if is_builtin(b) => Some(TypeRef::xsd(&b.local)),
                TypeUse::Named(b) if depth < MAX_DEPTH => {
                    match &self.defs.schema.types.get(b)?.kind {
                        TypeKind::Simple(s) => self.simple_builtin(s, depth + 1),
                        _ => None,
                    }
                }
                TypeUse::Inline(d) if depth < MAX_DEPTH => match &d.kind {
                    TypeKind::Simple(s) => self.simple_builtin(s, depth + 1),
                    _ => None,
                },
                _ => None,
            },
        }
    }

    /// The values of an enumeration restricting (or just renaming) another enumeration.
    pub(super) fn enum_values(&self, s: &SimpleType, depth: usize) -> Option<Vec<String>> {
        let SimpleType::Restriction { base, enumeration } = s else {
            return None;
        };
        let base_kind = match base {
            TypeUse::Named(b) if is_builtin(b) => return None,
            TypeUse::Named(b) => &self.defs.schema.types.get(b)?.kind,
            TypeUse::Inline(d) => &d.kind,
        };
        let TypeKind::Simple(inner) = base_kind else {
            return None;
        };
        let base_is_string = self
            .simple_builtin(inner, depth + 1)
            .is_some_and(|t| t.name.local == "string");
        if !enumeration.is_empty() && base_is_string {
            return Some(enumeration.clone());
        }
        if enumeration.is_empty() && depth < MAX_DEPTH {
            return match inner {
                SimpleType::Restriction {
                    base: TypeUse::Named(b),
                    enumeration,
                } if is_builtin(b) && b.local == "string" && !enumeration.is_empty() => {
                    Some(enumeration.clone())
                }
                _ => self.enum_values(inner, depth + 1),
            };
        }
        None
    }
}

/// What registers lowered choices (the "Rust type" of [`Schema::define`]).
const FROM_CHOICE: &str = "soapstone_wsdl::read";

/// `circle` -> `Circle`.
fn pascal(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
        .unwrap_or_default()
}

/// The elements of a sequence (occurring once) that is a `choice` alternative, if `p` is one.
fn sequence_of_elements(p: &Particle) -> Option<&[Particle]> {
    match p {
        Particle::Group {
            compositor: super::components::Compositor::Sequence,
            min: 1,
            max: MaxOccurs::Bounded(1),
            items,
        } => Some(items),
        _ => None,
    }
}
