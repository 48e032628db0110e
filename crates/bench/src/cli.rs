//! `soapstone bench` and `soapstone baseline`: clap arguments, their validation into a
//! [`BenchConfig`] (raw, then validated, as ripgrep does), and the printing.
//!
//! This is the only module that prints. The progress bar goes to stderr and only when
//! stderr is a terminal; the summary goes to stdout (to stderr with `--json -`).

use std::io::{IsTerminal, Write};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context};
use bytes::Bytes;
use clap::ValueEnum;

use crate::baseline::{start_baseline, Baseline};
use crate::engine::{run, BenchConfig, Progress};
use crate::schedule::{parse_duration, Arrivals, Load, Schedule};
use crate::target::{host_port, GrpcCall, NaiveCauses, SoapVersion, Target};
use crate::wsse::WsseCredentials;
use crate::ECHO_FLOAT;

/// A load shape of Elfwing & Paulsson's thesis.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PatternArg {
    /// No pattern: a plain open loop (`--rate R`) or closed loop (`--closed`, the default).
    None,
    /// Closed loop, `--connections` workers (default 5, the thesis's five threads).
    Stress,
    /// 1 s bursts at full speed by `--connections` workers (default 5), one burst every
    /// 2 s on average (Poisson).
    Peak,
    /// Poisson arrivals at `--rate` (default 10/s, the thesis's SOAP λ).
    Traffic,
}

/// The gRPC echo call of a `grpc://` target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum GrpcCallArg {
    /// doNothing().
    DoNothing,
    /// echoFloat(654.321).
    EchoFloat,
    /// getString(--items).
    GetString,
    /// getIntegers(--items).
    GetIntegers,
    /// echo of a float, a string of --items characters and --items integers.
    Echo,
}

