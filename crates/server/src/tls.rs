//! TLS on the accept path (rustls, ring provider): the server's certificate and key, optional
//! client certificates, and the handshake of each accepted connection.
//!
//! Exists so that `soapstone serve` can speak `https://` without a proxy in front. The
//! handshake is bounded by `header_read_timeout` (a client that starts one and stalls holds no
//! slot longer than one that stalls its head), and a peer that speaks plain HTTP to the TLS
//! port gets a readable `400` and a close. The certificate can be replaced while serving
//! ([`Tls::reload`], on SIGHUP in `soapstone serve`): new handshakes get the new one through a
//! resolver that clones an `Arc`. Must never: block the accept loop on a handshake,
//! wait on a silent peer without a deadline, or split a response into several TLS records
//! when hyper hands it over in one write (records are cut at 16 KiB by TLS itself only).

use std::io;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use rustls_pki_types::pem::PemObject as _;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use tokio::net::TcpStream;
use tokio_rustls::rustls;
use tokio_rustls::rustls::server::ResolvesServerCert;
use tokio_rustls::rustls::sign::CertifiedKey;
use tokio_rustls::server::TlsStream;
use tokio_rustls::TlsAcceptor;

/// A server's TLS settings: its certificate chain and key, and the CAs its clients'
/// certificates must chain to, if it asks for them. Cheap to clone.
#[derive(Clone)]
pub struct Tls {
    acceptor: TlsAcceptor,
    /// The certificate new handshakes get; replaced by [`Tls::reload`]. `None` for a
    /// configuration built elsewhere ([`Tls::from_config`]).
    cert: Option<Arc<CertSlot>>,
    /// The files [`Tls::reload`] reads again.
    files: Option<Arc<(PathBuf, PathBuf)>>,
}

/// The server certificate, swapped whole under a lock held only to clone an `Arc`.
#[derive(Debug)]
struct CertSlot(RwLock<Arc<CertifiedKey>>);

impl ResolvesServerCert for CertSlot {
    fn resolve(&self, _: rustls::server::ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(self.0.read().unwrap_or_else(|e| e.into_inner()).clone())
    }
}

/// A certificate chain and its key, checked to belong together.
fn certified_key(cert_chain_pem: &[u8], key_pem: &[u8]) -> io::Result<CertifiedKey> {
    let certs = certs_of(cert_chain_pem, "certificate")?;
    let key = PrivateKeyDer::from_pem_slice(key_pem)
        .map_err(|e| invalid(format!("no usable private key: {e}")))?;
    CertifiedKey::from_der(certs, key, &rustls::crypto::ring::default_provider())
        .map_err(|e| invalid(format!("certificate and key do not fit: {e}")))
}

impl std::fmt::Debug for Tls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tls").finish_non_exhaustive()
    }
}

impl Tls {
    /// TLS 1.2 and 1.3 with this certificate chain (PEM, leaf first) and private key (PEM:
    /// PKCS#8, PKCS#1 or SEC1), no client certificates, ALPN `http/1.1`.
    pub fn from_pem(cert_chain_pem: &[u8], key_pem: &[u8]) -> io::Result<Tls> {
        Tls::build(cert_chain_pem, key_pem, None)
    }

    /// Like [`Tls::from_pem`], and every client must present a certificate that chains to
    /// one of the CAs in `client_ca_pem` (mutual TLS); others fail the handshake.
    pub fn from_pem_with_client_ca(
        cert_chain_pem: &[u8],
        key_pem: &[u8],
        client_ca_pem: &[u8],
    ) -> io::Result<Tls> {
        Tls::build(cert_chain_pem, key_pem, Some(client_ca_pem))
    }

