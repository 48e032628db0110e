//! Lowering XML Schema types to the [`Schema`] registry of a [`ServiceModel`](crate::ServiceModel):
//! named and anonymous complex types that are sequences of elements (nested sequences, model
//! groups and extensions flattened, which is the same on the wire), element references, string
//! enumerations, restrictions of built-in simple types (their base type: facets are not
//! checked), SOAP-ENC arrays and list wrappers; choices, wildcards, `anyType`, lists and unions
//! through `lower_open`. A reference to the head of a substitution group is the choice of the
//! elements that may stand for it (`subst` computes them).
//!
//! Attributes and text content are lowered by `lower_attrs` (fields `@name` and `$text`).
//!
//! Must never approximate what goes on the wire: a construct whose instances the codec would
//! write or read differently (a choice with a sequence among several alternatives, text
//! between elements) is refused with its file and line. Elements of another namespace than
//! their type's, and per-element `form`, get a field name of their own (`lower_ns`).

use std::collections::{HashMap, HashSet};

use soapstone_codec::QName;

use super::check::is_builtin;
use super::components::{
    AttrItem, ComplexType, Compositor, Definitions, Derivation, ElementDecl, Loc, MaxOccurs,
    Particle, SimpleType, TypeDecl, TypeKind, TypeUse,
};
use super::hint::Kind;
use super::lower::LowerError;
use super::lower_open::Item;
use crate::model::{BindingStyle, Part};
use crate::xsd::{Field, Schema, TypeDef, TypeRef, SOAP_ENC_NS, XSD_NS};

/// What registers lowered types in a [`Schema`] (the "Rust type" of [`Schema::define`]).
pub(super) const FROM_WSDL: &str = "soapstone_wsdl::read";

/// The SOAP 1.2 encoding namespace (`enc:Array`, `enc:arrayType` in WSDLs that bind SOAP 1.2
/// rpc/encoded, as gSOAP writes them).
pub(super) const SOAP12_ENC_NS: &str = "http://www.w3.org/2003/05/soap-encoding";

/// How deep derivations, nested groups and simple-type restrictions are followed.
const MAX_DEPTH: usize = 32;

/// The state of lowering one port's types.
pub(super) struct Lower<'d> {
    pub(super) defs: &'d Definitions,
    pub(super) namespace: String,
    pub(super) style: BindingStyle,
    /// Whether local elements are qualified, once the first one said so.
    pub(super) qualified: Option<(bool, Loc)>,
    /// The names given to anonymous types (by address of their declaration).
    anonymous: HashMap<*const TypeDecl, String>,
    /// Local names in use by registered types.
    taken: HashSet<String>,
    /// Where a type of another namespace holds a struct of the service namespace (which a
    /// qualified message cannot write).
    pub(super) back_to_service: Option<(Loc, String)>,
    /// The struct of each header block element of a simple type (`lower_simple`).
    pub(super) simple_blocks: HashMap<QName, TypeRef>,
    /// The choice type (and field name) of each head of a substitution group, by the
    /// namespace of the type holding the reference (`lower_open`).
    pub(super) head_choices: HashMap<(QName, String), (String, TypeRef)>,
}

impl<'d> Lower<'d> {
    pub(super) fn new(defs: &'d Definitions, namespace: String, style: BindingStyle) -> Self {
        let taken = defs
            .schema
            .types
            .keys()
            .filter(|q| q.namespace == namespace)
            .map(|q| q.local.clone())
            .collect();
        Lower {
            defs,
            namespace,
            style,
            qualified: None,
            anonymous: HashMap::new(),
            taken,
            back_to_service: None,
            simple_blocks: HashMap::new(),
            head_choices: HashMap::new(),
        }
    }

