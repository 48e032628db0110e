//! The Round 2 peers that read literal only (Axis2 2.0 and spyne 2.14, document/literal
//! wrapped), started from the repository's own peer manifest (`lab/peers/build/manifest.json`,
//! written by `lab/peers/setup.sh`) exactly as the `round2` experiment starts them: their manifest
//! entries must list a `round2` path and the literal request form, and each of the fourteen
//! echoes sent in that form over a real socket must come back right. Where a peer is not built
//! on this machine the test says `SKIPPED` for it (peers are not in CI).

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::{check, literal, ECHOES};
use crate::peers::check::{http_body, post};
use crate::peers::server::PeerServer;
use crate::peers::Discovery;
use crate::procs::Launcher;

fn manifest() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../lab/peers/build/manifest.json")
}

async fn every_echo_right_on(id: &str, path: &str) {
    let found = Discovery::load(Some(&manifest()));
    let Some(peer) = found.ready.iter().find(|p| p.id == id) else {
        eprintln!(
            "SKIPPED: peer `{id}` is not ready in {}",
            manifest().display()
        );
        return;
    };
    // The manifest plumbing the experiment relies on.
    assert!(
        found.carrying("round2").iter().any(|p| p.id == id),
        "`{id}` does not carry round2: {:?}",
        peer.services
    );
    assert_eq!(peer.services.get("round2").map(String::as_str), Some(path));
    assert_eq!(peer.request.as_deref(), Some("literal"));
    let dir = tempfile::tempdir().unwrap();
    let launcher = Launcher {
        exe: PathBuf::from("/bin/false"),
        taskset: None,
        log_dir: dir.path().to_owned(),
        wrap: Vec::new(),
    };
    // A JVM on a loaded 2-core machine: generous.
    let mut server = PeerServer::start(&launcher, peer, None, Duration::from_secs(120))
        .await
        .unwrap();
    let mut wrong = Vec::new();
    for echo in &ECHOES {
        let action = format!("http://soapinterop.org/{}", echo.op);
        let answer = post(&server.addr(), path, &literal(echo.request), &action)
            .await
            .and_then(|raw| http_body(&raw))
            .and_then(|body| check(echo, &body));
        if let Err(why) = answer {
            wrong.push(format!("{}: {why}", echo.op));
        }
    }
    let state = server.state();
    server.stop().await.unwrap();
    assert!(wrong.is_empty(), "{id}: {wrong:?}\n{state}");
}

#[tokio::test]
async fn axis2_answers_every_round2_echo_in_the_literal_form() {
    every_echo_right_on("axis2", "/axis2/services/interop").await;
}

#[tokio::test]
async fn spyne_answers_every_round2_echo_in_the_literal_form() {
    every_echo_right_on("spyne", "/round2").await;
}
