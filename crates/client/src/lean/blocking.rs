//! The lean exchange over blocking sockets
//! ([`ClientConfig::blocking_io`](crate::ClientConfig::blocking_io)): the calling thread writes
//! the request and sleeps in `recv` until the answer comes, as omniORB's and gSOAP's clients
//! do, so a call's future is ready on its first poll and no tokio runtime is needed at all.
//!
//! Why it exists: on one CPU, each side of a round trip through tokio's readiness loop pays
//! 1.1-1.8 µs for it (a read after the answer that finds nothing, an `epoll_wait` that parks the
//! thread, the reactor waking the task, the read again; docs/performance.md, "Round ten").
//! The server's blocking connections took that out of the server (`soapstone-server`'s
//! `lean/blocking.rs`); this takes it out of the Client. A blocking read is one system call,
//! and the kernel wakes the very thread that reads.
//!
//! The same exchange, not a second one: the request is the async path's bytes
//! (`super::request_bytes`, one write), and the answer is read by the async path's own reader
//! (`super::read_answer`: `soapstone-http1`'s head, `Content-Length`, chunked, EOF framing,
//! interim answers, `MAX_HEAD` and `max_document_bytes`) over [`Reader`], an `AsyncRead` whose
//! every poll blocks until bytes, the end, an error or the deadline, and so never returns
//! `Pending` (as `futures::io::AllowStdIo` does for std streams). That future is polled once.
//! What differs from the async path:
//! - Deadlines are the call's own `Instant`, checked before every read and write; the socket's
//!   read and write timeouts bound each blocking call to what is left of it. They are set (a
//!   `setsockopt`) only when what is left differs from what the socket has by more than
//!   [`SLACK`] or by half, so a stream of calls makes no `setsockopt`, and a call ends within
//!   [`SLACK`] of its deadline.
//! - Reads land in a scratch buffer of the connection's, zeroed once, and are copied to the end
//!   of the read buffer: reading into the read buffer's spare room needs `unsafe` (forbidden
//!   here; `Read::read_buf` is not stable), and zeroing it before every read costs 4,400
//!   instructions (8 KiB; the server's blocking connections measured it), the copy of a
//!   621-byte answer about a hundred.
//! - Whether a pooled connection is still open is a look with `MSG_PEEK | MSG_DONTWAIT` (a
//!   system call: there is no reactor to have said so), except within [`FRESH`] of the start
//!   of its last exchange. A server closes an idle connection after seconds, and one that ends
//!   a connection after an answer says so in it (`Connection: close`); and the async path,
//!   which learns of a close from its reactor, cannot see one in that window either (two calls
//!   of a tight loop have no `epoll_wait` between them). The look is a third of the blocking
//!   path's system calls per call in a loop of calls.
//! - A plain connection's `recv`, `send` and look are system calls made by `rustix` (on Linux
//!   straight, not through libc, whose wrappers are thread-cancellation points: two locked
//!   instructions a call, about 20 cycles each).
//! - `https://` is rustls's synchronous API (`ClientConnection` in a `StreamOwned` over the
//!   `TcpStream`), with the same settings as the async path's connector.
//!
//! Must never: block without a deadline (every read, write, connect and handshake is bounded
//! by the call's or the connect's), send a request twice once any byte of it may have reached
//! the server, pool a connection before its answer was read to the end, or read more than the
//! async path would. It blocks its thread for up to the request timeout, which is why it is
//! opt-in and documented as for a caller that owns its thread, never a runtime shared with
//! other tasks.

use std::future::Future as _;
use std::io::{self, Read as _, Write as _};
use std::net::{TcpStream, ToSocketAddrs as _};
use std::pin::{pin, Pin};
use std::sync::Arc;
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use bytes::BytesMut;
use tokio::io::{AsyncRead, ReadBuf};
use tokio_rustls::rustls;

use super::{
    read_answer, request_bytes, shrink, Answer, Failure, Head, LastHead, Want, READ_CHUNK,
};
use crate::tls::Connector;
use crate::Error;

