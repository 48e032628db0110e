//! Accepting and serving connections: the listen backlog, `TCP_NODELAY`, hyper's HTTP/1.1
//! connection with head and body flattened into one write, the timeouts, the connection table
//! (eviction, per-peer cap: `conns`), the runtime flavours, and graceful shutdown with a drain
//! deadline.
//!
//! This is where the seeds lost their time (Nagle and delayed ACK on split writes) and where the
//! Erlang server collapsed (unbounded queues). It must never leave Nagle on, never split a
//! response that fits one write, never stop accepting because idle connections fill the table,
//! and never wait on shutdown longer than the drain deadline.

use std::convert::Infallible;
use std::future::{Future, IntoFuture};
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncReadExt as _, AsyncWrite, AsyncWriteExt as _};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::JoinSet;

use crate::balance::{Handoff, Placed, Threads};
use crate::conns::{Refused, Slot, Table};
use crate::dispatch::{busy as busy_response, handle, Inner, Start};
use crate::lean::blocking::{Ended, Job, Pool};
use crate::metrics::Metrics;
use crate::naive::SplitWrites;
use crate::poll::{Member, Neighbours, Peek};
use crate::timer::{Clock, ConnTimer, Watched};
use crate::tls::{Handshake, PLAIN_ON_TLS};
use crate::view::RequestView;
use crate::{HttpEngine, Runtime};

/// A listener the server can take: a bound `std` or `tokio` TCP listener.
#[derive(Debug)]
pub struct Listener(ListenerKind);

#[derive(Debug)]
enum ListenerKind {
    Std(std::net::TcpListener),
    Tokio(TcpListener),
}

impl From<std::net::TcpListener> for Listener {
    fn from(l: std::net::TcpListener) -> Self {
        Listener(ListenerKind::Std(l))
    }
}

impl From<TcpListener> for Listener {
    fn from(l: TcpListener) -> Self {
        Listener(ListenerKind::Tokio(l))
    }
}

impl Listener {
    /// Asks for a listen backlog of `backlog` (listening again on a listening socket only
    /// changes its backlog on Linux and the BSDs).
    fn set_backlog(&self, backlog: u32) {
        let backlog = i32::try_from(backlog).unwrap_or(i32::MAX);
        let res = match &self.0 {
            ListenerKind::Std(l) => socket2::SockRef::from(l).listen(backlog),
            ListenerKind::Tokio(l) => socket2::SockRef::from(l).listen(backlog),
        };
        if let Err(e) = res {
            tracing::warn!(backlog, error = %e, "cannot set the listen backlog");
        }
    }

    fn local_addr(&self) -> io::Result<SocketAddr> {
        match &self.0 {
            ListenerKind::Std(l) => l.local_addr(),
            ListenerKind::Tokio(l) => l.local_addr(),
        }
    }

    fn into_std(self) -> io::Result<std::net::TcpListener> {
        match self.0 {
            ListenerKind::Std(l) => Ok(l),
            ListenerKind::Tokio(l) => l.into_std(),
        }
    }

    /// A tokio listener on the current runtime.
    fn into_tokio(self) -> io::Result<TcpListener> {
        match self.0 {
            ListenerKind::Std(l) => {
                l.set_nonblocking(true)?;
                TcpListener::from_std(l)
            }
            ListenerKind::Tokio(l) => Ok(l),
        }
    }
}

/// A server bound to its listener, ready to run: `.await` it (or spawn
/// `serving.into_future()`) to serve until the shutdown future completes and in-flight
/// requests have drained.
#[must_use = "a server does nothing until awaited"]
pub struct Serving {
    local_addr: SocketAddr,
    future: Pin<Box<dyn Future<Output = io::Result<()>> + Send>>,
}

impl std::fmt::Debug for Serving {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Serving")
            .field("local_addr", &self.local_addr)
            .finish_non_exhaustive()
    }
}

impl Serving {
    /// The address the server listens on (the real port when bound to port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }
}

