//! Every port of the corpus (`testdata/`) that lowers to a service model also generates code:
//! generation never fails on a model the reader accepted. With `SOAPSTONE_CORPUS_OUT=<dir>`
//! the generated files are written there, one per port, so a scratch crate can compile them
//! all (`docs/wsdl-first.md` says how the counts in the issue were made).

use std::path::{Path, PathBuf};

use soapstone_wsdl::read::{read, ReadOptions};

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
fn every_lowered_corpus_port_generates_code_and_can_be_written_out() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata");
    let mut files = Vec::new();
    wsdls(&root, &mut files);
    let out = std::env::var_os("SOAPSTONE_CORPUS_OUT").map(PathBuf::from);
    let (mut generated, mut failed) = (0, Vec::new());
    for f in &files {
        let Ok(defs) = read(&f.display().to_string(), &ReadOptions::default()) else {
            continue;
        };
        for s in &defs.services {
            for p in &s.ports {
                let Ok(model) = defs.service_model(&s.name.local, &p.name) else {
                    continue;
                };
                match soapstone_codegen::generate(&model, &s.name.local) {
                    Ok(code) => {
                        generated += 1;
                        if let Some(dir) = &out {
                            std::fs::create_dir_all(dir).unwrap();
                            let path = dir.join(format!("port{generated}.rs"));
                            let head = format!("// {}: {} {}\n", f.display(), s.name.local, p.name);
                            std::fs::write(path, head + &code).unwrap();
                        }
                    }
                    Err(e) => failed.push(format!("{}: {}: {e}", f.display(), p.name)),
                }
            }
        }
    }
    println!("ports generated {generated}, failed {}", failed.len());
    assert!(failed.is_empty(), "{failed:#?}");
    assert!(generated >= 111, "{generated} ports generated");
}
