//! Why a name a WSDL uses is not defined: the likely cause, said in the refusal, so that whoever
//! holds a broken vendor WSDL knows what to fix without reading the reader.
//!
//! The causes found in the corpus: an element name used as a type (`type="c:DummyResult"` where
//! `DummyResult` is a global element), a declaration the reader did not take because its tag is
//! not XML Schema's (`xs:simpletype`: names are case-sensitive), a namespace no schema was read
//! for (an `xsd:import` without `schemaLocation`, a file the WSDL does not ship), and a prefix
//! bound to another namespace than the one that defines the name. It exists beside the reader
//! because the same hint serves `check` (the problems `inspect` lists) and lowering.
//!
//! Must never change what is resolved: it only words a refusal that is already decided.

use soapstone_codec::QName;

use super::components::{Definitions, Loc};

/// The tags of XML Schema 1.0 and 1.1 (`annotation` content is not looked into).
const XSD_TAGS: &[&str] = &[
    "all",
    "alternative",
    "annotation",
    "any",
    "anyAttribute",
    "appinfo",
    "assert",
    "assertion",
    "attribute",
    "attributeGroup",
    "choice",
    "complexContent",
    "complexType",
    "defaultOpenContent",
    "documentation",
    "element",
    "enumeration",
    "explicitTimezone",
    "extension",
    "field",
    "fractionDigits",
    "group",
    "import",
    "include",
    "key",
    "keyref",
    "length",
    "list",
    "maxExclusive",
    "maxInclusive",
    "maxLength",
    "minExclusive",
    "minInclusive",
    "minLength",
    "notation",
    "openContent",
    "override",
    "pattern",
    "redefine",
    "restriction",
    "schema",
    "selector",
    "sequence",
    "simpleContent",
    "simpleType",
    "totalDigits",
    "union",
    "unique",
    "whiteSpace",
];

/// A tag in the XML Schema namespace that XML Schema does not define, as read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownTag {
    /// The tag's local name as written (`simpletype`).
    pub tag: String,
    /// Its `name` attribute, in the schema's target namespace, if it has one.
    pub name: Option<QName>,
    /// The global type, element or group whose declaration it is inside (and whose content
    /// it would change), if it is not that declaration itself.
    pub within: Option<QName>,
    /// Where.
    pub loc: Loc,
}

impl UnknownTag {
    /// The refusal's words for it: "unknown schema element `xs:simpletype` at f:6 (XML Schema
    /// names are case-sensitive: `simpleType`)".
    pub fn describe(&self) -> String {
        let mut s = format!("unknown schema element `xsd:{}` at {}", self.tag, self.loc);
        if let Some(right) = correct_tag(&self.tag) {
            s.push_str(&format!(
                " (XML Schema names are case-sensitive: `{right}`)"
            ));
        }
        s
    }
}

/// Whether `local` is a tag of XML Schema.
pub(super) fn is_xsd_tag(local: &str) -> bool {
    XSD_TAGS.contains(&local)
}

/// The XML Schema tag `tag` is a miscased spelling of.
fn correct_tag(tag: &str) -> Option<&'static str> {
    XSD_TAGS
        .iter()
        .copied()
        .find(|t| t.eq_ignore_ascii_case(tag) && *t != tag)
}

/// Which kind of component a name was looked up as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Type,
    Element,
}

impl Definitions {
    /// A refusal for the global component `name` when a tag XML Schema does not define is
    /// inside its declaration: what the tag declares (`xs:Sequence` and its elements) is not
    /// read, so the component's content as read is not the schema's.
    pub(super) fn unknown_inside(&self, name: &QName) -> Option<(Loc, String)> {
        let u = self
            .schema
            .unknown_tags
            .iter()
            .find(|u| u.within.as_ref() == Some(name))?;
        Some((
            u.loc.clone(),
            format!(
                "`{}` holds an {}: what it declares is not read, so `{}` cannot be lowered as the schema means it",
                name.local,
                u.describe(),
                name.local
            ),
        ))
    }

    /// Why `name`, looked up as a `kind`, is not defined: an empty string when nothing more is
    /// known, else `: ` and the likely cause.
    pub(super) fn why_undefined(&self, kind: Kind, name: &QName) -> String {
        let schema = &self.schema;
        if let Some(u) = schema
            .unknown_tags
            .iter()
            .find(|u| u.name.as_ref() == Some(name))
        {
            return format!(": it is declared by an {}", u.describe());
        }
        match kind {
            Kind::Type if schema.elements.contains_key(name) => {
                return format!(
                    ": `{}` is a global element, not a type (an element's `type` names a `complexType` or `simpleType`)",
                    name.local
                )
            }
            Kind::Element if schema.types.contains_key(name) => {
                return format!(
                    ": `{}` is a type, not a global element (a part's `element` names an `xsd:element`)",
                    name.local
                )
            }
            _ => {}
        }
        if let Some((_, xsd, at)) = schema
            .draft_schemas
            .iter()
            .find(|(tns, _, _)| *tns == name.namespace)
        {
            return format!(
                ": the schema of namespace `{}` at {at} is written in the draft XML Schema namespace `{xsd}`, which is not read (XML Schema 1.0 is `http://www.w3.org/2001/XMLSchema`)",
                name.namespace
            );
        }
        // `type="string"` resolves to the default namespace (a WSDL's is WSDL's own), else to
        // the schema's target namespace: either way a built-in's name lost its prefix.
        let unprefixed = name.namespace == super::load::WSDL_NS
            || (schema.namespaces.contains(&name.namespace)
                && !schema.types.keys().any(|q| q.local == name.local));
        if kind == Kind::Type && unprefixed && XSD_BUILTINS.contains(&name.local.as_str()) {
            return format!(
                ": `{}` is a built-in type of XML Schema, written without its prefix (an unprefixed type name is in the default namespace, else the schema's target namespace)",
                name.local
            );
        }
        if !schema.namespaces.contains(&name.namespace) {
            return format!(
                ": no schema of namespace `{}` was read (an `xsd:import` without `schemaLocation` needs a catalog entry)",
                name.namespace
            );
        }
        let elsewhere = match kind {
            Kind::Type => schema.types.keys().find(|q| q.local == name.local).cloned(),
            Kind::Element => schema
                .elements
                .keys()
                .find(|q| q.local == name.local)
                .cloned(),
        };
        if let Some(other) = elsewhere {
            return format!(
                ": `{}` is defined in namespace `{}` (the reference's prefix names `{}`)",
                other.local, other.namespace, name.namespace
            );
        }
        format!(": no schema of namespace `{}` declares it", name.namespace)
    }
}

/// XML Schema's built-in types most often written without their prefix.
const XSD_BUILTINS: &[&str] = &[
    "anyType",
    "anyURI",
    "base64Binary",
    "boolean",
    "byte",
    "date",
    "dateTime",
    "decimal",
    "double",
    "duration",
    "float",
    "hexBinary",
    "int",
    "integer",
    "long",
    "QName",
    "short",
    "string",
    "time",
    "token",
    "unsignedInt",
    "unsignedLong",
    "unsignedShort",
];
