//! Server settings: the HTTP limits, timeouts and load-shedding bounds.
//!
//! These are HTTP-level limits only. Limits on the XML itself (depth, text length, ...) belong to
//! the service (`soapstone_codec::Limits`), which knows what its messages look like. Every bound
//! here must stay finite: a setting that lets work queue without bound is a bug.

use std::time::Duration;

use crate::NaiveModes;

/// Where the server's connection tasks run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Runtime {
    /// On the tokio runtime that awaits the serve future (tasks are `tokio::spawn`ed).
    #[default]
    Ambient,
    /// On one dedicated thread running a `current_thread` runtime: request, service and
    /// response stay on one CPU cache with no cross-thread wakeups. Best latency.
    CurrentThread,
    /// On this many dedicated threads (0: one per available CPU), each a `current_thread`
    /// runtime accepting from the shared listener. A thread that accepts a connection while
    /// another serves fewer hands it over (once, before its first request), so a burst of
    /// connections is spread evenly; a connection then stays on its thread for life.
    /// `/metrics` shows each thread's count (`soapstone_thread_connections_open`).
    PerCore(usize),
}

/// Which HTTP/1.1 engine serves the server's own connections.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum HttpEngine {
    /// hyper's `http1` connection for every request.
    Hyper,
    /// The server's own loop over `httparse` for the common request shape (a `GET`, or a
    /// `POST` with a `Content-Length` body, HTTP/1.1 or 1.0, no `Expect`, no `Upgrade`), one
    /// read and one write buffer per connection and no per-request allocation of its own; a
    /// connection whose request is anything else is handed to hyper (with the bytes already
    /// read) for the rest of its life. docs/performance.md has the measurements.
    #[default]
    Lean,
}

