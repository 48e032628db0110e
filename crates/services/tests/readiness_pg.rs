//! `soapstone-serve` on PostgreSQL: `/readyz` follows the store. PostgreSQL stopped: `503 not
//! ready: ...` while `/healthz` stays `200` and charging requests fail fast with a Server fault;
//! PostgreSQL back: ready again and serving, by itself.

mod common;

use std::process::Stdio;
use std::time::{Duration, Instant};

use soapstone_services::charging::ChargingClient;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::Command;

/// A GET over a real TcpStream (`Connection: close`).
async fn get(base: &str, path: &str) -> (u16, String) {
    let addr = base.trim_start_matches("http://").parse().unwrap();
    let reply = common::server::get(addr, path).await;
    (reply.status, reply.body)
}

/// Polls `/readyz` until it answers `status` (at most 30 s).
async fn wait_ready(base: &str, status: u16) -> String {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (code, body) = get(base, "/readyz").await;
        if code == status {
            return body;
        }
        assert!(Instant::now() < deadline, "/readyz stuck at {code} {body}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readiness_follows_postgresql() {
    let Some(pg) = common::pg::PgServer::start() else {
        return;
    };
    let url = pg.create_db("readiness").await;
    let mut child = Command::new(env!("CARGO_BIN_EXE_soapstone-serve"))
        .args([
            "--services",
            "charging",
            "--addr",
            "127.0.0.1:0",
            "--accounts",
            "20",
        ])
        .args(["--db", &url])
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
    assert_eq!(get(&base, "/readyz").await, (200, "ready\n".to_owned()));
    let c = ChargingClient::new(&format!("{base}/charging")).unwrap();
    c.credit(1, 5).await.unwrap();

    pg.stop();
    let why = wait_ready(&base, 503).await;
    assert!(
        why.starts_with("not ready: storage failed: postgresql"),
        "{why}"
    );
    assert_eq!(get(&base, "/healthz").await.0, 200, "alive all the same");
    let asked = Instant::now();
    let e = c.credit(1, 5).await.unwrap_err();
    let fault = e.fault().expect("a SOAP fault");
    assert_eq!(fault.code, soapstone_codec::FaultCode::Server, "{fault:?}");
    assert!(
        fault.reason.starts_with("storage failed: "),
        "{}",
        fault.reason
    );
    assert!(
        asked.elapsed() < Duration::from_secs(10),
        "fails fast, not after {:?}",
        asked.elapsed()
    );

    pg.start_again();
    wait_ready(&base, 200).await;
    // The pool's broken connections are replaced by themselves.
    let deadline = Instant::now() + Duration::from_secs(30);
    while c.credit(1, 5).await.is_err() {
        assert!(
            Instant::now() < deadline,
            "serving again after PostgreSQL came back"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    child.start_kill().unwrap();
}
