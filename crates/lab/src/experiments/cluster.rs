//! Beyond one machine (issue 14): the charging service as replicas behind HAProxy on one
//! PostgreSQL, started as real processes by `scripts/cluster.sh` (the lab drives the script as
//! a subprocess, so users and the lab run the same cluster). Four parts: throughput and p99 per
//! replica count, the balancer hop (direct vs HAProxy, one CPU and cross-CPU), a replica
//! SIGKILLed under keyed load (timeline and the ledger read back), PostgreSQL restarted under
//! load (the faults clients get, and recovery).
//!
//! Without haproxy or the PostgreSQL server binaries the experiment records why it did not run
//! and the lab goes on. It must never leave a cluster running: every cluster is torn down by
//! `cluster.sh down`, also when a part fails (a [`Drop`] guard).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context as _};

use super::cluster_load as load;
use super::Lab;
use crate::driver::{BenchSpec, Load};
use crate::results::{ClusterRecord, Failover, Placement, PlacementKind};

pub(crate) const EXP: &str = "cluster";
/// Replica counts of the throughput table.
pub(crate) const COUNTS: [u32; 3] = [1, 2, 3];
/// Closed-loop connections of the throughput points.
pub(crate) const CONNECTIONS: u32 = 32;
/// Accounts the replicas seed (the first start creates them in PostgreSQL).
const ACCOUNTS: i32 = 1000;
/// Keyed clients of the failover.
const FAILOVER_CLIENTS: u32 = 12;

const READ: &str = r#"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><ch:creditControl xmlns:ch="urn:soapstone:charging"><id>42</id></ch:creditControl></s:Body></s:Envelope>"#;
pub(crate) const WRITE: &str = r#"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><ch:credit xmlns:ch="urn:soapstone:charging"><id>42</id><am>1</am></ch:credit></s:Body></s:Envelope>"#;

/// Why the cluster cannot run here, if it cannot (haproxy, PostgreSQL, the script).
fn missing(script: &Option<PathBuf>) -> Option<String> {
    let on_path = |t: &str| {
        std::env::var_os("PATH")
            .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(t).is_file()))
    };
    if !on_path("haproxy") {
        return Some("haproxy is not installed (apt-get install haproxy)".to_owned());
    }
    let pg = std::env::var_os("SOAPSTONE_PG_BIN").is_some()
        || std::fs::read_dir("/usr/lib/postgresql")
            .map(|d| d.flatten().any(|e| e.path().join("bin/initdb").exists()))
            .unwrap_or(false);
    if !pg {
        return Some(
            "the PostgreSQL server binaries are not installed (apt-get install postgresql)"
                .to_owned(),
        );
    }
    if !on_path("taskset") {
        return Some("taskset is not installed (util-linux)".to_owned());
    }
    if script.is_none() {
        return Some(
            "`scripts/cluster.sh` was not found (run the lab from the repository root)".to_owned(),
        );
    }
    None
}

/// `scripts/cluster.sh` in the working directory or above the executable.
fn find_script(exe: &Path) -> Option<PathBuf> {
    let cwd = std::env::current_dir().ok();
    cwd.iter()
        .map(|d| d.as_path())
        .chain(exe.ancestors())
        .map(|d| d.join("scripts/cluster.sh"))
        .find(|p| p.is_file())
}

/// One cluster started by `cluster.sh up`, torn down on drop.
pub(crate) struct Cluster {
    script: PathBuf,
    dir: PathBuf,
    env: HashMap<String, String>,
}

impl Cluster {
    pub(crate) async fn up(
        script: &Path,
        dir: &Path,
        serve: &Path,
        extra: &[String],
    ) -> anyhow::Result<Cluster> {
        // `--port 0`: cluster.sh reserves a free port for the balancer (and every other port it
        // uses) until `down`, and names it in cluster.env's URL.
        let mut args: Vec<String> = ["up", "--netns", "off", "--port", "0"]
            .map(str::to_owned)
            .to_vec();
        args.extend(["--accounts".into(), ACCOUNTS.to_string()]);
        args.extend(["--bin".into(), serve.display().to_string()]);
        args.extend(extra.iter().cloned());
        let mut c = Cluster {
            script: script.to_owned(),
            dir: dir.to_owned(),
            env: HashMap::new(),
        };
        c.run(&args).await?;
        let text = std::fs::read_to_string(dir.join("cluster.env"))
            .with_context(|| format!("no `cluster.env` in `{}`", dir.display()))?;
        c.env = parse_env(&text);
        Ok(c)
    }

