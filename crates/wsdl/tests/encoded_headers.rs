//! `soap:header use="encoded"` lowers to an encoded [`HeaderPart`]: the part's name in the
//! `soap:header`'s namespace, of the part's type (SOAPBuilders Round 2 group C,
//! `testdata/soapbuilders-round2-wsdl/r2-echoheadersvc.wsdl`); outside an rpc/encoded binding
//! it is refused with its line.

use soapstone_codec::QName;
use soapstone_wsdl::read::{read, read_str, ReadOptions};
use soapstone_wsdl::HeaderPart;

const WSDL: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../testdata/soapbuilders-round2-wsdl/r2-echoheadersvc.wsdl"
);
const NS: &str = "http://soapinterop.org/echoheader/";

#[test]
fn encoded_header_parts_lower_to_encoded_blocks() {
    let defs = read(WSDL, &ReadOptions::default()).unwrap();
    let model = defs
        .service_model("interopLabEchoHeader", "interopPortEchoHdr")
        .unwrap();
    let op = model
        .operations
        .iter()
        .find(|o| o.name == "echoString")
        .unwrap();
    let [string, st] = op.input_headers.as_slice() else {
        panic!("{:?}", op.input_headers)
    };
    assert_eq!(
        string,
        &HeaderPart::encoded(
            QName::new(NS, "echoMeStringRequest"),
            soapstone_wsdl::TypeRef::xsd("string")
        )
    );
    assert!(st.encoded);
    assert_eq!(st.element, QName::new(NS, "echoMeStructRequest"));
    assert_eq!(st.ty.name.local, "SOAPStruct");
    let names: Vec<_> = op.output_headers.iter().map(|h| &h.element.local).collect();
    assert_eq!(names, ["echoMeStringResponse", "echoMeStructResponse"]);
}

#[test]
fn an_encoded_header_in_a_literal_binding_is_refused_with_its_line() {
    let text = std::fs::read_to_string(WSDL).unwrap().replace(
        "<soap:body use=\"encoded\" namespace=\"http://soapinterop.org/\" encodingStyle=\"http://schemas.xmlsoap.org/soap/encoding/\"/>",
        "<soap:body use=\"literal\" namespace=\"http://soapinterop.org/\"/>",
    );
    let defs = read_str(&text, "literal.wsdl", &ReadOptions::default()).unwrap();
    let err = defs
        .service_model("interopLabEchoHeader", "interopPortEchoHdr")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("literal.wsdl:206")
            && err.contains("header part `echoMeStringRequest` is encoded in a literal binding"),
        "{err}"
    );
}
