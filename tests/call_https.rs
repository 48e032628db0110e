//! End to end over TLS: the real `soapstone serve --tls-cert --tls-key` (a certificate made at
//! test time with rcgen), and `soapstone wsdl inspect` / `soapstone call` reading its WSDL from
//! an `https://` URL and calling it, trusting the test CA through `--tls-ca`. Without that CA
//! (the default Mozilla roots) and with another CA, both refuse with exit code 1 and say why.

mod common;

use std::path::Path;

use common::{serve, soapstone};

use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair};

/// Writes `ca.pem`, `cert.pem` (for `localhost` and `127.0.0.1`) and `key.pem` into `dir`.
fn write_pki(dir: &Path, ca_name: &str) {
    let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.distinguished_name.push(DnType::CommonName, ca_name);
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca = CertifiedIssuer::self_signed(ca, KeyPair::generate().unwrap()).unwrap();
    let key = KeyPair::generate().unwrap();
    let leaf = CertificateParams::new(vec!["localhost".to_owned(), "127.0.0.1".to_owned()])
        .unwrap()
        .signed_by(&key, &ca)
        .unwrap();
    std::fs::write(dir.join("ca.pem"), ca.pem()).unwrap();
    std::fs::write(dir.join("cert.pem"), leaf.pem()).unwrap();
    std::fs::write(dir.join("key.pem"), key.serialize_pem()).unwrap();
}

#[test]
fn inspect_and_call_over_https() {
    let dir = tempfile::tempdir().unwrap();
    write_pki(dir.path(), "soapstone test CA");
    let other = tempfile::tempdir().unwrap();
    write_pki(other.path(), "another CA");
    let (_serve, base) = serve(&[
        "--tls-cert".as_ref(),
        dir.path().join("cert.pem").as_os_str(),
        "--tls-key".as_ref(),
        dir.path().join("key.pem").as_os_str(),
    ]);
    assert!(base.starts_with("https://"), "{base}");
    let wsdl = format!("{base}/echo?wsdl");
    let ca = dir.path().join("ca.pem");
    let ca = ca.to_str().unwrap();

    let out = soapstone(&["wsdl", "inspect", &wsdl, "--tls-ca", ca]);
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("Service: InteropTest\n"), "{text}");

    // The endpoint comes from the WSDL's soap:address, which names https.
    let out = soapstone(&[
        "call",
        &wsdl,
        "echoString",
        "--json",
        r#"{"inputString":"over tls"}"#,
        "--tls-ca",
        ca,
    ]);
    assert!(out.status.success(), "{out:?}");
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(value, serde_json::json!("over tls"));

    // The default roots do not know the test CA; nor does another CA.
    let out = soapstone(&["wsdl", "inspect", &wsdl]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("UnknownIssuer"), "{err}");
    let other_ca = other.path().join("ca.pem");
    let out = soapstone(&[
        "call",
        &wsdl,
        "echoString",
        "--json",
        r#"{"inputString":"x"}"#,
        "--tls-ca",
        other_ca.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("UnknownIssuer"), "{err}");
}
