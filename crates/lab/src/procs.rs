//! Child processes of the lab: the servers under test (`soapstone serve`, `soapstone baseline`)
//! and the measuring clients (`soapstone bench`), each pinned to its CPU with `taskset -c`.
//!
//! Servers print `listening on <URL or ADDR>` on stdout once bound to an ephemeral loopback
//! port; [`Server::start`] waits for that line (with a deadline) and keeps the child until the
//! [`Server`] is stopped or dropped (dropping kills it: a failed experiment never leaves a server
//! behind). Every child's stderr goes to a log file under `OUT/logs/` so a failure can be read
//! after the fact. This module must never target anything but loopback addresses (or the
//! emulated LAN's namespaces, [`crate::netem`]), and never
//! wait on a child without a deadline.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use anyhow::{bail, Context as _};
use tokio::io::{AsyncBufReadExt as _, BufReader};
use tokio::process::{Child, Command};

/// How to launch the soapstone executable, optionally pinned to a CPU list.
#[derive(Debug, Clone)]
pub(crate) struct Launcher {
    /// The `soapstone` executable to spawn.
    pub(crate) exe: PathBuf,
    /// `taskset` if found; without it runs are unpinned and say so.
    pub(crate) taskset: Option<PathBuf>,
    /// Directory for the children's stderr logs.
    pub(crate) log_dir: PathBuf,
    /// Words put before every command (`ip netns exec NS` to run it on one side of the emulated
    /// LAN, [`crate::netem`]); empty otherwise.
    pub(crate) wrap: Vec<String>,
}

impl Launcher {
    /// A command running `exe args...`, pinned to `cpus` when given and taskset is available.
    pub(crate) fn command(&self, cpus: Option<&str>, args: &[String]) -> Command {
        let mut argv = self.wrap.clone();
        if let (Some(taskset), Some(cpus)) = (&self.taskset, cpus) {
            argv.extend([
                taskset.display().to_string(),
                "-c".to_owned(),
                cpus.to_owned(),
            ]);
        }
        argv.push(self.exe.display().to_string());
        let mut cmd = Command::new(&argv[0]);
        cmd.args(&argv[1..])
            .args(args)
            .stdin(Stdio::null())
            .kill_on_drop(true);
        cmd
    }

    /// The same launcher with every command run behind `wrap` (`ip netns exec NS`).
    pub(crate) fn wrapped(&self, wrap: Vec<String>) -> Launcher {
        Launcher {
            wrap,
            ..self.clone()
        }
    }

    /// The command line as a person would type it (for the report and error messages).
    pub(crate) fn display(&self, cpus: Option<&str>, args: &[String]) -> String {
        let mut parts = self.wrap.clone();
        if let (Some(_), Some(cpus)) = (&self.taskset, cpus) {
            parts.push(format!("taskset -c {cpus}"));
        }
        parts.push("soapstone".to_owned());
        parts.extend(args.iter().map(|a| shell_quote(a)));
        parts.join(" ")
    }

    /// A fresh log file path for a child named `name`.
    pub(crate) fn log_path(&self, name: &str) -> PathBuf {
        let safe: String = name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let mut n = 0;
        loop {
            let p = self.log_dir.join(format!("{safe}-{n}.log"));
            if !p.exists() {
                return p;
            }
            n += 1;
        }
    }
}

fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=,@%+".contains(c))
    {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// Finds `taskset` on the PATH.
pub(crate) fn find_taskset() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join("taskset"))
        .find(|p| p.is_file())
}

/// A running server process.
#[derive(Debug)]
pub(crate) struct Server {
    child: Child,
    /// The `host:port` it listens on.
    pub(crate) addr: String,
    /// Where its stderr goes.
    pub(crate) log: PathBuf,
    name: String,
}

impl Server {
    /// Spawns `soapstone <args>` pinned to `cpus` and waits up to `ready` for its
    /// `listening on ...` line.
    pub(crate) async fn start(
        launcher: &Launcher,
        name: &str,
        cpus: Option<&str>,
        args: &[String],
        ready: Duration,
    ) -> anyhow::Result<Server> {
        let log = launcher.log_path(name);
        let stderr = std::fs::File::create(&log)
            .with_context(|| format!("cannot create the log file `{}`", log.display()))?;
        let mut child = launcher
            .command(cpus, args)
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .with_context(|| format!("cannot start `{}`", launcher.display(cpus, args)))?;
        let stdout = child.stdout.take().context("child has no stdout")?;
        let mut lines = BufReader::new(stdout).lines();
        let wait = async {
            while let Some(line) = lines.next_line().await? {
                if let Some(found) = parse_listening(&line) {
                    return Ok::<_, std::io::Error>(Some(found));
                }
            }
            Ok(None)
        };
        let announced = match tokio::time::timeout(ready, wait).await {
            Ok(Ok(Some(a))) => a,
            Ok(Ok(None)) => {
                let status = child.wait().await.ok();
                bail!(
                    "`{}` exited ({}) before printing `listening on`; its log: {}{}",
                    launcher.display(cpus, args),
                    status.map(|s| s.to_string()).unwrap_or_default(),
                    log.display(),
                    log_tail(&log)
                );
            }
            Ok(Err(e)) => return Err(e).context("cannot read the server's stdout"),
            Err(_) => {
                let _ = child.kill().await;
                bail!(
                    "`{}` did not print `listening on` within {:?}; its log: {}{}",
                    launcher.display(cpus, args),
                    ready,
                    log.display(),
                    log_tail(&log)
                );
            }
        };
        // Keep draining stdout so a chatty server never blocks on a full pipe.
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        let addr = host_port(&announced)
            .with_context(|| format!("cannot find an address in `listening on {announced}`"))?;
        Ok(Server {
            child,
            addr,
            log,
            name: name.to_owned(),
        })
    }

