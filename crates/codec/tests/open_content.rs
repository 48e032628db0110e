//! Raw XML values (`xsd:any`, `anyType`), choices as enums with data, and `xsd:list`: what
//! goes on the wire (exact bytes) and what comes back, plus the hostile cases (a raw value
//! cannot carry a DTD or escape its element; depth and the reference budget bound it).

use serde::{Deserialize, Serialize};
use soapstone_codec::xsd::{AnyXml, List};
use soapstone_codec::*;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
enum Shape {
    #[serde(rename = "circle")]
    Circle(f64),
    #[serde(rename = "square")]
    Square(Side),
    #[serde(rename = "none")]
    Nothing,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Side {
    side: i32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Drawing {
    name: String,
    #[serde(rename = "$choice:circle|square|none")]
    shape: Shape,
    #[serde(rename = "$choice:red|blue", default)]
    colours: Vec<Colour>,
    #[serde(rename = "$choice:label")]
    label: Option<Label>,
    sizes: List<i32>,
    value: AnyXml,
    #[serde(rename = "$any", default)]
    extra: Vec<AnyXml>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
enum Colour {
    #[serde(rename = "red")]
    Red(String),
    #[serde(rename = "blue")]
    Blue(i32),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
enum Label {
    #[serde(rename = "label")]
    Label(String),
}

fn encode_body<T: Serialize>(value: &T, qualified: bool) -> String {
    let mut opts = EncodeOptions::default();
    opts.qualified = qualified;
    opts.xml_declaration = false;
    let mut out = Vec::new();
    encode(&mut out, &opts, &[], &QName::new("urn:d", "draw"), value).unwrap();
    String::from_utf8(out).unwrap()
}

fn decode<T: serde::de::DeserializeOwned>(doc: &str) -> Result<T, DecodeError> {
    Envelope::parse(doc.as_bytes(), &Limits::default())?.body(Style::Literal)
}

fn body_of(doc: &str) -> &str {
    let start = doc.find("<tns:draw").unwrap();
    let end = doc.find("</soap:Body>").unwrap();
    &doc[start..end]
}

fn sample() -> Drawing {
    Drawing {
        name: "d1".into(),
        shape: Shape::Square(Side { side: 3 }),
        colours: vec![Colour::Red("warm".into()), Colour::Blue(7)],
        label: Some(Label::Label("hi".into())),
        sizes: List(vec![1, 2, 3]),
        value: "<v xmlns:p=\"urn:p\" p:k=\"1\"><p:x>&lt;5</p:x></v>"
            .parse()
            .unwrap(),
        extra: vec!["<q:ext xmlns:q=\"urn:q\">one</q:ext>".parse().unwrap()],
    }
}

#[test]
fn choice_any_and_list_are_written_in_place() {
    let doc = encode_body(&sample(), false);
    assert_eq!(
        body_of(&doc),
        "<tns:draw xmlns:tns=\"urn:d\"><name>d1</name><square><side>3</side></square>\
         <red>warm</red><blue>7</blue><label>hi</label><sizes>1 2 3</sizes>\
         <value xmlns:p=\"urn:p\" p:k=\"1\"><p:x>&lt;5</p:x></value>\
         <q:ext xmlns:q=\"urn:q\">one</q:ext></tns:draw>"
    );
    let back: Drawing = decode(&doc).unwrap();
    let mut want = sample();
    let scope = r#"xmlns:tns="urn:d" xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/""#;
    want.value = format!(r#"<value {scope} xmlns:p="urn:p" p:k="1"><p:x>&lt;5</p:x></value>"#)
        .parse()
        .unwrap();
    want.extra = vec![format!(r#"<q:ext {scope} xmlns:q="urn:q">one</q:ext>"#)
        .parse()
        .unwrap()];
    assert_eq!(back, want);
    // Written again, the values read are the same bytes but for the repeated declarations.
    let again = encode_body(&back, false);
    let again: Drawing = decode(&again).unwrap();
    assert_eq!(again, want);
}

#[test]
fn choice_any_and_list_round_trip_qualified() {
    let doc = encode_body(&sample(), true);
    let back: Drawing = decode(&doc).unwrap();
    let mut want = sample();
    // Read back, the raw values carry the declarations they were in (the default namespace
    // among them), and the anyType value has the name of its element.
    let scope =
        r#"xmlns="urn:d" xmlns:tns="urn:d" xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/""#;
    want.value = format!(r#"<value {scope} xmlns:p="urn:p" p:k="1"><p:x>&lt;5</p:x></value>"#)
        .parse()
        .unwrap();
    want.extra = vec![format!(r#"<q:ext {scope} xmlns:q="urn:q">one</q:ext>"#)
        .parse()
        .unwrap()];
    assert_eq!(back, want, "{doc}");
}

const ENV_OPEN: &str = r#"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" xmlns:a="urn:a"><s:Body><d:draw xmlns:d="urn:d">"#;
const ENV_CLOSE: &str = "</d:draw></s:Body></s:Envelope>";

fn wrap(children: &str) -> String {
    format!("{ENV_OPEN}{children}{ENV_CLOSE}")
}

#[test]
fn a_raw_value_is_made_standalone_and_other_choices_are_read() {
    let doc = wrap(
        "<name>n</name><circle>1.5</circle><sizes> 4\n5 </sizes>\
         <value><a:k>t</a:k></value><extra2/><a:w1 x='1'>a</a:w1><w2 xmlns='urn:z'/><name2/>\
         <blue>1</blue><late/>",
    );
    let d: Drawing = decode(&doc).unwrap();
    assert_eq!(d.shape, Shape::Circle(1.5));
    assert_eq!(d.colours, [Colour::Blue(1)]);
    assert_eq!(d.label, None);
    assert_eq!(d.sizes.0, [4, 5]);
    assert_eq!(
        d.value.as_str(),
        r#"<value xmlns:d="urn:d" xmlns:a="urn:a" xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><a:k>t</a:k></value>"#
    );
    let extra: Vec<&str> = d.extra.iter().map(AnyXml::as_str).collect();
    assert_eq!(
        extra,
        [
            r#"<extra2 xmlns:d="urn:d" xmlns:a="urn:a" xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"/>"#,
            r#"<a:w1 xmlns:d="urn:d" xmlns:a="urn:a" xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" x='1'>a</a:w1>"#,
            r#"<w2 xmlns:d="urn:d" xmlns:a="urn:a" xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" xmlns='urn:z'/>"#,
            r#"<name2 xmlns:d="urn:d" xmlns:a="urn:a" xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"/>"#,
        ]
    );
    // Each stands alone.
    for x in &d.extra {
        AnyXml::parse(x.as_str()).unwrap();
    }
    let d: Drawing = decode(&wrap(
        "<name>n</name><none/><sizes/><value/><label>x</label>",
    ))
    .unwrap();
    assert_eq!(d.shape, Shape::Nothing);
    assert_eq!(d.label, Some(Label::Label("x".into())));
}

#[test]
fn a_missing_choice_names_its_alternatives() {
    let e = decode::<Drawing>(&wrap("<name>n</name><sizes/><value/>")).unwrap_err();
    assert_eq!(
        e.to_string(),
        "/Envelope/Body/draw: missing one of the elements `circle`, `square`, `none`",
        "{e}"
    );
    let e =
        decode::<Drawing>(&wrap("<name>n</name><none/><sizes>1 x</sizes><value/>")).unwrap_err();
    assert!(e.to_string().contains("list item `x` is not a i32"), "{e}");
}

#[test]
fn hostile_raw_values_are_bounded() {
    // Deeper than the depth limit inside a raw value.
    let deep = format!("{}{}", "<x>".repeat(80), "</x>".repeat(80));
    let e = decode::<Drawing>(&wrap(&format!(
        "<name>n</name><none/><sizes/><value>{deep}</value>"
    )))
    .unwrap_err();
    assert!(e.is_limit(), "{e}");
    // Many raw values under many declarations: the repeated declarations are charged.
    let decls: String = (0..60)
        .map(|i| format!(" xmlns:p{i}=\"urn:{i:0>60}\""))
        .collect();
    let many = "<w/>".repeat(2000);
    let doc = format!(
        "<s:Envelope xmlns:s=\"http://schemas.xmlsoap.org/soap/envelope/\"{decls}><s:Body><d:draw xmlns:d=\"urn:d\"><name>n</name><none/><sizes/><value/>{many}</d:draw></s:Body></s:Envelope>"
    );
    let e = decode::<Drawing>(&doc).unwrap_err();
    assert!(e.is_limit(), "{e}");
    assert!(e.to_string().contains("namespace declarations"), "{e}");
    // A DTD cannot come in through a raw value, in a message or from a user.
    let e = decode::<Drawing>(&format!(
        "<!DOCTYPE s:Envelope [<!ENTITY x 'y'>]>{}",
        wrap("<name>n</name><none/><sizes/><value>&x;</value>")
    ))
    .unwrap_err();
    assert!(e.to_string().contains("DOCTYPE"), "{e}");
    // What the envelope reader only checks when a value is read is checked in a raw value:
    // it could not stand alone (or would lose its end tag when renamed) otherwise.
    for bad in [
        r#"<value a="</value><evil/>"/>"#,
        "<value>&bogus;</value>",
        "<value><q:x/></value>",
        "<value q:a='1'/>",
        "<value><y a='&#0;'/></value>",
    ] {
        let e =
            decode::<Drawing>(&wrap(&format!("<name>n</name><none/><sizes/>{bad}"))).unwrap_err();
        assert!(!e.is_limit(), "{bad}: {e}");
    }
    for bad in [
        "<v/></d:draw><evil/>",
        "<v>&x;</v>",
        "<!DOCTYPE v><v/>",
        "<v><![CDATA[x]]></v><w/>",
    ] {
        assert!(bad.parse::<AnyXml>().is_err(), "{bad}");
    }
}

#[test]
fn an_encoded_array_of_raw_values_is_an_array_of_any_type() {
    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Items {
        items: Vec<AnyXml>,
    }
    let value = Items {
        items: vec![
            r#"<x xsi:type="xsd:int" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema">3</x>"#
                .parse()
                .unwrap(),
            "<y>two</y>".parse().unwrap(),
        ],
    };
    let mut opts = EncodeOptions::default();
    opts.style = Style::Encoded;
    opts.xml_declaration = false;
    let mut out = Vec::new();
    encode(&mut out, &opts, &[], &QName::new("urn:d", "op"), &value).unwrap();
    let doc = String::from_utf8(out).unwrap();
    assert!(
        doc.contains(r#"soapenc:arrayType="xsd:anyType[2]""#),
        "{doc}"
    );
    // Each item keeps its content and attributes under the item's name.
    assert!(doc.contains(r#"<item xsi:type="xsd:int""#), "{doc}");
    assert!(doc.contains("<item>two</item>"), "{doc}");
    let back: Items = Envelope::parse(doc.as_bytes(), &Limits::default())
        .unwrap()
        .body(Style::Encoded)
        .unwrap();
    assert_eq!(back.items.len(), 2);
    assert!(
        back.items[1].as_str().ends_with(">two</item>"),
        "{:?}",
        back.items
    );
}

#[test]
fn a_choice_in_a_type_of_another_schema_is_written_in_its_namespace() {
    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    #[serde(rename = "{urn:other}Outer")]
    struct Outer {
        id: i32,
        #[serde(rename = "$choice:circle|square|none")]
        shape: Shape,
    }
    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Req {
        outer: Outer,
    }
    let value = Req {
        outer: Outer {
            id: 1,
            shape: Shape::Circle(2.0),
        },
    };
    let doc = encode_body(&value, true);
    assert!(
        doc.contains(
            r#"<outer><id xmlns="urn:other">1</id><circle xmlns="urn:other">2</circle></outer>"#
        ),
        "{doc}"
    );
    let back: Req = decode(&doc).unwrap();
    assert_eq!(back, value);
}

#[test]
fn a_choice_beside_attributes_and_a_wildcard_is_read_and_written() {
    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Tagged {
        #[serde(rename = "@code")]
        code: Option<String>,
        #[serde(rename = "$choice:circle|square|none")]
        shape: Shape,
        #[serde(rename = "$any", default)]
        extra: Vec<AnyXml>,
    }
    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Req {
        tagged: Tagged,
    }
    let value = Req {
        tagged: Tagged {
            code: Some("c1".into()),
            shape: Shape::Square(Side { side: 2 }),
            extra: vec!["<x/>".parse().unwrap()],
        },
    };
    let doc = encode_body(&value, false);
    assert!(
        doc.contains(r#"<tagged code="c1"><square><side>2</side></square><x/></tagged>"#),
        "{doc}"
    );
    let back: Req = decode(&doc).unwrap();
    assert_eq!(back.tagged.code.as_deref(), Some("c1"));
    assert_eq!(back.tagged.shape, Shape::Square(Side { side: 2 }));
    assert_eq!(back.tagged.extra.len(), 1);
    assert_eq!(back.tagged.extra[0].local_name(), "x");
}
