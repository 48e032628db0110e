//! A complexContent restriction of the SOAP 1.2 encoding's `Array` with a `wsdl:arrayType`
//! (node-soap's gSOAP-style `rpcexample.wsdl`) lowers to an array as SOAP 1.1's does; the round
//! trip over a socket is `crates/build-test/tests/enc12_array.rs`.

use soapstone_wsdl::read::{read, ReadOptions};
use soapstone_wsdl::TypeDef;

#[test]
fn a_soap12_encoding_array_lowers_to_an_array() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../build-test/wsdl/enc12_array.wsdl"
    );
    let defs = read(path, &ReadOptions::default()).unwrap();
    assert!(defs.problems.is_empty(), "{:?}", defs.problems);
    let model = defs
        .service_model("Files", "Files")
        .unwrap_or_else(|e| panic!("{e}"));
    match model.schema.get("listFilesResult") {
        Some(TypeDef::Array { item, dims }) => {
            assert_eq!(item.local, "string");
            assert_eq!(*dims, 1);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        model.operations[0].output[0].ty.name.local,
        "listFilesResult"
    );
}
