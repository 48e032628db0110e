//! The SOAP HTTP binding as the wire shows it (issue 8, item 5), raw bytes over a real
//! `TcpStream` against a `#[service]` server: SOAP 1.2 Sender faults are 400 and every other
//! fault 500 (SOAP 1.2 Part 2 7.5.2.2; SOAP 1.1 6.2 answers every fault 500), the RPC
//! subcodes, the response media type follows the envelope answered, a raw control character
//! is the sender's fault, and a POST without body framing is 411.

mod common;

use std::future::IntoFuture;
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use common::{read_response, send, Resp};
use soapstone_server::Server;
use soapstone_service::{service, Fault, QName, ServiceConfig};

#[service(name = "Echo", namespace = "urn:echo", style = "rpc")]
pub trait Echo {
    async fn echo_string(&self, input: String) -> Result<String, Fault>;
    async fn fail(&self) -> Result<(), Fault>;
}

struct Impl;

impl Echo for Impl {
    async fn echo_string(&self, input: String) -> Result<String, Fault> {
        Ok(input)
    }
    async fn fail(&self) -> Result<(), Fault> {
        Err(Fault::server("`fail` always fails"))
    }
}

const ENV11: &str = "http://schemas.xmlsoap.org/soap/envelope/";
const ENV12: &str = "http://www.w3.org/2003/05/soap-envelope";

fn start() -> (SocketAddr, tokio::sync::oneshot::Sender<()>) {
    let config = ServiceConfig::default().understand(QName::new("urn:h", "known"));
    let service = std::sync::Arc::new(EchoServer::new(Impl).with_config(config));
    let server = Server::builder().mount("/echo", service).build();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let serving = server
        .serve_with_shutdown(listener, async {
            let _ = rx.await;
        })
        .unwrap();
    let addr = serving.local_addr();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let _ = rt.block_on(serving.into_future());
    });
    (addr, tx)
}

fn connect(addr: SocketAddr) -> TcpStream {
    let s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    s
}