/// `soapstone bench URL ...`: a load generator for any SOAP endpoint and the baselines.
#[derive(Clone, Debug, clap::Args)]
pub struct BenchArgs {
    /// http://host:port/path (SOAP POST), tcp://host:port (ping-pong with the tcp-pingpong
    /// baseline), tcp-connect://host:port (connect + close), grpc://host:port (tonic echo)
    pub url: String,
    /// The SOAP envelope to post (http), or the bytes to send (tcp). http: give it several
    /// times, or a directory (its files in name order), and requests rotate over the bodies
    #[arg(long, value_name = "FILE|DIR")]
    pub body: Vec<PathBuf>,
    /// SOAP action (SOAPAction header for 1.1, action parameter for 1.2)
    #[arg(long, value_name = "A")]
    pub soap_action: Option<String>,
    /// Post as SOAP 1.2 (application/soap+xml)
    #[arg(long)]
    pub soap12: bool,
    /// https: trust only the CA certificates of this PEM file (default: the Mozilla roots)
    #[arg(long, value_name = "PEM")]
    pub tls_ca: Option<PathBuf>,
    /// WS-Security: a UsernameToken of this user in every request (a fresh nonce and created
    /// time each), in the envelope's Header
    #[arg(long, value_name = "NAME", requires = "wsse_password_file")]
    pub wsse_user: Option<String>,
    /// WS-Security: the password (or digest secret), the first line of FILE
    #[arg(long, value_name = "FILE", requires = "wsse_user")]
    pub wsse_password_file: Option<PathBuf>,
    /// WS-Security: send PasswordDigest (SHA-1 of nonce, created, password) instead of the
    /// password as text
    #[arg(long, requires = "wsse_user")]
    pub wsse_digest: bool,
    /// Connections, one task each [default: 10 in open loop, 5 for stress and peak, else 1]
    #[arg(long, short = 'c', value_name = "N")]
    pub connections: Option<usize>,
    /// Open loop at R requests/s over all connections (uniform spacing, wrk2 style)
    #[arg(long, value_name = "R", conflicts_with = "closed")]
    pub rate: Option<f64>,
    /// Closed loop: each connection sends its next request when the answer is in
    #[arg(long)]
    pub closed: bool,
    /// A load shape of Elfwing & Paulsson (2002)
    #[arg(long, value_enum, default_value_t = PatternArg::None)]
    pub pattern: PatternArg,
    /// García et al.'s test1 or test2, or a schedule file (text `30s rate 100` lines, or
    /// JSON; see the soapstone-bench docs)
    #[arg(long, value_name = "test1|test2|FILE", conflicts_with_all = ["pattern", "rate", "closed", "duration"])]
    pub schedule: Option<String>,
    /// Time scale of the schedule (0.1 runs test1 in 30 s)
    #[arg(long, value_name = "F", default_value_t = 1.0)]
    pub scale: f64,
    /// Multiplies every open-loop rate
    #[arg(long, value_name = "F", default_value_t = 1.0)]
    pub rate_scale: f64,
    /// Measured duration for --rate, --closed and the patterns [default: 10s]
    #[arg(long, value_name = "D", value_parser = parse_duration)]
    pub duration: Option<Duration>,
    /// Run the first phase's load this long before measuring
    #[arg(long, value_name = "W", value_parser = parse_duration, default_value = "0s")]
    pub warmup: Duration,
    /// Per-request timeout, connect included
    #[arg(long, value_name = "T", value_parser = parse_duration, default_value = "20s")]
    pub timeout: Duration,
    /// Write the report as JSON to OUT (`-` for stdout; the summary then goes to stderr)
    #[arg(long, value_name = "OUT")]
    pub json: Option<PathBuf>,
    /// tcp: bytes per request when no --body is given
    #[arg(long, value_name = "N")]
    pub request_size: Option<usize>,
    /// tcp: bytes per answer (must match the server's)
    #[arg(long, value_name = "M")]
    pub response_size: Option<usize>,
    /// grpc: which echo call
    #[arg(long, value_enum, default_value_t = GrpcCallArg::DoNothing)]
    pub grpc_call: GrpcCallArg,
    /// grpc: items in getString / getIntegers / echo
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub items: u32,
    /// Seed of the Poisson arrivals and bursts
    #[arg(long, value_name = "S")]
    pub seed: Option<u64>,
    /// Generator threads (connections are spread over them)
    #[arg(long, short = 't', value_name = "N", default_value_t = 1)]
    pub threads: usize,
    /// Charge the generator's own timer lateness to the corrected latency (as wrk2 does)
    #[arg(long)]
    pub charge_generator_lateness: bool,
    /// The seeds' client-side causes, for the lab: `read-to-eof`, `connection-per-call`,
    /// `expect-continue`, `all` (comma-separated; http:// only). Hidden: never for a real
    /// measurement of a server
    #[arg(long, hide = true, value_name = "CAUSES")]
    pub naive: Option<String>,
}

impl BenchArgs {
    /// Validates the arguments into a run configuration (reads `--body` and `--schedule`).
    pub fn to_config(&self) -> anyhow::Result<BenchConfig> {
        let target = self.target()?;
        let schedule = self
            .schedule()?
            .scale_time(self.scale)
            .context("invalid `--scale`")?
            .scale_rate(self.rate_scale)
            .context("invalid `--rate-scale`")?;
        let default_connections = if schedule.phases().iter().any(|p| p.load.is_open()) {
            10
        } else {
            1
        };
        let connections = self.connections.unwrap_or(default_connections);
        if connections == 0 {
            bail!("`--connections` must be at least 1");
        }
        if self.threads == 0 {
            bail!("`--threads` must be at least 1");
        }
        let mut config = BenchConfig::new(target, schedule)
            .connections(connections)
            .warmup(self.warmup)
            .timeout(self.timeout)
            .threads(self.threads)
            .charge_generator_lateness(self.charge_generator_lateness);
        if let Some(seed) = self.seed {
            config = config.seed(seed);
        }
        Ok(config)
    }

