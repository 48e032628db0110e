//! Operations that answer with several parts (`#[soap(result = "a, b, c")]` on a tuple result):
//! the wire shape of the response wrapper in both styles, the WSDL output message, and a
//! generated client and server agreeing over a real loopback server.

use std::sync::Arc;

use bytes::Bytes;
use serde::{Deserialize, Serialize};
use soapstone_service::{
    service, Fault, FaultCode, SoapRequest, SoapResponse, SoapService, Version, XsdType,
};

const XSI: &str = "http://www.w3.org/2001/XMLSchema-instance";
const WSDL: &str = "http://schemas.xmlsoap.org/wsdl/";
const XSD: &str = "http://www.w3.org/2001/XMLSchema";

/// SOAPBuilders' SOAPStruct.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, XsdType)]
#[serde(rename_all = "camelCase")]
pub struct SoapStruct {
    pub var_string: String,
    pub var_int: i32,
    pub var_float: f32,
}

macro_rules! split_service {
    ($trait:ident, $name:literal, $style:literal) => {
        #[service(name = $name, namespace = "urn:split", style = $style)]
        pub trait $trait {
            /// Round 2 group B's `echoStructAsSimpleTypes`.
            #[soap(result = "outputString, outputInteger, outputFloat")]
            async fn split(&self, input_struct: SoapStruct) -> Result<(String, i32, f32), Fault>;
            /// A list part and an optional part.
            #[soap(result = " sorted ,note")]
            async fn sort(&self, values: Vec<i32>) -> Result<(Vec<i32>, Option<String>), Fault>;
            /// A struct part beside a plain one; fails on a negative count.
            #[soap(result = "copy, count")]
            async fn repeat(&self, s: SoapStruct, n: i32) -> Result<(SoapStruct, i64), Fault>;
        }

        impl $trait for Splitter {
            async fn split(&self, s: SoapStruct) -> Result<(String, i32, f32), Fault> {
                Ok((s.var_string, s.var_int, s.var_float))
            }
            async fn sort(&self, mut v: Vec<i32>) -> Result<(Vec<i32>, Option<String>), Fault> {
                v.sort_unstable();
                let note = v.is_empty().then(|| "empty".to_string());
                Ok((v, note))
            }
            async fn repeat(&self, s: SoapStruct, n: i32) -> Result<(SoapStruct, i64), Fault> {
                if n < 0 {
                    return Err(Fault::client(format!("count `{n}` is negative")));
                }
                Ok((s, i64::from(n) * 2))
            }
        }
    };
}

pub struct Splitter;

split_service!(SplitEncoded, "SplitEncoded", "rpc");
split_service!(SplitLiteral, "SplitLiteral", "document");

fn call(service: &dyn SoapService, version: Version, body: &str) -> SoapResponse {
    let envelope = format!(
        r#"<?xml version="1.0"?>
<e:Envelope xmlns:e="{}" xmlns:xsd="http://www.w3.org/2001/XMLSchema"
  xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><e:Body>{body}</e:Body></e:Envelope>"#,
        version.envelope_ns()
    );
    let request = SoapRequest::new(version, None, Bytes::from(envelope));
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(service.call(request))
}

/// Each child of the response wrapper: (namespace, local name, xsi:type, text).
fn parts(response: &SoapResponse) -> Vec<(String, String, Option<String>, String)> {
    let text = std::str::from_utf8(&response.body).unwrap();
    assert!(!response.fault, "{text}");
    let doc = roxmltree::Document::parse(text).unwrap();
    let body = doc
        .root_element()
        .children()
        .find(|n| n.tag_name().name() == "Body")
        .unwrap();
    let wrapper = body.first_element_child().unwrap();
    wrapper
        .children()
        .filter(|c| c.is_element())
        .map(|c| {
            (
                c.tag_name().namespace().unwrap_or("").to_string(),
                c.tag_name().name().to_string(),
                c.attribute((XSI, "type")).map(str::to_string),
                c.text().unwrap_or("").to_string(),
            )
        })
        .collect()
}

