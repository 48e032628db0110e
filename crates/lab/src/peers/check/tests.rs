//! The answers below are what the peers really sent during development (gSOAP 2.8.124, spyne
//! 2.14, node-soap 1.13, PHP 8.2 ext/soap, SOAP::Lite 1.27, Axis2 2.0.0, CXF 4.2.3, Apache SOAP
//! 2.3.1), shortened to size 5 or fewer.

use super::*;

const GSOAP_INTS: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<SOAP-ENV:Envelope xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/" xmlns:SOAP-ENC="http://schemas.xmlsoap.org/soap/encoding/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:ns1="urn:test:soap"><SOAP-ENV:Body SOAP-ENV:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"><ns1:getIntegersOfSizeResponse><return SOAP-ENC:arrayType="xsd:int[5]"><item>0</item><item>1</item><item>2</item><item>3</item><item>4</item></return></ns1:getIntegersOfSizeResponse></SOAP-ENV:Body></SOAP-ENV:Envelope>"#;

const SPYNE_INTS: &str = r#"<?xml version='1.0' encoding='UTF-8'?>
<soap11env:Envelope xmlns:soap11env="http://schemas.xmlsoap.org/soap/envelope/" xmlns:tns="urn:test:soap"><soap11env:Body><tns:getIntegersOfSizeResponse><tns:getIntegersOfSizeResult><tns:integer>0</tns:integer><tns:integer>1</tns:integer><tns:integer>2</tns:integer><tns:integer>3</tns:integer><tns:integer>4</tns:integer></tns:getIntegersOfSizeResult></tns:getIntegersOfSizeResponse></soap11env:Body></soap11env:Envelope>"#;

const NODE_STRING: &str = r#"<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"  xmlns:tns="urn:test:soap"><soap:Body><tns:getStringOfSizeResponse><tns:return>abcde</tns:return></tns:getStringOfSizeResponse></soap:Body></soap:Envelope>"#;

const PHP_DO_NOTHING: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<SOAP-ENV:Envelope xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/" xmlns:ns1="urn:test:soap" SOAP-ENV:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"><SOAP-ENV:Body><ns1:doNothingResponse/></SOAP-ENV:Body></SOAP-ENV:Envelope>"#;

const NODE_FAULT: &str = r#"<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><soap:Fault><faultcode>soap:Client</faultcode><faultstring>size `[object Object]` is out of range `0..=100000`</faultstring></soap:Fault></soap:Body></soap:Envelope>"#;

/// Axis2 2.0's POJO array: repeated `<return>` elements, no wrapper.
const AXIS2_INTS: &str = r#"<?xml version="1.0" encoding="utf-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"><soapenv:Header/><soapenv:Body><ns:getIntegersOfSizeResponse xmlns:ns="urn:test:soap" xmlns:ax21="http://ws.apache.org/axis2/xsd"><return xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xs="http://www.w3.org/2001/XMLSchema" xsi:type="xs:int">0</return><return xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xs="http://www.w3.org/2001/XMLSchema" xsi:type="xs:int">1</return><return xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xs="http://www.w3.org/2001/XMLSchema" xsi:type="xs:int">2</return></ns:getIntegersOfSizeResponse></soapenv:Body></soapenv:Envelope>"#;

/// Axis2 2.0's answer to a size of 0: no `<return>` at all.
const AXIS2_NO_INTS: &str = r#"<?xml version="1.0" encoding="utf-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"><soapenv:Header/><soapenv:Body><ns:getIntegersOfSizeResponse xmlns:ns="urn:test:soap" xmlns:ax21="http://ws.apache.org/axis2/xsd"/></soapenv:Body></soapenv:Envelope>"#;

/// CXF 4.2's rpc/literal array, and its empty one.
const CXF_INTS: &str = r#"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><ns1:getIntegersOfSizeResponse xmlns:ns1="urn:test:soap"><return><item>0</item></return></ns1:getIntegersOfSizeResponse></soap:Body></soap:Envelope>"#;
const CXF_NO_INTS: &str = r#"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><ns1:getIntegersOfSizeResponse xmlns:ns1="urn:test:soap"><return/></ns1:getIntegersOfSizeResponse></soap:Body></soap:Envelope>"#;

