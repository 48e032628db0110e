//! The experiments, one module per seed study, and the context they share ([`Lab`]): the
//! launcher, the CPU placements, the output folders, and the list of runs and problems.
//!
//! Each module has a `run(&mut Lab)` that measures and pushes [`Run`]s, and a
//! `section(&Results)` that redraws the study's tables from those runs (and only from them).
//! A failing point or experiment is recorded as a problem and the lab goes on: one missing
//! service must not cost the user the other five experiments. This module must never fill a
//! "today" value that no run measured.

pub(crate) mod causes;
mod causes_bench;
mod causes_report;
pub(crate) mod charging_calls;
pub(crate) mod clients;
pub(crate) mod cluster;
mod cluster_load;
mod cluster_pg;
mod cluster_report;
pub(crate) mod contacts;
mod contacts_servers;
mod contacts_tables;
pub(crate) mod dp;
mod dp_lan;
pub(crate) mod dp_peers;
pub(crate) mod echo;
mod echo_peers;
pub(crate) mod parse;
pub(crate) mod peers_table;
pub(crate) mod round2;
pub(crate) mod thesis;
pub(crate) mod thesis_peers;
pub(crate) mod thesis_pool;
pub(crate) mod thesis_report;
pub(crate) mod tls;
pub(crate) mod wsb;
pub(crate) mod wsb_cache;
mod wsb_cache_report;
mod wsb_peers;

use std::path::PathBuf;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::Context as _;

use crate::config::{Experiment, LabConfig};
use crate::driver::{self, BenchSpec};
use crate::peers::{Discovery, SystemInfo};
use crate::procs::{find_taskset, Launcher, Server};
use crate::report::Section;
use crate::results::{Host, Placement, PlacementKind, Results, Run};

/// How long a server may take to print `listening on` (or a peer to open its port).
pub(crate) const READY: Duration = Duration::from_secs(20);

/// Where the client of a point runs relative to the server.
#[derive(Debug, Clone)]
pub(crate) struct Pin {
    pub(crate) kind: PlacementKind,
    pub(crate) server: String,
    pub(crate) client: String,
}

impl Pin {
    pub(crate) fn placement(&self, load: Option<&str>) -> Placement {
        Placement {
            kind: self.kind,
            server_cpu: Some(self.server.clone()),
            client_cpu: Some(self.client.clone()),
            load_cpu: load.map(str::to_owned),
        }
    }
}

/// The shared state of one lab run.
pub(crate) struct Lab {
    pub(crate) cfg: LabConfig,
    pub(crate) launcher: Launcher,
    pub(crate) bodies: PathBuf,
    pub(crate) runs: Vec<Run>,
    pub(crate) problems: Vec<String>,
    /// The third-party peers found in the manifest, and every known peer's status.
    pub(crate) peers: Discovery,
    /// The packet captures of the causes section.
    pub(crate) traces: Vec<crate::results::TraceRecord>,
    /// What the separate-host points ran on, or why they did not (`results.json` → `lan`).
    pub(crate) lan: Option<String>,
    /// The cluster experiment's timelines, or why it did not run.
    pub(crate) cluster: Option<crate::results::ClusterRecord>,
    /// The Round 2 answers checked (right, or wrong with the reason).
    pub(crate) interop: Vec<crate::results::InteropCheck>,
    cpus: usize,
}

impl Lab {
    /// Same-CPU and cross-CPU placements (cross-CPU only when the machine has two CPUs).
    pub(crate) fn pins(&self) -> Vec<Pin> {
        let mut pins = vec![Pin {
            kind: PlacementKind::SameCpu,
            server: self.cfg.server_cpu.clone(),
            client: self.cfg.server_cpu.clone(),
        }];
        if self.cpus > 1 {
            pins.push(Pin {
                kind: PlacementKind::CrossCpu,
                server: self.cfg.server_cpu.clone(),
                client: self.cfg.other_cpu.clone(),
            });
        }
        pins
    }

    /// The CPU background load generators run on.
    pub(crate) fn load_cpu(&self) -> String {
        if self.cpus > 1 {
            self.cfg.other_cpu.clone()
        } else {
            self.cfg.server_cpu.clone()
        }
    }