fn part(
    ns: &str,
    name: &str,
    ty: Option<&str>,
    text: &str,
) -> (String, String, Option<String>, String) {
    (
        ns.to_string(),
        name.to_string(),
        ty.map(str::to_string),
        text.to_string(),
    )
}

#[test]
fn encoded_response_has_one_typed_element_per_part() {
    let server = SplitEncodedServer::new(Splitter);
    for version in [Version::Soap11, Version::Soap12] {
        let body = r#"<s:split xmlns:s="urn:split"><inputStruct><varString>arg</varString><varInt>34</varInt><varFloat>34.345</varFloat></inputStruct></s:split>"#;
        let response = call(&server, version, body);
        assert_eq!(response.operation, Some("split"));
        assert_eq!(
            parts(&response),
            [
                part("", "outputString", Some("xsd:string"), "arg"),
                part("", "outputInteger", Some("xsd:int"), "34"),
                part("", "outputFloat", Some("xsd:float"), "34.345"),
            ]
        );
    }
}

#[test]
fn literal_response_parts_are_qualified_and_optional_parts_absent() {
    let server = SplitLiteralServer::new(Splitter);
    let body =
        r#"<s:sort xmlns:s="urn:split"><s:values>3</s:values><s:values>1</s:values></s:sort>"#;
    let got = parts(&call(&server, Version::Soap11, body));
    assert_eq!(
        got,
        [
            part("urn:split", "sorted", None, "1"),
            part("urn:split", "sorted", None, "3"),
        ]
    );
    let got = parts(&call(
        &server,
        Version::Soap12,
        r#"<s:sort xmlns:s="urn:split"/>"#,
    ));
    assert_eq!(got, [part("urn:split", "note", None, "empty")]);
}

#[test]
fn an_error_is_a_fault_not_a_partial_answer() {
    for server in [
        Arc::new(SplitEncodedServer::new(Splitter)) as Arc<dyn SoapService>,
        Arc::new(SplitLiteralServer::new(Splitter)),
    ] {
        let body = r#"<s:repeat xmlns:s="urn:split"><s><varString>a</varString><varInt>1</varInt><varFloat>1</varFloat></s><n>-1</n></s:repeat>"#;
        let response = call(&*server, Version::Soap11, body);
        assert!(response.fault);
        let text = std::str::from_utf8(&response.body).unwrap();
        assert!(text.contains("count `-1` is negative"), "{text}");
    }
}

/// The `wsdl:part`s of message `name`: (part name, type).
fn message_parts(doc: &roxmltree::Document, name: &str) -> Vec<(String, String)> {
    let message = doc
        .descendants()
        .find(|n| n.has_tag_name((WSDL, "message")) && n.attribute("name") == Some(name))
        .unwrap_or_else(|| panic!("no message `{name}`"));
    message
        .children()
        .filter(|c| c.has_tag_name((WSDL, "part")))
        .map(|c| {
            let ty = c.attribute("type").or(c.attribute("element")).unwrap_or("");
            (c.attribute("name").unwrap().to_string(), ty.to_string())
        })
        .collect()
}

fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
    items
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

#[test]
fn encoded_wsdl_output_message_lists_every_part() {
    let wsdl = SplitEncodedServer::new(Splitter)
        .document("wsdl", "http://127.0.0.1:1/split")
        .unwrap();
    let doc = roxmltree::Document::parse(&wsdl).unwrap();
    assert_eq!(
        message_parts(&doc, "splitResponse"),
        pairs(&[
            ("outputString", "xsd:string"),
            ("outputInteger", "xsd:int"),
            ("outputFloat", "xsd:float"),
        ])
    );
    assert_eq!(
        message_parts(&doc, "repeatResponse"),
        pairs(&[("copy", "tns:SoapStruct"), ("count", "xsd:long")])
    );
    let sort = message_parts(&doc, "sortResponse");
    assert_eq!(
        sort.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(),
        ["sorted", "note"]
    );
    assert_eq!(
        message_parts(&doc, "splitRequest"),
        pairs(&[("inputStruct", "tns:SoapStruct")])
    );
}

