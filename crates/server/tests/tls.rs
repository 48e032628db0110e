//! The server's TLS accept path over real sockets, with certificates made at test time
//! (rcgen) and a rustls client that counts the TLS records it receives: keep-alive over TLS,
//! one record per response, plain HTTP on the TLS port answered and closed, a stalled
//! handshake closed by the header-read deadline or evicted for a new client, client
//! certificates.

mod common;

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::*;
use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};
use soapstone_server::{HttpEngine, ServerConfig, Tls};
use tokio_rustls::rustls;

/// A CA, and a leaf certificate for `localhost` signed by it: (ca pem, leaf pem, leaf key pem).
fn pki() -> (String, String, String) {
    let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca = CertifiedIssuer::self_signed(ca, KeyPair::generate().unwrap()).unwrap();
    let key = KeyPair::generate().unwrap();
    let leaf = CertificateParams::new(vec!["localhost".to_owned()])
        .unwrap()
        .signed_by(&key, &ca)
        .unwrap();
    (ca.pem(), leaf.pem(), key.serialize_pem())
}

fn tls_server(tls: Tls, header_read_timeout: Duration) -> TestServer {
    let mut config = ServerConfig::default();
    config.tls = Some(tls);
    config.header_read_timeout = header_read_timeout;
    TestServer::start(config)
}

/// Counts the TLS records of each content type that arrive on the socket.
#[derive(Default)]
struct Records {
    /// Bytes of the record being skipped, and a partial header.
    skip: usize,
    header: Vec<u8>,
    application_data: usize,
}

impl Records {
    fn feed(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            if self.skip > 0 {
                let n = self.skip.min(bytes.len());
                self.skip -= n;
                bytes = &bytes[n..];
                continue;
            }
            let need = 5 - self.header.len();
            let n = need.min(bytes.len());
            self.header.extend_from_slice(&bytes[..n]);
            bytes = &bytes[n..];
            if self.header.len() == 5 {
                if self.header[0] == 0x17 {
                    self.application_data += 1;
                }
                self.skip = u16::from_be_bytes([self.header[3], self.header[4]]) as usize;
                self.header.clear();
            }
        }
    }
}

/// A TCP stream that feeds what it reads to a record counter.
struct Counting {
    tcp: TcpStream,
    records: Arc<Mutex<Records>>,
}

impl Read for Counting {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.tcp.read(buf)?;
        self.records.lock().unwrap().feed(&buf[..n]);
        Ok(n)
    }
}

impl Write for Counting {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.tcp.write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.tcp.flush()
    }
}

type TlsClient = rustls::StreamOwned<rustls::ClientConnection, Counting>;

fn client_config(ca_pem: &str, client_cert: Option<(&str, &str)>) -> Arc<rustls::ClientConfig> {
    use rustls_pki_types::pem::PemObject as _;
    use rustls_pki_types::{CertificateDer, PrivateKeyDer};
    let mut roots = rustls::RootCertStore::empty();
    roots
        .add(CertificateDer::from_pem_slice(ca_pem.as_bytes()).unwrap())
        .unwrap();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots);
    Arc::new(match client_cert {
        None => builder.with_no_client_auth(),
        Some((cert, key)) => builder
            .with_client_auth_cert(
                vec![CertificateDer::from_pem_slice(cert.as_bytes()).unwrap()],
                PrivateKeyDer::from_pem_slice(key.as_bytes()).unwrap(),
            )
            .unwrap(),
    })
}

fn connect_tls(
    srv: &TestServer,
    config: Arc<rustls::ClientConfig>,
) -> (TlsClient, Arc<Mutex<Records>>) {
    let records = Arc::new(Mutex::new(Records::default()));
    let tcp = srv.connect();
    let conn = rustls::ClientConnection::new(config, "localhost".try_into().unwrap()).unwrap();
    let io = Counting {
        tcp,
        records: records.clone(),
    };
    (rustls::StreamOwned::new(conn, io), records)
}

/// Reads one Content-Length framed response over TLS.
fn read_tls_response(s: &mut TlsClient) -> io::Result<(u16, String)> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..end]).to_ascii_lowercase();
            let len: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .map(|v| v.trim().parse().unwrap())
                .unwrap_or(0);
            if buf.len() >= end + 4 + len {
                let status = head[9..12].parse().unwrap();
                let body = String::from_utf8_lossy(&buf[end + 4..end + 4 + len]).into_owned();
                return Ok((status, body));
            }
        }
        let n = s.read(&mut chunk)?;
        if n == 0 {
            return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "closed"));
        }
        buf.extend_from_slice(&chunk[..n]);
    }
}

