//! A TCP relay on a port a test holds for its whole life, in front of a server process that
//! binds port 0 itself and may be killed and started again (then on another port). The clients
//! keep one address across the restart without the test handing a port number to a process,
//! which would race with every other test for that port (see `port.rs`).
//!
//! While no server is behind it, a connection is closed as soon as it is accepted, as a client
//! sees a server that died under it. It must never relay to an address the test did not point
//! it at: a server's old port may be somebody else's after the server died.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use tokio::net::{TcpListener, TcpStream};

pub struct Relay {
    /// Where the clients connect.
    pub addr: SocketAddr,
    backend: Arc<Mutex<Option<SocketAddr>>>,
    accepting: tokio::task::JoinHandle<()>,
}

impl Relay {
    /// A relay on a free loopback port, with no server behind it yet.
    pub async fn start() -> Relay {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let backend: Arc<Mutex<Option<SocketAddr>>> = Arc::default();
        let behind = Arc::clone(&backend);
        let accepting = tokio::spawn(async move {
            while let Ok((mut front, _)) = listener.accept().await {
                let Some(to) = *behind.lock().unwrap() else {
                    continue; // `front` is dropped: closed at once.
                };
                tokio::spawn(async move {
                    if let Ok(mut back) = TcpStream::connect(to).await {
                        let _ = tokio::io::copy_bidirectional(&mut front, &mut back).await;
                    }
                });
            }
        });
        Relay {
            addr,
            backend,
            accepting,
        }
    }

    /// Relays new connections to `backend` from now on (`None`: closes them).
    pub fn point_at(&self, backend: Option<SocketAddr>) {
        *self.backend.lock().unwrap() = backend;
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.accepting.abort();
    }
}
