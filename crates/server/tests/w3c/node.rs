//! The W3C SOAP 1.2 test collection's node C (the ultimate receiver), built only with the
//! public API: a `#[service]` trait for the collection's RPC operations (rpc/encoded, namespace
//! `http://example.org/ts-tests`), wrapped in a hand-written [`SoapService`] that plays the
//! roles `next`, `ultimateReceiver` and `http://example.org/ts-tests/C`, processes the header
//! blocks the collection defines (echoOk, requiredHeader, DataHolder, validateCountryCode,
//! echoResolvedRef), answers mustUnderstand, and serves the document-style body operations
//! (echoOk, echoHeader) itself.
//!
//! It never forwards (no intermediary B): the collection's messages are the ones node C
//! receives.

use std::sync::Arc;

use bytes::Bytes;
use serde::{Deserialize, Serialize};
use soapstone_codec::xsd::{Base64Binary, DateTime, Decimal};
use soapstone_codec::{self as codec, Envelope, Fault, FaultCode, QName, Style, Version};
use soapstone_service::{
    service, BoxFuture, ServiceConfig, SoapRequest, SoapResponse, SoapService, XsdType,
};

pub(crate) const TS: &str = "http://example.org/ts-tests";
const NEXT_12: &str = "http://www.w3.org/2003/05/soap-envelope/role/next";
const ULTIMATE_12: &str = "http://www.w3.org/2003/05/soap-envelope/role/ultimateReceiver";
const NEXT_11: &str = "http://schemas.xmlsoap.org/soap/actor/next";
/// The role node C plays besides `next` and `ultimateReceiver`.
const ROLE_C: &str = "http://example.org/ts-tests/C";

/// Header blocks node C understands.
const UNDERSTOOD: [&str; 5] = [
    "echoOk",
    "requiredHeader",
    "DataHolder",
    "validateCountryCode",
    "echoResolvedRef",
];

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, XsdType)]
#[serde(rename = "SOAPStruct", rename_all = "camelCase")]
pub(crate) struct SoapStruct {
    pub(crate) var_string: String,
    pub(crate) var_int: i32,
    pub(crate) var_float: f32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, XsdType)]
#[serde(rename = "SOAPStructStruct", rename_all = "camelCase")]
pub(crate) struct SoapStructStruct {
    pub(crate) var_string: String,
    pub(crate) var_int: i32,
    pub(crate) var_float: f32,
    pub(crate) var_struct: SoapStruct,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, XsdType)]
#[serde(rename = "SOAPArrayStruct", rename_all = "camelCase")]
pub(crate) struct SoapArrayStruct {
    pub(crate) var_string: String,
    pub(crate) var_int: i32,
    pub(crate) var_float: f32,
    #[serde(default)]
    pub(crate) var_array: Vec<String>,
}

/// The collection's RPC operations (SOAP 1.2 Part 2 RPC, SOAP encoding).
#[service(
    name = "TsTests",
    namespace = "http://example.org/ts-tests",
    style = "rpc"
)]
pub(crate) trait TsTests {
    async fn return_void(&self) -> Result<(), Fault>;
    async fn echo_string(&self, input_string: String) -> Result<String, Fault>;
    async fn echo_string_array(
        &self,
        input_string_array: Vec<String>,
    ) -> Result<Vec<String>, Fault>;
    async fn echo_integer_array(&self, input_integer_array: Vec<i32>) -> Result<Vec<i32>, Fault>;
    async fn echo_float_array(&self, input_float_array: Vec<f32>) -> Result<Vec<f32>, Fault>;
    async fn echo_struct(&self, input_struct: SoapStruct) -> Result<SoapStruct, Fault>;
    async fn echo_struct_array(
        &self,
        input_struct_array: Vec<SoapStruct>,
    ) -> Result<Vec<SoapStruct>, Fault>;
    #[soap(result = "outputString, outputInteger, outputFloat")]
    async fn echo_struct_as_simple_types(
        &self,
        input_struct: SoapStruct,
    ) -> Result<(String, i32, f32), Fault>;
    async fn echo_simple_types_as_struct(
        &self,
        input_string: String,
        input_int: i32,
        input_float: f32,
    ) -> Result<SoapStruct, Fault>;
    async fn echo_nested_struct(
        &self,
        input_struct: SoapStructStruct,
    ) -> Result<SoapStructStruct, Fault>;
    async fn echo_nested_array(
        &self,
        input_struct: SoapArrayStruct,
    ) -> Result<SoapArrayStruct, Fault>;
    async fn echo_base64(&self, input_base64: Base64Binary) -> Result<Base64Binary, Fault>;
    async fn echo_boolean(&self, input_boolean: bool) -> Result<bool, Fault>;
    async fn echo_date(&self, input_date: DateTime) -> Result<DateTime, Fault>;
    async fn echo_decimal(&self, input_decimal: Decimal) -> Result<Decimal, Fault>;
    async fn echo_float(&self, input_float: f32) -> Result<f32, Fault>;
    async fn count_items(&self, input_string_array: Vec<String>) -> Result<i32, Fault>;
    async fn is_nil(&self, input_string: Option<String>) -> Result<bool, Fault>;
}

