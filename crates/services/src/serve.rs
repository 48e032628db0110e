//! `soapstone serve`: every seed's service on one port, each on its own path with its WSDL at
//! `?wsdl`, until Ctrl-C (SIGINT) or SIGTERM, then a graceful drain: `/readyz` turns `503`
//! for `--drain-grace` while requests are still served, then the listener closes. `/healthz`
//! and `/readyz` (which also checks the charging store) are for load balancers. Its limits
//! (flags and `--config FILE`) are in [`crate::limits`].
//!
//! Once the socket is bound it prints one line per service and then, last, the machine-readable
//! `listening on http://HOST:PORT` (`https://` with `--tls-cert`; also with `--addr ...:0`, with the real port), so a process
//! that starts it (the lab) can wait for that line and connect. Must never print that line
//! before the socket accepts.

use std::io::Write as _;
use std::net::SocketAddr;

use anyhow::Context as _;
use soapstone_server::{HttpEngine, Runtime, Server, ServerConfig, Tls};

use crate::build::{build_services, CachedService, Db, ServiceKind, ServicesConfig};
use crate::charging::sqlite::SqliteSync;
use crate::charging::SeedConfig;
use crate::limits::LimitArgs;

/// Where the server's connection tasks run (`--runtime`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum RuntimeArg {
    /// On the process's multi-threaded tokio runtime.
    Ambient,
    /// On one dedicated thread (best latency when pinned to one CPU).
    CurrentThread,
    /// One dedicated thread per CPU, each accepting: the default, since a connection then
    /// never wakes another thread (docs/performance.md: 1,239 futex calls and 1,543 eventfd
    /// writes per 20,000 requests at 8 connections with `ambient`, 12 and 15 with this).
    #[default]
    PerCore,
}

/// Which HTTP/1.1 engine serves the connections (`--http`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum HttpArg {
    /// The server's own loop over `httparse` for the common request shape, hyper for the
    /// rest (docs/performance.md has the measurements that made it the default).
    #[default]
    Lean,
    /// hyper for every request.
    Hyper,
}

/// How `serve` authenticates requests (`--auth`, comma-separated: either one admits).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum AuthArg {
    /// No authentication (loopback only, unless `--insecure`).
    None,
    /// WS-Security UsernameToken (text or digest) checked against `--users`.
    Wsse,
    /// A TLS client certificate (`--tls-client-ca`) whose SHA-256 is listed for a user in
    /// `--users`.
    Cert,
}