/// Server settings. Build with `ServerConfig::default()` and change fields.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ServerConfig {
    /// Largest request body, after decompression. Bigger bodies get `413`. Default: `4 MiB`.
    pub max_body_bytes: usize,
    /// Largest request head (request line and headers). Bigger heads get `431`.
    /// Default: `16 KiB`.
    pub max_header_bytes: usize,
    /// Most request headers. More get `431`. Default: `100`.
    pub max_headers: usize,
    /// Time a client has to send a whole request head, counted from its first byte (or from
    /// the accept for the first request). Slow clients (slowloris) are disconnected.
    /// Default: `10 s`.
    pub header_read_timeout: Duration,
    /// Time a keep-alive connection may sit between requests before the server closes it.
    /// Default: `60 s`.
    pub idle_timeout: Duration,
    /// Time a client has to send the request body once its head is read. Slower: `408`.
    /// Default: `30 s`.
    pub body_read_timeout: Duration,
    /// Most requests being read or handled at once, over all connections and mounts. Requests
    /// over the limit are answered `503` with `Retry-After` at once, never queued. This bounds
    /// concurrency, not waiting: see `queue_delay_target` for that. Default: `512`.
    pub max_in_flight: usize,
    /// The `Retry-After` sent with a `503` (whole seconds, at least 1). Default: `1 s`.
    pub retry_after: Duration,
    /// Most open connections. At the limit the server still accepts, and evicts the
    /// connection idle longest (no request being handled on it) to make room; only when every
    /// connection is busy is the new one answered `503` and closed. Keep it above
    /// `max_in_flight`, so that some connection is always idle. Default: `4096`.
    pub max_connections: usize,
    /// Most open connections from one peer IP address (IPv4-mapped IPv6 counts as IPv4). A
    /// peer at its cap that connects again has its own longest-idle connection evicted, or
    /// the new one refused with `503` if all of its connections are busy; other peers are
    /// never evicted for it. Default: `1024`.
    pub max_connections_per_ip: usize,
    /// The listen backlog asked of the kernel for the listener, also one bound elsewhere
    /// (Linux caps it at `net.core.somaxconn`, 4096 on current kernels). Default: `4096`.
    pub listen_backlog: u32,
    /// Queue-delay shedding (CoDel-like): when most requests of a whole
    /// `queue_delay_interval` waited more than this target, from when their bytes were
    /// available to when their handler would start, requests that waited more than twice the
    /// target are answered `503` with `Retry-After`, until an interval passes with nothing to
    /// shed. `None` turns it off. Default: `Some(20 ms)` (CoDel's 5 ms shed in a debug build
    /// sharing two loaded cores with its own 24 test clients, a queue nobody would call an
    /// overload; 20 ms still bounds what a served request waits to about 40 ms).
    pub queue_delay_target: Option<Duration>,
    /// The window over which queue-delay shedding looks for a standing queue (CoDel's
    /// interval: a burst that drains within it is not shed). Default: `200 ms`.
    pub queue_delay_interval: Duration,
    /// On shutdown, time in-flight requests get to finish before their connections are
    /// dropped. Default: `30 s`.
    pub drain_timeout: Duration,
    /// On shutdown, time during which `/readyz` answers `503 draining` while everything else
    /// is served as before, so that a load balancer polling it stops sending new requests
    /// before the listener closes and the drain begins. Default: `0 s`.
    pub drain_grace: Duration,
    /// Where liveness is served (`GET`: `200 ok` while the process answers); `None` disables
    /// it. Default: `Some("/healthz")`.
    pub health_path: Option<String>,
    /// Where readiness is served (`GET`: `200 ready`, or `503` while draining or while the
    /// readiness probe fails); `None` disables it. Default: `Some("/readyz")`.
    pub ready_path: Option<String>,
    /// Longest the readiness probe may take before `/readyz` says `503`. Default: `1 s`.
    pub ready_probe_timeout: Duration,
    /// Compress responses of at least this many bytes when the client accepts gzip or
    /// deflate; `None` never compresses. Default: `Some(1024)`.
    pub compress_responses_over: Option<usize>,
    /// Where Prometheus metrics are served (`GET`); `None` disables them.
    /// Default: `Some("/metrics")`.
    pub metrics_path: Option<String>,
    /// Base URL written into WSDLs (`soap:address`) instead of one built from the request's
    /// `Host` header, e.g. `https://api.example.com` behind a proxy. Default: `None`.
    pub public_url: Option<String>,
    /// Where connection tasks run. Default: [`Runtime::Ambient`].
    pub runtime: Runtime,
    /// The HTTP/1.1 engine of the server's own connections (not of the tower service, which
    /// is whatever serves it). The naive mode `split_writes` always uses hyper.
    /// Default: [`HttpEngine::Lean`].
    pub http: HttpEngine,
    /// With [`Runtime::PerCore`] of two threads or more, on Unix: each runtime thread
    /// accepts from a listening socket of its own, all bound to the listener's address with
    /// `SO_REUSEPORT` (the kernel spreads new connections over them by a hash of their
    /// addresses, and wakes only the thread whose socket got one), instead of every thread
    /// polling the one listener it was given (the first free thread takes the next connection;
    /// each new connection wakes them all). Another process of the same user can then bind the
    /// port too and take a share of the connections. Ignored by [`Runtime::Ambient`] and off
    /// Unix. Default: `false` (docs/performance.md has the measurements).
    pub reuse_port: bool,
    /// The seeds' causes on purpose, for the lab only (Nagle on, head and body in two
    /// writes). Default: all off ([`NaiveModes::default`]).
    pub naive: NaiveModes,
    /// Serve HTTPS: every accepted connection first completes a TLS handshake, within
    /// `header_read_timeout` counted from the accept (the first request head shares that
    /// deadline). Plain HTTP sent to such a server is answered `400` and closed. `None`
    /// serves plain HTTP. Default: `None`.
    pub tls: Option<crate::Tls>,
    /// After answering, a connection that is the only one its runtime serves (with
    /// [`Runtime::PerCore`], the only one on its thread) looks at its socket for the next
    /// request for up to this long, yielding the CPU between looks, instead of parking at
    /// once, and reads what a look finds straight from the socket: on a virtual machine this
    /// spares waking a halted CPU for every request (a one-connection round trip across CPUs
    /// measured about a third as long; docs/performance.md, "Round seven, wakeups" and "Round
    /// eight"). It costs CPU time up to the budget after every answer, and
    /// delays the runtime's timers and new connections by as much. Plain TCP on the lean
    /// engine only (never TLS, never [`HttpEngine::Hyper`]), blocking connections included
    /// ([`blocking_connections`](Self::blocking_connections)); longer budgets are taken as
    /// [`MAX_BUSY_POLL`]. `Duration::ZERO` never polls. Default: `0`.
    pub busy_poll: Duration,
    /// With [`Runtime::PerCore`] or [`Runtime::CurrentThread`] on the lean engine: a runtime
    /// thread that has been answering for this long without once running out of work yields
    /// its CPU (`sched_yield`) before its next request, so that the processes sharing its CPUs
    /// (a load generator, a proxy, the clients) run at request boundaries instead of at the
    /// kernel's next tick (docs/performance.md, "Round seven, wakeups"). `Duration::ZERO`
    /// never yields. Default: `0` (the application owns the process; `soapstone serve` sets
    /// 100 µs).
    pub cpu_slice: Duration,
    /// While the server has at most this many connections, serve each on a thread of its
    /// own with blocking reads and writes (thread-per-connection, as omniORB and gSOAP serve).
    /// A request then wakes its thread straight from the socket, with no readiness loop
    /// (`epoll_wait`, a reactor, a task's wake) between them: on one CPU 0.92x the round trip
    /// of a runtime's connection and 0.85x its instructions (docs/performance.md, "Round
    /// ten"). Past that many, new connections go to the runtimes, and the blocking ones follow
    /// them there between two requests (the OS gives every thread an equal share, so a few
    /// blocking threads would starve a crowd on the runtimes: `/metrics`,
    /// `soapstone_blocking_connections_handed_back_total`). Plain TCP on the lean engine only
    /// (TLS and [`HttpEngine::Hyper`] connections always go to the runtimes);
    /// [`busy_poll`](Self::busy_poll) applies to them as to a lone runtime connection. The
    /// threads are kept for a while and reused; timeouts on such a connection fire within
    /// [`BLOCKING_TICK`] of their deadline, and a connection evicted, drained or handed back
    /// goes within as long. `0` never does it. Default: `0`.
    pub blocking_connections: usize,
}

