//! Reading an `xsd:schema` element into the [`SchemaSet`](super::SchemaSet): global elements,
//! types, model groups, attribute groups and attributes, with `form` and the schema's
//! `elementFormDefault`/`attributeFormDefault` applied to every local declaration.
//!
//! Must never resolve a reference here (a name may be defined by a schema read later): that is
//! [`check`](super::check)'s job, once everything is read.

use roxmltree::Node;
use soapstone_codec::QName;

use super::components::{
    AttrItem, AttributeDecl, ComplexType, Compositor, Derivation, ElementDecl, MaxOccurs, Particle,
    SimpleType, TypeDecl, TypeKind, TypeUse,
};
use super::load::{attr, children, documentation, loc, qname_value, resolve, Loader, WSDL_NS};
use super::ReadError;
use crate::xsd::XSD_NS;

/// The context of one schema element.
struct Ctx<'a> {
    file: &'a str,
    tns: &'a str,
    elements_qualified: bool,
    attributes_qualified: bool,
}

impl Ctx<'_> {
    /// A QName attribute, resolved. An unprefixed name where no default namespace is
    /// declared names a component of this schema (its target namespace, or the includer's
    /// for a chameleon include): strictly it is in no namespace, but every schema that does
    /// this means its own, and zeep and wsdl2java read it so.
    fn q(&self, n: Node<'_, '_>, name: &str) -> Result<Option<QName>, ReadError> {
        match n.attribute(name) {
            Some(v) => self.value(n, v).map(Some),
            None => Ok(None),
        }
    }

    fn value(&self, n: Node<'_, '_>, v: &str) -> Result<QName, ReadError> {
        let mut q = qname_value(self.file, n, v)?;
        if q.namespace.is_empty() && !v.contains(':') && n.lookup_namespace_uri(None).is_none() {
            q.namespace = self.tns.to_string();
        }
        Ok(q)
    }
}

/// Reads the schema `s` of `file` (and, recursively, what it imports and includes).
/// `chameleon`: the namespace of the including schema, for a schema that declares none.
pub(super) fn read_schema(
    ld: &mut Loader<'_>,
    file: &str,
    s: Node<'_, '_>,
    chameleon: Option<&str>,
) -> Result<(), ReadError> {
    let tns = attr(s, "targetNamespace")
        .or(chameleon)
        .unwrap_or("")
        .to_string();
    let ctx = Ctx {
        file,
        tns: &tns,
        elements_qualified: attr(s, "elementFormDefault") == Some("qualified"),
        attributes_qualified: attr(s, "attributeFormDefault") == Some("qualified"),
    };
    ld.defs.schema.namespaces.insert(tns.clone());
    unknown_tags(ld, &ctx, s);
    for c in s.children().filter(|c| c.is_element()) {
        if c.tag_name().namespace() != Some(XSD_NS) {
            continue;
        }
        let here = loc(file, c);
        match c.tag_name().name() {
            "import" => {
                let ns = attr(c, "namespace").unwrap_or("");
                match attr(c, "schemaLocation") {
                    Some(sl) if !ld.by_namespace(ns, &resolve(file, sl)) => {
                        ld.load_schema(&resolve(file, sl), None, &here)?
                    }
                    _ => ld.load_namespace(ns, &here)?,
                }
            }
            "include" | "redefine" => {
                let Some(sl) = attr(c, "schemaLocation") else {
                    return Err(ReadError::new(
                        here,
                        format!("`xsd:{}` has no `schemaLocation`", c.tag_name().name()),
                    ));
                };
                ld.load_schema(&resolve(file, sl), Some(&tns), &here)?;
                if c.tag_name().name() == "redefine" {
                    // The redefinitions replace what the included schema defined.
                    read_globals(ld, &ctx, c, true)?;
                }
            }
            _ => {}
        }
    }
    read_globals(ld, &ctx, s, false)
}

/// Records the tags under `s` in the XML Schema namespace that XML Schema does not define
/// (annotations are not looked into): a misspelt `xs:simpletype` is otherwise silently skipped.
fn unknown_tags(ld: &mut Loader<'_>, ctx: &Ctx<'_>, s: Node<'_, '_>) {
    // Each with the global component it is in (its `name`), whose content it would change.
    let mut stack: Vec<(Node<'_, '_>, Option<QName>)> = s
        .children()
        .filter(|c| c.is_element())
        .map(|c| (c, attr(c, "name").map(|l| QName::new(ctx.tns, l.trim()))))
        .collect();
    while let Some((n, within)) = stack.pop() {
        if n.tag_name().namespace() != Some(XSD_NS) || n.tag_name().name() == "annotation" {
            continue;
        }
        if !super::hint::is_xsd_tag(n.tag_name().name()) {
            let name = attr(n, "name").map(|l| QName::new(ctx.tns, l.trim()));
            ld.defs.schema.unknown_tags.push(super::hint::UnknownTag {
                tag: n.tag_name().name().to_string(),
                within: within.clone().filter(|w| Some(w) != name.as_ref()),
                name,
                loc: loc(ctx.file, n),
            });
        }
        stack.extend(
            n.children()
                .filter(|c| c.is_element())
                .map(|c| (c, within.clone())),
        );
    }
}

