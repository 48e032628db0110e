//! The client's TLS identity and what it refuses, against the real soapstone server on
//! 127.0.0.1 with certificates made at test time (rcgen): a client certificate presented on
//! mutual TLS (and one from the wrong CA refused), and an expired server certificate refused
//! with a TLS error naming the expiry.

mod common;

use std::net::SocketAddr;
use std::sync::Arc;

use bytes::Bytes;
use common::{Ca, ENVELOPE};
use soapstone_client::{Client, ClientConfig};
use soapstone_codec::Version;
use soapstone_server::Tls;
use soapstone_service::{BoxFuture, SoapRequest, SoapResponse, SoapService, TlsClientCert};

/// Answers every request with its own body, or refuses one that came without the verified
/// client certificate the server should have attached.
struct Mirror;

impl SoapService for Mirror {
    fn name(&self) -> &str {
        "Mirror"
    }
    fn document(&self, _: &str, _: &str) -> Option<String> {
        None
    }
    fn call(&self, req: SoapRequest) -> BoxFuture<SoapResponse> {
        Box::pin(async move {
            if req.extensions.get::<TlsClientCert>().is_none() {
                let fault = soapstone_codec::Fault::client("no client certificate attached");
                return SoapResponse::from_fault(req.version, None, &fault);
            }
            SoapResponse::new(req.version, false, None, req.body)
        })
    }
}

fn start(tls: Tls) -> (SocketAddr, tokio::sync::oneshot::Sender<()>) {
    common::start(Some(tls), Arc::new(Mirror))
}

async fn call(
    url: &str,
    config: ClientConfig,
) -> Result<soapstone_client::RawResponse, soapstone_client::Error> {
    Client::with_config(url, config)
        .unwrap()
        .call_raw(
            Version::Soap11,
            Some(""),
            Bytes::from_static(ENVELOPE.as_bytes()),
        )
        .await
}

#[tokio::test]
async fn a_client_certificate_is_presented_and_reaches_the_service() {
    let server_ca = Ca::new("server ca");
    let client_ca = Ca::new("client ca");
    let (cert, key) = server_ca.leaf("localhost", false);
    let tls =
        Tls::from_pem_with_client_ca(cert.as_bytes(), key.as_bytes(), client_ca.pem().as_bytes())
            .unwrap();
    let (addr, _stop) = start(tls);
    let url = format!("https://localhost:{}/echo", addr.port());
    let ca = server_ca.pem();

    let (ccert, ckey) = client_ca.leaf("operator", false);
    let config = ClientConfig::default()
        .tls_client_cert_pem(Some(ca.as_bytes()), ccert.as_bytes(), ckey.as_bytes())
        .unwrap();
    let r = call(&url, config).await.unwrap();
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.body, ENVELOPE.as_bytes());

    // Without a certificate, and with one from another CA: refused in the handshake.
    let none = ClientConfig::default().tls_ca_pem(ca.as_bytes()).unwrap();
    let e = call(&url, none).await.unwrap_err();
    // TLS 1.3: the client finishes first, so the refusal shows as the server's alert or as
    // the connection ending on the first read; never as an answer.
    assert!(e.fault().is_none(), "{e}");
    let (wcert, wkey) = Ca::new("wrong ca").leaf("operator", false);
    let wrong = ClientConfig::default()
        .tls_client_cert_pem(Some(ca.as_bytes()), wcert.as_bytes(), wkey.as_bytes())
        .unwrap();
    let e = call(&url, wrong).await.unwrap_err();
    // TLS 1.3: the client finishes first, so the refusal shows as the server's alert or as
    // the connection ending on the first read; never as an answer.
    assert!(e.fault().is_none(), "{e}");
}

#[tokio::test]
async fn an_expired_server_certificate_is_refused() {
    let ca = Ca::new("expiry ca");
    let (cert, key) = ca.leaf("localhost", true);
    let (addr, _stop) = start(Tls::from_pem(cert.as_bytes(), key.as_bytes()).unwrap());
    let url = format!("https://localhost:{}/echo", addr.port());
    let config = ClientConfig::default()
        .tls_ca_pem(ca.pem().as_bytes())
        .unwrap();
    let e = call(&url, config).await.unwrap_err();
    assert!(e.is_tls(), "{e}");
    assert!(e.to_string().to_lowercase().contains("expired"), "{e}");
}

#[test]
fn a_client_key_that_does_not_fit_is_a_clear_error() {
    let ca = Ca::new("fit ca");
    let (cert, _) = ca.leaf("a", false);
    let (_, other_key) = ca.leaf("b", false);
    let e = ClientConfig::default()
        .tls_client_cert_pem(None, cert.as_bytes(), other_key.as_bytes())
        .unwrap_err()
        .to_string();
    assert!(e.contains("client certificate and key do not fit"), "{e}");
    let e = ClientConfig::default()
        .tls_client_cert_pem(None, b"", other_key.as_bytes())
        .unwrap_err()
        .to_string();
    assert!(e.contains("no client certificate in the pem"), "{e}");
}
