//! The SOAP server: hyper 1.x on tokio, routing request paths to [`SoapService`]s.
//!
//! Its connections are served by a lean HTTP/1.1 loop of its own over `httparse` for the
//! request shape SOAP clients send (a `POST` with a `Content-Length` body, or a `GET`;
//! HTTP/1.1 keep-alive or 1.0); a connection whose request is anything else (a chunked body,
//! `Expect: 100-continue`, `Upgrade`, ...) is handed to hyper 1.x with the bytes already
//! read, and [`ServerConfig::http`] selects hyper for every connection
//! ([`HttpEngine`]; docs/performance.md has the measurements behind the default).
//!
//! ```no_run
//! # use std::sync::Arc;
//! # use soapstone_server::{Server, ServerConfig};
//! # async fn example(charging: Arc<dyn soapstone_service::SoapService>) -> std::io::Result<()> {
//! Server::builder()
//!     .mount("/charging", charging)
//!     .config(ServerConfig::default())
//!     .serve("0.0.0.0:8080") // until SIGINT/SIGTERM, then drains in-flight requests
//!     .await
//! # }
//! ```
//!
//! A [`Server`] is also a tower `Service` (`Error = Infallible`: every failure is an HTTP
//! status or a SOAP fault), so it mounts inside an axum app; the connection-level parts
//! (`TCP_NODELAY`, timeouts, the connection table, queue-delay shedding, which needs to know
//! when a request arrived) are then axum's to provide:
//!
//! ```no_run
//! # use std::sync::Arc;
//! # async fn example(charging: Arc<dyn soapstone_service::SoapService>) {
//! let soap = soapstone_server::Server::builder().mount("/charging", charging).build();
//! let app = axum::Router::new()
//!     .route("/health", axum::routing::get(|| async { "ok" }))
//!     .route_service("/charging", soap);
//! let listener = tokio::net::TcpListener::bind("0.0.0.0:8080").await.unwrap();
//! axum::serve(listener, app).await.unwrap();
//! # }
//! ```
//!
//! What the server does on the wire, by design: `TCP_NODELAY` on every accepted socket; each
//! response's head and body leave in one write; HTTP/1.1 keep-alive; HTTP/1.0 answered with
//! `Content-Length` and closed; chunked request bodies; `Expect: 100-continue` answered when the
//! body is first read, right after the headers are checked; gzip/deflate both ways. Under load
//! and faults: limits on head and body size (`431`, `413`), a header-read timeout (slowloris)
//! apart from the idle keep-alive timeout, a concurrency limit that answers `503` with
//! `Retry-After` instead of queueing, a panicking service becomes a Server fault, and graceful
//! shutdown drains in-flight requests up to a deadline. Prometheus metrics at `/metrics`, a
//! `tracing` span per request (`soap_request`, at DEBUG level so that an INFO subscriber pays
//! nothing for it: `RUST_LOG=soapstone_server=debug` shows them).
//!
//! For the lab only, [`ServerConfig::naive`] brings back the thesis's server causes (Nagle
//! on, head and body in two writes); all off by default, a WARN when on (docs/causes.md).
//!
//! HTTPS: set [`ServerConfig::tls`] to a [`Tls`] (rustls; certificate chain and key from PEM,
//! optionally client CAs for mutual TLS). The handshake runs on the connection's task within
//! the first head's `header_read_timeout`, and everything above holds on the TLS path too
//! (keep-alive, limits, flood defence, one write and so one TLS record per response up to
//! 16 KiB); plain HTTP sent to the TLS port is answered `400` and closed.
//!
//! Against floods and overload:
//! - **Connection floods.** The server always accepts. When the table is full
//!   ([`ServerConfig::max_connections`]) or the peer address has its share
//!   ([`ServerConfig::max_connections_per_ip`]), the connection idle longest (no request being
//!   handled on it; of that address for the per-address cap) is closed to make room; only when
//!   every connection in the way is busy does the new one get a `503` and a close. So idle
//!   sockets cannot lock clients out, and a client that keeps one busy is never cut off. The
//!   listen backlog is raised to [`ServerConfig::listen_backlog`], also on a listener bound
//!   elsewhere.
//! - **Queueing delay.** Under an open-loop overload requests wait in socket buffers,
//!   accepted connections and the runtime's queue, where `max_in_flight` cannot see them. The
//!   server measures each request's wait, from when the reactor found its bytes (or the
//!   accept) to its handler, and sheds CoDel-style: once most requests of a whole
//!   [`ServerConfig::queue_delay_interval`] waited more than
//!   [`ServerConfig::queue_delay_target`], requests that waited more than twice the target get
//!   `503` + `Retry-After` at once, until an interval passes with nothing to shed. The queue
//!   drains, and served requests wait at most about twice the target, whatever the overload's
//!   shape.
//! - Metrics: `soapstone_requests_shed_total` (both kinds), `..._shed_queue_delay_total`,
//!   `soapstone_connections_evicted_total`, `soapstone_connections_refused_total`.
//!
//! The status codes: `200` answer, `500` SOAP fault, except `400` for a SOAP 1.2 `env:Sender`
//! fault (SOAP 1.2 Part 2 7.5.2.2; SOAP 1.1 answers every fault `500`; the service says the
//! code in [`SoapResponse::fault_code`](soapstone_service::SoapResponse::fault_code)), `404`
//! unknown path, `405` other methods (with `Allow`), `415` media type, charset or content
//! coding we do not speak, `411` an HTTP/1.x POST that frames its body neither with
//! `Content-Length` nor chunked, `413`/`431` over a limit, `408` body too slow, `503` over the
//! concurrency limit, after too long a wait in a standing queue, or (with `Connection: close`)
//! for a new connection that finds every connection busy, `400` malformed. A SOAP answer's
//! `Content-Type` is that of the envelope answered (`text/xml` for SOAP 1.1,
//! `application/soap+xml` for 1.2), whatever the request's said: a SOAP 1.1 envelope posted
//! as `application/soap+xml` is answered in SOAP 1.1.
//! `GET path?wsdl` (and `?xsd=...`) returns the service's documents via
//! [`SoapService::document`], with the endpoint URL built from the `Host` header (or
//! [`ServerConfig::public_url`]).

