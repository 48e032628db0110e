//! How the dynamic client reads answers real servers send (issue 9, item 5), with the
//! SOAPBuilders Round 2 WSDL (`testdata/soapbuilders-round2-wsdl/r2-interop.wsdl`): Axis-style
//! result names, missing results, text where an array belongs, partial and sparse SOAP-ENC
//! arrays, multi-refs. The first test answers over a real TcpStream with the raw bytes an
//! Axis 1.4 server sends.

use std::sync::Arc;

use bytes::Bytes;
use serde_json::json;
use soapstone_dynamic::{CallError, DynamicClient, Target};
use soapstone_wsdl::read::{read, ReadOptions};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

fn client(endpoint: &str) -> DynamicClient {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../testdata/soapbuilders-round2-wsdl/r2-interop.wsdl"
    );
    let defs = read(path, &ReadOptions::default()).unwrap();
    let mut target = Target::default();
    target.endpoint = Some(endpoint.to_string());
    DynamicClient::new(Arc::new(defs), &target).unwrap()
}

fn envelope(body: &str) -> Bytes {
    Bytes::from(format!(
        r#"<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:soapenc="http://schemas.xmlsoap.org/soap/encoding/"><soapenv:Body>{body}</soapenv:Body></soapenv:Envelope>"#
    ))
}

/// One HTTP answer with `body` to the first request on a fresh loopback listener.
async fn answer_once(body: Bytes) -> (String, tokio::task::JoinHandle<Vec<u8>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!(
        "http://{}/axis/services/echo",
        listener.local_addr().unwrap()
    );
    let task = tokio::spawn(async move {
        let (mut s, _) = listener.accept().await.unwrap();
        let mut req = Vec::new();
        let mut buf = [0u8; 4096];
        // Read the head and the Content-Length body.
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
        let head = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: text/xml; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        );
        s.write_all(&[head.as_bytes(), &body].concat())
            .await
            .unwrap();
        req
    });
    (url, task)
}

