//! A broken WSDL is refused with the construct that breaks it, the file and the line, and the
//! likely cause (each case is a small copy of one of the corpus's broken WSDLs, named beside
//! it); a valid one the reader used to refuse is read.

use soapstone_wsdl::read::{read_str, Definitions, ReadOptions};

/// A document/literal WSDL whose one operation `Op` takes `<tns:Req>` and answers
/// `<tns:Res>`, with `schema` as the content of its one `xs:schema`.
fn wsdl(schema: &str) -> String {
    format!(
        r#"<?xml version="1.0"?>
<definitions xmlns="http://schemas.xmlsoap.org/wsdl/" xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/"
    xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:tns="urn:t" targetNamespace="urn:t">
  <types>
    <xs:schema targetNamespace="urn:t" elementFormDefault="qualified">
{schema}
    </xs:schema>
  </types>
  <message name="In"><part name="p" element="tns:Req"/></message>
  <message name="Out"><part name="p" element="tns:Res"/></message>
  <portType name="PT"><operation name="Op"><input message="tns:In"/><output message="tns:Out"/></operation></portType>
  <binding name="B" type="tns:PT">
    <soap:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>
    <operation name="Op"><soap:operation soapAction="urn:t#Op"/>
      <input><soap:body use="literal"/></input><output><soap:body use="literal"/></output>
    </operation>
  </binding>
  <service name="S"><port name="P" binding="tns:B"><soap:address location="http://127.0.0.1:9/"/></port></service>
</definitions>"#
    )
}

fn read(text: &str) -> Definitions {
    read_str(text, "t.wsdl", &ReadOptions::default()).unwrap_or_else(|e| panic!("{e}"))
}

fn refusal(text: &str) -> String {
    let defs = read(text);
    match defs.service_model("S", "P") {
        Ok(_) => panic!("lowered"),
        Err(e) => e.to_string(),
    }
}

const RES: &str =
    r#"<xs:element name="Res"><xs:complexType><xs:sequence/></xs:complexType></xs:element>"#;

/// node-soap's `Dummy__ref_element_should_have_correct_namespace/common.xsd:6`.
#[test]
fn a_miscased_schema_tag_is_named_with_its_right_spelling() {
    let text = wsdl(&format!(
        r#"<xs:simpletype name="Code"><xs:restriction base="xs:string"/></xs:simpletype>
<xs:element name="Req"><xs:complexType><xs:sequence><xs:element name="c" type="tns:Code"/></xs:sequence></xs:complexType></xs:element>
{RES}"#
    ));
    let defs = read(&text);
    assert_eq!(defs.schema.unknown_tags.len(), 1);
    let e = refusal(&text);
    assert!(e.starts_with("t.wsdl:7: type `Code` is not defined: it is declared by an unknown schema element `xsd:simpletype` at t.wsdl:6 (XML Schema names are case-sensitive: `simpleType`)"), "{e}");
}

/// node-soap's `perf/ns1.xsd:15` (`type="RabbitHole"`) and the whitespace samples' `name.xsd`.
#[test]
fn an_element_named_as_a_type_is_said_to_be_an_element() {
    let text = wsdl(&format!(
        r#"<xs:element name="Hole" type="xs:string"/>
<xs:element name="Req"><xs:complexType><xs:sequence><xs:element name="h" type="tns:Hole"/></xs:sequence></xs:complexType></xs:element>
{RES}"#
    ));
    let e = refusal(&text);
    assert!(
        e.contains("type `Hole` is not defined: `Hole` is a global element, not a type"),
        "{e}"
    );
    // `inspect`'s problems say the same.
    let defs = read(&text);
    assert!(
        defs.problems[0].message.contains("is a global element"),
        "{:?}",
        defs.problems
    );
}

/// node-soap's `RetrieveFareQuoteDateRange` (`Pricing.Request` is in no file of the sample).
#[test]
fn a_namespace_no_schema_was_read_for_is_named() {
    let text = wsdl(&format!(
        r#"<xs:import namespace="urn:elsewhere"/>
<xs:element name="Req"><xs:complexType><xs:sequence><xs:element name="h" type="e:Thing" xmlns:e="urn:elsewhere"/></xs:sequence></xs:complexType></xs:element>
{RES}"#
    ));
    let e = refusal(&text);
    assert!(
        e.contains("type `Thing` is not defined: no schema of namespace `urn:elsewhere` was read"),
        "{e}"
    );
}

