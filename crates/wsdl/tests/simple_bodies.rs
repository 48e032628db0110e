//! Document/literal body and header elements of simple types lower to one `$text` value (after
//! node-soap's `recursive.wsdl`, whose `operationResponse` is an `AckValue` enumeration): a body
//! is a message whose one part is `$text`, a header block a struct of one `$text` field, and a
//! body element with simple content and attributes (what the served WSDL writes back) is its
//! attributes and its text. The round trip over a socket is `crates/build-test/tests/simple.rs`.

use soapstone_wsdl::read::{read_str, ReadOptions};
use soapstone_wsdl::{TypeDef, TEXT_FIELD, XSD_NS};

const WSDL: &str = r#"<definitions xmlns="http://schemas.xmlsoap.org/wsdl/" xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/"
    xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:tns="urn:s" targetNamespace="urn:s">
  <types>
    <xs:schema targetNamespace="urn:s" elementFormDefault="qualified">
      <xs:simpleType name="AckValue"><xs:restriction base="xs:string">
        <xs:enumeration value="Success"/><xs:enumeration value="Failure"/>
      </xs:restriction></xs:simpleType>
      <xs:element name="Ask"><xs:complexType><xs:sequence><xs:element name="id" type="xs:int"/></xs:sequence></xs:complexType></xs:element>
      <xs:element name="Ack" type="tns:AckValue"/>
      <xs:element name="Code" type="xs:int"/>
      <xs:element name="Price"><xs:complexType><xs:simpleContent>
        <xs:extension base="xs:decimal"><xs:attribute name="currency" type="xs:string" use="required"/></xs:extension>
      </xs:simpleContent></xs:complexType></xs:element>
      <xs:element name="Ticket"><xs:simpleType><xs:restriction base="xs:token"/></xs:simpleType></xs:element>
      <xs:element name="Listed" type="tns:Names"/>
      <xs:simpleType name="Names"><xs:list itemType="xs:string"/></xs:simpleType>
    </xs:schema>
  </types>
  <message name="AskIn"><part name="p" element="tns:Ask"/></message>
  <message name="AckOut"><part name="p" element="tns:Ack"/></message>
  <message name="CodeIn"><part name="p" element="tns:Code"/></message>
  <message name="PriceOut"><part name="p" element="tns:Price"/></message>
  <message name="TicketH"><part name="t" element="tns:Ticket"/></message>
  <portType name="PT">
    <operation name="ask"><input message="tns:AskIn"/><output message="tns:AckOut"/></operation>
    <operation name="price"><input message="tns:CodeIn"/><output message="tns:PriceOut"/></operation>
  </portType>
  <binding name="B" type="tns:PT">
    <soap:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>
    <operation name="ask"><soap:operation soapAction="urn:s#ask"/>
      <input><soap:body use="literal"/><soap:header message="tns:TicketH" part="t" use="literal"/></input>
      <output><soap:body use="literal"/><soap:header message="tns:TicketH" part="t" use="literal"/></output>
    </operation>
    <operation name="price"><soap:operation soapAction="urn:s#price"/>
      <input><soap:body use="literal"/></input><output><soap:body use="literal"/></output>
    </operation>
  </binding>
  <service name="S"><port name="P" binding="tns:B"><soap:address location="http://127.0.0.1:9/"/></port></service>
</definitions>"#;

#[test]
fn simple_bodies_and_header_blocks_lower_to_one_text_value() {
    let defs = read_str(WSDL, "s.wsdl", &ReadOptions::default()).unwrap();
    let model = defs
        .service_model("S", "P")
        .unwrap_or_else(|e| panic!("{e}"));
    let ask = &model.operations[0];
    assert_eq!(ask.response, "Ack");
    assert_eq!(ask.output.len(), 1);
    assert_eq!(ask.output[0].name, TEXT_FIELD);
    assert_eq!(ask.output[0].ty.name.local, "AckValue");
    assert!(matches!(
        model.schema.get("AckValue"),
        Some(TypeDef::Enum(values)) if values == &["Success", "Failure"]
    ));
    // The header block (both ways): one struct named after the element, one `$text` field.
    let block = &ask.input_headers[0];
    assert_eq!(block.element.local, "Ticket");
    assert_eq!(ask.output_headers[0].ty, block.ty);
    match model.schema.get(&block.ty.name.local) {
        Some(TypeDef::Struct(fields)) => {
            assert_eq!(fields.len(), 1);
            assert_eq!(fields[0].name, TEXT_FIELD);
            assert_eq!(fields[0].ty.name.namespace, XSD_NS);
            assert_eq!(fields[0].ty.name.local, "token");
        }
        other => panic!("{other:?}"),
    }
    // A bare request of a simple type, and a response of simple content with an attribute.
    let price = &model.operations[1];
    assert_eq!(price.request, "Code");
    assert_eq!(price.input[0].name, TEXT_FIELD);
    assert_eq!(price.input[0].ty.name.local, "int");
    let names: Vec<&str> = price.output.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["@currency", TEXT_FIELD]);
    assert_eq!(price.output[1].ty.name.local, "decimal");
    // The served WSDL reads back to the same model.
    let text = soapstone_wsdl::wsdl(&model, "http://127.0.0.1:9/");
    let again = read_str(&text, "again.wsdl", &ReadOptions::default()).unwrap();
    let again = again.service_model("S", "SSoap11Port").unwrap();
    assert_eq!(soapstone_wsdl::wsdl(&again, "http://127.0.0.1:9/"), text);
}

#[test]
fn a_list_typed_body_stays_refused() {
    let text = WSDL.replace(
        r#"<message name="AckOut"><part name="p" element="tns:Ack"/></message>"#,
        r#"<message name="AckOut"><part name="p" element="tns:Listed"/></message>"#,
    );
    let defs = read_str(&text, "s.wsdl", &ReadOptions::default()).unwrap();
    let e = defs.service_model("S", "P").unwrap_err();
    assert!(e.message.contains("`Listed`"), "{e}");
}