impl IntoFuture for Serving {
    type Output = io::Result<()>;
    type IntoFuture = Pin<Box<dyn Future<Output = io::Result<()>> + Send>>;
    fn into_future(self) -> Self::IntoFuture {
        self.future
    }
}

pub(crate) fn serving<F>(inner: Arc<Inner>, listener: Listener, shutdown: F) -> io::Result<Serving>
where
    F: Future<Output = ()> + Send + 'static,
{
    let local_addr = listener.local_addr()?;
    listener.set_backlog(inner.config.listen_backlog);
    if inner.config.naive.any() {
        tracing::warn!(naive = ?inner.config.naive, "naive modes on: responses will stall on purpose (lab only)");
    }
    let future = Box::pin(run(inner, listener, shutdown));
    Ok(Serving { local_addr, future })
}

/// Serves until `shutdown`, then drains.
async fn run<F>(inner: Arc<Inner>, listener: Listener, shutdown: F) -> io::Result<()>
where
    F: Future<Output = ()> + Send + 'static,
{
    let (stop_tx, stop_rx) = watch::channel(false);
    let table = Arc::new(Table::new(
        inner.config.max_connections,
        inner.config.max_connections_per_ip,
    ));
    let threads = match inner.config.runtime {
        Runtime::Ambient => 0,
        Runtime::CurrentThread => 1,
        Runtime::PerCore(0) => std::thread::available_parallelism().map_or(1, |n| n.get()),
        Runtime::PerCore(n) => n,
    };
    let mut loops: Vec<oneshot::Receiver<io::Result<()>>> = Vec::new();
    let mut ambient = None;
    let config = &inner.config;
    let blocking = (config.blocking_connections > 0
        && config.tls.is_none()
        && config.http == HttpEngine::Lean
        && !config.naive.split_writes)
        .then(|| Pool::new(config.blocking_connections));
    if threads == 0 {
        let l = listener.into_tokio()?;
        let each = Each {
            inner,
            table,
            blocking,
        };
        ambient = Some(tokio::spawn(accept_loop(each, l, stop_rx, None)));
    } else {
        let std_listener = listener.into_std()?;
        std_listener.set_nonblocking(true)?;
        let reuse_port = inner.config.reuse_port && threads > 1;
        let mut own = if reuse_port {
            reuse_port_listeners(&std_listener, threads - 1, inner.config.listen_backlog)?
        } else {
            Vec::new()
        };
        let (spread, inboxes) = Threads::new(threads);
        if threads > 1 {
            let _ = inner.metrics.threads.set(spread.clone());
        }
        for (i, inbox) in inboxes.into_iter().enumerate() {
            let l = match own.pop() {
                Some(l) => l,
                None => std_listener.try_clone()?,
            };
            let (tx, rx) = oneshot::channel();
            let stop_rx = stop_rx.clone();
            let each = Each {
                inner: inner.clone(),
                table: table.clone(),
                blocking: blocking.clone(),
            };
            let spread = (threads > 1).then(|| Spread {
                me: i,
                threads: spread.clone(),
                inbox,
            });
            std::thread::Builder::new()
                .name(format!("soapstone-server-{i}"))
                .spawn(move || {
                    let res = tokio::runtime::Builder::new_current_thread()
                        .enable_all()
                        .on_thread_unpark(crate::slice::woke)
                        .build()
                        .and_then(|rt| {
                            rt.block_on(async move {
                                let l = TcpListener::from_std(l)?;
                                accept_loop(each, l, stop_rx, spread).await
                            })
                        });
                    let _ = tx.send(res);
                })?;
            loops.push(rx);
        }
    }
    let finished = async {
        if let Some(task) = ambient.as_mut() {
            return task.await.unwrap_or_else(|e| Err(io::Error::other(e)));
        }
        for rx in loops.iter_mut() {
            rx.await
                .unwrap_or_else(|_| Err(io::Error::other("server thread died")))?;
        }
        Ok(())
    };
    tokio::pin!(finished);
    tokio::select! {
        res = &mut finished => return res,
        () = shutdown => {}
    }
    tracing::info!("shutting down: no new connections, draining in-flight requests");
    let _ = stop_tx.send(true);
    finished.await
}

