//! `soapstone-serve --drain-grace`: on SIGTERM `/readyz` turns `503 draining` at once while the
//! process keeps answering SOAP requests for the grace, then it exits cleanly. This is what lets
//! a load balancer take a replica out before its connections close.

mod common;

use std::process::Stdio;
use std::time::{Duration, Instant};

use soapstone_services::charging::ChargingClient;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::Command;

async fn readyz(base: &str) -> (u16, String) {
    get(base, "/readyz").await
}

/// A GET over a real TcpStream (`Connection: close`).
async fn get(base: &str, path: &str) -> (u16, String) {
    let addr = base.trim_start_matches("http://").parse().unwrap();
    let reply = common::server::get(addr, path).await;
    (reply.status, reply.body)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_turns_readiness_off_for_the_grace_then_exits() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_soapstone-serve"))
        .args([
            "--services",
            "charging",
            "--addr",
            "127.0.0.1:0",
            "--accounts",
            "10",
        ])
        // The grace is long enough that the calls below land in it on a loaded machine.
        .args(["--drain-grace", "10s", "--db"])
        .arg(dir.path().join("c.db"))
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let base = tokio::time::timeout(Duration::from_secs(60), async {
        while let Some(line) = lines.next_line().await.unwrap() {
            if let Some(url) = line.strip_prefix("listening on ") {
                return url.to_owned();
            }
        }
        panic!("exited before listening");
    })
    .await
    .unwrap();
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    assert_eq!(readyz(&base).await, (200, "ready\n".to_owned()));
    let c = ChargingClient::new(&format!("{base}/charging")).unwrap();
    c.credit(1, 5).await.unwrap();

    let pid = child.id().unwrap().to_string();
    let termed = Instant::now();
    assert!(Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .await
        .unwrap()
        .success());
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let (code, body) = readyz(&base).await;
        if code == 503 {
            assert_eq!(body, "draining\n");
            break;
        }
        assert!(
            Instant::now() < deadline,
            "readiness never turned: {code} {body}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // Still serving during the grace, on a new connection too.
    c.credit(1, 5).await.unwrap();
    ChargingClient::new(&format!("{base}/charging"))
        .unwrap()
        .credit_control(1)
        .await
        .unwrap();
    let status = tokio::time::timeout(Duration::from_secs(60), child.wait())
        .await
        .expect("exits after the grace and the drain")
        .unwrap();
    assert!(status.success(), "clean exit: {status:?}");
    assert!(
        termed.elapsed() >= Duration::from_secs(10),
        "exited {:?} after SIGTERM, before the grace",
        termed.elapsed()
    );
}
