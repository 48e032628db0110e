//! The WSDL reader under hostile and mutated documents: every WSDL of `testdata/` mutated
//! byte by byte, and documents built to stress the reader's bounds (import cycles, include
//! chains past `max_documents`, recursive and circular types, huge `maxOccurs`, deep nesting,
//! many operations), served from memory through [`ReadOptions::fetch`]. Whatever the input,
//! [`read`](soapstone_wsdl::read::read_str), lowering every port to a model and `inspect` end
//! in `Ok` or an error naming the file (and the line where there is one), never a panic, and
//! within a watchdog's generous bound (a hang, not a speed, fails).
//!
//! `PROPTEST_CASES` runs a longer campaign; finds are saved in `fuzz_read.proptest-regressions`
//! and become named tests in `regressions` below.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use proptest::prelude::*;
use soapstone_mutate::{config, Mutator};
use soapstone_wsdl::read::{inspect, read_str, Fetch, ReadOptions};

/// Every WSDL of `testdata/`, as (path, text).
fn corpus() -> &'static [(String, Vec<u8>)] {
    static CORPUS: OnceLock<Vec<(String, Vec<u8>)>> = OnceLock::new();
    CORPUS.get_or_init(|| {
        fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
            for e in std::fs::read_dir(dir).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    walk(&p, out);
                } else if p.extension().is_some_and(|e| e == "wsdl" || e == "xsd") {
                    out.push(p);
                }
            }
        }
        let mut files = Vec::new();
        walk(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata"),
            &mut files,
        );
        files.sort();
        assert!(files.len() > 250, "{} WSDL and XSD files", files.len());
        files
            .into_iter()
            .map(|p| (p.display().to_string(), std::fs::read(&p).unwrap()))
            .collect()
    })
}

/// Reads `text` as the WSDL at `location` (other documents from `docs`, by URL), lowers every
/// port and inspects: must end, must not panic, and an error must say where.
fn exercise(text: String, location: String, docs: HashMap<String, String>) -> Result<(), String> {
    let (tx, rx) = std::sync::mpsc::channel();
    let loc = location.clone();
    let worker = std::thread::Builder::new()
        .name("read".into())
        .spawn(move || {
            let docs = Arc::new(docs);
            let fetch: Fetch = Arc::new(move |url: &str| {
                docs.get(url)
                    .cloned()
                    .ok_or_else(|| format!("no document `{url}`"))
            });
            let mut options = ReadOptions::default();
            options.fetch = Some(fetch);
            let res = match read_str(&String::from_utf8_lossy(text.as_bytes()), &loc, &options) {
                Ok(defs) => {
                    for s in &defs.services {
                        for p in &s.ports {
                            let _ = defs.service_model(&s.name.local, &p.name);
                        }
                    }
                    let _ = inspect(&defs);
                    Ok(())
                }
                Err(e) if e.message.is_empty() || e.loc.file.is_empty() => {
                    Err(format!("an error that does not say what or where: {e:?}"))
                }
                Err(_) => Ok(()),
            };
            let _ = tx.send(res);
        })
        .unwrap();
    match rx.recv_timeout(Duration::from_secs(120)) {
        Ok(res) => {
            worker.join().unwrap();
            res
        }
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
            Err(format!("reading `{location}` did not end in 120 s"))
        }
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
            Err(format!("reading `{location}` panicked"))
        }
    }
}

const WSDL_HEAD: &str = r#"<definitions xmlns="http://schemas.xmlsoap.org/wsdl/" xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:tns="urn:t" targetNamespace="urn:t">"#;