/// `more` listening sockets beside `first`, all in one `SO_REUSEPORT` group on its address
/// ([`ServerConfig::reuse_port`](crate::ServerConfig::reuse_port)), non-blocking.
#[cfg(unix)]
fn reuse_port_listeners(
    first: &std::net::TcpListener,
    more: usize,
    backlog: u32,
) -> io::Result<Vec<std::net::TcpListener>> {
    use socket2::{Domain, Socket, Type};
    let addr = first.local_addr()?;
    // Linux puts an already listening socket into the group when the next one binds.
    socket2::SockRef::from(first).set_reuse_port(true)?;
    let backlog = i32::try_from(backlog).unwrap_or(i32::MAX);
    (0..more)
        .map(|_| {
            let s = Socket::new(Domain::for_address(addr), Type::STREAM, None)?;
            s.set_reuse_address(true)?;
            s.set_reuse_port(true)?;
            s.bind(&addr.into())?;
            s.listen(backlog)?;
            s.set_nonblocking(true)?;
            Ok(s.into())
        })
        .collect()
}

#[cfg(not(unix))]
fn reuse_port_listeners(
    _first: &std::net::TcpListener,
    _more: usize,
    _backlog: u32,
) -> io::Result<Vec<std::net::TcpListener>> {
    Ok(Vec::new())
}

/// One per-core thread's part in spreading connections ([`crate::balance`]).
struct Spread {
    me: usize,
    threads: Arc<Threads>,
    inbox: mpsc::UnboundedReceiver<Handoff>,
}

/// The next connection handed to this thread; never, without a `Spread`.
async fn handed(spread: &mut Option<Spread>) -> Option<Handoff> {
    match spread {
        Some(s) => s.inbox.recv().await,
        None => std::future::pending().await,
    }
}

/// What every accept loop of one server shares.
struct Each {
    inner: Arc<Inner>,
    table: Arc<Table>,
    /// The blocking threads, when the server has them ([`crate::lean::blocking`]).
    blocking: Option<Arc<Pool>>,
}