/// Apache SOAP 2.3.1's empty SOAP-ENC:Array (whitespace inside).
const APACHE_SOAP_NO_INTS: &str = "<?xml version='1.0' encoding='UTF-8'?>\n<SOAP-ENV:Envelope xmlns:SOAP-ENV=\"http://schemas.xmlsoap.org/soap/envelope/\" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" xmlns:xsd=\"http://www.w3.org/2001/XMLSchema\">\n<SOAP-ENV:Body>\n<ns1:getIntegersOfSizeResponse xmlns:ns1=\"urn:test:soap\" SOAP-ENV:encodingStyle=\"http://schemas.xmlsoap.org/soap/encoding/\">\n<return xmlns:ns2=\"http://schemas.xmlsoap.org/soap/encoding/\" xsi:type=\"ns2:Array\" ns2:arrayType=\"xsd:int[0]\">\n</return>\n</ns1:getIntegersOfSizeResponse>\n\n</SOAP-ENV:Body>\n</SOAP-ENV:Envelope>\n";

/// A multi-ref answer as Apache SOAP/Axis 1 send them.
const MULTIREF_INTS: &str = r##"<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"><soapenv:Body><ns1:getIntegersOfSizeResponse xmlns:ns1="urn:test:soap"><return href="#id0"/></ns1:getIntegersOfSizeResponse><multiRef id="id0"><item>0</item><item href="#id1"/><item>2</item></multiRef><multiRef id="id1">1</multiRef></soapenv:Body></soapenv:Envelope>"##;

#[test]
fn the_peers_real_answers_pass() {
    check_envelope(GSOAP_INTS, "getIntegersOfSize", Some(5)).unwrap();
    check_envelope(SPYNE_INTS, "getIntegersOfSize", Some(5)).unwrap();
    check_envelope(NODE_STRING, "getStringOfSize", Some(5)).unwrap();
    check_envelope(PHP_DO_NOTHING, "doNothing", None).unwrap();
    check_envelope(MULTIREF_INTS, "getIntegersOfSize", Some(3)).unwrap();
    check_envelope(AXIS2_INTS, "getIntegersOfSize", Some(3)).unwrap();
    check_envelope(AXIS2_NO_INTS, "getIntegersOfSize", Some(0)).unwrap();
    check_envelope(CXF_INTS, "getIntegersOfSize", Some(1)).unwrap();
    check_envelope(CXF_NO_INTS, "getIntegersOfSize", Some(0)).unwrap();
    check_envelope(APACHE_SOAP_NO_INTS, "getIntegersOfSize", Some(0)).unwrap();
}

#[test]
fn repeated_return_elements_are_checked_as_the_array() {
    let e = check_envelope(AXIS2_INTS, "getIntegersOfSize", Some(4)).unwrap_err();
    assert_eq!(
        e,
        "`getIntegersOfSizeResponse` returned 3 integers instead of 4"
    );
    let e = check_envelope(
        &AXIS2_INTS.replace(">1</return>", ">5</return>"),
        "getIntegersOfSize",
        Some(3),
    )
    .unwrap_err();
    assert_eq!(e, "`getIntegersOfSizeResponse` item 1 is `5`, not `1`");
    // An empty array element is no integers, not one empty integer.
    let e = check_envelope(CXF_NO_INTS, "getIntegersOfSize", Some(1)).unwrap_err();
    assert_eq!(
        e,
        "`getIntegersOfSizeResponse` returned 0 integers instead of 1"
    );
}