/// How far past its deadline a blocking read or write may end, so that the socket's timeout
/// need not be set again per call: `5 ms`.
const SLACK: Duration = Duration::from_millis(5);
/// How soon after the start of its last exchange a pooled connection is taken without a look
/// at its socket: `1 ms`.
const FRESH: Duration = Duration::from_millis(1);
/// A request at most this long goes out in one `send` without waiting, into a socket whose
/// send buffer is empty (Linux's smallest default, `net.ipv4.tcp_wmem`'s first value, is
/// 4 KiB; its usual starting size 16 KiB): `4 KiB`.
const AT_ONCE: usize = 4 << 10;
/// The scratch buffer reads land in: `16 KiB`.
const SCRATCH: usize = 16 << 10;

type TlsStream = rustls::StreamOwned<rustls::ClientConnection, TcpStream>;

/// A blocking connection's byte stream.
enum Stream {
    Plain(TcpStream),
    Tls(Box<TlsStream>),
}

impl Stream {
    fn tcp(&self) -> &TcpStream {
        match self {
            Stream::Plain(tcp) => tcp,
            Stream::Tls(tls) => &tls.sock,
        }
    }
}

/// One keep-alive connection on a blocking socket, and its buffers.
pub(crate) struct BlockingConn {
    stream: Stream,
    /// Bytes read and not yet handed on (empty between exchanges).
    read: BytesMut,
    /// The request being written (head and body).
    write: Vec<u8>,
    /// The last answer's head, for reading the next one by comparison.
    last: LastHead,
    /// Where reads land before they are copied to `read`.
    scratch: Box<[u8]>,
    timeouts: Timeouts,
    /// When the last exchange began (or the connection was made).
    began: Instant,
}

/// The socket's read and write timeouts as last set (`Duration::MAX`: none, blocking for ever).
struct Timeouts {
    read: Duration,
    write: Duration,
}

impl Timeouts {
    /// Makes the next blocking read end by `left` from now, or within [`SLACK`] after.
    fn read(&mut self, tcp: &TcpStream, left: Duration) -> io::Result<()> {
        if !fits(self.read, left) {
            tcp.set_read_timeout(Some(left))?;
            self.read = left;
        }
        Ok(())
    }

    /// Makes the next blocking write end by `left` from now, or within [`SLACK`] after.
    fn write(&mut self, tcp: &TcpStream, left: Duration) -> io::Result<()> {
        if !fits(self.write, left) {
            tcp.set_write_timeout(Some(left))?;
            self.write = left;
        }
        Ok(())
    }
}

/// Whether a socket timeout of `set` serves a wait of `left`: it ends no later than
/// [`SLACK`] after, and not so early that the wait wakes up many times.
fn fits(set: Duration, left: Duration) -> bool {
    set <= left.saturating_add(SLACK) && set >= left / 2
}

/// What is left until `deadline`; `None` once it passed.
fn left(deadline: Instant) -> Option<Duration> {
    let d = deadline.saturating_duration_since(Instant::now());
    (!d.is_zero()).then_some(d)
}

/// The clock of an exchange: what was left of it at a reading taken just before (the call's
/// whole timeout, as its deadline was set from that reading), used once, then the clock
/// itself. A clock reading is about 25 ns here (`rdtsc` under KVM), and the arithmetic from
/// one to what is left about 40 instructions; a call did both four times.
struct Clock(Option<Duration>);

impl Clock {
    /// What is left until `deadline`: what was left at the reading kept (the first time), or
    /// from now.
    fn left(&mut self, deadline: Instant) -> Option<Duration> {
        match self.0.take() {
            Some(left) => (!left.is_zero()).then_some(left),
            None => left(deadline),
        }
    }
}

/// A read or write that ended at the socket's timeout (or by a signal), not by an error: the
/// deadline decides what happens next.
fn ticked(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut | io::ErrorKind::Interrupted
    )
}