/// The global components among the children of `s`; `replace`: a redefinition wins over an
/// earlier definition (otherwise the first definition of a name wins).
fn read_globals(
    ld: &mut Loader<'_>,
    ctx: &Ctx<'_>,
    s: Node<'_, '_>,
    replace: bool,
) -> Result<(), ReadError> {
    let set = &mut ld.defs.schema;
    for c in s.children().filter(|c| c.is_element()) {
        if c.tag_name().namespace() != Some(XSD_NS) {
            continue;
        }
        let name = || -> Result<QName, ReadError> {
            match attr(c, "name") {
                Some(n) => Ok(QName::new(ctx.tns, n.trim())),
                None => Err(ReadError::new(
                    loc(ctx.file, c),
                    format!("global `xsd:{}` has no `name`", c.tag_name().name()),
                )),
            }
        };
        match c.tag_name().name() {
            "element" => {
                let decl = element(ctx, c, true)?;
                insert(&mut set.elements, decl.name.clone(), decl, replace);
            }
            "complexType" | "simpleType" => {
                let name = name()?;
                let decl = type_decl(ctx, c, Some(name.clone()))?;
                insert(&mut set.types, name, decl, replace);
            }
            "group" => {
                let name = name()?;
                let particle = c
                    .children()
                    .filter(|p| p.is_element())
                    .find_map(|p| particle(ctx, p).transpose())
                    .transpose()?
                    .unwrap_or(Particle::Group {
                        compositor: Compositor::Sequence,
                        min: 1,
                        max: MaxOccurs::Bounded(1),
                        items: Vec::new(),
                    });
                insert(&mut set.groups, name, (particle, loc(ctx.file, c)), replace);
            }
            "attributeGroup" => {
                let name = name()?;
                let attrs = attributes(ctx, c)?;
                insert(
                    &mut set.attribute_groups,
                    name,
                    (attrs, loc(ctx.file, c)),
                    replace,
                );
            }
            "attribute" => {
                let decl = attribute(ctx, c, true)?;
                insert(&mut set.attributes, decl.name.clone(), decl, replace);
            }
            _ => {}
        }
    }
    Ok(())
}

fn insert<V>(map: &mut std::collections::BTreeMap<QName, V>, k: QName, v: V, replace: bool) {
    if replace {
        map.insert(k, v);
    } else {
        map.entry(k).or_insert(v);
    }
}

fn occurs(ctx: &Ctx<'_>, n: Node<'_, '_>) -> Result<(u32, MaxOccurs), ReadError> {
    let number = |name: &str, v: &str| {
        v.trim().parse::<u32>().map_err(|_| {
            ReadError::new(
                loc(ctx.file, n),
                format!("`{name}` value `{v}` is not a number"),
            )
        })
    };
    let min = match attr(n, "minOccurs") {
        Some(v) => number("minOccurs", v)?,
        None => 1,
    };
    let max = match attr(n, "maxOccurs") {
        Some("unbounded") => MaxOccurs::Unbounded,
        Some(v) => MaxOccurs::Bounded(number("maxOccurs", v)?),
        None => MaxOccurs::Bounded(1),
    };
    Ok((min, max))
}

fn element(ctx: &Ctx<'_>, n: Node<'_, '_>, global: bool) -> Result<ElementDecl, ReadError> {
    let reference = ctx.q(n, "ref")?;
    let name = match (&reference, attr(n, "name")) {
        (Some(r), _) => r.clone(),
        (None, Some(local)) => {
            let qualified = global
                || match attr(n, "form") {
                    Some(form) => form == "qualified",
                    None => ctx.elements_qualified,
                };
            QName::new(if qualified { ctx.tns } else { "" }, local.trim())
        }
        (None, None) => {
            return Err(ReadError::new(
                loc(ctx.file, n),
                "`xsd:element` has neither `name` nor `ref`",
            ))
        }
    };
    let (min, max) = if global {
        (1, MaxOccurs::Bounded(1))
    } else {
        occurs(ctx, n)?
    };
    Ok(ElementDecl {
        name,
        ty: inline_or_named(ctx, n, "type")?,
        reference,
        min,
        max,
        nillable: attr(n, "nillable") == Some("true"),
        substitution_group: ctx.q(n, "substitutionGroup")?,
        is_abstract: attr(n, "abstract") == Some("true"),
        block_substitution: attr(n, "block").is_some_and(|b| {
            b.split_whitespace()
                .any(|t| t == "substitution" || t == "#all")
        }),
        documentation: documentation(n, XSD_NS),
        loc: loc(ctx.file, n),
    })
}

