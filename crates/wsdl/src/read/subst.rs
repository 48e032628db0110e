//! Substitution groups: which elements may stand where a reference to a head element is
//! (`<xsd:element ref="tns:head"/>`), computed once every document is read, so that lowering
//! treats the reference as the `choice` of those elements it is on the wire (as zeep and
//! JAXB do): the head unless `abstract="true"`, then every member, transitively (a member of
//! a member), in document order; none when the head says `block="substitution"` (or
//! `#all`). A member without a type has its head's (`Lower::element_ref`).
//!
//! Must never loop or recurse on the schema: a `substitutionGroup` chain that comes back to
//! where it started is refused with its file and line, and the closure is a bounded walk
//! over a work list. `final` on the head, `block` on a member and the schema's
//! `blockDefault`/`finalDefault` are not read (they only forbid instances, which lowering
//! does not check).

use std::collections::{BTreeMap, HashMap, HashSet};

use soapstone_codec::QName;

use super::components::{ElementDecl, MaxOccurs, Particle, SchemaSet};
use super::ReadError;

/// The alternatives of every head that has members or is abstract, as
/// [`SchemaSet::substitutes`] holds them.
/// More than `max` of them in all ([`ReadOptions::max_substitutes`](super::ReadOptions)) is
/// refused, naming the head where the count went over.
pub(super) fn substitutes(
    schema: &SchemaSet,
    documents: &[String],
    max: usize,
) -> Result<BTreeMap<QName, Vec<Particle>>, ReadError> {
    let mut total = 0usize;
    refuse_cycles(schema)?;
    // Each head's direct members (only heads that are declared).
    let mut members: HashMap<&QName, Vec<&ElementDecl>> = HashMap::new();
    for e in schema.elements.values() {
        if let Some(head) = &e.substitution_group {
            if schema.elements.contains_key(head) {
                members.entry(head).or_default().push(e);
            }
        }
    }
    let order = |e: &ElementDecl| {
        let doc = documents
            .iter()
            .position(|d| **d == *e.loc.file)
            .unwrap_or(usize::MAX);
        (doc, e.loc.file.clone(), e.loc.line, e.name.clone())
    };
    let mut out = BTreeMap::new();
    for (name, head) in &schema.elements {
        let has_members = members.contains_key(name) && !head.block_substitution;
        if !has_members && !head.is_abstract {
            continue;
        }
        let mut all: Vec<&ElementDecl> = Vec::new();
        if has_members {
            let mut seen: HashSet<&QName> = HashSet::from([name]);
            let mut work = vec![name];
            while let Some(h) = work.pop() {
                for m in members.get(h).into_iter().flatten() {
                    if seen.insert(&m.name) {
                        all.push(m);
                        work.push(&m.name);
                    }
                }
            }
        }
        total = total.saturating_add(all.len() + 1);
        if total > max {
            return Err(ReadError::new(
                head.loc.clone(),
                format!(
                    "the substitution group of `{}` takes the elements that may stand for heads past the limit of {max} (ReadOptions::max_substitutes)",
                    name.local
                ),
            ));
        }
        all.sort_by_key(|e| order(e));
        let alternatives = std::iter::once(head)
            .chain(all)
            .filter(|e| !e.is_abstract)
            .map(alternative)
            .collect();
        out.insert(name.clone(), alternatives);
    }
    Ok(out)
}

/// A reference to `e` that occurs once, where `e` is declared (what a choice alternative is).
fn alternative(e: &ElementDecl) -> Particle {
    Particle::Element(ElementDecl {
        name: e.name.clone(),
        ty: None,
        reference: Some(e.name.clone()),
        min: 1,
        max: MaxOccurs::Bounded(1),
        nillable: false,
        substitution_group: None,
        is_abstract: false,
        block_substitution: false,
        documentation: None,
        loc: e.loc.clone(),
    })
}

/// A `substitutionGroup` chain that comes back to an element already on it has no meaning.
/// Linear: a chain stops at an element already known to end without a cycle.
fn refuse_cycles(schema: &SchemaSet) -> Result<(), ReadError> {
    let mut acyclic: HashSet<&QName> = HashSet::new();
    for (name, decl) in &schema.elements {
        let mut chain = vec![name];
        let mut on_chain = HashSet::from([name]);
        let mut current = decl;
        while let Some(head) = &current.substitution_group {
            if acyclic.contains(head) {
                break;
            }
            if !on_chain.insert(head) {
                let start = chain.iter().position(|q| *q == head).unwrap_or(0);
                let mut names: Vec<&str> =
                    chain[start..].iter().map(|q| q.local.as_str()).collect();
                names.push(&head.local);
                let at = schema.elements.get(head).map_or(&decl.loc, |e| &e.loc);
                return Err(ReadError::new(
                    at.clone(),
                    format!(
                        "element `{}` is in its own substitution group: {}",
                        head.local,
                        names.join(" → ")
                    ),
                ));
            }
            chain.push(head);
            match schema.elements.get(head) {
                Some(next) => current = next,
                None => break,
            }
        }
        acyclic.extend(chain);
    }
    Ok(())
}

/// The type of `e`, or (when it has none) of the head it substitutes, transitively: a member
/// without a type has its head's.
pub(super) fn effective_type<'d>(
    schema: &'d SchemaSet,
    e: &'d ElementDecl,
) -> Option<&'d super::components::TypeUse> {
    let mut current = e;
    // Bounded by the number of elements (cycles are refused when reading).
    for _ in 0..=schema.elements.len() {
        if current.ty.is_some() {
            return current.ty.as_ref();
        }
        current = schema.elements.get(current.substitution_group.as_ref()?)?;
    }
    None
}