    /// The child elements of a complex type (its content, flattened), for a body wrapper, a
    /// header block or a fault detail element.
    pub(super) fn content_of(
        &self,
        ty: Option<&'d TypeUse>,
        element: &ElementDecl,
    ) -> Result<Vec<Item<'d>>, LowerError> {
        let at = &element.loc;
        if let Some((at, message)) = self.defs.unknown_inside(&element.name) {
            return Err(LowerError::new(&at, message));
        }
        let c = match ty {
            Some(TypeUse::Inline(d)) => match &d.kind {
                TypeKind::Complex(c) => c,
                TypeKind::Simple(_) => {
                    return Err(LowerError::new(
                        at,
                        format!(
                            "element `{}` has a simple type: the body and header elements of the service model hold elements",
                            element.name.local
                        ),
                    ))
                }
            },
            Some(TypeUse::Named(q)) => match self.defs.schema.types.get(q).map(|d| &d.kind) {
                Some(TypeKind::Complex(c)) => c,
                None if !is_builtin(q) => {
                    return Err(LowerError::new(
                        at,
                        format!(
                            "element `{}` has the type `{}`, which is not defined{}",
                            element.name.local,
                            q.local,
                            self.defs.why_undefined(Kind::Type, q)
                        ),
                    ))
                }
                _ => {
                    return Err(LowerError::new(
                        at,
                        format!(
                            "element `{}` has the type `{}`, which is not a complex type of the schema",
                            element.name.local, q.local
                        ),
                    ))
                }
            },
            // `anyType` content: any elements, kept raw (text directly inside is not kept).
            None => {
                return Ok(vec![Item::Any {
                    min: 0,
                    max: MaxOccurs::Unbounded,
                    loc: at.clone(),
                }])
            }
        };
        self.refuse_wrapper_markup(c, &element.name.local, at)?;
        self.flattened(c, at, 0)
    }

    /// The elements of `c` with its extension bases' first: a literal instance of an extension
    /// is its base's elements followed by its own, so the flattened sequence is the same on the
    /// wire (what is lost is only substitution by `xsi:type`, which the model does not do).
    pub(super) fn flattened(
        &self,
        c: &'d ComplexType,
        at: &Loc,
        depth: usize,
    ) -> Result<Vec<Item<'d>>, LowerError> {
        // Attributes and text are lowered by `markup_fields` (lower_attrs.rs).
        if c.simple_content {
            return Ok(Vec::new());
        }
        let mut out = match &c.base {
            Some((base, Derivation::Extension)) if depth < MAX_DEPTH => {
                let Some(TypeKind::Complex(b)) = self.defs.schema.types.get(base).map(|d| &d.kind)
                else {
                    return Err(LowerError::new(
                        at,
                        format!(
                            "extension of `{}`, which is not a complex type of the schema",
                            base.local
                        ),
                    ));
                };
                self.flattened(b, at, depth + 1)?
            }
            // A restriction restates the content its instances have (its attributes are the
            // base's, less those it prohibits: `markup_fields`), unless it is an array.
            Some((base, Derivation::Restriction)) if self.restates_content(base, depth) => {
                Vec::new()
            }
            // Past the bound the message names what happened, not a restriction.
            Some((base, Derivation::Extension)) => {
                return Err(LowerError::new(
                    at,
                    format!(
                        "extension of `{}`: more than {MAX_DEPTH} types derived one from another",
                        base.local
                    ),
                ))
            }
            Some((base, _)) if !(base.namespace == XSD_NS && base.local == "anyType") => {
                return Err(LowerError::new(
                    at,
                    format!(
                        "restriction of `{}`: the service model has no complex restrictions",
                        base.local
                    ),
                ))
            }
            _ => Vec::new(),
        };
        if let Some(p) = &c.content {
            self.particle(p, at, depth, true, false, &mut out)?;
        }
        Ok(out)
    }

    /// Collects the elements of a sequence that occurs once (nested sequences and sequence
    /// groups are flattened: the same elements in the same order on the wire).
    fn particle(
        &self,
        p: &'d Particle,
        at: &Loc,
        depth: usize,
        top: bool,
        optional: bool,
        out: &mut Vec<Item<'d>>,
    ) -> Result<(), LowerError> {
        let once = |min: u32, max: MaxOccurs| min == 1 && max == MaxOccurs::Bounded(1);
        // An optional sequence (or group) that occurs at most once: its elements are optional.
        let maybe = |min: u32, max: MaxOccurs| min == 0 && max == MaxOccurs::Bounded(1);
        match p {
            // A reference to the head of a substitution group: the choice of the elements
            // that may stand for it (`subst`), with the reference's occurrence.
            Particle::Element(e) if self.substitutes(e).is_some() => {
                let items = self.substitutes(e).unwrap_or_default();
                if items.is_empty() {
                    return Err(LowerError::new(
                        &e.loc,
                        format!(
                            "element `{}` is abstract and its substitution group has no member that may stand for it",
                            e.name.local
                        ),
                    ));
                }
                out.push(Item::Choice {
                    items,
                    head: e.reference.as_ref(),
                    min: if optional { 0 } else { e.min },
                    max: e.max,
                    loc: e.loc.clone(),
                })
            }
            Particle::Element(e) => out.push(Item::Element(e, optional)),
            // `all` is written in declaration order, which is one of the orders it allows.
            Particle::Group {
                compositor: Compositor::Sequence | Compositor::All,
                min,
                max,
                items,
            } if once(*min, *max) || maybe(*min, *max) || (top && items.is_empty()) => {
                let optional = optional || *min == 0;
                for item in items {
                    self.particle(item, at, depth + 1, false, optional, out)?;
                }
            }
            Particle::GroupRef {
                name,
                min,
                max,
                loc,
            } if (once(*min, *max) || maybe(*min, *max)) && depth < MAX_DEPTH => {
                if let Some((at, message)) = self.defs.unknown_inside(name) {
                    return Err(LowerError::new(&at, message));
                }
                let Some((group, _)) = self.defs.schema.groups.get(name) else {
                    return Err(LowerError::new(
                        loc,
                        format!("group `{}` is not defined", name.local),
                    ));
                };
                let optional = optional || *min == 0;
                self.particle(group, loc, depth + 1, false, optional, out)?;
            }
            Particle::Any { min, max } => out.push(Item::Any {
                min: if optional { 0 } else { *min },
                max: *max,
                loc: at.clone(),
            }),
            // A choice of one sequence (or group) is that sequence: the same on the wire.
            Particle::Group {
                compositor: Compositor::Choice,
                min,
                max,
                items,
            } if items.len() == 1
                && !matches!(items[0], Particle::Element(_))
                && (once(*min, *max) || maybe(*min, *max)) =>
            {
                let optional = optional || *min == 0;
                self.particle(&items[0], at, depth + 1, false, optional, out)?;
            }
            // A choice (at most once) with a sequence among its alternatives: every
            // alternative's elements, each optional, in order. Every instance the schema
            // allows reads and writes the same (decoding is by name); which alternative is
            // present is not checked when written, as for an optional sequence.
            Particle::Group {
                compositor: Compositor::Choice,
                min,
                max,
                items,
            } if items.len() > 1
                && (once(*min, *max) || maybe(*min, *max))
                && items.iter().any(is_sequence)
                && items
                    .iter()
                    .all(|p| matches!(p, Particle::Element(_)) || is_sequence(p)) =>
            {
                for item in items {
                    self.particle(item, at, depth + 1, false, true, out)?;
                }
            }
            Particle::Group {
                compositor: Compositor::Choice,
                min,
                max,
                items,
            } => out.push(Item::Choice {
                items,
                head: None,
                min: if optional { 0 } else { *min },
                max: *max,
                loc: at.clone(),
            }),
            _ => {
                return Err(LowerError::new(
                    at,
                    "a repeated or optional sequence or group is not a plain sequence",
                ))
            }
        }
        Ok(())
    }

    /// The elements that may stand where `e` is, when it refers to the head of a
    /// substitution group with members (or an abstract one).
    pub(super) fn substitutes(&self, e: &ElementDecl) -> Option<&'d [Particle]> {
        let defs: &'d Definitions = self.defs;
        defs.schema
            .substitutes
            .get(e.reference.as_ref()?)
            .map(Vec::as_slice)
    }

    /// The parts of a list of elements (a wrapper's children).
    pub(super) fn fields(
        &mut self,
        schema: &mut Schema,
        elements: Vec<Item<'d>>,
    ) -> Result<Vec<Part>, LowerError> {
        let owner = self.namespace.clone();
        let mut fields = Vec::new();
        for item in &elements {
            let (name, t) = self.item_ref(schema, item, &owner)?;
            fields.push(Field::new(name, t));
        }
        if let Some(at) = elements.first().map(Item::loc) {
            self.check_open(&fields, &at)?;
        }
        Ok(fields
            .into_iter()
            .map(|f| Part::new(f.name, f.ty))
            .collect())
    }

    /// The wire name and type of an element (a reference is resolved to its global element).
    pub(super) fn element_ref(
        &mut self,
        schema: &mut Schema,
        e: &'d ElementDecl,
        owner: &str,
    ) -> Result<(String, TypeRef), LowerError> {
        let decl = match &e.reference {
            Some(r) => self.defs.schema.elements.get(r).ok_or_else(|| {
                LowerError::new(
                    &e.loc,
                    format!(
                        "element `{}` is not defined{}",
                        r.local,
                        self.defs.why_undefined(Kind::Element, r)
                    ),
                )
            })?,
            None => e,
        };
        if e.reference.is_some() {
            if let Some((at, message)) = self.defs.unknown_inside(&decl.name) {
                return Err(LowerError::new(&at, message));
            }
        }
        let wire = self.wire_name(&decl.name, e.reference.is_some(), &e.loc, owner)?;
        // A reference to a head is lowered as the choice it is (`particle`); reached here, an
        // abstract element stands where no instance could.
        if decl.is_abstract {
            return Err(LowerError::new(
                &e.loc,
                format!(
                    "element `{}` is abstract and no element of its substitution group may stand here",
                    decl.name.local
                ),
            ));
        }
        let mut t = match super::subst::effective_type(&self.defs.schema, decl) {
            // Text between elements: the element is kept whole, in document order.
            Some(ty) if self.mixed_with_elements(ty, &decl.loc)? => TypeRef::xsd("anyType"),
            Some(TypeUse::Named(q)) => self.type_ref(schema, q, &decl.loc)?,
            // A qualified element's anonymous type is of its namespace (its children are).
            Some(TypeUse::Inline(d)) => {
                let ns = if decl.name.namespace.is_empty() {
                    owner
                } else {
                    &decl.name.namespace
                };
                self.anonymous_ref(schema, d, &decl.name.local, ns)?
            }
            // No type: `anyType`, a raw XML value.
            None => TypeRef::xsd("anyType"),
        };
        t.optional = e.min == 0;
        t.repeated = e.max.repeats();
        t.nillable = decl.nillable;
        self.note_scope(schema, &wire, &t, &e.loc);
        Ok((wire, t))
    }

    /// The parts of an rpc message (`type=` parts, unqualified children of the wrapper).
    pub(super) fn rpc_parts(
        &mut self,
        schema: &mut Schema,
        parts: &[&'d super::MessagePart],
    ) -> Result<Vec<Part>, LowerError> {
        parts
            .iter()
            .map(|p| match (&p.ty, &p.element) {
                (Some(t), _) => Ok(Part::new(p.name.clone(), self.type_ref(schema, t, &p.loc)?)),
                // WS-I BP R2203 asks for `type=`; WSDL 1.1 leaves the accessor of an element
                // part open, and zeep, CXF and node-soap write the element itself, qualified:
                // a part `{ns}local` of the element's type (rpc/literal only).
                (None, Some(e)) if self.style == BindingStyle::RpcLiteral => {
                    let decl = self.defs.schema.elements.get(e).ok_or_else(|| {
                        LowerError::new(
                            &p.loc,
                            format!(
                                "part `{}` names the element `{{{}}}{}`, which is not defined",
                                p.name, e.namespace, e.local
                            ),
                        )
                    })?;
                    let t = match &decl.ty {
                        Some(TypeUse::Named(q)) => self.type_ref(schema, q, &decl.loc)?,
                        Some(TypeUse::Inline(d)) => {
                            let ns = decl.name.namespace.clone();
                            self.anonymous_ref(schema, d, &decl.name.local, &ns)?
                        }
                        None => TypeRef::xsd("anyType"),
                    };
                    Ok(Part::new(format!("{{{}}}{}", e.namespace, e.local), t))
                }
                _ => Err(LowerError::new(
                    &p.loc,
                    format!(
                        "rpc/encoded part `{}` names an element, not a type: an encoded message's parts have `type=` (SOAP 1.1 section 7.1)",
                        p.name
                    ),
                )),
            })
            .collect()
    }

    /// Registers the struct type of a header block or fault detail element (named after the
    /// element when anonymous) and refers to it.
    pub(super) fn block_type(
        &mut self,
        schema: &mut Schema,
        element: &'d ElementDecl,
    ) -> Result<TypeRef, LowerError> {
        if let Some((at, message)) = self.defs.unknown_inside(&element.name) {
            return Err(LowerError::new(&at, message));
        }
        if let Some(t) = self.simple_block(schema, element)? {
            return Ok(t);
        }
        let t = match &element.ty {
            Some(TypeUse::Named(q)) => self.type_ref(schema, q, &element.loc)?,
            Some(TypeUse::Inline(d)) => {
                let ns = element.name.namespace.clone();
                self.anonymous_ref(schema, d, &element.name.local, &ns)?
            }
            None => TypeRef::xsd("anyType"),
        };
        // A struct of another namespace than the block's element (IndienenBericht's
        // `ReferentieHeader`) is fine: the codec writes its qualified children in the type's
        // namespace, as for a nested element of that type.
        let is_struct = schema.types().iter().any(|n| {
            n.name == t.name.local
                && n.namespace == t.name.namespace
                && matches!(n.def, TypeDef::Struct(_))
        });
        match is_struct {
            true => Ok(t),
            false => Err(LowerError::new(
                &element.loc,
                format!(
                    "element `{}` is not of a complex type: header blocks and fault details of the service model hold elements",
                    element.name.local
                ),
            )),
        }
    }

    /// Registers an anonymous type under a name made from `hint` (unique in the schema).
    pub(super) fn anonymous_ref(
        &mut self,
        schema: &mut Schema,
        decl: &'d TypeDecl,
        hint: &str,
        ns: &str,
    ) -> Result<TypeRef, LowerError> {
        if let TypeKind::Simple(s) = &decl.kind {
            if let Some(t) = self.simple_base(s, 0) {
                return Ok(t);
            }
            if let SimpleType::List { item } = s {
                return self.list_ref(schema, item, &decl.loc);
            }
        }
        let key = decl as *const TypeDecl;
        let local = match self.anonymous.get(&key) {
            Some(name) => name.clone(),
            None => {
                let name = self.unique_name(hint);
                self.anonymous.insert(key, name.clone());
                name
            }
        };
        // In the namespace of the type that holds it: its elements are qualified there.
        let ns = if ns.is_empty() { &self.namespace } else { ns };
        self.register(schema, &QName::new(ns, local), decl)
    }

    /// A local name no registered type has, made from `hint` (`hint`, `hint2`, ...).
    pub(super) fn unique_name(&mut self, hint: &str) -> String {
        let mut name = hint.to_string();
        let mut n = 2;
        while self.taken.contains(&name) {
            name = format!("{hint}{n}");
            n += 1;
        }
        self.taken.insert(name.clone());
        name
    }

    /// The built-in type a simple type restricts (through named restrictions), unless it is a
    /// string enumeration (an enum of its own); a union's common built-in, else a string.
    fn simple_base(&self, s: &SimpleType, depth: usize) -> Option<TypeRef> {
        match s {
            SimpleType::Union { members } => Some(self.union_base(members, depth)),
            SimpleType::Restriction { base, enumeration } => match base {
                TypeUse::Named(b) if is_builtin(b) => {
                    let string_enum = b.local == "string" && !enumeration.is_empty();
                    (!string_enum).then(|| TypeRef::xsd(&b.local))
                }
                TypeUse::Named(b) if depth < MAX_DEPTH => {
                    match &self.defs.schema.types.get(b)?.kind {
                        TypeKind::Simple(s) if enumeration.is_empty() => {
                            self.simple_base(s, depth + 1)
                        }
                        _ => None,
                    }
                }
                TypeUse::Inline(d) if depth < MAX_DEPTH => match &d.kind {
                    TypeKind::Simple(s) if enumeration.is_empty() => self.simple_base(s, depth + 1),
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        }
    }

    /// Registers the named type `name` (and what it uses) and refers to it.
    pub(super) fn type_ref(
        &mut self,
        schema: &mut Schema,
        name: &QName,
        at: &Loc,
    ) -> Result<TypeRef, LowerError> {
        if is_builtin(name) {
            return Ok(TypeRef::xsd(&name.local));
        }
        if let Some(local) = soapenc_simple(name) {
            // `soapenc:string` is `xsd:string` plus the `id`/`href` attributes multi-refs
            // use (SOAP 1.1 section 5.2.1), which the codec's encoded reader follows itself:
            // Axis 1.4 types every string part so.
            return Ok(TypeRef::xsd(local));
        }
        let decl = self.defs.schema.types.get(name).ok_or_else(|| {
            LowerError::new(
                at,
                format!(
                    "type `{}` is not defined{}",
                    name.local,
                    self.defs.why_undefined(Kind::Type, name)
                ),
            )
        })?;
        if let TypeKind::Simple(s) = &decl.kind {
            if let Some(t) = self.simple_base(s, 0) {
                return Ok(t);
            }
            if let SimpleType::List { item } = s {
                return self.list_ref(schema, item, &decl.loc);
            }
        }
        self.register(schema, name, decl)
    }

    fn register(
        &mut self,
        schema: &mut Schema,
        name: &QName,
        decl: &'d TypeDecl,
    ) -> Result<TypeRef, LowerError> {
        if let Some((at, message)) = self.defs.unknown_inside(name) {
            return Err(LowerError::new(&at, message));
        }
        if schema.get(&name.local).is_some() {
            let same = schema
                .types()
                .iter()
                .any(|t| t.name == name.local && t.namespace == name.namespace);
            if !same {
                return Err(LowerError::new(
                    &decl.loc,
                    format!(
                        "type `{}` is defined in two namespaces: the service model names types by local name",
                        name.local
                    ),
                ));
            }
            return Ok(TypeRef::new(name.clone()));
        }
        // A type of another namespace is registered under its Clark name (its elements are
        // still checked: they must be written as the service's are).
        let key = if name.namespace == self.namespace {
            name.local.clone()
        } else {
            format!("{{{}}}{}", name.namespace, name.local)
        };
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
                            let lower = QName::new(name.namespace.clone(), lower);
                            if self.defs.schema.types.contains_key(&lower) {
                                self.type_ref(schema, &lower, &a.loc)?;
                            }
                        }
                    }
                }
            }
        }
        let mut error = None;
        let tref = schema.define(&key, FROM_WSDL, |s| match self.type_def(s, name, decl) {
            Ok(def) => def,
            Err(e) => {
                error = Some(e);
                TypeDef::Struct(Vec::new())
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
        decl: &'d TypeDecl,
    ) -> Result<TypeDef, LowerError> {
        let at = &decl.loc;
        match &decl.kind {
            TypeKind::Simple(SimpleType::Restriction { base: TypeUse::Named(b), enumeration })
                if b.namespace == XSD_NS && b.local == "string" && !enumeration.is_empty() =>
            {
                Ok(TypeDef::Enum(enumeration.clone()))
            }
            TypeKind::Simple(s) => match self.enum_values(s, 0) {
                Some(values) => Ok(TypeDef::Enum(values)),
                None => Err(LowerError::new(at, format!("simple type `{}` is not a restriction, list or union of a built-in type or an enumeration", name.local))),
            },
            TypeKind::Complex(c) => {
                if let Some((base, Derivation::Restriction)) = &c.base {
                    // SOAP 1.2's encoding names its arrays the same way (rpcexample.wsdl):
                    // the codec writes each version's array form in its messages.
                    if (base.namespace == SOAP_ENC_NS || base.namespace == SOAP12_ENC_NS)
                        && base.local == "Array"
                    {
                        return soap_array(c, name, at);
                    }
                }
                let elements = self.flattened(c, at, 0)?;
                let markup = self.markup_fields(schema, c, name, at, !elements.is_empty())?;
                // The list wrapper the writer emits for a `Vec` in a `Vec` (literal style).
                if let ([Item::Element(item, false)], true) = (elements.as_slice(), markup.is_empty()) {
                    if item.name.local == "item" && name.local.starts_with("ArrayOf") && item.max.repeats() && item.min == 0 {
                        let (_, mut t) = self.element_ref(schema, item, &name.namespace)?;
                        t.optional = true;
                        t.repeated = true;
                        return Ok(TypeDef::List(t));
                    }
                }
                let mut fields = markup;
                for e in &elements {
                    let (wire, t) = self.item_ref(schema, e, &name.namespace)?;
                    // The codec declares a type's namespace on the children of a type of
                    // another schema, but cannot come back to the service's below it.
                    // (A field `{service ns}name` declares the service's namespace again.)
                    let back = wire
                        .strip_prefix('{')
                        .and_then(|r| r.split_once('}'))
                        .is_some_and(|(ns, _)| ns == self.namespace);
                    if name.namespace != self.namespace
                        && !back
                        && t.name.namespace == self.namespace
                        && matches!(schema.get(&t.name.local), Some(TypeDef::Struct(_) | TypeDef::List(_)))
                        && self.back_to_service.is_none()
                    {
                        self.back_to_service = Some((e.loc(), t.name.local.clone()));
                    }
                    fields.push(Field::new(wire, t));
                }
                self.check_open(&fields, at)?;
                Ok(TypeDef::Struct(fields))
            }
        }
    }
}

fn soap_array(c: &ComplexType, name: &QName, at: &Loc) -> Result<TypeDef, LowerError> {
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

/// The XSD type a SOAP 1.1 encoding simple type (`soapenc:string`, `soapenc:int`, ...) stands
/// for: the SOAP-ENC schema derives one per built-in simple type, adding only `id` and `href`.
fn soapenc_simple(name: &QName) -> Option<&str> {
    const SIMPLE: &[&str] = &[
        "string",
        "boolean",
        "float",
        "double",
        "decimal",
        "duration",
        "dateTime",
        "time",
        "date",
        "gYearMonth",
        "gYear",
        "gMonthDay",
        "gDay",
        "gMonth",
        "hexBinary",
        "base64Binary",
        "anyURI",
        "QName",
        "normalizedString",
        "token",
        "language",
        "Name",
        "NMTOKEN",
        "NCName",
        "ID",
        "IDREF",
        "ENTITY",
        "integer",
        "nonPositiveInteger",
        "negativeInteger",
        "long",
        "int",
        "short",
        "byte",
        "nonNegativeInteger",
        "unsignedLong",
        "unsignedInt",
        "unsignedShort",
        "unsignedByte",
        "positiveInteger",
    ];
    if name.namespace != SOAP_ENC_NS {
        return None;
    }
    match name.local.as_str() {
        "base64" => Some("base64Binary"),
        local => SIMPLE.iter().copied().find(|s| *s == local),
    }
}

/// Whether `p` is a sequence (or `all`) occurring once, whose elements a choice flattens.
fn is_sequence(p: &Particle) -> bool {
    matches!(
        p,
        Particle::Group {
            compositor: Compositor::Sequence | Compositor::All,
            min: 1,
            max: MaxOccurs::Bounded(1),
            ..
        }
    )
}
