//! soapstone-lab: reruns the five seed studies of SOAP performance (2001-2008) against real
//! processes on loopback and writes `index.html`, `results.json` and `report.md`, each seed table
//! redrawn with today's numbers beside the published ones.
//!
//! # How it measures, and why that way
//!
//! Every server under test is a separate process (`soapstone serve`, `soapstone baseline ...`,
//! spawned from the same executable), and so is every measuring client: the lab spawns
//! `soapstone bench ... --json FILE` for each point and reads the JSON it writes. Each child is
//! pinned with `taskset -c`: servers to one CPU, the client to the same CPU (the "same CPU"
//! figures) or to the other one ("cross-CPU"). We chose separate client processes over calling
//! the bench library in-process because
//!
//! - pinning a whole process with `taskset` is exact and needs no `unsafe` affinity call, while
//!   pinning the lab process would also pin its own runtime, file writing and bookkeeping onto
//!   the CPU being measured;
//! - each point starts from a cold, identical client (no pooled connection, allocator state or
//!   histogram left over from the previous point);
//! - the lab measures through the very command a user runs, and records that command line
//!   with each result so any number can be reproduced by hand.
//!
//! The parse experiment is the exception: parsing is CPU-only and in-process by nature, so it is
//! timed in the lab process (or read from criterion's output when present).
//!
//! This crate must never hard-code a result: every "today" figure comes from a measurement of
//! this run, and an experiment that cannot run is reported as a problem with empty cells.

mod capture;
mod config;
pub mod delayline;
mod driver;
mod experiments;
mod lab_client;
pub mod netem;
mod netem_line;
mod pcap;
mod peers;
mod procs;
mod report;
mod results;
pub mod seeds;
mod timeline;
mod trace;

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context as _;

pub use config::{parse_duration, Experiment, LabConfig, Timing};
pub use delayline::{run_delay_line, DelayLineArgs, LineStats};
pub use lab_client::{run_lab_client, LabClientArgs};
pub use peers::SystemInfo;
pub use results::{
    Host, InteropCheck, Placement, PlacementKind, Results, Run, Second, Settings, TraceRecord,
};
pub use timeline::{CallTimeline, TimelinePacket};
pub use trace::{run_trace, TraceArgs};

/// `soapstone lab`: run the seed studies' experiments and write the report.
#[derive(Debug, Clone, clap::Args)]
#[non_exhaustive]
pub struct LabArgs {
    /// Short measurement windows (finishes in under 5 minutes on 2 cores); same experiments
    /// except `cluster` (about 100 s even quick: ask for it with `--only cluster`).
    #[arg(long)]
    pub quick: bool,

    /// Directory for index.html, results.json, report.md (and logs/, bodies/).
    #[arg(long, value_name = "DIR", default_value = "lab-out")]
    pub out: PathBuf,

    /// Run only these experiments (comma-separated): echo, round2, dp, thesis, contacts, wsb,
    /// parse, clients, causes, cluster, tls.
    #[arg(long, value_name = "EXPERIMENTS", value_delimiter = ',')]
    pub only: Vec<String>,

    /// Measured window of every latency/throughput point, overriding the preset (e.g. `0.2s`).
    #[arg(long, value_name = "DURATION")]
    pub duration: Option<String>,

    /// Warm-up before each point, not counted (e.g. `100ms`; `0` for none).
    #[arg(long, value_name = "DURATION")]
    pub warmup: Option<String>,

    /// Time scale of García et al.'s 5-minute load tests (e.g. `0.02` runs each in 6 s).
    #[arg(long, value_name = "FACTOR")]
    pub wsb_scale: Option<f64>,

    /// The two CPUs to use: servers (and same-CPU clients) on the first, cross-CPU clients and
    /// background load on the second.
    #[arg(long, value_name = "A,B", default_value = "0,1")]
    pub cpus: String,

    /// Where to look for criterion's results for the parse experiment.
    #[arg(long, value_name = "DIR")]
    pub criterion_dir: Option<PathBuf>,

    /// The peer manifest written by lab/peers/setup.sh (`none`: run no third-party peer).
    /// Default: lab/peers/build/manifest.json.
    #[arg(long, value_name = "MANIFEST")]
    pub peers: Option<String>,

