//! Typed bodies: literal and encoded decoding of hand-written messages, and encode/decode.
#![allow(clippy::approx_constant)] // 3.14159 is the echoFloat value of the seeds

use serde::{Deserialize, Serialize};
use soapstone_codec::*;

fn decode<T: serde::de::DeserializeOwned>(doc: &str, style: Style) -> Result<T, DecodeError> {
    let env = Envelope::parse(doc.as_bytes(), &Limits::default())?;
    env.body(style)
}

fn encode_str<T: Serialize>(opts: &EncodeOptions, wrapper: &QName, v: &T) -> String {
    let mut out = Vec::new();
    encode(&mut out, opts, &[], wrapper, v).unwrap();
    String::from_utf8(out).unwrap()
}

#[derive(Debug, Serialize, Deserialize, PartialEq)]
struct Reserve {
    id: i32,
    am: i32,
}

#[test]
fn thesis_reserve_encoded() {
    let doc = r#"<?xml version="1.0" encoding="UTF-8"?>
<SOAP-ENV:Envelope SOAP-ENV:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"
  xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/"
  xmlns:xsd="http://www.w3.org/2001/XMLSchema"
  xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
  xmlns:SOAP-ENC="http://schemas.xmlsoap.org/soap/encoding/">
  <SOAP-ENV:Body>
    <reserve>
      <id xsi:type="xsd:int">2</id>
      <am xsi:type="xsd:int">520</am>
    </reserve>
  </SOAP-ENV:Body>
</SOAP-ENV:Envelope>"#;
    let r: Reserve = decode(doc, Style::Encoded).unwrap();
    assert_eq!(r, Reserve { id: 2, am: 520 });
    let bad = doc.replace(">520<", ">abc<");
    let e = decode::<Reserve>(&bad, Style::Encoded).unwrap_err();
    assert_eq!(
        e.to_string(),
        "/Envelope/Body/reserve/am: expected xsd:int, found `abc`"
    );
    let bad = doc.replace("xsd:int\">520", "xsd:string\">520");
    let e = decode::<Reserve>(&bad, Style::Encoded).unwrap_err();
    assert_eq!(
        e.to_string(),
        "/Envelope/Body/reserve/am: expected xsd:int, found xsi:type `xsd:string`"
    );
}

#[derive(Debug, Serialize, Deserialize, PartialEq, Clone)]
#[serde(rename_all = "camelCase")]
struct SoapStruct {
    var_string: String,
    var_int: i32,
    var_float: f32,
}

#[derive(Debug, Serialize, Deserialize, PartialEq)]
struct Everything {
    s: String,
    n: Option<i64>,
    none: Option<i32>,
    list: Vec<i32>,
    empty: Vec<String>,
    grid: Vec<Vec<String>>,
    ragged: Vec<Vec<i32>>,
    inner: SoapStruct,
    structs: Vec<SoapStruct>,
    b: bool,
    d: f64,
    when: xsd::DateTime,
    blob: xsd::Base64Binary,
    hex: xsd::HexBinary,
    dec: xsd::Decimal,
    q: xsd::QNameValue,
    color: Color,
}

#[derive(Debug, Serialize, Deserialize, PartialEq)]
enum Color {
    #[serde(rename = "red")]
    Red,
    Blue,
}

fn everything() -> Everything {
    Everything {
        s: "a <b> & \"c\" é ☃".into(),
        n: Some(-5),
        none: None,
        list: vec![1, 2, 3],
        empty: vec![],
        grid: vec![
            vec!["a".into(), "b".into()],
            vec!["c".into(), "d".into()],
            vec!["e".into(), "f".into()],
        ],
        ragged: vec![vec![1], vec![2, 3], vec![]],
        inner: SoapStruct {
            var_string: "x".into(),
            var_int: 1,
            var_float: 3.14159,
        },
        structs: vec![
            SoapStruct {
                var_string: "y".into(),
                var_int: 2,
                var_float: -0.5
            };
            2
        ],
        b: true,
        d: f64::NEG_INFINITY,
        when: "2001-05-24T17:31:41Z".parse().unwrap(),
        blob: xsd::Base64Binary(vec![0, 1, 2, 255]),
        hex: xsd::HexBinary(vec![0xde, 0xad]),
        dec: "123.45678901234567890".parse().unwrap(),
        q: xsd::QNameValue(QName::new("urn:q", "local")),
        color: Color::Red,
    }
}

