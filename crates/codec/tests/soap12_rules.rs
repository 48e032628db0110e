//! The envelope and encoding rules that the W3C SOAP 1.2 test collection found soapstone
//! breaking (issue 8, item 5), one test each: processing instructions, raw control
//! characters, a second body element or Body, `encodingStyle` below the body child,
//! `enc:ref` into a header block, the `enc:MissingID` / `enc:UntypedValue` subcodes, the
//! path of a missing element, and a parameterless wrapper with `xsi:type` and text.

use serde::Deserialize;
use soapstone_codec::*;

const ENV12: &str = "http://www.w3.org/2003/05/soap-envelope";
const ENC12: &str = "http://www.w3.org/2003/05/soap-encoding";

fn parse(s: &str) -> Result<Envelope<'_>, DecodeError> {
    Envelope::parse(s.as_bytes(), &Limits::default())
}

/// A SOAP 1.2 envelope with `xsd`, `xsi`, `enc` and `t` declared on Envelope.
fn env12(header: &str, body: &str) -> String {
    format!(
        r#"<env:Envelope xmlns:env="{ENV12}" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:enc="{ENC12}" xmlns:t="urn:t"><env:Header>{header}</env:Header><env:Body>{body}</env:Body></env:Envelope>"#
    )
}

#[derive(Debug, Deserialize, PartialEq)]
struct EchoString {
    #[serde(rename = "inputString")]
    input: String,
}

fn decode_error<T: serde::de::DeserializeOwned + std::fmt::Debug>(doc: &str) -> DecodeError {
    match parse(doc) {
        Err(e) => e,
        Ok(env) => env.body::<T>(Style::Encoded).unwrap_err(),
    }
}

#[test]
fn a_processing_instruction_anywhere_is_a_client_fault() {
    for doc in [
        // W3C T26: between Envelope and Body
        format!(
            r#"<env:Envelope xmlns:env="{ENV12}"><?xml-stylesheet href="x.xsl"?><env:Body/></env:Envelope>"#
        ),
        // inside the body, where the envelope reader does not look
        env12("", "<t:op><?pi data?><a>1</a></t:op>"),
        // before the root
        format!(
            r#"<?xml version="1.0"?><?pi?><env:Envelope xmlns:env="{ENV12}"><env:Body/></env:Envelope>"#
        ),
    ] {
        let e = decode_error::<serde::de::IgnoredAny>(&doc);
        assert!(
            e.message().contains("processing instruction `<?")
                && e.message().contains("not allowed"),
            "{e}"
        );
        assert_eq!(Fault::from(&e).code, FaultCode::Client, "{e}");
    }
    // a comment is still fine
    let doc = env12("", "<t:op><!-- c --></t:op>");
    parse(&doc)
        .unwrap()
        .body::<serde::de::IgnoredAny>(Style::Literal)
        .unwrap();
}

#[test]
fn a_raw_control_character_is_a_client_fault_naming_it() {
    let doc = env12(
        "",
        "<t:echoString><inputString>a\u{1}b</inputString></t:echoString>",
    );
    let e = parse(&doc).unwrap_err();
    assert_eq!(Fault::from(&e).code, FaultCode::Client);
    let at = doc.find('\u{1}').unwrap();
    assert_eq!(
        e.message(),
        format!("character U+0001 at byte {at} is not allowed in xml")
    );
    // tab, line feed and carriage return are allowed; a long document finds it in any block
    let long = "x".repeat(1000);
    let ok = env12(
        "",
        &format!("<t:echoString><inputString>\t{long}\r\n</inputString></t:echoString>"),
    );
    parse(&ok).unwrap();
    let late = ok.replace("\r\n", "\u{1f}");
    assert!(parse(&late).unwrap_err().message().contains("U+001F"));
}

#[test]
fn a_second_body_element_or_body_is_refused() {
    let two = env12(
        "",
        "<t:echoString><inputString>a</inputString></t:echoString><t:other/>",
    );
    let e = decode_error::<EchoString>(&two);
    assert_eq!(
        e.message(),
        "/Envelope/Body/other: second body element `<t:other>`: the body holds one operation element (and multi-ref targets with an `id`)"
    );
    // a multi-ref target after the wrapper is fine (SOAP 1.1 encoding)
    let v11 = r##"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><echoString><inputString href="#a"/></echoString><multiRef id="a">hi</multiRef></s:Body></s:Envelope>"##;
    let env = parse(v11).unwrap();
    assert_eq!(env.body::<EchoString>(Style::Encoded).unwrap().input, "hi");
    // a second Body in SOAP 1.1 (which allows other elements after Body)
    let second = r#"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><echoString><inputString>a</inputString></echoString></s:Body><x:trailer xmlns:x="urn:x"/><s:Body><evil/></s:Body></s:Envelope>"#;
    let e = parse(second)
        .unwrap()
        .body::<EchoString>(Style::Literal)
        .unwrap_err();
    assert_eq!(
        e.message(),
        "/Envelope/Body: second `<s:Body>` after Body (an envelope has one Header and one Body)"
    );
    assert_eq!(Fault::from(&e).code, FaultCode::Client);
}

