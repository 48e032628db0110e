//! The lean engine on blocking sockets, one thread per connection
//! ([`ServerConfig::blocking_connections`](crate::ServerConfig::blocking_connections)): while
//! the server has a few connections, each has a thread of its own that sleeps in `recv` until
//! the next request, as omniORB's and gSOAP's servers do; a crowd goes to the runtimes.
//!
//! Why it exists: on one CPU, a tokio ping-pong of echoFloat's bytes takes 1.19-1.25x a
//! blocking one (docs/performance.md, "Round nine: where one call stands against omniORB"):
//! after an answer the runtime's read finds nothing (one system call), the thread parks in
//! `epoll_wait` (another), and the request's arrival wakes the reactor, which wakes the task,
//! which reads (a third). A blocking read is one system call, and the kernel wakes the very
//! thread that reads. The runtimes stay for everything else: many connections, TLS, hyper.
//!
//! The loop is the lean loop's (`super::serve_lean`), with the same parse, limits, answers
//! and bookkeeping (the connection table, eviction, the drain, `max_in_flight`, metrics), over
//! `std::net::TcpStream` instead of tokio's. What differs:
//! - Deadlines are `Instant`s this thread checks itself: before every read, and at every tick
//!   (the socket's read and write timeouts are [`BLOCKING_TICK`]), when it also looks at the
//!   server's stop, the connection's eviction and whether the accept loop still waits for the
//!   connection (it stops waiting when the drain deadline passes). So a timeout fires within a
//!   tick of its deadline, not on it.
//! - The service's future is polled once on this thread (in the runtime's context); if it is
//!   not ready (it awaits I/O, a timer, a lock), this thread blocks on it with the runtime's
//!   handle, whose own threads drive that I/O and those timers.
//! - A request the lean loop hands to hyper (chunked, `Expect`, ...) goes back to the accept
//!   loop's runtime, with the bytes already read, and hyper serves the connection from there.
//! - Reads land in a buffer of the thread's, zeroed once, and are copied from there to the
//!   end of the connection's read buffer: reading into the read buffer's spare room needs
//!   `unsafe` (forbidden here; `Read::read_buf` is not stable), and zeroing that room before
//!   every read cost 4,460 instructions per request (8 KiB), a fifth of the request, where the
//!   copy of a 628-byte request costs about a hundred.
//! - Reads and the usual writes are `recv` and `send` system calls made by `rustix` (on
//!   Linux straight, not through libc): libc's wrappers are thread-cancellation points, whose
//!   bookkeeping is two locked instructions a call (about 20 cycles each, where callgrind
//!   counts two instructions), four of the thirteen an echoFloat request made
//!   (`scripts/instr-per-request.sh --locked`). The rare paths (a vectored write, the linger)
//!   keep `std`'s.
//! - Busy-polling (`busy_poll`) looks with `MSG_PEEK | MSG_DONTWAIT` before the blocking read
//!   (a blocking connection is always alone on its thread).
//!
//! A few, not a crowd: the OS gives each thread an equal share of the CPUs, so four blocking
//! threads next to two runtime threads with sixty connections between them took the CPUs from
//! the sixty (p99 7.4 ms against 1.4 ms at 64 connections, docs/performance.md "Round ten").
//! A new connection gets a thread only while no connection is on the runtimes, and a blocking
//! connection goes back to the accept loop's runtime between two requests (at a tick, or
//! before it waits) once one is ([`Ended::Runtime`]); it stays there for life.
//!
//! Threads: at most `blocking_connections` connections are served this way at once. A thread
//! whose connection ended waits [`THREAD_KEEP`] for another before it exits, so a client that
//! connects per call does not pay a thread's creation per call.
//!
//! It must never read or wait without a deadline (every wait is a tick at most, and every tick
//! looks at the deadline), never serve TLS (rustls over a blocking socket would need its own
//! loop), never run more than the configured number of connections, never keep a connection
//! on its thread while others queue on the runtimes, never hand one back in the middle of a
//! request, and never let the drain finish before the connection's request is answered (the
//! accept loop awaits each blocking connection as it awaits its tasks).

