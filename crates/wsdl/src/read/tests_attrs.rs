//! Lowering attributes and text content: local attributes, references to global ones,
//! attribute groups, inheritance through extension and restriction with `use="prohibited"`,
//! `simpleContent` (through a derived simple-content type), `mixed` without elements (text) and
//! with elements (the element kept whole as raw XML); what the
//! model cannot carry is refused with its line; the WSDL writer writes it all back so that it
//! reads to the same model.

use super::*;
use crate::wsdl;
use crate::xsd::{Field, TypeDef, TypeRef, XSD_NS};

const DOC: &str = r#"<?xml version="1.0"?>
<definitions xmlns="http://schemas.xmlsoap.org/wsdl/" xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/"
  xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:tns="urn:a" targetNamespace="urn:a">
  <types>
    <xsd:schema targetNamespace="urn:a" elementFormDefault="qualified">
      <xsd:attribute name="lang" type="xsd:string"/>
      <xsd:attributeGroup name="Audit">
        <xsd:attribute name="by" type="xsd:string" use="required"/>
        <xsd:attribute name="at" type="xsd:dateTime"/>
      </xsd:attributeGroup>
      <xsd:simpleType name="Currency">
        <xsd:restriction base="xsd:string">
          <xsd:enumeration value="EUR"/><xsd:enumeration value="USD"/>
        </xsd:restriction>
      </xsd:simpleType>
      <xsd:complexType name="Amount">
        <xsd:simpleContent>
          <xsd:extension base="xsd:decimal">
            <xsd:attribute name="currency" type="tns:Currency" use="required"/>
            <xsd:attribute name="exact" type="xsd:boolean" default="true"/>
          </xsd:extension>
        </xsd:simpleContent>
      </xsd:complexType>
      <xsd:complexType name="Price">
        <xsd:simpleContent>
          <xsd:extension base="tns:Amount">
            <xsd:attribute name="net" type="xsd:boolean"/>
          </xsd:extension>
        </xsd:simpleContent>
      </xsd:complexType>
      <xsd:complexType name="Base">
        <xsd:sequence><xsd:element name="id" type="xsd:int"/></xsd:sequence>
        <xsd:attribute name="version" type="xsd:int" fixed="2"/>
        <xsd:attribute name="flag" type="xsd:boolean"/>
      </xsd:complexType>
      <xsd:complexType name="Item">
        <xsd:complexContent>
          <xsd:extension base="tns:Base">
            <xsd:sequence>
              <xsd:element name="price" type="tns:Price"/>
              <xsd:element name="note" type="tns:Note"/>
            </xsd:sequence>
            <xsd:attributeGroup ref="tns:Audit"/>
            <xsd:attribute ref="tns:lang"/>
            <xsd:attribute name="kind">
              <xsd:simpleType>
                <xsd:restriction base="xsd:string">
                  <xsd:enumeration value="a"/><xsd:enumeration value="b"/>
                </xsd:restriction>
              </xsd:simpleType>
            </xsd:attribute>
            <xsd:anyAttribute/>
          </xsd:extension>
        </xsd:complexContent>
      </xsd:complexType>
      <xsd:complexType name="Note" mixed="true">
        <xsd:attribute name="code" type="xsd:string"/>
      </xsd:complexType>
      <xsd:element name="get"><xsd:complexType><xsd:sequence>
        <xsd:element name="item" type="tns:Item"/>
      </xsd:sequence></xsd:complexType></xsd:element>
      <xsd:element name="getResponse"><xsd:complexType><xsd:sequence>
        <xsd:element name="total" type="tns:Amount"/>
      </xsd:sequence></xsd:complexType></xsd:element>
      EXTRA
    </xsd:schema>
  </types>
  <message name="getIn"><part name="parameters" element="tns:get"/></message>
  <message name="getOut"><part name="parameters" element="tns:getResponse"/></message>
  <portType name="P"><operation name="get"><input message="tns:getIn"/><output message="tns:getOut"/></operation></portType>
  <binding name="B" type="tns:P"><soap:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>
    <operation name="get"><soap:operation soapAction="get"/><input><soap:body use="literal"/></input><output><soap:body use="literal"/></output></operation>
  </binding>
  <service name="S"><port name="Port" binding="tns:B"><soap:address location="http://127.0.0.1:9/s"/></port></service>
