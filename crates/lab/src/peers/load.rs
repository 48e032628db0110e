//! A CORBA peer client as the thesis's load generator: the client program run in its load mode
//! (`COMMAND... URL load:PATTERN RATE 0 MAX_S`, documented in `docs/lab.md`), five connections
//! sending `credit` in the pattern (stress, peak, traffic at RATE calls/s) beside the measured
//! client, the way `soapstone bench --pattern` loads soapstone and the SOAP peers.
//!
//! The load says `load started` on stdout once its connections are open; the lab measures its
//! points, then writes `stop` on the load's stdin and reads its one JSON line (the calls it made,
//! checked like any client's). This module must never wait without a deadline, nor let a load
//! outlive its point (the child is killed on drop; `MAX_S` bounds it on its own).

use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::{bail, Context as _};
use tokio::io::{AsyncBufReadExt as _, AsyncReadExt as _, AsyncWriteExt as _, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout};

use super::client::{into_run, ClientPoint, ClientReport};
use super::server::pinned;
use super::ManifestPeer;
use crate::procs::{log_tail, Launcher};
use crate::results::{Placement, Run};

/// How long a load may take to open its connections (a JVM starting five ORBs on a busy CPU).
const START: Duration = Duration::from_secs(60);
/// How long a load may take to stop and print once told to.
const STOP: Duration = Duration::from_secs(30);
/// The most a load may print (its samples).
const MAX_OUTPUT: u64 = 64 << 20;

/// A load running in the background.
#[derive(Debug)]
pub(crate) struct RunningLoad {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    command: String,
    log: std::path::PathBuf,
    started: Instant,
    url: String,
    op: String,
}

/// Starts `peer` as a load of `pattern` against `url`, pinned to `cpu`, lasting at most `max`;
/// returns once it has said `load started`.
pub(crate) async fn start(
    launcher: &Launcher,
    peer: &ManifestPeer,
    cpu: Option<&str>,
    url: &str,
    pattern: &str,
    rate: f64,
    max: Duration,
) -> anyhow::Result<RunningLoad> {
    if peer.command.is_empty() {
        bail!("the manifest gives `{}` no command", peer.id);
    }
    let op = format!("load:{pattern}");
    let mut argv = peer.command.clone();
    argv.extend([
        url.to_owned(),
        op.clone(),
        format!("{}", rate.round() as u64),
        "0".to_owned(),
        format!("{}", max.as_secs_f64()),
    ]);
    let log = launcher.log_path(&format!("load-{}", peer.id));
    let stderr = std::fs::File::create(&log)
        .with_context(|| format!("cannot create `{}`", log.display()))?;
    let (mut cmd, command) = pinned(launcher, cpu, &argv);
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .with_context(|| format!("cannot start `{command}`"))?;
    let stdin = child.stdin.take();
    let mut stdout = BufReader::new(child.stdout.take().context("the load has no stdout")?);
    let mut line = String::new();
    let said = tokio::time::timeout(START, async {
        loop {
            line.clear();
            if stdout.read_line(&mut line).await? == 0 {
                return Ok::<bool, std::io::Error>(false);
            }
            if line.trim() == "load started" {
                return Ok(true);
            }
        }
    })
    .await;
    match said {
        Ok(Ok(true)) => {}
        Ok(Ok(false)) => bail!(
            "`{command}` ended before it started its load; its log: {}{}",
            log.display(),
            log_tail(&log)
        ),
        Ok(Err(e)) => bail!("cannot read what `{command}` printed: {e}"),
        Err(_) => bail!(
            "`{command}` did not start its load within {START:?}; its log: {}{}",
            log.display(),
            log_tail(&log)
        ),
    }
    Ok(RunningLoad {
        child,
        stdin,
        stdout,
        command,
        log,
        started: Instant::now(),
        url: url.to_owned(),
        op,
    })
}

