//! The Client's blocking exchange (`ClientConfig::blocking_io`, `src/lean/blocking.rs`) against
//! the real soapstone server, called from plain threads that have no tokio runtime: the server
//! runs on a runtime of its own, on other threads. A generated client (`#[service]`) drives it,
//! as applications do; its futures are driven by `futures_executor::block_on` or polled once.
//! Raw-byte servers are in `blocking_wire.rs`, `https://` in `blocking_tls.rs`.

mod common;

use std::future::Future as _;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use bytes::Bytes;
use futures_executor::block_on;
use soapstone_client::{Client, ClientConfig, HttpEngine, NaiveModes};
use soapstone_codec::Version;
use soapstone_server::{Server, ServerConfig};
use soapstone_service::{service, Fault};

#[service(name = "Calc", namespace = "urn:calc")]
pub trait Calc {
    /// Answers its input.
    async fn echo_float(&self, input: f32) -> Result<f32, Fault>;
    /// A Client fault with `why` as its reason.
    async fn fail(&self, why: String) -> Result<f32, Fault>;
    /// Records a line; nothing is answered.
    #[soap(one_way)]
    async fn note(&self, line: String) -> Result<(), Fault>;
}

#[derive(Default)]
struct Impl(Mutex<Vec<String>>);

impl Calc for Impl {
    async fn echo_float(&self, input: f32) -> Result<f32, Fault> {
        Ok(input)
    }
    async fn fail(&self, why: String) -> Result<f32, Fault> {
        Err(Fault::client(why))
    }
    async fn note(&self, line: String) -> Result<(), Fault> {
        self.0.lock().unwrap().push(line);
        Ok(())
    }
}

/// A real server on a runtime of its own (its threads, not the test's), until dropped.
struct Served {
    server: Server,
    addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    rt: Option<tokio::runtime::Runtime>,
}

impl Served {
    fn start(config: ServerConfig) -> Served {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let (server, addr, stop) = {
            let _in = rt.enter();
            common::serve(config, Arc::new(CalcServer::new(Impl::default())))
        };
        Served {
            server,
            addr,
            stop: Some(stop),
            rt: Some(rt),
        }
    }

    fn url(&self) -> String {
        format!("http://{}/echo", self.addr)
    }

    fn metric(&self, name: &str) -> u64 {
        self.server
            .metrics_text()
            .lines()
            .find_map(|l| l.strip_prefix(name)?.trim().parse().ok())
            .unwrap_or_else(|| panic!("no `{name}`"))
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(rt) = self.rt.take() {
            rt.shutdown_timeout(Duration::from_secs(5));
        }
    }
}

fn blocking(url: &str, f: impl FnOnce(&mut ClientConfig)) -> Client {
    let mut config = ClientConfig::default().blocking_io(true);
    // Generous: a loaded machine must not time out a call that should succeed.
    config.request_timeout = Duration::from_secs(20);
    f(&mut config);
    Client::with_config(url, config).unwrap()
}

/// Runs `f` on a new plain thread (no runtime there) and returns what it returns.
fn on_plain_thread<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::spawn(move || {
        assert!(
            tokio::runtime::Handle::try_current().is_err(),
            "the calling thread must have no runtime"
        );
        f()
    })
    .join()
    .unwrap()
}

#[test]
fn typed_calls_from_a_plain_thread_need_no_runtime_and_share_one_connection() {
    let served = Served::start(ServerConfig::default());
    let url = served.url();
    let idle = on_plain_thread(move || {
        let calc = CalcClient::with_client(blocking(&url, |_| {}));
        // Ready on its first poll, with a waker that does nothing: nothing waits to be woken.
        let mut call = std::pin::pin!(calc.echo_float(2.5));
        match call.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
            Poll::Ready(r) => assert_eq!(r.unwrap(), 2.5),
            Poll::Pending => panic!("a blocking call was pending"),
        }
        for i in 0..50 {
            let x = 1.25 + i as f32;
            assert_eq!(block_on(calc.echo_float(x)).unwrap(), x);
        }
        block_on(calc.note("a line".into())).unwrap();
        let raw = block_on(calc.client().call_raw(
            Version::Soap11,
            Some("urn:calc#echoFloat"),
            Bytes::from_static(b"<not-xml"),
        ))
        .expect("an http answer is not an error for call_raw");
        assert_eq!(raw.status, 500);
        assert_eq!(raw.content_type.as_deref(), Some("text/xml; charset=utf-8"));
        calc.client().idle_connections()
    });
    assert_eq!(idle, 1, "one idle connection after the calls");
    assert_eq!(
        served.metric("soapstone_connections_total"),
        1,
        "53 calls, one accept"
    );
}

#[test]
fn faults_are_errors_with_the_fault_and_the_connection_stays() {
    let served = Served::start(ServerConfig::default());
    let url = served.url();
    on_plain_thread(move || {
        let calc = CalcClient::with_client(blocking(&url, |_| {}));
        for version in [Version::Soap11, Version::Soap12] {
            let calc = calc.clone().with_version(version);
            let err = block_on(calc.fail("`x` is no number".into())).unwrap_err();
            let fault = err.fault().expect("a fault");
            assert_eq!(fault.reason, "`x` is no number");
            assert_eq!(
                err.status(),
                Some(if version == Version::Soap11 { 500 } else { 400 })
            );
            assert_eq!(block_on(calc.echo_float(4.5)).unwrap(), 4.5);
        }
        assert_eq!(calc.client().idle_connections(), 1);
    });
    assert_eq!(served.metric("soapstone_connections_total"), 1);
}

