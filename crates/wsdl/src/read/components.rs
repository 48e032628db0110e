//! The WSDL 1.1 and XML Schema components a WSDL is made of, as read, with where each came from.
//!
//! Plain data, close to the specifications' own component model (message, portType, binding,
//! service; element, type, group, attribute group), so that nothing is lost before a later
//! stage decides what it can express. Must never hold Rust names or generated code.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::Arc;

use soapstone_codec::QName;

/// Where a component was read: file (path or URL) and 1-based line (0: the whole file).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Loc {
    /// The document's path or URL.
    pub file: Arc<str>,
    /// 1-based line.
    pub line: u32,
}

impl Loc {
    pub(crate) fn file(file: &str, line: u32) -> Loc {
        Loc {
            file: Arc::from(file),
            line,
        }
    }
}

impl fmt::Display for Loc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}", self.file)
        } else {
            write!(f, "{}:{}", self.file, self.line)
        }
    }
}

/// `maxOccurs`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MaxOccurs {
    /// A number.
    Bounded(u32),
    /// `unbounded`.
    Unbounded,
}

impl MaxOccurs {
    /// Whether more than one occurrence is allowed.
    pub fn repeats(self) -> bool {
        !matches!(self, MaxOccurs::Bounded(0 | 1))
    }
}

/// How an element or attribute names its type.
#[derive(Debug, Clone, PartialEq)]
pub enum TypeUse {
    /// `type="qname"`.
    Named(QName),
    /// An anonymous type declared inside.
    Inline(Box<TypeDecl>),
}

/// An element declaration (global, local, or a `ref` to a global one).
#[derive(Debug, Clone, PartialEq)]
pub struct ElementDecl {
    /// The element's name; the namespace is empty for an unqualified local element.
    pub name: QName,
    /// Its type; `None`: `xsd:anyType` (or, with `reference`, the referenced element's).
    pub ty: Option<TypeUse>,
    /// `ref="qname"`: this particle is the global element `reference`.
    pub reference: Option<QName>,
    /// `minOccurs`.
    pub min: u32,
    /// `maxOccurs`.
    pub max: MaxOccurs,
    /// `nillable="true"`.
    pub nillable: bool,
    /// `substitutionGroup`.
    pub substitution_group: Option<QName>,
    /// `abstract="true"`.
    pub is_abstract: bool,
    /// `block` names `substitution` (or is `#all`): no member of its substitution group may
    /// stand for it.
    pub block_substitution: bool,
    /// `xsd:documentation`.
    pub documentation: Option<String>,
    /// Where it was declared.
    pub loc: Loc,
}

/// `sequence`, `choice` or `all`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compositor {
    /// In order.
    Sequence,
    /// One of.
    Choice,
    /// Any order, each at most once.
    All,
}

/// A piece of a complex type's content model.
#[derive(Debug, Clone, PartialEq)]
pub enum Particle {
    /// An element.
    Element(ElementDecl),
    /// A model group.
    Group {
        /// Which compositor.
        compositor: Compositor,
        /// `minOccurs`.
        min: u32,
        /// `maxOccurs`.
        max: MaxOccurs,
        /// Its particles.
        items: Vec<Particle>,
    },
    /// `<xsd:group ref=...>`.
    GroupRef {
        /// The named model group.
        name: QName,
        /// `minOccurs`.
        min: u32,
        /// `maxOccurs`.
        max: MaxOccurs,
        /// Where.
        loc: Loc,
    },
    /// `xsd:any`: any element (kept as raw XML).
    Any {
        /// `minOccurs`.
        min: u32,
        /// `maxOccurs`.
        max: MaxOccurs,
    },
}

