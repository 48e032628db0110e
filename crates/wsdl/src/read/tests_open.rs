//! Lowering open content: `xsd:any`, `anyType`, `choice`, optional sequences, `list`, `union`
//! and enumerations of enumerations, and the refusals that remain, with file and line.

use super::*;
use crate::xsd::{Field, TypeDef, TypeRef, XSD_NS};

/// A document/literal WSDL whose one operation `op` takes `<op>` of `request` (the inside of
/// its complexType) with `types` beside it.
fn wsdl_with(types: &str, request: &str) -> String {
    format!(
        r#"<definitions xmlns="http://schemas.xmlsoap.org/wsdl/" xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:tns="urn:t" targetNamespace="urn:t">
<types><xsd:schema targetNamespace="urn:t" elementFormDefault="qualified">
{types}
<xsd:element name="op"><xsd:complexType>{request}</xsd:complexType></xsd:element>
<xsd:element name="opResponse"><xsd:complexType><xsd:sequence/></xsd:complexType></xsd:element>
</xsd:schema></types>
<message name="in"><part name="p" element="tns:op"/></message>
<message name="out"><part name="p" element="tns:opResponse"/></message>
<portType name="P"><operation name="op"><input message="tns:in"/><output message="tns:out"/></operation></portType>
<binding name="B" type="tns:P"><soap:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>
<operation name="op"><soap:operation soapAction="a"/><input><soap:body use="literal"/></input><output><soap:body use="literal"/></output></operation></binding>
<service name="S"><port name="Q" binding="tns:B"><soap:address location="http://x/"/></port></service>
</definitions>"#
    )
}

fn lower(types: &str, request: &str) -> Result<crate::ServiceModel, String> {
    let text = wsdl_with(types, request);
    let defs = read_str(&text, "open.wsdl", &ReadOptions::default()).map_err(|e| e.to_string())?;
    defs.service_model("S", "Q").map_err(|e| e.to_string())
}

fn any_type() -> TypeRef {
    TypeRef::xsd("anyType")
}

#[test]
fn any_and_any_type_are_raw_values() {
    let m = lower(
        r#"<xsd:element name="free"/>"#,
        r#"<xsd:sequence><xsd:element name="a"/><xsd:element name="b" type="xsd:anyType" minOccurs="0"/>
           <xsd:element ref="tns:free"/><xsd:any minOccurs="0" maxOccurs="unbounded"/></xsd:sequence>"#,
    )
    .unwrap();
    let names: Vec<&str> = m.operations[0]
        .input
        .iter()
        .map(|p| p.name.as_str())
        .collect();
    assert_eq!(names, ["a", "b", "free", "$any"]);
    assert_eq!(m.operations[0].input[0].ty, any_type());
    assert!(m.operations[0].input[1].ty.optional);
    let any = &m.operations[0].input[3].ty;
    assert_eq!(any.name.local, "anyType");
    assert!(any.optional && any.repeated);
}

#[test]
fn a_wrapper_with_no_type_holds_any_elements() {
    let text = wsdl_with("", "<xsd:sequence/>").replace(
        r#"<xsd:element name="op"><xsd:complexType><xsd:sequence/></xsd:complexType></xsd:element>"#,
        r#"<xsd:element name="op"/>"#,
    );
    let defs = read_str(&text, "open.wsdl", &ReadOptions::default()).unwrap();
    let m = defs.service_model("S", "Q").unwrap();
    assert_eq!(m.operations[0].input[0].name, "$any");
}

#[test]
fn a_choice_is_a_type_of_alternatives_and_a_field_that_names_them() {
    let m = lower(
        r#"<xsd:complexType name="Shape"><xsd:sequence><xsd:element name="name" type="xsd:string"/>
             <xsd:choice><xsd:element name="circle" type="xsd:double"/><xsd:element name="square" type="xsd:int" minOccurs="0"/></xsd:choice>
             <xsd:choice minOccurs="0" maxOccurs="unbounded"><xsd:element name="x" type="xsd:int"/><xsd:element name="y" type="xsd:int" maxOccurs="3"/></xsd:choice>
           </xsd:sequence></xsd:complexType>"#,
        r#"<xsd:sequence><xsd:element name="s" type="tns:Shape"/></xsd:sequence>"#,
    )
    .unwrap();
    let Some(TypeDef::Struct(fields)) = m.schema.get("Shape") else {
        panic!("{:?}", m.schema.types())
    };
    assert_eq!(fields[1].name, "$choice:circle|square");
    // An optional alternative makes the choice optional.
    assert!(fields[1].ty.optional && !fields[1].ty.repeated);
    assert_eq!(fields[2].name, "$choice:x|y");
    assert!(fields[2].ty.optional && fields[2].ty.repeated);
    let Some(TypeDef::Choice(alts)) = m.schema.get(&fields[1].ty.name.local) else {
        panic!("{:?}", m.schema.types())
    };
    assert_eq!(fields[1].ty.name.local, "CircleChoice");
    assert_eq!(
        alts,
        &[
            Field::new("circle", TypeRef::xsd("double")),
            Field::new("square", TypeRef::xsd("int")),
        ]
    );
    let Some(TypeDef::Choice(alts)) = m.schema.get("XChoice") else {
        panic!("{:?}", m.schema.types())
    };
    assert!(alts[1].ty.repeated, "{alts:?}");
}