mod answer;
mod balance;
mod codel;
mod compress;
mod config;
mod conns;
mod dispatch;
mod health;
mod lean;
mod metrics;
mod naive;
mod negotiate;
mod poll;
mod rewind;
mod serve;
mod slice;
mod timer;
mod tls;
mod view;

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body::Body;
use soapstone_service::SoapService;

pub use config::{
    HttpEngine, Runtime, ServerConfig, BLOCKING_TICK, MAX_BLOCKING_CONNECTIONS, MAX_BUSY_POLL,
};
pub use dispatch::ResponseBody;
pub use health::ReadinessProbe;
pub use naive::NaiveModes;
pub use serve::{Listener, Serving};
pub use tls::Tls;

use dispatch::Inner;

/// The SOAP server: the mounted services plus the settings. Cheap to clone (shared state).
/// Serve it with [`Server::serve`] or [`Server::serve_with_shutdown`], or use it as a tower
/// `Service<http::Request<B>>`.
#[derive(Clone)]
pub struct Server {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut paths: Vec<_> = self.inner.routes.keys().collect();
        paths.sort();
        f.debug_struct("Server")
            .field("paths", &paths)
            .field("config", &self.inner.config)
            .finish()
    }
}

/// Builds a [`Server`]: mount services on paths, then serve.
#[derive(Default)]
#[must_use]
pub struct Builder {
    mounts: Vec<(String, Arc<dyn SoapService>)>,
    config: ServerConfig,
    probe: Option<ReadinessProbe>,
}

impl std::fmt::Debug for Builder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let paths: Vec<_> = self.mounts.iter().map(|(p, _)| p).collect();
        f.debug_struct("Builder")
            .field("paths", &paths)
            .field("config", &self.config)
            .finish()
    }
}

impl Builder {
    /// Serves `service` at `path` (exact match; `GET path?wsdl` gives its WSDL).
    ///
    /// # Panics
    ///
    /// If `path` does not start with `/`, has a query, or is already mounted: these are
    /// programming errors, found at startup.
    pub fn mount(mut self, path: impl Into<String>, service: Arc<dyn SoapService>) -> Self {
        let path = path.into();
        assert!(
            path.starts_with('/'),
            "mount path `{path}` must start with `/`"
        );
        assert!(
            !path.contains(['?', '#']),
            "mount path `{path}` must not have a query or fragment"
        );
        assert!(
            !self.mounts.iter().any(|(p, _)| *p == path),
            "mount path `{path}` is already mounted"
        );
        self.mounts.push((path, service));
        self
    }

    /// Replaces the settings.
    pub fn config(mut self, config: ServerConfig) -> Self {
        self.config = config;
        self
    }

    /// What `GET /readyz` checks besides draining (a store's ping, say): `Err(why)` answers
    /// `503 not ready: why`. It runs once per `/readyz` request, bounded by
    /// [`ServerConfig::ready_probe_timeout`].
    pub fn readiness_probe<F, Fut>(mut self, probe: F) -> Self
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<(), String>> + Send + 'static,
    {
        self.probe = Some(Arc::new(move || Box::pin(probe())));
        self
    }

