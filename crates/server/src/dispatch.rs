//! One HTTP request in, one HTTP response out: routing by path, the SOAP POST, `?wsdl`,
//! `/metrics`, `/healthz` and `/readyz`, the concurrency limit and queue-delay shedding, body limits and compression,
//! and the panic guard.
//!
//! This is the whole server as a function, shared by the tower [`Service`](crate::Server) and
//! the server's own connections (which also say when the request arrived, for `codel`). It
//! must never queue a request (over the limit, or after too long a wait, it answers `503` at
//! once), never read more body than the limit, and never let a service panic escape.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::{Buf as _, Bytes, BytesMut};
use futures_util::FutureExt as _;
use http::header::{self, HeaderValue};
use http::{Method, Response, StatusCode};
use http_body::Body;
use http_body_util::{BodyExt as _, Full, LengthLimitError, Limited};
use soapstone_codec::{Fault, Version};
use soapstone_service::{Action, SoapRequest, SoapResponse, SoapService};
use tracing::Instrument as _;

use crate::answer::{response, Answer};
use crate::codel::Codel;
use crate::compress::{self, InflateError};
use crate::metrics::Metrics;
use crate::negotiate::{self, Coding};
use crate::view::{Known, RequestView};
use crate::ServerConfig;

/// The body of every response: responses are built whole, so hyper frames them with
/// `Content-Length` and writes head and body in one go.
pub type ResponseBody = Full<Bytes>;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Mount paths to services. Keys are the server's own paths, fixed when it is built, so FNV
/// instead of the default SipHash (a lookup per request); a request's path is only looked
/// up, never inserted, so it cannot lengthen a probe and the map needs no DoS-resistant seed.
pub(crate) type Routes = HashMap<String, usize, std::hash::BuildHasherDefault<fnv::FnvHasher>>;

/// Everything a request needs, shared by all connections.
pub(crate) struct Inner {
    pub(crate) routes: Routes,
    pub(crate) services: Vec<Arc<dyn SoapService>>,
    pub(crate) config: ServerConfig,
    pub(crate) metrics: Metrics,
    /// Queue-delay shedding, unless `queue_delay_target` is `None`.
    pub(crate) codel: Option<Codel>,
    /// Draining, and the readiness probe.
    pub(crate) health: crate::health::Health,
}

/// What the request was, for metrics and the span.
struct Outcome {
    mount: Option<usize>,
    operation: Option<&'static str>,
    fault: bool,
}

/// When a request's handling starts, as its connection knows it.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Start {
    /// Read whole at this instant by the thread that handles it: no queue stood between (a
    /// blocking connection), so nothing waited, and the clock is not read again.
    Read(Instant),
    /// Available at this instant (its bytes read, or readable), then waited for its task: the
    /// wait counts toward queue-delay shedding.
    Arrived(Instant),
    /// From a caller that does not say (the tower service's).
    Unknown,
}

