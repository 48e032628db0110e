//! A struct whose serde name is in Clark notation (`{ns}Type`) is a type of another schema than
//! the wrapper's: encoded style names it `ns1:Type` with `ns1` bound to `ns` on the element (and
//! on an array of it, for `arrayType`), as SOAPBuilders' `SOAPStruct` lives in
//! `http://soapinterop.org/xsd` beside operations in `http://soapinterop.org/`. Decoding is by
//! local names and does not care.

use serde::{Deserialize, Serialize};
use soapstone_codec::*;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename = "{http://soapinterop.org/xsd}SOAPStruct")]
struct SoapStruct {
    #[serde(rename = "varString")]
    s: String,
    #[serde(rename = "varInt")]
    i: i32,
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Args {
    #[serde(rename = "inputStruct")]
    one: SoapStruct,
    #[serde(rename = "inputStructArray")]
    many: Vec<SoapStruct>,
}

fn args() -> Args {
    let s = |i| SoapStruct {
        s: format!("s{i}"),
        i,
    };
    Args {
        one: s(0),
        many: vec![s(1), s(2)],
    }
}

#[test]
fn encoded_types_of_another_schema_are_declared_where_named() {
    let mut opts = EncodeOptions::default();
    opts.style = Style::Encoded;
    let mut out = Vec::new();
    let wrapper = QName::new("http://soapinterop.org/", "echoStructs");
    encode(&mut out, &opts, &[], &wrapper, &args()).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.contains(
            r#"<inputStruct xsi:type="ns1:SOAPStruct" xmlns:ns1="http://soapinterop.org/xsd">"#
        ),
        "{text}"
    );
    assert!(
        text.contains(r#"soapenc:arrayType="ns1:SOAPStruct[2]""#)
            && text.contains(r#"[2]" xmlns:ns1="http://soapinterop.org/xsd">"#),
        "{text}"
    );
    let env = Envelope::parse(text.as_bytes(), &Limits::default()).unwrap();
    assert_eq!(env.body::<Args>(Style::Encoded).unwrap(), args());
}

#[test]
fn literal_style_writes_no_type_names() {
    let mut opts = EncodeOptions::default();
    opts.qualified = true;
    let mut out = Vec::new();
    let wrapper = QName::new("urn:a", "echoStructs");
    encode(&mut out, &opts, &[], &wrapper, &args()).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(!text.contains("ns1"), "{text}");
    let env = Envelope::parse(text.as_bytes(), &Limits::default()).unwrap();
    assert_eq!(env.body::<Args>(Style::Literal).unwrap(), args());
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename = "{urn:common}Filter")]
struct Filter {
    #[serde(rename = "name")]
    name: String,
    #[serde(rename = "limit")]
    limit: Vec<Limit>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename = "{urn:limits}Limit")]
struct Limit {
    #[serde(rename = "max")]
    max: i32,
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Find {
    #[serde(rename = "filter")]
    filter: Filter,
    #[serde(rename = "page")]
    page: i32,
}

#[test]
fn qualified_children_of_a_type_of_another_schema_are_in_its_namespace() {
    let mut opts = EncodeOptions::default();
    opts.qualified = true;
    let value = Find {
        filter: Filter {
            name: "a".into(),
            limit: vec![Limit { max: 1 }, Limit { max: 2 }],
        },
        page: 3,
    };
    let mut out = Vec::new();
    encode(&mut out, &opts, &[], &QName::new("urn:svc", "find"), &value).unwrap();
    let text = String::from_utf8(out).unwrap();
    // `filter` is the service's element; its children are in `urn:common`, and the children
    // of each `limit` in `urn:limits`; `page` is the service's again.
    let body = &text[text.find("<tns:find").unwrap()..];
    assert!(
        body.contains(
            r#"<filter><name xmlns="urn:common">a</name><limit xmlns="urn:common"><max xmlns="urn:limits">1</max></limit><limit xmlns="urn:common"><max xmlns="urn:limits">2</max></limit></filter><page>3</page>"#
        ),
        "{text}"
    );
    let env = Envelope::parse(text.as_bytes(), &Limits::default()).unwrap();
    assert_eq!(env.body::<Find>(Style::Literal).unwrap(), value);
}
