//! Generates the code of every WSDL in `wsdl/` (snapshots of what `soapstone serve` publishes,
//! kept equal to it by `tests/round_trip.rs`).

fn main() {
    soapstone_build::configure()
        .compile(&[
            "wsdl/charging.wsdl",
            "wsdl/interop.wsdl",
            "wsdl/group_b.wsdl",
            "wsdl/tempuri.wsdl",
            "wsdl/card.wsdl",
            "wsdl/news.wsdl",
            "wsdl/shop.wsdl",
            "wsdl/contacts.wsdl",
            "wsdl/dp.wsdl",
            // A vendor-style WSDL: a bare body element, request and response headers, a fault.
            "wsdl/calculator.wsdl",
            // What spyne publishes for the lab's Python peer (named wrapper types).
            "wsdl/spyne_dp.wsdl",
            // Sun WSTest 1.0 (document/literal, an extension, a recursive type), as published.
            "../../testdata/wstest/conf/wstest.wsdl",
            // SOAPBuilders Round 2 base as published (types in `http://soapinterop.org/xsd`).
            "../../testdata/soapbuilders-round2-wsdl/r2-interop.wsdl",
            // SOAPBuilders Round 2 group C echoHeader: SOAP-encoded header blocks, a string
            // and a struct of another namespace, both ways.
            "../../testdata/soapbuilders-round2-wsdl/r2-echoheadersvc.wsdl",
            // A WCF service (node-soap's corpus): data contracts in their own namespace.
            "../../testdata/node-soap/wsdl/extended_recursive.wsdl",
            // Open content: choices, `xsd:any`, `anyType`, a list, a union (written for the tests).
            "wsdl/open.wsdl",
            // node-soap's corpus (a copy: its name is `soap.wsdl`, like the attributes sample's):
            // a choice inside a sequence, an `all`.
            "wsdl/administrate.wsdl",
            // Attributes and simple content (after node-soap's `Common.xsd`).
            "wsdl/catalog.wsdl",
            // Attribute `default`/`fixed` values filled in and checked (written for the tests).
            "wsdl/constructs.wsdl",
            // Elements of another namespace than their type's and per-element `form` (after
            // node-soap's `UpdateProfile` samples).
            "wsdl/profile.wsdl",
            // The same with the service's schema unqualified and one element qualified by `form`.
            "wsdl/profile_unqualified.wsdl",
            // node-soap's own: a `code` attribute beside elements, text beside a `language`
            // attribute, types in two imported schemas.
            "../../testdata/node-soap/request-response-samples/Dummy__should_handle_attributes_in_response/soap.wsdl",
            // A one-way operation (node-soap's corpus): the client returns on HTTP 202.
            "../../testdata/node-soap/wsdl/strict/one-way.wsdl",
            // Apache Axis 1.4's own WSDL of the lab's Davis & Parashar peer (rpc/encoded,
            // results named `...Return`, multi-ref arrays).
            "../../testdata/interop/axis1-dp.wsdl",
            // Apache CXF 4's own WSDL of a code-first service (tests/cxf/*.java):
            // document/literal wrapped with unqualified children, a one-way operation, a fault.
            "../../testdata/interop/cxf-interop.wsdl",
            // Body and header elements of simple types (after node-soap's `recursive.wsdl`).
            "wsdl/simple.wsdl",
            // Two operations share their request and response elements (SOAPAction routes).
            "wsdl/shared.wsdl",
            // node-soap's own: the same, with `anyType` elements and an operation named
            // `prefixed-MyOperation`.
            "../../testdata/node-soap/wsdl/non_identifier_chars_in_operation.wsdl",
            // node-soap's NoParams sample (a copy: its name is `soap.wsdl`): rpc/encoded, no
            // `namespace` on `soap:body`, an operation without parameters.
            "wsdl/no_params.wsdl",
            // SOAP 1.2 rpc/encoded arrays restricting the SOAP 1.2 encoding's `Array`.
            "wsdl/enc12_array.wsdl",
            // node-soap's own (gSOAP style, thirteen operations of the same kind).
            "../../testdata/node-soap/wsdl/rpcexample.wsdl",
            // Messages of several body parts or none, a response wrapper of another namespace
            // (written for the tests).
            "wsdl/bodies.wsdl",
            // node-soap's: the response wrapper in another namespace than the request's.
            "../../testdata/node-soap/wsdl/array_namespace_override.wsdl",
            // node-soap's `GetAccountXml`: mixed content with elements (raw XML, in order).
            "wsdl/account_xml.wsdl",
            // node-soap's: an output message of no part (an empty response Body).
            "../../testdata/node-soap/wsdl/empty_body.wsdl",
            "../../testdata/node-soap/wsdl/ref_element_same_as_type.wsdl",
            // The model grown for issue 9's last round (written for the tests): a header block
            // of a type of another namespace, a document/literal part with `type=`.
            "wsdl/grown_doc.wsdl",
            // rpc/literal parts with `element=` of types with qualified children.
            "wsdl/grown_rpc.wsdl",
            // Substitution groups (written for the tests): an abstract head with members of
            // different types, a member of a member, a concrete head, a blocked one.
            "wsdl/subst.wsdl",
        ])
        .unwrap_or_else(|e| panic!("{e}"));
}