#[test]
fn literal_wsdl_response_element_is_a_sequence_of_parts() {
    let wsdl = SplitLiteralServer::new(Splitter)
        .document("wsdl", "http://127.0.0.1:1/split")
        .unwrap();
    let doc = roxmltree::Document::parse(&wsdl).unwrap();
    assert_eq!(
        message_parts(&doc, "splitResponse"),
        pairs(&[("parameters", "tns:splitResponse")])
    );
    let element = |name: &str| {
        let el = doc
            .descendants()
            .find(|n| n.has_tag_name((XSD, "element")) && n.attribute("name") == Some(name))
            .unwrap_or_else(|| panic!("no element `{name}`: {wsdl}"));
        el.descendants()
            .skip(1)
            .filter(|c| c.has_tag_name((XSD, "element")))
            .map(|c| {
                let occurs = [
                    c.attribute("minOccurs").unwrap_or("1"),
                    c.attribute("maxOccurs").unwrap_or("1"),
                ]
                .join("..");
                (c.attribute("name").unwrap().to_string(), occurs)
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(
        element("splitResponse"),
        pairs(&[
            ("outputString", "1..1"),
            ("outputInteger", "1..1"),
            ("outputFloat", "1..1"),
        ])
    );
    assert_eq!(
        element("sortResponse"),
        pairs(&[("sorted", "0..unbounded"), ("note", "0..1")])
    );
}

#[test]
fn model_has_the_parts_in_order() {
    for model in [split_encoded_model(), split_literal_model()] {
        let op = &model.operations[0];
        let names: Vec<_> = op.output.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["outputString", "outputInteger", "outputFloat"]);
        model.validate().unwrap();
    }
}

#[test]
fn generated_client_returns_the_tuple() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = soapstone_server::Server::builder()
        .mount("/encoded", Arc::new(SplitEncodedServer::new(Splitter)))
        .mount("/literal", Arc::new(SplitLiteralServer::new(Splitter)))
        .serve_with_shutdown(listener, async move {
            let _ = stopped.await;
        })
        .unwrap();
    let addr = serving.local_addr();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let server = rt.spawn(std::future::IntoFuture::into_future(serving));
    rt.block_on(async {
        let st = SoapStruct {
            var_string: "Hello <&>".into(),
            var_int: -34,
            var_float: 325.325,
        };
        for version in [Version::Soap11, Version::Soap12] {
            let encoded = SplitEncodedClient::new(&format!("http://{addr}/encoded"))
                .unwrap()
                .with_version(version);
            let literal = SplitLiteralClient::new(&format!("http://{addr}/literal"))
                .unwrap()
                .with_version(version);
            macro_rules! agree {
                ($c:expr) => {{
                    let (s, i, f) = $c.split(st.clone()).await.unwrap();
                    assert_eq!((s.as_str(), i, f), ("Hello <&>", -34, 325.325));
                    assert_eq!(
                        $c.sort(vec![3, -1, 2]).await.unwrap(),
                        (vec![-1, 2, 3], None)
                    );
                    assert_eq!(
                        $c.sort(vec![]).await.unwrap(),
                        (vec![], Some("empty".to_string()))
                    );
                    assert_eq!($c.repeat(st.clone(), 21).await.unwrap(), (st.clone(), 42));
                    let err = $c.repeat(st.clone(), -2).await.unwrap_err();
                    let fault = err.fault().expect("a fault");
                    assert_eq!(fault.code, FaultCode::Client);
                    assert_eq!(fault.reason, "count `-2` is negative");
                }};
            }
            agree!(encoded);
            agree!(literal);
        }
    });
    let _ = stop.send(());
    rt.block_on(server).unwrap().unwrap();
}
