//! A read-only view of a WSDL's schemas for the dynamic client: what a type is (built in,
//! simple, a SOAP-ENC array, a complex type), and the element slots of a complex type with
//! its base types' slots first.
//!
//! Must never loop on a recursive schema: base chains and group references are followed at
//! most [`MAX_CHAIN`] deep.

use soapstone_codec::QName;
use soapstone_wsdl::read::{
    AttrItem, AttributeDecl, ComplexType, Definitions, Derivation, ElementDecl, Particle, TypeDecl,
    TypeKind, TypeUse,
};
use soapstone_wsdl::{SOAP_ENC_NS, XSD_NS};

/// Deepest base chain or group nesting followed.
pub(crate) const MAX_CHAIN: usize = 64;

/// What a type is, for writing and reading values.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Kind<'d> {
    /// A built-in simple type (`xsd:int`), or SOAP-ENC's copy of one.
    Builtin(&'static str),
    /// A user simple type (enumeration, list, union): text.
    Simple(Option<&'d str>),
    /// A SOAP-ENC array of the item type.
    Array(Option<&'d QName>),
    /// A complex type.
    Complex(&'d ComplexType),
    /// `xsd:anyType` or an unknown type: whatever the value is.
    Any,
}

/// One element a complex type may contain.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Slot<'d> {
    pub(crate) decl: &'d ElementDecl,
    /// The element's type (the referenced global element's, for a `ref`).
    pub(crate) ty: Option<&'d TypeUse>,
    /// The element's name (the referenced element's, for a `ref`).
    pub(crate) name: &'d QName,
    /// Whether it may repeat (itself or an enclosing group).
    pub(crate) repeats: bool,
    /// Whether it may be absent (itself, an enclosing group, or a choice).
    pub(crate) optional: bool,
}

/// The XML Schema built-in simple types, by local name.
const BUILTINS: &[&str] = &[
    "string",
    "normalizedString",
    "token",
    "language",
    "Name",
    "NCName",
    "NMTOKEN",
    "NMTOKENS",
    "ID",
    "IDREF",
    "IDREFS",
    "ENTITY",
    "ENTITIES",
    "anyURI",
    "QName",
    "NOTATION",
    "boolean",
    "decimal",
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
    "float",
    "double",
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
    "anySimpleType",
    "timeInstant",
];

/// The built-in simple type `local` (`None` for `anyType` or an unknown name).
fn builtin(local: &str) -> Option<&'static str> {
    BUILTINS.iter().copied().find(|b| *b == local)
}

/// How a slot, part or array item names its type.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Ty<'d> {
    /// An element's or attribute's type (`None`: `xsd:anyType`).
    Use(Option<&'d TypeUse>),
    /// A part's `type=` or an array's item type.
    Name(&'d QName),
}

impl<'d> Ty<'d> {
    /// The type's name, when it has one.
    pub(crate) fn named(self) -> Option<&'d QName> {
        match self {
            Ty::Use(Some(TypeUse::Named(q))) | Ty::Name(q) => Some(q),
            _ => None,
        }
    }
}

pub(crate) struct View<'d> {
    pub(crate) defs: &'d Definitions,
}

impl<'d> View<'d> {
    /// The kind of the type `t`.
    pub(crate) fn kind(&self, t: Ty<'d>) -> Kind<'d> {
        match t {
            Ty::Use(None) => Kind::Any,
            Ty::Use(Some(TypeUse::Named(q))) | Ty::Name(q) => self.named(q),
            Ty::Use(Some(TypeUse::Inline(d))) => self.decl(d),
        }
    }

    pub(crate) fn named(&self, q: &QName) -> Kind<'d> {
        let builtin_ns = q.namespace == XSD_NS
            || q.namespace.ends_with("/XMLSchema")
            || (q.namespace == SOAP_ENC_NS && q.local != "Array" && q.local != "Struct");
        if q.namespace == SOAP_ENC_NS && q.local == "Array" {
            return Kind::Array(None);
        }
        if builtin_ns {
            return match builtin(&q.local) {
                Some(local) => Kind::Builtin(local),
                None => Kind::Any,
            };
        }
        match self.defs.schema.types.get(q) {
            Some(d) => self.decl(d),
            None => Kind::Any,
        }
    }

