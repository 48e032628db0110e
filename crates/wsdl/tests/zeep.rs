//! `inspect` lists the same operations as zeep, service by service and port by port, for every
//! WSDL under `testdata/` that zeep reads offline.
//!
//! Needs python3 with zeep. Without it the test says so loudly and passes, unless the `CI`
//! environment variable is set: then a missing zeep is a failure.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use soapstone_wsdl::read::{inspect, read, ReadOptions};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn wsdls(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            wsdls(&p, out);
        } else if p.extension().is_some_and(|e| e == "wsdl") {
            out.push(p);
        }
    }
}

fn zeep_available() -> bool {
    Command::new("python3")
        .args(["-c", "import zeep"])
        .status()
        .is_ok_and(|s| s.success())
}

type Ops = BTreeMap<String, BTreeMap<String, Vec<String>>>;

#[test]
fn inspect_lists_the_operations_zeep_lists() {
    if !zeep_available() {
        if std::env::var_os("CI").is_some() {
            panic!("zeep is required in CI: python3 -m pip install zeep");
        }
        eprintln!("\n*** SKIPPED: python3 cannot import zeep; install it to run this test ***\n");
        return;
    }
    let mut files = Vec::new();
    wsdls(&root().join("../../testdata"), &mut files);
    let output = Command::new("python3")
        .arg(root().join("tests/zeep_ops.py"))
        .arg(root().join("src/soapenc.xsd"))
        .args(&files)
        .output()
        .expect("run python3");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let zeep: Vec<serde_json::Value> = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(zeep.len(), files.len());
    let (mut same, mut zeep_only, mut ours_only, mut both_refuse) = (0, Vec::new(), Vec::new(), 0);
    let (mut differ, mut extra) = (Vec::new(), Vec::new());
    for (file, z) in files.iter().zip(&zeep) {
        let name = file.display().to_string();
        let ours = read(&name, &ReadOptions::default());
        match (z.get("services"), ours) {
            (Some(services), Ok(defs)) => {
                let theirs: Ops = serde_json::from_value(services.clone()).unwrap();
                let mut mine = Ops::new();
                for s in &defs.services {
                    for p in &s.ports {
                        mine.entry(s.name.local.clone())
                            .or_default()
                            .insert(p.name.clone(), Vec::new());
                    }
                }
                for s in inspect(&defs) {
                    let ops = mine
                        .entry(s.service)
                        .or_default()
                        .entry(s.port)
                        .or_default();
                    // zeep leaves out an operation whose messages are not all defined.
                    if s.problem.is_none() {
                        ops.push(s.operation);
                    }
                }
                for ports in mine.values_mut() {
                    for ops in ports.values_mut() {
                        ops.sort();
                        ops.dedup();
                    }
                }
                // Every port zeep lists has the same operations here. soapstone may list more
                // ports and services (those of imported WSDLs, which zeep leaves out, and a
                // binding it finds by local name); they are printed, not compared.
                let mut ok = true;
                for (service, ports) in &theirs {
                    for (port, ops) in ports {
                        let ours = mine.get(service).and_then(|p| p.get(port));
                        if ours != Some(ops) {
                            ok = false;
                        }
                    }
                }
                if ok {
                    same += 1;
                    if mine != theirs {
                        extra.push(format!("{name}\n    zeep: {theirs:?}\n    ours: {mine:?}"));
                    }
                } else {
                    differ.push(format!("{name}\n    zeep: {theirs:?}\n    ours: {mine:?}"));
                }
            }
            (Some(_), Err(e)) => zeep_only.push(format!("{e}")),
            (None, Ok(_)) => ours_only.push(format!("{name} (zeep: {})", z["error"])),
            (None, Err(_)) => both_refuse += 1,
        }
    }
    println!(
        "{} WSDLs: same operations {same}, both refuse {both_refuse}, only zeep reads {}, only soapstone reads {}, different operations {}",
        files.len(),
        zeep_only.len(),
        ours_only.len(),
        differ.len()
    );
    for z in &zeep_only {
        println!("  only zeep reads: {z}");
    }
    for o in &ours_only {
        println!("  only soapstone reads: {o}");
    }
    for d in &extra {
        println!("  soapstone lists more: {d}");
    }
    for d in &differ {
        println!("  different: {d}");
    }
    assert!(differ.is_empty(), "operation lists differ from zeep's");
    // lxml (zeep's parser) binds an undeclared prefix in recovery mode; such a document is
    // not namespace-well-formed XML and soapstone refuses it with the line and column.
    for z in &zeep_only {
        assert!(
            z.contains("not namespace-well-formed XML: the prefix"),
            "zeep reads a WSDL that soapstone refuses: {z}"
        );
    }
}