    /// Writes a request body under `OUT/bodies/` and returns its path.
    pub(crate) fn body(&self, name: &str, content: &str) -> anyhow::Result<PathBuf> {
        let path = self.bodies.join(name);
        std::fs::write(&path, content)
            .with_context(|| format!("cannot write `{}`", path.display()))?;
        Ok(path)
    }

    /// Starts `soapstone serve` with `services`, pinned to the server CPU.
    pub(crate) async fn serve(&self, services: &[&str]) -> anyhow::Result<Server> {
        let cpus = self.cfg.server_cpu.clone();
        self.serve_on(services, &cpus).await
    }

    /// Both CPUs (`0,1`) when the machine has two, for a server given the whole machine.
    pub(crate) fn both_cpus(&self) -> Option<String> {
        (self.cpus > 1).then(|| format!("{},{}", self.cfg.server_cpu, self.cfg.other_cpu))
    }

    /// Starts `soapstone serve` with `services`, pinned to `cpus` (`0`, or `0,1`).
    pub(crate) async fn serve_on(&self, services: &[&str], cpus: &str) -> anyhow::Result<Server> {
        let mut args: Vec<String> = vec![
            "serve".into(),
            "--addr".into(),
            "127.0.0.1:0".into(),
            "--services".into(),
            services.join(","),
        ];
        if services.contains(&"charging") {
            let db = self.cfg.out.join("charging.sqlite");
            for suffix in ["", "-wal", "-shm"] {
                let _ = std::fs::remove_file(format!("{}{suffix}", db.display()));
            }
            args.push("--db".into());
            args.push(db.display().to_string());
        }
        Server::start(
            &self.launcher,
            &format!("serve-{}", services.join("-")),
            Some(cpus),
            &args,
            READY,
        )
        .await
    }

    /// Starts `soapstone baseline KIND`, pinned to the server CPU.
    pub(crate) async fn baseline(&self, kind: &str) -> anyhow::Result<Server> {
        self.baseline_with(kind, &[]).await
    }

    /// Starts the tcp-pingpong baseline answering `request` bytes with `response` bytes.
    pub(crate) async fn pingpong(&self, request: u64, response: u64) -> anyhow::Result<Server> {
        let sizes = [
            "--request-size".to_owned(),
            request.to_string(),
            "--response-size".to_owned(),
            response.to_string(),
        ];
        self.baseline_with("tcp-pingpong", &sizes).await
    }

    async fn baseline_with(&self, kind: &str, extra: &[String]) -> anyhow::Result<Server> {
        let mut args: Vec<String> = vec![
            "baseline".into(),
            kind.into(),
            "--addr".into(),
            "127.0.0.1:0".into(),
        ];
        args.extend(extra.iter().cloned());
        Server::start(
            &self.launcher,
            &format!("baseline-{kind}"),
            Some(&self.cfg.server_cpu),
            &args,
            READY,
        )
        .await
    }

    /// Runs one bench point with the client on `client_cpu` and records it as a run of
    /// `system`/`experiment`/`operation`; a failure becomes a problem. Returns the run index.
    pub(crate) async fn measure(
        &mut self,
        ids: (&str, &str, &str),
        placement: Placement,
        spec: &BenchSpec,
    ) -> Option<usize> {
        let launcher = self.launcher.clone();
        self.measure_on(&launcher, ids, placement, spec).await
    }

    /// [`Lab::measure_on`] for a slow system: a sequential point that answered fewer than
    /// [`MIN_SAMPLES`](crate::report::suspect::MIN_SAMPLES) calls is measured again, once, in a
    /// window sized for that many at the first point's mean call (×1.5), capped at 1.5 s with
    /// `--quick` and 5 s otherwise; the first point is dropped. SOAP::Lite's 44 ms calls left
    /// 13 calls in a quick 0.6 s window: a p99 that is only the slowest of 13. A point still
    /// short after that stays flagged.
    pub(crate) async fn measure_enough(
        &mut self,
        launcher: &Launcher,
        ids: (&str, &str, &str),
        placement: Placement,
        spec: &BenchSpec,
    ) -> Option<usize> {
        let i = self
            .measure_on(launcher, ids, placement.clone(), spec)
            .await?;
        let driver::Load::Sequential { duration, warmup } = spec.load else {
            return Some(i);
        };
        let first = &self.runs[i];
        let Some(window) = retry_window(first.ok, first.mean_us, duration, self.cfg.quick) else {
            return Some(i);
        };
        self.runs.remove(i);
        let mut again = spec.clone();
        again.load = driver::Load::Sequential {
            duration: window,
            warmup,
        };
        self.measure_on(launcher, ids, placement, &again).await
    }