/// An attribute declaration.
#[derive(Debug, Clone, PartialEq)]
pub struct AttributeDecl {
    /// Its name (namespace empty when unqualified).
    pub name: QName,
    /// Its type; `None`: `xsd:anySimpleType`, or the referenced attribute's.
    pub ty: Option<TypeUse>,
    /// `ref="qname"`.
    pub reference: Option<QName>,
    /// `use="required"`.
    pub required: bool,
    /// `use="prohibited"` (in a restriction: the base's attribute is removed).
    pub prohibited: bool,
    /// `default="..."`.
    pub default: Option<String>,
    /// `fixed="..."`.
    pub fixed: Option<String>,
    /// `wsdl:arrayType` (SOAP-ENC arrays), as written (`xsd:string[]`), with its namespace
    /// resolved: the item type and the brackets.
    pub array_type: Option<(QName, String)>,
    /// Where.
    pub loc: Loc,
}

/// An entry of a complex type's attribute list.
// A few per type, read once: boxing the declaration would only complicate the patterns.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum AttrItem {
    /// An attribute.
    Attribute(AttributeDecl),
    /// `<xsd:attributeGroup ref=...>`.
    GroupRef(QName, Loc),
    /// `xsd:anyAttribute`.
    Any,
}

/// How a complex type derives from its base.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Derivation {
    /// `extension`.
    Extension,
    /// `restriction`.
    Restriction,
}

/// A complex type.
#[derive(Debug, Clone, PartialEq)]
pub struct ComplexType {
    /// The base type and how it derives (complexContent or simpleContent).
    pub base: Option<(QName, Derivation)>,
    /// `simpleContent`: text of the base's simple type plus attributes.
    pub simple_content: bool,
    /// The content model (for a derived type, what the derivation adds or restricts to).
    pub content: Option<Particle>,
    /// Attributes.
    pub attributes: Vec<AttrItem>,
    /// `mixed="true"`.
    pub mixed: bool,
    /// `abstract="true"`.
    pub is_abstract: bool,
}

/// A simple type.
#[derive(Debug, Clone, PartialEq)]
pub enum SimpleType {
    /// A restriction of `base`, possibly to an enumeration.
    Restriction {
        /// The base type.
        base: TypeUse,
        /// `xsd:enumeration` values (empty: no enumeration).
        enumeration: Vec<String>,
    },
    /// A whitespace-separated list of `item`.
    List {
        /// The item type.
        item: TypeUse,
    },
    /// One of the member types.
    Union {
        /// The member types.
        members: Vec<TypeUse>,
    },
}

/// A type definition.
#[derive(Debug, Clone, PartialEq)]
pub struct TypeDecl {
    /// The name of a global type; `None` for an anonymous one.
    pub name: Option<QName>,
    /// Simple or complex.
    pub kind: TypeKind,
    /// `xsd:documentation`.
    pub documentation: Option<String>,
    /// Where.
    pub loc: Loc,
}

/// Simple or complex.
#[derive(Debug, Clone, PartialEq)]
pub enum TypeKind {
    /// A simple type.
    Simple(SimpleType),
    /// A complex type.
    Complex(Box<ComplexType>),
}

/// Every global schema component of a WSDL, from all its schemas.
#[derive(Debug, Clone, Default)]
pub struct SchemaSet {
    /// Global types.
    pub types: BTreeMap<QName, TypeDecl>,
    /// Global elements.
    pub elements: BTreeMap<QName, ElementDecl>,
    /// Named model groups.
    pub groups: BTreeMap<QName, (Particle, Loc)>,
    /// The elements each head of a substitution group stands for, as the alternatives of a
    /// choice (one `ref` particle each, the head first unless abstract, then its members,
    /// transitively, in document order); only heads with members or abstract ones (`subst`).
    pub substitutes: BTreeMap<QName, Vec<Particle>>,
    /// Named attribute groups.
    pub attribute_groups: BTreeMap<QName, (Vec<AttrItem>, Loc)>,
    /// Global attributes.
    pub attributes: BTreeMap<QName, AttributeDecl>,
    /// Every target namespace a schema was read for.
    pub namespaces: BTreeSet<String>,
    /// Tags in the XML Schema namespace that XML Schema does not define (`xs:simpletype`):
    /// what they declare is not read, and a refusal that misses it says why.
    pub unknown_tags: Vec<super::hint::UnknownTag>,
    /// Schemas in a draft XML Schema namespace (1999, 2000/10), which are not read: their
    /// target namespace, their XML Schema namespace and where.
    pub draft_schemas: Vec<(String, String, Loc)>,
}

