//! End to end: the real `soapstone` binary serves the echo service on loopback, and
//! `soapstone wsdl inspect` and `soapstone call` use its published WSDL by URL: the signature
//! listing, a call's JSON answer, `--xml`, and a Fault's exit code 2.

mod common;

use std::process::Command;

use common::{serve, soapstone};

#[test]
fn inspect_and_call_a_served_wsdl_by_url() {
    let (_serve, base) = serve::<&str>(&[]);
    let wsdl = format!("{base}/echo?wsdl");

    let out = soapstone(&["wsdl", "inspect", &wsdl]);
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("Service: InteropTest\n"), "{text}");
    assert!(
        text.contains("     Port: InteropTestSoap12Port (SOAP 1.2)\n"),
        "{text}"
    );
    assert!(
        text.contains(
            "            echoStruct(inputStruct: ns0:SOAPStruct) -> outputStruct: ns0:SOAPStruct\n"
        ),
        "{text}"
    );

    let out = soapstone(&[
        "call",
        &wsdl,
        "echoStruct",
        "--json",
        r#"{"inputStruct":{"varString":"x","varInt":7,"varFloat":0.5}}"#,
        "--soap12",
    ]);
    assert!(out.status.success(), "{out:?}");
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        value,
        serde_json::json!({"varString": "x", "varInt": 7, "varFloat": 0.5})
    );

    let out = soapstone(&[
        "call",
        &wsdl,
        "echoInteger",
        "--json",
        r#"{"inputInteger":5}"#,
        "--xml",
    ]);
    assert!(out.status.success(), "{out:?}");
    let xml = String::from_utf8(out.stdout).unwrap();
    assert!(xml.contains(">5</outputInteger>"), "{xml}");

    // A Fault: readable on stderr, exit code 2.
    let out = soapstone(&[
        "call",
        &wsdl,
        "echoInteger",
        "--json",
        r#"{"inputInteger":"five"}"#,
    ]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("fault `") && err.contains("inputInteger"),
        "{err}"
    );

    // A usage error: exit code 1, the operations listed.
    let out = soapstone(&["call", &wsdl, "echoNothing"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("no operation `echoNothing`") && err.contains("echoVoid"),
        "{err}"
    );

    // Code generation: rustfmt-clean when rustfmt is there (it is, with cargo).
    let out_file = std::env::temp_dir().join(format!("soapstone-gen-{}.rs", std::process::id()));
    let out = soapstone(&[
        "wsdl",
        "generate",
        &wsdl,
        "--out",
        out_file.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{out:?}");
    let code = std::fs::read_to_string(&out_file).unwrap();
    assert!(code.contains("pub struct InteropTestClient"), "{code}");
    assert!(code.contains("pub trait InteropTest"), "{code}");
    let fmt = Command::new("rustfmt")
        .args(["--edition", "2021", "--check"])
        .arg(&out_file)
        .output();
    if let Ok(fmt) = fmt {
        assert!(
            fmt.status.success(),
            "{}",
            String::from_utf8_lossy(&fmt.stdout)
        );
    }
    let _ = std::fs::remove_file(&out_file);
}

#[test]
fn generate_refuses_what_it_cannot_express_with_file_and_line() {
    // node-soap's `createData`: `DataRow` holds `field` of a type declared only in a comment.
    let wsdl = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/testdata/node-soap/request-response-samples/createData__should_generate_complex_type_request/soap.wsdl"
    );
    let out = soapstone(&["wsdl", "generate", wsdl]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains(
            "createData__should_generate_complex_type_request/soap.wsdl:58: type `DataField` is not defined"
        ),
        "{err}"
    );
}

#[test]
fn generate_writes_a_document_literal_type_part_as_zeep_sends_it() {
    // A part with `type=` (refused before): its accessor is the part name, unqualified.
    let wsdl = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/testdata/node-soap/wsdl/wsdl_with_restriction_attributes.wsdl"
    );
    let out = soapstone(&["wsdl", "generate", wsdl]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let code = String::from_utf8(out.stdout).unwrap();
    assert!(code.contains(r#"rename = "{}personId""#), "{code}");
}

#[test]
fn generate_writes_wrapper_attributes_and_elements_of_another_namespace() {
    // node-soap's `elementref`: the body wrapper `fooRq` has an attribute `id` and refers to
    // `paymentRq` of another schema (both refused before).
    let wsdl = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/testdata/node-soap/wsdl/elementref/foo.wsdl"
    );
    let out = soapstone(&["wsdl", "generate", wsdl]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let code = String::from_utf8(out.stdout).unwrap();
    for expected in [
        r#"rename = "@id""#,
        r#"rename = "{http://example.com/bar1/xsd}paymentRq""#,
    ] {
        assert!(code.contains(expected), "{expected}\n{code}");
    }
}

#[test]
fn generate_keeps_a_type_of_another_namespace_in_it() {
    // SOAPBuilders puts `SOAPStruct` in `http://soapinterop.org/xsd`, beside operations in
    // `http://soapinterop.org/` (refused while the model had one namespace).
    let wsdl = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/testdata/soapbuilders-round2-wsdl/r2-interop.wsdl"
    );
    let out = soapstone(&["wsdl", "generate", wsdl]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let code = String::from_utf8(out.stdout).unwrap();
    assert!(
        code.contains(r#"rename = "{http://soapinterop.org/xsd}SOAPStruct""#),
        "{code}"
    );
}
