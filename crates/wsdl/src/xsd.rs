//! Describing Rust types to an XML Schema: the [`XsdType`] trait and the [`Schema`] registry.
//!
//! A type describes itself once per schema; named types (structs, enums, SOAP-ENC arrays) are
//! registered under their name so that recursive and shared types are written once. The names
//! used for built-in types come from the codec's own mapping ([`soapstone_codec`] writes the
//! same names in `xsi:type`), so a message and its schema always agree.
//! This module must never write XML: that is `generate`'s job.

use std::collections::HashMap;

use soapstone_codec::{xsd, xsd_type_name, QName, Style};

/// The XML Schema namespace.
pub const XSD_NS: &str = "http://www.w3.org/2001/XMLSchema";
/// The SOAP 1.1 encoding namespace (SOAP-ENC).
pub const SOAP_ENC_NS: &str = "http://schemas.xmlsoap.org/soap/encoding/";

/// How a part, element or field refers to its type, with its occurrence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeRef {
    /// The type's qualified name (`xsd:int`, `tns:Contact`, `tns:ArrayOfint`).
    pub name: QName,
    /// `minOccurs="0"`: the element may be absent (an `Option`, or a literal `Vec`).
    pub optional: bool,
    /// `maxOccurs="unbounded"`: the element repeats (a `Vec` in literal style).
    pub repeated: bool,
    /// `nillable="true"`: the element may carry `xsi:nil="true"`.
    pub nillable: bool,
}

impl TypeRef {
    /// A reference to the type `name` that occurs exactly once.
    pub fn new(name: QName) -> Self {
        TypeRef {
            name,
            optional: false,
            repeated: false,
            nillable: false,
        }
    }

    /// A built-in XML Schema type (`xsd:local`).
    pub fn xsd(local: &str) -> Self {
        TypeRef::new(QName::new(XSD_NS, local))
    }
}

/// A named field of a complex type: a child element, an attribute or the text content, named
/// as the codec's serde convention names them.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Field {
    /// The element name; `@name` for an unqualified attribute, `@{ns}name` for a qualified
    /// one, `$text` for the text content (`simpleContent`, whose base type is `ty`).
    pub name: String,
    /// Its type and occurrence (an attribute is `optional` unless `use="required"`).
    pub ty: TypeRef,
    /// An attribute's `default` value (what an absent attribute means).
    pub default: Option<String>,
    /// An attribute's `fixed` value.
    pub fixed: Option<String>,
}

impl Field {
    /// A field.
    pub fn new(name: impl Into<String>, ty: TypeRef) -> Self {
        Field {
            name: name.into(),
            ty,
            default: None,
            fixed: None,
        }
    }

    /// The field with an attribute's `default` and `fixed` values.
    pub fn with_values(mut self, default: Option<String>, fixed: Option<String>) -> Self {
        self.default = default;
        self.fixed = fixed;
        self
    }

    /// For an attribute, its namespace (empty when unqualified) and local name.
    pub fn attribute(&self) -> Option<(&str, &str)> {
        attribute_name(&self.name)
    }

    /// For an element with a namespace of its own (`{ns}local`), that namespace and its local
    /// name.
    pub fn own_namespace(&self) -> Option<(&str, &str)> {
        own_namespace(&self.name)
    }

    /// Whether this is the text content (`$text`).
    pub fn is_text(&self) -> bool {
        self.name == TEXT_FIELD
    }

    /// Whether this is a child element (neither an attribute nor the text).
    pub fn is_element(&self) -> bool {
        // A choice (`$choice:a|b`) and a wildcard (`$any`) are element content too.
        !self.name.starts_with('@') && self.name != TEXT_FIELD
    }
}

/// The field name of an element's text content (the codec's convention).
pub const TEXT_FIELD: &str = "$text";

/// The field name of the attributes no other field names (`xsd:anyAttribute`; the codec's
/// convention): a map from `local` or `{ns}local` to the value.
pub const OTHER_ATTRIBUTES_FIELD: &str = "@*";

/// The type the model gives the `@*` field: no XSD type, a marker the WSDL writer writes as
/// `<xsd:anyAttribute/>` and the generator as `codec::xsd::OtherAttributes`.
pub const ANY_ATTRIBUTE: &str = "anyAttribute";

/// `@name` is `("", name)`, `@{ns}name` is `(ns, name)`; other names are not attributes.
pub fn attribute_name(field: &str) -> Option<(&str, &str)> {
    let rest = field.strip_prefix('@')?;
    Some(
        match rest.strip_prefix('{').and_then(|r| r.split_once('}')) {
            Some((ns, local)) => (ns, local),
            None => ("", rest),
        },
    )
}