/// The arguments of `soapstone serve`.
#[derive(Debug, Clone, clap::Args)]
#[non_exhaustive]
pub struct ServeArgs {
    /// Address to listen on; port 0 picks a free port (printed on the `listening on` line).
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub addr: String,
    /// Services to start, comma-separated.
    #[arg(long, value_enum, value_delimiter = ',', default_values_t = ServiceKind::ALL)]
    pub services: Vec<ServiceKind>,
    /// Charging store: a SQLite file (`PATH` or `sqlite://PATH`) or `postgres://user@host:port/db`.
    #[arg(long, default_value = "soapstone-data/charging.db")]
    pub db: String,
    /// Accounts seeded into an empty charging store (ids 1..=N).
    #[arg(long, default_value_t = 10_000)]
    pub accounts: u32,
    /// Most PostgreSQL connections of the charging store.
    #[arg(long, default_value_t = 16)]
    pub pg_connections: usize,
    /// SQLite durability: `full` fsyncs every commit (survives power loss); `normal` survives a
    /// process crash only (no fsync per write).
    #[arg(long, value_enum, default_value_t = SqliteSync::Full)]
    pub sqlite_sync: SqliteSync,
    /// Where connection tasks run.
    #[arg(long, value_enum, default_value_t = RuntimeArg::PerCore)]
    pub runtime: RuntimeArg,
    /// With `--runtime per-core`: this many runtime threads instead of one per available CPU
    /// (more than the CPUs can help a server that shares its CPUs with busy processes; see
    /// docs/performance.md "Round six").
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=4096))]
    pub threads: Option<u16>,
    /// With `--runtime per-core`: one `SO_REUSEPORT` listening socket per thread (the kernel
    /// spreads connections over them) instead of one socket all threads accept from.
    #[arg(long)]
    pub reuse_port: bool,
    /// After answering, a connection alone on its runtime thread looks for the next request
    /// for up to this many microseconds (yielding the CPU between looks) before it sleeps:
    /// spares waking a halted CPU per request on a VM, at the price of that CPU time after
    /// every answer (docs/performance.md, "Round seven, wakeups"). Plain HTTP only. 0: off.
    #[arg(long, value_name = "MICROSECONDS", default_value_t = 0,
          value_parser = clap::value_parser!(u16).range(0..=1000))]
    pub busy_poll_us: u16,
    /// A runtime thread that has answered requests for this many microseconds without once
    /// running out of work yields its CPU before its next request, so that processes sharing
    /// the CPUs (a load generator, a proxy) run at request boundaries instead of at the
    /// kernel's next tick (docs/performance.md, "Round seven, wakeups": at 64 connections with
    /// the load generator on the same CPUs, p99 fell from about 8 ms to 1-3 ms). 0: never.
    #[arg(long, value_name = "MICROSECONDS", default_value_t = 100,
          value_parser = clap::value_parser!(u32).range(0..=1_000_000))]
    pub cpu_slice_us: u32,
    /// While the server has at most this many connections, serve each on a thread of its own
    /// with blocking reads (thread-per-connection, as omniORB and gSOAP do); past that, on the
    /// runtime threads: the shortest round trip for a few busy clients, the same throughput
    /// and tail for a crowd (docs/performance.md, "Round ten"). Plain HTTP on the lean engine
    /// only. 0: never.
    #[arg(long, value_name = "N", default_value_t = 4,
          value_parser = clap::value_parser!(u16).range(0..=soapstone_server::MAX_BLOCKING_CONNECTIONS as i64))]
    pub blocking_connections: u16,
    /// The HTTP/1.1 engine: `lean` (its own loop, hyper for anything unusual) or `hyper`.
    #[arg(long, value_enum, default_value_t = HttpArg::Lean)]
    pub http: HttpArg,
    /// Serve https: the certificate chain (PEM, leaf first). Needs `--tls-key`.
    #[arg(long, value_name = "PEM", requires = "tls_key")]
    pub tls_cert: Option<std::path::PathBuf>,
    /// The private key of `--tls-cert` (PEM: PKCS#8, PKCS#1 or SEC1).
    #[arg(long, value_name = "PEM", requires = "tls_cert")]
    pub tls_key: Option<std::path::PathBuf>,
    /// Ask every client for a certificate chaining to one of these CAs (PEM): mutual TLS.
    #[arg(long, value_name = "PEM", requires = "tls_cert")]
    pub tls_client_ca: Option<std::path::PathBuf>,
    /// Authentication in front of every service: `wsse`, `cert`, or both (`wsse,cert`); the
    /// charging service then refuses any request without a principal with the permission
    /// (`read` for balances, `move` for the rest). Needs `--users`. Default: `none`.
    #[arg(long, value_enum, value_delimiter = ',', default_values_t = [AuthArg::None])]
    pub auth: Vec<AuthArg>,
    /// The users file (TOML, argon2 hashes; `soapstone users add` writes it).
    #[arg(long, value_name = "FILE")]
    pub users: Option<std::path::PathBuf>,
    /// Serve a non-loopback `--addr` without TLS or without authentication (refused
    /// otherwise): anyone who reaches the port can then move money.
    #[arg(long)]
    pub insecure: bool,
    /// Serve `/metrics` on this address only (plain HTTP, its own listener) instead of on the
    /// service port. With `--auth`, the service port has no `/metrics` at all.
    #[arg(long, value_name = "ADDR")]
    pub metrics_addr: Option<String>,
    /// Most WS-Security nonces remembered against replay, each for the token age plus the clock
    /// skew (360 s), about 100 bytes each. Full of live ones, the server answers new tokens
    /// with a Server fault ("retry later") rather than forget one: it admits at most N / 360
    /// UsernameToken requests per second sustained. [default: 100000: ~10 MB, ~278/s]
    #[arg(long, value_name = "N")]
    pub wsse_replay_capacity: Option<usize>,
    /// García's services whose answers are cached, comma-separated: `news`, `shop` (their
    /// answers are pure functions of the request; the card service's never are). Each cached
    /// operation keeps at most `--cache-capacity` answers and `--cache-max-bytes` bytes, each
    /// served for `--cache-ttl` after it was computed.
    /// Needs `wsb` among `--services`. Default: none.
    #[arg(long, value_enum, value_delimiter = ',', value_name = "SERVICES")]
    pub response_cache: Vec<CachedService>,
    /// Every limit (HTTP, XML, timeouts) and `--config FILE`.
    #[command(flatten)]
    pub limits: LimitArgs,
    /// Lab only, hidden: the seeds' server causes on purpose, comma-separated (`nagle`,
    /// `split-writes`, `dom`, `all`); see docs/causes.md. Default: none.
    #[arg(long, hide = true, value_name = "CAUSES")]
    pub naive: Option<String>,
}

