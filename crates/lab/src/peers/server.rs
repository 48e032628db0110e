//! Starts a peer server from its manifest command, pinned like soapstone's server, on a free
//! loopback port, and waits until it can be called.
//!
//! Peers cannot all announce an ephemeral port the way `soapstone serve` does (most take the
//! port to bind on their command line and print nothing the lab could parse), so the lab picks
//! a free port, puts it in place of `{port}` (the address to bind in place of `{host}`, and a
//! fresh SQLite file for a charging store in place of `{db}`), and waits until the port accepts
//! a connection; a CORBA or RMI server, and a SOAP server whose manifest says `"banner": true`,
//! must also have printed `listening on` (its object or endpoint is bound after the port opens).
//!
//! The port is free when the lab picks it, not necessarily when the peer binds it: another
//! process may take it in between. A peer that exits saying its address is in use, or a port
//! that answers from a process outside the peer's tree (`port_owner`), means the port was lost:
//! the peer is started again on another port, three tries in all, each loss named (a peer
//! whose listener left its tree, a daemon that forks away, would be taken for another process:
//! no peer of the manifest does; nginx runs with `daemon off`). This module must never leave a
//! peer running (the child is killed on drop), never wait without a deadline, and never call a
//! server ready that `/proc` says is not the peer it started.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context as _};
use tokio::process::{Child, Command};

use super::port_owner::{listener_owner, Owner};
use super::ManifestPeer;
use crate::netem::{Lan, Side, SERVER_IP};
use crate::procs::{log_tail, Launcher};

/// A running peer server.
#[derive(Debug)]
pub(crate) struct PeerServer {
    child: Child,
    /// The port it listens on.
    pub(crate) port: u16,
    /// The address it listens on: loopback, or the server side of the emulated LAN.
    pub(crate) host: String,
    /// Its stdout and stderr.
    pub(crate) log: PathBuf,
    /// The command line, as a person would type it.
    pub(crate) command: String,
}

/// `template` (a peer's `url` or `charging` from the manifest) with `{host}` and `{port}` of
/// `server` filled in.
pub(crate) fn fill(template: &str, server: &PeerServer) -> String {
    template
        .replace("{host}", &server.host)
        .replace("{port}", &server.port.to_string())
}

/// A command running `argv`, pinned to `cpus` with taskset when both are available.
pub(crate) fn pinned(
    launcher: &Launcher,
    cpus: Option<&str>,
    argv: &[String],
) -> (Command, String) {
    let mut full = launcher.wrap.clone();
    let mut shown = launcher.wrap.clone();
    if let (Some(t), Some(c)) = (&launcher.taskset, cpus) {
        full.extend([t.display().to_string(), "-c".to_owned(), c.to_owned()]);
        shown.push(format!("taskset -c {c}"));
    }
    full.extend(argv.iter().cloned());
    shown.extend(argv.iter().cloned());
    let mut cmd = Command::new(&full[0]);
    cmd.args(&full[1..]).stdin(Stdio::null()).kill_on_drop(true);
    (cmd, shown.join(" "))
}

/// `peer` with its response cache on (`{cache}` in its command becomes `on`; every other start
/// makes it `off`), or `None` when its command has no such switch (a manifest written before
/// the switch existed: rerun `lab/peers/setup.sh`).
pub(crate) fn with_cache_on(peer: &ManifestPeer) -> Option<ManifestPeer> {
    if !peer.command.iter().any(|a| a.contains("{cache}")) {
        return None;
    }
    let mut on = peer.clone();
    for a in &mut on.command {
        *a = a.replace("{cache}", "on");
    }
    Some(on)
}

/// How many ports a peer may lose to other processes before the lab gives up on it.
const TRIES: usize = 3;

/// Why one start gave no running peer.
enum Failed {
    /// Another process had the port: worth a try on another one.
    PortLost(String),
    Other(anyhow::Error),
}

impl<E: Into<anyhow::Error>> From<E> for Failed {
    fn from(e: E) -> Failed {
        Failed::Other(e.into())
    }
}

/// A port that was free a moment ago on 127.0.0.1.
fn free_port() -> anyhow::Result<u16> {
    let l = std::net::TcpListener::bind("127.0.0.1:0").context("cannot find a free port")?;
    Ok(l.local_addr()?.port())
}

impl PeerServer {
    /// Starts `peer` pinned to `cpus` and waits up to `ready` until it can be called.
    pub(crate) async fn start(
        launcher: &Launcher,
        peer: &ManifestPeer,
        cpus: Option<&str>,
        ready: Duration,
    ) -> anyhow::Result<PeerServer> {
        Self::start_on(launcher, peer, cpus, ready, None).await
    }

    /// Starts `peer` like [`PeerServer::start`], on the server side of `lan` when given: the
    /// command runs in that namespace and `{host}` in it becomes the LAN address (a peer whose
    /// command has no `{host}` binds loopback only and cannot be reached there).
    pub(crate) async fn start_on(
        launcher: &Launcher,
        peer: &ManifestPeer,
        cpus: Option<&str>,
        ready: Duration,
        lan: Option<&Lan>,
    ) -> anyhow::Result<PeerServer> {
        if lan.is_some() && !peer.command.iter().any(|a| a.contains("{host}")) {
            bail!("its command binds loopback only (no `{{host}}` in the manifest's command)");
        }
        Self::start_from(launcher, peer, cpus, ready, lan, &mut free_port).await
    }

