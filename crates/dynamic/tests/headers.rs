//! Header blocks and one-way operations in the dynamic client, over a real TcpStream: the
//! SOAPBuilders Round 2 echoHeader WSDL (`testdata/soapbuilders-round2-wsdl/r2-echoheadersvc.wsdl`:
//! rpc/encoded header parts typed with `type=`, named by the part in the `soap:header`'s
//! namespace) and node-soap's one-way WSDL (`testdata/node-soap/wsdl/strict/one-way.wsdl`).

use std::sync::Arc;

use serde_json::json;
use soapstone_dynamic::{CallError, DynamicClient, Target};
use soapstone_wsdl::read::{read, ReadOptions};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

fn client(wsdl: &str, endpoint: &str) -> DynamicClient {
    let path = format!("{}/../../testdata/{wsdl}", env!("CARGO_MANIFEST_DIR"));
    let defs = read(&path, &ReadOptions::default()).unwrap();
    let mut target = Target::default();
    target.endpoint = Some(endpoint.to_string());
    DynamicClient::new(Arc::new(defs), &target).unwrap()
}

/// Answers the first request on a fresh loopback listener with `status` and `body`; the
/// task returns the request's bytes.
async fn answer_once(
    status: &'static str,
    body: String,
) -> (String, tokio::task::JoinHandle<String>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/svc", listener.local_addr().unwrap());
    let task = tokio::spawn(async move {
        let (mut s, _) = listener.accept().await.unwrap();
        let mut req = Vec::new();
        let mut buf = [0u8; 4096];
        loop {
            let n = s.read(&mut buf).await.unwrap();
            assert!(n > 0, "the client closed before sending a whole request");
            req.extend_from_slice(&buf[..n]);
            let text = String::from_utf8_lossy(&req).to_string();
            if let Some(i) = text.find("\r\n\r\n") {
                let len: usize = text[..i]
                    .lines()
                    .find_map(|l| {
                        let (k, v) = l.split_once(':')?;
                        k.eq_ignore_ascii_case("content-length")
                            .then(|| v.trim().parse().ok())?
                    })
                    .unwrap();
                if req.len() >= i + 4 + len {
                    break;
                }
            }
        }
        let ct = if body.is_empty() {
            String::new()
        } else {
            "Content-Type: text/xml; charset=utf-8\r\n".to_string()
        };
        let head = format!(
            "HTTP/1.1 {status}\r\n{ct}Content-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        );
        s.write_all(format!("{head}{body}").as_bytes())
            .await
            .unwrap();
        String::from_utf8(req).unwrap()
    });
    (url, task)
}

const ENV: &str = r#"<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:soapenc="http://schemas.xmlsoap.org/soap/encoding/">"#;

#[tokio::test]
async fn encoded_header_blocks_are_sent_and_the_response_s_are_read() {
    let answer = format!(
        r#"{ENV}<soapenv:Header><h:echoMeStringResponse xmlns:h="http://soapinterop.org/echoheader/" soapenv:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/" xsi:type="xsd:string">hi</h:echoMeStringResponse></soapenv:Header><soapenv:Body><ns1:echoStringResponse xmlns:ns1="http://soapinterop.org/" soapenv:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"><return xsi:type="xsd:string">body</return></ns1:echoStringResponse></soapenv:Body></soapenv:Envelope>"#
    );
    let (url, task) = answer_once("200 OK", answer).await;
    let c = client("soapbuilders-round2-wsdl/r2-echoheadersvc.wsdl", &url);
    assert!(c.declares_response_headers("echoString").unwrap());
    let headers = json!({
        "echoMeStringRequest": "hi",
        "echoMeStructRequest": {"varString": "s", "varInt": 7, "varFloat": 1.5},
    });
    let got = c
        .call_with_headers("echoString", &json!({"inputString": "body"}), &headers)
        .await
        .unwrap();
    assert_eq!(got.value, "body");
    assert_eq!(got.headers, json!({"echoMeStringResponse": "hi"}));
    let req = task.await.unwrap();
    // The part's name in the soap:header's namespace, encoded (`encodingStyle`, `xsi:type`),
    // inside `Header`, before `Body`.
    let header = req
        .split("<soapenv:Header>")
        .nth(1)
        .and_then(|h| h.split("</soapenv:Header>").next())
        .unwrap_or_else(|| panic!("no Header in {req}"));
    assert!(
        header.starts_with(r#"<echoMeStringRequest soapenv:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/" xmlns="http://soapinterop.org/echoheader/" xsi:type="xsd:string">hi</echoMeStringRequest>"#),
        "{header}"
    );
    assert!(header.contains("<echoMeStructRequest soapenv:encodingStyle=\"http://schemas.xmlsoap.org/soap/encoding/\" xmlns=\"http://soapinterop.org/echoheader/\""), "{header}");
    assert!(header.contains(">7</varInt>"), "{header}");
    assert!(
        req.find("</soapenv:Header><soapenv:Body>").is_some(),
        "{req}"
    );
}

#[tokio::test]
async fn a_header_the_binding_does_not_declare_is_refused_before_sending() {
    let c = client(
        "soapbuilders-round2-wsdl/r2-echoheadersvc.wsdl",
        "http://127.0.0.1:9/",
    );
    let err = c
        .request_with_headers(
            "echoString",
            &json!({"inputString": "x"}),
            &json!({"bogus": 1}),
        )
        .unwrap_err();
    let CallError::Args(e) = err else {
        panic!("{err}")
    };
    assert_eq!(e.path, "headers/bogus");
    assert!(
        e.message.contains("unknown header `bogus`") && e.message.contains("echoMeStringRequest"),
        "{e}"
    );
    // No headers: no Header element at all.
    let (_, xml) = c
        .request("echoString", &json!({"inputString": "x"}))
        .unwrap();
    assert!(!String::from_utf8(xml).unwrap().contains("Header"));
}

#[tokio::test]
async fn a_one_way_call_returns_null_on_202_and_a_request_response_one_does_not() {
    let (url, task) = answer_once("202 Accepted", String::new()).await;
    let c = client("node-soap/wsdl/strict/one-way.wsdl", &url);
    let got = c
        .call("OneWay", &json!({"OneWayField": "x"}))
        .await
        .unwrap();
    assert_eq!(got.value, serde_json::Value::Null);
    let req = task.await.unwrap();
    assert!(req.contains(">x</OneWayField>"), "{req}");

    // An operation with an output answered without an envelope is not a success.
    let (url, _task) = answer_once("202 Accepted", String::new()).await;
    let c = client("soapbuilders-round2-wsdl/r2-interop.wsdl", &url);
    let err = c
        .call("echoInteger", &json!({"inputInteger": 1}))
        .await
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("the answer has no envelope, but `echoInteger` is not one-way"),
        "{err}"
    );
}