impl Default for ServeArgs {
    fn default() -> Self {
        ServeArgs {
            addr: "127.0.0.1:8080".into(),
            services: ServiceKind::ALL.to_vec(),
            db: "soapstone-data/charging.db".into(),
            accounts: 10_000,
            pg_connections: 16,
            sqlite_sync: SqliteSync::Full,
            runtime: RuntimeArg::PerCore,
            threads: None,
            reuse_port: false,
            busy_poll_us: 0,
            blocking_connections: 4,
            cpu_slice_us: 100,
            http: HttpArg::Lean,
            tls_cert: None,
            tls_key: None,
            tls_client_ca: None,
            auth: vec![AuthArg::None],
            users: None,
            insecure: false,
            metrics_addr: None,
            wsse_replay_capacity: None,
            response_cache: Vec::new(),
            limits: LimitArgs::default(),
            naive: None,
        }
    }
}

impl ServeArgs {
    /// Reads `--config FILE` into the arguments (flags win) and checks every value, so that a
    /// bad one is reported before anything starts (`soapstone serve` exits with code 2).
    pub fn resolve(mut self) -> anyhow::Result<ServeArgs> {
        self.limits = self.limits.with_file()?;
        self.to_configs()?;
        Ok(self)
    }

    /// Checks the arguments and turns them into the services' and the server's settings
    /// (reading `--config FILE` if [`Self::resolve`] has not).
    pub fn to_configs(&self) -> anyhow::Result<(ServicesConfig, ServerConfig)> {
        if self.services.is_empty() {
            anyhow::bail!(
                "`--services` is empty: name at least one of charging, dp, echo, contacts, wsb"
            );
        }
        let db: Db = self
            .db
            .parse()
            .with_context(|| format!("bad `--db` value `{}`", self.db))?;
        let mut services = ServicesConfig::default();
        services.services = self.services.clone();
        services.db = db;
        services.seed = SeedConfig::with_accounts(self.accounts);
        services.pg_connections = self.pg_connections.max(1);
        services.sqlite_sync = self.sqlite_sync;
        if !self.response_cache.is_empty() && !self.services.contains(&ServiceKind::Wsb) {
            anyhow::bail!("`--response-cache` caches García's services: add `wsb` to `--services`");
        }
        services.response_cache = self.response_cache.clone();
        let mut server = ServerConfig::default();
        let limits = self.limits.clone().with_file()?;
        limits.apply(&mut server, &mut services.service)?;
        services.charging = limits.charging_policy()?;
        server.runtime = match self.runtime {
            RuntimeArg::Ambient => Runtime::Ambient,
            RuntimeArg::CurrentThread => Runtime::CurrentThread,
            RuntimeArg::PerCore => Runtime::PerCore(self.threads.map_or(0, usize::from)),
        };
        if self.threads.is_some() && self.runtime != RuntimeArg::PerCore {
            anyhow::bail!("`--threads` needs `--runtime per-core`");
        }
        server.reuse_port = self.reuse_port;
        server.busy_poll = std::time::Duration::from_micros(self.busy_poll_us.into());
        server.cpu_slice = std::time::Duration::from_micros(self.cpu_slice_us.into());
        server.blocking_connections = self.blocking_connections.into();
        server.http = match self.http {
            HttpArg::Lean => HttpEngine::Lean,
            HttpArg::Hyper => HttpEngine::Hyper,
        };
        if let Some(list) = &self.naive {
            server.naive = soapstone_server::NaiveModes::parse(list)
                .map_err(|e| anyhow::anyhow!("bad `--naive` value: {e}"))?;
        }
        server.tls = match (&self.tls_cert, &self.tls_key) {
            (Some(cert), Some(key)) => Some(
                Tls::from_pem_files(cert, key, self.tls_client_ca.as_deref())
                    .context("bad `--tls-cert`/`--tls-key`")?,
            ),
            (None, None) if self.tls_client_ca.is_some() => {
                anyhow::bail!("`--tls-client-ca` needs `--tls-cert` and `--tls-key`")
            }
            (None, None) => None,
            _ => anyhow::bail!("`--tls-cert` and `--tls-key` go together"),
        };
        services.auth = self.auth_config()?;
        if services.auth.is_some() || self.metrics_addr.is_some() {
            // Metrics tell load and failures: not on an authenticated port, where they would
            // be open to anyone (they go to `--metrics-addr`, or nowhere).
            server.metrics_path = None;
        }
        self.check_exposure(&server, &services)?;
        Ok((services, server))
    }
}