use std::collections::VecDeque;
use std::io::{self, Read as _, Write as _};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::pin::{pin, Pin};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use http::StatusCode;
use http_body_util::Full;
use tokio::runtime::Handle;
use tokio::sync::{oneshot, watch};

use super::head::{parse, Head, Parsed};
use super::{
    body_too_slow, compose, evicted_now, head_too_large, Framing, BUF, KEEP, LINGER, LINGER_BYTES,
};
use crate::answer::Answer;
use crate::dispatch::{handle, text, Inner, Start};
use crate::metrics::Metrics;
use crate::poll::{BusyPoll, Neighbours};
use crate::serve::{OpenConnection, Registered};
use crate::BLOCKING_TICK;
use soapstone_http1::After;

/// How long a thread whose connection ended waits for another before it exits.
pub(crate) const THREAD_KEEP: Duration = Duration::from_secs(10);

/// The thread's read buffer ([`Conn::scratch`]): the most one read takes.
const SCRATCH: usize = 16 << 10;

/// A connection accepted on a runtime, for a blocking thread to serve.
pub(crate) struct Job {
    pub(crate) inner: Arc<Inner>,
    pub(crate) stream: TcpStream,
    pub(crate) peer: SocketAddr,
    pub(crate) accepted: Instant,
    pub(crate) registered: Registered,
    pub(crate) stop: watch::Receiver<bool>,
    /// The accepting runtime: services' futures that are not ready at once block on it.
    pub(crate) runtime: Handle,
    /// Sent (or dropped) when the thread is done with the connection; the accept loop awaits
    /// it, and closes it when it stops waiting (the drain deadline passed).
    pub(crate) done: oneshot::Sender<Ended>,
}

/// How a blocking connection ended.
pub(crate) enum Ended {
    /// Closed.
    Closed,
    /// The connection's next request is one the lean engine hands to hyper: the accept loop
    /// serves the rest of the connection with hyper, starting with `read`.
    Hyper {
        stream: TcpStream,
        read: Bytes,
        registered: Registered,
        stop: watch::Receiver<bool>,
    },
    /// Other connections are served by the runtimes: between two requests (nothing read of
    /// the next), the connection goes back to the accept loop's runtime, for the rest of its
    /// life, so that a crowd of connections shares the runtimes fairly.
    Runtime {
        stream: TcpStream,
        registered: Registered,
        stop: watch::Receiver<bool>,
    },
}

/// The server's blocking threads: at most `max` connections at once.
pub(crate) struct Pool {
    max: usize,
    state: Mutex<PoolState>,
    wake: Condvar,
}

#[derive(Default)]
struct PoolState {
    /// Connections taken (queued or being served).
    taken: usize,
    /// Threads waiting for a connection.
    idle: usize,
    /// Connections handed to an idle thread that has not picked them up yet (never more than
    /// `idle`).
    queue: VecDeque<Job>,
}