</definitions>"#;

fn lower(extra: &str) -> Result<crate::ServiceModel, String> {
    let text = DOC.replace("EXTRA", extra);
    let defs = read_str(&text, "attrs.wsdl", &ReadOptions::default()).map_err(|e| e.to_string())?;
    defs.service_model("S", "Port").map_err(|e| e.to_string())
}

fn fields<'m>(m: &'m crate::ServiceModel, name: &str) -> &'m [Field] {
    match m.schema.get(name) {
        Some(TypeDef::Struct(f)) => f,
        other => panic!("{name}: {other:?}"),
    }
}

fn names(fields: &[Field]) -> Vec<&str> {
    fields.iter().map(|f| f.name.as_str()).collect()
}

#[test]
fn attributes_come_first_with_inherited_grouped_and_referenced_ones() {
    let m = lower("").unwrap();
    let item = fields(&m, "Item");
    assert_eq!(
        names(item),
        [
            "@version",
            "@flag",
            "@by",
            "@at",
            "@{urn:a}lang",
            "@kind",
            // `xsd:anyAttribute`: the other attributes, after the named ones.
            "@*",
            "id",
            "price",
            "note"
        ]
    );
    assert_eq!(item[6].ty.name.local, crate::xsd::ANY_ATTRIBUTE);
    assert_eq!(item[0].fixed.as_deref(), Some("2"));
    assert!(item[1].ty.optional);
    assert!(!item[2].ty.optional, "use=required");
    assert_eq!(item[3].ty.name.local, "dateTime");
    assert_eq!(item[5].ty.name.local, "ItemKind");
    assert!(matches!(m.schema.get("ItemKind"), Some(TypeDef::Enum(v)) if v == &["a", "b"]));
}

#[test]
fn simple_content_is_a_text_field_of_the_base_type() {
    let m = lower("").unwrap();
    let amount = fields(&m, "Amount");
    assert_eq!(names(amount), ["@currency", "@exact", "$text"]);
    assert_eq!(amount[2].ty, TypeRef::xsd("decimal"));
    assert_eq!(amount[1].default.as_deref(), Some("true"));
    assert_eq!(
        amount[0].ty.name,
        soapstone_codec::QName::new("urn:a", "Currency")
    );
    // derived from another simple-content type: its attributes and text type
    let price = fields(&m, "Price");
    assert_eq!(names(price), ["@currency", "@exact", "@net", "$text"]);
    assert_eq!(price[3].ty.name.namespace, XSD_NS);
    // mixed without elements: string text
    assert_eq!(names(fields(&m, "Note")), ["@code", "$text"]);
}

#[test]
fn a_restriction_can_prohibit_an_attribute() {
    let m = lower(
        r#"<xsd:complexType name="Strict"><xsd:simpleContent><xsd:restriction base="tns:Amount">
             <xsd:attribute name="exact" use="prohibited"/>
           </xsd:restriction></xsd:simpleContent></xsd:complexType>
           <xsd:element name="strict" type="tns:Strict"/>"#,
    )
    .unwrap();
    // `Strict` is not used by the operations; lowering it alone shows the rule
    assert!(m.schema.get("Strict").is_none());
    let text = DOC
        .replace(
            "<xsd:element name=\"total\" type=\"tns:Amount\"/>",
            "<xsd:element name=\"total\" type=\"tns:Strict\"/>",
        )
        .replace(
            "EXTRA",
            r#"<xsd:complexType name="Strict"><xsd:simpleContent><xsd:restriction base="tns:Amount">
             <xsd:attribute name="exact" use="prohibited"/>
           </xsd:restriction></xsd:simpleContent></xsd:complexType>"#,
        );
    let defs = read_str(&text, "attrs.wsdl", &ReadOptions::default()).unwrap();
    let m = defs.service_model("S", "Port").unwrap();
    let strict = fields(&m, "Strict");
    assert_eq!(names(strict), ["@currency", "$text"]);
    assert_eq!(strict[1].ty, TypeRef::xsd("decimal"));
}