impl BlockingConn {
    /// Connects to `host:port` (each resolved address in turn) with `TCP_NODELAY`, and
    /// completes the TLS handshake when `tls` is given, all within `timeout`.
    pub(crate) fn connect(
        host: &str,
        port: u16,
        tls: Option<&Connector>,
        timeout: Duration,
    ) -> Result<BlockingConn, Error> {
        let label = format!("{host}:{port}");
        let deadline = Instant::now() + timeout;
        let tcp = connect_tcp(host, port, &label, timeout, deadline)?;
        let mut timeouts = Timeouts {
            read: Duration::MAX,
            write: Duration::MAX,
        };
        let stream = match tls {
            None => Stream::Plain(tcp),
            Some(tls) => Stream::Tls(Box::new(handshake(
                tcp,
                tls,
                &label,
                timeout,
                deadline,
                &mut timeouts,
            )?)),
        };
        Ok(BlockingConn {
            stream,
            read: BytesMut::with_capacity(READ_CHUNK),
            write: Vec::with_capacity(2 << 10),
            last: LastHead::default(),
            scratch: vec![0; SCRATCH].into_boxed_slice(),
            timeouts,
            began: Instant::now(),
        })
    }

    /// Whether an idle connection can take a request at `now` (the caller's clock reading):
    /// not closed by the server (its idle timeout), no stray bytes waiting. One `recv` with
    /// `MSG_PEEK | MSG_DONTWAIT`, unless its last exchange began less than [`FRESH`] before.
    pub(crate) fn is_open(&mut self, now: Instant) -> bool {
        if now.saturating_duration_since(self.began) < FRESH {
            return true;
        }
        match &mut self.stream {
            Stream::Plain(tcp) => matches!(peek(tcp),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock),
            // TLS records wait: rustls reads them. Nothing for the caller (a session ticket, a
            // key update) leaves the connection open; an end (the server's close_notify, or
            // the TCP end) or a stray byte of plaintext does not.
            Stream::Tls(tls) => loop {
                match peek(&tls.sock) {
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => return true,
                    Ok(0) | Err(_) => return false,
                    Ok(_) => {}
                }
                // Bytes wait, so this read does not block.
                if !matches!(tls.conn.read_tls(&mut tls.sock), Ok(n) if n > 0)
                    || tls.conn.process_new_packets().is_err()
                {
                    return false;
                }
                let mut probe = [0u8; 1];
                match tls.conn.reader().read(&mut probe) {
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                    _ => return false,
                }
            },
        }
    }

    /// Writes the request (`head`, `Content-Length`, `body`) in one write and reads the whole
    /// answer within `want.timeout` from `now` (the caller's clock reading, taken just before:
    /// the clock is read once a call, and again only when a write or a read must wait again);
    /// the answer and whether the connection can be reused.
    pub(crate) fn exchange(
        &mut self,
        now: Instant,
        head: Head<'_>,
        body: &[u8],
        want: &Want,
    ) -> Result<(Answer, bool), Failure> {
        self.began = now;
        let deadline = now + want.timeout;
        request_bytes(&mut self.write, head, body);
        let res = self.exchange_io(deadline, want);
        shrink(&mut self.read, &mut self.write);
        res
    }