/// Answers one request, and says when it was answered (the clock read that ends its
/// latency, for a caller that has a use for the instant). `peer` is the connection's peer,
/// when the server's own connection knows it (a request reaching the tower service from
/// elsewhere, e.g. axum, comes without).
pub(crate) async fn handle<B>(
    inner: &Inner,
    req: RequestView<'_, B>,
    start: Start,
    peer: Option<SocketAddr>,
) -> (Answer, Instant)
where
    B: Body,
    B::Error: Into<BoxError>,
{
    let (start, waited) = match start {
        Start::Read(at) => (at, None),
        Start::Arrived(at) => {
            let now = Instant::now();
            (now, Some(now.saturating_duration_since(at)))
        }
        Start::Unknown => (Instant::now(), None),
    };
    let mount = match req.recalled() {
        Some(n) => Some(n.mount),
        None => inner.routes.get(req.path).copied(),
    };
    // DEBUG: a span per request costs an allocation under an INFO subscriber otherwise.
    let span = tracing::debug_span!(
        "soap_request",
        method = %req.method,
        path = %req.path,
        operation = tracing::field::Empty,
        status = tracing::field::Empty,
    );
    // Without a subscriber that wants the span, the future is awaited where it is made:
    // wrapping it would move it (a copy of a few hundred bytes per request) for nothing, and
    // so would awaiting it from a variable. A SOAP POST's is awaited from here, not through
    // `route`'s: one future fewer to set up and return through (about 150 instructions a
    // request by callgrind).
    let soap = mount.filter(|_| req.method == Method::POST);
    let (resp, outcome) = match (soap, span.is_disabled()) {
        (Some(m), true) => post(inner, m, req, waited, peer, start).await,
        (Some(m), false) => {
            post(inner, m, req, waited, peer, start)
                .instrument(span.clone())
                .await
        }
        (None, true) => route(inner, mount, req, waited, peer, start).await,
        (None, false) => {
            route(inner, mount, req, waited, peer, start)
                .instrument(span.clone())
                .await
        }
    };
    let status = resp.status.as_u16();
    if let Some(op) = outcome.operation {
        span.record("operation", op);
    }
    span.record("status", status);
    let done = Instant::now();
    inner.metrics.record(
        outcome.mount,
        outcome.operation,
        status,
        outcome.fault,
        done.saturating_duration_since(start),
    );
    (resp, done)
}

/// Everything but a SOAP POST (which `handle` awaits itself): `/metrics`, the health probes,
/// `404`, `?wsdl` and `?xsd=`, `405`.
async fn route<B>(
    inner: &Inner,
    mount: Option<usize>,
    req: RequestView<'_, B>,
    waited: Option<Duration>,
    peer: Option<SocketAddr>,
    now: Instant,
) -> (Answer, Outcome)
where
    B: Body,
    B::Error: Into<BoxError>,
{
    let plain = |resp: Response<ResponseBody>| {
        (
            resp.into(),
            Outcome {
                mount,
                operation: None,
                fault: false,
            },
        )
    };
    let Some(m) = mount else {
        let path = req.path;
        if inner.config.metrics_path.as_deref() == Some(path) {
            return plain(metrics(inner, req.method));
        }
        if inner.config.health_path.as_deref() == Some(path) {
            return plain(crate::health::healthz(req.method));
        }
        if inner.config.ready_path.as_deref() == Some(path) {
            let timeout = inner.config.ready_probe_timeout;
            return plain(crate::health::readyz(&inner.health, timeout, req.method).await);
        }
        return plain(text(
            StatusCode::NOT_FOUND,
            format!("no service at `{path}`"),
        ));
    };
    match *req.method {
        // (`handle` awaits a SOAP POST itself; this arm keeps `route` whole on its own.)
        Method::POST => post(inner, m, req, waited, peer, now).await,
        Method::GET | Method::HEAD => (
            document(inner, m, &req),
            Outcome {
                mount,
                operation: None,
                fault: false,
            },
        ),
        _ => {
            let allow = if req.query.is_some() {
                "GET, HEAD"
            } else {
                "POST"
            };
            plain(method_not_allowed(req.method, allow))
        }
    }
}

