//! Attributes and text content: a field renamed `@name` is an attribute of its struct's
//! element (`@{ns}name` a qualified one), a field `$text` is the element's text (XML Schema's
//! `simpleContent`), as quick-xml's serde names them. Typed values, `Option` (absent = `None`),
//! escaping, unknown and SOAP attributes ignored, errors with the path of the attribute.

use serde::{Deserialize, Serialize};
use soapstone_codec::xsd;
use soapstone_codec::*;

const NS: &str = "urn:attrs";

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
enum Currency {
    #[serde(rename = "EUR")]
    Eur,
    #[serde(rename = "USD")]
    Usd,
}

/// `<amount currency="EUR" exact="true">12.5</amount>`: simple content with attributes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Amount {
    #[serde(rename = "@currency")]
    currency: Currency,
    #[serde(rename = "@exact")]
    exact: Option<bool>,
    #[serde(rename = "$text")]
    value: f64,
}

/// Attributes beside child elements.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Item {
    #[serde(rename = "@id")]
    id: u32,
    #[serde(rename = "@note")]
    note: Option<String>,
    #[serde(rename = "@{urn:other}lang")]
    lang: Option<String>,
    name: String,
    price: Amount,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Order {
    item: Vec<Item>,
    total: Amount,
}

fn order() -> Order {
    Order {
        item: vec![
            Item {
                id: 1,
                note: Some("a \"quoted\" <note> & more\ttab".into()),
                lang: Some("fr".into()),
                name: "pen".into(),
                price: Amount {
                    currency: Currency::Eur,
                    exact: Some(true),
                    value: 2.5,
                },
            },
            Item {
                id: 2,
                note: None,
                lang: None,
                name: "ink".into(),
                price: Amount {
                    currency: Currency::Usd,
                    exact: None,
                    value: 10.0,
                },
            },
        ],
        total: Amount {
            currency: Currency::Eur,
            exact: None,
            value: 12.5,
        },
    }
}

fn encode_with(style: Style, qualified: bool, value: &impl Serialize) -> String {
    let mut opts = EncodeOptions::default();
    opts.style = style;
    opts.qualified = qualified;
    let mut out = Vec::new();
    encode(&mut out, &opts, &[], &QName::new(NS, "order"), value).unwrap();
    String::from_utf8(out).unwrap()
}

fn decode<T: serde::de::DeserializeOwned>(xml: &str, style: Style) -> Result<T, DecodeError> {
    let env = Envelope::parse(xml.as_bytes(), &Limits::default()).unwrap();
    env.body(style)
}

#[test]
fn attributes_and_text_are_written_in_the_start_tag_and_as_content() {
    let xml = encode_with(Style::Literal, true, &order());
    assert!(
        xml.contains(
            "<item id=\"1\" note=\"a &quot;quoted&quot; &lt;note&gt; &amp; more&#9;tab\" \
             xmlns:a"
        ),
        "{xml}"
    );
    assert!(xml.contains("=\"urn:other\" a"), "{xml}");
    assert!(xml.contains(":lang=\"fr\">"), "{xml}");
    assert!(
        xml.contains("<price currency=\"EUR\" exact=\"true\">2.5</price>"),
        "{xml}"
    );
    // `None` attributes are not written at all
    assert!(xml.contains("<item id=\"2\"><name>ink</name>"), "{xml}");
    assert!(
        xml.contains("<total currency=\"EUR\">12.5</total>"),
        "{xml}"
    );
}

#[test]
fn literal_and_encoded_round_trips() {
    for style in [Style::Literal, Style::Encoded] {
        for qualified in [true, false] {
            let xml = encode_with(style, qualified, &order());
            let back: Order = decode(&xml, style).unwrap_or_else(|e| panic!("{e}\n{xml}"));
            assert_eq!(back, order(), "{style:?} {xml}");
        }
    }
}

#[test]
fn encoded_style_keeps_xsi_type_beside_the_attributes() {
    let xml = encode_with(Style::Encoded, false, &order());
    assert!(
        xml.contains("<total xsi:type=\"tns:Amount\" currency=\"EUR\">12.5</total>"),
        "{xml}"
    );
}

const ENV: &str = r#"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><s:Body><m:order xmlns:m="urn:attrs">BODY</m:order></s:Body></s:Envelope>"#;

fn env(body: &str) -> String {
    ENV.replace("BODY", body)
}