/// How often a blocking connection ([`ServerConfig::blocking_connections`]) that waits wakes
/// to look at its deadlines, the server's stop and its eviction.
pub const BLOCKING_TICK: Duration = Duration::from_millis(50);

/// The most [`ServerConfig::blocking_connections`] `soapstone serve` accepts.
pub const MAX_BLOCKING_CONNECTIONS: usize = 1024;

/// The longest [`ServerConfig::busy_poll`]: a polling runtime does nothing else meanwhile.
pub const MAX_BUSY_POLL: Duration = Duration::from_millis(1);

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            max_body_bytes: 4 << 20,
            max_header_bytes: 16 << 10,
            max_headers: 100,
            header_read_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            body_read_timeout: Duration::from_secs(30),
            max_in_flight: 512,
            retry_after: Duration::from_secs(1),
            max_connections: 4096,
            max_connections_per_ip: 1024,
            listen_backlog: 4096,
            queue_delay_target: Some(Duration::from_millis(20)),
            queue_delay_interval: Duration::from_millis(200),
            drain_timeout: Duration::from_secs(30),
            drain_grace: Duration::ZERO,
            health_path: Some("/healthz".to_owned()),
            ready_path: Some("/readyz".to_owned()),
            ready_probe_timeout: Duration::from_secs(1),
            compress_responses_over: Some(1024),
            metrics_path: Some("/metrics".to_owned()),
            public_url: None,
            runtime: Runtime::Ambient,
            http: HttpEngine::Lean,
            reuse_port: false,
            naive: NaiveModes::default(),
            tls: None,
            busy_poll: Duration::ZERO,
            cpu_slice: Duration::ZERO,
            blocking_connections: 0,
        }
    }
}