    pub(crate) async fn run(&self, args: &[String]) -> anyhow::Result<()> {
        let out = tokio::time::timeout(
            Duration::from_secs(120),
            tokio::process::Command::new("bash")
                .arg(&self.script)
                .args(args)
                .arg("--dir")
                .arg(&self.dir)
                .output(),
        )
        .await
        .with_context(|| format!("`cluster.sh {}` did not finish in 120 s", args.join(" ")))?
        .context("cannot run cluster.sh")?;
        if !out.status.success() {
            bail!(
                "`cluster.sh {}` failed ({}): {}",
                args.join(" "),
                out.status,
                String::from_utf8_lossy(&out.stderr).trim()
            );
        }
        Ok(())
    }

    pub(crate) fn get(&self, key: &str) -> anyhow::Result<&str> {
        self.env
            .get(key)
            .map(String::as_str)
            .with_context(|| format!("`{key}` is missing from cluster.env"))
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = std::process::Command::new("bash")
            .arg(&self.script)
            .args(["down", "--dir"])
            .arg(&self.dir)
            .output();
    }
}

/// `KEY=value` lines of `cluster.env` (single quotes around a value dropped).
pub(crate) fn parse_env(text: &str) -> HashMap<String, String> {
    text.lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.trim().to_owned(), v.trim().trim_matches('\'').to_owned()))
        .collect()
}

pub(crate) async fn run(lab: &mut Lab) -> anyhow::Result<()> {
    let script = find_script(&lab.cfg.exe);
    let mut rec = ClusterRecord::default();
    if let Some(why) = missing(&script) {
        lab.problem(format!("cluster: not run: {why}"));
        rec.not_run = Some(why);
        lab.cluster = Some(rec);
        return Ok(());
    }
    let script = script.unwrap_or_default();
    // PostgreSQL runs as `postgres` when the lab runs as root: its directory must be reachable.
    let work = std::env::temp_dir().join(format!("soapstone-lab-cluster-{}", std::process::id()));
    std::fs::create_dir_all(&work)
        .with_context(|| format!("cannot create `{}`", work.display()))?;
    let serve = work.join("serve");
    std::fs::write(
        &serve,
        format!("#!/bin/sh\nexec '{}' serve \"$@\"\n", lab.cfg.exe.display()),
    )?;
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(&serve, std::fs::Permissions::from_mode(0o755))?;
    rec.topology = topology();
    let result = parts(lab, &script, &work, &serve, &mut rec).await;
    let _ = std::fs::remove_dir_all(&work);
    lab.cluster = Some(rec);
    result
}

fn topology() -> String {
    let version = |cmd: &str, arg: &str| {
        std::process::Command::new(cmd)
            .arg(arg)
            .output()
            .ok()
            .map(|o| {
                String::from_utf8_lossy(&o.stdout)
                    .lines()
                    .next()
                    .unwrap_or("")
                    .to_owned()
            })
            .unwrap_or_default()
    };
    let haproxy = version("haproxy", "-v");
    let haproxy = haproxy
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ");
    let pg = std::fs::read_dir("/usr/lib/postgresql")
        .map(|d| {
            let mut v: Vec<String> = d
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect();
            v.sort();
            v.pop().unwrap_or_default()
        })
        .unwrap_or_default();
    format!(
        "scripts/cluster.sh: `soapstone serve --services charging` replicas on loopback ports \
         (`--netns off`), each pinned to a CPU round robin, 8 PostgreSQL connections each; \
         {haproxy} (round robin, /readyz checked every 250 ms, down after 2 failures); \
         PostgreSQL {pg} (initdb in a temporary directory, durable commits); {ACCOUNTS} accounts"
    )
}