/// The type named by attribute `attr_name` of `n`, or declared inline in it.
fn inline_or_named(
    ctx: &Ctx<'_>,
    n: Node<'_, '_>,
    attr_name: &str,
) -> Result<Option<TypeUse>, ReadError> {
    if let Some(q) = ctx.q(n, attr_name)? {
        return Ok(Some(TypeUse::Named(q)));
    }
    let inline = n.children().find(|c| {
        c.is_element()
            && c.tag_name().namespace() == Some(XSD_NS)
            && matches!(c.tag_name().name(), "complexType" | "simpleType")
    });
    match inline {
        Some(t) => Ok(Some(TypeUse::Inline(Box::new(type_decl(ctx, t, None)?)))),
        None => Ok(None),
    }
}

fn type_decl(ctx: &Ctx<'_>, n: Node<'_, '_>, name: Option<QName>) -> Result<TypeDecl, ReadError> {
    let kind = if n.tag_name().name() == "simpleType" {
        TypeKind::Simple(simple(ctx, n)?)
    } else {
        TypeKind::Complex(Box::new(complex(ctx, n)?))
    };
    Ok(TypeDecl {
        name,
        kind,
        documentation: documentation(n, XSD_NS),
        loc: loc(ctx.file, n),
    })
}

fn simple(ctx: &Ctx<'_>, n: Node<'_, '_>) -> Result<SimpleType, ReadError> {
    if let Some(r) = children(n, XSD_NS, "restriction").next() {
        let base = inline_or_named(ctx, r, "base")?
            .unwrap_or(TypeUse::Named(QName::new(XSD_NS, "anySimpleType")));
        let enumeration = children(r, XSD_NS, "enumeration")
            .filter_map(|e| attr(e, "value").map(str::to_string))
            .collect();
        return Ok(SimpleType::Restriction { base, enumeration });
    }
    if let Some(l) = children(n, XSD_NS, "list").next() {
        let item = inline_or_named(ctx, l, "itemType")?
            .unwrap_or(TypeUse::Named(QName::new(XSD_NS, "anySimpleType")));
        return Ok(SimpleType::List { item });
    }
    if let Some(u) = children(n, XSD_NS, "union").next() {
        let mut members = Vec::new();
        for m in attr(u, "memberTypes").unwrap_or("").split_whitespace() {
            members.push(TypeUse::Named(ctx.value(u, m)?));
        }
        for s in children(u, XSD_NS, "simpleType") {
            members.push(TypeUse::Inline(Box::new(type_decl(ctx, s, None)?)));
        }
        return Ok(SimpleType::Union { members });
    }
    Err(ReadError::new(
        loc(ctx.file, n),
        "`xsd:simpleType` has no `restriction`, `list` or `union`",
    ))
}

fn complex(ctx: &Ctx<'_>, n: Node<'_, '_>) -> Result<ComplexType, ReadError> {
    let mut ty = ComplexType {
        base: None,
        simple_content: false,
        content: None,
        attributes: Vec::new(),
        mixed: attr(n, "mixed") == Some("true"),
        is_abstract: attr(n, "abstract") == Some("true"),
    };
    for c in n.children().filter(|c| c.is_element()) {
        if c.tag_name().namespace() != Some(XSD_NS) {
            continue;
        }
        match c.tag_name().name() {
            kind @ ("simpleContent" | "complexContent") => {
                ty.simple_content = kind == "simpleContent";
                if attr(c, "mixed") == Some("true") {
                    ty.mixed = true;
                }
                let Some(d) = c.children().find(|d| {
                    d.is_element() && matches!(d.tag_name().name(), "extension" | "restriction")
                }) else {
                    return Err(ReadError::new(
                        loc(ctx.file, c),
                        format!("`xsd:{kind}` has no `extension` or `restriction`"),
                    ));
                };
                let derivation = if d.tag_name().name() == "extension" {
                    Derivation::Extension
                } else {
                    Derivation::Restriction
                };
                let Some(base) = ctx.q(d, "base")? else {
                    return Err(ReadError::new(
                        loc(ctx.file, d),
                        format!("`xsd:{}` has no `base`", d.tag_name().name()),
                    ));
                };
                ty.base = Some((base, derivation));
                for p in d.children().filter(|p| p.is_element()) {
                    if let Some(particle) = particle(ctx, p)? {
                        ty.content = Some(particle);
                    }
                }
                ty.attributes.extend(attributes(ctx, d)?);
            }
            _ => {
                if let Some(particle) = particle(ctx, c)? {
                    ty.content = Some(particle);
                }
            }
        }
    }
    ty.attributes.extend(attributes(ctx, n)?);
    Ok(ty)
}