/// The server closes the idle connection (its idle timeout); the next call finds its pooled
/// connection closed before sending and takes a new one, instead of failing.
#[test]
fn a_pooled_connection_closed_by_the_server_is_replaced() {
    let mut config = ServerConfig::default();
    config.idle_timeout = Duration::from_millis(150);
    config.header_read_timeout = Duration::from_millis(150);
    let served = Arc::new(Served::start(config));
    let url = served.url();
    let s = Arc::clone(&served);
    on_plain_thread(move || {
        let calc = CalcClient::with_client(blocking(&url, |_| {}));
        for i in 0..3 {
            assert_eq!(block_on(calc.echo_float(i as f32)).unwrap(), i as f32);
            // A loaded machine may take longer than the 150 ms.
            let deadline = Instant::now() + Duration::from_secs(30);
            while s.metric("soapstone_connections_open") != 0 {
                assert!(Instant::now() < deadline, "the server kept the connection");
                std::thread::sleep(Duration::from_millis(5));
            }
        }
    });
    assert_eq!(served.metric("soapstone_connections_total"), 3);
}

#[test]
fn gzip_both_ways_with_the_real_server() {
    let mut config = ServerConfig::default();
    config.compress_responses_over = Some(0);
    let served = Served::start(config);
    let url = served.url();
    on_plain_thread(move || {
        let calc = CalcClient::with_client(blocking(&url, |c| {
            c.accept_compressed = true;
            c.compress_requests_over = Some(0);
        }));
        for x in [0.5, 1.5] {
            assert_eq!(block_on(calc.echo_float(x)).unwrap(), x);
        }
    });
    let text = served.server.metrics_text();
    assert!(text.contains("status=\"200\"} 2"), "{text}");
}

/// Clones of one client on several threads: each call takes a pooled connection of its own,
/// so at most one per thread is ever made, and every answer is its own call's.
#[test]
fn concurrent_calls_from_several_threads_share_the_pool() {
    const THREADS: usize = 4;
    let served = Served::start(ServerConfig::default());
    let client = blocking(&served.url(), |_| {});
    let threads: Vec<_> = (0..THREADS)
        .map(|t| {
            let calc = CalcClient::with_client(client.clone());
            std::thread::spawn(move || {
                for i in 0..100 {
                    let x = (t * 1000 + i) as f32;
                    assert_eq!(block_on(calc.echo_float(x)).unwrap(), x);
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let made = served.metric("soapstone_connections_total");
    assert!(
        (1..=THREADS as u64).contains(&made),
        "{made} connections for {THREADS} threads"
    );
    assert_eq!(client.idle_connections() as u64, made);
}

#[test]
fn settings_that_do_not_go_together_are_refused() {
    let mut config = ClientConfig::default().blocking_io(true);
    config.http = HttpEngine::Hyper;
    let err = Client::with_config("http://127.0.0.1:1/echo", config).unwrap_err();
    assert!(err.is_config(), "{err:?}");
    assert_eq!(
        err.to_string(),
        "bad client settings: `blocking_io` needs the lean exchange, but `http` is not `HttpEngine::Lean`"
    );
    let mut config = ClientConfig::default().blocking_io(true);
    config.naive = NaiveModes::default().with_read_to_eof();
    let err = Client::with_config("http://127.0.0.1:1/echo", config).unwrap_err();
    assert!(err.is_config(), "{err:?}");
    assert!(err.to_string().ends_with("but a naive mode is on"), "{err}");
    // Either alone is fine.
    assert!(Client::with_config(
        "http://127.0.0.1:1/",
        ClientConfig::default().blocking_io(true)
    )
    .is_ok());
}

#[test]
fn refused_and_timed_out_connects_are_connect_errors() {
    on_plain_thread(|| {
        // A socket bound but not listening refuses every connection to its port.
        let bound =
            socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
        bound
            .bind(&"127.0.0.1:0".parse::<SocketAddr>().unwrap().into())
            .unwrap();
        let port = bound.local_addr().unwrap().as_socket().unwrap().port();
        let client = blocking(&format!("http://127.0.0.1:{port}/echo"), |_| {});
        let err = block_on(client.call_raw(Version::Soap11, None, Bytes::new())).unwrap_err();
        assert!(err.is_connect() && !err.is_timeout(), "{err:?}");

        // A listener whose accept queue is full drops further SYNs: the connect hangs.
        let sock =
            socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
        sock.bind(&"127.0.0.1:0".parse::<SocketAddr>().unwrap().into())
            .unwrap();
        sock.listen(0).unwrap();
        let addr = sock.local_addr().unwrap().as_socket().unwrap();
        let mut fillers = Vec::new();
        for _ in 0..8 {
            if let Ok(s) = std::net::TcpStream::connect_timeout(&addr, Duration::from_millis(100)) {
                fillers.push(s);
            }
        }
        let client = blocking(&format!("http://{addr}/echo"), |c| {
            c.connect_timeout = Duration::from_millis(200);
        });
        let err = block_on(client.call_raw(Version::Soap11, None, Bytes::new())).unwrap_err();
        assert!(err.is_connect() && err.is_timeout(), "{err:?}");
    });
}
