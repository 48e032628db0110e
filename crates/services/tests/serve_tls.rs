//! `soapstone serve --tls-cert --tls-key` as a user runs it: the real `soapstone-serve` binary
//! on a free loopback port with a certificate made at test time (rcgen), called over
//! `https://` by the soapstone client trusting the test CA; a key that does not fit and a lone
//! `--tls-cert` stop the process with exit code 2 and a clear message.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use bytes::Bytes;
use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair};
use soapstone_client::{Client, ClientConfig};
use soapstone_codec::Version;

const BIN: &str = env!("CARGO_BIN_EXE_soapstone-serve");

const ECHO: &str = r#"<?xml version="1.0"?>
<SOAP-ENV:Envelope xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/" xmlns:ns1="http://soapinterop.org/" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" SOAP-ENV:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"><SOAP-ENV:Body><ns1:echoString><inputString xsi:type="xsd:string">over tls</inputString></ns1:echoString></SOAP-ENV:Body></SOAP-ENV:Envelope>"#;

/// Writes `ca.pem`, `cert.pem` (for `localhost`) and `key.pem` into `dir`.
fn write_pki(dir: &Path, ca_name: &str) {
    let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.distinguished_name.push(DnType::CommonName, ca_name);
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca = CertifiedIssuer::self_signed(ca, KeyPair::generate().unwrap()).unwrap();
    let key = KeyPair::generate().unwrap();
    let leaf = CertificateParams::new(vec!["localhost".to_owned()])
        .unwrap()
        .signed_by(&key, &ca)
        .unwrap();
    std::fs::write(dir.join("ca.pem"), ca.pem()).unwrap();
    std::fs::write(dir.join("cert.pem"), leaf.pem()).unwrap();
    std::fs::write(dir.join("key.pem"), key.serialize_pem()).unwrap();
}

/// A running `soapstone-serve`, killed when dropped.
struct Serve(Child);

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test]
async fn serve_https_and_call_it() {
    let dir = tempfile::tempdir().unwrap();
    write_pki(dir.path(), "serve tls test ca");
    let (cert, key) = (dir.path().join("cert.pem"), dir.path().join("key.pem"));
    let mut child = Command::new(BIN)
        .args(["--addr", "127.0.0.1:0", "--services", "echo", "--tls-cert"])
        .arg(&cert)
        .arg("--tls-key")
        .arg(&key)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start soapstone-serve");
    let stdout = child.stdout.take().unwrap();
    let _serve = Serve(child);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { return };
            if let Some(addr) = line.strip_prefix("listening on ") {
                let _ = tx.send(addr.to_owned());
            }
        }
    });
    let listening = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("`listening on`");
    let port = listening
        .strip_prefix("https://127.0.0.1:")
        .unwrap_or_else(|| panic!("not an https banner: {listening}"));
    let ca = std::fs::read(dir.path().join("ca.pem")).unwrap();
    let config = ClientConfig::default().tls_ca_pem(&ca).unwrap();
    let client = Client::with_config(&format!("https://localhost:{port}/echo"), config).unwrap();
    let answer = client
        .call_raw(
            Version::Soap11,
            Some("http://soapinterop.org/"),
            Bytes::from_static(ECHO.as_bytes()),
        )
        .await
        .unwrap();
    assert_eq!(answer.status, 200);
    let body = String::from_utf8_lossy(&answer.body);
    assert!(body.contains("over tls"), "{body}");
}

fn refused(args: &[&std::ffi::OsStr]) -> (Option<i32>, String) {
    let out = Command::new(BIN)
        .args(["--addr", "127.0.0.1:0", "--services", "echo"])
        .args(args)
        .output()
        .expect("run soapstone-serve");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.code(), stderr)
}

#[test]
fn bad_tls_flags_stop_with_exit_code_2() {
    let dir = tempfile::tempdir().unwrap();
    write_pki(dir.path(), "first");
    let other = tempfile::tempdir().unwrap();
    write_pki(other.path(), "second");
    let cert = dir.path().join("cert.pem");
    let other_key = other.path().join("key.pem");
    let (code, err) = refused(&[
        "--tls-cert".as_ref(),
        cert.as_os_str(),
        "--tls-key".as_ref(),
        other_key.as_os_str(),
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("certificate and key do not fit"), "{err}");

    let (code, err) = refused(&["--tls-cert".as_ref(), cert.as_os_str()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--tls-key"), "{err}");
}
