//! One connection per generator task, for every kind of target.
//!
//! The generator does not share a pool: each task owns its connection, so a slow answer
//! holds back only the requests scheduled on that task (exactly what coordinated-omission
//! correction then charges to the server), and no lock sits between tasks. Every socket
//! has `TCP_NODELAY`. A call is bounded by a deadline; after a timeout or a transport
//! error the connection is dropped and the next call reconnects.
//!
//! Bytes are counted at the socket ([`Counting`]) so HTTP headers and gRPC framing are
//! in the totals, like García et al.'s Size_sent / Size_rcv.
//! This module must never retry a request: a failed call is reported, not hidden.

mod grpc;
mod http;
mod naive;
mod tcp;

pub use naive::NaiveCauses;

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::time::Instant;

use crate::target::Target;

/// Why a request did not succeed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ErrorKind {
    /// No complete answer before the deadline.
    Timeout,
    /// The connection could not be opened (refused, unreachable, connect timed out).
    Connect,
    /// The connection broke during the exchange (reset, closed, short answer).
    Io,
    /// An HTTP answer with a non-2xx status that is not a SOAP fault.
    HttpStatus(u16),
    /// An HTTP error answer carrying a SOAP Fault envelope.
    SoapFault,
    /// A gRPC status other than OK (the code's name).
    GrpcStatus(String),
    /// An answer that arrived but is not what the call asks for (wrong size or value).
    Invalid,
}

impl ErrorKind {
    /// `true` if an answer came back (so it has a latency).
    pub(crate) fn is_response(&self) -> bool {
        matches!(
            self,
            ErrorKind::HttpStatus(_)
                | ErrorKind::SoapFault
                | ErrorKind::GrpcStatus(_)
                | ErrorKind::Invalid
        )
    }
}

pub(crate) type Outcome = Result<(), ErrorKind>;

/// Bytes written and read on a task's sockets, across reconnects.
#[derive(Debug, Default)]
pub(crate) struct IoCounters {
    sent: AtomicU64,
    received: AtomicU64,
}

impl IoCounters {
    pub(crate) fn snapshot(&self) -> (u64, u64) {
        (
            self.sent.load(Ordering::Relaxed),
            self.received.load(Ordering::Relaxed),
        )
    }

    fn add_sent(&self, n: usize) {
        self.sent.fetch_add(n as u64, Ordering::Relaxed);
    }

    fn add_received(&self, n: usize) {
        self.received.fetch_add(n as u64, Ordering::Relaxed);
    }
}

/// A socket wrapper that counts the bytes through it.
#[derive(Debug)]
pub(crate) struct Counting<T> {
    inner: T,
    counters: Arc<IoCounters>,
}

impl<T> Counting<T> {
    pub(crate) fn new(inner: T, counters: Arc<IoCounters>) -> Self {
        Counting { inner, counters }
    }

    pub(crate) fn get_ref(&self) -> &T {
        &self.inner
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for Counting<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let res = Pin::new(&mut self.inner).poll_read(cx, buf);
        self.counters.add_received(buf.filled().len() - before);
        res
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for Counting<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let res = Pin::new(&mut self.inner).poll_write(cx, buf);
        if let Poll::Ready(Ok(n)) = res {
            self.counters.add_sent(n);
        }
        res
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let res = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        if let Poll::Ready(Ok(n)) = res {
            self.counters.add_sent(n);
        }
        res
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// A rustls client configuration (ring provider, ALPN `http/1.1`) trusting the CAs of `ca_pem`,
/// or the Mozilla roots of `webpki-roots` when `None`.
pub(crate) fn tls_config(
    ca_pem: Option<&[u8]>,
) -> Result<Arc<tokio_rustls::rustls::ClientConfig>, String> {
    use rustls_pki_types::pem::PemObject as _;
    use tokio_rustls::rustls;
    let mut roots = rustls::RootCertStore::empty();
    match ca_pem {
        None => roots.roots = webpki_roots::TLS_SERVER_ROOTS.to_vec(),
        Some(pem) => {
            for cert in rustls_pki_types::CertificateDer::pem_slice_iter(pem) {
                let cert = cert.map_err(|e| format!("bad tls ca pem: {e}"))?;
                roots
                    .add(cert)
                    .map_err(|e| format!("unusable tls ca certificate: {e}"))?;
            }
            if roots.is_empty() {
                return Err("no certificate in the tls ca pem".to_owned());
            }
        }
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("tls setup: {e}"))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}

/// Opens a TCP connection with `TCP_NODELAY`, bounded by `deadline`.
async fn connect_tcp(addr: SocketAddr, deadline: Instant) -> Result<TcpStream, ErrorKind> {
    let stream = tokio::time::timeout_at(deadline, TcpStream::connect(addr))
        .await
        .map_err(|_| ErrorKind::Connect)?
        .map_err(|_| ErrorKind::Connect)?;
    stream.set_nodelay(true).map_err(|_| ErrorKind::Connect)?;
    Ok(stream)
}

/// A task's connection to the target.
pub(crate) enum Conn {
    Http(http::HttpConn),
    /// SOAP with the seeds' client causes on (`--naive`).
    Naive(naive::NaiveConn),
    PingPong(tcp::PingPong),
    ConnectOnly(tcp::ConnectOnly),
    Grpc(grpc::GrpcConn),
}

impl Conn {
    /// Task `idx`'s not yet connected connection to `target` at `addr`.
    pub(crate) fn new(
        target: &Target,
        addr: SocketAddr,
        counters: Arc<IoCounters>,
        idx: usize,
    ) -> Self {
        match target {
            Target::Soap(t) if t.naive.any() => {
                Conn::Naive(naive::NaiveConn::new(t, addr, counters, idx))
            }
            Target::Soap(t) => Conn::Http(http::HttpConn::new(t, addr, counters, idx)),
            Target::TcpPingPong {
                request,
                response_size,
                ..
            } => Conn::PingPong(tcp::PingPong::new(
                addr,
                request.clone(),
                *response_size,
                counters,
            )),
            Target::TcpConnect { .. } => Conn::ConnectOnly(tcp::ConnectOnly::new(addr)),
            Target::Grpc { call, .. } => Conn::Grpc(grpc::GrpcConn::new(addr, *call, counters)),
        }
    }

    /// Connects ahead of the first request (a no-op for connect-only targets).
    pub(crate) async fn connect(&mut self, deadline: Instant) -> Outcome {
        match self {
            Conn::Http(c) => c.connect(deadline).await,
            Conn::Naive(c) => c.connect(deadline).await,
            Conn::PingPong(c) => c.connect(deadline).await,
            Conn::ConnectOnly(_) => Ok(()),
            Conn::Grpc(c) => c.connect(deadline).await,
        }
    }

    /// One request and its full answer, bounded by `deadline`; reconnects first if the
    /// previous call broke the connection.
    pub(crate) async fn call(&mut self, deadline: Instant) -> Outcome {
        match self {
            Conn::Http(c) => c.call(deadline).await,
            Conn::Naive(c) => c.call(deadline).await,
            Conn::PingPong(c) => c.call(deadline).await,
            Conn::ConnectOnly(c) => c.call(deadline).await,
            Conn::Grpc(c) => c.call(deadline).await,
        }
    }
}

/// The string `getString(n)` answers with (and the echo carries): `n` ASCII letters.
pub(crate) fn payload_string(n: u32) -> String {
    (0..n).map(|i| char::from(b'a' + (i % 26) as u8)).collect()
}

/// The integers `getIntegers(n)` answers with: `0..n`.
pub(crate) fn payload_integers(n: u32) -> Vec<i32> {
    (0..n as i32).collect()
}