#[test]
fn round_trip_all_styles_and_versions() {
    for version in [Version::Soap11, Version::Soap12] {
        for style in [Style::Literal, Style::Encoded] {
            for qualified in [false, true] {
                let mut opts = EncodeOptions::default();
                opts.version = version;
                opts.style = style;
                opts.qualified = qualified;
                let w = QName::new("urn:test", "echoEverything");
                let text = encode_str(&opts, &w, &everything());
                let env = Envelope::parse(text.as_bytes(), &Limits::default()).unwrap();
                assert_eq!(env.body_element(), Some(&w));
                let back: Everything = env.body(style).unwrap_or_else(|e| panic!("{e}\n{text}"));
                assert_eq!(back, everything(), "{text}");
            }
        }
    }
}

#[test]
fn encoded_output_shape() {
    let mut opts = EncodeOptions::default();
    opts.style = Style::Encoded;
    #[derive(Serialize)]
    struct R {
        grid: Vec<Vec<String>>,
        ints: Vec<i32>,
    }
    let text = encode_str(
        &opts,
        &QName::new("urn:t", "r"),
        &R {
            grid: vec![vec!["a".into(), "b".into()]],
            ints: vec![1, 2],
        },
    );
    assert!(text.contains(r#"<grid xsi:type="soapenc:Array" soapenc:arrayType="xsd:string[1,2]"><item>a</item><item>b</item></grid>"#), "{text}");
    assert!(text.contains(r#"<ints xsi:type="soapenc:Array" soapenc:arrayType="xsd:int[2]"><item>1</item><item>2</item></ints>"#), "{text}");
}

#[test]
fn echo_float_1999() {
    let doc = r#"<?xml version="1.0"?>
<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:soapenc="http://schemas.xmlsoap.org/soap/encoding/" xmlns:xsi="http://www.w3.org/1999/XMLSchema-instance" xmlns:xsd="http://www.w3.org/1999/XMLSchema">
<soap:Body>
<echoFloat xmlns="http://tempuri.org/">
<input xsi:type="xsd:float">3.14159</input>
</echoFloat>
</soap:Body>
</soap:Envelope>"#;
    #[derive(Deserialize)]
    struct EchoFloat {
        input: f32,
    }
    let env = Envelope::parse(doc.as_bytes(), &Limits::default()).unwrap();
    assert_eq!(
        env.body_element(),
        Some(&QName::new("http://tempuri.org/", "echoFloat"))
    );
    let v: EchoFloat = env.body(Style::Encoded).unwrap();
    assert_eq!(v.input, 3.14159);
}

#[test]
fn multi_ref_and_cycles() {
    let doc = r##"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema">
<s:Body><op><inner href="#a"/><list href="#b"/></op>
<multiRef id="a"><varString>x</varString><varInt href="#c"/><varFloat>1.5</varFloat></multiRef>
<multiRef id="c" xsi:type="xsd:int">7</multiRef>
<multiRef id="b" xmlns:enc="http://schemas.xmlsoap.org/soap/encoding/" enc:arrayType="xsd:int[2]"><i>1</i><i>2</i></multiRef>
</s:Body></s:Envelope>"##;
    #[derive(Deserialize, Debug)]
    struct Op {
        inner: SoapStruct,
        list: Vec<i32>,
    }
    let v: Op = decode(doc, Style::Encoded).unwrap();
    assert_eq!(
        v.inner,
        SoapStruct {
            var_string: "x".into(),
            var_int: 7,
            var_float: 1.5
        }
    );
    assert_eq!(v.list, vec![1, 2]);
    let cyc = r##"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><op><inner href="#a"/></op>
<m id="a"><varString href="#a"/></m></s:Body></s:Envelope>"##;
    #[derive(Deserialize, Debug)]
    struct Op2 {
        #[allow(dead_code)]
        inner: SoapStruct,
    }
    let e = decode::<Op2>(cyc, Style::Encoded).unwrap_err();
    assert!(e.to_string().contains("cycle"), "{e}");
    let missing = cyc.replace("id=\"a\"", "id=\"z\"");
    let e = decode::<Op2>(&missing, Style::Encoded).unwrap_err();
    assert!(e.to_string().contains("unresolved reference `#a`"), "{e}");
}