pub(crate) struct Echo;

impl TsTests for Echo {
    async fn return_void(&self) -> Result<(), Fault> {
        Ok(())
    }
    async fn echo_string(&self, s: String) -> Result<String, Fault> {
        Ok(s)
    }
    async fn echo_string_array(&self, a: Vec<String>) -> Result<Vec<String>, Fault> {
        Ok(a)
    }
    async fn echo_integer_array(&self, a: Vec<i32>) -> Result<Vec<i32>, Fault> {
        Ok(a)
    }
    async fn echo_float_array(&self, a: Vec<f32>) -> Result<Vec<f32>, Fault> {
        Ok(a)
    }
    async fn echo_struct(&self, s: SoapStruct) -> Result<SoapStruct, Fault> {
        Ok(s)
    }
    async fn echo_struct_array(&self, a: Vec<SoapStruct>) -> Result<Vec<SoapStruct>, Fault> {
        Ok(a)
    }
    async fn echo_struct_as_simple_types(
        &self,
        s: SoapStruct,
    ) -> Result<(String, i32, f32), Fault> {
        Ok((s.var_string, s.var_int, s.var_float))
    }
    async fn echo_simple_types_as_struct(
        &self,
        var_string: String,
        var_int: i32,
        var_float: f32,
    ) -> Result<SoapStruct, Fault> {
        Ok(SoapStruct {
            var_string,
            var_int,
            var_float,
        })
    }
    async fn echo_nested_struct(&self, s: SoapStructStruct) -> Result<SoapStructStruct, Fault> {
        Ok(s)
    }
    async fn echo_nested_array(&self, s: SoapArrayStruct) -> Result<SoapArrayStruct, Fault> {
        Ok(s)
    }
    async fn echo_base64(&self, b: Base64Binary) -> Result<Base64Binary, Fault> {
        Ok(b)
    }
    async fn echo_boolean(&self, b: bool) -> Result<bool, Fault> {
        Ok(b)
    }
    async fn echo_date(&self, d: DateTime) -> Result<DateTime, Fault> {
        Ok(d)
    }
    async fn echo_decimal(&self, d: Decimal) -> Result<Decimal, Fault> {
        Ok(d)
    }
    async fn echo_float(&self, f: f32) -> Result<f32, Fault> {
        Ok(f)
    }
    async fn count_items(&self, a: Vec<String>) -> Result<i32, Fault> {
        Ok(a.len() as i32)
    }
    async fn is_nil(&self, s: Option<String>) -> Result<bool, Fault> {
        Ok(s.is_none())
    }
}

/// Node C: header processing around the RPC service.
pub(crate) struct NodeC {
    rpc: TsTestsServer<Echo>,
}

impl NodeC {
    pub(crate) fn new() -> Arc<Self> {
        let mut config = ServiceConfig::default().rpc_result(true);
        for local in UNDERSTOOD {
            config = config.understand(QName::new(TS, local));
        }
        Arc::new(NodeC {
            rpc: TsTestsServer::new(Echo).with_config(config),
        })
    }
}

fn targets_c(version: Version, role: Option<&str>) -> bool {
    match (role, version) {
        (None | Some(""), _) => true,
        (Some(r), Version::Soap11) => r == NEXT_11,
        (Some(r), Version::Soap12) => r == NEXT_12 || r == ULTIMATE_12 || r == ROLE_C,
    }
}

fn fault(version: Version, fault: &Fault) -> SoapResponse {
    SoapResponse::from_fault(version, None, fault)
}

