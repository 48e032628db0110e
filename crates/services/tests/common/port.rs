//! A loopback port held for a child process that takes a port number and cannot bind port 0
//! and say which port it got (PostgreSQL). The old way, bind `127.0.0.1:0`, read the port, drop
//! the listener and hand the number over, races: until the child binds, any other test may take
//! that port as a listener or as the source port of an outgoing connection, and the child then
//! fails to bind or, worse, the test talks to somebody else's server.
//!
//! A [`ReservedPort`] is a socket bound to `127.0.0.1:0` with `SO_REUSEADDR` that never listens,
//! kept for as long as the child may use the port (across a stop and a start again too). Linux
//! then gives that port to nobody else: a bind to port 0 skips it, an outgoing connection never
//! takes it as its source port, and a socket without `SO_REUSEADDR` cannot bind it; but the
//! child, which binds it by number with `SO_REUSEADDR` (PostgreSQL, the JVM, PHP, HAProxy and
//! Python's servers all set it), can, because the reservation does not listen. A connection to
//! the port while the child is down is refused, as with nobody on it. What it cannot keep out
//! is another process that binds the same number itself with `SO_REUSEADDR` (a number it got
//! the old racy way, from a listener on port 0 dropped just before this reservation took the
//! port): the child's bind then fails with "address in use", and the start is tried again on a
//! fresh reservation (`pg.rs`; `reserved_port.rs` saw it once in CI).
//!
//! It must never be used for a child that does not set `SO_REUSEADDR` (its bind fails, every
//! time) nor for a port a test process listens on itself (that is port 0, read back).

use std::net::{Ipv4Addr, SocketAddr};

pub struct ReservedPort {
    _socket: tokio::net::TcpSocket,
    pub port: u16,
}

impl ReservedPort {
    /// Reserves a free port on 127.0.0.1 until dropped.
    pub fn new() -> ReservedPort {
        let socket = tokio::net::TcpSocket::new_v4().expect("a TCP socket");
        socket.set_reuseaddr(true).expect("SO_REUSEADDR");
        socket
            .bind(SocketAddr::from((Ipv4Addr::LOCALHOST, 0)))
            .expect("bind 127.0.0.1:0");
        let port = socket.local_addr().expect("its address").port();
        ReservedPort {
            _socket: socket,
            port,
        }
    }
}