    /// The base URL of an HTTP server (`http://host:port`), whatever form it announced.
    pub(crate) fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Stops the server (SIGKILL: the lab has taken its numbers) and reaps it.
    pub(crate) async fn stop(mut self) -> anyhow::Result<()> {
        if let Ok(Some(status)) = self.child.try_wait() {
            bail!(
                "server `{}` had already exited ({status}); its log: {}{}",
                self.name,
                self.log.display(),
                log_tail(&self.log)
            );
        }
        let _ = self.child.kill().await;
        Ok(())
    }
}

/// The text after `listening on ` in a line, if present.
fn parse_listening(line: &str) -> Option<String> {
    let i = line.find("listening on ")?;
    let rest = line[i + "listening on ".len()..].trim();
    let token = rest.split_whitespace().next()?;
    Some(token.trim_end_matches([',', '.', ';']).to_owned())
}

/// `host:port` from `http://127.0.0.1:8080/x`, `tcp://127.0.0.1:9`, or `127.0.0.1:9`.
fn host_port(announced: &str) -> Option<String> {
    let s = announced
        .split_once("://")
        .map(|(_, rest)| rest)
        .unwrap_or(announced);
    let s = s.split('/').next()?;
    let (_, port) = s.rsplit_once(':')?;
    port.parse::<u16>().ok()?;
    Some(s.to_owned())
}

/// The last lines of a log file, prefixed with a newline, for error messages.
pub(crate) fn log_tail(path: &Path) -> String {
    let Ok(text) = std::fs::read_to_string(path) else {
        return String::new();
    };
    let lines: Vec<&str> = text.lines().collect();
    let start = lines.len().saturating_sub(8);
    if lines.is_empty() {
        String::new()
    } else {
        format!("\n  {}", lines[start..].join("\n  "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listening_lines() {
        assert_eq!(
            parse_listening("listening on http://127.0.0.1:4242").as_deref(),
            Some("http://127.0.0.1:4242")
        );
        assert_eq!(
            parse_listening("2026 INFO tcp-pingpong listening on 127.0.0.1:9 (x)").as_deref(),
            Some("127.0.0.1:9")
        );
        assert_eq!(parse_listening("starting"), None);
    }

    #[test]
    fn addresses() {
        assert_eq!(
            host_port("http://127.0.0.1:80/echo").as_deref(),
            Some("127.0.0.1:80")
        );
        assert_eq!(
            host_port("tcp://127.0.0.1:9").as_deref(),
            Some("127.0.0.1:9")
        );
        assert_eq!(host_port("[::1]:9").as_deref(), Some("[::1]:9"));
        assert_eq!(host_port("127.0.0.1"), None);
    }

    #[test]
    fn quoting() {
        assert_eq!(shell_quote("--body"), "--body");
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
    }

    #[tokio::test]
    async fn a_child_that_never_listens_is_reported_with_its_log() {
        let dir = tempfile::tempdir().unwrap();
        let launcher = Launcher {
            exe: PathBuf::from("/bin/sh"),
            taskset: None,
            log_dir: dir.path().to_owned(),
            wrap: Vec::new(),
        };
        let args = vec!["-c".to_owned(), "echo boom >&2; exit 3".to_owned()];
        let err = Server::start(&launcher, "sh", None, &args, Duration::from_secs(5))
            .await
            .unwrap_err()
            .to_string();
        assert!(err.contains("exited"), "{err}");
        assert!(err.contains("boom"), "{err}");
    }

    #[tokio::test]
    async fn a_real_listener_is_found_and_stopped() {
        let dir = tempfile::tempdir().unwrap();
        let launcher = Launcher {
            exe: PathBuf::from("/bin/sh"),
            taskset: find_taskset(),
            log_dir: dir.path().to_owned(),
            wrap: Vec::new(),
        };
        let args = vec![
            "-c".to_owned(),
            "echo 'listening on http://127.0.0.1:4321'; sleep 30".to_owned(),
        ];
        let server = Server::start(&launcher, "sh", Some("0"), &args, Duration::from_secs(5))
            .await
            .unwrap();
        assert_eq!(server.addr, "127.0.0.1:4321");
        assert_eq!(server.base_url(), "http://127.0.0.1:4321");
        server.stop().await.unwrap();
    }
}