    /// [`Lab::measure`] with the bench started by `launcher` (one side of the emulated LAN).
    pub(crate) async fn measure_on(
        &mut self,
        launcher: &Launcher,
        ids: (&str, &str, &str),
        placement: Placement,
        spec: &BenchSpec,
    ) -> Option<usize> {
        let (system, experiment, operation) = ids;
        let client_cpu = placement.client_cpu.clone();
        match driver::bench(launcher, client_cpu.as_deref(), spec).await {
            Ok(outcome) => {
                let run = outcome.into_run(system, experiment, operation, placement, spec);
                self.runs.push(run);
                Some(self.runs.len() - 1)
            }
            Err(e) => {
                let load = spec
                    .background
                    .as_deref()
                    .map(|b| format!(", {b} load"))
                    .unwrap_or_default();
                self.problem(format!(
                    "{experiment}: {system} {operation} ({}{load}) was not measured: {e:#}",
                    placement.kind.label()
                ));
                None
            }
        }
    }

    /// Records how using peer `id` in `experiment` went: a failure becomes a problem.
    pub(crate) fn peer_outcome(&mut self, experiment: &str, id: &str, r: anyhow::Result<()>) {
        match r {
            Ok(()) => self.peers.mark(id, None),
            Err(e) => {
                let reason = format!("{e:#}");
                self.problem(format!(
                    "{experiment}: peer {id} was not measured: {reason}"
                ));
                self.peers.mark(id, Some(reason));
            }
        }
    }

    pub(crate) fn problem(&mut self, p: String) {
        eprintln!("lab: {p}");
        self.problems.push(p);
    }
}

/// Runs the configured experiments in order and collects the results.
pub(crate) async fn run_all(cfg: &LabConfig) -> anyhow::Result<Results> {
    let started = Instant::now();
    let log_dir = cfg.out.join("logs");
    let bodies = cfg.out.join("bodies");
    for d in [&log_dir, &bodies] {
        std::fs::create_dir_all(d).with_context(|| format!("cannot create `{}`", d.display()))?;
    }
    if !cfg.exe.is_file() {
        anyhow::bail!(
            "the soapstone executable `{}` does not exist",
            cfg.exe.display()
        );
    }
    let host = Host::detect();
    // Read before measuring: the tree may change while a long run goes on.
    let commit = commit();
    let mut lab = Lab {
        cfg: cfg.clone(),
        launcher: Launcher {
            exe: cfg.exe.clone(),
            taskset: find_taskset(),
            log_dir,
            wrap: Vec::new(),
        },
        bodies,
        runs: Vec::new(),
        problems: Vec::new(),
        peers: Discovery::load(cfg.peers.as_deref()),
        traces: Vec::new(),
        lan: None,
        cluster: None,
        interop: Vec::new(),
        cpus: host.cpus,
    };
    if lab.launcher.taskset.is_none() {
        lab.problem(
            "`taskset` was not found (util-linux): every process ran unpinned, so same-CPU and \
             cross-CPU figures are not what their labels say"
                .to_owned(),
        );
    }
    if host.cpus < 2 {
        lab.problem("this machine has one CPU: only same-CPU figures were measured".to_owned());
    }
    for exp in &cfg.experiments {
        let t = Instant::now();
        eprintln!("lab: {exp} ...");
        let result = match exp {
            Experiment::Echo => echo::run(&mut lab).await,
            Experiment::Dp => dp::run(&mut lab).await,
            Experiment::Thesis => thesis::run(&mut lab).await,
            Experiment::Contacts => contacts::run(&mut lab).await,
            Experiment::Wsb => wsb::run(&mut lab).await,
            Experiment::WsbCache => wsb_cache::run(&mut lab).await,
            Experiment::Parse => parse::run(&mut lab).await,
            Experiment::Clients => clients::run(&mut lab).await,
            Experiment::Causes => causes::run(&mut lab).await,
            Experiment::Cluster => cluster::run(&mut lab).await,
            Experiment::Tls => tls::run(&mut lab).await,
            Experiment::Round2 => round2::run(&mut lab).await,
        };
        if let Err(e) = result {
            lab.problem(format!("{exp}: the experiment could not run: {e:#}"));
        }
        eprintln!("lab: {exp} done in {:.1} s", t.elapsed().as_secs_f64());
    }
    Ok(Results {
        version: env!("CARGO_PKG_VERSION").to_owned(),
        quick: cfg.quick,
        started_unix: SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0)
            .saturating_sub(started.elapsed().as_secs()),
        elapsed_s: started.elapsed().as_secs_f64(),
        host,
        experiments: cfg.experiments.iter().map(|e| e.id().to_owned()).collect(),
        problems: lab.problems,
        peer_setup_s: lab.peers.setup.as_ref().map(|(s, _)| *s),
        traces: lab.traces,
        systems: systems(&lab.runs, lab.peers.systems),
        runs: lab.runs,
        commit,
        lan: lab.lan,
        cluster: lab.cluster,
        interop: lab.interop,
    })
}