/// node-soap's `strict/stockquote.wsdl` (WSDL 1.1's own example) uses the 2000/10 draft.
#[test]
fn a_schema_in_a_draft_namespace_is_named() {
    let text = wsdl(RES).replace(
        "</types>",
        r#"<xsd:schema targetNamespace="urn:old" xmlns:xsd="http://www.w3.org/2000/10/XMLSchema"><xsd:element name="X" type="string"/></xsd:schema></types>"#,
    );
    let text = text.replace(
        r#"<part name="p" element="tns:Req"/>"#,
        r#"<part name="p" element="o:X" xmlns:o="urn:old"/>"#,
    );
    let e = refusal(&text);
    assert!(e.contains("names the element `{urn:old}X`, which is not defined: the schema of namespace `urn:old` at t.wsdl:8 is written in the draft XML Schema namespace `http://www.w3.org/2000/10/XMLSchema`"), "{e}");
}

/// node-soap's `addPrefix` sample: `soap:input` where `wsdl:input` belongs.
#[test]
fn a_soap_input_in_place_of_a_wsdl_input_is_named() {
    let text = wsdl(RES).replace(
        r#"<input><soap:body use="literal"/></input><output><soap:body use="literal"/></output>"#,
        "\n<soap:input><soap:body use=\"literal\"/></soap:input>",
    );
    let e = refusal(&text);
    assert!(e.starts_with("t.wsdl:16: operation `Op` binds no input or output body: `soap:input` stands where `wsdl:input` belongs"), "{e}");
}

/// node-soap's `recursive.wsdl:56` and `getAppointmentNumber`: an HTTP POST binding.
#[test]
fn an_http_binding_is_named_with_its_verb() {
    let text = wsdl(RES)
        .replace(
            r#"<soap:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>"#,
            r#"<http:binding verb="POST" xmlns:http="http://schemas.xmlsoap.org/wsdl/http/"/>"#,
        )
        .replace("<soap:operation soapAction=\"urn:t#Op\"/>", "");
    let e = refusal(&text);
    assert!(
        e.contains(
            "binding `B` is not a SOAP binding (it is bound by `http:binding verb=\"POST\"`)"
        ),
        "{e}"
    );
}

/// node-soap's `wsdl/connection/econnrefused.wsdl` and ten more: an undeclared prefix.
#[test]
fn an_undeclared_element_prefix_is_named_in_backticks() {
    let text = wsdl(RES).replace("<types>", "<types><wsu:Policy/>");
    let e = read_str(&text, "t.wsdl", &ReadOptions::default()).unwrap_err();
    assert_eq!(e.loc.line, 4, "{e}");
    assert!(
        e.message
            .starts_with("not namespace-well-formed XML: the prefix `wsu` (column"),
        "{e}"
    );
}

/// node-soap's `complex/registration-common.wsdl:31`.
#[test]
fn an_undefined_fault_message_is_named() {
    let text = wsdl(RES).replace(
        r#"<output message="tns:Out"/>"#,
        r#"<output message="tns:Out"/><fault name="err" message="tns:ErrMessage"/>"#,
    );
    let text = text.replace(
        "<xs:schema targetNamespace=\"urn:t\" elementFormDefault=\"qualified\">",
        "<xs:schema targetNamespace=\"urn:t\" elementFormDefault=\"qualified\"><xs:element name=\"Req\"><xs:complexType><xs:sequence/></xs:complexType></xs:element>",
    );
    let e = refusal(&text);
    assert!(
        e.contains("fault `err` names the message `ErrMessage`, which is not defined"),
        "{e}"
    );
}