#[test]
fn wrong_answers_fail_with_the_reason() {
    let e = check_envelope(GSOAP_INTS, "getIntegersOfSize", Some(6)).unwrap_err();
    assert_eq!(
        e,
        "`getIntegersOfSizeResponse` returned 5 integers instead of 6"
    );
    let e = check_envelope(
        &GSOAP_INTS.replace("<item>3</item>", "<item>7</item>"),
        "getIntegersOfSize",
        Some(5),
    )
    .unwrap_err();
    assert_eq!(e, "`getIntegersOfSizeResponse` item 3 is `7`, not `3`");
    let e = check_envelope(NODE_STRING, "getStringOfSize", Some(6)).unwrap_err();
    assert!(e.contains("returned 5 characters starting `abcde`"), "{e}");
    let e = check_envelope(NODE_FAULT, "getStringOfSize", Some(5)).unwrap_err();
    assert!(e.starts_with("a fault: `size `[object Object]`"), "{e}");
    let e = check_envelope(NODE_STRING, "doNothing", None).unwrap_err();
    assert_eq!(
        e,
        "`/Envelope/Body/getStringOfSizeResponse` instead of `doNothingResponse`"
    );
    assert!(check_envelope("<x", "doNothing", None)
        .unwrap_err()
        .contains("not XML"));
}

#[test]
fn http_bodies() {
    let raw = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;x=1\r\nde\r\n0\r\n\r\n";
    assert_eq!(http_body(raw).unwrap(), "abcde");
    let raw = b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabcdef";
    assert_eq!(http_body(raw).unwrap(), "abc");
    let raw = b"HTTP/1.0 200 OK\r\n\r\nto the end";
    assert_eq!(http_body(raw).unwrap(), "to the end");
    let raw = format!(
        "HTTP/1.1 500 Internal Server Error\r\nContent-Length: {}\r\n\r\n{NODE_FAULT}",
        NODE_FAULT.len()
    );
    let e = http_body(raw.as_bytes()).unwrap_err();
    assert!(
        e.starts_with("HTTP status `500` instead of 200: fault `size"),
        "{e}"
    );
    assert!(http_body(b"HTTP/1.1 200 OK\r\n").is_err());
    assert!(http_body(b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nab").is_err());
}

/// A real server on loopback that answers one request with `answer` and records the request.
async fn one_shot(answer: String) -> (String, tokio::task::JoinHandle<String>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let task = tokio::spawn(async move {
        let (mut s, _) = listener.accept().await.unwrap();
        let mut req = Vec::new();
        let mut buf = [0u8; 4096];
        // Read the head and the Content-Length body.
        loop {
            let n = s.read(&mut buf).await.unwrap();
            req.extend_from_slice(&buf[..n]);
            let text = String::from_utf8_lossy(&req).to_string();
            if let Some(i) = text.find("\r\n\r\n") {
                let len: usize = text
                    .lines()
                    .find_map(|l| l.strip_prefix("Content-Length: "))
                    .unwrap()
                    .parse()
                    .unwrap();
                if req.len() >= i + 4 + len {
                    break;
                }
            }
            assert!(n > 0, "the client closed early");
        }
        s.write_all(answer.as_bytes()).await.unwrap();
        s.shutdown().await.unwrap();
        String::from_utf8(req).unwrap()
    });
    (addr, task)
}

#[tokio::test]
async fn a_check_over_a_real_socket() {
    let ok = format!(
        "HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n{GSOAP_INTS}",
        GSOAP_INTS.len()
    );
    let (addr, task) = one_shot(ok).await;
    check_http(&addr, "/dp", "<request/>", "getIntegersOfSize", Some(5))
        .await
        .unwrap();
    let req = task.await.unwrap();
    assert!(req.starts_with("POST /dp HTTP/1.1\r\n"), "{req}");
    assert!(
        req.contains("SOAPAction: \"urn:test:soap#getIntegersOfSize\"\r\n"),
        "{req}"
    );
    assert!(req.ends_with("\r\n\r\n<request/>"), "{req}");

    let wrong = format!(
        "HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n{SPYNE_INTS}",
        SPYNE_INTS.len()
    );
    let (addr, task) = one_shot(wrong).await;
    let e = check_http(&addr, "/dp", "<r/>", "getIntegersOfSize", Some(800))
        .await
        .unwrap_err();
    assert_eq!(
        e,
        "`getIntegersOfSizeResponse` returned 5 integers instead of 800"
    );
    task.await.unwrap();
}
