//! End to end: `soapstone serve --naive all` on loopback, and `soapstone trace` against it
//! captures the thesis's pattern (the head, the client's delayed ACK, the body Nagle held back)
//! and names it; against the cured server it names no stall. Skipped, saying so, where tcpdump
//! is missing or capture is not permitted.

mod common;

use std::process::Command;

/// The echo endpoint of `soapstone serve EXTRA...`.
fn serve(extra: &[&str]) -> (common::Serve, String) {
    let (serve, base) = common::serve(extra);
    (serve, format!("{base}/echo"))
}

/// A directory removed when the test ends.
struct TempDir(std::path::PathBuf);

impl TempDir {
    fn path(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `soapstone trace`'s output, or `None` when capture cannot run here.
fn trace(url: &str, pcap: &std::path::Path) -> Option<String> {
    let out = Command::new(env!("CARGO_BIN_EXE_soapstone"))
        .args(["trace", url, "--calls", "6", "--pcap"])
        .arg(pcap)
        .output()
        .expect("run soapstone trace");
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        assert!(
            stderr.contains("tcpdump") || stderr.contains("capture not permitted"),
            "{stderr}"
        );
        eprintln!("SKIPPED: {stderr}");
        return None;
    }
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn trace_names_the_delayed_ack_and_nagle_of_a_naive_server() {
    let dir =
        TempDir(std::env::temp_dir().join(format!("soapstone-trace-test-{}", std::process::id())));
    let (_naive, url) = serve(&["--naive", "all"]);
    let Some(sick) = trace(&url, &dir.path().join("naive.pcap")) else {
        return;
    };
    assert!(sick.contains("<- delayed ACK"), "{sick}");
    assert!(sick.contains("<- Nagle: held until that ACK"), "{sick}");
    assert!(dir.path().join("naive.pcap").metadata().unwrap().len() > 24);
    let (_cured, url) = serve(&[]);
    let well = trace(&url, &dir.path().join("cured.pcap")).expect("capture ran once already");
    assert!(well.contains("call 6 (200)"), "{well}");
    assert!(
        !well.contains("delayed ACK") && !well.contains("Nagle"),
        "{well}"
    );
}
