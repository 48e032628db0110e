//! The raw TCP baselines: accept-and-close, and fixed-size ping-pong.

use std::future::Future;

use bytes::Bytes;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;

/// Accepts connections and closes them at once, until `stop`.
pub(super) async fn serve_connect(listener: TcpListener, stop: impl Future<Output = ()>) {
    tokio::pin!(stop);
    loop {
        tokio::select! {
            _ = &mut stop => return,
            accepted = listener.accept() => {
                // Dropping the stream closes it (a FIN: a reset could reach the client
                // before its connect() has seen the handshake complete, failing it). An
                // accept error (e.g. too many open files) only loses that connection.
                drop(accepted);
            }
        }
    }
}

/// Serves ping-pong on every accepted connection until `stop`; connections end with it.
pub(super) async fn serve_pingpong(
    listener: TcpListener,
    request_size: usize,
    response_size: usize,
    stop: impl Future<Output = ()>,
) {
    let response = Bytes::from(vec![b'x'; response_size]);
    let mut conns = JoinSet::new();
    tokio::pin!(stop);
    loop {
        tokio::select! {
            _ = &mut stop => return,
            accepted = listener.accept() => {
                if let Ok((stream, _)) = accepted {
                    conns.spawn(pingpong(stream, request_size, response.clone()));
                }
            }
            Some(_) = conns.join_next(), if !conns.is_empty() => {}
        }
    }
}

async fn pingpong(mut stream: TcpStream, request_size: usize, response: Bytes) {
    let _ = stream.set_nodelay(true);
    let mut request = vec![0u8; request_size];
    // A peer that closes between requests ends the loop; so does any error.
    while stream.read_exact(&mut request).await.is_ok() {
        if stream.write_all(&response).await.is_err() {
            return;
        }
    }
}
