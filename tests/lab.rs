//! End to end: the real `soapstone lab` binary runs two experiments with tiny windows against
//! real servers it spawns on loopback, and its `results.json` and `report.md` must hold positive
//! numbers from those runs beside the seeds' published figures.
//!
//! No timing is asserted: only that every measured cell is filled from a real run.

use std::path::PathBuf;
use std::process::Command;

use soapstone_lab::{PlacementKind, Results, Run};

struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn lab(only: &str) -> (TempDir, Results) {
    lab_with(only, "off")
}

/// The lab on `only` with `--lan LAN` (the emulated LAN has its own test below).
fn lab_with(only: &str, lan: &str) -> (TempDir, Results) {
    // One directory per call: the tests run in parallel, and each removes its own when done.
    let dir = std::env::temp_dir().join(format!(
        "soapstone-lab-test-{}-{}-{lan}",
        std::process::id(),
        only.replace(',', "-")
    ));
    let _ = std::fs::remove_dir_all(&dir);
    let dir = TempDir(dir);
    let status = Command::new(env!("CARGO_BIN_EXE_soapstone"))
        .args([
            "lab",
            "--quick",
            "--only",
            only,
            "--duration",
            "0.2s",
            "--warmup",
            "0.05s",
            // Third-party peers have their own test (tests/peers.rs).
            "--peers",
            "none",
            "--lan",
            lan,
        ])
        .arg("--out")
        .arg(&dir.0)
        .status()
        .expect("run soapstone lab");
    assert!(status.success(), "soapstone lab failed: {status}");
    let results = soapstone_lab::read_results(&dir.0.join("results.json")).expect("results.json");
    (dir, results)
}

fn runs<'a>(r: &'a Results, exp: &str, system: &str) -> Vec<&'a Run> {
    r.runs
        .iter()
        .filter(|x| x.experiment == exp && x.system == system)
        .collect()
}

#[test]
fn echo_and_dp_fill_the_report_from_real_runs() {
    let (dir, results) = lab("echo,dp");
    assert!(
        results.problems.is_empty(),
        "problems: {:#?}",
        results.problems
    );

    for system in ["soapstone", "tcp-pingpong", "grpc", "http-noop"] {
        let echo = runs(&results, "echo", system);
        assert_eq!(
            echo.len(),
            2,
            "{system}: one same-CPU and one cross-CPU echo run"
        );
        let kinds: Vec<PlacementKind> = echo.iter().map(|r| r.settings.placement.kind).collect();
        assert!(kinds.contains(&PlacementKind::SameCpu), "{kinds:?}");
        assert!(kinds.contains(&PlacementKind::CrossCpu), "{kinds:?}");
        for r in echo {
            assert!(r.p50_us > 0.0 && r.p99_us >= r.p50_us, "{r:?}");
            assert!(r.throughput_rps > 0.0 && r.ok > 0, "{r:?}");
            assert_eq!(r.errors + r.timeouts, 0, "{r:?}");
            assert!(r
                .settings
                .command
                .as_deref()
                .unwrap_or("")
                .contains("bench"));
        }
    }
    // dp: 7 operations x 2 placements for soapstone, and the TCP setup baseline.
    let dp = runs(&results, "dp", "soapstone");
    assert_eq!(dp.len(), 14);
    assert!(dp.iter().all(|r| r.p50_us > 0.0 && r.ok > 0));
    assert_eq!(runs(&results, "dp", "tcp-connect").len(), 2);

    let md = std::fs::read_to_string(dir.0.join("report.md")).expect("report.md");
    // The headline ratios are numbers, not dashes. (A point faster than the floor, which a
    // loaded machine can measure, is still a number, flagged: `⚠ above the floor: ×1.10`.)
    for system in ["tcp-pingpong", "grpc", "http-noop"] {
        let line = md
            .lines()
            .find(|l| l.starts_with(&format!("| soapstone ÷ {system} |")))
            .unwrap_or_else(|| panic!("no ratio row for {system}:\n{md}"));
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        for c in &cells[2..4] {
            let x: f64 = c
                .trim_start_matches("⚠ above the floor: ")
                .trim_start_matches('×')
                .parse()
                .unwrap_or_else(|_| panic!("not a ratio in {line}"));
            assert!(x > 0.0, "{line}");
        }
    }
    // Published figures sit beside today's: Table I's Apache Axis row and today's soapstone row.
    assert!(
        md.contains("| Apache Axis | 15.6 |"),
        "Table I published row missing"
    );
    let soap_row = md
        .lines()
        .find(|l| l.starts_with("| soapstone (SOAP, HTTP/1.1) |"))
        .expect("today's soapstone row in Table I");
    assert!(!soap_row.contains('–'), "unmeasured cells in {soap_row}");
    assert!(
        md.contains("| Apache xml-axis | 93.7 |"),
        "Ruby's published rate missing"
    );

    let html = std::fs::read_to_string(dir.0.join("index.html")).expect("index.html");
    assert!(html.contains("<svg"), "no plot in index.html");
}

/// Davis & Parashar's separate-host points on the emulated LAN (two network namespaces), where
/// this machine permits it (root, `ip`, `tc`); skips loudly otherwise.
#[test]
fn dp_runs_on_the_emulated_lan_where_permitted() {
    let (_dir, results) = lab_with("dp", "on");
    let lan = results.lan.clone().unwrap_or_default();
    if !lan.starts_with("two network namespaces") {
        eprintln!("SKIPPED dp_runs_on_the_emulated_lan_where_permitted: {lan}");
        assert!(
            results.problems.iter().any(|p| p.contains("emulated LAN")),
            "a LAN that could not be made must be a problem: {:#?}",
            results.problems
        );
        return;
    }
    let on_lan = |system: &str| {
        results
            .runs
            .iter()
            .filter(|r| {
                r.experiment == "dp"
                    && r.system == system
                    && r.settings.placement.kind == soapstone_lab::PlacementKind::Lan
            })
            .count()
    };
    assert_eq!(on_lan("soapstone"), 7, "problems: {:#?}", results.problems);
    assert_eq!(on_lan("tcp-connect"), 1);
}

/// Issue 11's TLS row: the echo server over https (a certificate the lab made) beside plain
/// http, every point answered, and the ratio rows filled with numbers.
#[test]
fn tls_row_compares_https_with_plain_from_real_runs() {
    let (dir, results) = lab("tls");
    assert!(
        results.problems.is_empty(),
        "problems: {:#?}",
        results.problems
    );
    for system in ["soapstone-http", "soapstone-https"] {
        let tls = runs(&results, "tls", system);
        assert_eq!(tls.len(), 4, "{system}: 2 loads x 2 placements");
        for r in tls {
            assert!(
                r.p50_us > 0.0 && r.throughput_rps > 0.0 && r.ok > 0,
                "{r:?}"
            );
            assert_eq!(r.errors + r.timeouts, 0, "{r:?}");
        }
    }
    let https = runs(&results, "tls", "soapstone-https");
    assert!(https.iter().all(|r| r
        .settings
        .command
        .as_deref()
        .unwrap_or("")
        .contains("--tls-ca")));
    let md = std::fs::read_to_string(dir.0.join("report.md")).expect("report.md");
    for what in ["p50 round trip", "throughput"] {
        let line = md
            .lines()
            .find(|l| l.starts_with(&format!("| TLS / plain ({what}) |")))
            .unwrap_or_else(|| panic!("no ratio row for {what}:\n{md}"));
        assert!(
            line.matches('×').count() == 2 && !line.contains('–'),
            "{line}"
        );
    }
}
