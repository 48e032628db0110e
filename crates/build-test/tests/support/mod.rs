//! What the generated-server tests share: a server on a free port, a raw HTTP POST (the wire as
//! sent, no client of ours in between) and running a zeep script against a served WSDL.
#![allow(dead_code, unreachable_pub)]

use std::net::SocketAddr;
use std::process::Output;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// POSTs `body` to `path` with `SOAPAction: "action"` over a fresh connection, reads to the close
/// the request asked for: (status, the whole response as text).
pub async fn post(addr: SocketAddr, path: &str, action: &str, body: &str) -> (u16, String) {
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml; charset=utf-8\r\nSOAPAction: \"{action}\"\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    s.write_all(format!("{head}{body}").as_bytes())
        .await
        .unwrap();
    let mut buf = Vec::new();
    tokio::time::timeout(Duration::from_secs(30), s.read_to_end(&mut buf))
        .await
        .expect("an answer in time")
        .unwrap();
    let text = String::from_utf8(buf).unwrap();
    let status = text[9..12].parse().unwrap();
    (status, text)
}

/// Whether zeep can run here. Without it: `false` (the test skips, said loudly), or a panic under
/// `CI`, where it is required.
pub fn zeep_or_skip() -> bool {
    let available = std::process::Command::new("python3")
        .args(["-c", "import zeep"])
        .status()
        .is_ok_and(|s| s.success());
    if !available {
        if std::env::var_os("CI").is_some() {
            panic!("zeep is required in CI: python3 -m pip install zeep");
        }
        eprintln!("\n*** SKIPPED: python3 cannot import zeep; install it to run this test ***\n");
    }
    available
}

/// Runs `tests/SCRIPT` with the WSDL's URL, within two minutes.
pub async fn run_zeep(script: &str, wsdl_url: &str) -> Output {
    let script = format!("{}/tests/{script}", env!("CARGO_MANIFEST_DIR"));
    tokio::time::timeout(
        Duration::from_secs(120),
        tokio::process::Command::new("python3")
            .arg(script)
            .arg(wsdl_url)
            .output(),
    )
    .await
    .expect("zeep finishes in time")
    .expect("run python3")
}

/// A `soapstone` server on a free loopback port, stopped (and awaited) by [`Running::stop`].
pub struct Running {
    pub addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<()>,
}

impl Running {
    pub async fn stop(mut self) {
        let _ = self.stop.take().unwrap().send(());
        let _ = tokio::time::timeout(Duration::from_secs(30), self.task).await;
    }
}

/// Serves each `(path, service)` on a free port of 127.0.0.1.
pub async fn serve(
    mounts: Vec<(&str, std::sync::Arc<dyn soapstone_service::SoapService>)>,
) -> Running {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let mut builder = soapstone_server::Server::builder();
    for (path, service) in mounts {
        builder = builder.mount(path, service);
    }
    let serving = builder
        .serve_with_shutdown(listener, async move {
            let _ = rx.await;
        })
        .unwrap();
    let addr = serving.local_addr();
    let task = tokio::spawn(async move {
        let _ = std::future::IntoFuture::into_future(serving).await;
    });
    Running {
        addr,
        stop: Some(tx),
        task,
    }
}
