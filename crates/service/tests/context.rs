//! A handler's `ctx: &Context`: header blocks decoded on demand, the peer's address, response
//! header blocks, and facts a layer attached; over a real loopback server where the wire
//! matters.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Arc;

use bytes::Bytes;
use serde::{Deserialize, Serialize};
use soapstone_service::{
    service, Context, Fault, Principal, QName, ServiceConfig, SoapRequest, SoapService, Version,
};

const TOKEN_NS: &str = "urn:example:token";

#[derive(Debug, Serialize, Deserialize)]
struct Token {
    user: String,
    #[serde(default)]
    tries: Option<i32>,
}

#[derive(Debug, Serialize)]
struct Served {
    by: String,
}

fn token_name() -> QName {
    QName::new(TOKEN_NS, "Token")
}

#[service(name = "Who", namespace = "urn:who")]
pub trait Who {
    /// Who sent the request, as its `Token` header block says.
    async fn who_am_i(&self, ctx: &Context, greeting: String) -> Result<String, Fault>;
    /// The peer's IP address.
    async fn peer(&self, ctx: &Context) -> Result<String, Fault>;
    /// The principal a layer attached, or `nobody`.
    async fn principal(&self, ctx: &Context) -> Result<String, Fault>;
    /// Without a context: still served as before.
    async fn plain(&self, n: i32) -> Result<i32, Fault>;
}

struct Impl;

impl Who for Impl {
    async fn who_am_i(&self, ctx: &Context, greeting: String) -> Result<String, Fault> {
        let token: Option<Token> = ctx.header(&token_name())?;
        let user = token.map_or_else(|| "anonymous".to_owned(), |t| t.user);
        ctx.add_header(
            &QName::new(TOKEN_NS, "Served"),
            &Served { by: "impl".into() },
        )?;
        Ok(format!("{greeting}, {user}"))
    }
    async fn peer(&self, ctx: &Context) -> Result<String, Fault> {
        Ok(ctx
            .peer()
            .map_or_else(|| "unknown".into(), |p| p.ip().to_string()))
    }
    async fn principal(&self, ctx: &Context) -> Result<String, Fault> {
        Ok(match ctx.principal() {
            Some(p) if p.may("read") => format!("{} may read", p.name),
            Some(p) => format!("{} may not read", p.name),
            None => "nobody".into(),
        })
    }
    async fn plain(&self, n: i32) -> Result<i32, Fault> {
        Ok(n + 1)
    }
}

fn envelope(header: &str, body: &str) -> String {
    format!(
        r#"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" xmlns:t="{TOKEN_NS}"><s:Header>{header}</s:Header><s:Body>{body}</s:Body></s:Envelope>"#
    )
}

fn call(service: &dyn SoapService, request: SoapRequest) -> String {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let response = rt.block_on(service.call(request));
    String::from_utf8(response.body.to_vec()).unwrap()
}

fn request(xml: String) -> SoapRequest {
    SoapRequest::new(Version::Soap11, None, Bytes::from(xml))
}

#[test]
fn a_header_block_decodes_on_demand_and_a_response_header_is_written() {
    let server = WhoServer::new(Impl);
    let xml = envelope(
        "<t:Token><t:user>ada</t:user><t:tries>2</t:tries></t:Token>",
        r#"<w:whoAmI xmlns:w="urn:who"><greeting>hello</greeting></w:whoAmI>"#,
    );
    let text = call(&server, request(xml));
    assert!(text.contains(">hello, ada<"), "{text}");
    let doc = roxmltree::Document::parse(&text).unwrap();
    let served = doc
        .descendants()
        .find(|n| n.has_tag_name((TOKEN_NS, "Served")))
        .unwrap_or_else(|| panic!("no Served header: {text}"));
    assert_eq!(
        served.parent().unwrap().tag_name().name(),
        "Header",
        "{text}"
    );
    assert_eq!(
        served
            .children()
            .find(|n| n.has_tag_name((TOKEN_NS, "by")))
            .and_then(|n| n.text()),
        Some("impl"),
        "{text}"
    );
}

#[test]
fn a_missing_header_is_none_and_a_bad_one_is_a_client_fault_naming_it() {
    let server = WhoServer::new(Impl);
    let body = r#"<w:whoAmI xmlns:w="urn:who"><greeting>hi</greeting></w:whoAmI>"#;
    let text = call(&server, request(envelope("", body)));
    assert!(text.contains(">hi, anonymous<"), "{text}");

    let bad = envelope("<t:Token><t:tries>many</t:tries></t:Token>", body);
    let text = call(&server, request(bad));
    assert!(text.contains(":Client</faultcode>"), "{text}");
    assert!(text.contains("header `Token`"), "{text}");
    assert!(
        !text.contains("Served"),
        "a fault carries no response header: {text}"
    );
}

#[test]
fn a_must_understand_header_is_refused_unless_the_service_declares_it_understood() {
    let header = r#"<t:Token s:mustUnderstand="1"><t:user>ada</t:user></t:Token>"#;
    let body = r#"<w:whoAmI xmlns:w="urn:who"><greeting>hi</greeting></w:whoAmI>"#;
    let text = call(&WhoServer::new(Impl), request(envelope(header, body)));
    assert!(text.contains("MustUnderstand"), "{text}");

    let mut config = ServiceConfig::default();
    config.understood_headers.push(token_name());
    let server = WhoServer::new(Impl).with_config(config);
    let text = call(&server, request(envelope(header, body)));
    assert!(text.contains(">hi, ada<"), "{text}");
}

#[test]
fn a_layer_attaches_a_principal_the_handler_reads() {
    let server = WhoServer::new(Impl);
    let body = r#"<w:principal xmlns:w="urn:who"/>"#;
    let text = call(&server, request(envelope("", body)));
    assert!(text.contains(">nobody<"), "{text}");

    let mut req = request(envelope("", body));
    req.extensions.insert(Principal::new(
        "ada",
        ["read".to_owned(), "move".to_owned()],
    ));
    let text = call(&server, req);
    assert!(text.contains(">ada may read<"), "{text}");

    let mut req = request(envelope("", body));
    req.extensions
        .insert(Principal::new("bob", ["move".to_owned()]));
    let text = call(&server, req);
    assert!(text.contains(">bob may not read<"), "{text}");
}

#[test]
fn the_server_tells_the_handler_its_peer() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = soapstone_server::Server::builder()
        .mount("/who", Arc::new(WhoServer::new(Impl)))
        .serve_with_shutdown(listener, async move {
            let _ = stopped.await;
        })
        .unwrap();
    let addr = serving.local_addr();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let server = rt.spawn(std::future::IntoFuture::into_future(serving));

    let body = envelope(
        "",
        r#"<w:peer xmlns:w="urn:who"/><!-- the handler reads the connection's peer -->"#,
    );
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(30)))
        .unwrap();
    write!(
        stream,
        "POST /who HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml; charset=utf-8\r\nSOAPAction: \"\"\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains(">127.0.0.1<"), "{answer}");

    let _ = stop.send(());
    rt.block_on(server).unwrap().unwrap();
}

#[test]
fn a_method_without_context_is_unchanged() {
    let server = WhoServer::new(Impl);
    let body = r#"<w:plain xmlns:w="urn:who"><n>41</n></w:plain>"#;
    let text = call(&server, request(envelope("", body)));
    assert!(text.contains(">42<"), "{text}");
    // and the model has no part for the context
    let model = WhoServer::<Impl>::model();
    let op = model
        .operations
        .iter()
        .find(|o| o.name == "whoAmI")
        .unwrap();
    assert_eq!(op.input.len(), 1, "{:?}", op.input);
}
