//! Substitution groups: a reference to a head is the choice of the head (unless abstract) and
//! its members, transitively, in document order; `block="substitution"` keeps the head alone;
//! the refusals (a cycle, an abstract head with no member, a head as a body part) say where.

use super::*;
use crate::xsd::{Field, TypeDef, TypeRef};

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
    let defs = read_str(&text, "subst.wsdl", &ReadOptions::default()).map_err(|e| e.to_string())?;
    defs.service_model("S", "Q").map_err(|e| e.to_string())
}

const GROUP: &str = r#"<xsd:complexType name="Sq"><xsd:sequence><xsd:element name="side" type="xsd:int"/></xsd:sequence></xsd:complexType>
<xsd:element name="shape" type="xsd:anyType" abstract="true"/>
<xsd:element name="square" type="tns:Sq" substitutionGroup="tns:shape"/>
<xsd:element name="tile" substitutionGroup="tns:square"/>
<xsd:element name="circle" type="xsd:double" substitutionGroup="tns:shape"/>"#;

#[test]
fn a_reference_to_a_head_is_the_choice_of_its_members_in_document_order() {
    let m = lower(
        GROUP,
        r#"<xsd:sequence><xsd:element name="t" type="xsd:string"/><xsd:element ref="tns:shape" minOccurs="0" maxOccurs="unbounded"/></xsd:sequence>"#,
    )
    .unwrap();
    let field = &m.operations[0].input[1];
    // The abstract head is not an alternative; `tile` (a member of a member) comes in
    // document order, with its head's type.
    assert_eq!(field.name, "$choice:square|tile|circle");
    assert!(field.ty.optional && field.ty.repeated);
    // Named after the head, not its first member.
    assert_eq!(field.ty.name.local, "ShapeChoice");
    let Some(TypeDef::Choice(alts)) = m.schema.get(&field.ty.name.local) else {
        panic!("{:?}", m.schema.types())
    };
    let sq = TypeRef::new(soapstone_codec::QName::new("urn:t", "Sq"));
    assert_eq!(
        alts,
        &[
            Field::new("square", sq.clone()),
            Field::new("tile", sq),
            Field::new("circle", TypeRef::xsd("double")),
        ]
    );
}

#[test]
fn a_concrete_head_comes_first_and_a_blocked_or_lone_head_is_itself() {
    let m = lower(
        r#"<xsd:element name="note" type="xsd:string"/>
           <xsd:element name="warning" type="xsd:int" substitutionGroup="tns:note"/>
           <xsd:element name="fixed" type="xsd:int" block="substitution"/>
           <xsd:element name="loose" type="xsd:int" substitutionGroup="tns:fixed"/>
           <xsd:element name="label" type="xsd:string"/>"#,
        r#"<xsd:sequence><xsd:element name="t" type="xsd:string"/><xsd:element ref="tns:note"/><xsd:element ref="tns:fixed" minOccurs="0"/><xsd:element ref="tns:label"/></xsd:sequence>"#,
    )
    .unwrap();
    let names: Vec<&str> = m.operations[0]
        .input
        .iter()
        .map(|p| p.name.as_str())
        .collect();
    assert_eq!(names, ["t", "$choice:note|warning", "fixed", "label"]);
    assert!(!m.operations[0].input[1].ty.optional);
    assert!(m.operations[0].input[2].ty.optional);
}

#[test]
fn a_head_inside_a_choice_adds_its_members_to_it() {
    let m = lower(
        GROUP,
        r#"<xsd:sequence><xsd:element name="t" type="xsd:string"/><xsd:choice><xsd:element name="none" type="xsd:string"/><xsd:element ref="tns:shape"/></xsd:choice></xsd:sequence>"#,
    )
    .unwrap();
    assert_eq!(
        m.operations[0].input[1].name,
        "$choice:none|square|tile|circle"
    );
}

#[test]
fn a_cycle_of_substitution_groups_is_refused_where_it_closes() {
    let e = lower(
        r#"<xsd:element name="a" type="xsd:int" substitutionGroup="tns:b"/>
<xsd:element name="b" type="xsd:int" substitutionGroup="tns:a"/>"#,
        r#"<xsd:sequence><xsd:element name="t" type="xsd:string"/><xsd:element ref="tns:a"/></xsd:sequence>"#,
    )
    .unwrap_err();
    assert!(e.starts_with("subst.wsdl:3:"), "{e}");
    assert!(
        e.contains("element `a` is in its own substitution group: a → b → a"),
        "{e}"
    );
}

