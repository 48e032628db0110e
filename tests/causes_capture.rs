//! The thesis's packet pattern, from a capture: `soapstone trace --json` against the real
//! `soapstone serve` on loopback, each cause on purpose and cured.
//!
//! - the server's causes (Nagle, two writes): each answer leaves as two data segments, head
//!   then body, and on the kept connection the client's delayed ACK stalls the body;
//! - the client reading to EOF: every call has its own connection and ends at the server's
//!   FIN, which the timeline counts inside the call;
//! - cured: one data segment per answer and no stall.
//!
//! Without tcpdump or the right to capture the tests say `SKIPPED` and pass, except under
//! `CI=true` with tcpdump installed (CI installs it to run these): there a refused capture is
//! a failure, so that CI cannot silently stop checking the packets.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// A directory removed when the test ends.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let p = std::env::temp_dir().join(format!("soapstone-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The calls of `soapstone trace URL --json` with `extra` arguments, or `None` when capture
/// cannot run here (skipped, said loudly).
fn traced(url: &str, dir: &Path, name: &str, extra: &[&str]) -> Option<Vec<Value>> {
    let json = dir.join(format!("{name}.json"));
    let out = Command::new(env!("CARGO_BIN_EXE_soapstone"))
        .args(["trace", url, "--calls", "4", "--pcap"])
        .arg(dir.join(format!("{name}.pcap")))
        .arg("--json")
        .arg(&json)
        .args(extra)
        .output()
        .expect("run soapstone trace");
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        assert!(
            stderr.contains("tcpdump") || stderr.contains("capture not permitted"),
            "{stderr}"
        );
        let tcpdump = Command::new("tcpdump").arg("--version").output().is_ok();
        if std::env::var("CI").as_deref() == Ok("true") && tcpdump {
            panic!("CI has tcpdump but the capture failed: {stderr}");
        }
        eprintln!("SKIPPED: {stderr}");
        return None;
    }
    let file: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert!(file["capture_error"].is_null(), "{file}");
    assert!(file["command"]
        .as_str()
        .unwrap()
        .starts_with("soapstone trace"));
    Some(file["calls"].as_array().unwrap().clone())
}

/// The packets of a call before it had its answer.
fn during(call: &Value) -> Vec<&Value> {
    call["packets"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| !p["after_call"].as_bool().unwrap())
        .collect()
}

/// Payload sizes of the server's data segments in a call.
fn answer_segments(call: &Value) -> Vec<u64> {
    during(call)
        .iter()
        .filter(|p| !p["to_server"].as_bool().unwrap() && p["len"].as_u64().unwrap() > 0)
        .map(|p| p["len"].as_u64().unwrap())
        .collect()
}

fn stalls(call: &Value) -> Vec<&str> {
    during(call)
        .iter()
        .filter_map(|p| p["stall"].as_str())
        .collect()
}

#[test]
fn the_server_causes_send_two_writes_and_stall_on_the_delayed_ack() {
    let dir = TempDir::new("causes-server");
    let (_naive, base) = common::serve(&["--naive", "nagle,split-writes"]);
    let url = format!("{base}/echo");
    let Some(calls) = traced(&url, &dir.0, "server", &["--warmup", "3"]) else {
        return;
    };
    assert_eq!(calls.len(), 4);
    for c in &calls {
        assert_eq!(c["status"], 200, "{c}");
        let segs = answer_segments(c);
        // Head then body: the head is the small one (the thesis's packets 5 and 7).
        assert_eq!(segs.len(), 2, "{c}");
        assert!(segs[0] < segs[1], "{c}");
    }
    // On the kept connection (warm, out of quick-ACK mode) the body waits for the ACK the
    // client delays: named in the capture, not inferred from the time.
    let stalled = calls
        .iter()
        .filter(|c| stalls(c) == ["delayed ACK", "Nagle: held until that ACK"])
        .count();
    assert!(stalled >= 2, "{calls:?}");
}

