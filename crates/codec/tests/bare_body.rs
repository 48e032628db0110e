//! Messages without a wrapper: a struct named `$body` is the Body's children themselves
//! (document/literal with several body parts, or none), written by `encode` when the wrapper
//! has an empty local name (node-soap's `builtin_types.wsdl`, `empty_body.wsdl`).

use serde::{Deserialize, Serialize};
use soapstone_codec::*;

#[derive(Debug, Serialize, Deserialize, PartialEq)]
#[serde(rename = "$body")]
struct Parts {
    #[serde(rename = "intElement")]
    int: i32,
    #[serde(rename = "stringElement")]
    string: Option<String>,
    #[serde(rename = "{urn:other}flag")]
    flag: bool,
}

#[derive(Debug, Serialize, Deserialize, PartialEq)]
#[serde(rename = "$body")]
struct Nothing {}

#[derive(Debug, Serialize, Deserialize, PartialEq)]
struct Wrapped {
    #[serde(rename = "intElement")]
    int: i32,
}

fn qualified() -> EncodeOptions {
    let mut o = EncodeOptions::default();
    o.qualified = true;
    o
}

fn decode<T: serde::de::DeserializeOwned>(doc: &str) -> Result<T, DecodeError> {
    Envelope::parse(doc.as_bytes(), &Limits::default())?.body(Style::Literal)
}

#[test]
fn several_parts_are_the_body_children_in_order_both_ways() {
    let value = Parts {
        int: 7,
        string: Some("a<b".into()),
        flag: true,
    };
    let mut out = Vec::new();
    encode(
        &mut out,
        &qualified(),
        &[],
        &QName::new("urn:b", ""),
        &value,
    )
    .unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.contains(r#"<soap:Body xmlns:tns="urn:b" xmlns="urn:b"><intElement>7</intElement><stringElement>a&lt;b</stringElement><"#),
        "{text}"
    );
    assert!(text.ends_with("</soap:Body></soap:Envelope>"), "{text}");
    assert!(
        text.contains(r#"flag xmlns"#) && text.contains("urn:other"),
        "{text}"
    );
    let env = Envelope::parse(text.as_bytes(), &Limits::default()).unwrap();
    assert_eq!(env.body_name(), Some(("urn:b", "intElement")));
    assert_eq!(env.body::<Parts>(Style::Literal).unwrap(), value);

    // as another toolkit writes it: prefixes, whitespace, an absent optional part
    let doc = r#"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body>
        <b:intElement xmlns:b="urn:b">-1</b:intElement>
        <o:flag xmlns:o="urn:other">false</o:flag>
      </s:Body></s:Envelope>"#;
    let p: Parts = decode(doc).unwrap();
    assert_eq!(
        p,
        Parts {
            int: -1,
            string: None,
            flag: false
        }
    );
}

#[test]
fn a_bare_message_reports_a_missing_part_and_a_bad_value_with_its_path() {
    let doc = r#"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><intElement>x</intElement><flag>true</flag></s:Body></s:Envelope>"#;
    let e = decode::<Parts>(doc).unwrap_err().to_string();
    assert!(e.contains("intElement"), "{e}");
    let doc = r#"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><intElement>1</intElement></s:Body></s:Envelope>"#;
    let e = decode::<Parts>(doc).unwrap_err().to_string();
    assert!(e.contains("missing element `flag`"), "{e}");
    // nothing after Body but what SOAP allows
    let doc = r#"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><intElement>1</intElement><flag>1</flag></s:Body><x/></s:Envelope>"#;
    assert!(
        decode::<Parts>(doc).is_ok(),
        "SOAP 1.1 allows elements after Body"
    );
    let doc12 = r#"<s:Envelope xmlns:s="http://www.w3.org/2003/05/soap-envelope"><s:Body><intElement>1</intElement><flag>1</flag></s:Body><x/></s:Envelope>"#;
    let e = decode::<Parts>(doc12).unwrap_err().to_string();
    assert!(e.contains("after Body"), "{e}");
}

#[test]
fn no_parts_is_an_empty_body_both_ways() {
    let mut out = Vec::new();
    encode(
        &mut out,
        &qualified(),
        &[],
        &QName::new("urn:b", ""),
        &Nothing {},
    )
    .unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.ends_with(
            r#"<soap:Body xmlns:tns="urn:b" xmlns="urn:b"></soap:Body></soap:Envelope>"#
        ),
        "{text}"
    );
    let env = Envelope::parse(text.as_bytes(), &Limits::default()).unwrap();
    assert_eq!(env.body_name(), None);
    assert_eq!(env.body::<Nothing>(Style::Literal).unwrap(), Nothing {});
    let doc =
        r#"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body/></s:Envelope>"#;
    assert_eq!(decode::<Nothing>(doc).unwrap(), Nothing {});
}

#[test]
fn a_wrapped_type_still_reads_the_first_body_element() {
    let doc = r#"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><w><intElement>3</intElement></w></s:Body></s:Envelope>"#;
    assert_eq!(decode::<Wrapped>(doc).unwrap(), Wrapped { int: 3 });
    // and a second body element is still refused for it
    let doc = r#"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><w><intElement>3</intElement></w><v/></s:Body></s:Envelope>"#;
    let e = decode::<Wrapped>(doc).unwrap_err().to_string();
    assert!(e.contains("second body element"), "{e}");
    // a bad value inside the wrapper keeps its path
    let doc = r#"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><w><intElement>x</intElement></w></s:Body></s:Envelope>"#;
    let e = decode::<Wrapped>(doc).unwrap_err().to_string();
    assert!(e.contains("/w/intElement"), "{e}");
}