#[test]
fn an_abstract_head_no_element_may_stand_for_is_refused() {
    for types in [
        r#"<xsd:element name="shape" type="xsd:int" abstract="true"/>"#,
        r##"<xsd:element name="shape" type="xsd:int" abstract="true" block="#all"/>
           <xsd:element name="c" type="xsd:int" substitutionGroup="tns:shape"/>"##,
    ] {
        let e = lower(
            types,
            r#"<xsd:sequence><xsd:element name="t" type="xsd:string"/><xsd:element ref="tns:shape"/></xsd:sequence>"#,
        )
        .unwrap_err();
        assert!(e.starts_with("subst.wsdl:"), "{e}");
        assert!(
            e.contains("element `shape` is abstract and its substitution group has no member that may stand for it"),
            "{e}"
        );
    }
}

#[test]
fn a_head_as_a_message_part_or_in_a_sequence_alternative_is_refused() {
    let text = wsdl_with(GROUP, "<xsd:sequence/>").replace(
        r#"<part name="p" element="tns:op"/>"#,
        r#"<part name="p" element="tns:shape"/>"#,
    );
    let defs = read_str(&text, "subst.wsdl", &ReadOptions::default()).unwrap();
    let e = defs.service_model("S", "Q").unwrap_err().to_string();
    assert!(
        e.contains("part `p` names the element `shape`, the head of a substitution group"),
        "{e}"
    );
    // A member is an element of its own.
    let text = wsdl_with(GROUP, "<xsd:sequence/>").replace(
        r#"<part name="p" element="tns:op"/>"#,
        r#"<part name="p" element="tns:tile"/>"#,
    );
    let defs = read_str(&text, "subst.wsdl", &ReadOptions::default()).unwrap();
    defs.service_model("S", "Q").unwrap();

    let e = lower(
        GROUP,
        r#"<xsd:sequence><xsd:element name="t" type="xsd:string"/><xsd:choice maxOccurs="unbounded"><xsd:element name="n" type="xsd:int"/>
           <xsd:sequence><xsd:element name="first" type="xsd:int"/><xsd:element ref="tns:shape"/></xsd:sequence></xsd:choice></xsd:sequence>"#,
    )
    .unwrap_err();
    assert!(
        e.contains("sequence alternative refers to the head of a substitution group (`shape`)"),
        "{e}"
    );
}

#[test]
fn members_in_a_second_schema_join_and_members_of_another_namespace_are_refused() {
    let with = |schema: &str| {
        let text = wsdl_with(
            GROUP,
            r#"<xsd:sequence><xsd:element name="t" type="xsd:string"/><xsd:element ref="tns:shape"/></xsd:sequence>"#,
        )
        .replace("</xsd:schema></types>", &format!("</xsd:schema>{schema}</types>"));
        let defs = read_str(&text, "subst.wsdl", &ReadOptions::default()).unwrap();
        defs.service_model("S", "Q").map_err(|e| e.to_string())
    };
    let m = with(
        r#"<xsd:schema targetNamespace="urn:t" elementFormDefault="qualified"><xsd:element name="hex" type="xsd:int" substitutionGroup="tns:shape"/></xsd:schema>"#,
    )
    .unwrap();
    assert_eq!(
        m.operations[0].input[1].name,
        "$choice:square|tile|circle|hex"
    );
    let e = with(
        r#"<xsd:schema targetNamespace="urn:o" elementFormDefault="qualified"><xsd:element name="hex" type="xsd:int" substitutionGroup="tns:shape"/></xsd:schema>"#,
    )
    .unwrap_err();
    assert!(
        e.contains("the element `{urn:o}hex` of a substitution group (declared at subst.wsdl:10) is in another namespace than the type's elements"),
        "{e}"
    );
}

