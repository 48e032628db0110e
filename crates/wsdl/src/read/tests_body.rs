//! document/literal messages that are not one wrapper element: several body parts (the
//! Body's children in order), none (an empty Body), and wrappers and header blocks of another
//! namespace than the service's; the WSDL writer writes each back so that it reads to the same model, and an
//! empty request Body that no action tells apart from another is refused.

use super::*;
use crate::model::Body;

const DOC: &str = r#"<?xml version="1.0"?>
<definitions xmlns="http://schemas.xmlsoap.org/wsdl/" xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/"
  xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:tns="urn:a" xmlns:r="urn:r" targetNamespace="urn:a">
  <types>
    <xsd:schema targetNamespace="urn:a" elementFormDefault="qualified">
      <xsd:element name="id" type="xsd:int"/>
      <xsd:element name="label" type="xsd:string" nillable="true"/>
      <xsd:element name="point"><xsd:complexType><xsd:sequence>
        <xsd:element name="x" type="xsd:double"/>
      </xsd:sequence></xsd:complexType></xsd:element>
      <xsd:element name="ping"><xsd:complexType><xsd:sequence/></xsd:complexType></xsd:element>
    </xsd:schema>
    <xsd:schema targetNamespace="urn:r" elementFormDefault="qualified">
      <xsd:element name="pingResult"><xsd:complexType><xsd:sequence>
        <xsd:element name="ok" type="xsd:boolean"/>
      </xsd:sequence></xsd:complexType></xsd:element>
      <xsd:element name="Trace"><xsd:complexType><xsd:sequence>
        <xsd:element name="id" type="xsd:string"/>
      </xsd:sequence></xsd:complexType></xsd:element>
    </xsd:schema>
  </types>
  <message name="putIn"><part name="id" element="tns:id"/><part name="label" element="tns:label"/><part name="point" element="tns:point"/></message>
  <message name="putOut"/>
  <message name="pingIn"><part name="parameters" element="tns:ping"/></message>
  <message name="pingOut"><part name="parameters" element="r:pingResult"/></message>
  <message name="nothing"/>
  <message name="trace"><part name="t" element="r:Trace"/></message>
  <portType name="P">
    <operation name="put"><input message="tns:putIn"/><output message="tns:putOut"/></operation>
    <operation name="ping"><input message="tns:pingIn"/><output message="tns:pingOut"/></operation>
    <operation name="reset"><input message="tns:nothing"/><output message="tns:nothing"/></operation>
    EXTRA_OP
  </portType>
  <binding name="B" type="tns:P">
    <soap:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>
    <operation name="put"><soap:operation soapAction="urn:a#put"/>
      <input><soap:body use="literal"/></input><output><soap:body use="literal"/></output></operation>
    <operation name="ping"><soap:operation soapAction="urn:a#ping"/>
      <input><soap:body use="literal"/><soap:header message="tns:trace" part="t" use="literal"/></input><output><soap:body use="literal"/></output></operation>
    <operation name="reset"><soap:operation soapAction="RESET_ACTION"/>
      <input><soap:body use="literal"/></input><output><soap:body use="literal"/></output></operation>
    EXTRA_BINDING
  </binding>
  <service name="S"><port name="Port" binding="tns:B"><soap:address location="http://x/s"/></port></service>
</definitions>"#;

fn doc(reset_action: &str, extra: bool) -> String {
    let (op, binding) = if extra {
        (
            r#"<operation name="clear"><input message="tns:nothing"/><output message="tns:nothing"/></operation>"#,
            r#"<operation name="clear"><soap:operation soapAction="urn:a#clear"/>
      <input><soap:body use="literal"/></input><output><soap:body use="literal"/></output></operation>"#,
        )
    } else {
        ("", "")
    };
    DOC.replace("RESET_ACTION", reset_action)
        .replace("EXTRA_OP", op)
        .replace("EXTRA_BINDING", binding)
}

fn lower(text: &str) -> Result<crate::ServiceModel, String> {
    let defs = read_str(text, "body.wsdl", &ReadOptions::default()).map_err(|e| e.to_string())?;
    defs.service_model("S", "Port").map_err(|e| e.to_string())
}