/// A part of a WSDL message.
#[derive(Debug, Clone, PartialEq)]
pub struct MessagePart {
    /// `name`.
    pub name: String,
    /// `element="qname"` (document style).
    pub element: Option<QName>,
    /// `type="qname"` (rpc style).
    pub ty: Option<QName>,
    /// Where.
    pub loc: Loc,
}

/// A WSDL message.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    /// Its name.
    pub name: QName,
    /// Its parts, in order.
    pub parts: Vec<MessagePart>,
    /// Where.
    pub loc: Loc,
}

/// An operation of a portType.
#[derive(Debug, Clone, PartialEq)]
pub struct AbstractOperation {
    /// Its name.
    pub name: String,
    /// The input message.
    pub input: Option<QName>,
    /// The output message (`None`: one-way).
    pub output: Option<QName>,
    /// The output comes before the input: a notification (no input) or a solicit-response
    /// operation (WSDL 1.1 sections 2.4.3 and 2.4.4), which no SOAP binding defines.
    pub output_first: bool,
    /// Faults: name and message.
    pub faults: Vec<(String, QName)>,
    /// `wsdl:documentation`.
    pub documentation: Option<String>,
    /// Where.
    pub loc: Loc,
}

/// A WSDL portType.
#[derive(Debug, Clone, PartialEq)]
pub struct PortType {
    /// Its name.
    pub name: QName,
    /// Its operations.
    pub operations: Vec<AbstractOperation>,
    /// Where.
    pub loc: Loc,
}

/// Which SOAP a binding speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SoapVersion {
    /// SOAP 1.1 (`wsdl/soap/`).
    Soap11,
    /// SOAP 1.2 (`wsdl/soap12/`).
    Soap12,
}

/// `style` of a SOAP binding operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpStyle {
    /// `document`.
    Document,
    /// `rpc`.
    Rpc,
}

/// `use` of a `soap:body`, `soap:header` or `soap:fault`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Use {
    /// `literal`.
    Literal,
    /// `encoded`.
    Encoded,
}

/// A `soap:header` of a binding's input or output.
#[derive(Debug, Clone, PartialEq)]
pub struct HeaderBinding {
    /// The message holding the header part.
    pub message: QName,
    /// The part.
    pub part: String,
    /// `use`.
    pub use_: Use,
    /// `namespace`: an encoded header part typed with `type=` is an element of this name in
    /// this namespace (WSDL 1.1 section 3.5 and 3.7).
    pub namespace: Option<String>,
    /// Where.
    pub loc: Loc,
}

/// A binding's `soap:body` (and `soap:header`s) for one direction.
#[derive(Debug, Clone, PartialEq)]
pub struct BodyBinding {
    /// `use`.
    pub use_: Use,
    /// `namespace` (rpc style: the wrapper's namespace).
    pub namespace: Option<String>,
    /// `parts`: the message parts in the body (`None`: all of them).
    pub parts: Option<Vec<String>>,
    /// Header blocks.
    pub headers: Vec<HeaderBinding>,
}