#[test]
fn decoding_reads_escapes_whitespace_and_ignores_unknown_and_soap_attributes() {
    let xml = env(
        r#"<item xsi:type="m:Item" unknown="x" s:mustUnderstand="1" id=" 7 " note="a&amp;b&#10;c" o:lang="de" xmlns:o="urn:o">
             <name>n</name>
             <price currency="USD" exact="0"> 1e2 </price>
           </item>
           <total currency="EUR"><![CDATA[3]]></total>"#,
    );
    let o: Order = decode(&xml, Style::Literal).unwrap();
    assert_eq!(o.item.len(), 1);
    let it = &o.item[0];
    assert_eq!(it.id, 7);
    assert_eq!(it.note.as_deref(), Some("a&b\nc"));
    // matched by local name, as child elements are
    assert_eq!(it.lang.as_deref(), Some("de"));
    assert_eq!(it.price.exact, Some(false));
    assert_eq!(it.price.value, 100.0);
    assert_eq!(o.total.value, 3.0);
}

#[test]
fn text_content_is_kept_exactly() {
    #[derive(Debug, PartialEq, Deserialize, Serialize)]
    struct Code {
        #[serde(rename = "@code")]
        code: Option<String>,
        #[serde(rename = "$text")]
        text: String,
    }
    #[derive(Debug, PartialEq, Deserialize, Serialize)]
    struct Body {
        status: Code,
        empty: Code,
    }
    let xml = env(r#"<status code="E1">  two  words &lt;&gt; </status><empty/>"#);
    let b: Body = decode(&xml, Style::Literal).unwrap();
    assert_eq!(b.status.text, "  two  words <> ");
    assert_eq!(b.status.code.as_deref(), Some("E1"));
    assert_eq!(b.empty.text, "");
    assert_eq!(b.empty.code, None);
    let again = encode_with(Style::Literal, false, &b);
    assert!(
        again.contains("<status code=\"E1\">  two  words &lt;&gt; </status><empty></empty>"),
        "{again}"
    );
}

#[test]
fn a_child_element_in_text_content_is_an_error_with_its_path() {
    #[derive(Debug, PartialEq, Deserialize)]
    struct Name {
        #[serde(rename = "@lang")]
        lang: Option<String>,
        #[serde(rename = "$text")]
        text: String,
    }
    #[derive(Debug, PartialEq, Deserialize)]
    struct Body {
        name: Name,
    }
    // was `""`: the element was skipped and the (absent) text read
    for inner in ["<x/>", "a<x>b</x>c", "<x lang=\"fr\">t</x>"] {
        let xml = env(&format!("<name lang=\"en\">{inner}</name>"));
        let e = decode::<Body>(&xml, Style::Literal).unwrap_err();
        assert_eq!(
            e.to_string(),
            "/Envelope/Body/order/name/x: expected text, found element `<x>`",
            "{inner}"
        );
        assert!(!e.is_limit(), "{e:?}");
    }
    // comments and blank text around the text stay fine
    let xml = env("<name><!-- c -->t</name>");
    let b: Body = decode(&xml, Style::Literal).unwrap();
    assert_eq!(b.name.text, "t");
    // an `xsd:anyType` field still takes elements
    #[derive(Debug, Deserialize)]
    struct Open {
        name: xsd::AnyXml,
    }
    let xml = env("<name>a<x/>b</name>");
    let o: Open = decode(&xml, Style::Literal).unwrap();
    assert!(o.name.as_str().contains("a<x/>b"), "{o:?}");
}

#[test]
fn a_missing_required_attribute_names_it() {
    let xml = env(r#"<total exact="true">1</total><item><name>x</name></item>"#);
    let e = decode::<Order>(&xml, Style::Literal).unwrap_err();
    assert_eq!(
        e.to_string(),
        "/Envelope/Body/order/total/@currency: missing attribute `currency`",
        "{e}"
    );
}

#[test]
fn a_bad_attribute_value_names_the_attribute() {
    let xml = env(r#"<total currency="EUR" exact="maybe">1</total>"#);
    let e = decode::<Order>(&xml, Style::Literal).unwrap_err();
    assert!(e.to_string().contains("/order/total/@exact"), "{e}");
    assert!(
        e.to_string()
            .contains("expected xsd:boolean, found `maybe`"),
        "{e}"
    );
    let xml = env(r#"<total currency="GBP">1</total>"#);
    let e = decode::<Order>(&xml, Style::Literal).unwrap_err();
    assert!(e.to_string().contains("GBP"), "{e}");
    let xml = env(r#"<total currency="EUR">x1</total>"#);
    let e = decode::<Order>(&xml, Style::Literal).unwrap_err();
    assert!(
        e.to_string().contains("expected xsd:double, found `x1`"),
        "{e}"
    );
}

#[test]
fn an_attribute_field_after_an_element_field_is_an_encode_error() {
    #[derive(Serialize)]
    struct Late {
        name: String,
        #[serde(rename = "@id")]
        id: u32,
    }
    #[derive(Serialize)]
    struct Body {
        late: Late,
    }
    let mut out = Vec::new();
    let e = encode(
        &mut out,
        &EncodeOptions::default(),
        &[],
        &QName::new(NS, "order"),
        &Body {
            late: Late {
                name: "x".into(),
                id: 1,
            },
        },
    )
    .unwrap_err();
    assert!(
        e.to_string().contains("attribute field `@id` comes after"),
        "{e}"
    );
}

#[test]
fn a_struct_in_an_attribute_and_bad_characters_are_encode_errors() {
    #[derive(Serialize)]
    struct Inner {
        a: u32,
    }
    #[derive(Serialize)]
    struct Holder {
        #[serde(rename = "@x")]
        x: Inner,
    }
    #[derive(Serialize)]
    struct Ctl {
        #[serde(rename = "@x")]
        x: String,
    }
    let mut out = Vec::new();
    let wrapper = QName::new(NS, "order");
    let e = encode(
        &mut out,
        &EncodeOptions::default(),
        &[],
        &wrapper,
        &Holder { x: Inner { a: 1 } },
    )
    .unwrap_err();
    assert!(e.to_string().contains("cannot hold a struct"), "{e}");
    let e = encode(
        &mut out,
        &EncodeOptions::default(),
        &[],
        &wrapper,
        &Ctl { x: "a\u{1}".into() },
    )
    .unwrap_err();
    assert!(e.to_string().contains("U+0001"), "{e}");
}

#[test]
fn the_wrapper_itself_can_carry_attributes() {
    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Req {
        #[serde(rename = "@version")]
        version: String,
        q: i32,
    }
    let v = Req {
        version: "2".into(),
        q: 5,
    };
    let xml = encode_with(Style::Literal, true, &v);
    assert!(
        xml.contains("xmlns=\"urn:attrs\" version=\"2\"><q>5</q>"),
        "{xml}"
    );
    assert_eq!(decode::<Req>(&xml, Style::Literal).unwrap(), v);
}

#[test]
fn xsi_and_enc_attributes_never_fill_fields() {
    #[derive(Debug, Deserialize)]
    struct T {
        #[serde(rename = "@type")]
        ty: Option<String>,
        #[serde(rename = "@nil")]
        nil: Option<String>,
        #[serde(rename = "$text")]
        text: String,
    }
    #[derive(Debug, Deserialize)]
    struct Body {
        t: T,
    }
    let xml = env(r#"<t xsi:type="xsd:string" xmlns:xsd="http://www.w3.org/2001/XMLSchema">v</t>"#);
    let b: Body = decode(&xml, Style::Literal).unwrap();
    assert_eq!(b.t.ty, None);
    assert_eq!(b.t.nil, None);
    assert_eq!(b.t.text, "v");
}

#[test]
fn xsd_types_and_integers_in_attributes_and_no_namespace_declaration_as_a_field() {
    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Stamp {
        #[serde(rename = "@at")]
        at: xsd::DateTime,
        #[serde(rename = "@size")]
        size: i64,
        #[serde(rename = "@blob")]
        blob: Option<xsd::Base64Binary>,
        #[serde(rename = "@xmlns")]
        xmlns: Option<String>,
        #[serde(rename = "$text")]
        text: Option<String>,
    }
    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Body {
        stamp: Stamp,
    }
    let v = Body {
        stamp: Stamp {
            at: "2001-04-18T02:14:58Z".parse().unwrap(),
            size: -9_000_000_000,
            blob: Some(xsd::Base64Binary(vec![0, 255])),
            xmlns: None,
            text: None,
        },
    };
    let xml = encode_with(Style::Literal, true, &v);
    assert!(
        xml.contains(r#"<stamp at="2001-04-18T02:14:58Z" size="-9000000000" blob="AP8="></stamp>"#),
        "{xml}"
    );
    let back: Body = decode(&xml, Style::Literal).unwrap();
    // `xmlns="urn:attrs"` is in scope on the wrapper and `xmlns` on the element is a
    // declaration: neither fills the field; the empty text is `Some("")`
    assert_eq!(back.stamp.xmlns, None);
    assert_eq!(back.stamp.at, v.stamp.at);
    assert_eq!(back.stamp.blob, v.stamp.blob);
    let xml = env(r#"<stamp xmlns="urn:x" at="2001-04-18T02:14:58Z" size="1">t</stamp>"#);
    let b: Body = decode(&xml, Style::Literal).unwrap();
    assert_eq!(b.stamp.xmlns, None);
    assert_eq!(b.stamp.text.as_deref(), Some("t"));
    let bad = env(r#"<stamp at="yesterday" size="1"/>"#);
    let e = decode::<Body>(&bad, Style::Literal).unwrap_err();
    assert!(e.to_string().contains("/stamp/@at"), "{e}");
}