async fn parts(
    lab: &mut Lab,
    script: &Path,
    work: &Path,
    serve: &Path,
    rec: &mut ClusterRecord,
) -> anyhow::Result<()> {
    let window = lab.cfg.timing.cluster_window;
    let warmup = lab.cfg.timing.warmup;
    let read = lab.body("cluster-read.xml", READ)?;
    let write = lab.body("cluster-write.xml", WRITE)?;
    let (s, o) = (lab.cfg.server_cpu.clone(), lab.cfg.other_cpu.clone());
    let both = format!("{s},{o}");

    // 1. Throughput per replica count: everything shares the machine's CPUs.
    for n in COUNTS {
        let dir = work.join(format!("r{n}"));
        let c = Cluster::up(
            script,
            &dir,
            serve,
            &[
                "--replicas".into(),
                n.to_string(),
                "--cpus".into(),
                both.clone(),
            ],
        )
        .await;
        let c = match c {
            Ok(c) => c,
            Err(e) => {
                lab.problem(format!("cluster: {n} replicas did not start: {e:#}"));
                continue;
            }
        };
        let url = c.get("URL")?.to_owned();
        for (op, body) in [("creditControl", &read), ("credit", &write)] {
            let mut spec =
                BenchSpec::sequential(url.clone(), window, warmup).with_body(body.clone());
            spec.load = Load::Closed {
                connections: CONNECTIONS,
                duration: window,
                warmup,
            };
            let placement = Placement {
                kind: PlacementKind::CrossCpu,
                server_cpu: Some(both.clone()),
                client_cpu: None,
                load_cpu: None,
            };
            lab.measure(("soapstone", EXP, &format!("{op}@{n}")), placement, &spec)
                .await;
        }
    }

    // 2. The balancer hop: one replica, one connection, direct then through HAProxy.
    for pin in lab.pins() {
        let dir = work.join(format!("hop-{}", pin.client));
        let extra = [
            "--replicas",
            "1",
            "--cpus",
            &pin.server,
            "--haproxy-cpu",
            &pin.client,
        ]
        .map(str::to_owned);
        let c = match Cluster::up(script, &dir, serve, &extra).await {
            Ok(c) => c,
            Err(e) => {
                lab.problem(format!("cluster: the hop cluster did not start: {e:#}"));
                continue;
            }
        };
        let direct = format!("http://{}/charging", c.get("R1_ADDR")?);
        let via = c.get("URL")?.to_owned();
        for (op, url) in [("hop-direct", direct), ("hop-haproxy", via)] {
            let spec = BenchSpec::sequential(url, window, warmup).with_body(read.clone());
            lab.measure(("soapstone", EXP, op), pin.placement(None), &spec)
                .await;
        }
    }

    // 3. A replica SIGKILLed under keyed load.
    match failover(script, &work.join("failover"), serve).await {
        Ok(f) => rec.failover = Some(f),
        Err(e) => lab.problem(format!("cluster: the failover part failed: {e:#}")),
    }

    // 4. PostgreSQL restarted under a write load.
    match super::cluster_pg::pg_restart(lab, script, &work.join("pg"), serve, &write).await {
        Ok(p) => rec.pg_restart = Some(p),
        Err(e) => lab.problem(format!(
            "cluster: the PostgreSQL restart part failed: {e:#}"
        )),
    }
    Ok(())
}

fn ms_after(t: Instant, from: Instant) -> Option<f64> {
    t.checked_duration_since(from)
        .map(|d| d.as_secs_f64() * 1000.0)
}

async fn failover(script: &Path, dir: &Path, serve: &Path) -> anyhow::Result<Failover> {
    let c = Cluster::up(script, dir, serve, &["--replicas".into(), "2".into()]).await?;
    let url = c.get("URL")?.to_owned();
    let stats = c.get("STATS_URL")?.to_owned();
    let stop = Arc::new(AtomicBool::new(false));
    let before = Duration::from_millis(1500);
    let clients = tokio::spawn({
        let stop = stop.clone();
        async move { load::keyed_load(&url, FAILOVER_CLIENTS, ACCOUNTS, stop).await }
    });
    tokio::time::sleep(before).await;
    let killed = Instant::now();
    if let Err(e) = c.run(&["kill".into(), "1".into()]).await {
        stop.store(true, Ordering::Relaxed);
        return Err(e);
    }
    let mut marked_down = None;
    while killed.elapsed() < Duration::from_secs(20) {
        let s = load::stats(&stats).await;
        if s.as_deref()
            .and_then(|s| load::server_status(s, "r1"))
            .is_some_and(|s| s.starts_with("DOWN"))
        {
            marked_down = Some(killed.elapsed().as_secs_f64() * 1000.0);
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    stop.store(true, Ordering::Relaxed);
    let seen = tokio::time::timeout(Duration::from_secs(120), clients)
        .await
        .context("the keyed clients did not stop within 120 s")?
        .context("the keyed clients panicked")?;
    let after: Vec<f64> = seen
        .failures
        .iter()
        .filter_map(|t| ms_after(*t, killed))
        .collect();
    let ledger = load::read_ledger(c.get("PG_BIN")?, c.get("PG_PORT")?).await?;
    let (found, missing, extra) = load::compare_ledger(&seen.acked, &ledger);
    Ok(Failover {
        replicas: 2,
        clients: FAILOVER_CLIENTS,
        load_before_kill_s: before.as_secs_f64(),
        first_error_ms: after.iter().copied().reduce(f64::min),
        last_error_ms: after.iter().copied().reduce(f64::max),
        marked_down_ms: marked_down,
        recovered_ms: seen
            .recoveries
            .iter()
            .filter_map(|t| ms_after(*t, killed))
            .reduce(f64::max),
        acked: seen.acked.len() as u64,
        retried: seen.retried,
        unanswered: seen.unanswered,
        ledger_found: found,
        ledger_missing: missing,
        ledger_extra: extra,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cluster_env_is_read() {
        let env = parse_env(
            "URL=http://127.0.0.1:8400/charging\nSTATS_URL='http://127.0.0.1:9/;csv'\nPG_PORT=5\n",
        );
        assert_eq!(env["STATS_URL"], "http://127.0.0.1:9/;csv");
        assert_eq!(env["PG_PORT"], "5");
    }
}