    /// The server.
    ///
    /// # Panics
    ///
    /// If the metrics path is also a mount path.
    pub fn build(self) -> Server {
        let mut routes = dispatch::Routes::default();
        let mut services = Vec::new();
        let mut paths = Vec::new();
        for (i, (path, service)) in self.mounts.into_iter().enumerate() {
            assert!(
                self.config.metrics_path.as_deref() != Some(path.as_str()),
                "mount path `{path}` is the metrics path; change `ServerConfig::metrics_path`"
            );
            assert!(
                self.config.health_path.as_deref() != Some(path.as_str())
                    && self.config.ready_path.as_deref() != Some(path.as_str()),
                "mount path `{path}` is a health path; change `ServerConfig::health_path` or `ready_path`"
            );
            routes.insert(path.clone(), i);
            paths.push(path);
            services.push(service);
        }
        let metrics = metrics::Metrics::new(paths);
        let codel = self
            .config
            .queue_delay_target
            .map(|target| codel::Codel::new(target, self.config.queue_delay_interval));
        Server {
            inner: Arc::new(Inner {
                routes,
                services,
                config: self.config,
                metrics,
                codel,
                health: health::Health {
                    probe: self.probe,
                    ..health::Health::default()
                },
            }),
        }
    }

    /// Builds and serves on `addr` until SIGINT or SIGTERM; see [`Server::serve`].
    pub async fn serve(self, addr: impl tokio::net::ToSocketAddrs) -> io::Result<()> {
        self.build().serve(addr).await
    }

    /// Builds and serves on `listener` until `shutdown`; see [`Server::serve_with_shutdown`].
    pub fn serve_with_shutdown<F>(
        self,
        listener: impl Into<Listener>,
        shutdown: F,
    ) -> io::Result<Serving>
    where
        F: Future<Output = ()> + Send + 'static,
    {
        self.build().serve_with_shutdown(listener, shutdown)
    }
}

impl Server {
    /// A builder.
    pub fn builder() -> Builder {
        Builder::default()
    }

    /// The settings.
    pub fn config(&self) -> &ServerConfig {
        &self.inner.config
    }

    /// Makes `GET /readyz` answer `503 draining` from now on (shutdown does it by itself).
    pub fn start_draining(&self) {
        self.inner.health.start_draining();
    }

    /// The metrics in Prometheus text format (what `GET /metrics` returns).
    pub fn metrics_text(&self) -> String {
        self.inner.metrics.render()
    }

    /// Binds `addr` and serves until SIGINT or SIGTERM, then stops accepting and drains
    /// in-flight requests (up to [`ServerConfig::drain_timeout`]).
    pub async fn serve(self, addr: impl tokio::net::ToSocketAddrs) -> io::Result<()> {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        tracing::info!(addr = %listener.local_addr()?, "serving");
        self.serve_with_shutdown(listener, serve::shutdown_signal())?
            .await
    }

    /// Serves on an already-bound listener (`std` or `tokio`) until `shutdown` completes, then
    /// drains. Returns at once with the bound address; the returned [`Serving`] runs when
    /// awaited. Needs no runtime until then.
    ///
    /// When `shutdown` completes, `/readyz` turns `503 draining` at once; requests are still
    /// served for [`ServerConfig::drain_grace`], then the listener closes and in-flight
    /// requests get [`ServerConfig::drain_timeout`].
    pub fn serve_with_shutdown<F>(
        self,
        listener: impl Into<Listener>,
        shutdown: F,
    ) -> io::Result<Serving>
    where
        F: Future<Output = ()> + Send + 'static,
    {
        let inner = self.inner.clone();
        let shutdown = async move {
            shutdown.await;
            inner.health.start_draining();
            let grace = inner.config.drain_grace;
            if !grace.is_zero() {
                tracing::info!(
                    ?grace,
                    "draining: /readyz answers 503 before the listener closes"
                );
                tokio::time::sleep(grace).await;
            }
        };
        serve::serving(self.inner, listener.into(), shutdown)
    }
}

type BoxError = Box<dyn std::error::Error + Send + Sync>;

impl<B> tower_service::Service<http::Request<B>> for Server
where
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<BoxError>,
{
    type Response = http::Response<ResponseBody>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        // Never backpressure: over the limit a request is answered 503 right away.
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: http::Request<B>) -> Self::Future {
        let inner = self.inner.clone();
        Box::pin(async move {
            let (parts, body) = req.into_parts();
            let view = view::RequestView::of(&parts, body);
            Ok(
                dispatch::handle(&inner, view, dispatch::Start::Unknown, None)
                    .await
                    .0
                    .into(),
            )
        })
    }
}

// A `Bytes`-bodied server stays usable where `http_body::Body<Data = Bytes>` is required.
const _: fn() = || {
    fn is_body<T: Body<Data = Bytes, Error = Infallible>>() {}
    is_body::<ResponseBody>();
};
