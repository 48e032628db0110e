//! The default roots are the system's: `rustls-native-certs` reads `SSL_CERT_FILE` when set,
//! so a client with no CA configured trusts a private CA put there, as it would trust one
//! installed in the OS store. Its own test binary: the roots are read once per process.

mod common;

use std::sync::Arc;

use bytes::Bytes;
use common::{Ca, Mirror};
use soapstone_client::Client;
use soapstone_codec::Version;
use soapstone_server::Tls;

#[tokio::test]
async fn a_ca_in_ssl_cert_file_is_trusted_by_default() {
    let ca = Ca::new("system store ca");
    let (leaf, key) = ca.leaf("localhost", false);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("roots.pem");
    std::fs::write(&file, ca.pem()).unwrap();
    // Before any default TLS configuration is made in this process.
    std::env::set_var("SSL_CERT_FILE", &file);

    let tls = Tls::from_pem(leaf.as_bytes(), key.as_bytes()).unwrap();
    let (addr, tx) = common::start(Some(tls), Arc::new(Mirror));
    let port = addr.port();
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
