//! Code-first attributes and text content: `#[derive(XsdType)]` reads `#[serde(rename =
//! "@name")]` and `"$text"` (and `#[xsd(default)]`) so a hand-written `#[service]` publishes
//! `xsd:attribute`s and `simpleContent` exactly as a WSDL-generated one does (one model, one
//! emitter), its server reads them from start tags (raw bytes over a real TcpStream), its client
//! sends them, and the published WSDL reads back to the same types.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use soapstone_service::{service, Fault, XsdType};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, XsdType)]
pub enum Unit {
    #[serde(rename = "kg")]
    Kg,
    #[serde(rename = "lb")]
    Lb,
}

/// A weight: text content with a unit attribute.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, XsdType)]
pub struct Weight {
    #[serde(rename = "@unit")]
    pub unit: Unit,
    #[serde(rename = "@approx")]
    #[xsd(default = "false")]
    pub approx: Option<bool>,
    #[serde(rename = "$text")]
    pub value: f64,
}

/// A parcel: attributes beside elements.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, XsdType)]
pub struct Parcel {
    #[serde(rename = "@id")]
    pub id: u32,
    #[serde(rename = "@label")]
    pub label: Option<String>,
    pub to: String,
    pub weight: Weight,
}

#[service(name = "Post", namespace = "urn:post")]
pub trait Post {
    /// Weighs a parcel in kilograms.
    async fn weigh(&self, parcel: Parcel) -> Result<Weight, Fault>;
}

struct Office;

impl Post for Office {
    async fn weigh(&self, parcel: Parcel) -> Result<Weight, Fault> {
        let w = parcel.weight;
        Ok(match w.unit {
            Unit::Kg => w,
            Unit::Lb => Weight {
                unit: Unit::Kg,
                approx: Some(true),
                value: w.value * 0.45,
            },
        })
    }
}

async fn serve() -> (std::net::SocketAddr, tokio::sync::oneshot::Sender<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let serving = soapstone_server::Server::builder()
        .mount("/post", Arc::new(PostServer::new(Office)))
        .serve_with_shutdown(listener, async move {
            let _ = rx.await;
        })
        .unwrap();
    let addr = serving.local_addr();
    tokio::spawn(std::future::IntoFuture::into_future(serving));
    (addr, tx)
}

async fn post(addr: std::net::SocketAddr, body: &str) -> String {
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "POST /post HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml; charset=utf-8\r\nSOAPAction: \"urn:post#weigh\"\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    s.write_all(format!("{head}{body}").as_bytes())
        .await
        .unwrap();
    let mut reply = Vec::new();
    tokio::time::timeout(
        std::time::Duration::from_secs(30),
        s.read_to_end(&mut reply),
    )
    .await
    .expect("an answer in time")
    .unwrap();
    String::from_utf8(reply).unwrap()
}

#[tokio::test]
async fn a_code_first_service_reads_and_writes_attributes_and_text() {
    let (addr, stop) = serve().await;
    let body = r#"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" xmlns:p="urn:post"><s:Body><p:weigh><p:parcel id="9" label="fragile &amp; heavy"><p:to>Bo</p:to><p:weight unit="lb">10</p:weight></p:parcel></p:weigh></s:Body></s:Envelope>"#;
    let reply = post(addr, body).await;
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    assert!(
        reply.contains(r#"<return unit="kg" approx="true">4.5</return>"#),
        "{reply}"
    );

    let bad = body.replace(r#"unit="lb""#, r#"unit="stone""#);
    let reply = post(addr, &bad).await;
    assert!(reply.starts_with("HTTP/1.1 500"), "{reply}");
    assert!(reply.contains("/weigh/parcel/weight/@unit"), "{reply}");
    assert!(reply.contains("stone"), "{reply}");

    let client = PostClient::new(&format!("http://{addr}/post")).unwrap();
    let parcel = Parcel {
        id: 1,
        label: None,
        to: "Ann".into(),
        weight: Weight {
            unit: Unit::Kg,
            approx: None,
            value: 2.0,
        },
    };
    assert_eq!(client.weigh(parcel.clone()).await.unwrap(), parcel.weight);
    let _ = stop.send(());
}

#[test]
fn the_published_wsdl_declares_them_and_reads_back_to_the_same_types() {
    let model = post_model();
    let wsdl = soapstone_service::wsdl::wsdl(model, "http://127.0.0.1:1/post");
    for expected in [
        r#"<xsd:attribute name="id" type="xsd:unsignedInt" use="required"/>"#,
        r#"<xsd:attribute name="label" type="xsd:string"/>"#,
        r#"<xsd:attribute name="unit" type="tns:Unit" use="required"/>"#,
        r#"<xsd:attribute name="approx" type="xsd:boolean" default="false"/>"#,
        r#"<xsd:extension base="xsd:double">"#,
    ] {
        assert!(wsdl.contains(expected), "{expected}\n{wsdl}");
    }
    let defs = soapstone_service::wsdl::read::read_str(
        &wsdl,
        "post.wsdl",
        &soapstone_service::wsdl::read::ReadOptions::default(),
    )
    .unwrap();
    let port = defs.default_port("Post").unwrap().to_string();
    let again = defs.service_model("Post", &port).unwrap();
    for t in ["Parcel", "Weight", "Unit"] {
        assert_eq!(again.schema.get(t), model.schema.get(t), "{t}\n{wsdl}");
    }
}
