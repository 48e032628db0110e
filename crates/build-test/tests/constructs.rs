//! Schema constructs of `wsdl/constructs.wsdl` over HTTP between the generated client and the
//! generated server, and raw bytes over a TcpStream: an absent attribute with a `default` or
//! `fixed` value reads as that value (both sides decode so), and a `fixed` attribute with
//! another value is a Client fault naming it; `anyAttribute` keeps the other attributes as a
//! map (`other_attributes`), both ways.

mod support;

use std::sync::Arc;

use soapstone_build_test::constructs::{Constructs, ConstructsClient, ConstructsServer, Parcel};
use soapstone_server::Server;
use soapstone_service::Fault;

struct Echo;

impl Constructs for Echo {
    async fn ship(&self, parcel: Parcel) -> Result<Parcel, Fault> {
        if parcel.label == "clear" {
            // Nothing optional written back: the client fills the values in itself.
            return Ok(Parcel {
                version: None,
                unit: None,
                fragile: None,
                ..parcel
            });
        }
        Ok(parcel)
    }
}

async fn serve() -> (std::net::SocketAddr, tokio::sync::oneshot::Sender<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let serving = Server::builder()
        .mount("/constructs", Arc::new(ConstructsServer::new(Echo)))
        .serve_with_shutdown(listener, async move {
            let _ = rx.await;
        })
        .unwrap();
    let addr = serving.local_addr();
    tokio::spawn(std::future::IntoFuture::into_future(serving));
    (addr, tx)
}

fn parcel(label: &str) -> Parcel {
    Parcel {
        kind: "box".into(),
        version: None,
        unit: None,
        fragile: None,
        weight: Some(1.5),
        other_attributes: Default::default(),
        label: label.into(),
    }
}

#[tokio::test]
async fn absent_default_and_fixed_attributes_read_as_their_values() {
    let (addr, _stop) = serve().await;
    let client = ConstructsClient::new(&format!("http://{addr}/constructs")).unwrap();
    // The server filled them in when it read the request, and wrote them back.
    let back = client.ship(parcel("keep")).await.unwrap();
    assert_eq!(back.version, Some(2));
    assert_eq!(back.unit.as_deref(), Some("metric ton"));
    assert_eq!(back.fragile, Some(false));
    assert_eq!(back.weight, Some(1.5));
    // The server wrote none of them: the client filled them in when it read the response.
    let back = client.ship(parcel("clear")).await.unwrap();
    assert_eq!(
        (back.version, back.unit.as_deref(), back.fragile),
        (Some(2), Some("metric ton"), Some(false))
    );
    // Values that are given stay as given.
    let mut p = parcel("keep");
    p.unit = Some("kg".into());
    p.fragile = Some(true);
    p.version = Some(2);
    assert_eq!(client.ship(p.clone()).await.unwrap(), p);
    // Other attributes, unqualified and qualified, travel in the map.
    p.other_attributes
        .insert("colour".into(), "red & \"blue\"".into());
    p.other_attributes
        .insert("{urn:example:extra}rank".into(), "2".into());
    assert_eq!(client.ship(p.clone()).await.unwrap(), p);
}

#[tokio::test]
async fn other_attributes_are_kept_on_the_wire() {
    let (addr, _stop) = serve().await;
    let (status, text) = support::post(
        addr,
        "/constructs",
        "urn:example:constructs#ship",
        &envelope(r#"kind="box" colour="red" xmlns:x="urn:x" x:rank="2" xsi:type="Parcel" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance""#),
    )
    .await;
    assert_eq!(status, 200, "{text}");
    assert!(text.contains(r#" colour="red""#), "{text}");
    assert!(
        text.contains(r#"="urn:x" a"#) && text.contains(r#":rank="2""#),
        "{text}"
    );
    // SOAP's and the schema instance's own attributes are not data.
    assert!(!text.contains("Parcel\""), "{text}");
    // More attributes than `Limits::max_attributes` (64): a Client fault, no map is built.
    let many: String = (0..80).map(|i| format!(" a{i}=\"v\"")).collect();
    let (status, text) = support::post(
        addr,
        "/constructs",
        "urn:example:constructs#ship",
        &envelope(&format!(r#"kind="box"{many}"#)),
    )
    .await;
    assert_eq!(status, 500, "{text}");
    assert!(text.contains("attributes"), "{text}");
}

#[test]
fn the_wsdl_served_back_declares_the_any_attribute() {
    let wsdl = soapstone_wsdl::wsdl(
        soapstone_build_test::constructs::constructs_model(),
        "http://localhost/constructs",
    );
    assert!(
        wsdl.contains(r#"<xsd:anyAttribute processContents="lax"/>"#),
        "{wsdl}"
    );
    assert!(
        wsdl.contains(r#"<xsd:attribute name="version" type="xsd:int" fixed="2"/>"#),
        "{wsdl}"
    );
}

fn envelope(attrs: &str) -> String {
    format!(
        r#"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><ship xmlns="urn:example:constructs"><parcel {attrs}><label>raw</label></parcel></ship></s:Body></s:Envelope>"#
    )
}

#[tokio::test]
async fn fixed_values_are_checked_on_the_wire() {
    let (addr, _stop) = serve().await;
    let action = "urn:example:constructs#ship";
    let (status, text) =
        support::post(addr, "/constructs", action, &envelope(r#"kind="box""#)).await;
    assert_eq!(status, 200, "{text}");
    for attr in [
        r#"kind="box""#,
        r#"version="2""#,
        r#"unit="metric ton""#,
        r#"fragile="false""#,
    ] {
        assert!(text.contains(attr), "`{attr}` in {text}");
    }
    // The same value in another lexical form is the same value.
    let (status, text) = support::post(
        addr,
        "/constructs",
        action,
        &envelope(r#"kind="box" version="+02""#),
    )
    .await;
    assert_eq!(status, 200, "{text}");

    for (attrs, name) in [
        (r#"kind="box" version="3""#, "version"),
        (r#"kind="crate""#, "kind"),
    ] {
        let (status, text) = support::post(addr, "/constructs", action, &envelope(attrs)).await;
        assert_eq!(status, 500, "{text}");
        assert!(text.contains("Client"), "{text}");
        assert!(
            text.contains(&format!("attribute `{name}` is fixed to")),
            "{attrs}: {text}"
        );
    }
}