    fn decl(&self, d: &'d TypeDecl) -> Kind<'d> {
        match &d.kind {
            TypeKind::Simple(_) => Kind::Simple(self.simple_base(d)),
            TypeKind::Complex(c) => match self.array_item(c) {
                Some(item) => Kind::Array(item),
                None => Kind::Complex(c),
            },
        }
    }

    /// The built-in type a simple type restricts, when it says.
    fn simple_base(&self, d: &'d TypeDecl) -> Option<&'d str> {
        let mut d = d;
        for _ in 0..MAX_CHAIN {
            match &d.kind {
                TypeKind::Simple(soapstone_wsdl::read::SimpleType::Restriction {
                    base: TypeUse::Named(q),
                    ..
                }) => {
                    if q.namespace == XSD_NS {
                        return Some(&q.local);
                    }
                    d = self.defs.schema.types.get(q)?;
                }
                _ => return None,
            }
        }
        None
    }

    /// `Some(item)` when `c` is (derived from) `soapenc:Array`; the item type when known.
    fn array_item(&self, c: &'d ComplexType) -> Option<Option<&'d QName>> {
        let mut c = c;
        for _ in 0..MAX_CHAIN {
            let item = c.attributes.iter().find_map(|a| match a {
                AttrItem::Attribute(AttributeDecl {
                    array_type: Some((item, _)),
                    ..
                }) => Some(item),
                _ => None,
            });
            let (base, _) = c.base.as_ref()?;
            if base.namespace == SOAP_ENC_NS && base.local == "Array" {
                // An array whose item is only given by an element sequence (Axis, .NET).
                let element_item = match &c.content {
                    Some(Particle::Group { items, .. }) => items.iter().find_map(|p| match p {
                        Particle::Element(ElementDecl {
                            ty: Some(TypeUse::Named(q)),
                            ..
                        }) => Some(q),
                        _ => None,
                    }),
                    _ => None,
                };
                return Some(item.or(element_item));
            }
            match self.defs.schema.types.get(base).map(|d| &d.kind) {
                Some(TypeKind::Complex(b)) => c = b,
                _ => return None,
            }
        }
        None
    }

    /// The element slots of `c`, its bases' first (an extension adds to its base; a
    /// restriction restates what it keeps).
    pub(crate) fn slots(&self, c: &'d ComplexType) -> Vec<Slot<'d>> {
        let mut chain = vec![c];
        let mut current = c;
        while chain.len() < MAX_CHAIN {
            let Some((base, Derivation::Extension)) = &current.base else {
                break;
            };
            match self.defs.schema.types.get(base).map(|d| &d.kind) {
                Some(TypeKind::Complex(b)) => {
                    chain.push(b);
                    current = b;
                }
                _ => break,
            }
        }
        let mut out = Vec::new();
        for c in chain.into_iter().rev() {
            if let Some(p) = &c.content {
                self.particle(p, false, false, 0, &mut out);
            }
        }
        out
    }

    fn particle(
        &self,
        p: &'d Particle,
        repeats: bool,
        optional: bool,
        depth: usize,
        out: &mut Vec<Slot<'d>>,
    ) {
        if depth > MAX_CHAIN {
            return;
        }
        match p {
            // A reference to the head of a substitution group: the elements that may stand
            // for it, as a choice (each optional).
            Particle::Element(e) if substitutes(self.defs, e).is_some() => {
                for a in substitutes(self.defs, e).into_iter().flatten() {
                    if let Particle::Element(a) = a {
                        self.slot(a, repeats || e.max.repeats(), true, out);
                    }
                }
            }
            Particle::Element(e) => self.slot(e, repeats, optional, out),
            Particle::Group {
                compositor,
                min,
                max,
                items,
            } => {
                let choice = *compositor == soapstone_wsdl::read::Compositor::Choice;
                for i in items {
                    self.particle(
                        i,
                        repeats || max.repeats(),
                        optional || *min == 0 || choice,
                        depth + 1,
                        out,
                    );
                }
            }
            Particle::GroupRef { name, min, max, .. } => {
                if let Some((g, _)) = self.defs.schema.groups.get(name) {
                    self.particle(
                        g,
                        repeats || max.repeats(),
                        optional || *min == 0,
                        depth + 1,
                        out,
                    );
                }
            }
            Particle::Any { .. } => {}
        }
    }

    /// The slot of the element (or reference) `e`; a member of a substitution group without
    /// a type has its head's.
    fn slot(&self, e: &'d ElementDecl, repeats: bool, optional: bool, out: &mut Vec<Slot<'d>>) {
        let elements = &self.defs.schema.elements;
        let global = e.reference.as_ref().and_then(|r| elements.get(r));
        let mut ty = global.map_or(e.ty.as_ref(), |g| g.ty.as_ref());
        let mut current = global;
        for _ in 0..MAX_CHAIN {
            let Some(head) = current
                .filter(|_| ty.is_none())
                .and_then(|c| c.substitution_group.as_ref())
                .and_then(|h| elements.get(h))
            else {
                break;
            };
            ty = head.ty.as_ref();
            current = Some(head);
        }
        out.push(Slot {
            decl: e,
            ty,
            name: global.map_or(&e.name, |g| &g.name),
            repeats: repeats || e.max.repeats(),
            optional: optional || e.min == 0,
        });
    }

    /// The attributes of `c` and its bases (attribute groups expanded).
    pub(crate) fn attributes(&self, c: &'d ComplexType) -> Vec<&'d AttributeDecl> {
        let mut out = Vec::new();
        let mut current = Some(c);
        let mut depth = 0;
        while let Some(c) = current {
            self.attr_items(&c.attributes, &mut out, 0);
            depth += 1;
            current = match &c.base {
                Some((b, _)) if depth < MAX_CHAIN => {
                    match self.defs.schema.types.get(b).map(|d| &d.kind) {
                        Some(TypeKind::Complex(b)) => Some(b),
                        _ => None,
                    }
                }
                _ => None,
            };
        }
        out
    }

    fn attr_items(&self, items: &'d [AttrItem], out: &mut Vec<&'d AttributeDecl>, depth: usize) {
        if depth > MAX_CHAIN {
            return;
        }
        for a in items {
            match a {
                AttrItem::Attribute(a) if a.array_type.is_none() => {
                    let a = a
                        .reference
                        .as_ref()
                        .and_then(|r| self.defs.schema.attributes.get(r))
                        .unwrap_or(a);
                    out.push(a);
                }
                AttrItem::GroupRef(g, _) => {
                    if let Some((items, _)) = self.defs.schema.attribute_groups.get(g) {
                        self.attr_items(items, out, depth + 1);
                    }
                }
                _ => {}
            }
        }
    }

    /// The simple content's base type of `c` (a built-in name), if it has simple content.
    pub(crate) fn simple_content(&self, c: &'d ComplexType) -> Option<Kind<'d>> {
        if !c.simple_content {
            return None;
        }
        let (base, _) = c.base.as_ref()?;
        Some(match self.named(base) {
            Kind::Complex(b) if b.simple_content => self.simple_content(b).unwrap_or(Kind::Any),
            k => k,
        })
    }
}

/// The elements that may stand where `e` is, when it refers to the head of a substitution
/// group with members or an abstract one (computed by the reader, in document order).
fn substitutes<'d>(defs: &'d Definitions, e: &ElementDecl) -> Option<&'d [Particle]> {
    defs.schema
        .substitutes
        .get(e.reference.as_ref()?)
        .map(Vec::as_slice)
}
