//! The soapstone `Client`'s side of the issue 12 round trip: SOAPBuilders' echoFloat
//! (rpc/encoded, `http://soapinterop.org/`) called `N` times untimed, then `N` times timed, one
//! after the other on one pooled keep-alive connection, every answer checked. Prints the mean
//! round trip in microseconds on stdout; exits 1 on the first failed call.
//!
//! `cargo run --release -p soapstone-client --example echo_loop -- [--blocking] URL [N]
//! [BUSY_POLL_US]`, against `soapstone serve --services echo` (URL
//! `http://127.0.0.1:PORT/echo`); `BUSY_POLL_US` sets `ClientConfig::busy_poll` (default 0,
//! off). `--blocking` sets `ClientConfig::blocking_io` and drives the calls with
//! `futures_executor::block_on` on the main thread, no tokio runtime in the process; without it
//! they run on a current-thread tokio runtime. `scripts/rpc-compare.sh`
//! runs it pinned beside the raw bench client, gSOAP and omniORB. For an `https://` URL,
//! `ECHO_LOOP_CA=FILE` trusts the CA certificates of a PEM file, and `ECHO_LOOP_HTTP=hyper`
//! calls through hyper instead of the lean exchange (`ClientConfig::http`) in either case.

use std::process::ExitCode;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use soapstone_client::{Client, ClientConfig, HttpEngine, Operation};
use soapstone_codec::{EncodeOptions, QName, Style};

#[derive(Serialize)]
struct EchoFloat {
    #[serde(rename = "inputFloat")]
    input_float: f32,
}

#[derive(Deserialize)]
struct EchoFloatResponse {
    #[serde(rename = "outputFloat")]
    value: f32,
}

const VALUE: f32 = 654.321;

fn main() -> ExitCode {
    let mut blocking = false;
    let mut args = std::env::args().skip(1).filter(|a| {
        let flag = a == "--blocking";
        blocking |= flag;
        !flag
    });
    let Some(url) = args.next() else {
        eprintln!("usage: echo_loop [--blocking] URL [N] [BUSY_POLL_US]");
        return ExitCode::from(2);
    };
    let n: u32 = match args.next().map(|s| s.parse()) {
        None => 20_000,
        Some(Ok(n)) if n > 0 => n,
        Some(_) => {
            eprintln!("echo_loop: `N` must be a positive integer");
            return ExitCode::from(2);
        }
    };
    let busy_poll = match args.next().map(|s| s.parse()) {
        None => 0,
        Some(Ok(us)) => us,
        Some(Err(_)) => {
            eprintln!("echo_loop: `BUSY_POLL_US` must be a whole number of microseconds");
            return ExitCode::from(2);
        }
    };
    let mut config = ClientConfig::default();
    if let Ok(path) = std::env::var("ECHO_LOOP_CA") {
        let pem = match std::fs::read(&path) {
            Ok(pem) => pem,
            Err(e) => {
                eprintln!("echo_loop: ECHO_LOOP_CA `{path}`: {e}");
                return ExitCode::from(2);
            }
        };
        config = match config.tls_ca_pem(&pem) {
            Ok(c) => c,
            Err(e) => {
                eprintln!("echo_loop: ECHO_LOOP_CA `{path}`: {e}");
                return ExitCode::from(2);
            }
        };
    }
    match std::env::var("ECHO_LOOP_HTTP").as_deref() {
        Err(_) | Ok("lean") => {}
        Ok("hyper") => config.http = HttpEngine::Hyper,
        Ok(other) => {
            eprintln!("echo_loop: ECHO_LOOP_HTTP must be `lean` or `hyper`, not `{other}`");
            return ExitCode::from(2);
        }
    }
    config.busy_poll = std::time::Duration::from_micros(busy_poll);
    config.blocking_io = blocking;
    let client = match Client::with_config(&url, config) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("echo_loop: {e}");
            return ExitCode::from(2);
        }
    };
    let request = QName::new("http://soapinterop.org/", "echoFloat");
    let mut options = EncodeOptions::default();
    options.style = Style::Encoded;
    let op = Operation {
        action: "http://soapinterop.org/",
        request: &request,
        options: &options,
        response_style: Style::Encoded,
    };
    let body = EchoFloat { input_float: VALUE };
    let calls = async {
        let mut start = Instant::now();
        for i in 0..2 * n {
            if i == n {
                start = Instant::now();
            }
            match client.call::<_, EchoFloatResponse>(&op, &body).await {
                Ok(r) if r.value == VALUE => {}
                Ok(r) => {
                    eprintln!("echo_loop: call {i}: wrong answer `{}`", r.value);
                    return ExitCode::FAILURE;
                }
                Err(e) => {
                    eprintln!("echo_loop: call {i}: {e}");
                    return ExitCode::FAILURE;
                }
            }
        }
        let us = start.elapsed().as_secs_f64() * 1e6 / f64::from(n);
        println!("{us:.3}");
        ExitCode::SUCCESS
    };
    if blocking {
        return futures_executor::block_on(calls);
    }
    match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt.block_on(calls),
        Err(e) => {
            eprintln!("echo_loop: cannot start a runtime: {e}");
            ExitCode::FAILURE
        }
    }
}
