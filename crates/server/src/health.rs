//! `GET /healthz` (liveness) and `GET /readyz` (readiness), for load balancers and
//! orchestrators.
//!
//! Liveness says only that the process answers HTTP. Readiness says whether this replica should
//! get new requests: not while it drains (from the moment shutdown begins, for
//! [`ServerConfig::drain_grace`](crate::ServerConfig::drain_grace) before connections close, so
//! a balancer polling `/readyz` takes it out first) and not while the readiness probe (the
//! charging store's ping, say) fails or takes longer than
//! [`ServerConfig::ready_probe_timeout`](crate::ServerConfig::ready_probe_timeout). Must never:
//! block on the probe without that bound, or answer anything but `200` and `503` to a `GET`.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::header::{self, HeaderValue};
use http::{Method, Response, StatusCode};
use http_body_util::Full;

use crate::dispatch::ResponseBody;

/// A check run by `GET /readyz`: `Err(why)` makes the replica unready (`why` is in the body).
pub type ReadinessProbe = Arc<
    dyn Fn() -> Pin<Box<dyn Future<Output = Result<(), String>> + Send>> + Send + Sync + 'static,
>;

/// Whether the server drains, and what else readiness depends on.
#[derive(Default)]
pub(crate) struct Health {
    pub(crate) draining: AtomicBool,
    pub(crate) probe: Option<ReadinessProbe>,
}

impl Health {
    pub(crate) fn start_draining(&self) {
        self.draining.store(true, Ordering::Release);
    }

    pub(crate) fn is_draining(&self) -> bool {
        self.draining.load(Ordering::Acquire)
    }
}

fn answer(status: StatusCode, text: String) -> Response<ResponseBody> {
    let mut resp = Response::new(Full::new(Bytes::from(text)));
    *resp.status_mut() = status;
    let h = resp.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    resp
}

fn not_get(method: &Method) -> Option<Response<ResponseBody>> {
    if method == Method::GET || method == Method::HEAD {
        return None;
    }
    let mut resp = answer(
        StatusCode::METHOD_NOT_ALLOWED,
        format!("method `{method}` not allowed here; use GET, HEAD\n"),
    );
    resp.headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
    Some(resp)
}

/// `GET /healthz`: the process answers.
pub(crate) fn healthz(method: &Method) -> Response<ResponseBody> {
    not_get(method).unwrap_or_else(|| answer(StatusCode::OK, "ok\n".into()))
}

/// `GET /readyz`: `200 ready`, or `503` saying why not.
pub(crate) async fn readyz(
    health: &Health,
    timeout: Duration,
    method: &Method,
) -> Response<ResponseBody> {
    if let Some(resp) = not_get(method) {
        return resp;
    }
    if health.is_draining() {
        return answer(StatusCode::SERVICE_UNAVAILABLE, "draining\n".into());
    }
    if let Some(probe) = &health.probe {
        match tokio::time::timeout(timeout, probe()).await {
            Ok(Ok(())) => {}
            Ok(Err(why)) => {
                return answer(
                    StatusCode::SERVICE_UNAVAILABLE,
                    format!("not ready: {why}\n"),
                )
            }
            Err(_) => {
                return answer(
                    StatusCode::SERVICE_UNAVAILABLE,
                    format!("not ready: the readiness probe took more than {timeout:?}\n"),
                )
            }
        }
    }
    answer(StatusCode::OK, "ready\n".into())
}
