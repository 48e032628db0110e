//! `--wsse-user`: the generator puts a UsernameToken with a fresh nonce into every request, so
//! a real soapstone server behind WS-Security (`Secured`, its replay cache on) over https
//! admits every one; a wrong password is refused by every request as a SOAP fault, and
//! without a token the secured service refuses too.

use std::future::IntoFuture;
use std::sync::Arc;
use std::time::Duration;

use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair};
use soapstone_bench::{run, BenchConfig, BenchReport, Load, Schedule, Target, WsseCredentials};
use soapstone_server::{Server, ServerConfig, Tls};
use soapstone_service::{BoxFuture, SoapRequest, SoapResponse, SoapService};
use soapstone_wssec::{hash_password, Secured, UsersFile, WsseConfig};

/// Prefix `s:`, a Header already there (the token must go in beside the block).
const WITH_HEADER: &str = r#"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Header><x:Trace xmlns:x="urn:trace">1</x:Trace></s:Header><s:Body><echoFloat xmlns="http://tempuri.org/"><input>3.5</input></echoFloat></s:Body></s:Envelope>"#;
/// SOAP 1.2, default namespace, no Header.
const NO_HEADER: &str = r#"<Envelope xmlns="http://www.w3.org/2003/05/soap-envelope"><Body><echoFloat xmlns="http://tempuri.org/"><input>3.5</input></echoFloat></Body></Envelope>"#;

/// Answers every request with its own body.
struct Mirror;

impl SoapService for Mirror {
    fn name(&self) -> &str {
        "Mirror"
    }
    fn document(&self, _: &str, _: &str) -> Option<String> {
        None
    }
    fn call(&self, req: SoapRequest) -> BoxFuture<SoapResponse> {
        Box::pin(async move { SoapResponse::new(req.version, false, None, req.body) })
    }
}

fn pki() -> (String, String, String) {
    let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.distinguished_name
        .push(DnType::CommonName, "bench wsse ca");
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca = CertifiedIssuer::self_signed(ca, KeyPair::generate().unwrap()).unwrap();
    let key = KeyPair::generate().unwrap();
    let leaf = CertificateParams::new(vec!["localhost".to_owned()])
        .unwrap()
        .signed_by(&key, &ca)
        .unwrap();
    (ca.pem(), leaf.pem(), key.serialize_pem())
}

/// A TLS server with the mirror behind WS-Security; returns (port, ca pem).
fn start() -> (u16, String) {
    let (ca, cert, key) = pki();
    let users = format!(
        "[users.op]\npermissions = [\"read\"]\npassword_hash = \"{}\"\ndigest_secret = \"op-digest\"\n",
        hash_password("op-text")
    );
    let users = Arc::new(UsersFile::parse(&users).unwrap());
    let secured = Secured::with_config(Arc::new(Mirror), users, WsseConfig::default());
    let mut config = ServerConfig::default();
    config.tls = Some(Tls::from_pem(cert.as_bytes(), key.as_bytes()).unwrap());
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let serving = Server::builder()
        .mount("/echo", Arc::new(secured))
        .config(config)
        .serve_with_shutdown(listener, std::future::pending())
        .unwrap();
    let port = serving.local_addr().port();
    tokio::spawn(serving.into_future());
    (port, ca)
}

/// Six requests, open loop at 12/s over 3 connections for 0.5 s.
async fn six_requests(target: Target) -> BenchReport {
    let schedule = Schedule::single(
        Duration::from_millis(500),
        Load::Open {
            rate: 12.0,
            arrivals: Default::default(),
        },
    )
    .unwrap();
    let config = BenchConfig::new(target, schedule)
        .connections(3)
        .timeout(Duration::from_secs(30));
    let report = run(config).await.unwrap().report;
    assert_eq!(report.requests.sent, 6, "{report:#?}");
    report
}

fn target(port: u16, ca: &str, body: &str) -> Target {
    Target::soap(&format!("https://localhost:{port}/echo"), body.to_owned())
        .unwrap()
        .with_tls_ca_pem(ca.as_bytes())
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_request_carries_a_fresh_token_over_https() {
    let (port, ca) = start();
    for body in [WITH_HEADER, NO_HEADER] {
        for creds in [
            WsseCredentials::digest("op", "op-digest"),
            WsseCredentials::text("op", "op-text"),
        ] {
            let t = target(port, &ca, body).with_wsse(creds.clone()).unwrap();
            let r = six_requests(t).await;
            // The server's replay cache refuses a repeated nonce: six answers, six nonces.
            assert_eq!(r.requests.ok, 6, "{creds:?} {body}: {:?}", r.errors);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_password_or_no_token_is_refused_by_every_request() {
    let (port, ca) = start();
    let wrong = target(port, &ca, WITH_HEADER)
        .with_wsse(WsseCredentials::digest("op", "not-it"))
        .unwrap();
    let r = six_requests(wrong).await;
    assert_eq!(
        (r.requests.ok, r.errors.soap_fault),
        (0, 6),
        "{:?}",
        r.errors
    );
    let r = six_requests(target(port, &ca, WITH_HEADER)).await;
    assert_eq!(
        (r.requests.ok, r.errors.soap_fault),
        (0, 6),
        "{:?}",
        r.errors
    );
}

#[test]
fn a_token_needs_a_soap_target_and_envelopes() {
    let e = Target::soap("http://localhost:1/echo", "<x/>")
        .unwrap()
        .with_wsse(WsseCredentials::text("u", "p"))
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot add a ws-security header to body 0: the root element `x` is not a soap `Envelope`"
    );
}