#[test]
fn encoding_style_is_checked_on_every_body_element() {
    // W3C T73: a known encodingStyle below the body child is fine
    let ok = env12(
        "",
        &format!(
            r#"<t:echoString env:encodingStyle="{ENC12}"><inputString xsi:type="xsd:string" env:encodingStyle="{ENC12}">hi</inputString></t:echoString>"#
        ),
    );
    let env = parse(&ok).unwrap();
    assert_eq!(env.body::<EchoString>(Style::Encoded).unwrap().input, "hi");
    // an unknown one on a descendant is DataEncodingUnknown, with the path
    let poison = ok.replacen(
        &format!(r#"xsi:type="xsd:string" env:encodingStyle="{ENC12}""#),
        r#"xsi:type="xsd:string" env:encodingStyle="urn:poison""#,
        1,
    );
    let e = decode_error::<EchoString>(&poison);
    assert!(e.is_data_encoding_unknown(), "{e}");
    assert_eq!(
        e.message(),
        "/Envelope/Body/echoString/inputString: unknown encodingStyle `urn:poison`"
    );
    assert_eq!(Fault::from(&e).code, FaultCode::DataEncodingUnknown);
    // the namespace may be declared after the attribute on the same element
    let late_ns = env12(
        "",
        r#"<t:echoString><inputString e:encodingStyle="urn:poison" xmlns:e="http://www.w3.org/2003/05/soap-envelope">hi</inputString></t:echoString>"#,
    );
    assert!(decode_error::<EchoString>(&late_ns).is_data_encoding_unknown());
    // a header block nobody processed is not judged by the envelope reader
    let header = env12(
        r#"<t:h env:encodingStyle="urn:poison"><t:x env:encodingStyle="urn:poison"/></t:h>"#,
        "<t:echoString><inputString>hi</inputString></t:echoString>",
    );
    let env = parse(&header).unwrap();
    // but the node that reads the block does
    #[derive(Debug, Deserialize)]
    struct H {
        #[allow(dead_code)]
        x: String,
    }
    let e = env.header::<H>(0, Style::Literal).unwrap_err();
    assert!(e.is_data_encoding_unknown(), "{e}");
}

#[test]
fn enc_ref_resolves_into_a_header_block() {
    // W3C T57 (`#data`) and T76_2 (`data`, the IDREF form SOAP 1.2 defines)
    for r in ["#data", "data"] {
        let doc = env12(
            &format!(
                r#"<t:DataHolder env:encodingStyle="{ENC12}"><t:Data enc:id="data" xsi:type="xsd:string">hello world</t:Data></t:DataHolder>"#
            ),
            &format!(
                r#"<t:echoString env:encodingStyle="{ENC12}"><inputString enc:ref="{r}" xsi:type="xsd:string"/></t:echoString>"#
            ),
        );
        let env = parse(&doc).unwrap();
        assert_eq!(
            env.body::<EchoString>(Style::Encoded).unwrap().input,
            "hello world"
        );
    }
    // a target whose prefixes are declared inside the header block
    let doc = env12(
        r#"<h:DataHolder xmlns:h="urn:h" xmlns:s="http://www.w3.org/2001/XMLSchema"><h:Data enc:id="d" xsi:type="s:string">deep</h:Data></h:DataHolder>"#,
        r#"<t:echoString><inputString enc:ref="d"/></t:echoString>"#,
    );
    let env = parse(&doc).unwrap();
    assert_eq!(
        env.body::<EchoString>(Style::Encoded).unwrap().input,
        "deep"
    );
}

#[test]
fn an_unresolved_reference_is_sender_with_enc_missing_id() {
    // W3C T56
    let doc = env12(
        r#"<t:DataHolder><t:Data enc:id="data-1" xsi:type="xsd:string">hello</t:Data></t:DataHolder>"#,
        r##"<t:echoString><inputString enc:ref="#data-2" xsi:type="xsd:string"/></t:echoString>"##,
    );
    let e = decode_error::<EchoString>(&doc);
    assert_eq!(
        e.message(),
        "/Envelope/Body/echoString/inputString: unresolved reference `#data-2`"
    );
    let f = Fault::from(&e);
    assert_eq!(f.code, FaultCode::Client);
    assert_eq!(f.subcodes, vec![QName::new(ENC12, "MissingID")]);
    let mut out = Vec::new();
    encode_fault(&mut out, Version::Soap12, &f);
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.contains(r#"<env:Value>env:Sender</env:Value><env:Subcode><env:Value xmlns:c="http://www.w3.org/2003/05/soap-encoding">c:MissingID</env:Value></env:Subcode>"#),
        "{text}"
    );
}

#[test]
fn an_untyped_encoded_value_for_an_untyped_target_is_enc_untyped_value() {
    #[derive(Debug, Deserialize)]
    #[serde(untagged)]
    #[allow(dead_code)]
    enum Anything {
        Int(i64),
        Text(String),
    }
    #[derive(Debug, Deserialize)]
    struct Op {
        #[allow(dead_code)]
        value: Anything,
    }
    let doc = env12("", r#"<t:op><value>12</value></t:op>"#);
    let e = decode_error::<Op>(&doc);
    let f = Fault::from(&e);
    assert_eq!(f.subcodes, vec![QName::new(ENC12, "UntypedValue")], "{e}");
    assert_eq!(f.code, FaultCode::Client);
    // with an xsi:type it is read
    let typed = env12("", r#"<t:op><value xsi:type="xsd:int">12</value></t:op>"#);
    let op: Op = parse(&typed).unwrap().body(Style::Encoded).unwrap();
    assert!(matches!(op.value, Anything::Int(12)), "{op:?}");
}

#[test]
fn a_missing_element_is_reported_under_its_wrapper() {
    #[derive(Debug, Deserialize)]
    struct GetContact {
        #[allow(dead_code)]
        index: i32,
    }
    let doc = r#"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><c:getContact xmlns:c="urn:c"></c:getContact></s:Body></s:Envelope>"#;
    let e = parse(doc)
        .unwrap()
        .body::<GetContact>(Style::Literal)
        .unwrap_err();
    assert!(
        e.message().starts_with("/Envelope/Body/getContact/index: "),
        "{e}"
    );
    // nested: the field of an inner struct
    #[derive(Debug, Deserialize)]
    struct Outer {
        #[allow(dead_code)]
        inner: GetContact,
    }
    let doc = r#"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><op><inner/></op></s:Body></s:Envelope>"#;
    let e = parse(doc)
        .unwrap()
        .body::<Outer>(Style::Literal)
        .unwrap_err();
    assert!(
        e.message().starts_with("/Envelope/Body/op/inner/index: "),
        "{e}"
    );
}

#[test]
fn a_parameterless_wrapper_ignores_its_type_and_text() {
    #[derive(Debug, Deserialize, PartialEq)]
    struct EchoVoid {}
    let doc = env12(
        "",
        r#"<t:echoVoid xsi:type="xsd:string" env:encodingStyle="http://www.w3.org/2003/05/soap-encoding">foo</t:echoVoid>"#,
    );
    let env = parse(&doc).unwrap();
    assert_eq!(env.body::<EchoVoid>(Style::Encoded).unwrap(), EchoVoid {});
    assert_eq!(env.body::<EchoVoid>(Style::Literal).unwrap(), EchoVoid {});
    // a struct with fields still checks the type
    let typed = env12(
        "",
        r#"<t:echoString xsi:type="xsd:string"><inputString>x</inputString></t:echoString>"#,
    );
    let e = decode_error::<EchoString>(&typed);
    assert!(
        e.message().contains("expected a struct, found xsi:type"),
        "{e}"
    );
}

#[test]
fn rpc_result_is_written_on_request_and_skipped_when_read() {
    #[derive(Debug, serde::Serialize, Deserialize, PartialEq)]
    struct Answer {
        result: f32,
    }
    let mut opts = EncodeOptions::default();
    opts.version = Version::Soap12;
    opts.style = Style::Encoded;
    opts.rpc_result = Some("result".into());
    let mut out = Vec::new();
    let wrapper = QName::new("urn:t", "echoFloatResponse");
    encode(&mut out, &opts, &[], &wrapper, &Answer { result: 1.5 }).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.contains(r#"<rpc:result xmlns:rpc="http://www.w3.org/2003/05/soap-rpc">result</rpc:result><result xsi:type="xsd:float">1.5</result>"#),
        "{text}"
    );
    // the accessor is called `result` too: the rpc:result element does not shadow it
    let env = parse(&text).unwrap();
    assert_eq!(
        env.body::<Answer>(Style::Encoded).unwrap(),
        Answer { result: 1.5 }
    );
    // SOAP 1.1 and literal bodies have no rpc:result
    opts.version = Version::Soap11;
    let mut out = Vec::new();
    encode(&mut out, &opts, &[], &wrapper, &Answer { result: 1.5 }).unwrap();
    assert!(!String::from_utf8(out).unwrap().contains("rpc:result"));
}

#[test]
fn a_self_describing_target_reads_any_typed_text() {
    // `deserialize_any` on `xsd:base64Binary` (or any type that is no string, number or
    // boolean) hands over the text instead of failing the string type check
    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(untagged)]
    enum Anything {
        Text(String),
    }
    #[derive(Debug, Deserialize, PartialEq)]
    struct Op {
        value: Anything,
    }
    let doc = env12(
        "",
        r#"<t:op><value xsi:type="xsd:base64Binary">aGk=</value></t:op>"#,
    );
    let op: Op = parse(&doc).unwrap().body(Style::Literal).unwrap();
    assert_eq!(op.value, Anything::Text("aGk=".into()));
}
