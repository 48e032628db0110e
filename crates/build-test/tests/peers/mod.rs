//! Starting the lab's third-party peers (`lab/peers/setup.sh` builds them into
//! `lab/peers/build/` and lists their start commands in `manifest.json`) for the generated-client
//! interop tests. `SOAPSTONE_PEERS_BUILD` names another build directory (a shared checkout's).
//! A peer that is not built is `None`: the caller skips loudly (these peers download from Maven
//! Central or need compilers, so `.ci/run` does not build them and CI does not require them).

#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

/// The peers' build directory.
pub(crate) fn build_dir() -> PathBuf {
    std::env::var_os("SOAPSTONE_PEERS_BUILD")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(ROOT).join("lab/peers/build"))
}

/// A ready server peer of the manifest: its start command (`{port}`, `{host}` placeholders)
/// and the path it serves.
pub(crate) struct Peer {
    pub(crate) command: Vec<String>,
    pub(crate) path: String,
    /// It prints `listening on ...` once it serves (a JVM listens before it serves).
    pub(crate) banner: bool,
}

/// The manifest entry `id`, if built and ready.
pub(crate) fn peer(id: &str) -> Option<Peer> {
    let text = std::fs::read_to_string(build_dir().join("manifest.json")).ok()?;
    let manifest: serde_json::Value = serde_json::from_str(&text).ok()?;
    let p = manifest["peers"]
        .as_array()?
        .iter()
        .find(|p| p["id"] == id && p["status"] == "ready")?;
    Some(Peer {
        command: p["command"]
            .as_array()?
            .iter()
            .filter_map(|c| c.as_str().map(str::to_owned))
            .collect(),
        path: p["path"].as_str().unwrap_or("/").to_owned(),
        banner: p["banner"].as_bool().unwrap_or(false),
    })
}

/// Says loudly that `what` is skipped.
pub(crate) fn skip(what: &str, how: &str) {
    eprintln!("\n*** SKIPPED: {what} is not built; {how} ***\n");
}

/// A free loopback port.
pub(crate) fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Runs `command` (placeholders filled) and waits until `port` accepts, and with `banner`
/// until it printed `listening on` (a JVM may take a while on a loaded machine: up to two
/// minutes).
pub(crate) async fn start(command: &[String], port: u16, banner: bool) -> tokio::process::Child {
    let args: Vec<String> = command
        .iter()
        .map(|a| {
            a.replace("{port}", &port.to_string())
                .replace("{host}", "127.0.0.1")
        })
        .collect();
    let mut child = tokio::process::Command::new(&args[0])
        .args(&args[1..])
        .stdout(if banner {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start `{}`: {e}", args.join(" ")));
    let stdout = child.stdout.take();
    let up = async {
        if let Some(out) = stdout {
            use tokio::io::AsyncBufReadExt as _;
            let mut lines = tokio::io::BufReader::new(out).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                if line.starts_with("listening on") {
                    break;
                }
            }
        }
        while tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_err()
        {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(120), up)
        .await
        .unwrap_or_else(|_| panic!("`{}` listens in time", args.join(" ")));
    child
}
