//! `serve --metrics-addr`: Prometheus metrics on a listener of their own, so that the service
//! port (public, authenticated) does not expose them and an operator can bind them to a
//! private address.
//!
//! Deliberately tiny: one `GET /metrics` per connection, the head read with a size limit and a
//! deadline, then `Connection: close`. Must never: read an unbounded head, wait on a silent
//! peer without a deadline, or serve anything but the metrics.

use std::time::Duration;

use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpListener, TcpStream};

/// The largest request head read. Default limits of the service port are larger; a scraper
/// sends a few hundred bytes.
const MAX_HEAD: usize = 8 << 10;
/// How long a connection may take to send its head.
const HEAD_TIMEOUT: Duration = Duration::from_secs(10);

/// Serves `server`'s metrics on `listener` until the task is dropped.
pub(crate) async fn serve(listener: TcpListener, server: soapstone_server::Server) {
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            // Out of descriptors and the like: do not spin.
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        };
        let server = server.clone();
        tokio::spawn(async move {
            let _ = tokio::time::timeout(HEAD_TIMEOUT, answer(stream, &server)).await;
        });
    }
}

async fn answer(mut stream: TcpStream, server: &soapstone_server::Server) -> std::io::Result<()> {
    let mut head = Vec::with_capacity(512);
    let mut buf = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = stream.read(&mut buf).await?;
        if n == 0 {
            return Ok(());
        }
        head.extend_from_slice(&buf[..n]);
        if head.len() > MAX_HEAD {
            return reply(
                &mut stream,
                "431 Request Header Fields Too Large",
                "head too large\n",
            )
            .await;
        }
    }
    let line = head.split(|&b| b == b'\r').next().unwrap_or_default();
    let mut parts = line.split(|&b| b == b' ');
    let (method, target) = (
        parts.next().unwrap_or_default(),
        parts.next().unwrap_or_default(),
    );
    match (method, target) {
        (b"GET", b"/metrics") => reply(&mut stream, "200 OK", &server.metrics_text()).await,
        (b"GET", _) => {
            reply(
                &mut stream,
                "404 Not Found",
                "only `/metrics` is served here\n",
            )
            .await
        }
        _ => {
            reply(
                &mut stream,
                "405 Method Not Allowed",
                "only `GET /metrics`\n",
            )
            .await
        }
    }
}

async fn reply(stream: &mut TcpStream, status: &str, body: &str) -> std::io::Result<()> {
    let msg = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(msg.as_bytes()).await?;
    stream.shutdown().await?;
    // Read what the peer still sends (bounded) before closing: closing with unread bytes
    // resets the connection, and the reset may destroy the answer before the peer reads it.
    let mut sink = [0u8; 1024];
    let mut left = 64usize << 10;
    let drain = async {
        while left > 0 {
            match stream.read(&mut sink).await {
                Ok(0) | Err(_) => break,
                Ok(n) => left = left.saturating_sub(n),
            }
        }
    };
    let _ = tokio::time::timeout(Duration::from_secs(1), drain).await;
    Ok(())
}