/// An element field named `{ns}local` is `(ns, local)`: an element with a namespace of its own
/// (`{}local`: in no namespace) rather than the one its parent type writes its children in
/// (see the codec's conventions). Other names are `None`.
pub fn own_namespace(field: &str) -> Option<(&str, &str)> {
    field.strip_prefix('{')?.split_once('}')
}

/// The definition of a named type.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum TypeDef {
    /// A complex type: a sequence of elements.
    Struct(Vec<Field>),
    /// A string restricted to these values (a unit-only enum).
    Enum(Vec<String>),
    /// A SOAP-ENC array (encoded style) of `item` with `dims` dimensions
    /// (`wsdl:arrayType="xsd:string[,]"` for 2).
    Array {
        /// The item type.
        item: QName,
        /// Number of dimensions (1 or more).
        dims: usize,
    },
    /// A literal list wrapper: a sequence of repeated `item` elements (used for a `Vec`
    /// nested in a `Vec` in literal style, where a bare repetition cannot nest).
    List(TypeRef),
    /// A `choice` of elements (a Rust enum with one variant per alternative, see
    /// [`CHOICE_FIELD`]). It has no name on the wire: a struct field refers to it, and the
    /// WSDL writes the `<choice>` inline where the field is.
    Choice(Vec<Field>),
    /// An `xsd:list` simple type of `item` (`soapstone_codec::xsd::List<T>`): the items in
    /// one text node, separated by whitespace.
    SimpleList(TypeRef),
    /// A sequence of elements that is an alternative of a [`TypeDef::Choice`] (named after
    /// its first element there): a Rust struct whose serde name starts with `$sequence`, its
    /// fields sibling elements with no element of their own around them (the codec's
    /// convention). Like a choice it has no name on the wire: the WSDL writes the
    /// `<sequence>` inline in the `<choice>`.
    Sequence(Vec<Field>),
}

/// Prefix of the name of a struct field that holds a [`TypeDef::Choice`]: `$choice:` then the
/// alternatives' element names separated by `|` (what the codec reads, see its conventions).
pub const CHOICE_FIELD: &str = "$choice:";
/// The name of a struct field that holds the elements of an `xsd:any` wildcard (of type
/// `xsd:anyType`, a `soapstone_codec::xsd::AnyXml`).
pub const ANY_FIELD: &str = "$any";

impl Field {
    /// The alternatives' element names when this field holds a choice.
    pub fn choice(&self) -> Option<impl Iterator<Item = &str>> {
        self.name
            .strip_prefix(CHOICE_FIELD)
            .map(|list| list.split('|'))
    }

    /// Whether this field holds the elements of an `xsd:any` wildcard.
    pub fn is_any(&self) -> bool {
        self.name == ANY_FIELD
    }
}

/// Records every choice field (`$choice:a|b`) whose type is not a [`TypeDef::Choice`] of the
/// alternatives it names, in that order: the codec picks the field by those names and the
/// variant by the element's, so the two lists must agree.
pub(crate) fn check_choices(schema: &Schema, problems: &mut Vec<String>) {
    for t in schema.types() {
        let TypeDef::Struct(fields) = &t.def else {
            continue;
        };
        for f in fields {
            let Some(named) = f.choice() else {
                continue;
            };
            let named: Vec<&str> = named.collect();
            let alternatives: Option<Vec<&str>> = match schema.get(&f.ty.name.local) {
                Some(TypeDef::Choice(alts)) => Some(alts.iter().map(|a| a.name.as_str()).collect()),
                _ => None,
            };
            if alternatives.as_deref() != Some(named.as_slice()) {
                problems.push(format!(
                    "field `{}` of `{}` names the alternatives `{}` but its type `{}` is not a choice of them",
                    f.name,
                    t.name,
                    named.join("`, `"),
                    f.ty.name.local
                ));
            }
        }
    }
}

/// The name of a field holding a choice of the elements `names`.
pub fn choice_field_name<'n>(names: impl IntoIterator<Item = &'n str>) -> String {
    let names: Vec<&str> = names.into_iter().collect();
    format!("{CHOICE_FIELD}{}", names.join("|"))
}

/// A named type of a schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamedType {
    /// The local name.
    pub name: String,
    /// Its namespace: the schema's target namespace, or another one for a type registered
    /// under a Clark name (`{ns}Type`, see [`Schema::define`]).
    pub namespace: String,
    /// Its definition.
    pub def: TypeDef,
    rust: &'static str,
}