/// Resolves when the process gets SIGINT (Ctrl-C) or SIGTERM.
async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// Runs `soapstone serve` until Ctrl-C or SIGTERM.
pub async fn run_serve(args: ServeArgs) -> anyhow::Result<()> {
    run_serve_until(args, shutdown_signal()).await
}

/// [`run_serve`] that stops when `shutdown` resolves instead of on a signal (for embedding and
/// tests).
pub async fn run_serve_until(
    args: ServeArgs,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let (services_config, server_config) = args.to_configs()?;
    if server_config.naive.any() {
        eprintln!(
            "warning: naive modes on ({:?}): every response stalls on purpose; lab use only",
            server_config.naive
        );
    }
    let services = build_services(&services_config).await?;
    let listener = tokio::net::TcpListener::bind(&args.addr)
        .await
        .with_context(|| format!("cannot listen on `{}`", args.addr))?;
    let mut builder = Server::builder().config(server_config);
    if let Some(charging) = services.charging() {
        // `/readyz` is 503 while the charging store does not answer (a PostgreSQL restart).
        let store = std::sync::Arc::downgrade(charging.store());
        builder = builder.readiness_probe(move || {
            let store = store.upgrade();
            async move {
                match store {
                    Some(store) => store.ping().await.map_err(|e| e.to_string()),
                    None => Err("the charging store is closed".into()),
                }
            }
        });
    }
    let server = services.mount_on(builder).build();
    let metrics = match &args.metrics_addr {
        Some(addr) => {
            let l = tokio::net::TcpListener::bind(addr)
                .await
                .with_context(|| format!("cannot listen on `--metrics-addr` `{addr}`"))?;
            let local = l.local_addr()?;
            Some((
                local,
                tokio::spawn(crate::metrics_port::serve(l, server.clone())),
            ))
        }
        None => None,
    };
    let tls = server.config().tls.clone();
    let users = services_config
        .auth
        .as_ref()
        .map(|a| a.authenticator.clone());
    let reload = (tls.is_some() || users.is_some())
        .then(|| tokio::spawn(crate::serve_security::reload_on_hangup(tls, users)));
    let serving = server
        .serve_with_shutdown(listener, shutdown)
        .context("cannot start the server")?;
    if let Some((addr, _)) = &metrics {
        println!("metrics   http://{addr}/metrics");
    }
    let scheme = if args.tls_cert.is_some() {
        "https"
    } else {
        "http"
    };
    print_banner(scheme, serving.local_addr(), &services)?;
    let result = serving.await.context("server failed");
    if let Some((_, task)) = metrics {
        task.abort();
    }
    if let Some(task) = reload {
        task.abort();
    }
    // Dropping the services closes the charging store (the SQLite writer finishes and closes).
    drop(services);
    println!("stopped");
    result
}

