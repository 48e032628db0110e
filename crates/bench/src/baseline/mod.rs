//! The baselines: servers that set the floor and the binary-RPC yardstick for SOAP.
//!
//! * `tcp-connect`: accepts and closes. Davis & Parashar's "TCP setup time" row (seed
//!   `001_*.txt`, section V-A: "How long does it take in our environment to connect and
//!   then close a TCP connection").
//! * `tcp-pingpong`: answers every `request_size` bytes with `response_size` bytes over a
//!   raw socket. With the sizes of a SOAP exchange this is the physical floor: the same
//!   bytes, no HTTP, no XML.
//! * `http-noop`: hyper answering every request with an empty 200 (Davis & Parashar's
//!   "HTTP to Apache Tomcat" row).
//! * `grpc`: the tonic echo service of `proto/echo.proto` (doNothing, echoFloat,
//!   getString(n), getIntegers(n), echo), standing in for the CORBA and Java RMI rows.
//!
//! Each is started with [`start_baseline`] on the current tokio runtime and stops on
//! [`BaselineServer::shutdown`] or when dropped. A baseline must never do more work per
//! request than its row says (no logging, no parsing beyond the framing).

mod grpc;
mod http_noop;
mod tcp;

use std::fmt;
use std::io;
use std::net::SocketAddr;

use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// Which baseline server to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Baseline {
    /// Accept and close.
    TcpConnect,
    /// Fixed-size ping-pong: read `request_size` bytes, write `response_size` bytes.
    TcpPingPong {
        /// Bytes per request (at least 1).
        request_size: usize,
        /// Bytes per answer (at least 1).
        response_size: usize,
    },
    /// HTTP/1.1 keep-alive, empty 200 to everything.
    HttpNoop,
    /// The tonic echo service.
    Grpc,
}

impl fmt::Display for Baseline {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Baseline::TcpConnect => f.write_str("tcp-connect"),
            Baseline::TcpPingPong {
                request_size,
                response_size,
            } => write!(f, "tcp-pingpong ({request_size} B -> {response_size} B)"),
            Baseline::HttpNoop => f.write_str("http-noop"),
            Baseline::Grpc => f.write_str("grpc"),
        }
    }
}

/// A running baseline server.
#[derive(Debug)]
pub struct BaselineServer {
    local_addr: SocketAddr,
    shutdown: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<()>>,
}

impl BaselineServer {
    /// The address it listens on (useful after binding port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The URL a load generator uses for it (`tcp://`, `tcp-connect://`, `http://`,
    /// `grpc://`).
    pub fn url(&self, kind: Baseline) -> String {
        let scheme = match kind {
            Baseline::TcpConnect => "tcp-connect",
            Baseline::TcpPingPong { .. } => "tcp",
            Baseline::HttpNoop => "http",
            Baseline::Grpc => "grpc",
        };
        let slash = if kind == Baseline::HttpNoop { "/" } else { "" };
        format!("{scheme}://{}{slash}", self.local_addr)
    }

    /// Stops accepting, closes every connection and waits for the server task.
    pub async fn shutdown(mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
    }
}

impl Drop for BaselineServer {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
    }
}

/// Binds `addr` and serves `kind` until shutdown.
pub async fn start_baseline(kind: Baseline, addr: SocketAddr) -> io::Result<BaselineServer> {
    if let Baseline::TcpPingPong {
        request_size,
        response_size,
    } = kind
    {
        if request_size == 0 || response_size == 0 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "tcp-pingpong needs at least 1 byte each way, got request {request_size} and response {response_size}"
                ),
            ));
        }
    }
    let listener = TcpListener::bind(addr).await?;
    let local_addr = listener.local_addr()?;
    let (tx, rx) = oneshot::channel::<()>();
    let stop = async move {
        let _ = rx.await;
    };
    let task = match kind {
        Baseline::TcpConnect => tokio::spawn(tcp::serve_connect(listener, stop)),
        Baseline::TcpPingPong {
            request_size,
            response_size,
        } => tokio::spawn(tcp::serve_pingpong(
            listener,
            request_size,
            response_size,
            stop,
        )),
        Baseline::HttpNoop => tokio::spawn(http_noop::serve(listener, stop)),
        Baseline::Grpc => tokio::spawn(grpc::serve(listener, stop)),
    };
    Ok(BaselineServer {
        local_addr,
        shutdown: Some(tx),
        task: Some(task),
    })
}