/// The registry of named types of one service schema.
#[derive(Debug, Clone)]
pub struct Schema {
    namespace: String,
    style: Style,
    types: Vec<NamedType>,
    index: HashMap<String, usize>,
    problems: Vec<String>,
}

impl Schema {
    /// An empty schema for `namespace` whose messages use `style`.
    pub fn new(namespace: impl Into<String>, style: Style) -> Self {
        Schema {
            namespace: namespace.into(),
            style,
            types: Vec::new(),
            index: HashMap::new(),
            problems: Vec::new(),
        }
    }

    /// The target namespace.
    pub fn namespace(&self) -> &str {
        &self.namespace
    }

    /// The body style: literal and encoded describe `Vec` differently.
    pub fn style(&self) -> Style {
        self.style
    }

    /// The named types, in registration order.
    pub fn types(&self) -> &[NamedType] {
        &self.types
    }

    /// The named type `local`, if registered.
    pub fn get(&self, local: &str) -> Option<&TypeDef> {
        self.index.get(local).map(|&i| &self.types[i].def)
    }

    /// The namespaces of the registered types other than the target namespace, sorted.
    pub fn other_namespaces(&self) -> Vec<&str> {
        let mut out: Vec<&str> = self
            .types
            .iter()
            .map(|t| t.namespace.as_str())
            .filter(|ns| *ns != self.namespace)
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Conflicts found while registering (two Rust types under one name).
    pub fn problems(&self) -> &[String] {
        &self.problems
    }

    /// Whether any type refers to the SOAP encoding schema (arrays).
    pub fn uses_soap_enc(&self) -> bool {
        self.types
            .iter()
            .any(|t| matches!(t.def, TypeDef::Array { .. }))
    }

    /// Registers the named type `local` defined by `define`, once: a second call for the same
    /// Rust type (`rust`, e.g. `std::any::type_name::<Self>()`) returns at once, which also
    /// ends recursion. Two different Rust types under one name are recorded as a problem.
    ///
    /// A name in Clark notation, `{ns}Type` (what `#[serde(rename = "{ns}Type")]` gives a
    /// derived type, and what the codec writes as `ns1:Type` in `xsi:type`), registers a type
    /// of namespace `ns`; local names are unique across namespaces.
    pub fn define(
        &mut self,
        local: &str,
        rust: &'static str,
        define: impl FnOnce(&mut Schema) -> TypeDef,
    ) -> TypeRef {
        let (namespace, local) = match local.strip_prefix('{').and_then(|r| r.split_once('}')) {
            Some((ns, local)) => (ns.to_string(), local),
            None => (self.namespace.clone(), local),
        };
        let tref = TypeRef::new(QName::new(namespace.clone(), local));
        if let Some(&i) = self.index.get(local) {
            if self.types[i].rust != rust {
                self.problems.push(format!(
                    "schema type `{local}` is defined by both `{}` and `{rust}`",
                    self.types[i].rust
                ));
            } else if self.types[i].namespace != namespace {
                self.problems.push(format!(
                    "schema type `{local}` is defined in both `{}` and `{namespace}`",
                    self.types[i].namespace
                ));
            }
            return tref;
        }
        let i = self.types.len();
        self.types.push(NamedType {
            name: local.to_string(),
            namespace,
            def: TypeDef::Struct(Vec::new()),
            rust,
        });
        self.index.insert(local.to_string(), i);
        let def = define(self);
        self.types[i].def = def;
        tref
    }

    /// The array type name for `item` in `dims` dimensions: `ArrayOfint`, `ArrayOfstring2D`.
    fn array_name(item: &QName, dims: usize) -> String {
        if dims == 1 {
            format!("ArrayOf{}", item.local)
        } else {
            format!("ArrayOf{}{dims}D", item.local)
        }
    }

    /// Describes a sequence of `item` (what `Vec<T>` does).
    pub fn sequence_of(&mut self, item: TypeRef) -> TypeRef {
        match self.style {
            Style::Encoded => {
                // `Vec<Vec<T>>` is a two-dimensional array of `T`, not an array of arrays.
                let (base, dims) = match self.array_def(&item.name) {
                    Some((base, dims)) => (base, dims + 1),
                    None => (item.name.clone(), 1),
                };
                let name = Self::array_name(&base, dims);
                let mut tref = self.define(&name, "soapstone_wsdl::Array", |_| TypeDef::Array {
                    item: base,
                    dims,
                });
                tref.nillable = true;
                tref
            }
            _ => {
                if item.repeated {
                    // A list of lists: each inner list becomes one element holding `item`s.
                    let name = format!("ArrayOf{}", item.name.local);
                    let inner = item.clone();
                    let mut tref =
                        self.define(&name, "soapstone_wsdl::List", |_| TypeDef::List(inner));
                    tref.optional = true;
                    tref.repeated = true;
                    tref
                } else {
                    TypeRef {
                        optional: true,
                        repeated: true,
                        ..item
                    }
                }
            }
        }
    }

    fn array_def(&self, name: &QName) -> Option<(QName, usize)> {
        if name.namespace != self.namespace {
            return None;
        }
        match self.get(&name.local) {
            Some(TypeDef::Array { item, dims }) => Some((item.clone(), *dims)),
            _ => None,
        }
    }
}

/// A Rust type that can describe itself to an XML Schema.
///
/// Implemented for the primitives, `String`, `Option<T>`, `Vec<T>`, the codec's XSD value
/// types, and derived with `#[derive(XsdType)]` for structs with named fields and unit-only
/// enums. The description must match what the codec writes for the type's serde
/// serialization: same element names (serde renames honoured), same `xsi:type` names. A field
/// renamed `@name` (`@{ns}name`) describes an attribute and `$text` the text content, as the
/// codec writes them; a [`Field`]'s `default` and `fixed` come from `#[xsd(default = "..")]`.
pub trait XsdType {
    /// Registers the named types this type needs and says how to refer to it.
    fn describe(schema: &mut Schema) -> TypeRef;
}

/// Built-in types, named by the codec's own map ([`soapstone_codec::xsd_type_name`]) so
/// that the schema says what `xsi:type` says.
macro_rules! builtin {
    ($($t:ty),* $(,)?) => {$(
        impl XsdType for $t {
            fn describe(_: &mut Schema) -> TypeRef {
                TypeRef::xsd(builtin_name(stringify!($t)))
            }
        }
    )*};
}

fn builtin_name(rust: &str) -> &'static str {
    match xsd_type_name(rust) {
        Some(name) => name,
        // The list below is the codec's table; a mismatch is a bug caught by the unit test.
        None => "anyType",
    }
}