/// A SOAP POST.
async fn post<B>(
    inner: &Inner,
    m: usize,
    req: RequestView<'_, B>,
    waited: Option<Duration>,
    peer: Option<SocketAddr>,
    now: Instant,
) -> (Answer, Outcome)
where
    B: Body,
    B::Error: Into<BoxError>,
{
    let config = &inner.config;
    let mut outcome = Outcome {
        mount: Some(m),
        operation: None,
        fault: false,
    };
    let learned;
    let n = match req.recalled() {
        Some(n) => n,
        None => {
            learned = match negotiate(m, &req) {
                Ok(n) => n,
                Err(resp) => return ((*resp).into(), outcome),
            };
            match req.recall {
                Some(keep) if learned.framed => keep.get_or_init(|| learned),
                _ => &learned,
            }
        }
    };
    let declared = req.known(Known::ContentLength).and_then(negotiate::decimal);
    if declared.is_some_and(|n| n > config.max_body_bytes as u64) {
        // Refused before any of it is read (and before `100 Continue` is sent).
        return (too_large(config.max_body_bytes).into(), outcome);
    }

    if let (Some(waited), Some(codel)) = (waited, &inner.codel) {
        if codel.shed(waited, now) {
            inner.metrics.shed.fetch_add(1, Ordering::Relaxed);
            inner
                .metrics
                .shed_queue_delay
                .fetch_add(1, Ordering::Relaxed);
            let msg = format!(
                "server overloaded: request waited `{}ms` to be handled, over the `{}ms` limit while a queue stands, retry later",
                waited.as_millis(),
                codel.slough().as_millis()
            );
            return (busy(msg, config).into(), outcome);
        }
    }
    let Some(_permit) = InFlight::acquire(&inner.metrics, config.max_in_flight) else {
        inner.metrics.shed.fetch_add(1, Ordering::Relaxed);
        let msg = format!(
            "server busy: `{}` requests in flight, retry later",
            config.max_in_flight
        );
        return (busy(msg, config).into(), outcome);
    };

    let client_cert = req.client_cert.cloned();
    let body = match read_body(req.body, config).await {
        Ok(body) => body,
        Err(resp) => return (resp.into(), outcome),
    };
    let body = match n.coding {
        None => body,
        Some(c) => match compress::decode(c, &body, config.max_body_bytes) {
            Ok(plain) => Bytes::from(plain),
            Err(InflateError::TooLarge) => {
                return (too_large(config.max_body_bytes).into(), outcome)
            }
            Err(InflateError::Corrupt(e)) => {
                return (
                    text(
                        StatusCode::BAD_REQUEST,
                        format!("invalid `{}` request body: {e}", c.name()),
                    )
                    .into(),
                    outcome,
                )
            }
        },
    };
    if n.ascii_only && !body.is_ascii() {
        let msg = "non-ascii body with a latin-1 charset, expected `charset=utf-8`";
        return (
            text(StatusCode::UNSUPPORTED_MEDIA_TYPE, msg.to_owned()).into(),
            outcome,
        );
    }

    if config.naive.dom {
        // Lab only (`--naive dom`): a DOM parse before the codec, the parser's cost on purpose.
        crate::naive::parse_dom(&body);
    }
    let version = n.version;
    // Borrowed: a clone of the `Arc` is two atomic operations a request.
    let service = &inner.services[m];
    let mut request = SoapRequest::new(version, n.action.clone(), body);
    request.peer = peer;
    if let Some(cert) = client_cert {
        request.extensions.insert(cert);
    }
    let answer = AssertUnwindSafe(service.serve(request))
        .catch_unwind()
        .await;
    let (status, version, fault, body) = match answer {
        Ok(r) => {
            outcome.operation = r.operation;
            (status_of(&r), r.version, r.fault, r.body)
        }
        Err(panic) => {
            inner.metrics.panics.fetch_add(1, Ordering::Relaxed);
            let msg = panic
                .downcast_ref::<&str>()
                .copied()
                .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
                .unwrap_or("(no message)");
            tracing::error!(panic = msg, "service panicked; answering a Server fault");
            let mut out = Vec::with_capacity(512);
            soapstone_codec::encode_fault(
                &mut out,
                version,
                &Fault::server("internal error: the service failed"),
            );
            (
                StatusCode::INTERNAL_SERVER_ERROR,
                version,
                true,
                Bytes::from(out),
            )
        }
    };
    outcome.fault = fault;
    // The content type follows the envelope answered (a SOAP 1.1 envelope posted as
    // `application/soap+xml` is answered in SOAP 1.1, as `text/xml`), not the request's.
    let resp = with_body(
        status,
        soap_content_type(version),
        body,
        n.respond_with,
        config,
    );
    (resp, outcome)
}

