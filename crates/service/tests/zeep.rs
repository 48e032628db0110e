//! zeep (Python) builds clients from the WSDLs a real soapstone server serves and calls every
//! operation of a document/literal and two rpc/encoded services, over both SOAP versions,
//! offline: its transport refuses any non-loopback URL (tests/zeep/loopback.py).
//!
//! Needs `python3` with zeep installed (`pip install zeep`); skipped with that message if not,
//! except under CI, where it fails.

mod common;

use std::process::Command;

fn python() -> String {
    std::env::var("PYTHON").unwrap_or_else(|_| "python3".to_string())
}

#[test]
fn zeep_clients_from_served_wsdl() {
    let probe = Command::new(python()).args(["-c", "import zeep"]).output();
    match probe {
        Ok(out) if out.status.success() => {}
        Ok(out) => {
            return skip_unless_ci(&format!(
                "this test needs python3 with zeep (`pip install zeep`): `import zeep` failed: {}",
                String::from_utf8_lossy(&out.stderr)
            ))
        }
        Err(e) => {
            return skip_unless_ci(&format!(
                "this test needs python3 with zeep (`pip install zeep`): cannot run `{}`: {e}",
                python()
            ))
        }
    }
    let server = common::start();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/zeep/echo_client.py");
    let out = Command::new(python())
        .arg(script)
        .arg(server.url("/literal?wsdl"))
        .arg(server.url("/encoded?wsdl"))
        .arg(server.url("/charging?wsdl"))
        .output()
        .expect("run the zeep script");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "zeep client failed ({}):\n{stdout}\n{stderr}",
        out.status
    );
    assert!(stdout.contains("checks ok"), "{stdout}");
}

/// A missing tool skips this test loudly on a developer's machine; under CI (`CI` set, as
/// `.ci/run` runs) it is a failure, since `.ci/run` installs everything the tests need.
fn skip_unless_ci(why: &str) {
    if std::env::var_os("CI").is_some() {
        panic!("{why} (CI is set: .ci/run installs it, so its absence is a failure)");
    }
    eprintln!("SKIPPED: {why}");
}