/// node-soap's `NoParams` sample: an rpc `soap:body` without `namespace` puts the wrapper in
/// the binding's target namespace (as node-soap and .NET do), and no parameters is no parts.
#[test]
fn an_rpc_body_without_a_namespace_takes_the_target_namespace() {
    let text = r#"<definitions xmlns="http://schemas.xmlsoap.org/wsdl/" xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/"
    xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:tns="urn:np" targetNamespace="urn:np">
  <message name="In"/>
  <message name="Out"><part name="Result" type="xsd:string"/></message>
  <portType name="PT"><operation name="NoParams"><input message="tns:In"/><output message="tns:Out"/></operation></portType>
  <binding name="B" type="tns:PT">
    <soap:binding style="rpc" transport="http://schemas.xmlsoap.org/soap/http"/>
    <operation name="NoParams"><soap:operation soapAction="urn:np#NoParams"/>
      <input><soap:body use="encoded" encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"/></input>
      <output><soap:body use="encoded" encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"/></output>
    </operation>
  </binding>
  <service name="S"><port name="P" binding="tns:B"/></service>
</definitions>"#;
    let model = read(text).service_model("S", "P").unwrap();
    assert_eq!(model.namespace, "urn:np");
    assert!(model.operations[0].input.is_empty());
    assert_eq!(model.operations[0].output[0].name, "Result");
}

/// node-soap's `non_identifier_chars_in_operation.wsdl`: two operations take one element. With
/// a SOAPAction each they lower (the dispatcher routes by it); with the same one, nothing tells
/// their requests apart and the refusal says so.
#[test]
fn operations_sharing_an_element_need_a_soap_action_each() {
    let text = wsdl(&format!(
        r#"<xs:element name="Req"><xs:complexType><xs:sequence/></xs:complexType></xs:element>
{RES}"#
    ))
    .replace(
        "</operation></portType>",
        r#"</operation><operation name="Op2"><input message="tns:In"/><output message="tns:Out"/></operation></portType>"#,
    )
    .replace(
        "</binding>",
        r#"<operation name="Op2"><soap:operation soapAction="urn:t#Op2"/>
      <input><soap:body use="literal"/></input><output><soap:body use="literal"/></output>
    </operation></binding>"#,
    );
    let model = read(&text).service_model("S", "P").unwrap();
    assert_eq!(model.operations[0].request, model.operations[1].request);
    let same = text.replace("urn:t#Op2", "urn:t#Op");
    let e = refusal(&same);
    assert!(
        e.contains("element `Req` is the request of operations `Op` and `Op2`, and no SOAPAction tells them apart (`urn:t#Op`)"),
        "{e}"
    );
}

/// WSDL 1.1's own stockquote example writes `type="string"` with no default namespace.
#[test]
fn an_unprefixed_built_in_type_is_named() {
    let text = wsdl(&format!(
        r#"<xs:element name="Req"><xs:complexType><xs:sequence><xs:element name="s" type="string"/></xs:sequence></xs:complexType></xs:element>
{RES}"#
    ));
    let e = refusal(&text);
    assert!(
        e.contains("type `string` is not defined: `string` is a built-in type of XML Schema, written without its prefix"),
        "{e}"
    );
}

/// A miscased tag inside a type (`xs:Sequence`) would drop its elements without a word: the
/// type is refused, naming the tag, rather than lowered empty.
#[test]
fn a_miscased_tag_inside_a_type_refuses_the_type() {
    let text = wsdl(&format!(
        r#"<xs:complexType name="Pair"><xs:Sequence><xs:element name="a" type="xs:int"/></xs:Sequence></xs:complexType>
<xs:element name="Req"><xs:complexType><xs:sequence><xs:element name="p" type="tns:Pair"/></xs:sequence></xs:complexType></xs:element>
{RES}"#
    ));
    let e = refusal(&text);
    assert!(
        e.starts_with("t.wsdl:6: `Pair` holds an unknown schema element `xsd:Sequence` at t.wsdl:6 (XML Schema names are case-sensitive: `sequence`)"),
        "{e}"
    );
    // The same tag in the body element itself.
    let text = wsdl(&format!(
        r#"<xs:element name="Req"><xs:complexType><xs:Sequence><xs:element name="a" type="xs:int"/></xs:Sequence></xs:complexType></xs:element>
{RES}"#
    ));
    let e = refusal(&text);
    assert!(
        e.contains("`Req` holds an unknown schema element `xsd:Sequence`"),
        "{e}"
    );
}
