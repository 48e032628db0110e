//! The code `soapstone-build` generates from the WSDLs `soapstone serve` publishes (snapshots
//! in `wsdl/`), compiled with the workspace's lints. The tests call the original services with
//! the generated clients and serve the generated traits to the original, hand-declared clients.

#![allow(missing_docs)]

/// The charging service of the thesis seed.
pub mod charging {
    soapstone_service::include_wsdl!("charging");
}

/// SOAPBuilders Round 2 base (rpc/encoded).
pub mod interop {
    soapstone_service::include_wsdl!("interop");
}

/// SOAPBuilders Round 2 group B (rpc/encoded, several results).
pub mod group_b {
    soapstone_service::include_wsdl!("group_b");
}

/// Sam Ruby's echoFloat (document/literal wrapped).
pub mod tempuri {
    soapstone_service::include_wsdl!("tempuri");
}

/// The WS benchmark's card service (document/literal).
pub mod card {
    soapstone_service::include_wsdl!("card");
}

/// The WS benchmark's news service (repeated elements, nested types).
pub mod news {
    soapstone_service::include_wsdl!("news");
}

/// The WS benchmark's shop service.
pub mod shop {
    soapstone_service::include_wsdl!("shop");
}

/// The contacts service of the Zilora & Ketha seed.
pub mod contacts {
    soapstone_service::include_wsdl!("contacts");
}

/// The Davis & Parashar service.
pub mod dp {
    soapstone_service::include_wsdl!("dp");
}

/// A vendor-style WSDL with SOAP headers and a declared fault (`wsdl/calculator.wsdl`).
pub mod calculator {
    soapstone_service::include_wsdl!("calculator");
}

/// SOAPBuilders Round 2 group C echoHeader (SOAP-encoded header blocks).
pub mod echo_header {
    soapstone_service::include_wsdl!("r2-echoheadersvc");
}

/// Schema constructs: attribute `default`/`fixed` values (`wsdl/constructs.wsdl`).
pub mod constructs {
    soapstone_service::include_wsdl!("constructs");
}

/// The WSDL spyne publishes for the lab's Python peer server (`wsdl/spyne_dp.wsdl`).
pub mod spyne_dp {
    soapstone_service::include_wsdl!("spyne_dp");
}

/// Sun WSTest 1.0 (`testdata/wstest/conf/wstest.wsdl`).
pub mod wstest {
    soapstone_service::include_wsdl!("wstest");
}

/// SOAPBuilders Round 2 base as published (`testdata/soapbuilders-round2-wsdl/r2-interop.wsdl`):
/// rpc/encoded, its types in `http://soapinterop.org/xsd`, every operation with one action.
pub mod r2_interop {
    soapstone_service::include_wsdl!("r2-interop");
}

/// A WCF service from node-soap's corpus (`testdata/node-soap/wsdl/extended_recursive.wsdl`,
/// MIT): document/literal, its data contracts qualified in
/// `http://schemas.datacontract.org/2004/07/RecursiveService`, an extension, recursion.
pub mod wcf_recursive {
    soapstone_service::include_wsdl!("extended_recursive");
}

/// Open content (`wsdl/open.wsdl`): choices as enums with data, `xsd:any` and `anyType` as raw
/// XML, an `xsd:list`, a union and an enumeration of an enumeration.
pub mod open {
    soapstone_service::include_wsdl!("open");
}

/// A service from node-soap's corpus with a choice in a sequence (`wsdl/administrate.wsdl`, a
/// copy of `testdata/node-soap/request-response-samples/administrate__Complex_json_object_namespace_issue/soap.wsdl`, MIT).
pub mod administrate {
    soapstone_service::include_wsdl!("administrate");
}

/// Attributes and simple content (`wsdl/catalog.wsdl`, after node-soap's `Common.xsd`).
pub mod catalog {
    soapstone_service::include_wsdl!("catalog");
}

/// Elements of another namespace than their type's, and per-element `form`
/// (`wsdl/profile.wsdl`, after node-soap's `UpdateProfile` samples).
pub mod profile {
    soapstone_service::include_wsdl!("profile");
}

