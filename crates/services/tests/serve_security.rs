//! `soapstone serve` as an operator secures it, through the real `soapstone-serve` binary: a
//! non-loopback address without TLS and authentication is refused (exit code 2); with
//! `--auth cert` a charging client is known by its certificate and one without is refused;
//! `/metrics` moves to `--metrics-addr`; SIGHUP reloads the certificate files.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair};
use soapstone_client::{Client, ClientConfig};
use soapstone_services::charging::ChargingClient;
use soapstone_wssec::{UserEntry, UsersFile};

const BIN: &str = env!("CARGO_BIN_EXE_soapstone-serve");

struct Serve(Child);

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn ca(name: &str) -> CertifiedIssuer<'static, KeyPair> {
    let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.distinguished_name.push(DnType::CommonName, name);
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    CertifiedIssuer::self_signed(ca, KeyPair::generate().unwrap()).unwrap()
}

/// A leaf for `name` signed by `ca`: (pem, key pem, der).
fn leaf(ca: &CertifiedIssuer<'static, KeyPair>, name: &str) -> (String, String, Vec<u8>) {
    let key = KeyPair::generate().unwrap();
    let cert = CertificateParams::new(vec![name.to_owned()])
        .unwrap()
        .signed_by(&key, ca)
        .unwrap();
    (cert.pem(), key.serialize_pem(), cert.der().to_vec())
}

fn write_server_cert(dir: &Path, ca: &CertifiedIssuer<'static, KeyPair>) {
    let (pem, key, _) = leaf(ca, "localhost");
    std::fs::write(dir.join("cert.pem"), pem).unwrap();
    std::fs::write(dir.join("key.pem"), key).unwrap();
}

#[test]
fn beyond_loopback_without_tls_and_auth_exits_2() {
    let out = Command::new(BIN)
        .args(["--addr", "0.0.0.0:0", "--services", "echo"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("refusing to serve `0.0.0.0:0` beyond this machine"),
        "{err}"
    );
    assert!(err.contains("`--insecure`"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn certificate_users_metrics_port_and_sighup_reload() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let server_ca = ca("server ca");
    write_server_cert(d, &server_ca);
    let client_ca = ca("client ca");
    std::fs::write(d.join("client-ca.pem"), client_ca.pem()).unwrap();
    let (op_pem, op_key, op_der) = leaf(&client_ca, "operator");
    let (stranger_pem, stranger_key, _) = leaf(&client_ca, "stranger");
    let entry = UserEntry::new(["read".to_owned(), "move".to_owned()]).certificate(&op_der);
    UsersFile::write_user(&d.join("users.toml"), "operator", entry).unwrap();

    let mut child = Command::new(BIN)
        .args([
            "--addr",
            "127.0.0.1:0",
            "--services",
            "charging",
            "--accounts",
            "20",
        ])
        .arg("--db")
        .arg(d.join("charging.db"))
        .arg("--tls-cert")
        .arg(d.join("cert.pem"))
        .arg("--tls-key")
        .arg(d.join("key.pem"))
        .arg("--tls-client-ca")
        .arg(d.join("client-ca.pem"))
        .args(["--auth", "cert", "--metrics-addr", "127.0.0.1:0", "--users"])
        .arg(d.join("users.toml"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (stdout, stderr) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let pid = child.id();
    let _serve = Serve(child);
    let (tx, rx) = mpsc::channel();
    let tx2 = tx.clone();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = tx2.send(line);
        }
    });
    let wait_for = |prefix: &str| -> String {
        loop {
            let line = rx.recv_timeout(Duration::from_secs(60)).expect(prefix);
            if let Some(rest) = line.strip_prefix(prefix) {
                return rest.trim().to_owned();
            }
        }
    };
    let metrics = wait_for("metrics ");
    let listening = wait_for("listening on ");
    let port = listening
        .strip_prefix("https://127.0.0.1:")
        .unwrap()
        .to_owned();
    let url = format!("https://localhost:{port}/charging");

    let client = |cert: &str, key: &str, ca: &str| {
        let config = ClientConfig::default()
            .tls_client_cert_pem(Some(ca.as_bytes()), cert.as_bytes(), key.as_bytes())
            .unwrap();
        ChargingClient::with_client(Client::with_config(&url, config).unwrap())
    };
    let operator = client(&op_pem, &op_key, &server_ca.pem());
    let before = operator.credit_control(3).await.unwrap();
    operator.credit(3, 11).await.unwrap();
    assert_eq!(operator.credit_control(3).await.unwrap(), before + 11);
    // A certificate the CA signed but no user holds: the handshake passes, the service refuses.
    let stranger = client(&stranger_pem, &stranger_key, &server_ca.pem());
    let e = stranger.credit(3, 11).await.unwrap_err();
    let fault = e.fault().unwrap_or_else(|| panic!("not a fault: {e}"));
    assert_eq!(
        fault.reason,
        "the security token could not be authenticated or authorized"
    );
    assert_eq!(operator.credit_control(3).await.unwrap(), before + 11);

    // Metrics: on their own address, nothing else there.
    let addr = metrics
        .strip_prefix("http://")
        .unwrap()
        .strip_suffix("/metrics")
        .unwrap();
    let ask = |request: &[u8]| {
        let mut s = std::net::TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        // The server may close before reading all of an oversized head.
        let _ = s.write_all(request);
        let mut answer = String::new();
        let _ = s.read_to_string(&mut answer);
        answer
    };
    let answer = ask(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
    assert!(answer.starts_with("HTTP/1.1 200 OK\r\n"), "{answer}");
    assert!(answer.contains("/charging"), "{answer}");
    let answer = ask(b"GET /charging?wsdl HTTP/1.1\r\nHost: x\r\n\r\n");
    assert!(answer.starts_with("HTTP/1.1 404 "), "{answer}");
    let answer = ask(b"POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n");
    assert!(answer.starts_with("HTTP/1.1 405 "), "{answer}");
    let mut huge = b"GET /metrics HTTP/1.1\r\nX: ".to_vec();
    huge.extend(std::iter::repeat_n(b'a', 9000));
    let answer = ask(&huge);
    assert!(answer.starts_with("HTTP/1.1 431 "), "{answer}");

    // SIGHUP after the files changed: new handshakes get the new certificate.
    let new_ca = ca("new server ca");
    write_server_cert(d, &new_ca);
    let status = Command::new("kill")
        .args(["-HUP", &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    wait_for("tls: certificate reloaded");
    let fresh = client(&op_pem, &op_key, &new_ca.pem());
    assert_eq!(fresh.credit_control(3).await.unwrap(), before + 11);
    let stale = client(&op_pem, &op_key, &server_ca.pem());
    let e = stale.credit_control(3).await.unwrap_err();
    assert!(e.is_tls(), "{e}");
}