#[tokio::test]
async fn an_axis_result_named_echo_integer_array_return_decodes_over_the_wire() {
    // Axis 1.4 names the result `echoIntegerArrayReturn` and sends the array as a multi-ref.
    let body = envelope(
        r##"<ns1:echoIntegerArrayResponse soapenv:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/" xmlns:ns1="http://soapinterop.org/"><echoIntegerArrayReturn href="#id0"/></ns1:echoIntegerArrayResponse><multiRef id="id0" soapenc:root="0" soapenv:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/" xsi:type="soapenc:Array" soapenc:arrayType="xsd:int[3]"><item>1</item><item>2</item><item>3</item></multiRef>"##,
    );
    let (url, server) = answer_once(body).await;
    let c = client(&url);
    let answer = c
        .call("echoIntegerArray", &json!({"inputIntegerArray": [1, 2, 3]}))
        .await
        .unwrap();
    assert_eq!(answer.value, json!([1, 2, 3]));
    let request = String::from_utf8(server.await.unwrap()).unwrap();
    // The WSDL's soapAction (`http://`, as written in r2-interop.wsdl), quoted.
    assert!(
        request
            .to_ascii_lowercase()
            .contains("\r\nsoapaction: \"http://\"\r\n"),
        "{request}"
    );
    assert!(
        request.contains(r#"<echoIntegerArray xmlns="http://soapinterop.org/""#)
            && request.contains(r#"<inputIntegerArray xmlns="" "#)
            && request.contains(r#"soapenc:arrayType="xsd:int[3]""#),
        "{request}"
    );
}

#[test]
fn a_one_part_answer_is_found_whatever_its_element_is_called() {
    let c = client("http://127.0.0.1:9/");
    let body = envelope(
        r#"<ns1:echoFloatResponse xmlns:ns1="http://soapinterop.org/"><echoFloatReturn xsi:type="xsd:float">654.321</echoFloatReturn></ns1:echoFloatResponse>"#,
    );
    assert_eq!(c.response("echoFloat", 200, &body).unwrap(), json!(654.321));
}

#[test]
fn a_missing_result_is_an_error_naming_what_was_found() {
    let c = client("http://127.0.0.1:9/");
    let body = envelope(r#"<ns1:echoIntegerArrayResponse xmlns:ns1="http://soapinterop.org/"/>"#);
    let e = c.response("echoIntegerArray", 200, &body).unwrap_err();
    assert!(matches!(e, CallError::Response { .. }));
    assert_eq!(
        e.to_string(),
        "the response has no `outputIntegerArray` at `/echoIntegerArrayResponse` (found: nothing) (HTTP 200)"
    );
    // With two elements, neither named as the WSDL says, nothing is guessed.
    let body = envelope(
        r#"<ns1:echoIntegerResponse xmlns:ns1="http://soapinterop.org/"><a>1</a><b>2</b></ns1:echoIntegerResponse>"#,
    );
    let e = c.response("echoInteger", 200, &body).unwrap_err();
    assert_eq!(
        e.to_string(),
        "the response has no `outputInteger` at `/echoIntegerResponse` (found: `a`, `b`) (HTTP 200)"
    );
}

#[test]
fn text_where_an_array_belongs_is_an_error_not_an_empty_array() {
    let c = client("http://127.0.0.1:9/");
    let body = envelope(
        r#"<ns1:echoIntegerArrayResponse xmlns:ns1="http://soapinterop.org/"><return>1 2 3</return></ns1:echoIntegerArrayResponse>"#,
    );
    let e = c.response("echoIntegerArray", 200, &body).unwrap_err();
    assert!(
        e.to_string().starts_with(
            "text `1 2 3` where an array was expected at `/echoIntegerArrayResponse/return`"
        ),
        "{e}"
    );
}

#[test]
fn partial_and_sparse_arrays_decode_to_what_they_mean() {
    let c = client("http://127.0.0.1:9/");
    // SOAP 1.1 section 5.4.2.1: a partial array from offset 2 of 5.
    let body = envelope(
        r#"<ns1:echoIntegerArrayResponse xmlns:ns1="http://soapinterop.org/"><return soapenc:arrayType="xsd:int[5]" soapenc:offset="[2]"><item>3</item><item>4</item></return></ns1:echoIntegerArrayResponse>"#,
    );
    assert_eq!(
        c.response("echoIntegerArray", 200, &body).unwrap(),
        json!([null, null, 3, 4, null])
    );
    // Section 5.4.2.2: a sparse array.
    let body = envelope(
        r#"<ns1:echoIntegerArrayResponse xmlns:ns1="http://soapinterop.org/"><return soapenc:arrayType="xsd:int[4]"><item soapenc:position="[3]">9</item><item soapenc:position="[0]">7</item></return></ns1:echoIntegerArrayResponse>"#,
    );
    assert_eq!(
        c.response("echoIntegerArray", 200, &body).unwrap(),
        json!([7, null, null, 9])
    );
    // A position far beyond the elements sent is refused, not allocated.
    let body = envelope(
        r#"<ns1:echoIntegerArrayResponse xmlns:ns1="http://soapinterop.org/"><return soapenc:arrayType="xsd:int[999999999]"><item soapenc:position="[999999998]">1</item></return></ns1:echoIntegerArrayResponse>"#,
    );
    let e = c.response("echoIntegerArray", 200, &body).unwrap_err();
    assert!(
        e.to_string()
            .contains("is beyond its 1 elements plus 10000"),
        "{e}"
    );
}

#[test]
fn a_fault_is_an_error_with_code_reason_and_detail() {
    let c = client("http://127.0.0.1:9/");
    let body = envelope(
        r#"<soapenv:Fault><faultcode>soapenv:Server</faultcode><faultstring>no such thing</faultstring><detail><e>42</e></detail></soapenv:Fault>"#,
    );
    match c.response("echoInteger", 500, &body).unwrap_err() {
        CallError::Fault { fault, .. } => {
            assert_eq!(fault.code, "soapenv:Server");
            assert_eq!(fault.reason, "no such thing");
            assert_eq!(fault.detail, "<e>42</e>");
            assert_eq!(
                fault.to_string(),
                "fault `soapenv:Server`: no such thing (detail: <e>42</e>)"
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn an_href_cycle_ends() {
    let c = client("http://127.0.0.1:9/");
    let body = envelope(
        r##"<ns1:echoIntegerResponse xmlns:ns1="http://soapinterop.org/"><return href="#a"/></ns1:echoIntegerResponse><x id="a" href="#b"/><y id="b" href="#a"/>"##,
    );
    let e = c.response("echoInteger", 200, &body).unwrap_err();
    assert!(e.to_string().contains("`href` chain longer than 8"), "{e}");
}