#[test]
fn several_parts_none_and_another_namespace_lower() {
    let m = lower(&doc("urn:a#reset", false)).unwrap();
    assert_eq!(m.namespace, "urn:a");
    let put = &m.operations[0];
    assert_eq!(put.input_body, Body::Parts);
    let names: Vec<&str> = put.input.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["{urn:a}id", "{urn:a}label", "{urn:a}point"]);
    assert_eq!(put.input[0].ty.name.local, "int");
    assert!(put.input[1].ty.nillable);
    assert_eq!(put.input[2].ty.name.local, "point");
    assert_eq!((put.output_body, put.output.len()), (Body::Parts, 0));
    assert_eq!(
        m.request_key(put),
        Some(soapstone_codec::QName::new("urn:a", "id"))
    );
    let ping = &m.operations[1];
    assert_eq!(ping.input_body, Body::Wrapper);
    assert_eq!(ping.request_namespace, None);
    assert_eq!(ping.response_namespace.as_deref(), Some("urn:r"));
    assert_eq!(
        m.response_name(ping),
        soapstone_codec::QName::new("urn:r", "pingResult")
    );
    assert_eq!(
        ping.input_headers[0].element,
        soapstone_codec::QName::new("urn:r", "Trace")
    );
    assert_eq!(ping.input_headers[0].ty.name.namespace, "urn:r");
    let reset = &m.operations[2];
    assert_eq!((reset.input_body, reset.input.len()), (Body::Parts, 0));
    assert_eq!(m.request_key(reset), None);
}

#[test]
fn the_writer_writes_them_back_and_they_read_to_the_same_model() {
    let m = lower(&doc("urn:a#reset", false)).unwrap();
    let text = crate::wsdl(&m, "http://127.0.0.1:9/s");
    for expected in [
        r#"<wsdl:part name="id" element="tns:id"/>"#,
        r#"<wsdl:part name="point" element="tns:point"/>"#,
        r#"<xsd:element name="label" type="xsd:string" nillable="true"/>"#,
        r#"<wsdl:message name="putResponse">
  </wsdl:message>"#,
        r#"<xsd:schema targetNamespace="urn:r" elementFormDefault="qualified">"#,
        r#"<xsd:element name="pingResult">"#,
        r#"<wsdl:part name="Trace" element="q:Trace" xmlns:q="urn:r"/>"#,
        r#"<xsd:element name="Trace" type="q:Trace" xmlns:q="urn:r"/>"#,
    ] {
        assert!(text.contains(expected), "{expected}\n{text}");
    }
    let defs = read_str(&text, "written.wsdl", &ReadOptions::default()).unwrap();
    let again = defs
        .service_model(&m.name, &defs.services[0].ports[0].name)
        .unwrap();
    assert_eq!(again.operations, m.operations);
    assert_eq!(crate::wsdl(&again, "http://127.0.0.1:9/s"), text);
}

#[test]
fn an_empty_request_body_no_action_tells_apart_is_refused() {
    // Two operations take an empty Body: each has an action of its own, so both lower.
    let m = lower(&doc("urn:a#reset", true)).unwrap();
    assert_eq!(m.operations.len(), 4);
    // One of them has none: the dispatcher could not tell which is called.
    let e = lower(&doc("", true)).unwrap_err();
    assert!(
        e.contains("operation `reset` has an empty request Body and no action of its own: 2 operations take an empty Body"),
        "{e}"
    );
    assert!(e.contains("body.wsdl:"), "{e}");
    // Alone, it needs no action.
    assert!(lower(&doc("", false)).is_ok());
}

#[test]
fn a_part_with_neither_element_nor_type_is_refused_with_its_line() {
    for part in [
        r#"<part name="id" element="tns:id"/><part name="bad"/>"#,
        r#"<part name="bad"/>"#,
    ] {
        let text = doc("urn:a#reset", false).replace(
            r#"<part name="id" element="tns:id"/><part name="label" element="tns:label"/><part name="point" element="tns:point"/>"#,
            part,
        );
        let e = lower(&text).unwrap_err();
        assert!(
            e.contains("part `bad` names neither an element nor a type"),
            "{e}"
        );
    }
}
