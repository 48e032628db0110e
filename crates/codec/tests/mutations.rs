//! A stable stand-in for the fuzzer (fuzz/ needs nightly): mutated golden messages thrown at
//! the decoder. Whatever the bytes, decoding ends in `Ok` or a `DecodeError`, never a panic.
//! Crashes found here or by `cargo fuzz` become ordinary tests in `regressions` below.

use proptest::prelude::*;
use serde::Deserialize;
use soapstone_codec::*;
use soapstone_mutate::{config, Mutator};

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Reserve {
    id: i32,
    am: Option<i64>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct SoapStruct {
    var_string: String,
    var_int: i32,
    var_float: f32,
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Many {
    #[serde(rename = "inputStringArray")]
    strings: Option<Vec<String>>,
    #[serde(rename = "inputStruct")]
    st: Option<SoapStruct>,
    #[serde(rename = "input2DStringArray")]
    grid: Option<Vec<Vec<String>>>,
    #[serde(rename = "inputDate")]
    date: Option<xsd::DateTime>,
    #[serde(rename = "inputBase64")]
    b64: Option<xsd::Base64Binary>,
}

/// Open content: a wildcard, a choice and a list (raw values captured from mutated input).
#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Open {
    #[serde(rename = "$choice:varString|inputString|varInt")]
    choice: Option<Choice>,
    #[serde(rename = "inputIntegerArray")]
    list: Option<xsd::List<i32>>,
    #[serde(rename = "$any", default)]
    any: Vec<xsd::AnyXml>,
}

/// Attributes: named ones, the other ones as a map (`xsd:anyAttribute`), text content.
#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Marked {
    #[serde(rename = "@id")]
    id: Option<i32>,
    #[serde(rename = "@*", default)]
    other: xsd::OtherAttributes,
    #[serde(rename = "$text")]
    text: Option<String>,
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct MarkedBody {
    #[serde(rename = "inputString")]
    s: Option<Marked>,
    #[serde(rename = "inputStruct")]
    st: Option<Marked>,
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
enum Choice {
    #[serde(rename = "varString")]
    S(String),
    #[serde(rename = "inputString")]
    I(xsd::AnyXml),
    #[serde(rename = "varInt")]
    N(Vec<i32>),
}

/// Elements with a namespace of their own (`{ns}name`), attributes and text on them, after
/// node-soap's `UpdateProfile` sample (one of the seeds).
#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Profile {
    #[serde(rename = "{http://www.bigdatacollect.or/Name/Types}Profile")]
    profile: Option<ProfileType>,
    #[serde(rename = "{}ResortId")]
    resorts: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct ProfileType {
    #[serde(rename = "IDs")]
    ids: Option<Ids>,
    #[serde(rename = "{urn:elsewhere}Phones")]
    phones: Option<Phones>,
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Ids {
    #[serde(rename = "{http://www.bigdatacollect.or/Common/Types}UniqueID")]
    ids: Vec<UniqueId>,
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct UniqueId {
    #[serde(rename = "@source")]
    source: Option<String>,
    #[serde(rename = "$text")]
    value: String,
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Phones {
    #[serde(rename = "{}NamePhone")]
    phones: Vec<NamePhone>,
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct NamePhone {
    #[serde(rename = "@primary")]
    primary: Option<bool>,
    #[serde(rename = "{urn:c}IDs")]
    ids: Option<Ids>,
}

fn seeds() -> Vec<Vec<u8>> {
    let root = env!("CARGO_MANIFEST_DIR");
    let mut files = vec![
        format!("{root}/tests/documents/thesis_reserve.xml"),
        format!("{root}/tests/documents/samruby_echoFloat_request.xml"),
        format!("{root}/tests/documents/dp_getIntegers_request.xml"),
    ];
    let m = format!("{root}/../../testdata/php-ext-soap/messages");
    files.push(format!(
        "{root}/../../testdata/node-soap/request-response-samples/UpdateProfile__correct_namespaces_in_sequence_with_imports/request.xml"
    ));
    for f in [
        "Round2/Base/r2_base_006s-request.xml",
        "Round2/Base/r2_base_015w-request.xml",
        "Round2/Base/r2_base_020w-request.xml",
        "Round2/GroupB/r2_groupB_003s-request.xml",
        "Round2/GroupB/r2_groupB_003w-request.xml",
        "Round2/GroupB/r2_groupB_004s-request.xml",
        "Round3/GroupE/r3_groupE_list_005w-request.xml",
        "soap12-testcollection/T12-request.xml",
        "soap12-testcollection/T41-request.xml",
        "soap12-testcollection/T59-request.xml",
        "soap12-testcollection/T33-response.xml",
        "soap12-testcollection/T24-response.xml",
    ] {
        files.push(format!("{m}/{f}"));
    }
    files
        .iter()
        .map(|f| std::fs::read(f).unwrap_or_else(|e| panic!("{f}: {e}")))
        .collect()
}

/// Everything a caller may do with a message; must not panic.
fn exercise(bytes: &[u8]) {
    let limits = Limits::default();
    let Ok(env) = Envelope::parse(bytes, &limits) else {
        return;
    };
    let _ = env.headers();
    for i in 0..env.headers().len() {
        let _ = env.header_xml(i);
        let _ = env.header::<serde::de::IgnoredAny>(i, Style::Literal);
    }
    if env.is_fault() {
        let _ = env.fault();
    }
    for style in [Style::Literal, Style::Encoded] {
        let _ = env.body::<Reserve>(style);
        let _ = env.body::<Many>(style);
        let _ = env.body::<SoapStruct>(style);
        let _ = env.body::<MarkedBody>(style);
        let _ = env.body::<Profile>(style);
        if let Ok(open) = env.body::<Open>(style) {
            // What was captured stands alone.
            for raw in &open.any {
                let mut limits = Limits::default();
                limits.max_document_bytes = usize::MAX;
                xsd::AnyXml::parse_with(raw.as_str(), &limits).unwrap();
            }
        }
        let _ = env.body::<serde::de::IgnoredAny>(style);
        let _ = env.body::<()>(style);
    }
}

const SNIPPETS: &[&str] = &[
    "<",
    ">",
    "&",
    "&amp;",
    "&#0;",
    "&#x110000;",
    "]]>",
    "<![CDATA[",
    "<!--",
    "<?pi?>",
    "<!DOCTYPE x>",
    "\"",
    "xmlns=\"\"",
    "xmlns:a=\"urn:a\"",
    " xsi:nil=\"1\"",
    " href=\"#a\"",
    " id=\"a\"",
    " SOAP-ENC:arrayType=\"xsd:string[2,3]\"",
    " SOAP-ENC:arrayType=\"xsd:int[99999999999]\"",
    "<item>",
    "</item>",
    "\u{FFFE}",
    "é",
];

const MUTATOR: Mutator<&str> = Mutator {
    snippets: SNIPPETS,
    max_delete: 40,
    max_duplicate: 200,
    insert_weight: 1,
};

proptest! {
    #![proptest_config(config(2000))]

    #[test]
    fn mutated_messages_never_panic(which in any::<usize>(), ops in proptest::collection::vec(MUTATOR.op(), 1..6)) {
        let seeds = seeds();
        let doc = MUTATOR.apply(seeds[which % seeds.len()].clone(), &ops);
        exercise(&doc);
    }

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        exercise(&bytes);
    }
}

mod regressions {
    //! Inputs that once crashed something; kept as ordinary tests.
    use super::exercise;

    #[test]
    fn non_ascii_in_date_time_does_not_panic() {
        // xsd::Time once sliced `00:00:0é` in the middle of a character
        let doc = r#"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><op><inputDate>2001-01-01T00:00:0é</inputDate></op></s:Body></s:Envelope>"#;
        exercise(doc.as_bytes());
    }

    #[test]
    fn a_noncharacter_in_a_namespace_value_is_refused_when_read() {
        // A literal U+FFFE in an `xmlns` value was once accepted, then written into captured
        // `xsd:any` content next to an escaped newline, where reading it back failed: what the
        // parser accepts must survive its own writer. Found by `mutated_messages_never_panic`.
        let doc = "<soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\"\nxmlns:xsi=\"\u{FFFE}>\nhttp://www.w3.org/1999/XMLSchema-instance\"><soap:Body><echoFloat xmlns=\"http://tempuri.org/\"><input>3.14159</input></echoFloat></soap:Body></soap:Envelope>";
        exercise(doc.as_bytes());
        let err =
            soapstone_codec::Envelope::parse(doc.as_bytes(), &soapstone_codec::Limits::default())
                .unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "character U+FFFE at byte {} is not allowed in xml",
                doc.find('\u{FFFE}').unwrap()
            )
        );
    }

    #[test]
    fn a_quote_in_an_attribute_name_is_refused_when_read() {
        // `xmlns:"c="..."` was read as a declaration of the prefix `"c`, then copied onto the
        // root of a captured `xsd:any` element, which could not be read back. Found by
        // `mutated_messages_never_panic` (an inserted `"` and a duplicated run, 228,156
        // cases into a 3,000,000-case campaign).
        let doc = r#"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:"c="hema-instance" xmlns:n="urn:n" xmlns:"c="urn:c"><soap:Body><n:op><n:Profile/></n:op></soap:Body></soap:Envelope>"#;
        exercise(doc.as_bytes());
        let err =
            soapstone_codec::Envelope::parse(doc.as_bytes(), &soapstone_codec::Limits::default())
                .unwrap_err();
        assert_eq!(
            err.to_string(),
            "/Envelope: attribute name `xmlns:\"c` is not an xml name"
        );
        for name in ["a&amp;b", "x'y"] {
            let doc = format!(
                "<soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\"><soap:Body><op {name}=\"v\"/></soap:Body></soap:Envelope>"
            );
            exercise(doc.as_bytes());
        }
        let doc = "<soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\" =\"v\"><soap:Body/></soap:Envelope>";
        let err =
            soapstone_codec::Envelope::parse(doc.as_bytes(), &soapstone_codec::Limits::default())
                .unwrap_err();
        assert!(
            err.to_string()
                .contains("attribute name `` is not an xml name"),
            "{err}"
        );
    }
}

/// The `UpdateProfile` seed decodes unmutated, so the mutations above reach the paths of
/// elements with a namespace of their own rather than failing early.
#[test]
fn the_profile_seed_decodes_into_fields_of_their_own_namespace() {
    let root = env!("CARGO_MANIFEST_DIR");
    let bytes = std::fs::read(format!(
        "{root}/../../testdata/node-soap/request-response-samples/UpdateProfile__correct_namespaces_in_sequence_with_imports/request.xml"
    ))
    .unwrap();
    let env = Envelope::parse(&bytes, &Limits::default()).unwrap();
    let p = env.body::<Profile>(Style::Literal).unwrap();
    let profile = p.profile.unwrap();
    let ids = profile.ids.unwrap().ids;
    assert_eq!(ids.len(), 1);
    assert_eq!(
        (ids[0].source.as_deref(), ids[0].value.as_str()),
        (Some("TESTSOURCE"), "100")
    );
    let phones = profile.phones.unwrap().phones;
    assert_eq!(phones.len(), 2);
    assert_eq!(phones[1].primary, Some(false));
    assert_eq!(phones[1].ids.as_ref().unwrap().ids[0].value, "2");
}