/// Escapes text for element content.
fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// A `t:` element in the ts-tests namespace holding `text`.
fn ts_element(local: &str, text: &str) -> String {
    format!(r#"<t:{local} xmlns:t="{TS}">{}</t:{local}>"#, esc(text))
}

/// Puts header blocks into an encoded envelope, right after the Envelope start tag.
fn with_headers(body: &[u8], headers: &str) -> Bytes {
    let text = String::from_utf8_lossy(body);
    let Some(env) = text.find(":Envelope") else {
        return Bytes::copy_from_slice(body);
    };
    let Some(close) = text[env..].find('>') else {
        return Bytes::copy_from_slice(body);
    };
    let at = env + close + 1;
    let prefix = &text[..env];
    let prefix = &prefix[prefix.rfind('<').map_or(0, |i| i + 1)..];
    Bytes::from(format!(
        "{}<{prefix}:Header>{headers}</{prefix}:Header>{}",
        &text[..at],
        &text[at..]
    ))
}

/// A whole envelope with these header blocks and body content.
fn envelope(version: Version, headers: &str, body: &str) -> Bytes {
    let header = if headers.is_empty() {
        String::new()
    } else {
        format!("<env:Header>{headers}</env:Header>")
    };
    Bytes::from(format!(
        r#"<?xml version="1.0" encoding="UTF-8"?><env:Envelope xmlns:env="{}">{header}<env:Body>{body}</env:Body></env:Envelope>"#,
        version.envelope_ns()
    ))
}

/// `xml:base` joined with a relative `xlink:href` (W3C T75), read off the block's markup.
fn resolved_ref(markup: &str) -> Option<String> {
    let attr = |name: &str| {
        let start = markup.find(&format!("{name}=\""))? + name.len() + 2;
        Some(markup[start..].split('"').next()?.to_string())
    };
    let base = attr("xml:base")?;
    let href = markup
        .match_indices(":href=\"")
        .next()
        .and_then(|(i, _)| markup[i + 7..].split('"').next())?;
    if href.contains("://") {
        return Some(href.to_string());
    }
    let dir = &base[..base.rfind('/').map_or(0, |i| i + 1)];
    Some(format!("{dir}{href}"))
}

impl SoapService for NodeC {
    fn name(&self) -> &str {
        "TsTestsNodeC"
    }

    fn document(&self, query: &str, endpoint: &str) -> Option<String> {
        self.rpc.document(query, endpoint)
    }

    fn call(&self, request: SoapRequest) -> BoxFuture<SoapResponse> {
        let rpc = self.rpc.clone();
        Box::pin(async move { answer(&rpc, request).await })
    }
}

async fn answer(rpc: &TsTestsServer<Echo>, request: SoapRequest) -> SoapResponse {
    let env = match Envelope::parse(&request.body, &codec::Limits::default()) {
        Ok(env) => env,
        // the generated server answers these (VersionMismatch, Sender) the standard way
        Err(_) => return rpc.call(request).await,
    };
    let v = env.version();
    let mut out_headers = String::new();
    let mut required: Option<String> = None;
    let mut not_understood = Vec::new();
    for h in env.headers() {
        if !targets_c(v, h.role.as_deref()) {
            continue;
        }
        let ours = h.name.namespace == TS && UNDERSTOOD.contains(&h.name.local.as_str());
        if h.must_understand && !ours {
            not_understood.push(h.name.clone());
        }
    }
    if !not_understood.is_empty() {
        let mut out = Vec::new();
        codec::encode_must_understand_fault(&mut out, v, &not_understood);
        return SoapResponse::new(v, true, None, Bytes::from(out))
            .with_fault_code(FaultCode::MustUnderstand);
    }
    for (i, h) in env.headers().iter().enumerate() {
        if !targets_c(v, h.role.as_deref()) || h.name.namespace != TS {
            continue;
        }
        let text = || env.header::<String>(i, Style::Literal);
        match h.name.local.as_str() {
            "echoOk" => match text() {
                Ok(t) => out_headers.push_str(&ts_element("responseOk", &t)),
                Err(e) => return fault(v, &Fault::from(&e)),
            },
            "requiredHeader" => required = text().ok(),
            "validateCountryCode" => {
                let code = text().unwrap_or_default();
                let code = code.trim();
                if code.len() != 2 || !code.chars().all(|c| c.is_ascii_alphabetic()) {
                    let resp = fault(v, &Fault::client("Not a valid country code"));
                    let block = ts_element(
                        "validateCountryCodeFault",
                        "Country code must be 2 letters.",
                    );
                    let body = with_headers(&resp.body, &block);
                    return SoapResponse::new(v, true, None, body)
                        .with_fault_code(FaultCode::Client);
                }
            }
            "echoResolvedRef" => {
                let resolved = env.header_xml(i).and_then(resolved_ref);
                match resolved {
                    Some(r) => out_headers.push_str(&ts_element("responseResolvedRef", &r)),
                    None => {
                        return fault(
                            v,
                            &Fault::client("no `xml:base` and `xlink:href` to resolve"),
                        )
                    }
                }
            }
            _ => {}
        }
    }
    let body = env.body_element().cloned();
    let own = |body: &str| SoapResponse::new(v, false, None, envelope(v, &out_headers, body));
    match body {
        None => own(""),
        Some(q) if q.namespace == TS && q.local == "echoOk" => {
            match env.body::<String>(Style::Literal) {
                Ok(t) => own(&ts_element("responseOk", &t)),
                Err(e) => fault(v, &Fault::from(&e)),
            }
        }
        Some(q) if q.namespace == TS && q.local == "echoHeader" => match required {
            Some(t) => own(&ts_element("echoHeaderResponse", &t)),
            None => fault(v, &Fault::client("no `requiredHeader` to echo")),
        },
        Some(_) => {
            drop(env);
            let mut resp = rpc.call(request).await;
            if !out_headers.is_empty() {
                resp.body = with_headers(&resp.body, &out_headers);
            }
            resp
        }
    }
}
