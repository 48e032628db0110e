//! `ServiceConfig::array_item_types`: encoded array items carry their own `xsi:type` when it
//! is on (zeep needs it; the default), and not when turned off; literal responses never do.

use bytes::Bytes;
use soapstone_service::{service, Fault, ServiceConfig, SoapRequest, SoapService, Version};

const XSI: &str = "http://www.w3.org/2001/XMLSchema-instance";

#[service(name = "Encoded", namespace = "urn:arrays", style = "rpc")]
pub trait Encoded {
    #[soap(result = "values, grid")]
    async fn echo(
        &self,
        values: Vec<i32>,
        grid: Vec<Vec<String>>,
    ) -> Result<(Vec<i32>, Vec<Vec<String>>), Fault>;
}

#[service(name = "Literal", namespace = "urn:arrays")]
pub trait Literal {
    #[soap(result = "values, grid")]
    async fn echo(
        &self,
        values: Vec<i32>,
        grid: Vec<Vec<String>>,
    ) -> Result<(Vec<i32>, Vec<Vec<String>>), Fault>;
}

struct Echo;

impl Encoded for Echo {
    async fn echo(
        &self,
        v: Vec<i32>,
        g: Vec<Vec<String>>,
    ) -> Result<(Vec<i32>, Vec<Vec<String>>), Fault> {
        Ok((v, g))
    }
}

impl Literal for Echo {
    async fn echo(
        &self,
        v: Vec<i32>,
        g: Vec<Vec<String>>,
    ) -> Result<(Vec<i32>, Vec<Vec<String>>), Fault> {
        Ok((v, g))
    }
}

/// (item element count, how many carry `xsi:type`, the distinct xsi:types) of a response.
fn items(service: &dyn SoapService, body: &str) -> (usize, usize, Vec<String>) {
    let envelope = format!(
        r#"<e:Envelope xmlns:e="http://schemas.xmlsoap.org/soap/envelope/"><e:Body>{body}</e:Body></e:Envelope>"#
    );
    let request = SoapRequest::new(Version::Soap11, None, Bytes::from(envelope));
    let response = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(service.call(request));
    let text = String::from_utf8(response.body.to_vec()).unwrap();
    assert!(!response.fault, "{text}");
    let doc = roxmltree::Document::parse(&text).unwrap();
    let mut types: Vec<String> = Vec::new();
    let (mut all, mut typed) = (0, 0);
    for item in doc.descendants().filter(|n| n.tag_name().name() == "item") {
        all += 1;
        if let Some(t) = item.attribute((XSI, "type")) {
            typed += 1;
            if !types.iter().any(|x| x == t) {
                types.push(t.to_string());
            }
        }
    }
    (all, typed, types)
}

const ENCODED: &str = r#"<a:echo xmlns:a="urn:arrays"><values><item>1</item><item>2</item><item>3</item></values><grid xmlns:enc="http://schemas.xmlsoap.org/soap/encoding/" enc:arrayType="xsd:string[2,2]"><item>a</item><item>b</item><item>c</item><item>d</item></grid></a:echo>"#;

#[test]
fn encoded_items_are_typed_by_default() {
    assert!(ServiceConfig::default().array_item_types);
    let server = EncodedServer::new(Echo);
    assert_eq!(
        items(&server, ENCODED),
        (7, 7, vec!["xsd:int".to_string(), "xsd:string".to_string()])
    );
}

#[test]
fn encoded_items_untyped_when_turned_off() {
    let server =
        EncodedServer::new(Echo).with_config(ServiceConfig::default().array_item_types(false));
    assert_eq!(items(&server, ENCODED), (7, 0, vec![]));
}

#[test]
fn literal_items_never_typed() {
    let body = r#"<a:echo xmlns:a="urn:arrays"><a:values>1</a:values><a:values>2</a:values><a:grid><a:item>a</a:item><a:item>b</a:item></a:grid></a:echo>"#;
    let server = LiteralServer::new(Echo);
    assert_eq!(items(&server, body), (2, 0, vec![]));
}
