//! A repeated choice whose alternative is a sequence (`<choice maxOccurs="unbounded">` holding
//! `<element name="point"/>` and `<sequence><element name="start"/><element name="end"
//! minOccurs="0"/></sequence>`): a `Vec` of an enum whose sequence variant holds a struct named
//! `$sequence:..`, read from the element that chose it and the siblings after it, in document
//! order, and written as those siblings with no element around them.

use serde::{Deserialize, Serialize};
use soapstone_codec::*;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename = "$sequence:StartSeq")]
struct StartSeq {
    start: i32,
    end: Option<i32>,
    #[serde(default)]
    step: Vec<i32>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
enum Item {
    #[serde(rename = "point")]
    Point(i32),
    #[serde(rename = "start")]
    Start(StartSeq),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Plot {
    name: String,
    #[serde(rename = "$choice:point|start", default)]
    items: Vec<Item>,
    tail: String,
}

fn plot() -> Plot {
    Plot {
        name: "p".into(),
        items: vec![
            Item::Point(1),
            Item::Start(StartSeq {
                start: 2,
                end: Some(3),
                step: vec![],
            }),
            Item::Start(StartSeq {
                start: 4,
                end: None,
                step: vec![7, 8],
            }),
            Item::Point(5),
        ],
        tail: "t".into(),
    }
}

fn encode_body(value: &Plot) -> String {
    let mut opts = EncodeOptions::default();
    opts.xml_declaration = false;
    let mut out = Vec::new();
    encode(&mut out, &opts, &[], &QName::new("urn:p", "plot"), value).unwrap();
    String::from_utf8(out).unwrap()
}

fn decode(xml: &str) -> Result<Plot, DecodeError> {
    let env = Envelope::parse(xml.as_bytes(), &Limits::default())?;
    env.body(Style::Literal)
}

#[test]
fn sequence_alternatives_are_siblings_on_the_wire_in_document_order() {
    let xml = encode_body(&plot());
    assert!(
        xml.contains("<name>p</name><point>1</point><start>2</start><end>3</end><start>4</start><step>7</step><step>8</step><point>5</point><tail>t</tail>"),
        "{xml}"
    );
    assert_eq!(decode(&xml).unwrap(), plot());
}

#[test]
fn another_toolkits_layout_reads_the_same() {
    let xml = r#"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><p:plot xmlns:p="urn:p">
        <p:name>p</p:name>
        <p:point>1</p:point>
        <p:start>2</p:start> <p:end>3</p:end>
        <p:start>4</p:start><!-- no end --><p:step>7</p:step>
        <p:step>8</p:step>
        <p:point>5</p:point>
        <p:tail>t</p:tail>
    </p:plot></s:Body></s:Envelope>"#;
    assert_eq!(decode(xml).unwrap(), plot());
}

#[test]
fn a_sequence_ends_where_its_order_ends() {
    // A `start` right after a `start` opens a new item (a sequence never goes back to its
    // first element); the `end` after the second one is that item's.
    let xml = r#"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><plot><name>p</name><start>2</start><start>4</start><end>3</end><tail>t</tail></plot></s:Body></s:Envelope>"#;
    let p = decode(xml).unwrap();
    assert_eq!(
        p.items,
        [
            Item::Start(StartSeq {
                start: 2,
                end: None,
                step: vec![]
            }),
            Item::Start(StartSeq {
                start: 4,
                end: Some(3),
                step: vec![]
            })
        ]
    );
    // A required element of the sequence that is absent is an error with its path.
    #[derive(Debug, Deserialize)]
    #[serde(rename = "$sequence:Pair")]
    #[allow(dead_code)]
    struct Pair {
        a: i32,
        b: i32,
    }
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    enum PairChoice {
        #[serde(rename = "a")]
        A(Pair),
    }
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Pairs {
        #[serde(rename = "$choice:a")]
        pairs: Vec<PairChoice>,
    }
    let xml = r#"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><w><a>1</a><b>2</b><a>3</a></w></s:Body></s:Envelope>"#;
    let env = Envelope::parse(xml.as_bytes(), &Limits::default()).unwrap();
    let e = env.body::<Pairs>(Style::Literal).unwrap_err();
    assert!(e.to_string().contains("/w/b"), "{e}");
    assert!(e.to_string().contains("missing"), "{e}");
}
