//! `https://` on the Client's blocking exchange (`ClientConfig::blocking_io`: rustls's
//! synchronous API) against the real soapstone server with TLS, from plain threads with no
//! runtime; certificates made at test time (rcgen), as in `tls.rs`.

mod common;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use common::{Ca, Mirror, ENVELOPE};
use futures_executor::block_on;
use soapstone_client::{Client, ClientConfig, Error, RawResponse};
use soapstone_codec::Version;
use soapstone_server::{Server, ServerConfig, Tls};

/// A TLS server for `localhost` on a runtime of its own: its CA's pem, the server, its address.
struct Served {
    ca: String,
    server: Server,
    addr: SocketAddr,
    _stop: tokio::sync::oneshot::Sender<()>,
    _rt: tokio::runtime::Runtime,
}

fn start(f: impl FnOnce(&mut ServerConfig)) -> Served {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let ca = Ca::new(&format!("soapstone blocking test ca {n}"));
    let (cert, key) = ca.leaf("localhost", false);
    let mut config = ServerConfig::default();
    config.tls = Some(Tls::from_pem(cert.as_bytes(), key.as_bytes()).unwrap());
    f(&mut config);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let (server, addr, stop) = {
        let _in = rt.enter();
        common::serve(config, Arc::new(Mirror))
    };
    Served {
        ca: ca.pem(),
        server,
        addr,
        _stop: stop,
        _rt: rt,
    }
}

impl Served {
    fn connections(&self) -> u64 {
        self.server
            .metrics_text()
            .lines()
            .find_map(|l| l.strip_prefix("soapstone_connections_total ")?.parse().ok())
            .unwrap_or(0)
    }

    fn client(&self, ca: &str) -> Client {
        let config = ClientConfig::default()
            .tls_ca_pem(ca.as_bytes())
            .unwrap()
            .blocking_io(true);
        let url = format!("https://localhost:{}/echo", self.addr.port());
        Client::with_config(&url, config).unwrap()
    }
}

/// One call on a new plain thread (no runtime there), bounded to 30 s.
fn call(client: &Client) -> Result<RawResponse, Error> {
    let client = client.clone();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        assert!(tokio::runtime::Handle::try_current().is_err());
        let envelope = Bytes::from_static(ENVELOPE.as_bytes());
        let _ = tx.send(block_on(client.call_raw(
            Version::Soap11,
            Some(""),
            envelope,
        )));
    });
    rx.recv_timeout(Duration::from_secs(30))
        .expect("the call hung")
}

/// Many calls share one connection, and a connection the server closed while idle is noticed
/// before the next call and replaced, not failed on.
#[test]
fn calls_share_one_tls_connection_and_one_closed_while_idle_is_replaced() {
    let served = start(|c| c.idle_timeout = Duration::from_millis(300));
    let client = served.client(&served.ca);
    for _ in 0..20 {
        let answer = call(&client).unwrap();
        assert_eq!(
            (answer.status, &answer.body[..]),
            (200, ENVELOPE.as_bytes())
        );
    }
    assert_eq!(served.connections(), 1, "20 calls on one connection");
    assert_eq!(client.idle_connections(), 1);
    std::thread::sleep(Duration::from_millis(800));
    assert_eq!(call(&client).unwrap().body, ENVELOPE.as_bytes());
    assert_eq!(served.connections(), 2, "a new one after the idle close");
}

#[test]
fn a_wrong_ca_is_refused_with_a_tls_error() {
    let served = start(|_| {});
    let other = start(|_| {});
    let err = call(&served.client(&other.ca)).unwrap_err();
    assert!(err.is_tls(), "{err:?}");
    let msg = err.to_string();
    assert!(msg.starts_with("tls handshake with `localhost:"), "{msg}");
    assert!(msg.contains("UnknownIssuer"), "{msg}");
}

#[test]
fn a_plain_server_is_no_tls_server() {
    // A plain-HTTP soapstone server on the port: the handshake fails, nothing falls back.
    let rt = tokio::runtime::Runtime::new().unwrap();
    let (addr, _stop) = {
        let _in = rt.enter();
        common::start(None, Arc::new(Mirror))
    };
    let ca = Ca::new("soapstone blocking test ca plain");
    let config = ClientConfig::default()
        .tls_ca_pem(ca.pem().as_bytes())
        .unwrap()
        .blocking_io(true);
    let url = format!("https://localhost:{}/echo", addr.port());
    let err = call(&Client::with_config(&url, config).unwrap()).unwrap_err();
    assert!(err.is_tls(), "{err:?}");
}