#[test]
fn an_optional_sequence_makes_its_elements_optional() {
    let m = lower(
        "",
        r#"<xsd:sequence><xsd:element name="a" type="xsd:int"/>
           <xsd:sequence minOccurs="0"><xsd:element name="b" type="xsd:int"/><xsd:element name="c" type="xsd:int"/></xsd:sequence></xsd:sequence>"#,
    )
    .unwrap();
    let opt: Vec<bool> = m.operations[0]
        .input
        .iter()
        .map(|p| p.ty.optional)
        .collect();
    assert_eq!(opt, [false, true, true]);
}

#[test]
fn a_choice_of_one_sequence_is_that_sequence() {
    let m = lower(
        "",
        r#"<xsd:choice><xsd:sequence><xsd:element name="a" type="xsd:int"/><xsd:element name="b" type="xsd:int"/></xsd:sequence></xsd:choice>"#,
    )
    .unwrap();
    let names: Vec<&str> = m.operations[0]
        .input
        .iter()
        .map(|p| p.name.as_str())
        .collect();
    assert_eq!(names, ["a", "b"]);
}

#[test]
fn lists_unions_and_enumerations_of_enumerations() {
    let m = lower(
        r#"<xsd:simpleType name="Ints"><xsd:list itemType="xsd:int"/></xsd:simpleType>
           <xsd:simpleType name="Colour"><xsd:restriction base="xsd:string"><xsd:enumeration value="red"/><xsd:enumeration value="blue"/></xsd:restriction></xsd:simpleType>
           <xsd:simpleType name="Red"><xsd:restriction base="tns:Colour"><xsd:enumeration value="red"/></xsd:restriction></xsd:simpleType>
           <xsd:simpleType name="Alias"><xsd:restriction base="tns:Colour"/></xsd:simpleType>
           <xsd:simpleType name="Colours"><xsd:list itemType="tns:Colour"/></xsd:simpleType>
           <xsd:simpleType name="Mixed"><xsd:union memberTypes="xsd:date xsd:int"/></xsd:simpleType>
           <xsd:simpleType name="Numbers"><xsd:union memberTypes="xsd:int"><xsd:simpleType><xsd:restriction base="xsd:int"/></xsd:simpleType></xsd:union></xsd:simpleType>"#,
        r#"<xsd:sequence><xsd:element name="i" type="tns:Ints"/><xsd:element name="r" type="tns:Red"/>
           <xsd:element name="al" type="tns:Alias"/><xsd:element name="cs" type="tns:Colours"/>
           <xsd:element name="m" type="tns:Mixed"/><xsd:element name="n" type="tns:Numbers"/>
           <xsd:element name="inline"><xsd:simpleType><xsd:list itemType="xsd:double"/></xsd:simpleType></xsd:element></xsd:sequence>"#,
    )
    .unwrap();
    let tys: Vec<&str> = m.operations[0]
        .input
        .iter()
        .map(|p| p.ty.name.local.as_str())
        .collect();
    assert_eq!(
        tys,
        [
            "ListOfint",
            "Red",
            "Alias",
            "ListOfColour",
            "string",
            "int",
            "ListOfdouble"
        ]
    );
    assert_eq!(
        m.schema.get("ListOfint"),
        Some(&TypeDef::SimpleList(TypeRef::xsd("int")))
    );
    assert_eq!(
        m.schema.get("Red"),
        Some(&TypeDef::Enum(vec!["red".into()]))
    );
    assert_eq!(
        m.schema.get("Alias"),
        Some(&TypeDef::Enum(vec!["red".into(), "blue".into()]))
    );
    assert_eq!(m.operations[0].input[4].ty.name.namespace, XSD_NS);
}

#[test]
fn a_choice_with_a_sequence_alternative_is_its_elements_each_optional() {
    let m = lower(
        "",
        r#"<xsd:sequence><xsd:element name="id" type="xsd:int"/><xsd:choice>
             <xsd:sequence><xsd:element name="a" type="xsd:int"/><xsd:element name="b" type="xsd:string" maxOccurs="unbounded"/></xsd:sequence>
             <xsd:element name="c" type="xsd:int"/>
           </xsd:choice></xsd:sequence>"#,
    )
    .unwrap();
    let parts = &m.operations[0].input;
    let names: Vec<&str> = parts.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["id", "a", "b", "c"]);
    assert!(!parts[0].ty.optional);
    assert!(parts[1..].iter().all(|p| p.ty.optional), "{parts:?}");
    assert!(parts[2].ty.repeated);
}