    /// The emulated LAN of Davis & Parashar's separate-host tables (II, IV, VI) and of the
    /// causes section: `on` creates two network namespaces joined by netem or, where the
    /// kernel has none, by the delay line (`lab-delayline`, two TUN devices); needs root;
    /// without it the report says so and the rest runs. `off` skips those parts.
    #[arg(long, value_name = "on|off", default_value = "on")]
    pub lan: String,

    /// The emulated LAN's rate in Mbit/s, each direction. Default: 10 (Davis & Parashar's
    /// "10 Mbps LAN with only these two hosts").
    #[arg(long, value_name = "MBIT")]
    pub lan_rate_mbit: Option<u32>,

    /// The emulated LAN's one-way delay in µs, added after each packet's serialization.
    /// Default: 50 (docs/lab.md says how it was derived).
    #[arg(long, value_name = "US")]
    pub lan_delay_us: Option<u32>,

    /// Measure nothing: redraw index.html and report.md in --out from this results.json.
    #[arg(long, value_name = "RESULTS_JSON")]
    pub from: Option<PathBuf>,

    /// The soapstone executable to spawn (default: this one).
    #[arg(long, value_name = "PATH", hide = true)]
    pub exe: Option<PathBuf>,
}

/// Entry point of `soapstone lab`: validates the arguments, runs, prints where the report is.
pub async fn run_cli(args: LabArgs) -> anyhow::Result<()> {
    if let Some(from) = &args.from {
        render_from(from, &args.out)?;
        eprintln!(
            "lab: report redrawn: {}",
            args.out.join("index.html").display()
        );
        return Ok(());
    }
    let cfg = LabConfig::from_args(&args)?;
    let started = Instant::now();
    let results = run(&cfg).await?;
    eprintln!(
        "lab: {} runs in {:.0} s{}; report: {}",
        results.runs.len(),
        started.elapsed().as_secs_f64(),
        if results.problems.is_empty() {
            String::new()
        } else {
            format!(
                ", {} problem(s) (listed in the report)",
                results.problems.len()
            )
        },
        cfg.out.join("index.html").display()
    );
    Ok(())
}

/// Runs the configured experiments and writes `index.html`, `results.json` and `report.md` to
/// `cfg.out`. Returns the results. A failing experiment does not stop the others: it is
/// recorded in [`Results::problems`].
pub async fn run(cfg: &LabConfig) -> anyhow::Result<Results> {
    std::fs::create_dir_all(&cfg.out)
        .with_context(|| format!("cannot create the output directory `{}`", cfg.out.display()))?;
    let results = experiments::run_all(cfg).await?;
    write_outputs(cfg, &results)?;
    Ok(results)
}

/// Renders and writes the three outputs from `results`.
pub fn write_outputs(cfg: &LabConfig, results: &Results) -> anyhow::Result<()> {
    let sections = experiments::sections(results);
    let report = report::Report::build(results, sections);
    let write = |name: &str, text: String| {
        let path = cfg.out.join(name);
        std::fs::write(&path, text).with_context(|| format!("cannot write `{}`", path.display()))
    };
    write(
        "results.json",
        serde_json::to_string_pretty(results).context("cannot serialize the results")?,
    )?;
    write("report.md", report::markdown::render(&report))?;
    write("index.html", report::html::render(&report))?;
    Ok(())
}

/// Reads a `results.json` written by the lab.
pub fn read_results(path: &std::path::Path) -> anyhow::Result<Results> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read `{}`", path.display()))?;
    serde_json::from_str(&text)
        .with_context(|| format!("`{}` is not a lab results file", path.display()))
}

/// Re-renders `index.html` and `report.md` from an existing `results.json` (no measurement).
pub fn render_from(results_json: &std::path::Path, out: &std::path::Path) -> anyhow::Result<()> {
    let results = read_results(results_json)?;
    let mut cfg = LabConfig::new(PathBuf::new());
    cfg.out = out.to_owned();
    std::fs::create_dir_all(out)
        .with_context(|| format!("cannot create the output directory `{}`", out.display()))?;
    write_outputs(&cfg, &results)
}