    /// The UsernameToken of `--wsse-user` and `--wsse-password-file`.
    fn wsse(&self) -> anyhow::Result<Option<WsseCredentials>> {
        let (Some(user), Some(file)) = (&self.wsse_user, &self.wsse_password_file) else {
            return Ok(None);
        };
        let text = std::fs::read_to_string(file)
            .with_context(|| format!("cannot read `--wsse-password-file` `{}`", file.display()))?;
        let password = text.lines().next().unwrap_or("");
        if password.is_empty() {
            bail!(
                "`--wsse-password-file` `{}` has an empty first line",
                file.display()
            );
        }
        Ok(Some(if self.wsse_digest {
            WsseCredentials::digest(user, password)
        } else {
            WsseCredentials::text(user, password)
        }))
    }

    /// Every `--body` file, a directory standing for its files in name order.
    fn bodies(&self) -> anyhow::Result<Vec<Bytes>> {
        let mut bodies = Vec::new();
        for path in &self.body {
            let read = |p: &std::path::Path| {
                std::fs::read(p)
                    .map(Bytes::from)
                    .with_context(|| format!("cannot read `--body {}`", p.display()))
            };
            if !path.is_dir() {
                bodies.push(read(path)?);
                continue;
            }
            let mut files = std::fs::read_dir(path)
                .with_context(|| format!("cannot read `--body {}`", path.display()))?
                .map(|entry| entry.map(|e| e.path()))
                .collect::<Result<Vec<_>, _>>()
                .with_context(|| format!("cannot read `--body {}`", path.display()))?;
            files.retain(|f| f.is_file());
            files.sort();
            if files.is_empty() {
                bail!("`--body {}` is a directory with no files", path.display());
            }
            for f in &files {
                bodies.push(read(f)?);
            }
        }
        Ok(bodies)
    }

    /// The one `--body` of a tcp target, if given.
    fn body(&self) -> anyhow::Result<Option<Bytes>> {
        let mut bodies = self.bodies()?;
        if bodies.len() > 1 {
            bail!(
                "a tcp target sends one fixed request, but `--body` gives {} bodies",
                bodies.len()
            );
        }
        Ok(bodies.pop())
    }

    fn target(&self) -> anyhow::Result<Target> {
        let url = self.url.as_str();
        let scheme = url.split("://").next().unwrap_or("");
        let no_body = |what: &str| -> anyhow::Result<()> {
            if !self.body.is_empty() {
                bail!("`--body` has no use with a `{what}://` target");
            }
            Ok(())
        };
        if self.wsse_user.is_some() && !matches!(scheme, "http" | "https") {
            bail!("`--wsse-user` has no use with a `{scheme}://` target");
        }
        let target = match scheme {
            "http" | "https" => {
                let bodies = self.bodies()?;
                if bodies.is_empty() {
                    bail!("an http target needs `--body FILE` (the SOAP envelope to post)");
                }
                let version = if self.soap12 {
                    SoapVersion::Soap12
                } else {
                    SoapVersion::Soap11
                };
                let mut t = Target::soap_bodies(url, bodies)?.with_version(version);
                if let Some(action) = &self.soap_action {
                    t = t.with_action(action);
                }
                if let Some(ca) = &self.tls_ca {
                    let pem = std::fs::read(ca)
                        .with_context(|| format!("cannot read `--tls-ca` `{}`", ca.display()))?;
                    t = t.with_tls_ca_pem(&pem)?;
                }
                if let Some(credentials) = self.wsse()? {
                    t = t.with_wsse(credentials)?;
                }
                t
            }
            "tcp" => {
                let addr = host_port(url, "tcp")?;
                let request = match (self.body()?, self.request_size) {
                    (Some(body), Some(n)) if body.len() != n => {
                        bail!(
                            "`--request-size {n}` disagrees with `--body`, which holds {} bytes",
                            body.len()
                        )
                    }
                    (Some(body), _) => body,
                    (None, Some(n)) => Bytes::from(vec![b'x'; n]),
                    (None, None) => bail!("a tcp target needs `--body FILE` or `--request-size N`"),
                };
                let response_size = self.response_size.context(
                    "a tcp target needs `--response-size M` (the bytes the server answers with)",
                )?;
                let t = Target::tcp_pingpong(addr, request, response_size);
                t.check()?;
                t
            }
            "tcp-connect" => {
                no_body("tcp-connect")?;
                Target::tcp_connect(host_port(url, "tcp-connect")?)
            }
            "grpc" => {
                no_body("grpc")?;
                let call = match self.grpc_call {
                    GrpcCallArg::DoNothing => GrpcCall::DoNothing,
                    GrpcCallArg::EchoFloat => GrpcCall::EchoFloat(ECHO_FLOAT),
                    GrpcCallArg::GetString => GrpcCall::GetString(self.items),
                    GrpcCallArg::GetIntegers => GrpcCall::GetIntegers(self.items),
                    GrpcCallArg::Echo => GrpcCall::Echo(self.items),
                };
                Target::grpc(host_port(url, "grpc")?, call)
            }
            _ => bail!(
                "unknown target `{url}` (expected http://, tcp://, tcp-connect:// or grpc://)"
            ),
        };
        match &self.naive {
            None => Ok(target),
            Some(list) => {
                let causes = NaiveCauses::parse(list)
                    .map_err(|e| anyhow::anyhow!("invalid `--naive`: {e}"))?;
                Ok(target.with_naive(causes)?)
            }
        }
    }