/// The commit of the working directory's git checkout (`-dirty` with uncommitted changes to
/// tracked files), read when the lab runs: the report's "This run" names it.
fn commit() -> Option<String> {
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
    };
    let head = git(&["rev-parse", "--short=12", "HEAD"]).filter(|h| !h.is_empty())?;
    let dirty =
        git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
    Some(if dirty { format!("{head}-dirty") } else { head })
}

/// The longer window a sequential point of `ok` calls (mean `mean_us`) in `window` is measured
/// again in ([`Lab::measure_enough`]), or `None` when it had enough calls or no longer window is
/// allowed: room for 1.5 × [`MIN_SAMPLES`](crate::report::suspect::MIN_SAMPLES) calls at that
/// mean, capped at 1.5 s with `--quick`, 5 s otherwise.
fn retry_window(ok: u64, mean_us: f64, window: Duration, quick: bool) -> Option<Duration> {
    use crate::report::suspect::MIN_SAMPLES;
    if ok >= MIN_SAMPLES {
        return None;
    }
    let mean_s = if ok > 0 && mean_us.is_finite() && mean_us > 0.0 {
        mean_us / 1e6
    } else {
        window.as_secs_f64()
    };
    let cap = Duration::from_secs_f64(if quick { 1.5 } else { 5.0 });
    let want = Duration::from_secs_f64((mean_s * MIN_SAMPLES as f64 * 1.5).min(3600.0));
    let longer = want.clamp(window, cap.max(window));
    (longer > window).then_some(longer)
}

#[cfg(test)]
#[test]
fn a_slow_point_is_measured_again_in_a_window_sized_for_thirty_calls() {
    let quick = Duration::from_millis(600);
    // SOAP::Lite: 13 calls of 44 ms in 0.6 s: again in 1.5 s (30 × 1.5 × 44 ms = 1.98 s, capped).
    assert_eq!(
        retry_window(13, 44_000.0, quick, true),
        Some(Duration::from_millis(1500))
    );
    // Full preset: 13 calls of 150 ms in 2 s; 6.75 s wanted, capped at 5 s.
    assert_eq!(
        retry_window(13, 150_000.0, Duration::from_secs(2), false),
        Some(Duration::from_secs(5))
    );
    // 20 calls of 25 ms: 1.125 s is enough.
    let w = retry_window(20, 25_000.0, quick, true).unwrap();
    assert!((w.as_secs_f64() - 1.125).abs() < 1e-9, "{w:?}");
    // Enough calls, or a window already at the cap: measured once.
    assert_eq!(retry_window(30, 44_000.0, quick, true), None);
    assert_eq!(retry_window(3, 1e6, Duration::from_secs(2), true), None);
    // No call at all: the window itself is the best guess of a call.
    assert_eq!(
        retry_window(0, f64::NAN, quick, true),
        Some(Duration::from_millis(1500))
    );
}