impl Binding {
    /// The namespace of an rpc operation's wrapper element (request and response): its input
    /// `soap:body`'s `namespace`, or, when that is absent or empty (WSDL 1.1 section 3.5
    /// leaves it to the binding), this binding's own WSDL target namespace, as node-soap and
    /// .NET write it (zeep writes the wrapper unqualified). With `wsdl:import` that is the
    /// namespace of the document defining the binding, not the root's. The one rule: the
    /// service model ([`Definitions::service_model`]) and the dynamic client both use it.
    pub fn rpc_namespace(&self, op: &BindingOperation) -> String {
        op.input
            .as_ref()
            .and_then(|b| b.namespace.as_deref())
            .filter(|ns| !ns.trim().is_empty())
            .map_or_else(|| self.name.namespace.clone(), str::to_string)
    }
}

/// A `wsdl:fault` of a binding operation.
#[derive(Debug, Clone, PartialEq)]
pub struct FaultBinding {
    /// Its name (as in the portType).
    pub name: String,
    /// `use`.
    pub use_: Use,
}

/// One operation of a binding.
#[derive(Debug, Clone, PartialEq)]
pub struct BindingOperation {
    /// Its name (as in the portType).
    pub name: String,
    /// `soapAction` (1.1) or `soapAction` attribute of `soap12:operation`.
    pub action: Option<String>,
    /// `style` (the operation's, else the binding's, else document).
    pub style: OpStyle,
    /// The input's body binding.
    pub input: Option<BodyBinding>,
    /// The output's body binding.
    pub output: Option<BodyBinding>,
    /// Faults.
    pub faults: Vec<FaultBinding>,
    /// A `soap:input` or `soap:output` (or `soap12:`) where `wsdl:input`/`wsdl:output`
    /// belongs, and where: what it binds is not read.
    pub misplaced: Option<(String, Loc)>,
    /// Where.
    pub loc: Loc,
}

/// A WSDL binding.
#[derive(Debug, Clone, PartialEq)]
pub struct Binding {
    /// Its name.
    pub name: QName,
    /// Its portType.
    pub port_type: QName,
    /// The SOAP version; `None`: not a SOAP binding (HTTP GET/POST, MIME...).
    pub soap: Option<SoapVersion>,
    /// For a binding that is not SOAP's, its binding extension element as written
    /// (`http:binding verb="POST"`), if it has one.
    pub other: Option<String>,
    /// Its operations.
    pub operations: Vec<BindingOperation>,
    /// Where.
    pub loc: Loc,
}

/// A port of a service.
#[derive(Debug, Clone, PartialEq)]
pub struct Port {
    /// Its name.
    pub name: String,
    /// Its binding.
    pub binding: QName,
    /// `soap:address location` (or `soap12:address`).
    pub address: Option<String>,
    /// Where.
    pub loc: Loc,
}

/// A WSDL service.
#[derive(Debug, Clone, PartialEq)]
pub struct Service {
    /// Its name.
    pub name: QName,
    /// Its ports.
    pub ports: Vec<Port>,
    /// `wsdl:documentation`.
    pub documentation: Option<String>,
    /// Where.
    pub loc: Loc,
}

/// A whole WSDL: the root document and everything it imports, merged.
#[derive(Debug, Clone, Default)]
pub struct Definitions {
    /// The root document's `targetNamespace`.
    pub target_namespace: String,
    /// The root document's `name`.
    pub name: Option<String>,
    /// The root document's `wsdl:documentation`.
    pub documentation: Option<String>,
    /// Services, in document order (root first, then imports).
    pub services: Vec<Service>,
    /// Bindings.
    pub bindings: BTreeMap<QName, Binding>,
    /// PortTypes.
    pub port_types: BTreeMap<QName, PortType>,
    /// Messages.
    pub messages: BTreeMap<QName, Message>,
    /// Every schema component.
    pub schema: SchemaSet,
    /// Every document read, in the order read.
    pub documents: Vec<String>,
    /// References the services reach that name nothing (a missing message, element or
    /// type), sorted by place. Reading goes on, as zeep's does: an operation that uses one
    /// is listed, but cannot be lowered to a [`ServiceModel`](crate::ServiceModel).
    pub problems: Vec<super::ReadError>,
}
