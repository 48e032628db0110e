//! `peers::start` on a reserved port (`peers/mod.rs`): the peer binds the port by number and is
//! the one that answers there; no other socket can bind it meanwhile; a peer that dies before it
//! listens fails the test with what it said. The peer here is a Python HTTP server answering its
//! own pid (Python's servers set `SO_REUSEADDR`, as the JVM and PHP do).

mod peers;

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};

const PEER: &str = r#"
import http.server, os, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = str(os.getpid()).encode()
        self.send_response(200)
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)
s = http.server.HTTPServer(('127.0.0.1', int(sys.argv[1])), H)
print('listening on', s.server_port, flush=True)
s.serve_forever()
"#;

/// A bind of `port` the way an outgoing connection's source port or a listener without
/// `SO_REUSEADDR` binds it.
fn thief_binds(port: u16) -> std::io::Result<()> {
    let s = tokio::net::TcpSocket::new_v4()?;
    s.set_reuseaddr(false)?;
    s.bind(std::net::SocketAddr::from(([127, 0, 0, 1], port)))
}

#[tokio::test]
async fn a_peer_binds_its_reserved_port_and_answers_there() {
    let port = peers::ReservedPort::new();
    let err = thief_binds(port.port).unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::AddrInUse, "{err}");
    let command: Vec<String> = ["python3", "-c", PEER, "{port}"].map(String::from).into();
    let child = peers::start(&command, &port, true).await;
    let mut s = tokio::net::TcpStream::connect(("127.0.0.1", port.port))
        .await
        .unwrap();
    s.write_all(b"GET / HTTP/1.0\r\n\r\n").await.unwrap();
    let mut reply = String::new();
    tokio::time::timeout(Duration::from_secs(60), s.read_to_string(&mut reply))
        .await
        .expect("the peer answers in time")
        .unwrap();
    let pid = reply.rsplit("\r\n\r\n").next().unwrap();
    assert_eq!(pid, child.id().unwrap().to_string(), "{reply}");
}

#[tokio::test]
#[should_panic(expected = "no soap here")]
async fn a_peer_that_dies_before_it_listens_fails_with_its_output() {
    let port = peers::ReservedPort::new();
    let script = "import sys; print('no soap here', file=sys.stderr); sys.exit(3)";
    let command: Vec<String> = ["python3", "-c", script].map(String::from).into();
    peers::start(&command, &port, false).await;
}
