//! The wrapper namespace of an rpc operation whose `soap:body` has no `namespace`, when the
//! binding is defined in an imported WSDL document of another target namespace
//! (`tests/imported_binding/root.wsdl` imports `binding.wsdl`): the dynamic client and the
//! service model use one rule (`Binding::rpc_namespace`), the binding document's namespace.
//! The dynamic client used to take the root document's.

use std::sync::Arc;

use serde_json::json;
use soapstone_codec::{Envelope, Limits};
use soapstone_dynamic::{DynamicClient, Target};
use soapstone_wsdl::read::{read, ReadOptions};

#[test]
fn the_dynamic_client_and_the_model_agree_on_an_imported_bindings_rpc_namespace() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/imported_binding/root.wsdl"
    );
    let defs = read(path, &ReadOptions::default()).unwrap();
    assert_eq!(defs.target_namespace, "urn:example:root");
    let model = defs.service_model("Greeter", "GreeterPort").unwrap();
    assert_eq!(model.namespace, "urn:example:binding");

    let client = DynamicClient::new(Arc::new(defs), &Target::default()).unwrap();
    let (action, bytes) = client.request("greet", &json!({"name": "Ann"})).unwrap();
    assert_eq!(action.as_deref(), Some("urn:greet"));
    let env = Envelope::parse(&bytes, &Limits::default()).unwrap();
    let wrapper = env.body_element().unwrap();
    assert_eq!(
        (wrapper.namespace.as_str(), wrapper.local.as_str()),
        (model.namespace.as_str(), "greet"),
        "{}",
        String::from_utf8_lossy(&bytes)
    );
}

#[test]
fn soap12_on_a_wsdl_of_soap11_ports_names_them() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/imported_binding/root.wsdl"
    );
    let defs = read(path, &ReadOptions::default()).unwrap();
    let mut target = Target::default();
    target.soap12 = true;
    let Err(e) = DynamicClient::new(Arc::new(defs), &target) else {
        panic!("a SOAP 1.2 client of a SOAP 1.1 port")
    };
    assert_eq!(
        e.to_string(),
        "no SOAP 1.2 port: the WSDL binds `GreeterPort` (SOAP 1.1) with SOAP 1.1 only; call without `--soap12`"
    );
}

#[test]
fn an_rpc_literal_element_part_is_the_element_qualified_as_in_the_model() {
    // `wsdl/grown_rpc.wsdl` of build-test: parts with `element=` in an rpc/literal binding.
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../build-test/wsdl/grown_rpc.wsdl"
    );
    let defs = read(path, &ReadOptions::default()).unwrap();
    let model = defs.service_model("GrownRpc", "GrownRpcPort").unwrap();
    assert_eq!(
        model.operations[0].input[0].name,
        "{urn:example:grown:rpc}ModelCRUDRequest"
    );
    let client = DynamicClient::new(Arc::new(defs), &Target::default()).unwrap();
    let args =
        json!({"ModelCRUDRequest": {"ModelCRUD": {"TableName": "T", "RecordID": 1}, "user": "u"}});
    let (_, bytes) = client.request("createData", &args).unwrap();
    let text = String::from_utf8(bytes).unwrap();
    // The accessor in the part's element namespace (was `xmlns=""`), as zeep sends it.
    assert!(
        text.contains(r#"<createData xmlns="urn:example:grown:rpc"><ModelCRUDRequest><ModelCRUD>"#),
        "{text}"
    );
}

#[test]
fn a_document_type_part_is_the_part_name_unqualified_keyed_or_not() {
    // `wsdl/grown_doc.wsdl` of build-test: `GetPerson`'s one part has `type="xsd:string"`.
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../build-test/wsdl/grown_doc.wsdl"
    );
    let defs = read(path, &ReadOptions::default()).unwrap();
    let client = DynamicClient::new(Arc::new(defs), &Target::default()).unwrap();
    for args in [json!("7"), json!({"personId": "7"})] {
        let (_, bytes) = client.request("GetPerson", &args).unwrap();
        let text = String::from_utf8(bytes).unwrap();
        assert!(
            text.contains("<soapenv:Body><personId>7</personId></soapenv:Body>"),
            "{text}"
        );
    }
}
