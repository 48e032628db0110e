//! A packet capture running beside some calls: `tcpdump` on one interface and TCP port,
//! writing a pcap file that is kept as evidence and read back with [`crate::pcap`].
//!
//! tcpdump rather than libpcap: the capture needs root or `CAP_NET_RAW`, which the rest of
//! soapstone never asks for, and a separate process can be refused without soapstone failing.
//! It runs with `--immediate-mode` and `-U`, so that stopping it (SIGINT, after a short grace
//! for the last FIN or late ACK) loses no packet still in the kernel's ring. This module must
//! never leave a tcpdump running: the child is killed on drop and stopping has a deadline.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use anyhow::Context as _;
use tokio::io::AsyncReadExt as _;

use crate::pcap::{self, Packet};

/// How long tcpdump may take to say `listening on`.
const READY: Duration = Duration::from_secs(10);
/// The longest the capture may take to catch up with the calls before it is stopped anyway.
const CATCH_UP: Duration = Duration::from_secs(5);
/// How long to wait after tcpdump is listening before the first call.
const SETTLE: Duration = Duration::from_millis(100);
/// How long the last packets (a FIN, a delayed ACK) get to reach the capture before it stops.
const GRACE: Duration = Duration::from_millis(150);

/// A running capture.
#[derive(Debug)]
pub(crate) struct Capture {
    child: tokio::process::Child,
    pcap: PathBuf,
    port: u16,
}

impl Capture {
    /// Starts capturing TCP `port` on `interface` into `pcap`. `Err` is a sentence saying why
    /// capture cannot run here (tcpdump missing, not permitted), for the report.
    pub(crate) async fn start(interface: &str, port: u16, pcap: &Path) -> Result<Capture, String> {
        if let Some(dir) = pcap.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create `{}`: {e}", dir.display()))?;
        }
        let mut child = tokio::process::Command::new("tcpdump")
            .args(["-i", interface, "-n", "-U", "--immediate-mode", "-w"])
            .arg(pcap)
            .args(["tcp", "port", &port.to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| {
                format!("cannot run `tcpdump` ({e}; install it: apt-get install tcpdump)")
            })?;
        let mut err = child.stderr.take().ok_or("tcpdump has no stderr")?;
        let mut said = Vec::new();
        let listening = tokio::time::timeout(READY, async {
            let mut b = [0u8; 512];
            while !String::from_utf8_lossy(&said).contains("listening on") {
                let n = err.read(&mut b).await?;
                if n == 0 {
                    return Ok(false);
                }
                said.extend_from_slice(&b[..n]);
            }
            std::io::Result::Ok(true)
        })
        .await;
        if !matches!(listening, Ok(Ok(true))) {
            let _ = child.kill().await;
            return Err(format!(
                "packet capture not permitted or failed on `{interface}`: {}",
                String::from_utf8_lossy(&said).trim()
            ));
        }
        // tcpdump says `listening on` as it starts reading; give the ring a moment to be
        // attached before the first call (a capture started at once once came back empty).
        tokio::time::sleep(SETTLE).await;
        Ok(Capture {
            child,
            pcap: pcap.to_owned(),
            port,
        })
    }

    /// Waits until the capture holds the last call's packets, stops tcpdump cleanly and reads
    /// the capture back. `last_start` (seconds since the epoch) is when the last call began:
    /// tcpdump may not have read the kernel's ring yet on a loaded machine (a capture stopped
    /// right after the calls once came back empty, and once held the last call's request but
    /// not its answer), so the file is polled until it holds an answer segment from then on
    /// and stops growing, [`CATCH_UP`] at most (a last call that got no answer waits it out).
    pub(crate) async fn stop(mut self, last_start: Option<f64>) -> anyhow::Result<Vec<Packet>> {
        tokio::time::sleep(GRACE).await;
        let deadline = tokio::time::Instant::now() + CATCH_UP;
        let mut before = None;
        loop {
            let now = std::fs::read(&self.pcap)
                .ok()
                .and_then(|b| pcap::read(&b, self.port).ok());
            let count = now.as_ref().map(Vec::len);
            let caught_up = now.as_deref().is_some_and(|p| caught_up(p, last_start));
            if (caught_up && count == before) || tokio::time::Instant::now() >= deadline {
                break;
            }
            before = count;
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        if let Some(pid) = self.child.id() {
            let _ = std::process::Command::new("kill")
                .args(["-INT", &pid.to_string()])
                .status();
        }
        let _ = tokio::time::timeout(Duration::from_secs(5), self.child.wait()).await;
        let _ = self.child.kill().await;
        let bytes = std::fs::read(&self.pcap)
            .with_context(|| format!("cannot read the capture `{}`", self.pcap.display()))?;
        pcap::read(&bytes, self.port)
            .with_context(|| format!("cannot read the capture `{}`", self.pcap.display()))
    }
}

/// Whether `packets` reach the last call: a data segment from the server sent after
/// `last_start` (its answer; tcpdump interrupted before reading it would lose it), or any
/// packet when there is no call to wait for.
fn caught_up(packets: &[Packet], last_start: Option<f64>) -> bool {
    match last_start {
        Some(t) => packets
            .iter()
            .any(|p| p.time >= t && !p.to_server && p.len > 0),
        None => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_capture_has_caught_up_only_once_the_last_answer_is_in() {
        let packet = |time, to_server, len| Packet {
            time,
            to_server,
            flags: if len > 0 { "P." } else { "S" }.into(),
            len,
            client_port: 40000,
        };
        // The last call (from t = 10) has its handshake and request, not yet its answer.
        let mut p = vec![
            packet(9.0, false, 300),
            packet(10.0, true, 0),
            packet(10.1, false, 0),
            packet(10.2, true, 361),
        ];
        assert!(!caught_up(&p, Some(10.0)));
        p.push(packet(10.3, false, 116));
        assert!(caught_up(&p, Some(10.0)));
        assert!(caught_up(&[], None));
    }
}
