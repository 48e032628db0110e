//! zeep (Python) builds a client from every WSDL the services publish and calls every operation,
//! offline (loopback only). Needs `python3` with `zeep` (`pip install zeep`): the test fails with
//! that message when they are missing.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use common::server::TestServer;
use soapstone_services::charging::{charging_model, SeedConfig};
use soapstone_services::contacts::contacts_model;
use soapstone_services::dp::dp_model;
use soapstone_services::echo::{group_b_model, interop_model, sam_ruby_model};
use soapstone_services::wsb::{card_model, news_model, shop_model};
use soapstone_services::{Db, ServicesConfig};

const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/zeep/call_all.py");

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn zeep_calls_every_operation_of_every_wsdl() {
    let probe = tokio::process::Command::new("python3")
        .args(["-c", "import zeep"])
        .output()
        .await;
    match probe {
        Ok(o) if o.status.success() => {}
        Ok(o) => {
            return common::skip_unless_ci(&format!(
                "python3 has no zeep (pip install zeep): {}",
                String::from_utf8_lossy(&o.stderr)
            ))
        }
        Err(e) => {
            return common::skip_unless_ci(&format!(
                "python3 is required for the zeep interop test: {e}"
            ))
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let mut config = ServicesConfig::default();
    config.db = Db::Sqlite(dir.path().join("charging.db"));
    config.seed = SeedConfig::with_accounts(50);
    let server = TestServer::start(config).await;

    let out = tokio::process::Command::new("python3")
        .arg(SCRIPT)
        .arg(format!("http://{}", server.addr))
        .output()
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "zeep failed: {}{}",
        String::from_utf8_lossy(&out.stderr),
        stdout
    );
    let report: serde_json::Value = serde_json::from_str(stdout.trim()).expect("one JSON line");
    let calls: BTreeMap<String, BTreeSet<String>> =
        serde_json::from_value(report["calls"].clone()).unwrap();

    for model in [
        charging_model(),
        dp_model(),
        interop_model(),
        group_b_model(),
        sam_ruby_model(),
        contacts_model(),
        card_model(),
        news_model(),
        shop_model(),
    ] {
        let called = calls
            .get(&model.name)
            .unwrap_or_else(|| panic!("zeep never called `{}`", model.name));
        let all: BTreeSet<String> = model.operations.iter().map(|o| o.name.clone()).collect();
        assert_eq!(called, &all, "operations of `{}` zeep called", model.name);
    }
    server.stop().await;
}
