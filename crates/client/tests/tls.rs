//! `https://` against the real soapstone server with TLS on 127.0.0.1, certificates made at
//! test time (rcgen): the right CA is trusted, a wrong CA and a wrong host name are refused
//! with a clear TLS error, and the default (webpki) roots refuse a private CA.

mod common;

use std::net::SocketAddr;
use std::sync::Arc;

use bytes::Bytes;
use common::{Ca, Mirror, ENVELOPE};
use soapstone_client::{Client, ClientConfig, HttpEngine};
use soapstone_codec::Version;
use soapstone_server::{ServerConfig, Tls};

/// A CA (its name unique) and a certificate for `localhost` signed by it: (ca pem, leaf pem,
/// leaf key pem).
fn pki() -> (String, String, String) {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let ca = Ca::new(&format!("soapstone test ca {n}"));
    let (leaf, key) = ca.leaf("localhost", false);
    (ca.pem(), leaf, key)
}

/// A TLS server on the test's runtime, serving until the sender is dropped.
fn start(cert: &str, key: &str) -> (SocketAddr, tokio::sync::oneshot::Sender<()>) {
    let tls = Tls::from_pem(cert.as_bytes(), key.as_bytes()).unwrap();
    common::start(Some(tls), Arc::new(Mirror))
}

async fn call(client: &Client) -> Result<soapstone_client::RawResponse, soapstone_client::Error> {
    client
        .call_raw(
            Version::Soap11,
            Some(""),
            Bytes::from_static(ENVELOPE.as_bytes()),
        )
        .await
}

#[tokio::test]
async fn right_ca_works_for_several_calls() {
    let (ca, cert, key) = pki();
    let (addr, _stop) = start(&cert, &key);
    let config = ClientConfig::default().tls_ca_pem(ca.as_bytes()).unwrap();
    let url = format!("https://localhost:{}/echo", addr.port());
    let client = Client::with_config(&url, config).unwrap();
    for _ in 0..3 {
        let answer = call(&client).await.unwrap();
        assert_eq!(answer.status, 200);
        assert_eq!(answer.body, ENVELOPE.as_bytes());
    }
}

/// Both engines over TLS: many calls share one connection (the server counts one), and a
/// connection the server closed while idle is noticed before the next call and replaced,
/// not failed on.
#[tokio::test]
async fn both_engines_keep_one_tls_connection_and_replace_one_closed_while_idle() {
    for engine in [HttpEngine::Lean, HttpEngine::Hyper] {
        let (ca, cert, key) = pki();
        let mut config = ServerConfig::default();
        config.tls = Some(Tls::from_pem(cert.as_bytes(), key.as_bytes()).unwrap());
        config.idle_timeout = std::time::Duration::from_millis(300);
        let (server, addr, _stop) = common::serve(config, Arc::new(common::Mirror));
        let port = addr.port();
        let connections = || {
            let text = server.metrics_text();
            text.lines()
                .find_map(|l| l.strip_prefix("soapstone_connections_total ")?.parse().ok())
                .unwrap_or(0u64)
        };

        let mut config = ClientConfig::default().tls_ca_pem(ca.as_bytes()).unwrap();
        config.http = engine;
        let url = format!("https://localhost:{port}/echo");
        let client = Client::with_config(&url, config).unwrap();
        for _ in 0..20 {
            let answer = call(&client).await.unwrap();
            assert_eq!(answer.body, ENVELOPE.as_bytes(), "{engine:?}");
        }
        assert_eq!(connections(), 1, "{engine:?}: 20 calls on one connection");
        tokio::time::sleep(std::time::Duration::from_millis(800)).await;
        let answer = call(&client).await.unwrap();
        assert_eq!(answer.body, ENVELOPE.as_bytes(), "{engine:?}");
        assert_eq!(
            connections(),
            2,
            "{engine:?}: a new one after the idle close"
        );
    }
}

#[tokio::test]
async fn wrong_ca_is_refused() {
    let (_, cert, key) = pki();
    let (other_ca, _, _) = pki();
    let (addr, _stop) = start(&cert, &key);
    let config = ClientConfig::default()
        .tls_ca_pem(other_ca.as_bytes())
        .unwrap();
    let url = format!("https://localhost:{}/echo", addr.port());
    let err = call(&Client::with_config(&url, config).unwrap())
        .await
        .unwrap_err();
    assert!(err.is_tls(), "{err:?}");
    let msg = err.to_string();
    assert!(msg.starts_with("tls handshake with `localhost:"), "{msg}");
    assert!(msg.contains("UnknownIssuer"), "{msg}");
}

#[tokio::test]
async fn default_roots_refuse_a_private_ca() {
    let (_, cert, key) = pki();
    let (addr, _stop) = start(&cert, &key);
    let url = format!("https://localhost:{}/echo", addr.port());
    let err = call(&Client::new(&url).unwrap()).await.unwrap_err();
    assert!(err.is_tls(), "{err:?}");
    assert!(err.to_string().contains("UnknownIssuer"), "{err}");
}

#[tokio::test]
async fn wrong_host_name_is_refused() {
    let (ca, cert, key) = pki();
    let (addr, _stop) = start(&cert, &key);
    let config = ClientConfig::default().tls_ca_pem(ca.as_bytes()).unwrap();
    // The certificate is for `localhost`, not for the address.
    let url = format!("https://{addr}/echo");
    let err = call(&Client::with_config(&url, config).unwrap())
        .await
        .unwrap_err();
    assert!(err.is_tls(), "{err:?}");
    let msg = err.to_string();
    assert!(msg.contains("not valid for name \"127.0.0.1\""), "{msg}");
}

#[tokio::test]
async fn https_to_a_plain_server_is_a_tls_error_not_a_hang() {
    let (ca, _, _) = pki();
    let (addr, _stop) = common::start(None, Arc::new(Mirror));
    let port = addr.port();
    let config = ClientConfig::default().tls_ca_pem(ca.as_bytes()).unwrap();
    let url = format!("https://localhost:{port}/echo");
    let err = call(&Client::with_config(&url, config).unwrap())
        .await
        .unwrap_err();
    assert!(err.is_tls(), "{err:?}");
}

#[test]
fn bad_ca_pem_and_bad_scheme_are_clear_errors() {
    let err = ClientConfig::default().tls_ca_pem(b"nothing").unwrap_err();
    assert!(
        err.to_string().contains("no ca certificate in the pem"),
        "{err}"
    );
    let err = Client::new("ftp://localhost/echo").unwrap_err();
    assert!(
        err.to_string().contains("expected `http` or `https`"),
        "{err}"
    );
}