fn print_banner(
    scheme: &str,
    addr: SocketAddr,
    services: &crate::build::Services,
) -> anyhow::Result<()> {
    let base = format!("{scheme}://{addr}");
    let mut out = std::io::stdout().lock();
    for m in services.mounts() {
        writeln!(
            out,
            "{:<9} {base}{:<12} wsdl: {base}{}?wsdl",
            m.kind.as_str(),
            m.path,
            m.path
        )?;
    }
    if let Some(charging) = services.charging() {
        writeln!(out, "charging store: {}", charging.store().describe())?;
    }
    writeln!(out, "listening on {base}")?;
    out.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{CommandFactory as _, Parser};

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        serve: ServeArgs,
    }

    fn server(args: &[&str]) -> anyhow::Result<ServerConfig> {
        let cli = Cli::try_parse_from(std::iter::once("serve").chain(args.iter().copied()))?;
        Ok(cli.serve.to_configs()?.1)
    }

    #[test]
    fn per_core_runtime_by_default() {
        assert_eq!(server(&[]).unwrap().runtime, Runtime::PerCore(0));
        assert_eq!(ServeArgs::default().runtime, RuntimeArg::PerCore);
        let ambient = server(&["--runtime", "ambient"]).unwrap().runtime;
        assert_eq!(ambient, Runtime::Ambient);
    }

    #[test]
    fn threads_set_the_per_core_count_and_need_per_core() {
        assert_eq!(
            server(&["--threads", "4"]).unwrap().runtime,
            Runtime::PerCore(4)
        );
        let e = server(&["--runtime", "ambient", "--threads", "4"]).unwrap_err();
        assert!(
            e.to_string()
                .contains("`--threads` needs `--runtime per-core`"),
            "{e}"
        );
    }

    #[test]
    fn busy_poll_is_off_by_default_and_bounded_by_a_millisecond() {
        use std::time::Duration;
        assert_eq!(server(&[]).unwrap().busy_poll, Duration::ZERO);
        let on = server(&["--busy-poll-us", "50"]).unwrap().busy_poll;
        assert_eq!(on, Duration::from_micros(50));
        let e = server(&["--busy-poll-us", "1001"]).unwrap_err();
        assert!(e.to_string().contains("1001"), "{e}");
    }

    #[test]
    fn four_blocking_connections_by_default_bounded_and_zero_for_none() {
        assert_eq!(server(&[]).unwrap().blocking_connections, 4);
        let off = server(&["--blocking-connections", "0"]).unwrap();
        assert_eq!(off.blocking_connections, 0);
        let e = server(&["--blocking-connections", "1025"]).unwrap_err();
        assert!(e.to_string().contains("1025"), "{e}");
    }

    #[test]
    fn cpu_slice_in_microseconds_100_by_default() {
        use std::time::Duration;
        assert_eq!(server(&[]).unwrap().cpu_slice, Duration::from_micros(100));
        assert_eq!(ServeArgs::default().cpu_slice_us, 100);
        let off = server(&["--cpu-slice-us", "0"]).unwrap().cpu_slice;
        assert_eq!(off, Duration::ZERO);
        let on = server(&["--cpu-slice-us", "200"]).unwrap().cpu_slice;
        assert_eq!(on, Duration::from_micros(200));
        assert!(server(&["--cpu-slice-us", "-1"]).is_err());
    }

    #[test]
    fn lean_http_by_default_and_hyper_by_flag() {
        assert_eq!(server(&[]).unwrap().http, HttpEngine::Lean);
        assert_eq!(ServeArgs::default().http, HttpArg::Lean);
        let hyper = server(&["--http", "hyper"]).unwrap().http;
        assert_eq!(hyper, HttpEngine::Hyper);
    }

    #[test]
    fn response_cache_by_flag_never_for_the_card() {
        let services = |args: &[&str]| -> anyhow::Result<ServicesConfig> {
            let cli = Cli::try_parse_from(std::iter::once("serve").chain(args.iter().copied()))?;
            Ok(cli.serve.to_configs()?.0)
        };
        let off = services(&[]).unwrap();
        assert!(off.response_cache.is_empty());
        assert_eq!(
            off.cached_service_config(CachedService::News)
                .cache_capacity,
            0
        );
        let on = services(&["--response-cache", "news,shop", "--cache-capacity", "8"]).unwrap();
        assert_eq!(
            on.response_cache,
            [CachedService::News, CachedService::Shop]
        );
        assert_eq!(
            on.cached_service_config(CachedService::Shop).cache_capacity,
            8
        );
        let bytes = services(&["--response-cache", "news", "--cache-max-bytes", "1MiB"]).unwrap();
        let news = bytes.cached_service_config(CachedService::News);
        assert_eq!((news.cache_capacity, news.cache_max_bytes), (1024, 1 << 20));
        assert_eq!(
            bytes
                .cached_service_config(CachedService::Shop)
                .cache_capacity,
            0
        );
        let card = services(&["--response-cache", "card"])
            .unwrap_err()
            .to_string();
        assert!(card.contains("`card`") || card.contains("'card'"), "{card}");
        assert!(card.contains("news") && card.contains("shop"), "{card}");
        let e = services(&["--services", "dp", "--response-cache", "news"])
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "`--response-cache` caches García's services: add `wsb` to `--services`"
        );
        let ttl = |args: &[&str]| services(args).map(|c| c.service.cache_ttl);
        assert_eq!(
            ttl(&["--response-cache", "news"]).unwrap(),
            Some(std::time::Duration::from_secs(60)),
            "default"
        );
        assert_eq!(
            ttl(&["--response-cache", "news", "--cache-ttl", "5m"]).unwrap(),
            Some(std::time::Duration::from_secs(300))
        );
        assert_eq!(
            ttl(&["--response-cache", "news", "--cache-ttl", "off"]).unwrap(),
            None
        );
        let e = ttl(&["--response-cache", "news", "--cache-ttl", "1ms"])
            .unwrap_err()
            .to_string();
        assert!(e.contains("`--cache-ttl` must be between 10ms"), "{e}");
        let e = services(&["--response-cache", "news", "--cache-max-bytes", "10"])
            .unwrap_err()
            .to_string();
        assert!(e.contains("`--cache-max-bytes`"), "{e}");
    }

    #[test]
    fn naive_modes_only_by_the_hidden_flag() {
        assert!(!server(&[]).unwrap().naive.any());
        let on = server(&["--naive", "nagle,split-writes"]).unwrap().naive;
        assert_eq!(on, soapstone_server::NaiveModes::all());
        let e = server(&["--naive", "slow"]).unwrap_err().to_string();
        assert!(e.contains("`--naive`") && e.contains("`slow`"), "{e}");
        let help = Cli::command().render_long_help().to_string();
        assert!(!help.contains("naive"), "{help}");
    }
}