/// `wsdl/profile.wsdl` with the service's schema unqualified and one element qualified by
/// `form`.
pub mod profile_unqualified {
    soapstone_service::include_wsdl!("profile_unqualified");
}

/// node-soap's attributes sample
/// (`testdata/node-soap/request-response-samples/Dummy__should_handle_attributes_in_response`,
/// MIT): an optional `code` attribute beside elements, a simple-content type with a
/// `language` attribute, types in two imported schemas.
pub mod node_soap_attributes {
    soapstone_service::include_wsdl!("soap");
}

/// A one-way operation, document/literal (node-soap's `wsdl/strict/one-way.wsdl`).
pub mod one_way {
    soapstone_service::include_wsdl!("one-way");
}

/// Apache Axis 1.4's own WSDL of the lab's Davis & Parashar peer
/// (`testdata/interop/axis1-dp.wsdl`): rpc/encoded, `soapenc:string` parts, results named
/// `...Return`, multi-ref arrays.
pub mod axis1_dp {
    soapstone_service::include_wsdl!("axis1-dp");
}

/// Apache CXF 4's own WSDL of the code-first service in `tests/cxf/`
/// (`testdata/interop/cxf-interop.wsdl`): document/literal wrapped, unqualified children, a
/// one-way operation and a declared fault.
pub mod cxf_interop {
    soapstone_service::include_wsdl!("cxf-interop");
}

/// Body and header elements of simple types (`wsdl/simple.wsdl`): a response that is one
/// enumeration value, a bare request and response of one built-in value, a header block of one.
pub mod simple {
    soapstone_service::include_wsdl!("simple");
}

/// Two operations sharing their body elements, routed by SOAPAction (`wsdl/shared.wsdl`).
pub mod shared {
    soapstone_service::include_wsdl!("shared");
}

/// node-soap's `non_identifier_chars_in_operation.wsdl` (the same, with `anyType` bodies).
pub mod non_identifier_chars {
    soapstone_service::include_wsdl!("non_identifier_chars_in_operation");
}

/// node-soap's `NoParams` sample (`wsdl/no_params.wsdl`): an rpc/encoded operation without
/// parameters whose `soap:body` names no namespace.
pub mod no_params {
    soapstone_service::include_wsdl!("no_params");
}

/// SOAP 1.2 rpc/encoded with arrays restricting the SOAP 1.2 encoding's `Array`
/// (`wsdl/enc12_array.wsdl`).
pub mod enc12_array {
    soapstone_service::include_wsdl!("enc12_array");
}

/// node-soap's `rpcexample.wsdl` (gSOAP style, SOAP 1.2 rpc/encoded).
pub mod rpcexample {
    soapstone_service::include_wsdl!("rpcexample");
}

/// Messages of several body parts or none, a response wrapper of another namespace.
pub mod bodies {
    soapstone_service::include_wsdl!("bodies");
}

/// node-soap's `array_namespace_override.wsdl`: request and response wrappers in two
/// namespaces of their own.
pub mod array_namespace_override {
    soapstone_service::include_wsdl!("array_namespace_override");
}

/// node-soap's `GetAccountXml`: an element of mixed content with elements, as raw XML.
pub mod account_xml {
    soapstone_service::include_wsdl!("account_xml");
}

/// node-soap's `empty_body.wsdl`: an output message of no part (an empty response Body).
pub mod empty_body {
    soapstone_service::include_wsdl!("empty_body");
}

/// node-soap's `ref_element_same_as_type.wsdl`: an empty output message too.
pub mod ref_element_same_as_type {
    soapstone_service::include_wsdl!("ref_element_same_as_type");
}

/// A header block of a type of another namespace and a document/literal `type=` part
/// (`wsdl/grown_doc.wsdl`).
pub mod grown_doc {
    soapstone_service::include_wsdl!("grown_doc");
}

/// rpc/literal parts with `element=` (`wsdl/grown_rpc.wsdl`).
pub mod grown_rpc {
    soapstone_service::include_wsdl!("grown_rpc");
}

/// Substitution groups (`wsdl/subst.wsdl`): a reference to a head is an enum of the elements
/// that may stand for it.
pub mod subst {
    soapstone_service::include_wsdl!("subst");
}