#[test]
fn a_read_to_eof_client_ends_each_call_at_the_servers_fin() {
    let dir = TempDir::new("causes-eof");
    let (_naive, base) = common::serve(&["--naive", "nagle,split-writes"]);
    let url = format!("{base}/echo");
    // Under a loaded machine tcpdump has been seen to lose a call's last packets (1 run in 5):
    // its answer, or the server's FIN (CI, once: the client's FIN and the server's ACK of it
    // were captured, the FIN the client had read to was not). A capture in which some call
    // lacks either is taken again, up to twice. The pattern is then checked on every call.
    let server_fin = |c: &Value| {
        during(c)
            .iter()
            .any(|p| !p["to_server"].as_bool().unwrap() && p["flags"] == "F.")
    };
    let mut attempt = 0;
    let calls = loop {
        let Some(calls) = traced(&url, &dir.0, "eof", &["--naive", "read-to-eof"]) else {
            return;
        };
        attempt += 1;
        let whole = calls
            .iter()
            .all(|c| !answer_segments(c).is_empty() && server_fin(c));
        if attempt == 3 || whole {
            break calls;
        }
        eprintln!(
            "a call's answer or the server's FIN is missing from the capture: capturing again"
        );
    };
    for c in &calls {
        let p = during(c);
        assert_eq!(p[0]["flags"], "S", "a connection per call: {c}");
        // The answer in two writes, then the FIN the client read until, inside the call.
        assert_eq!(answer_segments(c).len(), 2, "{c}");
        let fin = p
            .iter()
            .position(|p| !p["to_server"].as_bool().unwrap() && p["flags"] == "F.")
            .unwrap_or_else(|| panic!("no server FIN before the answer: {c}"));
        let last_data = p
            .iter()
            .rposition(|p| !p["to_server"].as_bool().unwrap() && p["len"].as_u64().unwrap() > 0)
            .unwrap();
        assert!(fin > last_data, "{c}");
    }
}

#[test]
fn the_cured_server_answers_in_one_segment_without_a_stall() {
    let dir = TempDir::new("causes-cured");
    let (_cured, base) = common::serve::<&str>(&[]);
    let url = format!("{base}/echo");
    let Some(calls) = traced(&url, &dir.0, "cured", &["--warmup", "3"]) else {
        return;
    };
    for c in &calls {
        assert_eq!(answer_segments(c).len(), 1, "{c}");
        assert!(stalls(c).is_empty(), "{c}");
        // Nothing from the server closes the connection: no FIN inside the call.
        assert!(during(c).iter().all(|p| p["flags"] != "F."), "{c}");
    }
}

#[test]
fn without_a_capture_the_lab_still_gets_the_timings_and_the_reason() {
    // An interface that does not exist: tcpdump refuses it (or is missing) on any machine.
    let dir = TempDir::new("causes-nocap");
    let (_cured, base) = common::serve::<&str>(&[]);
    let json = dir.0.join("nocap.json");
    let out = Command::new(env!("CARGO_BIN_EXE_soapstone"))
        .args(["trace", &format!("{base}/echo"), "--calls", "3"])
        .args([
            "--interface",
            "soapstone-none0",
            "--timings-without-capture",
        ])
        .arg("--pcap")
        .arg(dir.0.join("nocap.pcap"))
        .arg("--json")
        .arg(&json)
        .output()
        .expect("run soapstone trace");
    assert!(out.status.success(), "{out:?}");
    let file: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let why = file["capture_error"].as_str().unwrap();
    assert!(
        why.contains("tcpdump") || why.contains("soapstone-none0"),
        "{why}"
    );
    assert!(file["pcap"].is_null());
    let calls = file["calls"].as_array().unwrap();
    assert_eq!(calls.len(), 3);
    for c in calls {
        assert_eq!(c["status"], 200);
        assert!(c["ms"].as_f64().unwrap() > 0.0);
        assert!(c["packets"].as_array().unwrap().is_empty());
    }
    // Without the lab's flag the same refusal is an error, and no call is made.
    let out = Command::new(env!("CARGO_BIN_EXE_soapstone"))
        .args([
            "trace",
            &format!("{base}/echo"),
            "--interface",
            "soapstone-none0",
        ])
        .arg("--pcap")
        .arg(dir.0.join("nocap2.pcap"))
        .output()
        .expect("run soapstone trace");
    assert!(!out.status.success());
    assert!(!String::from_utf8_lossy(&out.stdout).contains("call 1"));
}