/// soapstone and the baselines that ran, then the peers (each with its status).
fn systems(runs: &[Run], peers: Vec<SystemInfo>) -> Vec<SystemInfo> {
    let own = [
        (
            "soapstone",
            "soapstone (this build)",
            "server",
            "soap-http",
            "the system under test",
        ),
        (
            clients::TYPED,
            "soapstone Client (typed DpClient, this build)",
            "client",
            "soap-http",
            "Zilora & Ketha's client table: soapstone as a user calls it",
        ),
        (
            "tcp-connect",
            "soapstone baseline tcp-connect",
            "baseline",
            "tcp",
            "TCP setup time",
        ),
        (
            "tcp-pingpong",
            "soapstone baseline tcp-pingpong",
            "baseline",
            "tcp",
            "the raw TCP floor",
        ),
        (
            "http-noop",
            "soapstone baseline http-noop (hyper)",
            "baseline",
            "http",
            "HTTP to Tomcat/IIS",
        ),
        (
            "grpc",
            "soapstone baseline grpc (tonic)",
            "baseline",
            "grpc",
            "binary RPC of today",
        ),
    ];
    let mut out = Vec::new();
    for (id, name, role, transport, stands_for) in own {
        if runs.iter().any(|r| r.system == id) {
            out.push(SystemInfo {
                id: id.to_owned(),
                name: name.to_owned(),
                role: role.to_owned(),
                transport: transport.to_owned(),
                stands_for: stands_for.to_owned(),
                status: "ready".to_owned(),
                reason: String::new(),
                version: env!("CARGO_PKG_VERSION").to_owned(),
                installed_via: "cargo build --release".to_owned(),
                build: "release profile".to_owned(),
                config: "serve: one current-thread tokio runtime per CPU it may use (one under \
                         taskset -c N), and while it has at most 4 connections each on a \
                         blocking thread of its own (--blocking-connections); bench: a \
                         current-thread runtime per generator thread; baselines: tokio's \
                         multi-threaded runtime"
                    .to_owned(),
            });
        }
    }
    out.extend(peers);
    out
}

/// The report sections of the experiments that ran, in report order.
pub(crate) fn sections(results: &Results) -> Vec<Section> {
    let ran = |id: &str| results.experiments.iter().any(|e| e == id);
    let mut out = Vec::new();
    for exp in Experiment::ALL {
        if !ran(exp.id()) {
            continue;
        }
        out.push(match exp {
            Experiment::Echo => echo::section(results),
            Experiment::Dp => dp::section(results),
            Experiment::Thesis => thesis::section(results),
            Experiment::Contacts => contacts::section(results),
            Experiment::Wsb => wsb::section(results),
            Experiment::WsbCache => wsb_cache::section(results),
            Experiment::Parse => parse::section(results),
            Experiment::Clients => clients::section(results),
            Experiment::Causes => causes_report::section(results),
            Experiment::Cluster => cluster_report::section(results),
            Experiment::Tls => tls::section(results),
            Experiment::Round2 => round2::section(results),
        });
    }
    if !results.systems.is_empty() {
        out.push(peers_table::section(results));
    }
    out
}

/// p50 of a run as a same/cross pair.
pub(crate) fn p50_pair(results: &Results, exp: &str, system: &str, op: &str) -> [Option<f64>; 2] {
    [PlacementKind::SameCpu, PlacementKind::CrossCpu]
        .map(|p| results.get(exp, system, op, p).map(|r| r.p50_us))
}

/// The same-CPU and cross-CPU runs of one point (for [`crate::report::suspect::cell_pair`]).
pub(crate) fn runs_pair<'a>(
    results: &'a Results,
    exp: &str,
    system: &str,
    op: &str,
) -> [Option<&'a Run>; 2] {
    [PlacementKind::SameCpu, PlacementKind::CrossCpu].map(|p| results.get(exp, system, op, p))
}