/// Accepts until stopped, then drains this loop's connections (those handed to it included).
async fn accept_loop(
    each: Each,
    listener: TcpListener,
    mut stop: watch::Receiver<bool>,
    mut spread: Option<Spread>,
) -> io::Result<()> {
    let Each {
        inner,
        table,
        blocking,
    } = each;
    let mut conns = JoinSet::new();
    // The connections this loop's runtime serves, for busy-polling a lone one.
    let neighbours = Neighbours::default();
    loop {
        let (stream, peer) = tokio::select! {
            biased;
            _ = stop.changed() => break,
            Some(_) = conns.join_next(), if !conns.is_empty() => continue,
            Some(h) = handed(&mut spread) => {
                serve_handed(&mut conns, &inner, &stop, &neighbours, h);
                continue;
            }
            r = listener.accept() => match r {
                Ok(s) => s,
                Err(e) => {
                    // Out of descriptors or a connection reset before accept: back off a
                    // little instead of spinning, and go on.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    continue;
                }
            },
        };
        let accepted = Instant::now();
        let metrics = &inner.metrics;
        match table.admit(peer.ip()) {
            Ok(admitted) => {
                if admitted.evicted {
                    metrics.connections_evicted.fetch_add(1, Ordering::Relaxed);
                }
                let registered = Registered {
                    table: table.clone(),
                    slot: admitted.slot,
                };
                // The first few connections each get a blocking thread, when the server has
                // them; the others (and any the threads cannot take) stay on the runtimes.
                let (stream, registered) = match blocking.as_ref().filter(|p| p.takes(metrics)) {
                    None => (stream, registered),
                    Some(pool) => {
                        let Ok(std_stream) = stream.into_std() else {
                            continue; // deregistering failed: the socket is gone
                        };
                        let (done, ended) = oneshot::channel();
                        let job = Job {
                            inner: inner.clone(),
                            stream: std_stream,
                            peer,
                            accepted,
                            registered,
                            stop: stop.clone(),
                            runtime: tokio::runtime::Handle::current(),
                            done,
                        };
                        match pool.serve(job) {
                            Ok(()) => {
                                let placing = spread.as_ref().map(|s| (s.threads.clone(), s.me));
                                let back = (inner.clone(), peer, neighbours.clone(), placing);
                                conns.spawn(after_blocking(back, ended));
                                continue;
                            }
                            Err(job) => match TcpStream::from_std(job.stream) {
                                Ok(stream) => (stream, job.registered),
                                Err(_) => continue,
                            },
                        }
                    }
                };
                let load = match spread.as_ref().map(|s| (s, s.threads.place(s.me))) {
                    None => None,
                    Some((_, Placed::Here(load))) => Some(load),
                    Some((s, Placed::There(to, load))) => {
                        let Ok(stream) = stream.into_std() else {
                            continue; // deregistering failed: the socket is gone
                        };
                        let h = Handoff {
                            stream,
                            peer,
                            accepted,
                            registered,
                            load,
                        };
                        if let Err(h) = s.threads.hand_over(to, h) {
                            serve_handed(&mut conns, &inner, &stop, &neighbours, h);
                        }
                        continue;
                    }
                };
                let (inner, stop, member) = (inner.clone(), stop.clone(), neighbours.join());
                conns.spawn(async move {
                    let _load = load;
                    let conn = Conn {
                        peer,
                        registered,
                        accepted,
                        member,
                        resumed: false,
                    };
                    serve_conn(inner, stream, stop, conn).await
                });
            }
            Err(why) => {
                metrics.connections_refused.fetch_add(1, Ordering::Relaxed);
                tracing::debug!(%peer, ?why, "connection refused: every connection in the way is busy");
                conns.spawn(refuse(stream, why, inner.config.retry_after));
            }
        }
    }
    drop(listener);
    // Connections handed over before this thread stopped are drained like its own (no more
    // come: the inbox is closed, and a sender gets its connection back to serve itself).
    if let Some(s) = spread.as_mut() {
        s.inbox.close();
        while let Some(h) = s.inbox.recv().await {
            serve_handed(&mut conns, &inner, &stop, &neighbours, h);
        }
    }
    let drain = tokio::time::sleep(inner.config.drain_timeout);
    tokio::pin!(drain);
    loop {
        tokio::select! {
            next = conns.join_next() => if next.is_none() { break },
            () = &mut drain => {
                tracing::warn!(connections = conns.len(), "drain deadline passed; dropping connections");
                conns.abort_all();
                while conns.join_next().await.is_some() {}
                break;
            }
        }
    }
    Ok(())
}

/// A per-core server's threads and the index of the one a connection was accepted on.
type Placing = Option<(Arc<Threads>, usize)>;

/// Waits for a blocking thread to be done with a connection (so that the drain waits for
/// it, and dropping this on the drain deadline tells the thread to close it), then serves the
/// rest on this runtime if the thread handed it back: with hyper from the bytes read, or with
/// the lean loop between two requests. On a per-core server (`placing`: the threads and this
/// one's index) a connection handed back between two requests is counted on this thread,
/// where it stays: uncounted, it was missing from `soapstone_thread_connections_open` and
/// unseen by the placements after it. Not placed anew: moved to the thread serving the
/// fewest, 8 connections under load (4 handed back) ran at 107-120 thousand requests/s in
/// five runs, where left here they ran at 111-185 thousand (docs/performance.md, round
/// sixteen).
async fn after_blocking(
    (inner, peer, neighbours, placing): (Arc<Inner>, SocketAddr, Neighbours, Placing),
    ended: oneshot::Receiver<Ended>,
) {
    let (stream, read, registered, stop) = match ended.await {
        Ok(Ended::Hyper {
            stream,
            read,
            registered,
            stop,
        }) => (stream, Some(read), registered, stop),
        Ok(Ended::Runtime {
            stream,
            registered,
            stop,
        }) => (stream, None, registered, stop),
        Ok(Ended::Closed) | Err(_) => return,
    };
    // The lean loop and hyper's count the connection again: it is one.
    inner
        .metrics
        .connections_total
        .fetch_sub(1, Ordering::Relaxed);
    let load = match (&read, placing) {
        (None, Some((threads, me))) => Some(threads.count(me)),
        _ => None,
    };
    let stream = stream
        .set_nonblocking(true)
        .and_then(|()| TcpStream::from_std(stream));
    let Ok(stream) = stream else {
        return;
    };
    let Some(read) = read else {
        let _load = load;
        let conn = Conn {
            peer,
            registered,
            accepted: Instant::now(),
            member: neighbours.join(),
            resumed: true,
        };
        return crate::lean::serve_lean(inner, stream, None, stop, conn).await;
    };
    let io = crate::rewind::Rewind::new(read, stream);
    // Boxed: hyper's connection future is large, and this is the rare path.
    let hyper = serve_http(inner, io, peer, None, stop, registered, Instant::now());
    Box::pin(hyper).await;
}