impl Pool {
    pub(crate) fn new(max: usize) -> Arc<Pool> {
        Arc::new(Pool {
            max,
            state: Mutex::new(PoolState::default()),
            wake: Condvar::new(),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, PoolState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether a connection accepted now should go to a blocking thread: fewer than `max` are
    /// taken, and no connection is on the runtimes (another accept loop may take the last
    /// place before this one does: [`Pool::serve`] decides).
    pub(crate) fn takes(&self, metrics: &Metrics) -> bool {
        !crowded(metrics) && self.lock().taken < self.max
    }

    /// Hands `job` to a blocking thread (an idle one, or a new one); gives it back when
    /// `max` connections are taken already or no thread could be started.
    pub(crate) fn serve(self: &Arc<Self>, job: Job) -> Result<(), Job> {
        let mut st = self.lock();
        if st.taken >= self.max {
            return Err(job);
        }
        if st.idle > st.queue.len() {
            st.taken += 1;
            st.queue.push_back(job);
            drop(st);
            self.wake.notify_one();
            return Ok(());
        }
        // A new thread, started with the lock held so that `taken` never overshoots; the job
        // goes through a slot the thread empties, so that it comes back if the start fails.
        let first = Arc::new(Mutex::new(Some(job)));
        let pool = self.clone();
        let handed = first.clone();
        let started = std::thread::Builder::new()
            .name("soapstone-conn".to_owned())
            .spawn(move || {
                let job = handed.lock().unwrap_or_else(|e| e.into_inner()).take();
                if let Some(job) = job {
                    pool.run(job);
                }
            });
        match started {
            Ok(_) => {
                st.taken += 1;
                Ok(())
            }
            Err(e) => {
                tracing::warn!(error = %e, "cannot start a blocking connection thread");
                // The thread never ran, so the job is still in its slot.
                let job = first.lock().unwrap_or_else(|e| e.into_inner()).take();
                job.map_or(Ok(()), Err)
            }
        }
    }

    /// A thread's life: serves `job`, then each connection queued for it, until none comes
    /// for [`THREAD_KEEP`].
    fn run(&self, mut job: Job) {
        let mut scratch = vec![0; SCRATCH];
        loop {
            let Job {
                inner,
                stream,
                peer,
                accepted,
                registered,
                stop,
                runtime,
                done,
            } = job;
            {
                // In the runtime's context for the connection's life, not entered per request
                // (about 70 instructions a request): services' futures are polled in it.
                let _context = runtime.enter();
                let _open = Count::new(&inner.metrics.blocking_open);
                inner.metrics.blocking_total.fetch_add(1, Ordering::Relaxed);
                let mut conn = Conn {
                    inner: &inner,
                    peer,
                    accepted,
                    runtime: &runtime,
                    done,
                    scratch: &mut scratch,
                };
                let ended = conn.serve(stream, registered, stop);
                let _ = conn.done.send(ended);
            }
            let mut st = self.lock();
            st.taken -= 1;
            st.idle += 1;
            let deadline = Instant::now() + THREAD_KEEP;
            loop {
                if let Some(next) = st.queue.pop_front() {
                    st.idle -= 1;
                    job = next;
                    break;
                }
                let now = Instant::now();
                if now >= deadline {
                    st.idle -= 1;
                    return;
                }
                st = self
                    .wake
                    .wait_timeout(st, deadline - now)
                    .unwrap_or_else(|e| e.into_inner())
                    .0;
            }
        }
    }
}

/// Some open connection is served by the runtimes, not by a blocking thread: the server is
/// past "a few connections".
fn crowded(metrics: &Metrics) -> bool {
    metrics.connections_open.load(Ordering::Relaxed) > metrics.blocking_open.load(Ordering::Relaxed)
}

/// Counts one while alive.
struct Count<'a>(&'a AtomicUsize);

impl<'a> Count<'a> {
    fn new(n: &'a AtomicUsize) -> Self {
        n.fetch_add(1, Ordering::Relaxed);
        Count(n)
    }
}

impl Drop for Count<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// What a wait for bytes found.
enum Got {
    /// Bytes were read, by this instant.
    Bytes(Instant),
    /// The end of the stream, an error, or the accept loop no longer waits for the connection.
    Closed,
    /// The deadline passed first.
    Deadline,
    /// The server is stopping.
    Stop,
    /// The table evicted the connection.
    Evicted,
    /// Other connections are served by the runtimes (see [`Ended::Runtime`]).
    Crowded,
}

/// How an answer went out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sent {
    /// In one write: the kernel took it all at once.
    AtOnce,
    /// In more than one: the client was slow to take it, and the thread may have waited.
    Slowly,
    /// The connection failed, or the accept loop gave up on it.
    Failed,
}

/// One connection on its thread: what every step needs.
struct Conn<'a> {
    inner: &'a Arc<Inner>,
    peer: SocketAddr,
    accepted: Instant,
    runtime: &'a Handle,
    /// Closed by the accept loop when it gives up on the connection (the drain deadline).
    done: oneshot::Sender<Ended>,
    /// The thread's buffer every read lands in (see the module doc).
    scratch: &'a mut [u8],
}