#[test]
fn mixed_content_with_elements_is_kept_whole_as_raw_xml() {
    // Text between elements has an order no struct of fields keeps: the element whose type
    // is mixed is an `anyType` field (an `xsd::AnyXml`, verbatim), and the mixed type itself
    // is not registered.
    let mixed = DOC.replace(
        r#"<xsd:complexType name="Note" mixed="true">"#,
        r#"<xsd:complexType name="Note" mixed="true"><xsd:sequence><xsd:element name="b" type="xsd:string"/></xsd:sequence>"#,
    ).replace("EXTRA", "");
    let defs = read_str(&mixed, "attrs.wsdl", &ReadOptions::default()).unwrap();
    let m = defs.service_model("S", "Port").unwrap();
    let item = fields(&m, "Item");
    let note = item.iter().find(|f| f.name == "note").unwrap();
    assert_eq!(note.ty.name, soapstone_codec::QName::new(XSD_NS, "anyType"));
    assert!(m.schema.get("Note").is_none());
    // through an extension base too, and the writer says `anyType`, which allows mixed content
    let derived = mixed.replace(
        r#"<xsd:element name="note" type="tns:Note"/>"#,
        r#"<xsd:element name="note" type="tns:Note2"/>"#,
    ).replace(
        "</xsd:schema>",
        r#"<xsd:complexType name="Note2" mixed="true"><xsd:complexContent><xsd:extension base="tns:Note"/></xsd:complexContent></xsd:complexType></xsd:schema>"#,
    );
    let defs = read_str(&derived, "attrs.wsdl", &ReadOptions::default()).unwrap();
    let m = defs.service_model("S", "Port").unwrap();
    let note = fields(&m, "Item")
        .iter()
        .find(|f| f.name == "note")
        .unwrap()
        .clone();
    assert_eq!(note.ty.name.local, "anyType");
    let text = wsdl(&m, "http://127.0.0.1:9/s");
    assert!(
        text.contains(r#"<xsd:element name="note" type="xsd:anyType"/>"#),
        "{text}"
    );
}

#[test]
fn what_the_model_cannot_carry_is_refused_with_its_line() {
    let wrapper = DOC
        .replace(
            "<xsd:element name=\"item\" type=\"tns:Item\"/>\n      </xsd:sequence></xsd:complexType>",
            "<xsd:element name=\"item\" type=\"tns:Item\"/>\n      </xsd:sequence><xsd:attribute name=\"v\" type=\"xsd:int\"/></xsd:complexType>",
        )
        .replace("EXTRA", "");
    // An attribute of the body wrapper is a parameter, before its child elements.
    let defs = read_str(&wrapper, "attrs.wsdl", &ReadOptions::default()).unwrap();
    let m = defs.service_model("S", "Port").unwrap();
    let parts: Vec<&str> = m.operations[0]
        .input
        .iter()
        .map(|p| p.name.as_str())
        .collect();
    assert_eq!(parts[0], "@v", "{parts:?}");
    assert_eq!(m.operations[0].input[0].ty.name.local, "int");
    assert!(m.operations[0].input[0].ty.optional);
    let text = crate::wsdl(&m, "http://127.0.0.1:9/s");
    assert!(
        text.contains(r#"<xsd:attribute name="v" type="xsd:int"/>"#),
        "{text}"
    );

    let complex = DOC
        .replace(
            r#"<xsd:attribute name="code" type="xsd:string"/>"#,
            r#"<xsd:attribute name="code" type="tns:Base"/>"#,
        )
        .replace("EXTRA", "");
    let defs = read_str(&complex, "attrs.wsdl", &ReadOptions::default()).unwrap();
    let e = defs.service_model("S", "Port").unwrap_err().to_string();
    assert!(
        e.contains("attribute `code` has the type `Base`, which is not a simple type"),
        "{e}"
    );
}

#[test]
fn the_writer_writes_attributes_and_simple_content_back() {
    let m = lower("").unwrap();
    let text = wsdl(&m, "http://127.0.0.1:9/s");
    for expected in [
        r#"<xsd:attribute name="version" type="xsd:int" fixed="2"/>"#,
        r#"<xsd:attribute name="by" type="xsd:string" use="required"/>"#,
        r#"<xsd:attribute name="lang" type="xsd:string" form="qualified"/>"#,
        r#"<xsd:attribute name="exact" type="xsd:boolean" default="true"/>"#,
        r#"<xsd:extension base="xsd:decimal">"#,
        "<xsd:simpleContent>",
    ] {
        assert!(text.contains(expected), "{expected}\n{text}");
    }
    // and reads back to the same model
    let defs = read_str(&text, "written.wsdl", &ReadOptions::default()).unwrap();
    let again = defs
        .service_model(&m.name, &defs.services[0].ports[0].name)
        .unwrap();
    for t in ["Item", "Amount", "Price", "Note"] {
        assert_eq!(fields(&again, t), fields(&m, t), "{t}");
    }
    assert_eq!(wsdl(&again, "http://127.0.0.1:9/s"), text);
}

#[test]
fn an_attribute_of_another_namespace_lowers_and_is_written_back() {
    let text = DOC
        .replace(
            "<xsd:attribute ref=\"tns:lang\"/>",
            "<xsd:attribute ref=\"o:lang\" xmlns:o=\"urn:other\"/>",
        )
        .replace(
            "    </xsd:schema>\n  </types>",
            "    </xsd:schema>\n    <xsd:schema targetNamespace=\"urn:other\"><xsd:attribute name=\"lang\" type=\"xsd:string\"/></xsd:schema>\n  </types>",
        )
        .replace("EXTRA", "");
    let defs = read_str(&text, "attrs.wsdl", &ReadOptions::default()).unwrap();
    let m = defs.service_model("S", "Port").unwrap();
    let item = fields(&m, "Item");
    let lang = item.iter().find(|f| f.name.ends_with("lang")).unwrap();
    assert_eq!(lang.name, "@{urn:other}lang");
    assert!(lang.ty.optional);
    // The writer refers to a global attribute of `urn:other`'s schema, and reads back the same.
    let written = wsdl(&m, "http://127.0.0.1:9/s");
    assert!(
        written.contains(r#"<xsd:attribute ref="q:lang" xmlns:q="urn:other"/>"#),
        "{written}"
    );
    assert!(
        written.contains(r#"<xsd:schema targetNamespace="urn:other""#),
        "{written}"
    );
    let defs = read_str(&written, "written.wsdl", &ReadOptions::default()).unwrap();
    let again = defs
        .service_model(&m.name, &defs.services[0].ports[0].name)
        .unwrap();
    assert_eq!(fields(&again, "Item"), item);
    assert_eq!(wsdl(&again, "http://127.0.0.1:9/s"), written);
}

#[test]
fn a_complex_restriction_restates_its_content_and_can_prohibit_attributes() {
    let text = DOC
        .replace(
            "<xsd:element name=\"item\" type=\"tns:Item\"/>",
            "<xsd:element name=\"item\" type=\"tns:Slim\"/>",
        )
        .replace(
            "EXTRA",
            r#"<xsd:complexType name="Slim"><xsd:complexContent><xsd:restriction base="tns:Base">
                 <xsd:sequence><xsd:element name="id" type="xsd:int"/></xsd:sequence>
                 <xsd:attribute name="flag" use="prohibited"/>
               </xsd:restriction></xsd:complexContent></xsd:complexType>"#,
        );
    let defs = read_str(&text, "attrs.wsdl", &ReadOptions::default()).unwrap();
    let m = defs.service_model("S", "Port").unwrap();
    let slim = fields(&m, "Slim");
    assert_eq!(names(slim), ["@version", "id"]);
    assert_eq!(slim[0].fixed.as_deref(), Some("2"));
}
