//! Body and header elements of simple types (`wsdl/simple.wsdl`, after node-soap's
//! `recursive.wsdl` and `IndienenBericht` sample): the generated client calls the generated
//! server over a loopback socket; on the wire (raw bytes over a TcpStream) the response body is
//! the element with the value as its text, `<Ack>Success</Ack>`, and the server reads a request
//! body and a header block that are one value each.

mod support;

use std::sync::Arc;

use soapstone_build_test::simple::{AckValue, Simple, SimpleClient, SimpleServer, Ticket};
use soapstone_service::{Context, Fault};

struct Svc;

impl Simple for Svc {
    async fn check(&self, id: i32) -> Result<AckValue, Fault> {
        Ok(if id > 0 {
            AckValue::Success
        } else {
            AckValue::Failure
        })
    }

    async fn measure(
        &self,
        _ctx: &Context,
        value: String,
        ticket: Option<Ticket>,
    ) -> Result<i32, Fault> {
        match ticket {
            Some(t) if t.value == "t-1" => Ok(value.chars().count() as i32),
            Some(t) => Err(Fault::client(format!("bad ticket `{}`", t.value))),
            None => Err(Fault::client("no ticket")),
        }
    }
}

async fn serve() -> support::Running {
    support::serve(vec![("/simple", Arc::new(SimpleServer::new(Svc)))]).await
}

#[tokio::test]
async fn the_generated_client_and_server_exchange_simple_bodies_and_headers() {
    let server = serve().await;
    let client = SimpleClient::new(&format!("http://{}/simple", server.addr)).unwrap();
    assert_eq!(client.check(3).await.unwrap(), AckValue::Success);
    assert_eq!(client.check(0).await.unwrap(), AckValue::Failure);
    let ticket = Ticket {
        value: "t-1".into(),
    };
    let answer = client
        .measure("héllo <&>".into(), Some(ticket))
        .await
        .unwrap();
    assert_eq!(answer, 9);
    let e = client.measure("x".into(), None).await.unwrap_err();
    assert_eq!(e.fault().unwrap().reason, "no ticket");
    server.stop().await;
}

#[tokio::test]
async fn a_simple_body_is_the_element_with_its_value_as_text() {
    let server = serve().await;
    let request = r#"<?xml version="1.0"?><s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" xmlns:t="urn:example:simple"><s:Body><t:Check><t:id>7</t:id></t:Check></s:Body></s:Envelope>"#;
    let (status, reply) =
        support::post(server.addr, "/simple", "urn:example:simple#check", request).await;
    assert_eq!(status, 200, "{reply}");
    let body = reply
        .split_once("<soap:Body>")
        .map(|(_, b)| b)
        .unwrap_or("");
    assert!(
        body.starts_with(
            r#"<tns:Ack xmlns:tns="urn:example:simple" xmlns="urn:example:simple">Success</tns:Ack></soap:Body>"#
        ),
        "{reply}"
    );
    // A bare request of one value and a header block of one value.
    let request = r#"<?xml version="1.0"?><s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" xmlns:t="urn:example:simple"><s:Header><t:Ticket>t-1</t:Ticket></s:Header><s:Body><t:Name>four</t:Name></s:Body></s:Envelope>"#;
    let (status, reply) = support::post(
        server.addr,
        "/simple",
        "urn:example:simple#measure",
        request,
    )
    .await;
    assert_eq!(status, 200, "{reply}");
    assert!(
        reply.contains(r#"xmlns="urn:example:simple">4</tns:Length></soap:Body>"#),
        "{reply}"
    );
    server.stop().await;
}

#[tokio::test]
async fn the_served_wsdl_reads_back_to_the_same_operations() {
    let model = soapstone_build_test::simple::simple_model();
    let text = soapstone_wsdl::wsdl(model, "http://127.0.0.1:9/simple");
    let defs = soapstone_wsdl::read::read_str(
        &text,
        "simple.wsdl",
        &soapstone_wsdl::read::ReadOptions::default(),
    )
    .unwrap();
    let again = defs.service_model("Simple", "SimpleSoap11Port").unwrap();
    assert_eq!(
        soapstone_wsdl::wsdl(&again, "http://127.0.0.1:9/simple"),
        text
    );
}
