//! A client generated from the WSDL spyne publishes (`wsdl/spyne_dp.wsdl`: document/literal
//! with named wrapper types) calls the lab's real spyne server (`lab/peers/python`, run from the
//! peers' venv `lab/peers/build/venv`, built by `lab/peers/setup.sh --only python`) on loopback:
//! right values, and spyne's own fault for a bad argument.
//!
//! Without the venv the test says so loudly and passes, unless `CI` is set.

mod peers;

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use soapstone_build_test::spyne_dp::{IntegerArray, TestServiceClient};
use tokio::io::{AsyncBufReadExt, BufReader};

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

#[tokio::test]
async fn the_generated_client_calls_spyne() {
    let python = peers::build_dir().join("venv/bin/python");
    let has_spyne = std::process::Command::new(&python)
        .args(["-c", "import spyne"])
        .status()
        .is_ok_and(|s| s.success());
    if !has_spyne {
        if std::env::var_os("CI").is_some() {
            panic!("spyne is required in CI: lab/peers/setup.sh --only python");
        }
        eprintln!("\n*** SKIPPED: no spyne in lab/peers/build/venv; run lab/peers/setup.sh --only python ***\n");
        return;
    }
    // spyne binds port 0 and names the port it got on its `listening on` line.
    let mut child = tokio::process::Command::new(&python)
        .arg(Path::new(ROOT).join("lab/peers/python/spyne_server.py"))
        .arg("0")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("start spyne");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first = tokio::time::timeout(Duration::from_secs(60), lines.next_line())
        .await
        .expect("spyne starts in time")
        .unwrap()
        .unwrap_or_default();
    let base = first
        .strip_prefix("listening on ")
        .and_then(|url| url.strip_suffix("/dp"))
        .unwrap_or_else(|| panic!("not `listening on http://HOST:PORT/dp`: {first}"));
    assert!(!base.ends_with(":0"), "spyne named no port: {first}");

    let client = TestServiceClient::new(&format!("{base}/dp")).unwrap();
    let call = async {
        client.do_nothing().await.unwrap();
        let s = client.get_string_of_size(Some(30)).await.unwrap();
        assert_eq!(s.as_deref(), Some("abcdefghijklmnopqrstuvwxyzabcd"));
        let ints = client.get_integers_of_size(Some(5)).await.unwrap();
        assert_eq!(
            ints,
            Some(IntegerArray {
                integer: vec![0, 1, 2, 3, 4]
            })
        );
        // spyne's ArgumentError is a Client fault naming the size.
        let e = client.get_string_of_size(Some(-1)).await.unwrap_err();
        let fault = e.fault().expect("a fault");
        assert!(fault.reason.contains("`-1`"), "{fault:?}");
    };
    tokio::time::timeout(Duration::from_secs(120), call)
        .await
        .expect("spyne answers in time");
    child.kill().await.unwrap();
}
