//! The default roots are the system's: `rustls-native-certs` reads `SSL_CERT_FILE` when set,
//! so a client with no CA configured trusts a private CA put there, as it would trust one
//! installed in the OS store. Its own test binary: the roots are read once per process.

use std::future::IntoFuture;
use std::net::TcpListener;
use std::sync::Arc;

use bytes::Bytes;
use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair};
use soapstone_client::Client;
use soapstone_codec::Version;
use soapstone_server::{Server, ServerConfig, Tls};
use soapstone_service::{BoxFuture, SoapRequest, SoapResponse, SoapService};

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

#[tokio::test]
async fn a_ca_in_ssl_cert_file_is_trusted_by_default() {
    let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.distinguished_name
        .push(DnType::CommonName, "system store ca");
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca = CertifiedIssuer::self_signed(ca, KeyPair::generate().unwrap()).unwrap();
    let key = KeyPair::generate().unwrap();
    let leaf = CertificateParams::new(vec!["localhost".to_owned()])
        .unwrap()
        .signed_by(&key, &ca)
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("roots.pem");
    std::fs::write(&file, ca.pem()).unwrap();
    // Before any default TLS configuration is made in this process.
    std::env::set_var("SSL_CERT_FILE", &file);

    let mut config = ServerConfig::default();
    config.tls =
        Some(Tls::from_pem(leaf.pem().as_bytes(), key.serialize_pem().as_bytes()).unwrap());
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let serving = Server::builder()
        .mount("/echo", Arc::new(Mirror))
        .config(config)
        .serve_with_shutdown(listener, async {
            let _ = rx.await;
        })
        .unwrap();
    let port = serving.local_addr().port();
    tokio::spawn(serving.into_future());
    let client = Client::new(&format!("https://localhost:{port}/echo")).unwrap();
    let body = r#"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><x/></soap:Body></soap:Envelope>"#;
    let r = client
        .call_raw(
            Version::Soap11,
            Some(""),
            Bytes::from_static(body.as_bytes()),
        )
        .await
        .unwrap();
    assert_eq!(r.status, 200);
    drop(tx);
}
