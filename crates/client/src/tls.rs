//! `https://` for the client: the rustls connector (ring provider; the webpki roots, or the
//! CAs the caller names), SNI and hostname verification, and the stream that is either plain
//! TCP or TLS over it.
//!
//! Exists so that the client reaches HTTPS endpoints directly. Must never: skip certificate
//! or hostname verification, or fall back to plain HTTP when the handshake fails.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use rustls_pki_types::pem::PemObject as _;
use rustls_pki_types::{CertificateDer, ServerName};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio_rustls::client::TlsStream;
use tokio_rustls::rustls;

use crate::Error;

/// A rustls client configuration trusting the CAs of `pem` only, ALPN `http/1.1`.
pub(crate) fn config_for_ca_pem(pem: &[u8]) -> Result<rustls::ClientConfig, String> {
    let mut roots = rustls::RootCertStore::empty();
    let mut n = 0;
    for cert in CertificateDer::pem_slice_iter(pem) {
        let cert = cert.map_err(|e| format!("bad ca certificate pem: {e}"))?;
        roots
            .add(cert)
            .map_err(|e| format!("unusable ca certificate: {e}"))?;
        n += 1;
    }
    if n == 0 {
        return Err("no ca certificate in the pem (`-----BEGIN CERTIFICATE-----`)".to_owned());
    }
    config_for(roots)
}

/// The default: the Mozilla roots of `webpki-roots`.
pub(crate) fn default_config() -> Result<rustls::ClientConfig, String> {
    let roots = rustls::RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    };
    config_for(roots)
}

fn config_for(roots: rustls::RootCertStore) -> Result<rustls::ClientConfig, String> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("tls setup: {e}"))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(config)
}

/// What a connection needs to start TLS: the connector and the name to send (SNI) and verify.
#[derive(Clone)]
pub(crate) struct Connector {
    pub(crate) connector: tokio_rustls::TlsConnector,
    pub(crate) name: ServerName<'static>,
}

impl Connector {
    pub(crate) fn new(config: Arc<rustls::ClientConfig>, host: &str) -> Result<Self, String> {
        let name = ServerName::try_from(host.to_owned())
            .map_err(|e| format!("`{host}` is no valid tls server name: {e}"))?;
        Ok(Connector {
            connector: tokio_rustls::TlsConnector::from(config),
            name,
        })
    }

    /// The handshake over `tcp`, failing with what rustls said (unknown issuer, name
    /// mismatch, ...).
    pub(crate) async fn handshake(&self, tcp: TcpStream, label: &str) -> Result<Stream, Error> {
        match self.connector.connect(self.name.clone(), tcp).await {
            Ok(s) => Ok(Stream::Tls(Box::new(s))),
            Err(e) => Err(Error::tls(label, e)),
        }
    }
}

/// A connection's byte stream.
pub(crate) enum Stream {
    Plain(TcpStream),
    Tls(Box<TlsStream<TcpStream>>),
}

impl AsyncRead for Stream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_read(cx, buf),
            Stream::Tls(s) => Pin::new(&mut **s).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Stream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_write(cx, buf),
            Stream::Tls(s) => Pin::new(&mut **s).poll_write(cx, buf),
        }
    }
    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_flush(cx),
            Stream::Tls(s) => Pin::new(&mut **s).poll_flush(cx),
        }
    }
    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_shutdown(cx),
            Stream::Tls(s) => Pin::new(&mut **s).poll_shutdown(cx),
        }
    }
}