/// The particle `n` is, if it is one (`element`, `sequence`, `choice`, `all`, `group`, `any`).
fn particle(ctx: &Ctx<'_>, n: Node<'_, '_>) -> Result<Option<Particle>, ReadError> {
    if n.tag_name().namespace() != Some(XSD_NS) {
        return Ok(None);
    }
    let compositor = match n.tag_name().name() {
        "element" => return Ok(Some(Particle::Element(element(ctx, n, false)?))),
        "any" => {
            let (min, max) = occurs(ctx, n)?;
            return Ok(Some(Particle::Any { min, max }));
        }
        "group" => {
            let (min, max) = occurs(ctx, n)?;
            let Some(name) = ctx.q(n, "ref")? else {
                return Err(ReadError::new(
                    loc(ctx.file, n),
                    "local `xsd:group` has no `ref`",
                ));
            };
            return Ok(Some(Particle::GroupRef {
                name,
                min,
                max,
                loc: loc(ctx.file, n),
            }));
        }
        "sequence" => Compositor::Sequence,
        "choice" => Compositor::Choice,
        "all" => Compositor::All,
        _ => return Ok(None),
    };
    let (min, max) = occurs(ctx, n)?;
    let mut items = Vec::new();
    for c in n.children().filter(|c| c.is_element()) {
        if let Some(p) = particle(ctx, c)? {
            items.push(p);
        }
    }
    Ok(Some(Particle::Group {
        compositor,
        min,
        max,
        items,
    }))
}

fn attributes(ctx: &Ctx<'_>, n: Node<'_, '_>) -> Result<Vec<AttrItem>, ReadError> {
    let mut out = Vec::new();
    for c in n.children().filter(|c| c.is_element()) {
        if c.tag_name().namespace() != Some(XSD_NS) {
            continue;
        }
        match c.tag_name().name() {
            "attribute" => out.push(AttrItem::Attribute(attribute(ctx, c, false)?)),
            "attributeGroup" => match ctx.q(c, "ref")? {
                Some(r) => out.push(AttrItem::GroupRef(r, loc(ctx.file, c))),
                None => {
                    return Err(ReadError::new(
                        loc(ctx.file, c),
                        "local `xsd:attributeGroup` has no `ref`",
                    ))
                }
            },
            "anyAttribute" => out.push(AttrItem::Any),
            _ => {}
        }
    }
    Ok(out)
}

fn attribute(ctx: &Ctx<'_>, n: Node<'_, '_>, global: bool) -> Result<AttributeDecl, ReadError> {
    let reference = ctx.q(n, "ref")?;
    let name = match (&reference, attr(n, "name")) {
        (Some(r), _) => r.clone(),
        (None, Some(local)) => {
            let qualified = global
                || match attr(n, "form") {
                    Some(form) => form == "qualified",
                    None => ctx.attributes_qualified,
                };
            QName::new(if qualified { ctx.tns } else { "" }, local.trim())
        }
        (None, None) => {
            return Err(ReadError::new(
                loc(ctx.file, n),
                "`xsd:attribute` has neither `name` nor `ref`",
            ))
        }
    };
    let array_type = match n.attribute((WSDL_NS, "arrayType")) {
        Some(v) => {
            let v = v.trim();
            let cut = v.find('[').unwrap_or(v.len());
            Some((ctx.value(n, &v[..cut])?, v[cut..].to_string()))
        }
        None => None,
    };
    Ok(AttributeDecl {
        name,
        ty: inline_or_named(ctx, n, "type")?,
        reference,
        required: attr(n, "use") == Some("required"),
        prohibited: attr(n, "use") == Some("prohibited"),
        default: attr(n, "default").map(str::to_string),
        fixed: attr(n, "fixed").map(str::to_string),
        array_type,
        loc: loc(ctx.file, n),
    })
}