/// What a SOAP POST's head says: the framing of its body, the media type (the version, the
/// charset, SOAP 1.2's action), the codings both ways and SOAP 1.1's action; or the answer
/// that refuses it. A function of the head's bytes but for the `Content-Length` digits, and
/// of the server's fixed configuration: kept for the heads that repeat it
/// ([`Negotiated`](negotiate::Negotiated)), so it must read nothing else.
fn negotiate<B: Body>(
    mount: usize,
    req: &RequestView<'_, B>,
) -> Result<negotiate::Negotiated, Box<Response<ResponseBody>>> {
    let headers = req.headers;
    let get = |header: Known| headers.known(header);
    let framed = get(Known::ContentLength).is_some() || headers.get("transfer-encoding").is_some();
    if req.version <= http::Version::HTTP_11 && !framed && req.body.is_end_stream() {
        // HTTP/1.x: a POST that frames its body neither way has none (RFC 9112 6.3); a SOAP
        // request cannot be empty, so say what is missing rather than fault an empty envelope.
        // (A request built in process, as a tower service is called, may carry a body
        // without the header: only an empty one is refused.)
        return Err(Box::new(text(
            StatusCode::LENGTH_REQUIRED,
            "request body needs a `Content-Length` or `Transfer-Encoding: chunked`".into(),
        )));
    }
    // Boxed: a refusal is rare, and the `Response` would make every `Ok` as large.
    let unsupported = |msg| Box::new(text(StatusCode::UNSUPPORTED_MEDIA_TYPE, msg));
    let media = negotiate::soap_media_type(get(Known::ContentType)).map_err(unsupported)?;
    let coding = negotiate::content_coding(get(Known::ContentEncoding)).map_err(unsupported)?;
    let action = match media.version {
        Version::Soap11 => negotiate::soap_action(get(Known::SoapAction)),
        Version::Soap12 => media.action.as_deref().map(Action::new),
    };
    // The target is copied only where it is kept, for the view of the heads that repeat
    // this one: on hyper's path it would be an allocation per request.
    let keep = req.recall.is_some();
    Ok(negotiate::Negotiated {
        path: if keep {
            req.path.to_owned()
        } else {
            String::new()
        },
        query: req.query.filter(|_| keep).map(str::to_owned),
        mount,
        version: media.version,
        action,
        ascii_only: media.ascii_only,
        coding,
        respond_with: negotiate::accepted_coding(get(Known::AcceptEncoding)),
        framed,
    })
}

/// Reads the whole body within the size and time limits.
async fn read_body<B>(body: B, config: &ServerConfig) -> Result<Bytes, Response<ResponseBody>>
where
    B: Body,
    B::Error: Into<BoxError>,
{
    let max = config.max_body_bytes;
    let mut body = std::pin::pin!(body);
    // The usual small request: its body is one frame, ready at once (the lean loop's, hyper's
    // when the bytes came with the head), and the body's end. Taken as it is, without the
    // collecting future, its limit and its timer (about 150 instructions a request,
    // callgrind); anything else goes on to them with what was read.
    let mut seed = None;
    let first = std::future::poll_fn(|cx| std::task::Poll::Ready(body.as_mut().poll_frame(cx)));
    if let std::task::Poll::Ready(frame) = first.await {
        match frame {
            None => return Ok(Bytes::new()),
            Some(Err(e)) => return Err(invalid_body(e.into())),
            Some(Ok(frame)) => {
                if let Ok(mut data) = frame.into_data() {
                    let chunk = data.copy_to_bytes(data.remaining());
                    if chunk.len() > max {
                        return Err(too_large(max));
                    }
                    if body.is_end_stream() {
                        return Ok(chunk);
                    }
                    seed = Some(chunk);
                }
            }
        }
    }
    let limit = max - seed.as_ref().map_or(0, Bytes::len);
    let mut collect = std::pin::pin!(collect(seed, Limited::new(body, limit)));
    // A body that came with the head needs no timer.
    let res = match futures_util::poll!(collect.as_mut()) {
        std::task::Poll::Ready(res) => Ok(res),
        std::task::Poll::Pending => tokio::time::timeout(config.body_read_timeout, collect).await,
    };
    match res {
        Err(_) => Err(text(
            StatusCode::REQUEST_TIMEOUT,
            format!(
                "request body not received within `{:?}`",
                config.body_read_timeout
            ),
        )),
        Ok(Err(e)) if e.downcast_ref::<LengthLimitError>().is_some() => Err(too_large(max)),
        Ok(Err(e)) => Err(invalid_body(e)),
        Ok(Ok(bytes)) => Ok(bytes),
    }
}

