//! `https://` targets against the real soapstone server with TLS on 127.0.0.1 and a
//! certificate made at test time (rcgen): the right CA gives answered requests and counts the
//! encrypted bytes; a CA that did not sign the server's certificate gives connect errors,
//! never a plain-HTTP fallback.

use std::future::IntoFuture;
use std::sync::Arc;
use std::time::Duration;

use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair};
use soapstone_bench::{run, BenchConfig, BenchReport, Load, Schedule, Target};
use soapstone_server::{Server, ServerConfig, Tls};
use soapstone_service::{BoxFuture, SoapRequest, SoapResponse, SoapService};

const ENVELOPE: &str = r#"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><echoFloat xmlns="http://tempuri.org/"><input>3.5</input></echoFloat></soap:Body></soap:Envelope>"#;

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

/// A CA named `ca_name` and a `localhost` certificate it signed: (ca pem, cert pem, key pem).
fn pki(ca_name: &str) -> (String, String, String) {
    let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.distinguished_name.push(DnType::CommonName, ca_name);
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca = CertifiedIssuer::self_signed(ca, KeyPair::generate().unwrap()).unwrap();
    let key = KeyPair::generate().unwrap();
    let leaf = CertificateParams::new(vec!["localhost".to_owned()])
        .unwrap()
        .signed_by(&key, &ca)
        .unwrap();
    (ca.pem(), leaf.pem(), key.serialize_pem())
}

/// A TLS soapstone server on the test's runtime; returns its port.
fn start(cert: &str, key: &str) -> u16 {
    let mut config = ServerConfig::default();
    config.tls = Some(Tls::from_pem(cert.as_bytes(), key.as_bytes()).unwrap());
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let serving = Server::builder()
        .mount("/echo", Arc::new(Mirror))
        .config(config)
        .serve_with_shutdown(listener, std::future::pending())
        .unwrap();
    let port = serving.local_addr().port();
    tokio::spawn(serving.into_future());
    port
}

/// Four requests, open loop at 8/s over 4 connections for 0.5 s.
async fn four_requests(target: Target) -> BenchReport {
    let schedule = Schedule::single(
        Duration::from_millis(500),
        Load::Open {
            rate: 8.0,
            arrivals: Default::default(),
        },
    )
    .unwrap();
    let config = BenchConfig::new(target, schedule)
        .connections(4)
        .timeout(Duration::from_secs(10));
    let report = run(config).await.unwrap().report;
    assert_eq!(report.requests.sent, 4, "{report:#?}");
    report
}

#[tokio::test]
async fn https_with_the_right_ca() {
    let (ca, cert, key) = pki("bench https ca");
    let port = start(&cert, &key);
    let target = Target::soap(&format!("https://localhost:{port}/echo"), ENVELOPE)
        .unwrap()
        .with_tls_ca_pem(ca.as_bytes())
        .unwrap();
    let r = four_requests(target).await;
    assert_eq!(r.requests.ok, 4, "{:?}", r.errors);
    assert_eq!(r.errors.total, 0);
}

#[tokio::test]
async fn https_with_a_wrong_ca_fails_to_connect() {
    let (_, cert, key) = pki("the server's ca");
    let (other_ca, _, _) = pki("another ca");
    let port = start(&cert, &key);
    let target = Target::soap(&format!("https://localhost:{port}/echo"), ENVELOPE)
        .unwrap()
        .with_tls_ca_pem(other_ca.as_bytes())
        .unwrap();
    let r = four_requests(target).await;
    assert_eq!(r.requests.ok, 0);
    assert_eq!(r.errors.connect, 4, "{:?}", r.errors);
}

#[test]
fn a_tls_ca_needs_an_https_target_and_a_pem() {
    let err = Target::soap("http://localhost:1/echo", ENVELOPE)
        .unwrap()
        .with_tls_ca_pem(b"")
        .unwrap_err();
    assert!(err.to_string().contains("`https://`"), "{err}");
    let err = Target::soap("https://localhost:1/echo", ENVELOPE)
        .unwrap()
        .with_tls_ca_pem(b"junk")
        .unwrap_err();
    assert!(err.to_string().contains("no certificate"), "{err}");
}
