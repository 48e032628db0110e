//! Two WSDLs with the same file name in different directories, compiled in one `build.rs`: an
//! error naming both, and nothing written (before, the second silently replaced the first).

use std::path::PathBuf;

fn testdata(rel: &str) -> String {
    format!("{}/../../testdata/{rel}", env!("CARGO_MANIFEST_DIR"))
}

fn out_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("soapstone-build-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

const A: &str =
    "node-soap/request-response-samples/Dummy__should_handle_minOccurs_and_maxOccurs/soap.wsdl";
const B: &str =
    "node-soap/request-response-samples/Dummy__should_handle_attributes_in_response/soap.wsdl";

#[test]
fn two_wsdls_of_one_name_are_an_error_naming_both() {
    let dir = out_dir("collide");
    let err = soapstone_build::configure()
        .out_dir(&dir)
        .quiet()
        .compile(&[testdata(A), testdata(B)])
        .unwrap_err()
        .to_string();
    assert!(err.contains(A) && err.contains(B), "{err}");
    assert!(err.contains("`soap.rs`"), "{err}");
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert!(left.is_empty(), "nothing is written: {left:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn each_alone_is_written_under_its_stem() {
    for (i, wsdl) in [A, B].into_iter().enumerate() {
        let dir = out_dir(&format!("alone{i}"));
        let written = soapstone_build::configure()
            .out_dir(&dir)
            .quiet()
            .compile(&[testdata(wsdl)])
            .unwrap();
        assert_eq!(written, vec![dir.join("soap.rs")]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