/// The answer to a body the transport could not read.
fn invalid_body(e: BoxError) -> Response<ResponseBody> {
    text(
        StatusCode::BAD_REQUEST,
        format!("invalid request body: {e}"),
    )
}

/// The body's bytes, after `seed` (what [`read_body`] read of it already). A body of one data
/// frame (a `Content-Length` body that came in one read: every small request) is handed on as
/// it is, without a copy or an allocation; only a body of several frames is copied into one
/// buffer.
async fn collect<B>(seed: Option<Bytes>, body: B) -> Result<Bytes, B::Error>
where
    B: Body,
{
    let mut body = std::pin::pin!(body);
    let mut first: Option<Bytes> = seed;
    let mut rest: Option<BytesMut> = None;
    while let Some(frame) = body.frame().await {
        let Ok(mut data) = frame?.into_data() else {
            continue; // trailers: nothing a SOAP request needs
        };
        let chunk = data.copy_to_bytes(data.remaining());
        match (&mut first, &mut rest) {
            (None, _) => first = Some(chunk),
            (Some(one), None) => {
                let mut all = BytesMut::with_capacity(one.len() + chunk.len());
                all.extend_from_slice(one);
                all.extend_from_slice(&chunk);
                rest = Some(all);
            }
            (Some(_), Some(all)) => all.extend_from_slice(&chunk),
        }
    }
    Ok(match (first, rest) {
        (_, Some(all)) => all.freeze(),
        (Some(one), None) => one,
        (None, None) => Bytes::new(),
    })
}

/// `GET path?wsdl`, `GET path?xsd=...`: the document, or the error answer.
fn document<B>(inner: &Inner, m: usize, req: &RequestView<'_, B>) -> Answer {
    let Some(query) = req.query else {
        return method_not_allowed(req.method, "POST").into();
    };
    let query = if query.eq_ignore_ascii_case("wsdl") {
        "wsdl"
    } else {
        query
    };
    let path = req.path;
    let endpoint = match &inner.config.public_url {
        Some(base) => format!("{}{path}", base.trim_end_matches('/')),
        None => match host(req) {
            Some(host) => {
                let scheme = if inner.config.tls.is_some() {
                    "https"
                } else {
                    "http"
                };
                format!("{scheme}://{host}{path}")
            }
            None => {
                return text(
                    StatusCode::BAD_REQUEST,
                    "missing or invalid `Host` header, needed for the endpoint url".into(),
                )
                .into()
            }
        },
    };
    let service = &inner.services[m];
    let doc = std::panic::catch_unwind(AssertUnwindSafe(|| service.document(query, &endpoint)));
    match doc {
        Err(_) => {
            inner.metrics.panics.fetch_add(1, Ordering::Relaxed);
            tracing::error!(query, "service panicked writing a document");
            text(
                StatusCode::INTERNAL_SERVER_ERROR,
                format!("internal error: no document `{query}`"),
            )
            .into()
        }
        Ok(Some(doc)) => {
            let accept = negotiate::accepted_coding(req.headers.get("accept-encoding"));
            let ct = HeaderValue::from_static("text/xml; charset=utf-8");
            with_body(StatusCode::OK, ct, Bytes::from(doc), accept, &inner.config)
        }
        Ok(None) => text(
            StatusCode::NOT_FOUND,
            format!("no document `{query}` at `{path}`"),
        )
        .into(),
    }
}

/// The request's host (and port), if it is a plain `host[:port]`.
fn host<'a, B>(req: &RequestView<'a, B>) -> Option<&'a str> {
    let h = match req.headers.get("host") {
        Some(_) => req.header_str("host")?,
        None => req.authority?,
    };
    let ok = !h.is_empty()
        && h.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b".-:[]_".contains(&b));
    ok.then_some(h)
}

