//! Reader tests: WSDLs this crate writes read back to the same model, and hostile documents
//! are refused with the file and line.

use std::path::PathBuf;

use super::*;
use crate::tests::model;
use crate::{wsdl, BindingStyle};

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("soapstone-wsdl-read-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn write(name: &str, text: &str) -> String {
    let p = tmp(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

#[test]
fn a_written_wsdl_reads_back_to_the_same_model() {
    for style in [BindingStyle::DocumentLiteral, BindingStyle::RpcEncoded] {
        let original = model(style);
        let text = wsdl(&original, "http://127.0.0.1:9/book");
        let defs = read_str(&text, "book.wsdl", &ReadOptions::default()).unwrap();
        assert!(defs.problems.is_empty(), "{:?}", defs.problems);
        assert_eq!(defs.default_port("Book"), Some("BookSoap11Port"));
        for port in ["BookSoap11Port", "BookSoap12Port"] {
            let lowered = defs.service_model("Book", port).unwrap();
            assert_eq!(
                wsdl(&lowered, "http://127.0.0.1:9/book"),
                text,
                "{style:?} {port}"
            );
        }
    }
}

#[test]
fn a_one_way_operation_is_written_input_only_and_reads_back() {
    for style in [BindingStyle::DocumentLiteral, BindingStyle::RpcEncoded] {
        let mut original = model(style);
        let mut log = crate::OperationModel::one_way("log", "urn:book#log");
        log.input.push(crate::Part::new(
            "line",
            <String as crate::XsdType>::describe(&mut original.schema),
        ));
        original.operations.push(log);
        original.validate().unwrap();
        let text = wsdl(&original, "http://127.0.0.1:9/book");
        // No output message, no output in the portType or the bindings (WSDL 1.1 2.4.1).
        assert!(!text.contains("logResponse"), "{text}");
        let defs = read_str(&text, "book.wsdl", &ReadOptions::default()).unwrap();
        let pt = defs.port_types.values().next().unwrap();
        let op = pt.operations.iter().find(|o| o.name == "log").unwrap();
        assert!(op.input.is_some() && op.output.is_none());
        for port in ["BookSoap11Port", "BookSoap12Port"] {
            let lowered = defs.service_model("Book", port).unwrap();
            let log = lowered.operations.iter().find(|o| o.name == "log").unwrap();
            assert!(log.one_way, "{style:?} {port}");
            assert_eq!(wsdl(&lowered, "http://127.0.0.1:9/book"), text);
        }
    }
}

#[test]
fn notification_solicit_response_and_one_way_with_faults_are_refused_with_the_rule() {
    let doc = |op: &str| {
        format!(
            r#"<definitions xmlns="http://schemas.xmlsoap.org/wsdl/" xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:tns="urn:t" targetNamespace="urn:t">
<message name="m"><part name="a" type="xsd:string"/></message>
<portType name="P">
{op}
</portType>
<binding name="B" type="tns:P"><soap:binding style="rpc" transport="http://schemas.xmlsoap.org/soap/http"/>
<operation name="o"><soap:operation soapAction=""/>
<input><soap:body use="literal" namespace="urn:t"/></input><output><soap:body use="literal" namespace="urn:t"/></output>
<fault name="f"><soap:fault name="f" use="literal"/></fault></operation></binding>
<service name="S"><port name="Q" binding="tns:B"><soap:address location="http://127.0.0.1:9/"/></port></service>
</definitions>"#
        )
    };
    let notification = doc(r#"<operation name="o"><output message="tns:m"/></operation>"#);
    let defs = read_str(&notification, "n.wsdl", &ReadOptions::default()).unwrap();
    let e = defs.service_model("S", "Q").unwrap_err();
    assert_eq!(e.loc.to_string(), "n.wsdl:4");
    assert!(
        e.message.contains("`o` is a notification") && e.message.contains("R2303"),
        "{e}"
    );
    let solicit =
        doc(r#"<operation name="o"><output message="tns:m"/><input message="tns:m"/></operation>"#);
    let defs = read_str(&solicit, "s.wsdl", &ReadOptions::default()).unwrap();
    let e = defs.service_model("S", "Q").unwrap_err();
    assert!(e.message.contains("`o` is a solicit-response"), "{e}");
    let faulty = doc(
        r#"<operation name="o"><input message="tns:m"/><fault name="f" message="tns:m"/></operation>"#,
    );
    let defs = read_str(&faulty, "f.wsdl", &ReadOptions::default()).unwrap();
    let e = defs.service_model("S", "Q").unwrap_err();
    assert!(
        e.message.contains("one-way operation `o` declares faults"),
        "{e}"
    );
}

const HEAD: &str =
    r#"<definitions xmlns="http://schemas.xmlsoap.org/wsdl/" targetNamespace="urn:t">"#;

#[test]
fn a_dtd_is_refused() {
    let text = format!(
        "<?xml version=\"1.0\"?>\n<!DOCTYPE d [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;\">]>\n{HEAD}<documentation>&b;</documentation></definitions>"
    );
    let e = read_str(&text, "bomb.wsdl", &ReadOptions::default()).unwrap_err();
    assert_eq!(e.loc.to_string(), "bomb.wsdl:2");
    assert!(
        e.message.contains("DTD (`<!DOCTYPE`) is not accepted"),
        "{e}"
    );
}

#[test]
fn a_wsdl_import_cycle_is_refused_and_names_the_chain() {
    let a = write(
        "cycle-a.wsdl",
        &format!("{HEAD}\n<import namespace=\"urn:t\" location=\"cycle-b.wsdl\"/></definitions>"),
    );
    write(
        "cycle-b.wsdl",
        &format!("{HEAD}\n<import namespace=\"urn:t\" location=\"cycle-a.wsdl\"/></definitions>"),
    );
    let e = read(&a, &ReadOptions::default()).unwrap_err();
    assert!(e.message.starts_with("wsdl:import cycle: "), "{e}");
    assert!(
        e.message.contains("cycle-a.wsdl → ") && e.message.contains("cycle-b.wsdl"),
        "{e}"
    );
}

#[test]
fn mutual_schema_imports_are_read_once() {
    let x = r#"<schema xmlns="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:x">
<import namespace="urn:y" schemaLocation="mutual-y.xsd"/><complexType name="X"/></schema>"#;
    let y = r#"<schema xmlns="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:y">
<import namespace="urn:x" schemaLocation="mutual-x.xsd"/><complexType name="Y"/></schema>"#;
    write("mutual-x.xsd", x);
    write("mutual-y.xsd", y);
    let w = write(
        "mutual.wsdl",
        &format!("{HEAD}<types><schema xmlns=\"http://www.w3.org/2001/XMLSchema\"><import namespace=\"urn:x\" schemaLocation=\"mutual-x.xsd\"/></schema></types></definitions>"),
    );
    let defs = read(&w, &ReadOptions::default()).unwrap();
    assert_eq!(defs.documents.len(), 3, "{:?}", defs.documents);
    assert_eq!(defs.schema.types.len(), 2);
}

#[test]
fn a_missing_import_names_the_importing_line() {
    let w = write(
        "missing.wsdl",
        &format!("{HEAD}\n<types>\n<schema xmlns=\"http://www.w3.org/2001/XMLSchema\">\n<include schemaLocation=\"nowhere.xsd\"/></schema></types></definitions>"),
    );
    let e = read(&w, &ReadOptions::default()).unwrap_err();
    assert_eq!(e.loc.line, 4, "{e}");
    assert!(e.loc.file.ends_with("missing.wsdl"), "{e}");
    assert!(e.message.contains("nowhere.xsd"), "{e}");
}

#[test]
fn a_huge_document_is_refused_before_it_is_read() {
    let options = ReadOptions {
        max_document_bytes: 1000,
        ..ReadOptions::default()
    };
    let text = format!(
        "{HEAD}<documentation>{}</documentation></definitions>",
        "x".repeat(2000)
    );
    let w = write("huge.wsdl", &text);
    let e = read(&w, &options).unwrap_err();
    assert!(e.message.contains("more than the limit of 1000"), "{e}");
    let options = ReadOptions {
        max_nodes: 50,
        ..ReadOptions::default()
    };
    let text = format!("{HEAD}{}</definitions>", "<documentation/>".repeat(100));
    let e = read_str(&text, "many.wsdl", &options).unwrap_err();
    assert!(e.message.contains("more than 50 XML nodes"), "{e}");
}

#[test]
fn a_type_that_derives_from_itself_is_refused() {
    let text = format!(
        r#"{HEAD}
<types><schema xmlns="http://www.w3.org/2001/XMLSchema" xmlns:t="urn:t" targetNamespace="urn:t">
<complexType name="A"><complexContent><extension base="t:B"/></complexContent></complexType>
<complexType name="B"><complexContent><extension base="t:A"/></complexContent></complexType>
<complexType name="R"><sequence><element name="next" type="t:R" minOccurs="0"/></sequence></complexType>
</schema></types></definitions>"#
    );
    let e = read_str(&text, "self.wsdl", &ReadOptions::default()).unwrap_err();
    assert_eq!(e.loc.to_string(), "self.wsdl:3");
    assert_eq!(e.message, "type `A` derives from itself: A → B → A");
}

#[test]
fn urls_are_not_fetched_unless_asked() {
    let text = format!("{HEAD}<import namespace=\"urn:o\" location=\"http://127.0.0.1:9/other.wsdl\"/></definitions>");
    let e = read_str(&text, "net.wsdl", &ReadOptions::default()).unwrap_err();
    assert!(e.message.contains("no network unless asked"), "{e}");
    // A catalog maps the URL to a local file.
    let local = write("other.wsdl", &format!("{HEAD}</definitions>"));
    let options = ReadOptions {
        catalog: Catalog::new().map("http://127.0.0.1:9/other.wsdl", &local),
        ..ReadOptions::default()
    };
    let defs = read_str(&text, "net.wsdl", &options).unwrap();
    assert_eq!(defs.documents.len(), 2);
    // So does a fetcher, when the caller gives one.
    let fetch: Fetch = std::sync::Arc::new(|url: &str| {
        assert_eq!(url, "http://127.0.0.1:9/other.wsdl");
        Ok(format!("{HEAD}</definitions>"))
    });
    let options = ReadOptions {
        fetch: Some(fetch),
        ..ReadOptions::default()
    };
    assert!(read_str(&text, "net.wsdl", &options).is_ok());
}

#[test]
fn undefined_references_are_problems_not_refusals() {
    let text = format!(
        r#"{HEAD}
<portType name="P" xmlns:t="urn:t"><operation name="op"><input message="t:missing"/></operation></portType>
<binding name="B" type="P"/>
<service name="S"><port name="Port" binding="B"/></service></definitions>"#
    );
    let defs = read_str(&text, "u.wsdl", &ReadOptions::default()).unwrap();
    assert_eq!(defs.problems.len(), 1);
    assert_eq!(
        defs.problems[0].to_string(),
        "u.wsdl:2: message `{urn:t}missing` is not defined"
    );
    let sigs = inspect(&defs);
    assert_eq!(
        sigs[0].problem.as_deref(),
        Some("message `missing` is not defined")
    );
}