impl Conn<'_> {
    /// Serves the connection until it closes, the server stops, or a request needs hyper.
    /// The steps and their order are `serve_lean`'s; see its comments for the reasons.
    fn serve(
        &mut self,
        stream: TcpStream,
        registered: Registered,
        stop: watch::Receiver<bool>,
    ) -> Ended {
        let inner = self.inner;
        let config = &inner.config;
        let open = OpenConnection::new(&inner.metrics);
        if let Err(e) = blocking_socket(&stream, config.naive.nagle) {
            tracing::debug!(peer = %self.peer, error = %e, "cannot make the socket blocking");
            return Ended::Closed;
        }
        let mut rbuf = BytesMut::with_capacity(BUF);
        let mut wbuf: Vec<u8> = Vec::with_capacity(BUF);
        let mut head = Head::default();
        let (table, slot) = (&registered.table, &registered.slot);
        // Alone on its thread: a blocking connection always may poll, when asked to.
        let poll = BusyPoll::new(config.busy_poll, Neighbours::default().join());
        let mut first = true;
        let mut stopping = *stop.borrow();
        // The clock, read twice a request (when its bytes come, when it is answered) and
        // reused in between: for the deadlines, the connection table, the handler's latency
        // and the answer's `date`. Each read is ~27 ns here (`rdtsc` under KVM); the loop read
        // it eight times a request before.
        let mut now = Instant::now();
        loop {
            let waiting_since = now;
            let idle_deadline = if first {
                self.accepted + config.header_read_timeout.min(config.idle_timeout)
            } else {
                waiting_since + config.idle_timeout
            };
            let mut first_byte = (!rbuf.is_empty()).then_some(waiting_since);
            // Whether the connection table has heard that a head is arriving: only when it
            // takes more than one read (then eviction must not take it for idle); a head that
            // comes whole turns the connection busy at once (a clock conversion fewer).
            let mut touched = false;
            loop {
                if !rbuf.is_empty() {
                    match parse(
                        &rbuf,
                        config.max_header_bytes,
                        config.max_headers,
                        &mut head,
                    ) {
                        Parsed::Complete => break,
                        Parsed::Partial => {
                            if let (Some(at), false) = (first_byte, touched) {
                                table.touch(slot, at);
                                touched = true;
                            }
                        }
                        Parsed::TooLarge => {
                            return self.refuse(&stream, &mut wbuf, head_too_large(config))
                        }
                        Parsed::Invalid(msg) => {
                            let resp = text(StatusCode::BAD_REQUEST, msg);
                            return self.refuse(&stream, &mut wbuf, resp);
                        }
                        Parsed::Unusual => {
                            // (hyper's loop counts the connection again: the accept loop
                            // takes one off.)
                            drop(open);
                            let read = rbuf.freeze();
                            return Ended::Hyper {
                                stream,
                                read,
                                registered,
                                stop,
                            };
                        }
                    }
                } else if stopping {
                    return end(&stream); // drained: nothing in flight on this connection
                } else if !first && first_byte.is_none() && crowded(&inner.metrics) {
                    return self.hand_back(stream, registered, stop);
                }
                let deadline = match first_byte {
                    Some(t) => t + config.header_read_timeout,
                    None => idle_deadline,
                };
                if rbuf.capacity() - rbuf.len() < 1024 {
                    rbuf.reserve(BUF);
                }
                let watch_stop = (!stopping).then_some(&stop);
                // Between requests (not before the first), a tick also looks for a crowd, and
                // the connection may look for its next request before it sleeps in `recv`.
                let between = !first && first_byte.is_none() && !stopping;
                if let (true, Some(poll)) = (between, &poll) {
                    poll.wait(&stream, &inner.metrics.polls);
                }
                match self.read(
                    &stream,
                    &mut rbuf,
                    (now, deadline),
                    Some(slot),
                    watch_stop,
                    between,
                ) {
                    Got::Bytes(at) => {
                        now = at;
                        first_byte.get_or_insert(at);
                    }
                    Got::Closed => return Ended::Closed,
                    // An idle connection, a head too slow (slowloris), or evicted: closed
                    // without an answer, as hyper does.
                    Got::Deadline => return end(&stream),
                    Got::Evicted => {
                        tracing::debug!(peer = %self.peer, "idle connection evicted to make room");
                        return end(&stream);
                    }
                    Got::Stop => stopping = true,
                    Got::Crowded => return self.hand_back(stream, registered, stop),
                }
            }
            first = false;
            let Some(busy) = table.busy(slot) else {
                return self.refuse(&stream, &mut wbuf, evicted_now(config));
            };
            head.take_bytes(&mut rbuf);
            let unread = head.content_length > config.max_body_bytes as u64;
            let body = if unread || head.content_length == 0 {
                Bytes::new()
            } else {
                let len = head.content_length as usize; // at most max_body_bytes
                if rbuf.len() < len {
                    rbuf.reserve(len - rbuf.len());
                    let deadline = now + config.body_read_timeout;
                    while rbuf.len() < len {
                        match self.read(&stream, &mut rbuf, (now, deadline), None, None, false) {
                            Got::Bytes(at) => now = at,
                            Got::Deadline => {
                                return self.refuse(&stream, &mut wbuf, body_too_slow(config))
                            }
                            _ => return Ended::Closed,
                        }
                    }
                }
                rbuf.split_to(len).freeze()
            };
            let head_only = head.method == http::Method::HEAD;
            let view = match head.view(Full::new(body), None) {
                Ok(view) => view,
                Err(msg) => {
                    let resp = text(StatusCode::BAD_REQUEST, msg);
                    return self.refuse(&stream, &mut wbuf, resp);
                }
            };
            // No arrival: no queue stands between this thread's read and its handler, and
            // these requests' zero waits would hide from queue-delay shedding the queue the
            // runtimes' connections may be in.
            // Pinned where it is made: moved into `run`, the future (some kilobytes) was
            // copied once more per request.
            // The request was read whole at `now`: its handling starts there.
            let handled = {
                let call = pin!(handle(inner, view, Start::Read(now), Some(self.peer)));
                self.run(call)
            };
            let Some((resp, done)) = handled else {
                return Ended::Closed; // given up on, as the runtimes drop an aborted task
            };
            head.clear_bytes();
            busy.idle_at(done);
            let stopping_now = stop.has_changed().unwrap_or(true);
            stopping |= stopping_now;
            let keep = head.keep_alive && !unread && !stopping;
            let after = if keep { After::KeepAlive } else { After::Close };
            let framing = Framing {
                http10: head.http10,
                head_only,
                after,
                now: done,
            };
            let sent = self.answer(&stream, &mut wbuf, resp, framing);
            // The idle wait starts when the answer is out: at `done` when the kernel took it
            // at once (a few microseconds later), read again when the client was slow to take it.
            now = match sent {
                Sent::AtOnce => done,
                Sent::Slowly => Instant::now(),
                Sent::Failed => return Ended::Closed,
            };
            if !keep {
                if unread {
                    self.linger(&stream);
                } else {
                    let _ = stream.shutdown(Shutdown::Write);
                }
                return Ended::Closed;
            }
            // Bounded memory: a connection keeps at most `KEEP` bytes of buffer between requests.
            if rbuf.capacity() > KEEP && rbuf.len() <= BUF {
                let mut fresh = BytesMut::with_capacity(BUF);
                fresh.extend_from_slice(&rbuf);
                rbuf = fresh;
            }
            if wbuf.capacity() > KEEP {
                wbuf = Vec::with_capacity(BUF);
            }
        }
    }

    /// Gives the connection back to the accept loop's runtime (between requests, nothing
    /// read of the next one).
    fn hand_back(
        &self,
        stream: TcpStream,
        registered: Registered,
        stop: watch::Receiver<bool>,
    ) -> Ended {
        let metrics = &self.inner.metrics;
        metrics.blocking_handed_back.fetch_add(1, Ordering::Relaxed);
        Ended::Runtime {
            stream,
            registered,
            stop,
        }
    }

    /// Runs a service's future on this thread: polled once in the runtime's context (which
    /// the thread entered for the connection: `Pool::run`; a service that needs no I/O is
    /// done then), else blocked on with the runtime's handle, whose threads drive the I/O and
    /// timers it waits for. `None` when the accept loop gave up on the connection first (the
    /// future is dropped).
    fn run<F: std::future::Future>(&mut self, mut fut: Pin<&mut F>) -> Option<F::Output> {
        if let Poll::Ready(out) = fut.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
            return Some(out);
        }
        let done = &mut self.done;
        self.runtime.block_on(async {
            tokio::select! {
                out = fut => Some(out),
                () = done.closed() => None,
            }
        })
    }

    /// Reads what comes into `buf`, waking every tick to look at `deadline`, the accept
    /// loop, and (when given) the connection's eviction and the server's stop. `now` is the
    /// caller's latest clock reading (when its last read returned, or its last answer went
    /// out); a read that returns bytes says when.
    fn read(
        &mut self,
        stream: &TcpStream,
        buf: &mut BytesMut,
        (mut now, deadline): (Instant, Instant),
        slot: Option<&crate::conns::Slot>,
        stop: Option<&watch::Receiver<bool>>,
        watch_crowd: bool,
    ) -> Got {
        loop {
            // Before every read, not only at a tick: a client trickling a byte per tick must
            // still meet its deadline (`now` is at most one read old).
            if now >= deadline {
                return Got::Deadline;
            }
            match read_into(stream, self.scratch, buf) {
                Ok(0) => return Got::Closed,
                Ok(_) => return Got::Bytes(Instant::now()),
                Err(e) if ticked(&e) => now = Instant::now(),
                Err(_) => return Got::Closed,
            }
            if self.done.is_closed() {
                return Got::Closed;
            }
            if slot.is_some_and(|s| s.is_evicted()) {
                return Got::Evicted;
            }
            if stop.is_some_and(|s| s.has_changed().unwrap_or(true)) {
                return Got::Stop;
            }
            if watch_crowd && crowded(&self.inner.metrics) {
                return Got::Crowded;
            }
        }
    }

    /// Writes `resp` (head and body in one write when it fits).
    fn answer(
        &self,
        stream: &TcpStream,
        wbuf: &mut Vec<u8>,
        resp: impl Into<Answer>,
        framing: Framing,
    ) -> Sent {
        let rest = compose(wbuf, resp, framing);
        self.write_two(stream, wbuf, &rest)
    }

    /// `a` then `b`, in one write when the socket takes both.
    fn write_two(&self, stream: &TcpStream, a: &[u8], b: &[u8]) -> Sent {
        let (mut a, mut b) = (a, b);
        if b.is_empty() {
            // The usual answer, copied whole into the write buffer: a plain `send` (one
            // buffer for the kernel to take, not a vector of them).
            return self.write_all(stream, a);
        }
        let mut sent = Sent::AtOnce;
        while !a.is_empty() || !b.is_empty() {
            let slices = [io::IoSlice::new(a), io::IoSlice::new(b)];
            match (&*stream).write_vectored(&slices) {
                Ok(0) => return Sent::Failed,
                Ok(n) => {
                    let from_a = n.min(a.len());
                    a = &a[from_a..];
                    b = &b[n - from_a..];
                }
                Err(e) if ticked(&e) => {
                    if self.done.is_closed() {
                        return Sent::Failed;
                    }
                }
                Err(_) => return Sent::Failed,
            }
            if !a.is_empty() || !b.is_empty() {
                sent = Sent::Slowly; // the next write may wait for the client
            }
        }
        sent
    }

    /// All of `a`, in one write when the socket takes it.
    fn write_all(&self, stream: &TcpStream, mut a: &[u8]) -> Sent {
        let mut sent = Sent::AtOnce;
        while !a.is_empty() {
            match send(stream, a) {
                Ok(0) => return Sent::Failed,
                Ok(n) => a = &a[n..],
                Err(e) if ticked(&e) => {
                    if self.done.is_closed() {
                        return Sent::Failed;
                    }
                }
                Err(_) => return Sent::Failed,
            }
            if !a.is_empty() {
                sent = Sent::Slowly; // the next write may wait for the client
            }
        }
        sent
    }

    /// Answers `resp` and closes, without reading what else the client sent.
    fn refuse(
        &self,
        stream: &TcpStream,
        wbuf: &mut Vec<u8>,
        resp: http::Response<crate::dispatch::ResponseBody>,
    ) -> Ended {
        if self.answer(stream, wbuf, resp, Framing::refusal()) != Sent::Failed {
            self.linger(stream);
        }
        Ended::Closed
    }

    /// Stops writing, then reads and drops what the client still sends for a moment (the
    /// lean loop's `linger`).
    fn linger(&self, stream: &TcpStream) {
        let _ = stream.shutdown(Shutdown::Write);
        let deadline = Instant::now() + LINGER;
        let mut buf = [0u8; 4096];
        let mut discarded = 0;
        while discarded < LINGER_BYTES && Instant::now() < deadline && !self.done.is_closed() {
            match (&*stream).read(&mut buf) {
                Ok(0) => break,
                Ok(n) => discarded += n,
                Err(e) if ticked(&e) => {}
                Err(_) => break,
            }
        }
    }
}