impl RunningLoad {
    /// Tells the load to stop, reads its report and returns it as a run of `ids` (the calls
    /// the load made, over the time it ran); an error if any of its calls failed.
    pub(crate) async fn finish(
        mut self,
        ids: (&str, &str, &str),
        placement: Placement,
    ) -> anyhow::Result<Run> {
        if let Some(mut stdin) = self.stdin.take() {
            // A load that has already ended has closed its stdin: that is not an error.
            let _ = stdin.write_all(b"stop\n").await;
            let _ = stdin.flush().await;
        }
        let ran = self.started.elapsed();
        let mut out = Vec::new();
        let read = tokio::time::timeout(STOP, async {
            (&mut self.stdout)
                .take(MAX_OUTPUT + 1)
                .read_to_end(&mut out)
                .await?;
            self.child.wait().await
        })
        .await;
        let status = match read {
            Ok(r) => r.context("cannot read the load's report")?,
            Err(_) => bail!(
                "`{}` did not stop within {STOP:?} of being told to; its log: {}{}",
                self.command,
                self.log.display(),
                log_tail(&self.log)
            ),
        };
        if !status.success() {
            bail!(
                "`{}` failed ({status}); its log: {}{}",
                self.command,
                self.log.display(),
                log_tail(&self.log)
            );
        }
        let text = String::from_utf8_lossy(&out);
        let line = text
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .with_context(|| format!("`{}` printed no report", self.command))?;
        let report: ClientReport = serde_json::from_str(line).with_context(|| {
            format!(
                "`{}` printed a line that is not the client JSON",
                self.command
            )
        })?;
        let point = ClientPoint {
            url: &self.url,
            op: &self.op,
            n: 0,
            warmup: Duration::ZERO,
            window: ran,
        };
        let mut run = into_run(report, &point, ids, placement, self.command.clone())?;
        run.settings.connections = 5;
        Ok(run)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::PlacementKind;

    #[tokio::test]
    async fn a_load_starts_is_told_to_stop_and_reports() {
        let dir = tempfile::tempdir().unwrap();
        let launcher = Launcher {
            exe: "/bin/false".into(),
            taskset: None,
            log_dir: dir.path().to_owned(),
            wrap: Vec::new(),
        };
        // Runs until `stop` (its MAX_S of 600 s would fail the test's patience long before),
        // counting what it read, and reports the arguments it was given as samples.
        let script = "import json,sys\n\
                      print('noise'); print('load started', flush=True)\n\
                      for line in sys.stdin:\n    \
                      if line.strip() == 'stop': break\n\
                      print(json.dumps({'ok':2,'errors':0,'first_error':None,\
                      'samples_us':[float(len(sys.argv[2])), float(sys.argv[3])]}))";
        let peer: ManifestPeer = serde_json::from_value(serde_json::json!({
            "id": "fake", "status": "ready", "command": ["python3", "-c", script]
        }))
        .unwrap();
        let load = start(
            &launcher,
            &peer,
            None,
            "corbaloc::127.0.0.1:1/charging",
            "traffic",
            200.0,
            Duration::from_secs(600),
        )
        .await
        .unwrap();
        let placement = Placement {
            kind: PlacementKind::SameCpu,
            server_cpu: None,
            client_cpu: None,
            load_cpu: None,
        };
        let run = load
            .finish(("fake", "thesis", "background/traffic"), placement)
            .await
            .unwrap();
        assert_eq!(run.ok, 2);
        // `load:traffic` is 12 characters; the rate was passed as 200.
        assert_eq!((run.percentiles[0].1, run.percentiles[4].1), (12.0, 200.0));
        assert_eq!(run.settings.connections, 5);
        assert!(run
            .settings
            .command
            .unwrap()
            .contains("load:traffic 200 0 600"));
    }

    #[tokio::test]
    async fn a_load_that_ends_before_starting_is_an_error_with_its_log() {
        let dir = tempfile::tempdir().unwrap();
        let launcher = Launcher {
            exe: "/bin/false".into(),
            taskset: None,
            log_dir: dir.path().to_owned(),
            wrap: Vec::new(),
        };
        let script = "import sys; print('no such object', file=sys.stderr); sys.exit(1)";
        let peer: ManifestPeer = serde_json::from_value(serde_json::json!({
            "id": "fake", "status": "ready", "command": ["python3", "-c", script]
        }))
        .unwrap();
        let e = start(
            &launcher,
            &peer,
            None,
            "corbaloc::127.0.0.1:1/charging",
            "stress",
            0.0,
            Duration::from_secs(5),
        )
        .await
        .unwrap_err()
        .to_string();
        assert!(e.contains("ended before it started its load"), "{e}");
        assert!(e.contains("no such object"), "{e}");
    }
}
