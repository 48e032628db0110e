//! Code-first elements of their own namespace: a field renamed `{ns}name` (or `{}name`) in a
//! `#[derive(XsdType)]` type is written in that namespace by a `#[service]`'s server and client
//! (raw bytes over a real TcpStream), and its published WSDL says so with an `xsd:import`, a
//! `ref` to a global element of that namespace's schema and `form="unqualified"`, reading back
//! to the same types (one model, one emitter, as for a WSDL-generated service).

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use soapstone_service::{service, Fault, XsdType};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// An address of another schema (`urn:common`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, XsdType)]
#[serde(rename = "{urn:common}Address")]
pub struct Address {
    pub street: String,
}

/// An order of the service's schema holding an element of `urn:common` and an unqualified one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, XsdType)]
pub struct Order {
    pub item: String,
    #[serde(rename = "{urn:common}address")]
    pub address: Address,
    #[serde(rename = "{}note")]
    pub note: Option<String>,
}

#[service(name = "Shop", namespace = "urn:shop")]
pub trait Shop {
    /// Places an order: echoes it with the street upper-cased.
    async fn place(&self, order: Order) -> Result<Order, Fault>;
}

struct Counter;

impl Shop for Counter {
    async fn place(&self, mut order: Order) -> Result<Order, Fault> {
        order.address.street = order.address.street.to_uppercase();
        Ok(order)
    }
}

async fn serve() -> (std::net::SocketAddr, tokio::sync::oneshot::Sender<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let serving = soapstone_server::Server::builder()
        .mount("/shop", Arc::new(ShopServer::new(Counter)))
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
        "POST /shop HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml; charset=utf-8\r\nSOAPAction: \"urn:shop#place\"\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
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
async fn a_code_first_service_writes_each_element_in_its_namespace() {
    let (addr, stop) = serve().await;
    let body = r#"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" xmlns:p="urn:shop" xmlns:c="urn:common"><s:Body><p:place><p:order><p:item>pen</p:item><c:address><c:street>main st</c:street></c:address><note>ring</note></p:order></p:place></s:Body></s:Envelope>"#;
    let reply = post(addr, body).await;
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    let expected = r#"<item>pen</item><address xmlns="urn:common"><street>MAIN ST</street></address><note xmlns="">ring</note>"#;
    assert!(reply.contains(expected), "{expected}\n{reply}");

    let missing = body.replace("<c:address><c:street>main st</c:street></c:address>", "");
    let reply = post(addr, &missing).await;
    assert!(reply.starts_with("HTTP/1.1 500"), "{reply}");
    assert!(
        reply.contains("/place/order/address: missing element `address`"),
        "{reply}"
    );

    let client = ShopClient::new(&format!("http://{addr}/shop")).unwrap();
    let order = Order {
        item: "ink".into(),
        address: Address {
            street: "elm".into(),
        },
        note: None,
    };
    let mut expected = order.clone();
    expected.address.street = "ELM".into();
    assert_eq!(client.place(order).await.unwrap(), expected);
    let _ = stop.send(());
}

#[test]
fn the_published_wsdl_imports_and_refers_and_reads_back_to_the_same_types() {
    let model = shop_model();
    let wsdl = soapstone_service::wsdl::wsdl(model, "http://127.0.0.1:1/shop");
    for expected in [
        r#"<xsd:import namespace="urn:common"/>"#,
        r#"<xsd:element ref="q:address" xmlns:q="urn:common"/>"#,
        r#"<xsd:element name="note" type="xsd:string" form="unqualified" minOccurs="0"/>"#,
        r#"<xsd:element name="address" type="q:Address" xmlns:q="urn:common"/>"#,
    ] {
        assert!(wsdl.contains(expected), "{expected}\n{wsdl}");
    }
    let defs = soapstone_service::wsdl::read::read_str(
        &wsdl,
        "shop.wsdl",
        &soapstone_service::wsdl::read::ReadOptions::default(),
    )
    .unwrap();
    let port = defs.default_port("Shop").unwrap().to_string();
    let again = defs.service_model("Shop", &port).unwrap();
    for t in ["Order", "Address"] {
        assert_eq!(again.schema.get(t), model.schema.get(t), "{t}\n{wsdl}");
    }
}
