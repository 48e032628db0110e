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

/// A loopback port held for a peer that takes its port by number, from before it starts until
/// the test ends. The old way (a listener on port 0, dropped, its number handed over) races:
/// until the peer binds, any other test may take the port, and the peer then fails to bind or the
/// test calls somebody else's server.
///
/// The reservation is a socket bound to the port with `SO_REUSEADDR` that never listens: Linux
/// then gives the port to no port-0 bind, no outgoing connection and no socket without
/// `SO_REUSEADDR`, while the peer, binding it by number with `SO_REUSEADDR` as the JVM, PHP,
/// Python's servers and the lab's gSOAP server all do, can (the same as
/// `crates/services/tests/common/port.rs`). A connection to it before the peer listens is
/// refused, so the wait below cannot mistake anybody else for the peer.
pub(crate) struct ReservedPort {
    _socket: tokio::net::TcpSocket,
    pub(crate) port: u16,
}

impl ReservedPort {
    pub(crate) fn new() -> ReservedPort {
        let socket = tokio::net::TcpSocket::new_v4().expect("a TCP socket");
        socket.set_reuseaddr(true).expect("SO_REUSEADDR");
        socket
            .bind(std::net::SocketAddr::from(([127, 0, 0, 1], 0)))
            .expect("bind 127.0.0.1:0");
        let port = socket.local_addr().expect("its address").port();
        ReservedPort {
            _socket: socket,
            port,
        }
    }
}

/// Runs `command` (placeholders filled) on the reserved `port` and waits until the port
/// accepts, and with `banner` until it printed `listening on` (a JVM may take a while on a
/// loaded machine: up to two minutes). A peer that exits first fails the test with its output.
pub(crate) async fn start(
    command: &[String],
    port: &ReservedPort,
    banner: bool,
) -> tokio::process::Child {
    let port = port.port;
    let args: Vec<String> = command
        .iter()
        .map(|a| {
            a.replace("{port}", &port.to_string())
                .replace("{host}", "127.0.0.1")
        })
        .collect();
    let shown = args.join(" ");
    let log =
        std::env::temp_dir().join(format!("soapstone-peer-{}-{port}.log", std::process::id()));
    let out = std::fs::File::create(&log).unwrap();
    let mut child = tokio::process::Command::new(&args[0])
        .args(&args[1..])
        .stdout(if banner {
            Stdio::piped()
        } else {
            out.try_clone().unwrap().into()
        })
        .stderr(out)
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start `{shown}`: {e}"));
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
            // Drained from now on: a peer must not block on (or die of) a closed stdout.
            tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        }
        loop {
            if let Ok(Some(status)) = child.try_wait() {
                let said = read_and_remove(&log);
                panic!("`{shown}` exited ({status}) before listening on port {port}: {said}");
            }
            if tokio::net::TcpStream::connect(("127.0.0.1", port))
                .await
                .is_ok()
            {
                break;
            }
            // Polling a port for readiness: there is nothing to wait on instead.
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    };
    if tokio::time::timeout(Duration::from_secs(120), up)
        .await
        .is_err()
    {
        let said = read_and_remove(&log);
        panic!("`{shown}` not listening on port {port} within 120 s: {said}");
    }
    let _ = std::fs::remove_file(&log);
    child
}

/// What a peer said before it failed; its log is not left behind.
fn read_and_remove(log: &std::path::Path) -> String {
    let said = std::fs::read_to_string(log).unwrap_or_default();
    let _ = std::fs::remove_file(log);
    said
}
