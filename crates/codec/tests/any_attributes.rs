//! `xsd:anyAttribute` as a map: a field named `@*` takes the attributes no other field names
//! (`local`, or `{ns}local` when qualified), both ways. Bounded by `Limits::max_attributes`
//! (an element with more is refused before any map is built).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use soapstone_codec::{encode, EncodeOptions, Envelope, Limits, QName, Style};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Item {
    #[serde(rename = "@id")]
    id: i32,
    #[serde(rename = "@*", default)]
    other: BTreeMap<String, String>,
    name: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Wrapper {
    item: Item,
}

fn decode(body: &str) -> Result<Wrapper, String> {
    let doc = format!(
        r#"<e:Envelope xmlns:e="http://schemas.xmlsoap.org/soap/envelope/"><e:Body><w:op xmlns:w="urn:w">{body}</w:op></e:Body></e:Envelope>"#
    );
    let env = Envelope::parse(doc.as_bytes(), &Limits::default()).map_err(|e| e.to_string())?;
    env.body::<Wrapper>(Style::Literal)
        .map_err(|e| e.to_string())
}

fn encode_item(item: &Item) -> Result<String, String> {
    let mut out = Vec::new();
    encode(
        &mut out,
        &EncodeOptions::default(),
        &[],
        &QName::new("urn:w", "op"),
        &Wrapper { item: item.clone() },
    )
    .map_err(|e| e.to_string())?;
    Ok(String::from_utf8(out).unwrap())
}

#[test]
fn other_attributes_are_kept_in_the_map_and_written_back() {
    let w = decode(
        r#"<item id="7" colour="red &amp; blue" xmlns:x="urn:x" x:rank="2" xsi:nil="false" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><name>a</name></item>"#,
    )
    .unwrap();
    let mut other = BTreeMap::new();
    other.insert("colour".to_string(), "red & blue".to_string());
    other.insert("{urn:x}rank".to_string(), "2".to_string());
    assert_eq!(w.item.id, 7);
    assert_eq!(
        w.item.other, other,
        "the named `id` and SOAP's `xsi:*` are not in the map"
    );
    let xml = encode_item(&w.item).unwrap();
    assert!(xml.contains(r#"colour="red &amp; blue""#), "{xml}");
    assert!(
        xml.contains(r#"="urn:x" a"#) && xml.contains(r#":rank="2""#),
        "{xml}"
    );
    // And it reads back the same.
    let inner = &xml[xml.find("<item").unwrap()..xml.find("</item>").unwrap() + 7];
    assert_eq!(decode(inner).unwrap().item, w.item);
    // None at all: an empty map, nothing written.
    let w = decode(r#"<item id="1"><name>b</name></item>"#).unwrap();
    assert!(w.item.other.is_empty());
    assert!(encode_item(&w.item)
        .unwrap()
        .contains(r#"<item id="1"><name>"#));
}

#[test]
fn hostile_attribute_maps_are_bounded_and_names_checked() {
    // More attributes than the limit: refused, whatever field takes them.
    let many: String = (0..100).map(|i| format!(" a{i}=\"v\"")).collect();
    let err = decode(&format!(r#"<item id="1"{many}><name>b</name></item>"#)).unwrap_err();
    assert!(err.contains("attributes"), "{err}");
    // A name that is not an attribute name is refused on encode, not written.
    for bad in ["a b", "x=\"1\" y", "", "{urn:x}", "xmlns:p", "1a"] {
        let mut item = Item {
            id: 1,
            other: BTreeMap::new(),
            name: "n".into(),
        };
        item.other.insert(bad.to_string(), "v".into());
        let err = encode_item(&item).unwrap_err();
        assert!(err.contains("is not an attribute name"), "{bad}: {err}");
    }
    // A value XML cannot carry is refused.
    let mut item = Item {
        id: 1,
        other: BTreeMap::new(),
        name: "n".into(),
    };
    item.other.insert("a".into(), "\u{1}".into());
    assert!(encode_item(&item).is_err());
}