    fn schedule(&self) -> anyhow::Result<Schedule> {
        if let Some(name) = &self.schedule {
            if let Some(builtin) = Schedule::builtin(name) {
                return Ok(builtin);
            }
            let text = std::fs::read_to_string(name).with_context(|| {
                format!("`--schedule {name}` is neither test1, test2 nor a readable file")
            })?;
            return Schedule::parse(&text)
                .with_context(|| format!("invalid schedule file `{name}`"));
        }
        let duration = self.duration.unwrap_or(Duration::from_secs(10));
        let workers = self.connections.unwrap_or(5);
        let schedule = match self.pattern {
            PatternArg::None => match self.rate {
                Some(rate) => Schedule::single(
                    duration,
                    Load::Open {
                        rate,
                        arrivals: Arrivals::Uniform,
                    },
                ),
                None => Schedule::single(
                    duration,
                    Load::Closed {
                        workers: self.connections.unwrap_or(1),
                    },
                ),
            },
            PatternArg::Stress | PatternArg::Peak if self.rate.is_some() => {
                bail!(
                    "`--rate` does not apply to `--pattern {:?}`, which is closed loop",
                    self.pattern
                )
            }
            PatternArg::Stress => Schedule::stress(duration, workers),
            PatternArg::Peak => Schedule::peak(duration, workers),
            PatternArg::Traffic if self.closed => {
                bail!("`--closed` does not apply to `--pattern traffic`, which is open loop")
            }
            PatternArg::Traffic => Schedule::traffic(duration, self.rate.unwrap_or(10.0)),
        };
        Ok(schedule?)
    }
}