#[test]
fn keep_alive_over_tls_and_one_record_per_response() {
    let (ca, cert, key) = pki();
    let srv = tls_server(
        Tls::from_pem(cert.as_bytes(), key.as_bytes()).unwrap(),
        Duration::from_secs(10),
    );
    let (mut s, records) = connect_tls(&srv, client_config(&ca, None));
    let req = post(ECHO_FLOAT, "");
    for i in 0..3 {
        records.lock().unwrap().application_data = 0;
        s.write_all(&req).unwrap();
        let (status, body) = read_tls_response(&mut s).unwrap();
        assert_eq!(status, 200, "{body}");
        assert!(body.contains("echoFloatResult"), "{body}");
        if i > 0 {
            // The first answer may share its reads with the TLS 1.3 session tickets; after
            // it, a response is exactly one application-data record: head and body in one
            // write, as on plain TCP.
            assert_eq!(records.lock().unwrap().application_data, 1, "request {i}");
        }
    }
    assert_eq!(srv.metric("soapstone_connections_total"), 1);
}

/// A connection the server ends while idle ends with a close_notify: a TLS client reads a clean
/// end, not a cut connection (rustls's `UnexpectedEof`).
#[test]
fn an_idle_tls_connection_is_ended_with_a_close_notify() {
    // On both engines: hyper's header timer ends an idle connection without shutting it down,
    // so the server does it after hyper (`serve::end`).
    let (ca, cert, key) = pki();
    for engine in [HttpEngine::Lean, HttpEngine::Hyper] {
        let mut config = ServerConfig::default();
        config.tls = Some(Tls::from_pem(cert.as_bytes(), key.as_bytes()).unwrap());
        config.idle_timeout = Duration::from_millis(300);
        config.http = engine;
        let srv = TestServer::start_exact(config);
        let (mut s, _) = connect_tls(&srv, client_config(&ca, None));
        s.write_all(&post(ECHO_FLOAT, "")).unwrap();
        let (status, body) = read_tls_response(&mut s).unwrap();
        assert_eq!(status, 200, "{engine:?}: {body}");
        let mut rest = [0u8; 64];
        let end = s.read(&mut rest);
        assert!(
            matches!(end, Ok(0)),
            "{engine:?}: a clean end after the idle timeout, got {end:?}"
        );
    }
}

#[test]
fn a_tls_connection_is_never_busy_polled_nor_blocking() {
    // Its bytes are TLS records, for rustls to read: a peek at the socket cannot say whether
    // a request is in them (`crate::poll`).
    let (ca, cert, key) = pki();
    let mut config = ServerConfig::default();
    config.tls = Some(Tls::from_pem(cert.as_bytes(), key.as_bytes()).unwrap());
    config.runtime = soapstone_server::Runtime::CurrentThread;
    config.http = soapstone_server::HttpEngine::Lean;
    config.busy_poll = Duration::from_millis(1);
    // Nor served by a blocking thread (rustls over a blocking socket would need a loop of
    // its own): it stays on its runtime.
    config.blocking_connections = 2;
    let srv = TestServer::start_exact(config);
    let (mut s, _) = connect_tls(&srv, client_config(&ca, None));
    for _ in 0..5 {
        s.write_all(&post(ECHO_FLOAT, "")).unwrap();
        let (status, body) = read_tls_response(&mut s).unwrap();
        assert_eq!(status, 200, "{body}");
    }
    let text = srv.server.metrics_text();
    assert!(!text.contains("soapstone_busy_polls_total"), "{text}");
    assert!(!text.contains("soapstone_blocking_connections"), "{text}");
}

#[test]
fn plain_http_on_the_tls_port_gets_400_and_a_close() {
    let (_, cert, key) = pki();
    let srv = tls_server(
        Tls::from_pem(cert.as_bytes(), key.as_bytes()).unwrap(),
        Duration::from_secs(10),
    );
    let mut s = srv.connect();
    s.write_all(&post(ECHO_FLOAT, "")).unwrap();
    let mut answer = Vec::new();
    // read_timeout is 30 s: a hang fails here instead of blocking the suite.
    s.read_to_end(&mut answer).unwrap();
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 400 "), "{answer}");
    assert!(answer.contains("connection: close"), "{answer}");
    assert!(answer.ends_with("use an `https://` url\n"), "{answer}");
}

