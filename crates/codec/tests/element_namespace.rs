//! A field renamed `{ns}name` is an element with a namespace of its own, not the one its
//! parent's type gives its children: a `ref` to another schema's global element
//! (node-soap's `UpdateProfile` samples, `typeref/ns1.xsd`) or a per-element `form`
//! (`ref_element_same_as_type.wsdl`: a global element referenced from an unqualified schema).
//! The exact bytes are checked, because decoding matches local names and would not notice a
//! wrong namespace.

use serde::{Deserialize, Serialize};
use soapstone_codec::*;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename = "{urn:common}PhoneData")]
struct PhoneData {
    #[serde(rename = "PhoneNumber")]
    number: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Phone {
    #[serde(rename = "{urn:common}PhoneData")]
    data: PhoneData,
    #[serde(rename = "IDs")]
    ids: Vec<String>,
    #[serde(rename = "{}Note")]
    note: Option<String>,
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Update {
    #[serde(rename = "Phone")]
    phone: Phone,
    #[serde(rename = "{urn:common}Tag")]
    tags: Vec<String>,
}

fn update() -> Update {
    Update {
        phone: Phone {
            data: PhoneData {
                number: "555".into(),
            },
            ids: vec!["1".into()],
            note: Some("n".into()),
        },
        tags: vec!["a".into(), "b".into()],
    }
}

fn body(opts: &EncodeOptions, value: &Update) -> String {
    let mut out = Vec::new();
    let wrapper = QName::new("urn:name", "Update");
    encode(&mut out, opts, &[], &wrapper, value).unwrap();
    let text = String::from_utf8(out).unwrap();
    let start = text.find("<tns:Update").unwrap();
    let end = text.find("</soap:Body>").unwrap();
    text[start..end].to_string()
}

#[test]
fn qualified_style_declares_the_field_namespace_as_the_default_on_its_element() {
    let mut opts = EncodeOptions::default();
    opts.qualified = true;
    assert_eq!(
        body(&opts, &update()),
        concat!(
            r#"<tns:Update xmlns:tns="urn:name" xmlns="urn:name"><Phone>"#,
            r#"<PhoneData xmlns="urn:common"><PhoneNumber>555</PhoneNumber></PhoneData>"#,
            r#"<IDs>1</IDs><Note xmlns="">n</Note></Phone>"#,
            r#"<Tag xmlns="urn:common">a</Tag><Tag xmlns="urn:common">b</Tag></tns:Update>"#
        )
    );
}

#[test]
fn unqualified_style_binds_a_prefix_so_children_stay_unqualified() {
    let opts = EncodeOptions::default();
    assert!(!opts.qualified);
    assert_eq!(
        body(&opts, &update()),
        concat!(
            r#"<tns:Update xmlns:tns="urn:name"><Phone>"#,
            r#"<e:PhoneData xmlns:e="urn:common"><PhoneNumber>555</PhoneNumber></e:PhoneData>"#,
            r#"<IDs>1</IDs><Note>n</Note></Phone>"#,
            r#"<e:Tag xmlns:e="urn:common">a</e:Tag><e:Tag xmlns:e="urn:common">b</e:Tag></tns:Update>"#
        )
    );
}

#[test]
fn both_styles_read_back() {
    for qualified in [true, false] {
        let mut opts = EncodeOptions::default();
        opts.qualified = qualified;
        let mut out = Vec::new();
        let wrapper = QName::new("urn:name", "Update");
        encode(&mut out, &opts, &[], &wrapper, &update()).unwrap();
        let env = Envelope::parse(&out, &Limits::default()).unwrap();
        assert_eq!(env.body::<Update>(Style::Literal).unwrap(), update());
    }
}

fn decode(body: &str) -> Result<Update, DecodeError> {
    let xml = format!(
        r#"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>{body}</soap:Body></soap:Envelope>"#
    );
    let env = Envelope::parse(xml.as_bytes(), &Limits::default())?;
    env.body::<Update>(Style::Literal)
}

#[test]
fn a_missing_element_of_another_namespace_is_named_by_its_local_name() {
    let err = decode(r#"<n:Update xmlns:n="urn:name"><Phone><IDs>1</IDs></Phone></n:Update>"#)
        .unwrap_err()
        .to_string();
    assert!(err.contains("missing element `PhoneData`"), "{err}");
    assert!(err.contains("/Phone/PhoneData"), "{err}");
    assert!(!err.contains("urn:common"), "{err}");
}

#[test]
fn hostile_inputs_are_errors_not_panics() {
    // The Clark-looking text is a local name that matches nothing: it is skipped, and the
    // real field is then missing.
    let err = decode(
        r#"<n:Update xmlns:n="urn:name"><Phone><_urn_common_PhoneData/></Phone></n:Update>"#,
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("missing element `PhoneData`"), "{err}");
    // Twice the same element of another namespace: a duplicate field, not a silent overwrite.
    let twice = r#"<n:Update xmlns:n="urn:name"><Phone><c:PhoneData xmlns:c="urn:common"><PhoneNumber>1</PhoneNumber></c:PhoneData><c:PhoneData xmlns:c="urn:common"><PhoneNumber>2</PhoneNumber></c:PhoneData></Phone></n:Update>"#;
    let err = decode(twice).unwrap_err().to_string();
    assert!(err.contains("PhoneData"), "{err}");
    // Text where a struct of another namespace belongs.
    let text = r#"<n:Update xmlns:n="urn:name"><Phone><c:PhoneData xmlns:c="urn:common">oops</c:PhoneData></Phone></n:Update>"#;
    let err = decode(text).unwrap_err().to_string();
    assert!(err.contains("PhoneNumber"), "{err}");
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Inner {
    v: i32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename = "{urn:common}Holder")]
struct Holder {
    #[serde(rename = "{urn:name}Back")]
    back: Inner,
    other: i32,
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Wrapped {
    holder: Holder,
}

#[test]
fn a_field_of_the_wrapper_namespace_below_another_namespace_writes_its_content_there() {
    let mut opts = EncodeOptions::default();
    opts.qualified = true;
    let value = Wrapped {
        holder: Holder {
            back: Inner { v: 1 },
            other: 2,
        },
    };
    let mut out = Vec::new();
    let wrapper = QName::new("urn:name", "Update");
    encode(&mut out, &opts, &[], &wrapper, &value).unwrap();
    let text = String::from_utf8(out).unwrap();
    // `Back` and its (service-namespace) children in urn:name, `other` in the holder's.
    let expected = concat!(
        r#"<holder><Back xmlns="urn:name"><v>1</v></Back>"#,
        r#"<other xmlns="urn:common">2</other></holder>"#
    );
    assert!(text.contains(expected), "{text}");
    let env = Envelope::parse(text.as_bytes(), &Limits::default()).unwrap();
    assert_eq!(env.body::<Wrapped>(Style::Literal).unwrap(), value);
}
