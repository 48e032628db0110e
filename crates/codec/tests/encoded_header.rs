//! SOAP-encoded header blocks (`soap:header use="encoded"`, SOAPBuilders Round 2 group C):
//! written standalone with every prefix they use declared on themselves, carried by both SOAP
//! versions' envelopes, and read back in encoded style.

use serde::{Deserialize, Serialize};
use soapstone_codec::{
    encode, encode_encoded_header_block, EncodeOptions, Envelope, Limits, QName, Style, Version,
};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename = "{http://soapinterop.org/xsd}SOAPStruct")]
struct SoapStruct {
    #[serde(rename = "varString")]
    var_string: String,
    #[serde(rename = "varInt")]
    var_int: i32,
}

const NS: &str = "http://soapinterop.org/echoheader/";

fn block<T: Serialize>(version: Version, local: &str, value: &T) -> String {
    let mut out = Vec::new();
    encode_encoded_header_block(
        &mut out,
        version,
        &QName::new(NS, local),
        "http://soapinterop.org/",
        value,
    )
    .unwrap();
    String::from_utf8(out).unwrap()
}

fn envelope(version: Version, blocks: &[&str]) -> Vec<u8> {
    let mut options = EncodeOptions::default();
    options.version = version;
    options.style = Style::Encoded;
    let mut out = Vec::new();
    encode(
        &mut out,
        &options,
        blocks,
        &QName::new("http://soapinterop.org/", "echoVoid"),
        &(),
    )
    .unwrap();
    out
}

#[test]
fn a_string_block_is_its_text_typed_with_the_encoding_style_of_its_version() {
    let xml = block(Version::Soap11, "echoMeStringRequest", &"a <b>");
    assert!(
        xml.starts_with("<h:echoMeStringRequest xmlns:h=\"http://soapinterop.org/echoheader/\""),
        "{xml}"
    );
    assert!(xml.contains(" xmlns:e=\"http://schemas.xmlsoap.org/soap/envelope/\" e:encodingStyle=\"http://schemas.xmlsoap.org/soap/encoding/\""), "{xml}");
    assert!(
        xml.ends_with(" xsi:type=\"xsd:string\">a &lt;b&gt;</h:echoMeStringRequest>"),
        "{xml}"
    );
    let xml12 = block(Version::Soap12, "echoMeStringRequest", &"x");
    assert!(xml12.contains(" xmlns:e=\"http://www.w3.org/2003/05/soap-envelope\" e:encodingStyle=\"http://www.w3.org/2003/05/soap-encoding\""), "{xml12}");
}

#[test]
fn blocks_round_trip_in_both_versions() {
    let s = SoapStruct {
        var_string: "h & i".into(),
        var_int: -3,
    };
    for version in [Version::Soap11, Version::Soap12] {
        let a = block(version, "echoMeStringRequest", &"from the header");
        let b = block(version, "echoMeStructRequest", &s);
        // Children of an encoded struct are unqualified; its type is declared on it.
        assert!(b.contains("xsi:type=\"ns1:SOAPStruct\" xmlns:ns1=\"http://soapinterop.org/xsd\"><varString xsi:type=\"xsd:string\">h &amp; i</varString>"), "{b}");
        let bytes = envelope(version, &[&a, &b]);
        let env = Envelope::parse(&bytes, &Limits::default()).unwrap();
        assert_eq!(env.headers()[0].name, QName::new(NS, "echoMeStringRequest"));
        assert_eq!(
            env.header::<String>(0, Style::Encoded).unwrap(),
            "from the header"
        );
        assert_eq!(env.header::<SoapStruct>(1, Style::Encoded).unwrap(), s);
    }
}

#[test]
fn a_block_of_the_wrong_type_is_an_error_with_its_path() {
    let a = block(Version::Soap11, "echoMeStringRequest", &"not a struct");
    let bytes = envelope(Version::Soap11, &[&a]);
    let env = Envelope::parse(&bytes, &Limits::default()).unwrap();
    let err = env
        .header::<SoapStruct>(0, Style::Encoded)
        .unwrap_err()
        .to_string();
    assert!(err.contains("echoMeStringRequest"), "{err}");
}