    /// [`PeerServer::start_on`] on the ports `ports` gives, one per try.
    pub(super) async fn start_from(
        launcher: &Launcher,
        peer: &ManifestPeer,
        cpus: Option<&str>,
        ready: Duration,
        lan: Option<&Lan>,
        ports: &mut (dyn FnMut() -> anyhow::Result<u16> + Send),
    ) -> anyhow::Result<PeerServer> {
        let mut lost = Vec::new();
        for _ in 0..TRIES {
            match Self::start_once(launcher, peer, cpus, ready, lan, ports()?).await {
                Ok(server) => return Ok(server),
                Err(Failed::PortLost(why)) => lost.push(why),
                Err(Failed::Other(e)) => return Err(e),
            }
        }
        bail!(
            "`{}` lost its port to another process {TRIES} times: {}",
            peer.id,
            lost.join("; ")
        )
    }

    async fn start_once(
        launcher: &Launcher,
        peer: &ManifestPeer,
        cpus: Option<&str>,
        ready: Duration,
        lan: Option<&Lan>,
        port: u16,
    ) -> Result<PeerServer, Failed> {
        if peer.command.is_empty() {
            return Err(anyhow!("the manifest gives `{}` no command", peer.id).into());
        }
        let host = if lan.is_some() {
            SERVER_IP
        } else {
            "127.0.0.1"
        };
        // A fresh store per start: the charging calls' answers must not depend on an earlier run.
        let db = launcher
            .log_path(&format!("peer-{}-charging", peer.id))
            .with_extension("sqlite");
        if peer.command.iter().any(|a| a.contains("{db}")) {
            for suffix in ["", "-wal", "-shm"] {
                let _ = std::fs::remove_file(format!("{}{suffix}", db.display()));
            }
        }
        let argv: Vec<String> = peer
            .command
            .iter()
            .map(|a| {
                a.replace("{port}", &port.to_string())
                    .replace("{host}", host)
                    .replace("{db}", &db.display().to_string())
                    .replace("{cache}", "off")
            })
            .collect();
        let launcher = match lan {
            Some(lan) => &launcher.wrapped(lan.exec_prefix(Side::Server)),
            None => launcher,
        };
        let log = launcher.log_path(&format!("peer-{}", peer.id));
        let out = std::fs::File::create(&log)
            .with_context(|| format!("cannot create the log file `{}`", log.display()))?;
        let err = out.try_clone()?;
        let (mut cmd, command) = pinned(launcher, cpus, &argv);
        let mut child = cmd
            .stdout(out)
            .stderr(err)
            .spawn()
            .with_context(|| format!("cannot start `{command}`"))?;
        let needs_banner = peer.transport != "soap-http" || peer.banner;
        let started = Instant::now();
        let mut owner_known = false;
        loop {
            if let Some(status) = child.try_wait()? {
                let said = log_tail(&log);
                let why = format!(
                    "`{command}` exited ({status}) before it could be called; its log: {}{said}",
                    log.display(),
                );
                return Err(if said.contains("in use") {
                    Failed::PortLost(format!("port {port}: {why}"))
                } else {
                    Failed::Other(anyhow!(why))
                });
            }
            let mut open = match lan {
                // The lab's own sockets cannot reach into the LAN's namespaces.
                Some(lan) => lan.listening(Side::Server, port),
                None => tokio::net::TcpStream::connect(("127.0.0.1", port))
                    .await
                    .is_ok(),
            };
            // Whose port it is, once: nobody takes a port from a peer that has bound it.
            if open && !owner_known {
                match child.id().map(|id| listener_owner(id, port)) {
                    Some(Owner::Other(pid)) => {
                        let _ = child.kill().await;
                        return Err(Failed::PortLost(format!(
                            "port {port} answered from process {pid}, not from `{command}`"
                        )));
                    }
                    // What answered was a passing listener (another test's probe of a free
                    // port): the peer may still be starting, or may find its port taken and
                    // exit, which the next turn sees.
                    Some(Owner::Nobody) => open = false,
                    _ => owner_known = true,
                }
            }
            let announced = !needs_banner
                || std::fs::read_to_string(&log).is_ok_and(|t| t.contains("listening on"));
            if open && announced {
                break;
            }
            if started.elapsed() > ready {
                let _ = child.kill().await;
                return Err(anyhow!(
                    "`{command}` was not ready on port {port} within {ready:?}; its log: {}{}",
                    log.display(),
                    log_tail(&log)
                )
                .into());
            }
            // Polling a port for readiness: there is nothing to wait on instead.
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        Ok(PeerServer {
            child,
            port,
            host: host.to_owned(),
            log,
            command,
        })
    }

    /// `host:port`.
    pub(crate) fn addr(&self) -> String {
        format!("{}:{}", self.host, self.port)
    }

    /// Whether the server still runs, and the end of its log: for a caller's error message.
    pub(crate) fn state(&mut self) -> String {
        let running = match self.child.try_wait() {
            Ok(None) => "running".to_owned(),
            Ok(Some(status)) => format!("exited ({status})"),
            Err(e) => format!("unknown ({e})"),
        };
        format!(
            "`{}` on {}: {running}; its log: {}{}",
            self.command,
            self.addr(),
            self.log.display(),
            log_tail(&self.log)
        )
    }

    /// Stops the server and reaps it; an error if it had died during the measurements.
    pub(crate) async fn stop(mut self) -> anyhow::Result<()> {
        if let Ok(Some(status)) = self.child.try_wait() {
            bail!(
                "`{}` had exited ({status}) before the lab stopped it; its log: {}{}",
                self.command,
                self.log.display(),
                log_tail(&self.log)
            );
        }
        let _ = self.child.kill().await;
        Ok(())
    }
}

#[cfg(test)]
#[path = "server_tests.rs"]
mod tests;