    /// Reads the PEM files of [`Tls::from_pem`] (and of
    /// [`Tls::from_pem_with_client_ca`] when `client_ca` is given).
    pub fn from_pem_files(cert: &Path, key: &Path, client_ca: Option<&Path>) -> io::Result<Tls> {
        let read = |p: &Path| {
            std::fs::read(p).map_err(|e| {
                io::Error::new(e.kind(), format!("cannot read `{}`: {e}", p.display()))
            })
        };
        let (cert_pem, key_pem) = (read(cert)?, read(key)?);
        let ca_pem = client_ca.map(read).transpose()?;
        let mut tls = Tls::build(&cert_pem, &key_pem, ca_pem.as_deref()).map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("tls with `{}` and `{}`: {e}", cert.display(), key.display()),
            )
        })?;
        tls.files = Some(Arc::new((cert.to_owned(), key.to_owned())));
        Ok(tls)
    }

    /// Reads the certificate and key files again ([`Tls::from_pem_files`]) and serves the new
    /// certificate to every handshake from now on (connections already open keep theirs); on
    /// any error the old certificate stays. `soapstone serve` calls it on SIGHUP.
    pub fn reload(&self) -> io::Result<()> {
        let Some(files) = &self.files else {
            return Err(invalid(
                "tls settings not read from files: nothing to reload".into(),
            ));
        };
        let (cert, key) = &**files;
        let read = |p: &Path| {
            std::fs::read(p).map_err(|e| {
                io::Error::new(e.kind(), format!("cannot read `{}`: {e}", p.display()))
            })
        };
        self.replace_pem(&read(cert)?, &read(key)?).map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("tls with `{}` and `{}`: {e}", cert.display(), key.display()),
            )
        })
    }

    /// Serves this certificate chain and key (PEM) to every handshake from now on; on error
    /// the old ones stay.
    pub fn replace_pem(&self, cert_chain_pem: &[u8], key_pem: &[u8]) -> io::Result<()> {
        let Some(slot) = &self.cert else {
            return Err(invalid(
                "tls settings built elsewhere: their certificate cannot be replaced".into(),
            ));
        };
        let new = Arc::new(certified_key(cert_chain_pem, key_pem)?);
        *slot.0.write().unwrap_or_else(|e| e.into_inner()) = new;
        Ok(())
    }

    /// Uses a rustls configuration built elsewhere as it is (its ALPN list included).
    pub fn from_config(config: Arc<rustls::ServerConfig>) -> Tls {
        Tls {
            acceptor: TlsAcceptor::from(config),
            cert: None,
            files: None,
        }
    }

    pub(crate) fn acceptor(&self) -> &TlsAcceptor {
        &self.acceptor
    }

    fn build(
        cert_chain_pem: &[u8],
        key_pem: &[u8],
        client_ca_pem: Option<&[u8]>,
    ) -> io::Result<Tls> {
        let slot = Arc::new(CertSlot(RwLock::new(Arc::new(certified_key(
            cert_chain_pem,
            key_pem,
        )?))));
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let builder = rustls::ServerConfig::builder_with_provider(provider.clone())
            .with_safe_default_protocol_versions()
            .map_err(|e| invalid(format!("tls setup: {e}")))?;
        let builder = match client_ca_pem {
            None => builder.with_no_client_auth(),
            Some(pem) => {
                let mut roots = rustls::RootCertStore::empty();
                for ca in certs_of(pem, "client ca certificate")? {
                    roots
                        .add(ca)
                        .map_err(|e| invalid(format!("unusable client ca certificate: {e}")))?;
                }
                let verifier = rustls::server::WebPkiClientVerifier::builder_with_provider(
                    roots.into(),
                    provider,
                )
                .build()
                .map_err(|e| invalid(format!("client certificate verifier: {e}")))?;
                builder.with_client_cert_verifier(verifier)
            }
        };
        let mut config = builder.with_cert_resolver(slot.clone());
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        let mut tls = Tls::from_config(Arc::new(config));
        tls.cert = Some(slot);
        Ok(tls)
    }
}

/// The certificates of a PEM bundle; at least one.
fn certs_of(pem: &[u8], what: &str) -> io::Result<Vec<CertificateDer<'static>>> {
    let certs = CertificateDer::pem_slice_iter(pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| invalid(format!("bad {what} pem: {e}")))?;
    if certs.is_empty() {
        return Err(invalid(format!(
            "no {what} in the pem (`-----BEGIN CERTIFICATE-----`)"
        )));
    }
    Ok(certs)
}

fn invalid(msg: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, msg)
}

/// The first byte of a TLS handshake record (`ContentType::Handshake`).
const HANDSHAKE_RECORD: u8 = 0x16;

/// How an accepted connection's handshake ended.
pub(crate) enum Handshake {
    Done(Box<TlsStream<TcpStream>>),
    /// The peer spoke something else first (plain HTTP): answer it and close.
    Plain(TcpStream),
    /// Closed, broken, or refused by rustls (logged at debug).
    Failed,
}

/// The server side of the handshake, without a deadline (the caller has it). Looks at the
/// first byte before rustls does, so that plain HTTP can be told apart and answered.
pub(crate) async fn handshake(
    acceptor: &TlsAcceptor,
    stream: TcpStream,
    peer: SocketAddr,
) -> Handshake {
    let mut first = [0u8; 1];
    match stream.peek(&mut first).await {
        Ok(0) | Err(_) => return Handshake::Failed,
        Ok(_) if first[0] != HANDSHAKE_RECORD => return Handshake::Plain(stream),
        Ok(_) => {}
    }
    match acceptor.accept(stream).await {
        Ok(s) => Handshake::Done(Box::new(s)),
        Err(e) => {
            tracing::debug!(%peer, error = %e, "tls handshake failed");
            Handshake::Failed
        }
    }
}

/// What a peer that speaks plain HTTP to the TLS port is told before the close.
pub(crate) const PLAIN_ON_TLS: &str = "this port speaks https (tls): use an `https://` url\n";