    /// The exchange until `deadline`, which is `want.timeout` after a clock reading taken
    /// just before.
    fn exchange_io(&mut self, deadline: Instant, want: &Want) -> Result<(Answer, bool), Failure> {
        let BlockingConn {
            stream,
            read,
            write,
            last,
            scratch,
            timeouts,
            ..
        } = self;
        let timed_out = || Failure::Failed(Error::timeout(want.timeout));
        let failed = |e: io::Error| Failure::Failed(Error::http(e));
        // The first write and the first read are bounded by the whole timeout, from the
        // reading the deadline was set from (microseconds old); a write or read that must
        // wait again reads the clock.
        let mut clock = Clock(Some(want.timeout));
        // Whether the request went out in one `send` that cannot have waited: then that
        // reading is still good for the first read's bound.
        let mut at_once = false;
        match stream {
            Stream::Plain(tcp) => {
                let mut sent = 0;
                let mut sends = 0;
                while sent < write.len() {
                    sends += 1;
                    let left = clock.left(deadline).ok_or_else(timed_out)?;
                    timeouts.write(tcp, left).map_err(failed)?;
                    match send(tcp, &write[sent..]) {
                        Ok(0) => return Err(failed(io::ErrorKind::WriteZero.into())),
                        Ok(n) => sent += n,
                        Err(e) if ticked(&e) => {}
                        // Nothing sent: the caller may retry elsewhere.
                        Err(e) if sent == 0 => return Err(Failure::NotSent(Error::http(e))),
                        Err(e) => return Err(failed(e)),
                    }
                }
                // The socket's send buffer is empty between exchanges (an answer was read
                // whole), and takes at least this much without waiting.
                at_once = sends == 1 && write.len() <= AT_ONCE;
                if !want.busy_poll.is_zero() {
                    busy_poll(tcp, want.busy_poll);
                }
            }
            // Over TLS a failed write may have sent a record already, so no failure here is
            // `NotSent` (a pooled connection the server closed is told apart before, by
            // `is_open`). rustls holds the records until flushed.
            Stream::Tls(tls) => {
                let mut sent = 0;
                let mut flushed = false;
                while !flushed {
                    let left = clock.left(deadline).ok_or_else(timed_out)?;
                    timeouts.write(&tls.sock, left).map_err(failed)?;
                    let step = if sent < write.len() {
                        tls.write(&write[sent..]).map(|n| sent += n)
                    } else {
                        tls.flush().map(|()| flushed = true)
                    };
                    match step {
                        Ok(()) => {}
                        Err(e) if ticked(&e) => {}
                        Err(e) => return Err(failed(e)),
                    }
                }
            }
        }
        // The first read's bound from that reading too when the request went out at once:
        // what is left is then a few microseconds longer than it is, well within `SLACK`.
        clock = Clock(at_once.then_some(want.timeout));
        let mut reader = Reader {
            stream,
            scratch,
            timeouts,
            deadline,
            clock,
            timed_out: false,
        };
        let res = {
            let answer = pin!(read_answer(&mut reader, read, last, want));
            match answer.poll(&mut Context::from_waker(Waker::noop())) {
                Poll::Ready(res) => res,
                // `Reader` is never pending; should it be, the connection is dropped.
                Poll::Pending => Err(Error::http("a blocking read was pending")),
            }
        };
        match res {
            Ok(done) => Ok(done),
            Err(_) if reader.timed_out => Err(timed_out()),
            Err(e) => Err(Failure::Failed(e)),
        }
    }
}

/// A blocking connection's read side as an `AsyncRead` that never returns `Pending`: each
/// poll reads once, blocking until bytes, the end, an error or the deadline.
struct Reader<'a> {
    stream: &'a mut Stream,
    scratch: &'a mut [u8],
    timeouts: &'a mut Timeouts,
    deadline: Instant,
    clock: Clock,
    /// The deadline passed (the read failed with `TimedOut`).
    timed_out: bool,
}

impl Reader<'_> {
    fn read_blocking(&mut self, buf: &mut ReadBuf<'_>) -> io::Result<()> {
        let room = buf.remaining().min(self.scratch.len());
        loop {
            let Some(left) = self.clock.left(self.deadline) else {
                self.timed_out = true;
                return Err(io::ErrorKind::TimedOut.into());
            };
            self.timeouts.read(self.stream.tcp(), left)?;
            let got = match &mut *self.stream {
                Stream::Plain(tcp) => recv(tcp, &mut self.scratch[..room]),
                Stream::Tls(tls) => tls.read(&mut self.scratch[..room]),
            };
            match got {
                Ok(n) => {
                    buf.put_slice(&self.scratch[..n]);
                    return Ok(());
                }
                Err(e) if ticked(&e) => {}
                Err(e) => return Err(e),
            }
        }
    }
}

impl AsyncRead for Reader<'_> {
    fn poll_read(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Poll::Ready(self.get_mut().read_blocking(buf))
    }
}

/// A `TCP_NODELAY` connection to `host:port` by `deadline`, trying each resolved address in
/// turn (name resolution itself is the system's, unbounded here as `getaddrinfo` is).
fn connect_tcp(
    host: &str,
    port: u16,
    label: &str,
    timeout: Duration,
    deadline: Instant,
) -> Result<TcpStream, Error> {
    let mut last = None;
    for addr in (host, port)
        .to_socket_addrs()
        .map_err(|e| Error::connect(label, e))?
    {
        let Some(left) = left(deadline) else {
            return Err(Error::connect_timeout(label, timeout));
        };
        match TcpStream::connect_timeout(&addr, left) {
            Ok(tcp) => {
                // Without it a request split over two segments waits for the server's
                // delayed ACK.
                tcp.set_nodelay(true)
                    .map_err(|e| Error::connect(label, e))?;
                return Ok(tcp);
            }
            // It had all the time left.
            Err(e) if e.kind() == io::ErrorKind::TimedOut => {
                return Err(Error::connect_timeout(label, timeout))
            }
            Err(e) => last = Some(e),
        }
    }
    let e = last.unwrap_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no address"));
    Err(Error::connect(label, e))
}