builtin! {
    i8, i16, i32, i64, i128, u8, u16, u32, u64, u128, f32, f64, bool, char, String,
    xsd::DateTime, xsd::Date, xsd::Time, xsd::Decimal, xsd::Base64Binary, xsd::HexBinary,
    xsd::AnyUri, xsd::QNameValue,
}

impl<T: XsdType> XsdType for Option<T> {
    fn describe(schema: &mut Schema) -> TypeRef {
        let inner = T::describe(schema);
        let nillable = schema.style() == Style::Encoded || inner.nillable;
        TypeRef {
            optional: true,
            nillable,
            ..inner
        }
    }
}

impl<T: XsdType> XsdType for Vec<T> {
    fn describe(schema: &mut Schema) -> TypeRef {
        let item = T::describe(schema);
        schema.sequence_of(item)
    }
}

/// `anyType` (and the elements of `xsd:any` in a field named [`ANY_FIELD`]).
/// The other attributes of an element (a field `@*`, `xsd:anyAttribute`).
impl XsdType for xsd::OtherAttributes {
    fn describe(_: &mut Schema) -> TypeRef {
        TypeRef::xsd(ANY_ATTRIBUTE)
    }
}

impl XsdType for xsd::AnyXml {
    fn describe(_: &mut Schema) -> TypeRef {
        TypeRef::xsd("anyType")
    }
}

/// A named `xsd:list` type, `ListOf<item>` (as `Vec<T>` is `ArrayOf<item>` when encoded).
impl<T: XsdType> XsdType for xsd::List<T> {
    fn describe(schema: &mut Schema) -> TypeRef {
        let item = T::describe(schema);
        let name = format!("ListOf{}", item.name.local);
        schema.define(&name, "soapstone_wsdl::SimpleList", |_| {
            TypeDef::SimpleList(item)
        })
    }
}

