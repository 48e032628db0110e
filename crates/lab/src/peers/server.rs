//! Starts a peer server from its manifest command, pinned like soapstone's server, on a free
//! loopback port, and waits until it can be called.
//!
//! Peers cannot all announce an ephemeral port the way `soapstone serve` does (PHP's built-in
//! server, for one, needs its port on the command line), so the lab picks a free port, puts it
//! in place of `{port}` (the address to bind in place of `{host}`, and a fresh SQLite file for a
//! charging store in place of `{db}`), and waits until the port accepts a connection; a CORBA or
//! RMI server,
//! and a SOAP server whose manifest says `"banner": true`, must also have printed `listening on`
//! (its object or endpoint is bound after the port opens). This module
//! must never leave a peer running (the child is killed on drop) and never wait without a
//! deadline.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::{bail, Context as _};
use tokio::process::{Child, Command};

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
        // The free port can be taken by another process between our probe and the peer's bind;
        // a peer that exits saying so is started again on another port, twice at most.
        let mut attempt = 0;
        loop {
            match Self::start_once(launcher, peer, cpus, ready, lan).await {
                Err(e) if attempt < 2 && format!("{e:#}").contains("in use") => attempt += 1,
                other => return other,
            }
        }
    }

    async fn start_once(
        launcher: &Launcher,
        peer: &ManifestPeer,
        cpus: Option<&str>,
        ready: Duration,
        lan: Option<&Lan>,
    ) -> anyhow::Result<PeerServer> {
        if peer.command.is_empty() {
            bail!("the manifest gives `{}` no command", peer.id);
        }
        let port = free_port()?;
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
        loop {
            if let Some(status) = child.try_wait()? {
                bail!(
                    "`{command}` exited ({status}) before it could be called; its log: {}{}",
                    log.display(),
                    log_tail(&log)
                );
            }
            let open = match lan {
                // The lab's own sockets cannot reach into the LAN's namespaces.
                Some(lan) => lan.listening(Side::Server, port),
                None => tokio::net::TcpStream::connect(("127.0.0.1", port))
                    .await
                    .is_ok(),
            };
            let announced = !needs_banner
                || std::fs::read_to_string(&log).is_ok_and(|t| t.contains("listening on"));
            if open && announced {
                break;
            }
            if started.elapsed() > ready {
                let _ = child.kill().await;
                bail!(
                    "`{command}` was not ready on port {port} within {ready:?}; its log: {}{}",
                    log.display(),
                    log_tail(&log)
                );
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
mod tests {
    use super::*;

    fn launcher(dir: &std::path::Path) -> Launcher {
        Launcher {
            exe: PathBuf::from("/bin/false"),
            taskset: crate::procs::find_taskset(),
            log_dir: dir.to_owned(),
            wrap: Vec::new(),
        }
    }

    fn peer(transport: &str, script: &str) -> ManifestPeer {
        serde_json::from_value(serde_json::json!({
            "id": "fake", "status": "ready", "transport": transport,
            "command": ["python3", "-c", script, "{port}"]
        }))
        .unwrap()
    }

    #[tokio::test]
    async fn a_peer_listening_on_its_port_is_found_and_stopped() {
        let dir = tempfile::tempdir().unwrap();
        let script = "import socket,sys,time\n\
                      s=socket.socket(); s.bind(('127.0.0.1', int(sys.argv[1]))); s.listen()\n\
                      print('listening on', sys.argv[1], flush=True)\n\
                      time.sleep(60)";
        let server = PeerServer::start(
            &launcher(dir.path()),
            &peer("corba", script),
            Some("0"),
            Duration::from_secs(30),
        )
        .await
        .unwrap();
        assert!(
            server.command.contains(&server.port.to_string()),
            "{}",
            server.command
        );
        tokio::net::TcpStream::connect(server.addr()).await.unwrap();
        server.stop().await.unwrap();
    }

    #[tokio::test]
    async fn a_peer_gets_its_address_and_a_fresh_store_each_start() {
        let dir = tempfile::tempdir().unwrap();
        // Appends to its store, and binds the address it is given.
        let script = "import socket,sys,time\n\
                      open(sys.argv[3],'a').write('x')\n\
                      s=socket.socket(); s.bind((sys.argv[2], int(sys.argv[1]))); s.listen()\n\
                      print('store', sys.argv[3], flush=True)\n\
                      time.sleep(60)";
        let p: ManifestPeer = serde_json::from_value(serde_json::json!({
            "id": "orb", "status": "ready", "transport": "soap-http",
            "command": ["python3", "-c", script, "{port}", "{host}", "{db}"]
        }))
        .unwrap();
        let launcher = launcher(dir.path());
        for _ in 0..2 {
            let server = PeerServer::start(&launcher, &p, None, Duration::from_secs(30))
                .await
                .unwrap();
            assert_eq!(server.host, "127.0.0.1");
            assert_eq!(
                fill("corbaloc::{host}:{port}/charging", &server),
                format!("corbaloc::127.0.0.1:{}/charging", server.port)
            );
            let db = dir.path().join("peer-orb-charging-0.sqlite");
            assert!(
                server.command.contains(&db.display().to_string()),
                "{}",
                server.command
            );
            // The second start does not see the first one's store.
            assert_eq!(std::fs::read_to_string(&db).unwrap(), "x");
            server.stop().await.unwrap();
        }
    }

    #[tokio::test]
    async fn a_soap_peer_with_a_banner_is_ready_only_once_it_printed_it() {
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("deployed");
        // The port opens first; the service is "deployed" (the marker) a second later, and only
        // then announced, as CXF's Jetty does.
        let script = format!(
            "import socket,sys,time\n\
             s=socket.socket(); s.bind(('127.0.0.1', int(sys.argv[1]))); s.listen()\n\
             time.sleep(1)\n\
             open({marker:?},'w').close()\n\
             print('listening on', sys.argv[1], flush=True)\n\
             time.sleep(60)"
        );
        let mut p = peer("soap-http", &script);
        p.banner = true;
        let server = PeerServer::start(&launcher(dir.path()), &p, None, Duration::from_secs(30))
            .await
            .unwrap();
        assert!(marker.exists(), "ready before the banner");
        server.stop().await.unwrap();
    }

    #[tokio::test]
    async fn a_port_taken_before_the_peer_binds_it_is_retried() {
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("first-try-done");
        // The first start fails as a bind to a taken port does; the second listens.
        let script = format!(
            "import os,socket,sys,time\n\
             m={marker:?}\n\
             if not os.path.exists(m):\n    open(m,'w').close()\n    \
             sys.exit('OSError: [Errno 98] Address already in use')\n\
             s=socket.socket(); s.bind(('127.0.0.1', int(sys.argv[1]))); s.listen()\n\
             time.sleep(60)"
        );
        let server = PeerServer::start(
            &launcher(dir.path()),
            &peer("soap-http", &script),
            None,
            Duration::from_secs(30),
        )
        .await
        .unwrap();
        assert!(marker.exists());
        tokio::net::TcpStream::connect(server.addr()).await.unwrap();
        server.stop().await.unwrap();
    }

    #[tokio::test]
    async fn a_peer_that_dies_is_reported_with_its_log() {
        let dir = tempfile::tempdir().unwrap();
        let script = "import sys; print('no php-soap here', file=sys.stderr); sys.exit(3)";
        let err = PeerServer::start(
            &launcher(dir.path()),
            &peer("soap-http", script),
            None,
            Duration::from_secs(30),
        )
        .await
        .unwrap_err()
        .to_string();
        assert!(err.contains("exited"), "{err}");
        assert!(err.contains("no php-soap here"), "{err}");
    }
}
