//! `#[soap(header)]` on a `#[service]` parameter: the hand-written service declares a header
//! block as a WSDL-generated one does (same emitter): the server decodes it into the typed
//! parameter, a `mustUnderstand` one is understood, the published WSDL binds it with
//! `soap:header`, and the generated client sends it per call or per client. Raw bytes over a
//! real TcpStream where the wire matters.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use soapstone_service::{service, Context, Fault, Header, QName, XsdType};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const NS: &str = "urn:greeter";

/// The caller's locale, as a header block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, XsdType)]
pub struct Locale {
    pub lang: String,
}

impl Header for Locale {
    fn element() -> QName {
        QName::new(NS, "Locale")
    }
}

#[service(name = "Greeter", namespace = "urn:greeter")]
pub trait Greeter {
    /// Greets `name` in the caller's language.
    async fn greet(
        &self,
        ctx: &Context,
        name: String,
        #[soap(header)] locale: Option<Locale>,
    ) -> Result<String, Fault>;
    /// A header without a context.
    async fn lang(&self, #[soap(header)] locale: Option<Locale>) -> Result<String, Fault>;
}

struct Impl;

impl Greeter for Impl {
    async fn greet(
        &self,
        ctx: &Context,
        name: String,
        locale: Option<Locale>,
    ) -> Result<String, Fault> {
        let lang = locale.map_or_else(|| "en".to_owned(), |l| l.lang);
        ctx.set_header(&Locale { lang: lang.clone() })?;
        Ok(match lang.as_str() {
            "fr" => format!("bonjour {name}"),
            _ => format!("hello {name}"),
        })
    }
    async fn lang(&self, locale: Option<Locale>) -> Result<String, Fault> {
        Ok(locale.map_or_else(|| "none".to_owned(), |l| l.lang))
    }
}

async fn serve() -> (std::net::SocketAddr, tokio::sync::oneshot::Sender<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let serving = soapstone_server::Server::builder()
        .mount("/greet", Arc::new(GreeterServer::new(Impl)))
        .serve_with_shutdown(listener, async move {
            let _ = rx.await;
        })
        .unwrap();
    let addr = serving.local_addr();
    tokio::spawn(std::future::IntoFuture::into_future(serving));
    (addr, tx)
}

#[tokio::test]
async fn a_declared_header_parameter_is_decoded_understood_and_published() {
    let (addr, stop) = serve().await;
    let body = r#"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" xmlns:g="urn:greeter"><s:Header><g:Locale s:mustUnderstand="1"><g:lang>fr</g:lang></g:Locale></s:Header><s:Body><g:greet><g:name>Ann</g:name></g:greet></s:Body></s:Envelope>"#;
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "POST /greet HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml; charset=utf-8\r\nSOAPAction: \"urn:greeter#greet\"\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
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
    let reply = String::from_utf8(reply).unwrap();
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    assert!(reply.contains("bonjour Ann"), "{reply}");
    assert!(reply.contains(">fr</"), "{reply}");

    // The generated client: per call, then per client; without a context on the server too.
    let url = format!("http://{addr}/greet");
    let client = GreeterClient::new(&url).unwrap();
    let fr = Some(Locale { lang: "fr".into() });
    assert_eq!(
        client.greet("Bo".into(), fr.clone()).await.unwrap(),
        "bonjour Bo"
    );
    assert_eq!(client.greet("Bo".into(), None).await.unwrap(), "hello Bo");
    assert_eq!(client.lang(None).await.unwrap(), "none");
    let french = GreeterClient::new(&url)
        .unwrap()
        .with_header(&Locale { lang: "fr".into() })
        .unwrap();
    assert_eq!(french.lang(None).await.unwrap(), "fr");

    // The WSDL declares it.
    let wsdl = soapstone_service::wsdl::wsdl(greeter_model(), &url);
    assert!(
        wsdl.contains(r#"<xsd:element name="Locale" type="tns:Locale"/>"#),
        "{wsdl}"
    );
    assert!(
        wsdl.contains(
            r#"<soap:header message="tns:greetRequestHeaders" part="Locale" use="literal"/>"#
        ),
        "{wsdl}"
    );
    let _ = stop.send(());
}