/// Posts `body` with this media type and reads the answer.
fn post(addr: SocketAddr, media: &str, body: &str) -> Resp {
    let mut s = connect(addr);
    send(
        &mut s,
        format!(
            "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: {media}\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .as_bytes(),
    );
    read_response(&mut s).unwrap()
}

fn envelope(ns: &str, header: &str, body: &str) -> String {
    format!(
        r#"<e:Envelope xmlns:e="{ns}"><e:Header>{header}</e:Header><e:Body>{body}</e:Body></e:Envelope>"#
    )
}

const SOAP12: &str = "application/soap+xml; charset=utf-8";
const SOAP11: &str = "text/xml; charset=utf-8";

#[test]
fn a_soap12_sender_fault_is_400_and_a_soap11_client_fault_500() {
    let (addr, _stop) = start();
    // an unknown operation: Sender + rpc:ProcedureNotPresent
    let r = post(
        addr,
        SOAP12,
        &envelope(ENV12, "", r#"<m:nothing xmlns:m="urn:echo"/>"#),
    );
    assert_eq!(r.status, 400, "{}", r.text());
    assert!(
        r.head.starts_with("HTTP/1.1 400 Bad Request\r\n"),
        "{}",
        r.head
    );
    assert!(
        r.text().contains(r#"<env:Value>env:Sender</env:Value><env:Subcode><env:Value xmlns:c="http://www.w3.org/2003/05/soap-rpc">c:ProcedureNotPresent</env:Value></env:Subcode>"#),
        "{}",
        r.text()
    );
    assert_eq!(r.header("content-type"), Some(SOAP12));
    // the same in SOAP 1.1: 500, faultcode Client, no subcode
    let r = post(
        addr,
        SOAP11,
        &envelope(ENV11, "", r#"<m:nothing xmlns:m="urn:echo"/>"#),
    );
    assert_eq!(r.status, 500, "{}", r.text());
    assert!(
        r.text().contains("<faultcode>env:Client</faultcode>"),
        "{}",
        r.text()
    );
    // arguments that do not decode: Sender + rpc:BadArguments
    let bad = r#"<m:echoString xmlns:m="urn:echo"><input><x/></input></m:echoString>"#;
    let r = post(addr, SOAP12, &envelope(ENV12, "", bad));
    assert_eq!(r.status, 400, "{}", r.text());
    assert!(r.text().contains("c:BadArguments"), "{}", r.text());
    // an argument the operation does not have: a mismatch in the arguments, rpc:BadArguments
    let extra =
        r#"<m:echoString xmlns:m="urn:echo"><input>x</input><extra>1</extra></m:echoString>"#;
    let r = post(addr, SOAP12, &envelope(ENV12, "", extra));
    assert_eq!(r.status, 400, "{}", r.text());
    assert!(
        r.text().contains("c:BadArguments") && r.text().contains("unknown field `extra`"),
        "{}",
        r.text()
    );
    // a Receiver fault from the implementation stays 500
    let r = post(
        addr,
        SOAP12,
        &envelope(ENV12, "", r#"<m:fail xmlns:m="urn:echo"/>"#),
    );
    assert_eq!(r.status, 500, "{}", r.text());
    assert!(r.text().contains("env:Receiver"), "{}", r.text());
    // MustUnderstand stays 500, as does VersionMismatch
    let mu = r#"<h:unknown xmlns:h="urn:h" e:mustUnderstand="true"/>"#;
    let ok = r#"<m:echoString xmlns:m="urn:echo"><input>x</input></m:echoString>"#;
    let r = post(addr, SOAP12, &envelope(ENV12, mu, ok));
    assert_eq!(r.status, 500, "{}", r.text());
    assert!(r.text().contains("env:MustUnderstand"), "{}", r.text());
    let r = post(addr, SOAP12, &envelope("urn:not-soap", "", ok));
    assert_eq!(r.status, 500, "{}", r.text());
    assert!(r.text().contains("VersionMismatch"), "{}", r.text());
    // and a success is 200
    let r = post(addr, SOAP12, &envelope(ENV12, "", ok));
    assert_eq!(r.status, 200, "{}", r.text());
}

#[test]
fn the_response_media_type_follows_the_envelope_answered() {
    let (addr, _stop) = start();
    let ok = r#"<m:echoString xmlns:m="urn:echo"><input>x</input></m:echoString>"#;
    // W3C T30: a SOAP 1.1 envelope posted as application/soap+xml is answered in SOAP 1.1
    let r = post(addr, SOAP12, &envelope(ENV11, "", ok));
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.header("content-type"), Some(SOAP11));
    assert!(r.text().contains(ENV11), "{}", r.text());
    // and the other way round
    let r = post(addr, SOAP11, &envelope(ENV12, "", ok));
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.header("content-type"), Some(SOAP12));
}

#[test]
fn a_raw_control_character_is_the_senders_fault() {
    let (addr, _stop) = start();
    let bad = "<m:echoString xmlns:m=\"urn:echo\"><input>a\u{1}b</input></m:echoString>";
    let r = post(addr, SOAP12, &envelope(ENV12, "", bad));
    assert_eq!(r.status, 400, "{}", r.text());
    assert!(
        r.text().contains("env:Sender") && r.text().contains("U+0001"),
        "{}",
        r.text()
    );
    let r = post(addr, SOAP11, &envelope(ENV11, "", bad));
    assert_eq!(r.status, 500, "{}", r.text());
    assert!(
        r.text().contains("env:Client") && r.text().contains("U+0001"),
        "{}",
        r.text()
    );
}

#[test]
fn a_post_without_content_length_or_chunking_is_411() {
    let (addr, _stop) = start();
    for version in ["HTTP/1.1", "HTTP/1.0"] {
        let mut s = connect(addr);
        send(
            &mut s,
            format!("POST /echo {version}\r\nHost: x\r\nContent-Type: {SOAP12}\r\n\r\n").as_bytes(),
        );
        let r = read_response(&mut s).unwrap();
        assert_eq!(r.status, 411, "{version}: {}", r.text());
        assert!(r.head.contains(" 411 Length Required\r\n"), "{}", r.head);
        assert_eq!(
            r.text(),
            "request body needs a `Content-Length` or `Transfer-Encoding: chunked`\n"
        );
    }
    // chunked framing is fine
    let ok = envelope(
        ENV12,
        "",
        r#"<m:echoString xmlns:m="urn:echo"><input>x</input></m:echoString>"#,
    );
    let mut s = connect(addr);
    send(
        &mut s,
        format!(
            "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: {SOAP12}\r\nTransfer-Encoding: chunked\r\n\r\n{:x}\r\n{ok}\r\n0\r\n\r\n",
            ok.len()
        )
        .as_bytes(),
    );
    let r = read_response(&mut s).unwrap();
    assert_eq!(r.status, 200, "{}", r.text());
    // an explicit empty body is framed: the envelope is what is wrong (a Sender fault)
    let r = post(addr, SOAP12, "");
    assert_eq!(r.status, 400, "{}", r.text());
}
