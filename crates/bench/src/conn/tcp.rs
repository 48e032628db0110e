//! The raw-socket clients: fixed-size ping-pong (the physical floor) and connect+close.
//!
//! Ping-pong writes the request in one `write_all` and reads exactly `response_size`
//! bytes: framing by fixed sizes, as agreed with the `tcp-pingpong` baseline server.
//! Connect-only opens a connection and closes it, which is Davis & Parashar's "TCP setup
//! time" row (seed `001_*.txt`, section V-A). It closes with a reset rather than a FIN
//! (see `ConnectOnly::call`): the handshake measured is the same.

use std::net::SocketAddr;
use std::sync::Arc;

use bytes::Bytes;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::Instant;

use super::{connect_tcp, ErrorKind, IoCounters, Outcome};

pub(crate) struct PingPong {
    addr: SocketAddr,
    request: Bytes,
    response: Vec<u8>,
    counters: Arc<IoCounters>,
    stream: Option<TcpStream>,
}

impl PingPong {
    pub(crate) fn new(
        addr: SocketAddr,
        request: Bytes,
        response_size: usize,
        counters: Arc<IoCounters>,
    ) -> Self {
        PingPong {
            addr,
            request,
            response: vec![0; response_size],
            counters,
            stream: None,
        }
    }

    pub(crate) async fn connect(&mut self, deadline: Instant) -> Outcome {
        self.stream = Some(connect_tcp(self.addr, deadline).await?);
        Ok(())
    }

    pub(crate) async fn call(&mut self, deadline: Instant) -> Outcome {
        if self.stream.is_none() {
            self.connect(deadline).await?;
        }
        let result = match tokio::time::timeout_at(deadline, self.exchange()).await {
            Ok(result) => result,
            Err(_) => Err(ErrorKind::Timeout),
        };
        if result.is_err() {
            self.stream = None;
        }
        result
    }

    async fn exchange(&mut self) -> Outcome {
        let stream = self.stream.as_mut().ok_or(ErrorKind::Io)?;
        stream
            .write_all(&self.request)
            .await
            .map_err(|_| ErrorKind::Io)?;
        self.counters.add_sent(self.request.len());
        // Count what arrives even if the answer is cut short.
        let mut filled = 0;
        while filled < self.response.len() {
            match stream.read(&mut self.response[filled..]).await {
                Ok(0) | Err(_) => {
                    self.counters.add_received(filled);
                    return Err(ErrorKind::Io);
                }
                Ok(n) => filled += n,
            }
        }
        self.counters.add_received(filled);
        Ok(())
    }
}

pub(crate) struct ConnectOnly {
    addr: SocketAddr,
}

impl ConnectOnly {
    pub(crate) fn new(addr: SocketAddr) -> Self {
        ConnectOnly { addr }
    }

    pub(crate) async fn call(&mut self, deadline: Instant) -> Outcome {
        match tokio::time::timeout_at(deadline, TcpStream::connect(self.addr)).await {
            Err(_) => Err(ErrorKind::Timeout),
            Ok(Err(_)) => Err(ErrorKind::Connect),
            Ok(Ok(stream)) => {
                // Close with a reset (SO_LINGER 0): no TIME_WAIT is left behind. Thousands
                // of connect+close per second over loopback otherwise reuse ports whose
                // 4-tuple is still in TIME_WAIT and wait out 1 s SYN retransmits.
                let _ = stream.set_zero_linger();
                drop(stream);
                Ok(())
            }
        }
    }
}
