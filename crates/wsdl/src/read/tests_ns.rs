//! Elements of another namespace than the type holding them, and per-element `form`: an
//! element inherited from a base type of another schema, a `ref` to another schema's global
//! element, `form="unqualified"` in a qualified schema and a `ref` to a global element from an
//! unqualified one; each becomes a field named `{ns}name` (`{}name`), and the WSDL writer
//! writes them back (a `ref` and a global element, or `form`) so that they read to the same
//! model.

use super::*;
use crate::xsd::{Field, TypeDef};

const DOC: &str = r#"<?xml version="1.0"?>
<definitions xmlns="http://schemas.xmlsoap.org/wsdl/" xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/"
  xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:tns="urn:a" xmlns:c="urn:c" targetNamespace="urn:a">
  <types>
    <xsd:schema targetNamespace="urn:c" elementFormDefault="qualified">
      <xsd:element name="Tag" type="xsd:string"/>
      <xsd:complexType name="Phone">
        <xsd:sequence>
          <xsd:element name="PhoneData">
            <xsd:complexType><xsd:sequence><xsd:element name="Number" type="xsd:string"/></xsd:sequence></xsd:complexType>
          </xsd:element>
        </xsd:sequence>
      </xsd:complexType>
    </xsd:schema>
    <xsd:schema targetNamespace="urn:a" elementFormDefault="FORM">
      <xsd:import namespace="urn:c"/>
      <xsd:complexType name="NamePhone">
        <xsd:complexContent>
          <xsd:extension base="c:Phone">
            <xsd:sequence>
              <xsd:element name="ids" type="xsd:string" minOccurs="0" maxOccurs="unbounded"/>
              <xsd:element ref="c:Tag" minOccurs="0"/>
              <xsd:element name="note" type="xsd:string" form="OTHER"/>
            </xsd:sequence>
          </xsd:extension>
        </xsd:complexContent>
      </xsd:complexType>
      <xsd:element name="update">
        <xsd:complexType><xsd:sequence>
          <xsd:element name="phone" type="tns:NamePhone"/>
          <xsd:element ref="c:Tag" maxOccurs="unbounded"/>
        </xsd:sequence></xsd:complexType>
      </xsd:element>
      <xsd:element name="updateResponse">
        <xsd:complexType><xsd:sequence><xsd:element name="ok" type="xsd:boolean"/></xsd:sequence></xsd:complexType>
      </xsd:element>
    </xsd:schema>
  </types>
  <message name="updateIn"><part name="parameters" element="tns:update"/></message>
  <message name="updateOut"><part name="parameters" element="tns:updateResponse"/></message>
  <portType name="P"><operation name="update"><input message="tns:updateIn"/><output message="tns:updateOut"/></operation></portType>
  <binding name="B" type="tns:P"><soap:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>
    <operation name="update"><soap:operation soapAction="update"/><input><soap:body use="literal"/></input><output><soap:body use="literal"/></output></operation>
  </binding>
  <service name="S"><port name="Port" binding="tns:B"><soap:address location="http://127.0.0.1:9/s"/></port></service>
</definitions>"#;

fn lower_text(text: &str) -> Result<crate::ServiceModel, String> {
    let defs = read_str(text, "ns.wsdl", &ReadOptions::default()).map_err(|e| e.to_string())?;
    defs.service_model("S", "Port").map_err(|e| e.to_string())
}

fn doc(qualified: bool) -> String {
    let (form, other) = if qualified {
        ("qualified", "unqualified")
    } else {
        ("unqualified", "qualified")
    };
    DOC.replace("FORM", form).replace("OTHER", other)
}

fn names(m: &crate::ServiceModel, ty: &str) -> Vec<String> {
    match m.schema.get(ty) {
        Some(TypeDef::Struct(f)) => f.iter().map(|f: &Field| f.name.clone()).collect(),
        other => panic!("{ty}: {other:?}"),
    }
}

#[test]
fn elements_of_another_namespace_or_form_carry_their_own() {
    let m = lower_text(&doc(true)).unwrap();
    assert!(m.qualified);
    assert_eq!(
        names(&m, "NamePhone"),
        ["{urn:c}PhoneData", "ids", "{urn:c}Tag", "{}note"]
    );
    // The anonymous type of a qualified element of `urn:c` is of `urn:c`: its children are.
    let data = m
        .schema
        .types()
        .iter()
        .find(|t| t.name == "PhoneData")
        .unwrap();
    assert_eq!(data.namespace, "urn:c");
    assert_eq!(names(&m, "PhoneData"), ["Number"]);
    let op = &m.operations[0];
    let parts: Vec<&str> = op.input.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(parts, ["phone", "{urn:c}Tag"]);

    // Unqualified: the qualified ones carry their namespace, `note` (now qualified by its
    // `form`) too, and `urn:c`'s qualified `Number` as well.
    let m = lower_text(&doc(false)).unwrap();
    assert!(!m.qualified);
    assert_eq!(
        names(&m, "NamePhone"),
        ["{urn:c}PhoneData", "ids", "{urn:c}Tag", "{urn:a}note"]
    );
    assert_eq!(names(&m, "PhoneData"), ["{urn:c}Number"]);
}

#[test]
fn the_writer_publishes_refs_and_forms_that_read_back_to_the_same_model() {
    for qualified in [true, false] {
        let m = lower_text(&doc(qualified)).unwrap();
        let text = crate::wsdl(&m, "http://127.0.0.1:9/s");
        assert!(
            text.contains(r#"<xsd:element ref="q:Tag" xmlns:q="urn:c""#),
            "{text}"
        );
        assert!(
            text.contains(r#"<xsd:element name="PhoneData" type="q:PhoneData" xmlns:q="urn:c"/>"#),
            "{text}"
        );
        let port = text.split("<wsdl:port name=\"").nth(1).unwrap();
        let port = &port[..port.find('"').unwrap()];
        let defs = read_str(&text, "ns.wsdl", &ReadOptions::default()).unwrap();
        let again = match defs.service_model("S", port) {
            Ok(a) => a,
            Err(e) => panic!("{e}\n{text}"),
        };
        assert_eq!(again.qualified, m.qualified);
        for ty in ["NamePhone", "PhoneData"] {
            assert_eq!(names(&again, ty), names(&m, ty), "{ty}\n{text}");
        }
        assert_eq!(again.operations[0].input, m.operations[0].input, "{text}");
    }
}

#[test]
fn a_choice_alternative_of_another_namespace_is_refused_with_its_line() {
    let text = doc(true).replace(
        r#"<xsd:element ref="c:Tag" minOccurs="0"/>"#,
        r#"<xsd:choice><xsd:element ref="c:Tag"/><xsd:element name="code" type="xsd:int"/></xsd:choice>"#,
    );
    let e = lower_text(&text).unwrap_err();
    assert!(
        e.contains("ns.wsdl:")
            && e.contains("the `choice` alternative `{urn:c}Tag` is in another namespace"),
        "{e}"
    );
}

#[test]
fn two_elements_of_one_local_name_in_one_type_are_refused() {
    let text = doc(true).replace(
        r#"<xsd:element ref="c:Tag" minOccurs="0"/>"#,
        r#"<xsd:element ref="c:Tag" minOccurs="0"/><xsd:element name="Tag" type="xsd:int"/>"#,
    );
    let e = lower_text(&text).unwrap_err();
    assert!(
        e.contains("`NamePhone` has two elements named `Tag` in different namespaces: they are read by local name"),
        "{e}"
    );
}
