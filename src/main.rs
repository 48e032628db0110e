//! The `soapstone` command: serve the seeds' services, load-test any SOAP endpoint, run the
//! baselines, and run the lab that redraws the seeds' tables with today's numbers.
//!
//! Arguments are parsed here (clap) and handed, as each crate's own argument struct, to the
//! crate that does the work; this file holds no logic of its own.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "soapstone",
    version,
    about = "SOAP as fast as binary RPC, and the lab that proves it"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

// Parsed once per process: the size of the largest variant (serve's limits) costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
enum Command {
    /// Serve the seeds' services (charging, dp, echo, contacts, wsb) on one port.
    Serve(soapstone_services::ServeArgs),
    /// Load-test a SOAP endpoint (open or closed loop, the seeds' load shapes).
    Bench(soapstone_bench::BenchArgs),
    /// Run a baseline server: tcp-connect, tcp-pingpong, http-noop, grpc.
    Baseline(soapstone_bench::BaselineArgs),
    /// Run the seeds' experiments and write the report (index.html, results.json, report.md).
    Lab(soapstone_lab::LabArgs),
    /// Read someone else's WSDL: `inspect` lists its services, ports and operations,
    /// `generate` writes Rust code for it.
    Wsdl(soapstone_dynamic::cli::WsdlArgs),
    /// Call an operation of any WSDL with JSON arguments; prints the answer as JSON
    /// (exit code 2 when the service answers with a Fault).
    Call(soapstone_dynamic::cli::CallArgs),
    /// Capture the packets of a few calls to a URL (tcpdump) and print per-call timelines,
    /// naming the stalls (delayed ACK, Nagle, waiting for FIN).
    Trace(soapstone_lab::TraceArgs),
    /// The lab's typed soapstone client (peer-client protocol: URL OP N WARMUP_S WINDOW_S).
    #[command(hide = true)]
    LabClient(soapstone_lab::LabClientArgs),
    /// The emulated LAN's delay line between two network namespaces (started by `lab`).
    #[command(hide = true)]
    LabDelayline(soapstone_lab::DelayLineArgs),
    /// Manage the users file of `serve --auth` (`add NAME --permissions read,move`).
    Users(soapstone_services::UsersArgs),
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("SOAPSTONE_LOG")
                .unwrap_or_else(|_| "warn".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    let mut cli = Cli::parse();
    // The delay line runs its own threads and needs no runtime.
    if let Command::LabDelayline(args) = cli.command {
        return match soapstone_lab::run_delay_line(args) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("soapstone lab-delayline: {e:#}");
                ExitCode::from(1)
            }
        };
    }
    // A bad limit or config file is a usage error, like a bad flag: exit code 2.
    if let Command::Serve(args) = cli.command {
        match args.resolve() {
            Ok(args) => cli.command = Command::Serve(args),
            Err(e) => {
                eprintln!("soapstone serve: {e:#}");
                return ExitCode::from(2);
            }
        }
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("soapstone: cannot start the runtime: {e}");
            return ExitCode::from(70);
        }
    };
    let result = runtime.block_on(async {
        match cli.command {
            Command::Serve(args) => soapstone_services::run_serve(args).await,
            Command::Bench(args) => soapstone_bench::run_cli(args).await,
            Command::Baseline(args) => soapstone_bench::run_baseline_cli(args).await,
            Command::Lab(args) => soapstone_lab::run_cli(args).await,
            Command::Wsdl(args) => soapstone_dynamic::cli::run_wsdl_cli(args).await,
            Command::Call(args) => soapstone_dynamic::cli::run_call_cli(args).await,
            Command::Trace(args) => soapstone_lab::run_trace(args).await,
            Command::LabClient(args) => soapstone_lab::run_lab_client(args).await,
            Command::LabDelayline(_) => unreachable!("handled before the runtime starts"),
            Command::Users(args) => {
                soapstone_services::run_users(args, &mut std::io::stdin().lock())
            }
        }
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("soapstone: {e:#}");
            ExitCode::from(soapstone_dynamic::cli::exit_code(&e))
        }
    }
}