/// Serves a connection another thread accepted, on this thread's runtime.
fn serve_handed(
    conns: &mut JoinSet<()>,
    inner: &Arc<Inner>,
    stop: &watch::Receiver<bool>,
    neighbours: &Neighbours,
    h: Handoff,
) {
    let (inner, stop, member) = (inner.clone(), stop.clone(), neighbours.join());
    conns.spawn(async move {
        let _load = h.load;
        // Registering with this thread's reactor fails only when it has shut down.
        let Ok(stream) = TcpStream::from_std(h.stream) else {
            return;
        };
        let conn = Conn {
            peer: h.peer,
            registered: h.registered,
            accepted: h.accepted,
            member,
            resumed: false,
        };
        serve_conn(inner, stream, stop, conn).await
    });
}

/// hyper's own header count limit.
const HYPER_MAX_HEADERS: usize = 100;

/// An admitted connection on the runtime that serves it.
pub(crate) struct Conn {
    pub(crate) peer: SocketAddr,
    pub(crate) registered: Registered,
    pub(crate) accepted: Instant,
    /// Counted among the runtime's connections, for busy-polling a lone one.
    pub(crate) member: Member,
    /// Served elsewhere until now (a blocking thread handed it back between requests): its
    /// next head is awaited as a keep-alive connection's, not as a first one.
    pub(crate) resumed: bool,
}

/// Serves one connection until it closes or the server stops: the TLS handshake first when
/// the server has TLS.
async fn serve_conn(inner: Arc<Inner>, stream: TcpStream, stop: watch::Receiver<bool>, conn: Conn) {
    let peer = conn.peer;
    // The response is one write; without this the kernel may still hold it back (Nagle)
    // waiting for the ACK the client delays. Left on only by a naive mode asked for by name.
    let naive = inner.config.naive;
    if let Err(e) = stream.set_nodelay(!naive.nagle) {
        tracing::debug!(%peer, error = %e, "set_nodelay failed");
        return;
    }
    let Some(tls) = inner.config.tls.clone() else {
        return serve_with(inner, stream, None, stop, conn).await;
    };
    // The handshake shares the first head's deadline; an idle handshake is evictable like an
    // idle connection, and stopping abandons it.
    let deadline = tokio::time::Instant::from_std(conn.accepted + inner.config.header_read_timeout);
    let handshake = crate::tls::handshake(tls.acceptor(), stream, peer);
    let mut stop_early = stop.clone();
    let tls_stream = tokio::select! {
        r = tokio::time::timeout_at(deadline, handshake) => match r {
            Ok(Handshake::Done(s)) => s,
            Ok(Handshake::Failed) => return,
            Ok(Handshake::Plain(plain)) => {
                tracing::debug!(%peer, "plain http on the tls port: answered 400 and closed");
                return close_with(plain, "400 Bad Request", PLAIN_ON_TLS, None).await;
            }
            Err(_) => {
                tracing::debug!(%peer, "tls handshake timed out");
                return;
            }
        },
        () = conn.registered.slot.evicted() => return,
        _ = stop_early.changed() => return,
    };
    // On mutual TLS, the verified leaf certificate goes with every request (an authenticator
    // maps it to a user).
    let client_cert = tls_stream
        .get_ref()
        .1
        .peer_certificates()
        .and_then(|chain| chain.first())
        .map(|leaf| soapstone_service::TlsClientCert(bytes::Bytes::copy_from_slice(leaf)));
    serve_with(inner, tls_stream, client_cert, stop, conn).await;
}

