//! soapstone-bench: the load generator and the baselines.
//!
//! A library first (the lab runs the seeds' experiments through it), with the CLI of
//! `soapstone bench` and `soapstone baseline` on top.
//!
//! * [`run`] takes a [`BenchConfig`] (a [`Target`], a [`Schedule`], connections, warm-up,
//!   timeout) and returns a [`BenchRun`]: a serde [`BenchReport`] plus the merged
//!   HdrHistograms. Open loop is wrk2's: latency counts from the scheduled time
//!   (coordinated omission corrected), and the uncorrected latency is reported beside it.
//!   One task per connection, one recorder per task, merged at the end.
//! * [`Schedule`] holds the seeds' load shapes: Elfwing & Paulsson's none / stress / peak /
//!   traffic and García et al.'s test1 / test2, with time and rate scaling and a small
//!   file format (see the [`schedule`] module).
//! * [`start_baseline`] serves the floor and the yardstick: `tcp-connect`, `tcp-pingpong`,
//!   `http-noop` and `grpc` ([`Baseline`]); the generator speaks to each by URL scheme.
//!
//! The core never prints; only [`run_cli`] and [`run_baseline_cli`] do.
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use std::time::Duration;
//! use soapstone_bench::{run, BenchConfig, Schedule, Target};
//!
//! let target = Target::soap("http://127.0.0.1:8080/soap", std::fs::read("echo.xml")?)?
//!     .with_action("urn:echo");
//! let schedule = Schedule::test1().scale_time(0.1)?; // 30 s instead of 5 min
//! let run = run(BenchConfig::new(target, schedule).connections(8)).await?;
//! println!("p99 {} us, {} ok", run.report.latency.corrected.p99_us, run.report.requests.ok);
//! # Ok(()) }
//! ```

mod baseline;
mod cli;
mod conn;
mod engine;
mod fault;
mod recorder;
mod report;
pub mod schedule;
mod target;
mod wsse;

/// The gRPC messages and service generated from `proto/echo.proto` by tonic-build.
#[allow(missing_docs, unreachable_pub, clippy::all, clippy::pedantic)]
pub mod proto {
    tonic::include_proto!("soapstone.bench");
}

pub use baseline::{start_baseline, Baseline, BaselineServer};
pub use cli::{
    run_baseline_cli, run_cli, BaselineArg, BaselineArgs, BenchArgs, GrpcCallArg, PatternArg,
};
pub use engine::{run, BenchConfig, BenchError, BenchRun, Progress};
pub use fault::is_soap_fault;
pub use report::{
    BenchReport, ErrorCounts, LatencyReport, Percentiles, PhaseReport, RequestCounts, SecondReport,
};
pub use schedule::{Arrivals, Load, Phase, Schedule, ScheduleError};
pub use target::{GrpcCall, NaiveCauses, SoapTarget, SoapVersion, Target, TargetError};
pub use wsse::WsseCredentials;

/// The float `echoFloat` sends by default (SOAPBuilders' test value).
pub const ECHO_FLOAT: f32 = 654.321;
