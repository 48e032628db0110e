//! The gRPC client of the binary-RPC yardstick: one tonic `Channel` (one HTTP/2
//! connection) per task, made through a connector that counts bytes and sets
//! `TCP_NODELAY`. Every answer is checked (size of the string or list, the echoed float),
//! so a fast wrong answer is an `invalid` error, not a success.

use std::net::SocketAddr;
use std::sync::Arc;

use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;
use tokio::time::Instant;
use tonic::transport::{Channel, Endpoint};
use tonic::{Code, Status};

use super::{payload_integers, payload_string, Counting, ErrorKind, IoCounters, Outcome};
use crate::proto::echo_client::EchoClient;
use crate::proto::{Count, EchoMessage, Empty, FloatValue};
use crate::target::GrpcCall;

pub(crate) struct GrpcConn {
    addr: SocketAddr,
    call: GrpcCall,
    counters: Arc<IoCounters>,
    client: Option<EchoClient<Channel>>,
}

impl GrpcConn {
    pub(crate) fn new(addr: SocketAddr, call: GrpcCall, counters: Arc<IoCounters>) -> Self {
        GrpcConn {
            addr,
            call,
            counters,
            client: None,
        }
    }

    pub(crate) async fn connect(&mut self, deadline: Instant) -> Outcome {
        self.client = None;
        let endpoint = Endpoint::from_shared(format!("http://{}", self.addr))
            .map_err(|_| ErrorKind::Connect)?;
        let endpoint = endpoint.tcp_nodelay(true);
        let addr = self.addr;
        let counters = self.counters.clone();
        let connector = tower::service_fn(move |_uri| {
            let counters = counters.clone();
            async move {
                let stream = TcpStream::connect(addr).await?;
                stream.set_nodelay(true)?;
                Ok::<_, std::io::Error>(TokioIo::new(Counting::new(stream, counters)))
            }
        });
        let channel = tokio::time::timeout_at(deadline, endpoint.connect_with_connector(connector))
            .await
            .map_err(|_| ErrorKind::Connect)?
            .map_err(|_| ErrorKind::Connect)?;
        self.client = Some(EchoClient::new(channel));
        Ok(())
    }

    pub(crate) async fn call(&mut self, deadline: Instant) -> Outcome {
        if self.client.is_none() {
            self.connect(deadline).await?;
        }
        let result = match tokio::time::timeout_at(deadline, self.exchange()).await {
            Ok(result) => result,
            Err(_) => Err(ErrorKind::Timeout),
        };
        if matches!(&result, Err(kind) if !kind.is_response()) {
            self.client = None;
        }
        result
    }

    async fn exchange(&mut self) -> Outcome {
        let client = self.client.as_mut().ok_or(ErrorKind::Io)?;
        let ok = match self.call {
            GrpcCall::DoNothing => {
                client.do_nothing(Empty {}).await.map_err(classify)?;
                true
            }
            GrpcCall::EchoFloat(value) => {
                let back = client
                    .echo_float(FloatValue { value })
                    .await
                    .map_err(classify)?;
                back.into_inner().value.to_bits() == value.to_bits()
            }
            GrpcCall::GetString(n) => {
                let back = client.get_string(Count { n }).await.map_err(classify)?;
                back.into_inner().value.len() == n as usize
            }
            GrpcCall::GetIntegers(n) => {
                let back = client.get_integers(Count { n }).await.map_err(classify)?;
                back.into_inner().values.len() == n as usize
            }
            GrpcCall::Echo(n) => {
                let sent = EchoMessage {
                    value: crate::ECHO_FLOAT,
                    text: payload_string(n),
                    integers: payload_integers(n),
                };
                let back = client.echo(sent.clone()).await.map_err(classify)?;
                back.into_inner() == sent
            }
        };
        if ok {
            Ok(())
        } else {
            Err(ErrorKind::Invalid)
        }
    }
}

/// A status made by the transport (connection refused or broken) is an I/O error; one
/// sent by the server is a gRPC status.
fn classify(status: Status) -> ErrorKind {
    let from_transport = std::error::Error::source(&status).is_some();
    match status.code() {
        Code::Unavailable | Code::Unknown | Code::Cancelled if from_transport => ErrorKind::Io,
        code => ErrorKind::GrpcStatus(snake_case(&format!("{code:?}"))),
    }
}

/// `InvalidArgument` -> `invalid_argument` (the names of the gRPC status codes).
fn snake_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}