/// The TLS handshake over `tcp` by `deadline`, failing with what rustls said (unknown issuer,
/// name mismatch, ...), as the async connector does.
fn handshake(
    mut tcp: TcpStream,
    tls: &Connector,
    label: &str,
    timeout: Duration,
    deadline: Instant,
    timeouts: &mut Timeouts,
) -> Result<TlsStream, Error> {
    let mut conn = rustls::ClientConnection::new(Arc::clone(&tls.config), tls.name.clone())
        .map_err(|e| Error::tls(label, io::Error::other(e)))?;
    while conn.is_handshaking() {
        let Some(left) = left(deadline) else {
            return Err(Error::connect_timeout(label, timeout));
        };
        timeouts
            .read(&tcp, left)
            .and_then(|()| timeouts.write(&tcp, left))
            .map_err(|e| Error::connect(label, e))?;
        match conn.complete_io(&mut tcp) {
            Ok(_) => {}
            Err(e) if ticked(&e) => {}
            Err(e) => return Err(Error::tls(label, e)),
        }
    }
    Ok(rustls::StreamOwned::new(conn, tcp))
}

/// Looks at the socket without waiting: `WouldBlock` when nothing waits, `Ok(0)` at its end.
#[cfg(unix)]
fn peek(tcp: &TcpStream) -> io::Result<usize> {
    use rustix::net::RecvFlags;
    let (read, _) = rustix::net::recv(tcp, &mut [0u8; 1], RecvFlags::PEEK | RecvFlags::DONTWAIT)?;
    Ok(read)
}

/// One `recv` of a plain connection's: on Linux a system call of `rustix`'s, not libc's
/// `recv`, a thread-cancellation point whose bookkeeping is two locked instructions a call
/// (about 20 cycles each; `scripts/instr-per-request.sh --locked` counts them on the server).
#[cfg(unix)]
fn recv(tcp: &TcpStream, buf: &mut [u8]) -> io::Result<usize> {
    // (the bytes read into `buf`, and the datagram's length: the same for a stream)
    let (read, _) = rustix::net::recv(tcp, buf, rustix::net::RecvFlags::empty())?;
    Ok(read)
}

#[cfg(not(unix))]
fn recv(tcp: &TcpStream, buf: &mut [u8]) -> io::Result<usize> {
    (&*tcp).read(buf)
}

/// One `send` of a plain connection's (as [`recv`]), without `SIGPIPE` on a closed
/// connection, as `std`'s.
#[cfg(unix)]
fn send(tcp: &TcpStream, buf: &[u8]) -> io::Result<usize> {
    Ok(rustix::net::send(
        tcp,
        buf,
        rustix::net::SendFlags::NOSIGNAL,
    )?)
}

#[cfg(not(unix))]
fn send(tcp: &TcpStream, buf: &[u8]) -> io::Result<usize> {
    (&*tcp).write(buf)
}

/// Looks at the socket without waiting: `WouldBlock` when nothing waits, `Ok(0)` at its end.
#[cfg(not(unix))]
fn peek(tcp: &TcpStream) -> io::Result<usize> {
    tcp.set_nonblocking(true)?;
    let got = tcp.peek(&mut [0u8; 1]);
    tcp.set_nonblocking(false)?;
    got
}

/// Looks at `tcp` for up to `budget` until bytes (or the end, or an error) wait on it,
/// yielding the CPU between looks ([`ClientConfig::busy_poll`](crate::ClientConfig::busy_poll));
/// the blocking read after it then finds them at once, or sleeps as usual.
fn busy_poll(tcp: &TcpStream, budget: Duration) {
    let waiting = || !matches!(peek(tcp), Err(e) if e.kind() == io::ErrorKind::WouldBlock);
    if waiting() {
        return;
    }
    let end = Instant::now() + budget;
    loop {
        std::thread::yield_now();
        if waiting() || Instant::now() >= end {
            return;
        }
    }
}