/// Serves the connection with the configured HTTP engine; the naive mode that splits writes
/// is hyper's (its `writev` switch).
async fn serve_with<S>(
    inner: Arc<Inner>,
    stream: S,
    client_cert: Option<soapstone_service::TlsClientCert>,
    stop: watch::Receiver<bool>,
    conn: Conn,
) where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Peek + Unpin + Send + 'static,
{
    if inner.config.http == HttpEngine::Lean && !inner.config.naive.split_writes {
        let lean = crate::lean::serve_lean(inner, stream, client_cert, stop, conn);
        return lean.await;
    }
    let Conn {
        peer,
        registered,
        accepted,
        ..
    } = conn;
    serve_http(inner, stream, peer, client_cert, stop, registered, accepted).await;
}

/// Serves HTTP/1.1 with hyper on one (plain or TLS) connection until it closes or the server
/// stops.
pub(crate) async fn serve_http<S>(
    inner: Arc<Inner>,
    stream: S,
    peer: SocketAddr,
    client_cert: Option<soapstone_service::TlsClientCert>,
    mut stop: watch::Receiver<bool>,
    registered: Registered,
    accepted: Instant,
) where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let _open = OpenConnection::new(&inner.metrics);
    let config = &inner.config;
    let naive = config.naive;
    let clock = Clock::new(config.header_read_timeout, config.idle_timeout, accepted);
    let io = TokioIo::new(SplitWrites::new(
        Watched::new(stream, clock.clone()),
        naive.split_writes,
    ));
    let mut builder = http1::Builder::new();
    builder
        .timer(ConnTimer(clock.clone()))
        .header_read_timeout(config.header_read_timeout)
        .keep_alive(true)
        .half_close(false)
        // Flatten head and body into one buffer: one write, one segment (a naive mode
        // queues them instead, and `SplitWrites` writes them one by one).
        .writev(naive.split_writes)
        .max_header_size(config.max_header_bytes);
    // hyper parses up to 100 headers in a stack buffer; any explicit limit costs a larger
    // initialised buffer per request, so it is only set when it differs.
    if config.max_headers != HYPER_MAX_HEADERS {
        builder.max_headers(config.max_headers);
    }
    let svc_inner = inner.clone();
    let (table, slot) = (registered.table.clone(), registered.slot.clone());
    // The peer goes to the handler as an argument: an extension would cost two allocations
    // per request (the map and the box). A verified TLS client certificate (rare) does go in
    // the extensions, for the authentication layer.
    let svc = service_fn(move |mut req: http::Request<hyper::body::Incoming>| {
        if let Some(cert) = &client_cert {
            req.extensions_mut().insert(cert.clone());
        }
        let inner = svc_inner.clone();
        let arrival = clock.take_arrival();
        let (table, slot) = (table.clone(), slot.clone());
        async move {
            // Not evictable while the request is handled. `None`: evicted just before this
            // head was parsed; the connection is being closed, so the request is refused
            // unhandled. (hyper polls the service's future as soon as it has it.)
            let Some(busy) = table.busy(&slot) else {
                let msg = "connection closed to make room for others, retry".to_owned();
                let mut resp = busy_response(msg, &inner.config);
                resp.headers_mut().insert(
                    http::header::CONNECTION,
                    http::HeaderValue::from_static("close"),
                );
                return Ok(resp);
            };
            let (parts, body) = req.into_parts();
            let view = RequestView::of(&parts, body);
            let resp = handle(&inner, view, Start::Arrived(arrival), Some(peer))
                .await
                .0
                .into();
            drop(busy);
            Ok::<_, Infallible>(resp)
        }
    });
    let mut conn = builder.serve_connection(io, svc);
    let res = tokio::select! {
        res = &mut conn => res,
        () = registered.slot.evicted() => {
            // Idle (no request being handled): closing loses nothing.
            tracing::debug!(%peer, "idle connection evicted to make room");
            Ok(())
        }
        _ = stop.changed() => {
            // Finish the request in flight (if any), then close; idle connections close now.
            Pin::new(&mut conn).graceful_shutdown();
            (&mut conn).await
        }
    };
    if let Err(e) = res {
        tracing::debug!(%peer, error = %e, "connection ended with an error");
    }
    // hyper shuts the connection down when it ends it cleanly, but not when its header timer
    // (the idle and slow-head timeouts) fires or the connection is evicted: end it here too.
    // A second shutdown does nothing.
    end(&mut conn.into_parts().io.into_inner()).await;
}

