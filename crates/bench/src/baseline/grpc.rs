//! The `grpc` baseline: the tonic echo service of `proto/echo.proto`.

use std::future::Future;

use tokio::net::TcpListener;
use tonic::transport::server::TcpIncoming;
use tonic::{Request, Response, Status};

use crate::conn::{payload_integers, payload_string};
use crate::proto::echo_server::{Echo, EchoServer};
use crate::proto::{Count, EchoMessage, Empty, FloatValue, Integers, StringValue};

/// Largest `n` a getString / getIntegers call may ask for (16 Mi items).
const MAX_ITEMS: u32 = 1 << 24;

pub(super) async fn serve(listener: TcpListener, stop: impl Future<Output = ()>) {
    let incoming = match TcpIncoming::from_listener(listener, true, None) {
        Ok(incoming) => incoming,
        Err(_) => return,
    };
    let _ = tonic::transport::Server::builder()
        .tcp_nodelay(true)
        .add_service(EchoServer::new(EchoService))
        .serve_with_incoming_shutdown(incoming, stop)
        .await;
}

/// The echo service; stateless.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct EchoService;

// tonic's trait methods return `Status` by value; boxing it here would only be undone.
#[allow(clippy::result_large_err)]
fn count(n: u32) -> Result<u32, Status> {
    if n > MAX_ITEMS {
        Err(Status::invalid_argument(format!(
            "`n` must be at most {MAX_ITEMS}, got `{n}`"
        )))
    } else {
        Ok(n)
    }
}

#[tonic::async_trait]
impl Echo for EchoService {
    async fn do_nothing(&self, _: Request<Empty>) -> Result<Response<Empty>, Status> {
        Ok(Response::new(Empty {}))
    }

    async fn echo_float(
        &self,
        request: Request<FloatValue>,
    ) -> Result<Response<FloatValue>, Status> {
        Ok(Response::new(request.into_inner()))
    }

    async fn get_string(&self, request: Request<Count>) -> Result<Response<StringValue>, Status> {
        let n = count(request.into_inner().n)?;
        Ok(Response::new(StringValue {
            value: payload_string(n),
        }))
    }

    async fn get_integers(&self, request: Request<Count>) -> Result<Response<Integers>, Status> {
        let n = count(request.into_inner().n)?;
        Ok(Response::new(Integers {
            values: payload_integers(n),
        }))
    }

    async fn echo(&self, request: Request<EchoMessage>) -> Result<Response<EchoMessage>, Status> {
        Ok(Response::new(request.into_inner()))
    }
}