/// Ends a connection between requests (a plain socket: no close_notify to send).
fn end(stream: &TcpStream) -> Ended {
    let _ = stream.shutdown(Shutdown::Write);
    Ended::Closed
}

/// A socket tokio handed over, made blocking with the tick as its read and write timeouts.
fn blocking_socket(stream: &TcpStream, nagle: bool) -> io::Result<()> {
    stream.set_nonblocking(false)?;
    stream.set_nodelay(!nagle)?;
    stream.set_read_timeout(Some(BLOCKING_TICK))?;
    stream.set_write_timeout(Some(BLOCKING_TICK))
}

/// A read or write that ended at the tick (or by a signal), not by an error.
fn ticked(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut | io::ErrorKind::Interrupted
    )
}

/// One read into `scratch`, appended to `buf`.
fn read_into(stream: &TcpStream, scratch: &mut [u8], buf: &mut BytesMut) -> io::Result<usize> {
    let n = recv(stream, scratch)?;
    buf.extend_from_slice(&scratch[..n]);
    Ok(n)
}

/// One `recv` (see the module's notes: not libc's).
#[cfg(unix)]
fn recv(stream: &TcpStream, buf: &mut [u8]) -> io::Result<usize> {
    // (the bytes read into `buf`, and the datagram's length, the same for a stream)
    let (read, _) = rustix::net::recv(stream, buf, rustix::net::RecvFlags::empty())?;
    Ok(read)
}

#[cfg(not(unix))]
fn recv(stream: &TcpStream, buf: &mut [u8]) -> io::Result<usize> {
    (&*stream).read(buf)
}

/// One `send`, without `SIGPIPE` on a closed connection (as `std`'s).
#[cfg(unix)]
fn send(stream: &TcpStream, buf: &[u8]) -> io::Result<usize> {
    Ok(rustix::net::send(
        stream,
        buf,
        rustix::net::SendFlags::NOSIGNAL,
    )?)
}

#[cfg(not(unix))]
fn send(stream: &TcpStream, buf: &[u8]) -> io::Result<usize> {
    (&*stream).write(buf)
}