/// Ends a connection the server gives up on between requests (idle, a head too slow, evicted,
/// drained): over TLS with a close_notify, so that the client can tell a clean end from a cut
/// one (rustls reports the latter as an error); within [`END_WAIT`], so that a client that
/// reads nothing cannot hold the connection by it.
pub(crate) async fn end<S: AsyncWrite + Unpin>(io: &mut S) {
    let _ = tokio::time::timeout(END_WAIT, io.shutdown()).await;
}

const END_WAIT: Duration = Duration::from_millis(100);

/// A `503` and a close for a connection that found no room.
async fn refuse(stream: TcpStream, why: Refused, retry_after: Duration) {
    let reason = match why {
        Refused::Full => "server at its connection limit with every connection busy",
        Refused::PerPeer => "too many connections from your address, all of them busy",
    };
    let body = format!("{reason}, retry later\n");
    let retry = retry_after.as_secs().max(1);
    close_with(stream, "503 Service Unavailable", &body, Some(retry)).await;
}

/// A plain-text answer and a close. The answer is one write, then the server stops writing
/// and discards what the client sends for a moment (closing with unread bytes would reset the
/// connection and could destroy the answer in flight): at most `REFUSE_LINGER` and
/// `REFUSE_DISCARD` bytes per connection.
async fn close_with(mut stream: TcpStream, status: &str, body: &str, retry_after: Option<u64>) {
    let retry = retry_after.map_or(String::new(), |s| format!("retry-after: {s}\r\n"));
    let head = format!(
        "HTTP/1.1 {status}\r\ncontent-type: text/plain; charset=utf-8\r\n{retry}connection: close\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    );
    let _ = tokio::time::timeout(REFUSE_LINGER, async {
        let _ = stream.set_nodelay(true);
        stream.write_all(head.as_bytes()).await?;
        stream.shutdown().await?;
        let mut buf = [0u8; 4096];
        let mut discarded = 0;
        while discarded < REFUSE_DISCARD {
            match stream.read(&mut buf).await? {
                0 => break,
                n => discarded += n,
            }
        }
        io::Result::Ok(())
    })
    .await;
}

/// How long a refused connection may take to get its `503` and close.
const REFUSE_LINGER: Duration = Duration::from_secs(1);
/// How much of a refused connection's request is read (and dropped) before it is closed.
const REFUSE_DISCARD: usize = 64 << 10;

/// A connection's place in the table, given back when its task ends (also when aborted).
pub(crate) struct Registered {
    pub(crate) table: Arc<Table>,
    pub(crate) slot: Arc<Slot>,
}

impl Drop for Registered {
    fn drop(&mut self) {
        self.table.release(&self.slot);
    }
}

/// Counts an open connection, also when its task is aborted.
pub(crate) struct OpenConnection<'a>(&'a Metrics);

impl<'a> OpenConnection<'a> {
    pub(crate) fn new(metrics: &'a Metrics) -> Self {
        metrics.connections_total.fetch_add(1, Ordering::Relaxed);
        metrics.connections_open.fetch_add(1, Ordering::Relaxed);
        OpenConnection(metrics)
    }
}

impl Drop for OpenConnection<'_> {
    fn drop(&mut self) {
        self.0.connections_open.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Completes on SIGINT or SIGTERM.
pub(crate) async fn shutdown_signal() {
    let ctrl_c = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = term => {}
    }
}
