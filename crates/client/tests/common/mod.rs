//! What the client's TLS tests share: certificates made at test time (rcgen), a service that
//! mirrors its request, and a real soapstone server on 127.0.0.1.
#![allow(dead_code, unreachable_pub)]

use std::future::IntoFuture;
use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;

use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair};
use soapstone_server::{Server, ServerConfig, Tls};
use soapstone_service::{BoxFuture, SoapRequest, SoapResponse, SoapService};

pub const ENVELOPE: &str = r#"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><echoFloat xmlns="http://tempuri.org/"><input>3.5</input></echoFloat></soap:Body></soap:Envelope>"#;

/// Answers every request with its own body.
pub struct Mirror;

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

/// A certificate authority made for one test.
pub struct Ca(CertifiedIssuer<'static, KeyPair>);

impl Ca {
    /// A self-signed CA with the common name `name` (make names unique where two CAs meet).
    pub fn new(name: &str) -> Ca {
        let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
        ca.distinguished_name.push(DnType::CommonName, name);
        ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        Ca(CertifiedIssuer::self_signed(ca, KeyPair::generate().unwrap()).unwrap())
    }

    /// A leaf for `name` signed by this CA: (pem, key pem); `expired` puts its validity in 2020.
    pub fn leaf(&self, name: &str, expired: bool) -> (String, String) {
        let key = KeyPair::generate().unwrap();
        let mut params = CertificateParams::new(vec![name.to_owned()]).unwrap();
        if expired {
            params.not_before = rcgen::date_time_ymd(2020, 1, 1);
            params.not_after = rcgen::date_time_ymd(2020, 2, 1);
        }
        let leaf = params.signed_by(&key, &self.0).unwrap();
        (leaf.pem(), key.serialize_pem())
    }

    pub fn pem(&self) -> String {
        self.0.pem()
    }
}

/// A server on the test's runtime, TLS when `tls` is given, serving `service` at `/echo` until
/// the sender is dropped.
pub fn start(
    tls: Option<Tls>,
    service: Arc<dyn SoapService>,
) -> (SocketAddr, tokio::sync::oneshot::Sender<()>) {
    let mut config = ServerConfig::default();
    config.tls = tls;
    let (_, addr, stop) = serve(config, service);
    (addr, stop)
}

/// A server with `config` on the test's runtime, serving `service` at `/echo` until the sender
/// is dropped; its handle too (for `/metrics`).
pub fn serve(
    config: ServerConfig,
    service: Arc<dyn SoapService>,
) -> (Server, SocketAddr, tokio::sync::oneshot::Sender<()>) {
    let server = Server::builder()
        .mount("/echo", service)
        .config(config)
        .build();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let serving = server
        .clone()
        .serve_with_shutdown(listener, async {
            let _ = rx.await;
        })
        .unwrap();
    let addr = serving.local_addr();
    tokio::spawn(serving.into_future());
    (server, addr, tx)
}