fn metrics(inner: &Inner, method: &Method) -> Response<ResponseBody> {
    if method != Method::GET && method != Method::HEAD {
        return method_not_allowed(method, "GET, HEAD");
    }
    let mut resp = Response::new(Full::new(Bytes::from(inner.metrics.render())));
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
    );
    resp
}

/// Counts a request in flight; refuses past the limit instead of queueing.
struct InFlight<'a>(&'a Metrics);

impl<'a> InFlight<'a> {
    fn acquire(metrics: &'a Metrics, max: usize) -> Option<Self> {
        let prev = metrics.in_flight.fetch_add(1, Ordering::AcqRel);
        if prev >= max {
            metrics.in_flight.fetch_sub(1, Ordering::AcqRel);
            return None;
        }
        Some(InFlight(metrics))
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::AcqRel);
    }
}

/// The HTTP status of a SOAP answer: 200, or for a fault 500, except a SOAP 1.2
/// `env:Sender` fault, which SOAP 1.2 Part 2 section 7.5.2.2 answers with 400. SOAP 1.1's
/// HTTP binding (section 6.2) answers every fault with 500.
fn status_of(r: &SoapResponse) -> StatusCode {
    if r.is_accepted() {
        // A one-way operation's answer: no envelope (WS-I BP R2714, SOAP 1.2 Part 2 7.5.2.2).
        StatusCode::ACCEPTED
    } else if !r.fault {
        StatusCode::OK
    } else if r.version == Version::Soap12 && r.is_sender_fault() {
        StatusCode::BAD_REQUEST
    } else {
        StatusCode::INTERNAL_SERVER_ERROR
    }
}

fn soap_content_type(version: Version) -> HeaderValue {
    match version {
        Version::Soap11 => HeaderValue::from_static("text/xml; charset=utf-8"),
        Version::Soap12 => HeaderValue::from_static("application/soap+xml; charset=utf-8"),
    }
}

/// An answer with `body`, compressed when the client accepts it and it is big enough. The
/// common answer (no compression) has no header map: see [`Answer`].
fn with_body(
    status: StatusCode,
    content_type: HeaderValue,
    body: Bytes,
    accepted: Option<Coding>,
    config: &ServerConfig,
) -> Answer {
    let coding = accepted.filter(|_| {
        config
            .compress_responses_over
            .is_some_and(|min| body.len() >= min)
    });
    let body = match coding {
        Some(c) => Bytes::from(compress::encode(c, &body)),
        None => body,
    };
    // 202 carries no envelope, so no media type either.
    let content_type = (status != StatusCode::ACCEPTED).then_some(content_type);
    let mut answer = Answer::new(status, content_type, body);
    if let Some(c) = coding {
        answer.insert(header::CONTENT_ENCODING, HeaderValue::from_static(c.name()));
    }
    if accepted.is_some() && config.compress_responses_over.is_some() {
        answer.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
    }
    answer
}

/// A plain-text error answer.
#[cold]
pub(crate) fn text(status: StatusCode, mut msg: String) -> Response<ResponseBody> {
    msg.push('\n');
    let mut resp = response(Bytes::from(msg));
    *resp.status_mut() = status;
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    resp
}

/// A `503` with `Retry-After`.
#[cold]
pub(crate) fn busy(msg: String, config: &ServerConfig) -> Response<ResponseBody> {
    let mut resp = text(StatusCode::SERVICE_UNAVAILABLE, msg);
    let secs = config.retry_after.as_secs().max(1);
    resp.headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(secs));
    resp
}

#[cold]
fn too_large(limit: usize) -> Response<ResponseBody> {
    text(
        StatusCode::PAYLOAD_TOO_LARGE,
        format!("request body larger than the limit of `{limit}` bytes"),
    )
}

#[cold]
fn method_not_allowed(method: &Method, allow: &'static str) -> Response<ResponseBody> {
    let mut resp = text(
        StatusCode::METHOD_NOT_ALLOWED,
        format!("method `{method}` not allowed, expected `{allow}`"),
    );
    resp.headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static(allow));
    resp
}
