//! Loopback servers with chosen behaviour for the generator tests.
#![allow(dead_code, unreachable_pub)]

use std::future::Future;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use bytes::Bytes;
use http::{Request, Response, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;

/// A SOAP 1.1 request envelope for the tests.
pub const ENVELOPE: &str = r#"<?xml version="1.0" encoding="UTF-8"?><SOAP-ENV:Envelope xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/"><SOAP-ENV:Body><ns1:echoFloat xmlns:ns1="http://soapinterop.org/"><inputFloat>654.321</inputFloat></ns1:echoFloat></SOAP-ENV:Body></SOAP-ENV:Envelope>"#;

/// The request number (0-based, counted over all connections) and the request's body.
pub struct Seen {
    pub n: usize,
    pub headers: http::HeaderMap,
    pub body: Bytes,
}

/// Starts a hyper HTTP/1.1 server on a loopback port whose answers come from `handler`.
/// It lives until the test's runtime ends.
pub async fn http_server<F, Fut>(handler: F) -> SocketAddr
where
    F: Fn(Seen) -> Fut + Clone + Send + Sync + 'static,
    Fut: Future<Output = Response<Full<Bytes>>> + Send + 'static,
{
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let counter = Arc::new(AtomicUsize::new(0));
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                return;
            };
            let handler = handler.clone();
            let counter = counter.clone();
            tokio::spawn(async move {
                let service = service_fn(move |req: Request<Incoming>| {
                    let handler = handler.clone();
                    let n = counter.fetch_add(1, Ordering::SeqCst);
                    async move {
                        let (parts, body) = req.into_parts();
                        let body = body
                            .collect()
                            .await
                            .map(|b| b.to_bytes())
                            .unwrap_or_default();
                        Ok::<_, std::convert::Infallible>(
                            handler(Seen {
                                n,
                                headers: parts.headers,
                                body,
                            })
                            .await,
                        )
                    }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    addr
}

pub fn response(status: StatusCode, body: impl Into<Bytes>) -> Response<Full<Bytes>> {
    let mut r = Response::new(Full::new(body.into()));
    *r.status_mut() = status;
    r
}

/// Reads a file of the shared golden test data.
pub fn testdata(path: &str) -> Vec<u8> {
    let full = format!("{}/../../testdata/{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&full).unwrap_or_else(|e| panic!("read {full}: {e}"))
}
