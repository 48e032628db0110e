//! `soapstone trace URL`: the packets of a few calls to any SOAP endpoint, as per-call
//! timelines, with the stalls named (delayed ACK, Nagle, waiting for FIN).
//!
//! The capture is [`crate::capture`] (tcpdump, the pcap file kept as evidence), the timelines
//! [`crate::timeline`]. Where capture is not permitted it says so and stops (the lab's hidden
//! `--timings-without-capture` makes the calls anyway and records why there are no packets);
//! it must never make more calls than asked, nor leave a tcpdump running.

use std::path::PathBuf;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use anyhow::{bail, Context as _};
use bytes::Bytes;
use serde::{Deserialize, Serialize};
use soapstone_client::{Client, ClientConfig, NaiveModes};
use soapstone_codec::Version;

use crate::capture::Capture;
use crate::timeline::{self, CallTime, CallTimeline};

const ECHO_FLOAT: &str = "<soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\" xmlns:t=\"http://tempuri.org/\"><soap:Body><t:echoFloat><t:input>3.14159</t:input></t:echoFloat></soap:Body></soap:Envelope>";

/// The arguments of `soapstone trace`.
#[derive(Debug, Clone, clap::Args)]
#[non_exhaustive]
pub struct TraceArgs {
    /// The endpoint, `http://host:port/path`.
    pub url: String,
    /// Sequential calls to capture (at most 1000).
    #[arg(long, default_value_t = 5)]
    pub calls: usize,
    /// Calls made before the capture starts, on the same client (at most 1000): a warm
    /// keep-alive connection has left Linux's quick-ACK mode.
    #[arg(long, default_value_t = 0)]
    pub warmup: usize,
    /// The envelope to post (default: an echoFloat request).
    #[arg(long)]
    pub body: Option<PathBuf>,
    /// The SOAPAction.
    #[arg(long, default_value = "http://tempuri.org/echoFloat")]
    pub action: String,
    /// The interface to capture on.
    #[arg(long, default_value = "lo")]
    pub interface: String,
    /// Where the capture is kept.
    #[arg(long, default_value = "logs/trace.pcap")]
    pub pcap: PathBuf,
    /// Also write the timelines as JSON to this file.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Lab only, hidden: the client's causes on purpose (`read-to-eof`,
    /// `connection-per-call`, `expect-continue`, `all`).
    #[arg(long, hide = true, value_name = "CAUSES")]
    pub naive: Option<String>,
    /// Lab only, hidden: where capture is not permitted, make the calls anyway and record
    /// why there are no packets (instead of failing).
    #[arg(long, hide = true)]
    pub timings_without_capture: bool,
}

/// What `--json` writes: the calls' timelines and how the capture went.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct TraceFile {
    pub(crate) url: String,
    /// The client's causes, if any (`--naive`).
    pub(crate) naive: Option<String>,
    /// The pcap file, when the capture ran.
    pub(crate) pcap: Option<String>,
    /// Why there are no packets, when the capture could not run.
    pub(crate) capture_error: Option<String>,
    /// The command line that reproduces the capture.
    pub(crate) command: String,
    pub(crate) calls: Vec<CallTimeline>,
}

/// Runs `soapstone trace`.
pub async fn run_trace(args: TraceArgs) -> anyhow::Result<()> {
    if args.calls == 0 || args.calls > 1000 {
        bail!("`--calls` must be 1..=1000, got `{}`", args.calls);
    }
    if args.warmup > 1000 {
        bail!("`--warmup` must be 0..=1000, got `{}`", args.warmup);
    }
    let mut config = ClientConfig::default();
    if let Some(list) = &args.naive {
        config.naive =
            NaiveModes::parse(list).map_err(|e| anyhow::anyhow!("bad `--naive` value: {e}"))?;
    }
    let client = Client::with_config(&args.url, config)?;
    let uri: http::Uri = args.url.parse()?;
    let port = uri.port_u16().unwrap_or(80);
    let body = match &args.body {
        Some(p) => {
            Bytes::from(std::fs::read(p).with_context(|| format!("reading `{}`", p.display()))?)
        }
        None => Bytes::from_static(ECHO_FLOAT.as_bytes()),
    };
    let call = || client.call_raw(Version::Soap11, Some(&args.action), body.clone());
    for _ in 0..args.warmup {
        call().await.context("a warm-up call failed")?;
    }
    let capture = match Capture::start(&args.interface, port, &args.pcap).await {
        Ok(c) => Ok(c),
        Err(why) if args.timings_without_capture => Err(why),
        Err(why) => bail!("{why}"),
    };
    let mut calls = Vec::with_capacity(args.calls);
    for _ in 0..args.calls {
        let start = SystemTime::now().duration_since(UNIX_EPOCH)?.as_secs_f64();
        let t = Instant::now();
        let r = call().await;
        calls.push(CallTime {
            start,
            took: t.elapsed(),
            status: r.map(|r| r.status).map_err(|e| e.to_string()),
        });
    }
    let (packets, capture_error) = match capture {
        Ok(c) => (c.stop(calls.last().map(|c| c.start)).await?, None),
        Err(why) => (Vec::new(), Some(why)),
    };
    let timelines = timeline::timelines(&calls, &packets);
    print!("{}", timeline::render(&timelines));
    let command = command_line(&args);
    match &capture_error {
        None => println!("capture: {} (reproduce: {command})", args.pcap.display()),
        Some(why) => println!("no capture: {why}"),
    }
    if let Some(json) = &args.json {
        let file = TraceFile {
            url: args.url.clone(),
            naive: args.naive.clone(),
            pcap: capture_error
                .is_none()
                .then(|| args.pcap.display().to_string()),
            capture_error,
            command,
            calls: timelines,
        };
        std::fs::write(json, serde_json::to_string_pretty(&file)?)
            .with_context(|| format!("cannot write `{}`", json.display()))?;
    }
    Ok(())
}

/// The command line that reproduces this capture.
fn command_line(args: &TraceArgs) -> String {
    let mut parts = vec![
        "soapstone trace".to_owned(),
        args.url.clone(),
        format!("--calls {}", args.calls),
    ];
    if args.warmup > 0 {
        parts.push(format!("--warmup {}", args.warmup));
    }
    if let Some(n) = &args.naive {
        parts.push(format!("--naive {n}"));
    }
    if let Some(b) = &args.body {
        parts.push(format!("--body {}", b.display()));
    }
    parts.push(format!("--action '{}'", args.action));
    if args.interface != "lo" {
        parts.push(format!("--interface {}", args.interface));
    }
    parts.push(format!("--pcap {}", args.pcap.display()));
    parts.join(" ")
}
