//! Every port of the `testdata/` WSDLs that lowers to a service model also generates code
//! (which `generate` parses back with syn before formatting it), and the types that carry
//! attributes or text content come out with their wire names in `#[serde(rename)]`:
//! `cargo test -p soapstone-codegen --test corpus -- --nocapture` prints the counts.

use std::path::{Path, PathBuf};

use soapstone_wsdl::read::{read, ReadOptions};
use soapstone_wsdl::TypeDef;

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
fn every_lowered_port_generates_code() {
    let mut files = Vec::new();
    wsdls(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata"),
        &mut files,
    );
    let (mut generated, mut with_markup, mut failed) = (0, 0, Vec::new());
    for f in &files {
        let Ok(defs) = read(&f.display().to_string(), &ReadOptions::default()) else {
            continue;
        };
        for s in &defs.services {
            for p in &s.ports {
                let Ok(model) = defs.service_model(&s.name.local, &p.name) else {
                    continue;
                };
                let markup: Vec<&str> = model
                    .schema
                    .types()
                    .iter()
                    .filter_map(|t| match &t.def {
                        TypeDef::Struct(fields) => Some(fields),
                        _ => None,
                    })
                    .flatten()
                    .filter(|f| !f.is_element())
                    .map(|f| f.name.as_str())
                    .collect();
                match soapstone_codegen::generate(&model, "Service") {
                    Ok(code) => {
                        generated += 1;
                        if !markup.is_empty() {
                            with_markup += 1;
                            for wire in &markup {
                                assert!(
                                    code.contains(&format!("rename = \"{wire}\"")),
                                    "{}: `{wire}` not in the generated code",
                                    f.display()
                                );
                            }
                        }
                    }
                    Err(e) => failed.push(format!("{}: {}: {e}", f.display(), p.name)),
                }
            }
        }
    }
    println!("generated {generated} ports ({with_markup} with attributes or text content)");
    assert!(failed.is_empty(), "{failed:#?}");
    // Every port that lowers (`soapstone-wsdl`'s corpus test): 118 of 147.
    assert!(generated >= 118, "generated {generated} ports");
    assert!(with_markup >= 10, "{with_markup} ports with attributes");
}

/// A service named with underscores (node-soap's `Hello_Service`) gives PascalCase Rust names,
/// so generated code raises no `non_camel_case_types` warning.
#[test]
fn service_names_become_pascal_case() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/node-soap/wsdl/hello.wsdl");
    let defs =
        read(&path.display().to_string(), &ReadOptions::default()).expect("hello.wsdl reads");
    let model = defs
        .service_model("Hello_Service", "Hello_Port")
        .expect("Hello_Port lowers");
    let code = soapstone_codegen::generate(&model, &model.name).expect("generates");
    assert!(code.contains("pub trait HelloService:"), "{code}");
    assert!(code.contains("pub struct HelloServiceClient"), "{code}");
    assert!(!code.contains("Hello_Service:"), "{code}");
}
