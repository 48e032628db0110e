//! Certificate reload without a restart: after the files are replaced and `Tls::reload` runs,
//! new handshakes get the new certificate (a client trusting only the old CA is refused, one
//! trusting the new CA is served); a reload from bad files fails clearly and keeps serving
//! the certificate it had. Real server, real sockets, certificates made by rcgen.

use std::future::IntoFuture;
use std::net::TcpListener;
use std::path::Path;
use std::sync::Arc;

use bytes::Bytes;
use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair};
use soapstone_client::{Client, ClientConfig};
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

/// Writes a leaf for `localhost` signed by a new CA into `cert.pem`/`key.pem`; returns the
/// CA's pem.
fn issue(dir: &Path, ca_name: &str) -> String {
    let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.distinguished_name.push(DnType::CommonName, ca_name);
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca = CertifiedIssuer::self_signed(ca, KeyPair::generate().unwrap()).unwrap();
    let key = KeyPair::generate().unwrap();
    let leaf = CertificateParams::new(vec!["localhost".to_owned()])
        .unwrap()
        .signed_by(&key, &ca)
        .unwrap();
    std::fs::write(dir.join("cert.pem"), leaf.pem()).unwrap();
    std::fs::write(dir.join("key.pem"), key.serialize_pem()).unwrap();
    ca.pem()
}

async fn call(port: u16, ca: &str) -> Result<u16, soapstone_client::Error> {
    let config = ClientConfig::default().tls_ca_pem(ca.as_bytes()).unwrap();
    let client = Client::with_config(&format!("https://localhost:{port}/echo"), config).unwrap();
    let body = r#"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><x/></soap:Body></soap:Envelope>"#;
    client
        .call_raw(
            Version::Soap11,
            Some(""),
            Bytes::from_static(body.as_bytes()),
        )
        .await
        .map(|r| r.status)
}

#[tokio::test]
async fn reload_serves_the_new_certificate_and_a_bad_one_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let old_ca = issue(dir.path(), "old ca");
    let tls = Tls::from_pem_files(
        &dir.path().join("cert.pem"),
        &dir.path().join("key.pem"),
        None,
    )
    .unwrap();
    let mut config = ServerConfig::default();
    config.tls = Some(tls.clone());
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let serving = Server::builder()
        .mount("/echo", Arc::new(Mirror))
        .config(config)
        .serve_with_shutdown(TcpListener::bind("127.0.0.1:0").unwrap(), async {
            let _ = rx.await;
        })
        .unwrap();
    let port = serving.local_addr().port();
    tokio::spawn(serving.into_future());

    assert_eq!(call(port, &old_ca).await.unwrap(), 200);
    let new_ca = issue(dir.path(), "new ca");
    // Files replaced but not reloaded: still the old certificate.
    assert_eq!(call(port, &old_ca).await.unwrap(), 200);
    tls.reload().unwrap();
    let e = call(port, &old_ca).await.unwrap_err();
    assert!(e.is_tls(), "{e}");
    assert_eq!(call(port, &new_ca).await.unwrap(), 200);

    // A key that does not fit the certificate: refused, the new certificate stays.
    let other = KeyPair::generate().unwrap();
    std::fs::write(dir.path().join("key.pem"), other.serialize_pem()).unwrap();
    let e = tls.reload().unwrap_err().to_string();
    assert!(e.contains("certificate and key do not fit"), "{e}");
    std::fs::write(dir.path().join("cert.pem"), "not a pem").unwrap();
    let e = tls.reload().unwrap_err().to_string();
    assert!(e.contains("no certificate in the pem"), "{e}");
    assert_eq!(call(port, &new_ca).await.unwrap(), 200);
    drop(tx);
}

#[test]
fn settings_built_elsewhere_cannot_be_reloaded() {
    let dir = tempfile::tempdir().unwrap();
    issue(dir.path(), "mem ca");
    let cert = std::fs::read(dir.path().join("cert.pem")).unwrap();
    let key = std::fs::read(dir.path().join("key.pem")).unwrap();
    let tls = Tls::from_pem(&cert, &key).unwrap();
    let e = tls.reload().unwrap_err().to_string();
    assert_eq!(e, "tls settings not read from files: nothing to reload");
    // In-memory settings can still be given a new certificate directly.
    tls.replace_pem(&cert, &key).unwrap();
}