#[test]
fn what_the_model_cannot_say_is_refused_with_the_line() {
    // A repeated choice with a nested choice among its alternatives.
    let e = lower(
        "",
        "<xsd:sequence><xsd:choice maxOccurs=\"unbounded\"><xsd:choice><xsd:element name=\"a\" type=\"xsd:int\"/><xsd:element name=\"c\" type=\"xsd:int\"/></xsd:choice>\n<xsd:element name=\"b\" type=\"xsd:int\"/></xsd:choice></xsd:sequence>",
    )
    .unwrap_err();
    assert!(e.starts_with("open.wsdl:4:"), "{e}");
    assert!(
        e.contains("a `choice` whose alternative is not an element or a sequence of elements"),
        "{e}"
    );
    // A sequence alternative whose element is also another alternative.
    let e = lower(
        "",
        r#"<xsd:sequence><xsd:choice maxOccurs="unbounded"><xsd:sequence><xsd:element name="a" type="xsd:int"/><xsd:element name="b" type="xsd:int"/></xsd:sequence><xsd:element name="b" type="xsd:int"/></xsd:choice></xsd:sequence>"#,
    )
    .unwrap_err();
    assert!(
        e.contains("element `b` occurs twice in one `choice`"),
        "{e}"
    );
    // A sequence alternative whose first element may be absent.
    let e = lower(
        "",
        r#"<xsd:sequence><xsd:choice maxOccurs="unbounded"><xsd:sequence><xsd:element name="a" type="xsd:int" minOccurs="0"/><xsd:element name="b" type="xsd:int"/></xsd:sequence><xsd:element name="c" type="xsd:int"/></xsd:choice></xsd:sequence>"#,
    )
    .unwrap_err();
    assert!(e.contains("first element `a` may be absent"), "{e}");
    let e = lower(
        "",
        r#"<xsd:sequence><xsd:element name="a" type="xsd:int"/><xsd:choice><xsd:element name="a" type="xsd:int"/><xsd:element name="b" type="xsd:int"/></xsd:choice></xsd:sequence>"#,
    )
    .unwrap_err();
    assert!(e.contains("element `a` occurs twice in one type"), "{e}");
    let e = lower(
        "",
        r#"<xsd:sequence><xsd:any/><xsd:element name="a" type="xsd:int"/><xsd:any/></xsd:sequence>"#,
    )
    .unwrap_err();
    assert!(e.contains("element `$any` occurs twice in one type"), "{e}");
    let e = lower(
        r#"<xsd:complexType name="T"><xsd:sequence><xsd:element name="x" type="xsd:int"/></xsd:sequence></xsd:complexType>
           <xsd:simpleType name="L"><xsd:list itemType="tns:T"/></xsd:simpleType>"#,
        r#"<xsd:sequence><xsd:element name="l" type="tns:L"/></xsd:sequence>"#,
    )
    .unwrap_err();
    assert!(
        e.contains("a list of `T`, which is not a simple type"),
        "{e}"
    );
    let e = lower(
        "",
        r#"<xsd:sequence maxOccurs="unbounded"><xsd:element name="a" type="xsd:int"/></xsd:sequence>"#,
    );
    assert!(e.is_err());
}

#[test]
fn a_repeated_choice_with_a_sequence_alternative_is_a_vec_of_an_enum() {
    let m = lower(
        "",
        r#"<xsd:sequence><xsd:element name="id" type="xsd:int"/><xsd:choice maxOccurs="unbounded">
             <xsd:element name="point" type="xsd:int"/>
             <xsd:sequence><xsd:element name="start" type="xsd:int"/><xsd:element name="end" type="xsd:int" minOccurs="0"/></xsd:sequence>
           </xsd:choice></xsd:sequence>"#,
    )
    .unwrap();
    let parts = &m.operations[0].input;
    assert_eq!(parts[1].name, "$choice:point|start");
    assert!(parts[1].ty.repeated);
    let Some(TypeDef::Choice(alts)) = m.schema.get(&parts[1].ty.name.local) else {
        panic!("{parts:?}")
    };
    assert_eq!(alts[1].name, "start");
    let Some(TypeDef::Sequence(elements)) = m.schema.get(&alts[1].ty.name.local) else {
        panic!("{alts:?}")
    };
    let names: Vec<&str> = elements.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["start", "end"]);
    assert!(elements[1].ty.optional);
    // The served WSDL writes the sequence inline in the choice and reads back the same.
    let wsdl = crate::wsdl(&m, "http://x/");
    assert!(wsdl.contains("<xsd:sequence>"), "{wsdl}");
    let defs = read_str(&wsdl, "again.wsdl", &ReadOptions::default()).unwrap();
    let again = defs.service_model("S", defs.default_port("S").unwrap());
    let again = again.unwrap_or_else(|e| panic!("{e}\n{wsdl}"));
    assert_eq!(again.operations[0].input, m.operations[0].input);
    assert_eq!(
        again.schema.get(&alts[1].ty.name.local),
        m.schema.get(&alts[1].ty.name.local)
    );
}
