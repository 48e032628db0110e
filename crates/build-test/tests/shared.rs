//! Two operations that share their request and response elements (`wsdl/shared.wsdl`, after
//! node-soap's `non_identifier_chars_in_operation.wsdl`) are told apart by SOAPAction: the
//! generated client calls each, and on the wire (raw bytes over a TcpStream) a request whose
//! SOAPAction names neither is a Client fault that says so, not a guess. Also node-soap's
//! `NoParams` (rpc/encoded, no `namespace` on `soap:body`): its wrapper is in the WSDL's target
//! namespace, and the generated client and server agree.

mod support;

use std::sync::Arc;

use soapstone_build_test::no_params::{NoParams, NoParamsClient, NoParamsServer};
use soapstone_build_test::shared::{Arith, ArithClient, ArithServer};
use soapstone_service::Fault;

struct Calc;

impl Arith for Calc {
    async fn add(&self, a: i32, b: i32) -> Result<i32, Fault> {
        Ok(a + b)
    }

    async fn subtract(&self, a: i32, b: i32) -> Result<i32, Fault> {
        Ok(a - b)
    }
}

#[tokio::test]
async fn operations_sharing_an_element_are_routed_by_soap_action() {
    let server = support::serve(vec![("/arith", Arc::new(ArithServer::new(Calc)))]).await;
    let client = ArithClient::new(&format!("http://{}/arith", server.addr)).unwrap();
    assert_eq!(client.add(7, 2).await.unwrap(), 9);
    assert_eq!(client.subtract(7, 2).await.unwrap(), 5);

    let body = r#"<?xml version="1.0"?><s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" xmlns:a="urn:example:arith"><s:Body><a:Pair><a:a>10</a:a><a:b>4</a:b></a:Pair></s:Body></s:Envelope>"#;
    let (status, reply) =
        support::post(server.addr, "/arith", "urn:example:arith#subtract", body).await;
    assert_eq!(status, 200, "{reply}");
    assert!(reply.contains(">6</"), "{reply}");
    let (status, reply) = support::post(server.addr, "/arith", "", body).await;
    assert_eq!(status, 500, "{reply}");
    assert!(
        reply.contains("`{urn:example:arith}Pair` is the request of several operations of service `Arith`: the SOAPAction says which"),
        "{reply}"
    );
    server.stop().await;
}

#[test]
fn the_served_wsdl_declares_a_shared_element_once() {
    let model = soapstone_build_test::shared::arith_model();
    let text = soapstone_wsdl::wsdl(model, "http://127.0.0.1:9/arith");
    assert_eq!(
        text.matches("<xsd:element name=\"Pair\"").count(),
        1,
        "{text}"
    );
    assert_eq!(
        text.matches("<xsd:element name=\"Result\"").count(),
        1,
        "{text}"
    );
}

struct Np;

impl NoParams for Np {
    async fn no_params(&self) -> Result<String, Fault> {
        Ok("done".into())
    }
}

#[tokio::test]
async fn an_rpc_body_without_a_namespace_is_in_the_target_namespace() {
    let server = support::serve(vec![("/np", Arc::new(NoParamsServer::new(Np)))]).await;
    let client = NoParamsClient::new(&format!("http://{}/np", server.addr)).unwrap();
    assert_eq!(client.no_params().await.unwrap(), "done");
    // What node-soap sends for it (its recorded `request.xml`).
    let body = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../testdata/node-soap/request-response-samples/NoParams__add_correct_namespace_for_operations_without_parameters/request.xml"
    ))
    .unwrap();
    let (status, reply) = support::post(
        server.addr,
        "/np",
        "http://tempuri.org/no-params/action/no-params.NoParams",
        &body,
    )
    .await;
    assert_eq!(status, 200, "{reply}");
    assert!(reply.contains(">done</Result>"), "{reply}");
    server.stop().await;
}

/// The operation a dispatcher chose for an envelope laid over a remembered opening is kept
/// per thread with the action it was chosen by: the same body, with its opening remembered
/// after the first call, is routed by each call's own SOAPAction, whatever came before.
#[test]
fn an_operation_kept_for_a_remembered_opening_follows_each_calls_action() {
    use soapstone_service::{Action, SoapRequest, SoapService, Version};
    let server = ArithServer::new(Calc);
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let body = r#"<?xml version="1.0"?><s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" xmlns:a="urn:example:arith"><s:Body><a:Pair><a:a>10</a:a><a:b>4</a:b></a:Pair></s:Body></s:Envelope>"#;
    let add = "urn:example:arith#add";
    let subtract = "urn:example:arith#subtract";
    for (i, action) in [add, add, subtract, subtract, add, "", add, "", subtract]
        .into_iter()
        .enumerate()
    {
        let request = SoapRequest::new(
            Version::Soap11,
            (!action.is_empty()).then(|| Action::new(action)),
            bytes::Bytes::from_static(body.as_bytes()),
        );
        let r = rt.block_on(server.call(request));
        let text = String::from_utf8_lossy(&r.body).into_owned();
        match action {
            "" => assert!(
                r.fault && text.contains("the SOAPAction says which"),
                "{i}: {text}"
            ),
            a if a == add => assert!(!r.fault && text.contains(">14</"), "{i}: {text}"),
            _ => assert!(!r.fault && text.contains(">6</"), "{i}: {text}"),
        }
    }
}