impl<T: XsdType> XsdType for Box<T> {
    fn describe(schema: &mut Schema) -> TypeRef {
        T::describe(schema)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtins_follow_the_codec() {
        let mut s = Schema::new("urn:t", Style::Literal);
        let names = [
            i8::describe(&mut s),
            u64::describe(&mut s),
            f32::describe(&mut s),
            String::describe(&mut s),
            char::describe(&mut s),
            xsd::DateTime::describe(&mut s),
            xsd::Base64Binary::describe(&mut s),
            xsd::QNameValue::describe(&mut s),
            xsd::AnyUri::describe(&mut s),
            xsd::Decimal::describe(&mut s),
            xsd::HexBinary::describe(&mut s),
            xsd::Date::describe(&mut s),
            xsd::Time::describe(&mut s),
            i128::describe(&mut s),
        ]
        .map(|t| t.name.local);
        let expected = [
            "byte",
            "unsignedLong",
            "float",
            "string",
            "string",
            "dateTime",
            "base64Binary",
            "QName",
            "anyURI",
            "decimal",
            "hexBinary",
            "date",
            "time",
            "integer",
        ];
        assert_eq!(names, expected);
    }

    #[test]
    fn literal_vec_repeats() {
        let mut s = Schema::new("urn:t", Style::Literal);
        let t = Vec::<i32>::describe(&mut s);
        assert_eq!(t.name, QName::new(XSD_NS, "int"));
        assert!(t.repeated && t.optional);
        assert!(s.types().is_empty());
    }

    #[test]
    fn encoded_vec_is_a_soap_array() {
        let mut s = Schema::new("urn:t", Style::Encoded);
        let t = Vec::<String>::describe(&mut s);
        assert_eq!(t.name, QName::new("urn:t", "ArrayOfstring"));
        assert!(!t.repeated);
        assert_eq!(
            s.get("ArrayOfstring"),
            Some(&TypeDef::Array {
                item: QName::new(XSD_NS, "string"),
                dims: 1
            })
        );
        let t2 = Vec::<Vec<String>>::describe(&mut s);
        assert_eq!(t2.name.local, "ArrayOfstring2D");
        assert_eq!(
            s.get("ArrayOfstring2D"),
            Some(&TypeDef::Array {
                item: QName::new(XSD_NS, "string"),
                dims: 2
            })
        );
        assert!(s.uses_soap_enc());
    }

    #[test]
    fn a_clark_name_registers_a_type_of_another_namespace() {
        let mut s = Schema::new("urn:t", Style::Encoded);
        let t = s.define("{urn:x}S", "x::S", |_| TypeDef::Struct(Vec::new()));
        assert_eq!(t.name, QName::new("urn:x", "S"));
        assert_eq!(s.types()[0].namespace, "urn:x");
        assert_eq!(s.other_namespaces(), ["urn:x"]);
        s.define("{urn:y}S", "x::S", |_| unreachable!("defined once"));
        assert_eq!(
            s.problems(),
            ["schema type `S` is defined in both `urn:x` and `urn:y`"]
        );
    }

    #[test]
    fn literal_nested_vec_gets_a_list_type() {
        let mut s = Schema::new("urn:t", Style::Literal);
        let t = Vec::<Vec<f64>>::describe(&mut s);
        assert_eq!(t.name, QName::new("urn:t", "ArrayOfdouble"));
        assert!(t.repeated);
        assert!(matches!(s.get("ArrayOfdouble"), Some(TypeDef::List(item)) if item.repeated));
    }

    #[test]
    fn option_is_optional_and_nillable_when_encoded() {
        let mut s = Schema::new("urn:t", Style::Literal);
        let t = Option::<bool>::describe(&mut s);
        assert!(t.optional && !t.nillable);
        let mut s = Schema::new("urn:t", Style::Encoded);
        let t = Option::<bool>::describe(&mut s);
        assert!(t.optional && t.nillable);
    }

    #[test]
    fn a_choice_field_must_name_its_alternatives() {
        let mut s = Schema::new("urn:t", Style::Literal);
        let alts = vec![
            Field::new("a", TypeRef::xsd("int")),
            Field::new("b", TypeRef::xsd("int")),
        ];
        let choice = s.define("AChoice", "x::AChoice", |_| TypeDef::Choice(alts));
        s.define("T", "x::T", |_| {
            TypeDef::Struct(vec![
                Field::new(choice_field_name(["a", "b"]), choice.clone()),
                Field::new(choice_field_name(["a", "c"]), choice.clone()),
            ])
        });
        let mut problems = Vec::new();
        check_choices(&s, &mut problems);
        assert_eq!(
            problems,
            ["field `$choice:a|c` of `T` names the alternatives `a`, `c` but its type `AChoice` is not a choice of them"]
        );
    }

    #[test]
    fn conflicting_definitions_are_reported() {
        let mut s = Schema::new("urn:t", Style::Literal);
        s.define("A", "x::A", |_| TypeDef::Enum(vec!["a".into()]));
        s.define("A", "x::A", |_| unreachable!("defined once"));
        assert!(s.problems().is_empty());
        s.define("A", "y::A", |_| TypeDef::Enum(vec![]));
        assert_eq!(
            s.problems(),
            ["schema type `A` is defined by both `x::A` and `y::A`"]
        );
    }
}
