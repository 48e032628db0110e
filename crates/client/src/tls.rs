//! `https://` for the client: the rustls connector (ring provider; the system's roots with the
//! webpki roots as fallback, or the CAs the caller names; a client certificate when asked),
//! SNI and hostname verification, and the stream that is either plain TCP or TLS over it.
//!
//! Exists so that the client reaches HTTPS endpoints directly. Must never: skip certificate
//! or hostname verification, or fall back to plain HTTP when the handshake fails.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use rustls_pki_types::pem::PemObject as _;
use rustls_pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio_rustls::client::TlsStream;
use tokio_rustls::rustls;

use crate::Error;

/// A rustls client configuration trusting the CAs of `pem` only, ALPN `http/1.1`.
pub(crate) fn config_for_ca_pem(pem: &[u8]) -> Result<rustls::ClientConfig, String> {
    config_from_pem(Some(pem), None)
}

/// The CAs of a PEM bundle; at least one.
fn roots_of_pem(pem: &[u8]) -> Result<rustls::RootCertStore, String> {
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
    Ok(roots)
}

/// Trusting the CAs of `ca_pem` (the default roots when `None`), and presenting the
/// certificate chain and key of `identity` (PEM) when a server asks for one.
pub(crate) fn config_from_pem(
    ca_pem: Option<&[u8]>,
    identity: Option<(&[u8], &[u8])>,
) -> Result<rustls::ClientConfig, String> {
    let roots = match ca_pem {
        Some(pem) => roots_of_pem(pem)?,
        None => default_roots().clone(),
    };
    let identity = match identity {
        None => None,
        Some((cert_pem, key_pem)) => {
            let chain = CertificateDer::pem_slice_iter(cert_pem)
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| format!("bad client certificate pem: {e}"))?;
            if chain.is_empty() {
                return Err(
                    "no client certificate in the pem (`-----BEGIN CERTIFICATE-----`)".to_owned(),
                );
            }
            let key = PrivateKeyDer::from_pem_slice(key_pem)
                .map_err(|e| format!("no usable client private key: {e}"))?;
            Some((chain, key))
        }
    };
    config_for(roots, identity)
}

/// The default: the system's roots (`rustls-native-certs`: the OS store, or `SSL_CERT_FILE` /
/// `SSL_CERT_DIR`), read once per process; the Mozilla roots of `webpki-roots` when the
/// system has none that parse (a minimal container).
pub(crate) fn default_config() -> Result<rustls::ClientConfig, String> {
    config_for(default_roots().clone(), None)
}

fn default_roots() -> &'static rustls::RootCertStore {
    static ROOTS: std::sync::OnceLock<rustls::RootCertStore> = std::sync::OnceLock::new();
    ROOTS.get_or_init(|| {
        let native = rustls_native_certs::load_native_certs();
        for e in &native.errors {
            tracing::debug!(error = %e, "system root certificates: skipped");
        }
        let mut roots = rustls::RootCertStore::empty();
        let (added, _ignored) = roots.add_parsable_certificates(native.certs);
        if added == 0 {
            tracing::debug!("no system root certificates: using the webpki-roots bundle");
            return rustls::RootCertStore {
                roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
            };
        }
        roots
    })
}

fn config_for(
    roots: rustls::RootCertStore,
    identity: Option<(Vec<CertificateDer<'static>>, PrivateKeyDer<'static>)>,
) -> Result<rustls::ClientConfig, String> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("tls setup: {e}"))?
        .with_root_certificates(roots);
    let mut config = match identity {
        None => builder.with_no_client_auth(),
        Some((chain, key)) => builder
            .with_client_auth_cert(chain, key)
            .map_err(|e| format!("client certificate and key do not fit: {e}"))?,
    };
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(config)
}

/// What a connection needs to start TLS: the connector and the name to send (SNI) and verify.
#[derive(Clone)]
pub(crate) struct Connector {
    pub(crate) connector: tokio_rustls::TlsConnector,
    /// The settings behind `connector`, for the blocking handshake (`lean/blocking.rs`).
    pub(crate) config: Arc<rustls::ClientConfig>,
    pub(crate) name: ServerName<'static>,
}

impl Connector {
    pub(crate) fn new(config: Arc<rustls::ClientConfig>, host: &str) -> Result<Self, String> {
        let name = ServerName::try_from(host.to_owned())
            .map_err(|e| format!("`{host}` is no valid tls server name: {e}"))?;
        Ok(Connector {
            connector: tokio_rustls::TlsConnector::from(Arc::clone(&config)),
            config,
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
