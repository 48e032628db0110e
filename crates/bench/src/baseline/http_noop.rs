//! The `http-noop` baseline: hyper answers every request with an empty 200.
//!
//! The request body is read to the end (as any servlet container would) and dropped.

use std::convert::Infallible;
use std::future::Future;

use bytes::Bytes;
use http::{Request, Response};
use http_body_util::{BodyExt, Empty};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tokio::task::JoinSet;

pub(super) async fn serve(listener: TcpListener, stop: impl Future<Output = ()>) {
    let mut conns = JoinSet::new();
    tokio::pin!(stop);
    loop {
        tokio::select! {
            _ = &mut stop => return,
            accepted = listener.accept() => {
                if let Ok((stream, _)) = accepted {
                    let _ = stream.set_nodelay(true);
                    conns.spawn(async move {
                        let service = service_fn(noop);
                        let _ = hyper::server::conn::http1::Builder::new()
                            .serve_connection(TokioIo::new(stream), service)
                            .await;
                    });
                }
            }
            Some(_) = conns.join_next(), if !conns.is_empty() => {}
        }
    }
}

async fn noop(request: Request<Incoming>) -> Result<Response<Empty<Bytes>>, Infallible> {
    // A body that breaks off mid-way still gets its 200; hyper closes the connection.
    let _ = request.into_body().collect().await;
    Ok(Response::new(Empty::new()))
}