/// A WSDL with one document/literal operation whose input element is `element`, the schema
/// holding `types`.
fn wsdl(types: &str, ops: usize) -> String {
    let mut s = String::from(WSDL_HEAD);
    s.push_str(&format!(r#"<types><xsd:schema targetNamespace="urn:t" elementFormDefault="qualified">{types}</xsd:schema></types>"#));
    s.push_str(
        r#"<message name="m"><part name="p" element="tns:root"/></message><portType name="pt">"#,
    );
    for i in 0..ops {
        s.push_str(&format!(r#"<operation name="op{i}"><input message="tns:m"/><output message="tns:m"/></operation>"#));
    }
    s.push_str(r#"</portType><binding name="b" type="tns:pt"><soap:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>"#);
    for i in 0..ops {
        s.push_str(&format!(r#"<operation name="op{i}"><soap:operation soapAction="op{i}"/><input><soap:body use="literal"/></input><output><soap:body use="literal"/></output></operation>"#));
    }
    s.push_str(r#"</binding><service name="s"><port name="p" binding="tns:b"><soap:address location="http://localhost/s"/></port></service></definitions>"#);
    s
}

fn hostile(which: usize, n: usize) -> (String, HashMap<String, String>) {
    let mut docs = HashMap::new();
    let text = match which {
        // recursive and mutually recursive types
        0 => wsdl(
            r#"<xsd:element name="root" type="tns:A"/><xsd:complexType name="A"><xsd:sequence><xsd:element name="a" type="tns:A" minOccurs="0"/><xsd:element name="b" type="tns:B"/></xsd:sequence></xsd:complexType><xsd:complexType name="B"><xsd:sequence><xsd:element name="a" type="tns:A" maxOccurs="unbounded"/></xsd:sequence></xsd:complexType>"#,
            1,
        ),
        // circular derivation
        1 => wsdl(
            r#"<xsd:element name="root" type="tns:A"/><xsd:complexType name="A"><xsd:complexContent><xsd:extension base="tns:B"/></xsd:complexContent></xsd:complexType><xsd:complexType name="B"><xsd:complexContent><xsd:extension base="tns:A"/></xsd:complexContent></xsd:complexType>"#,
            1,
        ),
        2 => wsdl(
            r#"<xsd:element name="root" type="tns:S"/><xsd:simpleType name="S"><xsd:restriction base="tns:T"/></xsd:simpleType><xsd:simpleType name="T"><xsd:restriction base="tns:S"/></xsd:simpleType>"#,
            1,
        ),
        // group, attribute group and element ref cycles, a substitution group on itself
        3 => wsdl(
            r#"<xsd:element name="root"><xsd:complexType><xsd:sequence><xsd:group ref="tns:g"/></xsd:sequence><xsd:attributeGroup ref="tns:ag"/></xsd:complexType></xsd:element><xsd:group name="g"><xsd:sequence><xsd:group ref="tns:h"/></xsd:sequence></xsd:group><xsd:group name="h"><xsd:sequence><xsd:group ref="tns:g"/></xsd:sequence></xsd:group><xsd:attributeGroup name="ag"><xsd:attributeGroup ref="tns:ag"/></xsd:attributeGroup>"#,
            1,
        ),
        4 => wsdl(
            r#"<xsd:element name="root" ref="tns:root"/><xsd:element name="x" substitutionGroup="tns:x"/>"#,
            1,
        ),
        // huge or odd occurrence bounds
        5 => wsdl(
            &format!(
                r#"<xsd:element name="root"><xsd:complexType><xsd:sequence><xsd:element name="a" type="xsd:int" minOccurs="{0}" maxOccurs="{1}"/></xsd:sequence></xsd:complexType></xsd:element>"#,
                ["0", "99999999999999999999", "-1", "4294967296", "1"][n % 5],
                ["99999999999999999999", "4294967295", "-1", "unbounded", "0"][n % 5]
            ),
            1,
        ),
        // an array type of a huge rank
        6 => wsdl(
            &format!(
                r#"<xsd:import namespace="http://schemas.xmlsoap.org/soap/encoding/"/><xsd:element name="root" type="tns:A"/><xsd:complexType name="A"><xsd:complexContent><xsd:restriction base="soapenc:Array" xmlns:soapenc="http://schemas.xmlsoap.org/soap/encoding/"><xsd:attribute ref="soapenc:arrayType" wsdl:arrayType="xsd:int{}" xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/"/></xsd:restriction></xsd:complexContent></xsd:complexType>"#,
                "[]".repeat(n % 2000)
            ),
            1,
        ),
        // nesting of anonymous types
        7 => {
            let depth = n % 3000;
            let open = r#"<xsd:complexType><xsd:sequence><xsd:element name="e">"#.repeat(depth);
            let close = "</xsd:element></xsd:sequence></xsd:complexType>".repeat(depth);
            wsdl(
                &format!(r#"<xsd:element name="root">{open}{close}</xsd:element>"#),
                1,
            )
        }
        // many operations
        8 => wsdl(
            r#"<xsd:element name="root" type="xsd:string"/>"#,
            1 + n % 5000,
        ),
        // a WSDL import cycle
        9 => {
            let me = format!(
                r#"{WSDL_HEAD}<import namespace="urn:t" location="http://x/b.wsdl"/></definitions>"#
            );
            docs.insert("http://x/b.wsdl".into(), format!(r#"{WSDL_HEAD}<import namespace="urn:t" location="http://x/a.wsdl"/></definitions>"#));
            docs.insert("http://x/a.wsdl".into(), me.clone());
            me
        }
        // an include chain of `n` schemas, past `max_documents` when long
        10 => {
            let len = n % 700;
            for i in 0..len {
                let next = if i + 1 < len {
                    format!(r#"<xsd:include schemaLocation="http://x/{}.xsd"/>"#, i + 1)
                } else {
                    r#"<xsd:element name="root" type="xsd:string"/>"#.into()
                };
                docs.insert(format!("http://x/{i}.xsd"), format!(r#"<xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:t">{next}</xsd:schema>"#));
            }
            wsdl(r#"<xsd:include schemaLocation="http://x/0.xsd"/>"#, 1)
        }
        // schemas importing each other (allowed) and including themselves
        11 => {
            docs.insert("http://x/a.xsd".into(), r#"<xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:a"><xsd:import namespace="urn:b" schemaLocation="http://x/b.xsd"/><xsd:include schemaLocation="http://x/a.xsd"/></xsd:schema>"#.into());
            docs.insert("http://x/b.xsd".into(), r#"<xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:b"><xsd:import namespace="urn:a" schemaLocation="http://x/a.xsd"/><xsd:import namespace="urn:t" schemaLocation="http://x/a.xsd"/></xsd:schema>"#.into());
            wsdl(
                r#"<xsd:import namespace="urn:a" schemaLocation="http://x/a.xsd"/><xsd:element name="root" type="xsd:string"/>"#,
                1,
            )
        }
        // a chain of named types, each extending the next
        _ => {
            let len = n % 3000;
            let mut types = String::from(r#"<xsd:element name="root" type="tns:T0"/>"#);
            for i in 0..len {
                types.push_str(&format!(r#"<xsd:complexType name="T{i}"><xsd:complexContent><xsd:extension base="tns:T{}"><xsd:sequence><xsd:element name="e{i}" type="xsd:int"/></xsd:sequence></xsd:extension></xsd:complexContent></xsd:complexType>"#, i + 1));
            }
            types.push_str(&format!(r#"<xsd:complexType name="T{len}"/>"#));
            wsdl(&types, 1)
        }
    };
    (text, docs)
}

#[test]
fn hostile_shapes_end_in_a_model_or_an_error() {
    for which in 0..13 {
        for n in [0, 1, 2, 3, 4, 511, 512, 1500, 2999, 4999] {
            let (text, docs) = hostile(which, n);
            exercise(text, "http://x/a.wsdl".into(), docs)
                .unwrap_or_else(|e| panic!("shape {which}, n {n}: {e}"));
        }
    }
}

const SNIPPETS: &[&str] = &[
    "<",
    ">",
    "&",
    "\"",
    "&#0;",
    "<!DOCTYPE d [<!ENTITY e 'x'>]>",
    "<!-- c -->",
    "<![CDATA[x]]>",
    " maxOccurs=\"99999999999999999999\"",
    " minOccurs=\"-1\"",
    " maxOccurs=\"unbounded\"",
    " type=\"tns:Missing\"",
    " base=\"xsd:anyType\"",
    " ref=\"tns:x\"",
    " xmlns:tns=\"\"",
    " name=\"\"",
    "<xsd:include schemaLocation=\"\"/>",
    "<xsd:import namespace=\"urn:x\" schemaLocation=\"http://x/a.wsdl\"/>",
    "<import namespace=\"urn:t\" location=\"http://x/a.wsdl\"/>",
    "<xsd:complexType name=\"R\"><xsd:complexContent><xsd:extension base=\"tns:R\"/></xsd:complexContent></xsd:complexType>",
    "<xsd:group name=\"G\"><xsd:sequence><xsd:group ref=\"tns:G\"/></xsd:sequence></xsd:group>",
    "<xsd:choice><xsd:sequence><xsd:any/></xsd:sequence></xsd:choice>",
    "<operation name=\"op\"/>",
    "\u{FFFE}",
    "é",
];

const MUTATOR: Mutator<&str> = Mutator {
    snippets: SNIPPETS,
    max_delete: 80,
    max_duplicate: 400,
    insert_weight: 1,
};

proptest! {
    #![proptest_config(config(300))]

    #[test]
    fn mutated_testdata_wsdls_end_in_a_model_or_an_error(which in any::<usize>(), ops in proptest::collection::vec(MUTATOR.op(), 1..5)) {
        let files = corpus();
        let (path, bytes) = &files[which % files.len()];
        let text = String::from_utf8_lossy(&MUTATOR.apply(bytes.clone(), &ops)).into_owned();
        // the mutated text stands in for the file, so its relative imports still resolve
        exercise(text, path.clone(), HashMap::new()).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn mutated_hostile_shapes_end_in_a_model_or_an_error(which in 0usize..13, n in 0usize..700, ops in proptest::collection::vec(MUTATOR.op(), 0..4)) {
        let (text, docs) = hostile(which, n);
        let text = String::from_utf8_lossy(&MUTATOR.apply(text.into_bytes(), &ops)).into_owned();
        exercise(text, "http://x/a.wsdl".into(), docs).map_err(TestCaseError::fail)?;
    }
}

mod regressions {
    //! Inputs that once crashed or stalled the reader; kept as ordinary tests.
    use super::*;

    fn read_err(which: usize, n: usize) -> String {
        let (text, docs) = hostile(which, n);
        let docs = Arc::new(docs);
        let mut options = ReadOptions::default();
        options.fetch = Some(Arc::new(move |url: &str| {
            docs.get(url)
                .cloned()
                .ok_or_else(|| format!("no document `{url}`"))
        }));
        match read_str(&text, "http://x/a.wsdl", &options) {
            Ok(_) => "read".into(),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn deeply_nested_anonymous_types_are_refused_not_a_stack_overflow() {
        // 511 nested anonymous types (1,533 element levels, 70 KB) overflowed the reading
        // thread's stack (2 MiB) inside roxmltree, which recurses per level: the process
        // aborted.
        assert_eq!(
            read_err(7, 511),
            "http://x/a.wsdl:1: xml nested deeper than 100 elements (ReadOptions::max_depth)"
        );
        // 83 of them (249 levels) overflowed it in the schema reader, which recurses per
        // nested type: found by `mutated_hostile_shapes_end_in_a_model_or_an_error`
        assert_eq!(
            read_err(7, 83),
            "http://x/a.wsdl:1: xml nested deeper than 100 elements (ReadOptions::max_depth)"
        );
        assert_eq!(read_err(7, 30), "read");
    }

    #[test]
    fn a_long_include_chain_is_refused_not_a_stack_overflow() {
        // 511 schemas each including the next (under `max_documents`) overflowed the stack:
        // every included document is read inside the one that includes it.
        assert_eq!(
            read_err(10, 511),
            "http://x/62.xsd:1: imports and includes nested deeper than 64 documents (ReadOptions::max_import_depth)"
        );
        assert_eq!(read_err(10, 40), "read");
    }

    #[test]
    fn a_long_derivation_chain_reads_in_linear_time() {
        // 3,000 named types each extending the next: the cycle check walked every type's
        // whole chain with a linear `contains` (cubic: 17 s for 1,000 types in a debug
        // build, minutes for these); it now stops at a type already checked.
        assert_eq!(read_err(12, 2999), "read");
        // past 32 levels lowering refuses it, saying why (it once called an extension chain a
        // restriction: "restriction of `T33`: the service model has no complex restrictions")
        let (text, docs) = hostile(12, 40);
        let docs = Arc::new(docs);
        let mut options = ReadOptions::default();
        options.fetch = Some(Arc::new(move |url: &str| {
            docs.get(url)
                .cloned()
                .ok_or_else(|| format!("no document `{url}`"))
        }));
        let defs = read_str(&text, "http://x/a.wsdl", &options).unwrap();
        let err = defs.service_model("s", "p").unwrap_err().to_string();
        assert!(
            err.ends_with("extension of `T33`: more than 32 types derived one from another"),
            "{err}"
        );
        assert_eq!(
            read_err(1, 0).split(": ").nth(1),
            Some("type `A` derives from itself")
        );
    }
}