/// Runs `soapstone bench`: validates, runs, prints the summary, writes `--json`.
/// Fails (after reporting) when requests were sent and none succeeded.
pub async fn run_cli(args: BenchArgs) -> anyhow::Result<()> {
    let progress = Arc::new(Progress::default());
    let config = args.to_config()?.progress(progress.clone());
    if let Some(causes) = &args.naive {
        eprintln!(
            "bench: WARNING: calling with the seeds' client causes on (`--naive {causes}`): \
             slow on purpose, for the lab; never a measure of the server"
        );
    }
    let total = config.warmup + config.schedule.duration();
    let bar = std::io::stderr().is_terminal().then(|| progress_bar(total));
    let ticker = bar.clone().map(|bar| {
        let progress = progress.clone();
        tokio::spawn(async move {
            let start = tokio::time::Instant::now();
            loop {
                tokio::time::sleep(Duration::from_millis(200)).await;
                bar.set_position(start.elapsed().as_millis().min(u128::from(u64::MAX)) as u64);
                bar.set_message(format!(
                    "{} ok, {} errors",
                    progress.ok(),
                    progress.errors()
                ));
            }
        })
    });
    let result = run(config).await;
    if let Some(ticker) = ticker {
        ticker.abort();
    }
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let report = result?.report;

    let summary = report.summary();
    let json = serde_json::to_string_pretty(&report).context("cannot encode the report as JSON")?;
    match args.json.as_deref() {
        Some(path) if path.as_os_str() == "-" => {
            eprint!("{summary}");
            println!("{json}");
        }
        Some(path) => {
            print!("{summary}");
            std::fs::write(path, json + "\n")
                .with_context(|| format!("cannot write `--json {}`", path.display()))?;
        }
        None => print!("{summary}"),
    }
    let _ = std::io::stdout().flush();
    if report.requests.sent > 0 && report.requests.ok == 0 {
        bail!("no request succeeded ({} errors)", report.errors.total);
    }
    Ok(())
}

fn progress_bar(total: Duration) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new(total.as_millis().min(u128::from(u64::MAX)) as u64);
    bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "{spinner} [{elapsed_precise}] {wide_bar} {percent}% {msg}",
    ) {
        bar.set_style(style);
    }
    bar
}

/// Which baseline server to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BaselineArg {
    /// Accept and close (TCP setup time)
    TcpConnect,
    /// Answer every --request-size bytes with --response-size bytes
    TcpPingpong,
    /// hyper answering an empty 200
    HttpNoop,
    /// tonic echo service (doNothing, echoFloat, getString, getIntegers, echo)
    Grpc,
}

/// `soapstone baseline SERVER --addr A`: runs a baseline server until Ctrl-C.
#[derive(Clone, Debug, clap::Args)]
pub struct BaselineArgs {
    /// Which server
    #[arg(value_enum)]
    pub server: BaselineArg,
    /// Address to listen on (port 0 picks a free port; the URL is printed)
    #[arg(long, value_name = "A", default_value = "127.0.0.1:0")]
    pub addr: SocketAddr,
    /// tcp-pingpong: bytes per request
    #[arg(long, value_name = "N")]
    pub request_size: Option<usize>,
    /// tcp-pingpong: bytes per answer
    #[arg(long, value_name = "M")]
    pub response_size: Option<usize>,
}

impl BaselineArgs {
    /// The baseline the arguments describe.
    pub fn baseline(&self) -> anyhow::Result<Baseline> {
        let sizes = self.request_size.is_some() || self.response_size.is_some();
        Ok(match self.server {
            BaselineArg::TcpPingpong => match (self.request_size, self.response_size) {
                (Some(request_size), Some(response_size)) => Baseline::TcpPingPong {
                    request_size,
                    response_size,
                },
                _ => bail!("tcp-pingpong needs `--request-size N` and `--response-size M`"),
            },
            _ if sizes => {
                bail!("`--request-size` and `--response-size` apply to tcp-pingpong only")
            }
            BaselineArg::TcpConnect => Baseline::TcpConnect,
            BaselineArg::HttpNoop => Baseline::HttpNoop,
            BaselineArg::Grpc => Baseline::Grpc,
        })
    }
}

/// Runs `soapstone baseline`: starts the server, prints
/// `soapstone baseline KIND listening on URL` on stdout, serves until Ctrl-C.
pub async fn run_baseline_cli(args: BaselineArgs) -> anyhow::Result<()> {
    let kind = args.baseline()?;
    let server = start_baseline(kind, args.addr)
        .await
        .with_context(|| format!("cannot start the {kind} baseline on `{}`", args.addr))?;
    println!(
        "soapstone baseline {kind} listening on {}",
        server.url(kind)
    );
    let _ = std::io::stdout().flush();
    tokio::signal::ctrl_c()
        .await
        .context("cannot wait for Ctrl-C")?;
    server.shutdown().await;
    Ok(())
}
