//! Every `curl` line of `docs/services.md` runs against a real `soapstone serve` (all services,
//! default seed) and its answer contains the block's `# expect:` text.

mod common;

use common::server::TestServer;
use soapstone_services::{Db, ServicesConfig};

const DOC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/services.md");

/// `(expected text, command)` of every ```sh block.
fn blocks(doc: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for block in doc.split("```sh\n").skip(1) {
        let block = block.split("\n```").next().unwrap();
        let expect = block
            .lines()
            .find_map(|l| l.strip_prefix("# expect: "))
            .unwrap_or_else(|| panic!("a curl block without `# expect:`:\n{block}"))
            .to_string();
        let command: Vec<&str> = block.lines().skip_while(|l| l.starts_with('#')).collect();
        out.push((expect, command.join("\n")));
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_curl_line_of_the_docs_works() {
    let curl = tokio::process::Command::new("curl")
        .arg("--version")
        .output()
        .await;
    if !curl.is_ok_and(|o| o.status.success()) {
        return common::skip_unless_ci("curl is required for the docs test (apt-get install curl)");
    }
    let doc = std::fs::read_to_string(DOC).expect("docs/services.md");
    let blocks = blocks(&doc);
    assert!(blocks.len() >= 15, "found {} curl blocks", blocks.len());

    let dir = tempfile::tempdir().unwrap();
    let mut config = ServicesConfig::default();
    config.db = Db::Sqlite(dir.path().join("charging.db"));
    let server = TestServer::start(config).await;
    let base = format!("http://{}", server.addr);
    for (expect, command) in blocks {
        assert!(
            command.starts_with("curl "),
            "one curl command per block: {command}"
        );
        let command = command.replace("http://localhost:8080", &base);
        let out = tokio::process::Command::new("bash")
            .arg("-c")
            .arg(&command)
            .output()
            .await
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "`{command}` failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            stdout.contains(&expect),
            "`{command}`\nexpected `{expect}` in:\n{stdout}"
        );
    }
    server.stop().await;
}
