//! One request must not make a generated server hold much more than its own size (issue 8,
//! item 1): the codec refuses multi-ref amplification with a Client fault, and a handler that
//! amplifies by itself is stopped by `ServiceConfig::max_response_bytes` with a Server fault,
//! never a truncated envelope.

use bytes::Bytes;
use soapstone_service::{service, Fault, ServiceConfig, SoapRequest, SoapService, Version};

#[service(name = "Amp", namespace = "http://soapinterop.org/", style = "rpc")]
pub trait Amp {
    #[soap(name = "echoStringArray")]
    async fn echo_string_array(
        &self,
        input_string_array: Vec<String>,
    ) -> Result<Vec<String>, Fault>;
    /// `n` strings of 1,000 bytes each.
    async fn grow(&self, n: i32) -> Result<Vec<String>, Fault>;
}

struct Impl;

impl Amp for Impl {
    async fn echo_string_array(&self, v: Vec<String>) -> Result<Vec<String>, Fault> {
        Ok(v)
    }
    async fn grow(&self, n: i32) -> Result<Vec<String>, Fault> {
        Ok(vec!["g".repeat(1000); usize::try_from(n).unwrap_or(0)])
    }
}

const ENV: &str = r#"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:soapenc="http://schemas.xmlsoap.org/soap/encoding/" s:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"><s:Body>"#;

fn call(service: &dyn SoapService, body: String) -> (bool, String) {
    let request = SoapRequest::new(Version::Soap11, None, Bytes::from(body));
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let r = rt.block_on(service.call(request));
    (r.fault, String::from_utf8(r.body.to_vec()).unwrap())
}

fn grow(n: i32) -> String {
    format!(
        r#"{ENV}<m:grow xmlns:m="http://soapinterop.org/"><n xsi:type="xsd:int">{n}</n></m:grow></s:Body></s:Envelope>"#
    )
}

fn faultstring(body: &str) -> (&str, &str) {
    let between = |a: &str, b: &str| {
        let s = body.find(a).map(|i| i + a.len()).unwrap_or(0);
        let e = body[s..].find(b).map(|i| s + i).unwrap_or(s);
        &body[s..e]
    };
    (
        between("<faultcode>", "</faultcode>"),
        between("<faultstring>", "</faultstring>"),
    )
}

#[test]
fn a_handler_cannot_answer_past_max_response_bytes() {
    let server =
        AmpServer::new(Impl).with_config(ServiceConfig::default().max_response_bytes(64 << 10));
    let (fault, body) = call(&server, grow(10));
    assert!(!fault, "{body}");
    assert_eq!(
        body.matches("<item>").count() + body.matches("<item ").count(),
        10
    );

    let (fault, body) = call(&server, grow(1000));
    assert!(fault);
    let (code, reason) = faultstring(&body);
    assert!(code.ends_with("Server"), "{body}");
    assert!(
        reason.starts_with("cannot encode the response of `grow`: the message would exceed the limit of 65536 bytes"),
        "{reason}"
    );
    assert!(
        body.len() < 1024,
        "a fault, not a truncated response: {}",
        body.len()
    );
}

#[test]
fn the_default_response_limit_is_16_mib() {
    let server = AmpServer::new(Impl);
    assert_eq!(ServiceConfig::default().max_response_bytes, 16 << 20);
    // 17,000 x 1,000 bytes: past 16 MiB
    let (fault, body) = call(&server, grow(17_000));
    assert!(fault);
    assert!(
        faultstring(&body).1.contains("limit of 16777216 bytes"),
        "{body}"
    );
    let (fault, _) = call(&server, grow(16_000));
    assert!(!fault);
}

#[test]
fn the_issue_request_is_a_client_fault() {
    // the issue's echoStringArray: N items `href` one multiRef of 100 KB (1 MB in the issue)
    let n = 4_000;
    let mut body = format!(
        r#"{ENV}<m:echoStringArray xmlns:m="http://soapinterop.org/"><inputStringArray soapenc:arrayType="xsd:string[{n}]">"#
    );
    body.push_str(&"<item href=\"#b\"/>".repeat(n));
    body.push_str(
        r##"</inputStringArray></m:echoStringArray><multiRef id="b" xsi:type="xsd:string">"##,
    );
    body.push_str(&"x".repeat(100_000));
    body.push_str("</multiRef></s:Body></s:Envelope>");
    let server = AmpServer::new(Impl);
    let (fault, answer) = call(&server, body);
    assert!(fault);
    let (code, reason) = faultstring(&answer);
    assert!(code.ends_with("Client"), "{answer}");
    assert!(
        reason.contains("following reference `#b` would decode its")
            && reason.contains("budget of"),
        "{reason}"
    );
}