#[test]
fn inspect_lists_the_elements_that_may_stand_for_a_head() {
    let text = wsdl_with(
        GROUP,
        r#"<xsd:sequence><xsd:element name="t" type="xsd:string"/><xsd:element ref="tns:shape" maxOccurs="2"/></xsd:sequence>"#,
    );
    let defs = read_str(&text, "subst.wsdl", &ReadOptions::default()).unwrap();
    let out = defs.inspect_text();
    assert!(
        out.contains("op(t: xsd:string, square: ns0:Sq[], tile: ns0:Sq[], circle: xsd:double[])"),
        "{out}"
    );
}

#[test]
fn a_head_that_may_repeat_inside_a_choice_is_refused() {
    let e = lower(
        GROUP,
        r#"<xsd:sequence><xsd:element name="t" type="xsd:string"/><xsd:choice><xsd:element name="n" type="xsd:int"/><xsd:element ref="tns:shape" maxOccurs="2"/></xsd:choice></xsd:sequence>"#,
    )
    .unwrap_err();
    assert!(e.starts_with("subst.wsdl:"), "{e}");
    assert!(
        e.contains("a `choice` alternative that refers to the head of a substitution group (`shape`) may be absent or repeat"),
        "{e}"
    );
}

#[test]
fn a_member_reached_through_its_head_is_checked() {
    let text = wsdl_with(
        &format!(
            r#"{GROUP}<xsd:element name="bad" type="tns:Nowhere" substitutionGroup="tns:shape"/>"#
        ),
        r#"<xsd:sequence><xsd:element name="t" type="xsd:string"/><xsd:element ref="tns:shape"/></xsd:sequence>"#,
    );
    let defs = read_str(&text, "subst.wsdl", &ReadOptions::default()).unwrap();
    assert!(
        defs.problems.iter().any(|p| p
            .to_string()
            .contains("type `{urn:t}Nowhere` is not defined")),
        "{:?}",
        defs.problems
    );
}

#[test]
fn every_reference_to_a_head_shares_one_choice_type() {
    let m = lower(
        &format!(
            r#"{GROUP}<xsd:complexType name="D"><xsd:sequence><xsd:element name="k" type="xsd:int"/><xsd:element ref="tns:shape" minOccurs="0"/></xsd:sequence></xsd:complexType>"#
        ),
        r#"<xsd:sequence><xsd:element name="t" type="xsd:string"/><xsd:element ref="tns:shape"/><xsd:element name="d" type="tns:D"/></xsd:sequence>"#,
    )
    .unwrap();
    let input = &m.operations[0].input;
    assert_eq!(input[1].ty.name.local, "ShapeChoice");
    assert!(!input[1].ty.optional);
    let Some(TypeDef::Struct(fields)) = m.schema.get("D") else {
        panic!("{:?}", m.schema.types())
    };
    assert_eq!(fields[1].ty.name.local, "ShapeChoice");
    assert!(fields[1].ty.optional);
    let choices = m
        .schema
        .types()
        .iter()
        .filter(|t| matches!(t.def, TypeDef::Choice(_)))
        .count();
    assert_eq!(choices, 1, "{:?}", m.schema.types());
}

#[test]
fn more_elements_standing_for_heads_than_the_limit_is_refused() {
    // A chain: each element a member of the one before, so heads hold 1 + 2 + ... members.
    let mut types = String::from(r#"<xsd:element name="e0" type="xsd:int"/>"#);
    for i in 1..200 {
        types.push_str(&format!(
            r#"<xsd:element name="e{i}" substitutionGroup="tns:e{}"/>"#,
            i - 1
        ));
    }
    let text = wsdl_with(&types, "<xsd:sequence/>");
    let options = ReadOptions {
        max_substitutes: 1_000,
        ..ReadOptions::default()
    };
    let e = read_str(&text, "subst.wsdl", &options)
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("subst.wsdl:3:"), "{e}");
    assert!(
        e.contains("past the limit of 1000 (ReadOptions::max_substitutes)"),
        "{e}"
    );
    // A chain of 100 (5,050 in all) reads under the default limit.
    let mut types = String::from(r#"<xsd:element name="e0" type="xsd:int"/>"#);
    for i in 1..100 {
        types.push_str(&format!(
            r#"<xsd:element name="e{i}" substitutionGroup="tns:e{}"/>"#,
            i - 1
        ));
    }
    let text = wsdl_with(&types, "<xsd:sequence/>");
    read_str(&text, "subst.wsdl", &ReadOptions::default()).unwrap();
}