#[test]
fn stalled_handshake_is_closed_at_the_header_deadline() {
    let (_, cert, key) = pki();
    let srv = tls_server(
        Tls::from_pem(cert.as_bytes(), key.as_bytes()).unwrap(),
        Duration::from_millis(500),
    );
    let mut s = srv.connect();
    // The start of a ClientHello record, then nothing.
    s.write_all(&[0x16, 0x03, 0x01, 0x00, 0x80]).unwrap();
    let started = std::time::Instant::now();
    let mut buf = [0u8; 64];
    let n = s.read(&mut buf).expect("closed, not a read timeout");
    assert_eq!(n, 0);
    // Not the read timeout (30 s), nor the default header deadline (10 s): a loaded machine may
    // be late by seconds.
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn client_certificates_when_asked() {
    let (ca, cert, key) = pki();
    let tls = Tls::from_pem_with_client_ca(cert.as_bytes(), key.as_bytes(), ca.as_bytes()).unwrap();
    let srv = tls_server(tls, Duration::from_secs(10));
    let req = post(ECHO_FLOAT, "");

    // With a certificate from the CA: served.
    let (mut s, _) = connect_tls(&srv, client_config(&ca, Some((&cert, &key))));
    s.write_all(&req).unwrap();
    assert_eq!(read_tls_response(&mut s).unwrap().0, 200);

    // Without one: the handshake fails and nothing is served.
    let (mut s, _) = connect_tls(&srv, client_config(&ca, None));
    let res = s.write_all(&req).and_then(|()| read_tls_response(&mut s));
    let err = res.expect_err("served without a client certificate");
    // The server's alert, or (when the close with our request unread resets the connection
    // before the alert is read) the reset.
    let reset = matches!(
        err.kind(),
        io::ErrorKind::ConnectionReset | io::ErrorKind::BrokenPipe | io::ErrorKind::UnexpectedEof
    );
    assert!(err.to_string().contains("alert") || reset, "{err}");
}

#[test]
fn bad_pem_is_a_clear_error() {
    let (_, cert, key) = pki();
    let err = Tls::from_pem(b"not a pem", key.as_bytes()).unwrap_err();
    assert!(
        err.to_string().contains("no certificate in the pem"),
        "{err}"
    );
    let err = Tls::from_pem(cert.as_bytes(), b"").unwrap_err();
    assert!(err.to_string().contains("no usable private key"), "{err}");
    let (_, _, other_key) = pki();
    let err = Tls::from_pem(cert.as_bytes(), other_key.as_bytes()).unwrap_err();
    assert!(err.to_string().contains("do not fit"), "{err}");
}

#[test]
fn a_stalled_handshake_is_evicted_for_a_new_client() {
    let (ca, cert, key) = pki();
    let mut config = ServerConfig::default();
    config.tls = Some(Tls::from_pem(cert.as_bytes(), key.as_bytes()).unwrap());
    config.max_connections_per_ip = 1;
    let srv = TestServer::start(config);
    // Holds the address's only slot in a handshake that never goes on.
    let mut stalled = srv.connect_from([127, 0, 0, 9]);
    stalled.write_all(&[0x16, 0x03, 0x01]).unwrap();
    // A real client from the same address (accepted after it: one listener, FIFO) gets the
    // slot, and is served.
    let records = Arc::new(Mutex::new(Records::default()));
    let tcp = srv.connect_from([127, 0, 0, 9]);
    let conn =
        rustls::ClientConnection::new(client_config(&ca, None), "localhost".try_into().unwrap())
            .unwrap();
    let mut s = rustls::StreamOwned::new(conn, Counting { tcp, records });
    s.write_all(&post(ECHO_FLOAT, "")).unwrap();
    assert_eq!(read_tls_response(&mut s).unwrap().0, 200);
    // The stalled one was closed to make room, long before its header deadline (10 s): an
    // end of stream, or a reset when its unread bytes were still in the server's buffer.
    let mut buf = [0u8; 16];
    match stalled.read(&mut buf) {
        Ok(n) => assert_eq!(n, 0, "closed"),
        Err(e) => assert_eq!(
            e.kind(),
            std::io::ErrorKind::ConnectionReset,
            "closed, not timed out: {e}"
        ),
    }
    assert_eq!(srv.metric("soapstone_connections_evicted_total"), 1);
}
