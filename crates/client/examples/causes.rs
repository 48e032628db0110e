//! One call, cured and with each of the seeds' causes on purpose, measured side by side in one
//! run: a real server on 127.0.0.1 (in this process) and the real client, sequential calls on
//! one client per mode. Prints the median and 90th percentile per mode and the ratio of each
//! median to the cured one.
//!
//! `cargo run --release -p soapstone-client --example causes [-- CALLS]`
//! (pin to one CPU with `taskset -c 0` for the same-CPU figure).

use std::future::IntoFuture;
use std::net::TcpListener;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use soapstone_client::{Client, ClientConfig, NaiveModes};
use soapstone_codec::Version;
use soapstone_server::{Server, ServerConfig};
use soapstone_service::{BoxFuture, SoapRequest, SoapResponse, SoapService};

const ENVELOPE: &str = "<soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\" xmlns:t=\"http://tempuri.org/\"><soap:Body><t:echoFloat><input>3.14159</input></t:echoFloat></soap:Body></soap:Envelope>";

/// Answers every request with the envelope it got.
struct Mirror;

impl SoapService for Mirror {
    fn name(&self) -> &str {
        "Mirror"
    }
    fn document(&self, _: &str, _: &str) -> Option<String> {
        None
    }
    fn call(&self, req: SoapRequest) -> BoxFuture<SoapResponse> {
        Box::pin(async move { SoapResponse::new(req.version, false, Some("echo"), req.body) })
    }
}

async fn run(
    server_naive: soapstone_server::NaiveModes,
    naive: NaiveModes,
    calls: usize,
) -> Vec<Duration> {
    let mut config = ServerConfig::default();
    config.naive = server_naive;
    let server = Server::builder()
        .mount("/echo", Arc::new(Mirror))
        .config(config)
        .build();
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let serving = server
        .serve_with_shutdown(listener, async {
            let _ = rx.await;
        })
        .expect("serve");
    let addr = serving.local_addr();
    tokio::spawn(serving.into_future());
    let mut cc = ClientConfig::default();
    cc.naive = naive;
    let client = Client::with_config(&format!("http://{addr}/echo"), cc).expect("client");
    let body = Bytes::from_static(ENVELOPE.as_bytes());
    let call = || client.call_raw(Version::Soap11, Some("echo"), body.clone());
    // Warm-up: the connection, and Linux's quick ACKs at the start of a connection.
    for _ in 0..20 {
        call().await.expect("warm-up call");
    }
    let mut times = Vec::with_capacity(calls);
    for _ in 0..calls {
        let t = Instant::now();
        let r = call().await.expect("call");
        times.push(t.elapsed());
        assert_eq!(r.status, 200);
    }
    let _ = tx.send(());
    times.sort();
    times
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let calls: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(50)
        .max(1);
    let s = soapstone_server::NaiveModes::default();
    let c = NaiveModes::default();
    let modes = [
        ("cured", s, c),
        ("server nagle", s.with_nagle(), c),
        ("server split-writes", s.with_split_writes(), c),
        ("server nagle+split", soapstone_server::NaiveModes::all(), c),
        ("client read-to-eof", s, c.with_read_to_eof()),
        (
            "client connection-per-call",
            s,
            c.with_connection_per_call(),
        ),
        ("client expect-continue", s, c.with_expect_continue()),
        (
            "all causes",
            soapstone_server::NaiveModes::all(),
            NaiveModes::all(),
        ),
    ];
    let mut cured = None;
    println!(
        "{:<28} {:>12} {:>12} {:>10}",
        "mode", "median", "p90", "x cured"
    );
    for (name, sn, cn) in modes {
        let t = run(sn, cn, calls).await;
        let median = t[t.len() / 2];
        let p90 = t[t.len() * 9 / 10];
        let base = *cured.get_or_insert(median);
        println!(
            "{name:<28} {:>12.3?} {:>12.3?} {:>10.1}",
            median,
            p90,
            median.as_secs_f64() / base.as_secs_f64()
        );
    }
}
