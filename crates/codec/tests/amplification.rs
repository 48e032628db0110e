//! Amplification by multi-ref: a small document whose references make the decoder copy one
//! large value many times (issue 8, item 1). Each route (href to a large text, to a large
//! array, trees of references, SOAP 1.2 `enc:ref`, header blocks) must be refused with a
//! limit error before the copies are made, and the peak memory of the decode must stay within
//! a small multiple of the input. The encoder's `max_bytes` bounds the other direction.
//!
//! A counting global allocator (`stats_alloc`) measures the bytes allocated while a decode
//! runs: an upper bound of its peak. The counters are process-wide, so the tests of this file
//! take turns (`SERIAL`).

use std::alloc::System;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use soapstone_codec::*;
use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

static SERIAL: Mutex<()> = Mutex::new(());

/// Runs `f` and returns its result with the bytes allocated meanwhile (growth by `realloc`
/// included): at least the peak of what `f` held.
fn peak_of<R>(f: impl FnOnce() -> R) -> (R, usize) {
    let region = Region::new(GLOBAL);
    let r = f();
    let s = region.change();
    let grown = usize::try_from(s.bytes_reallocated).unwrap_or(0);
    (r, s.bytes_allocated + grown)
}

const ENV11: &str = r#"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:soapenc="http://schemas.xmlsoap.org/soap/encoding/">"#;
const ENV12: &str = r#"<e:Envelope xmlns:e="http://www.w3.org/2003/05/soap-envelope" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:enc="http://www.w3.org/2003/05/soap-encoding">"#;

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct EchoStringArray {
    #[serde(rename = "inputStringArray")]
    strings: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct EchoGrid {
    rows: Vec<Vec<i32>>,
}

/// The request of the issue: `n` items of an `echoStringArray` all `href`ing one multiRef of
/// `size` bytes of text.
fn string_array_bomb(n: usize, size: usize) -> String {
    let mut doc = String::from(ENV11);
    doc.push_str("<s:Body><m:echoStringArray xmlns:m=\"http://soapinterop.org/\"><inputStringArray soapenc:arrayType=\"xsd:string[");
    doc.push_str(&n.to_string());
    doc.push_str("]\">");
    for _ in 0..n {
        doc.push_str("<i href=\"#b\"/>");
    }
    doc.push_str(
        "</inputStringArray></m:echoStringArray><multiRef id=\"b\" xsi:type=\"xsd:string\">",
    );
    doc.push_str(&"x".repeat(size));
    doc.push_str("</multiRef></s:Body></s:Envelope>");
    doc
}

fn decode<T: serde::de::DeserializeOwned>(doc: &str, limits: &Limits) -> Result<T, DecodeError> {
    Envelope::parse(doc.as_bytes(), limits)?.body(Style::Encoded)
}

fn assert_budget_error(e: &DecodeError) {
    assert!(e.is_limit(), "{e}");
    assert!(e.message().contains("budget of"), "{e}");
}

#[test]
fn href_to_a_large_text_is_refused_before_copying() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // 200 references to 200 KB: 40 MB if each were copied, from a 203 KB document
    let doc = string_array_bomb(200, 200_000);
    let (r, peak) = peak_of(|| decode::<EchoStringArray>(&doc, &Limits::default()));
    let e = r.unwrap_err();
    assert_budget_error(&e);
    assert!(
        e.message().starts_with(
            "/Envelope/Body/echoStringArray/inputStringArray/i: following reference `#b`"
        ),
        "{e}"
    );
    // the decode held at most what the budget allows (4 x input + 64 KiB) plus one copy
    assert!(
        peak < 6 * doc.len() + (256 << 10),
        "peak {peak} bytes for a {} byte document",
        doc.len()
    );
}

#[test]
fn a_few_shared_values_still_decode() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // three references to 100 KB from a 100 KB document: 300 KB of replays, within the budget
    let doc = string_array_bomb(3, 100_000);
    let v = decode::<EchoStringArray>(&doc, &Limits::default()).unwrap();
    assert_eq!(v.strings.len(), 3);
    assert!(v.strings.iter().all(|s| s.len() == 100_000));
    // the Round 2 style of many references to small values is far inside the budget
    let doc = string_array_bomb(2_000, 10);
    let v = decode::<EchoStringArray>(&doc, &Limits::default()).unwrap();
    assert_eq!(v.strings.len(), 2_000);
}

#[test]
fn the_budget_is_configurable() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let doc = string_array_bomb(20, 50_000);
    assert_budget_error(&decode::<EchoStringArray>(&doc, &Limits::default()).unwrap_err());
    let mut generous = Limits::default();
    generous.reference_bytes_per_input_byte = 25;
    assert_eq!(
        decode::<EchoStringArray>(&doc, &generous)
            .unwrap()
            .strings
            .len(),
        20
    );
    // the absolute cap wins over the multiple
    generous.max_reference_bytes = 100_000;
    assert_budget_error(&decode::<EchoStringArray>(&doc, &generous).unwrap_err());
    assert_eq!(generous.reference_budget(doc.len()), 100_000);
    assert_eq!(Limits::default().reference_budget(1000), 4000 + (64 << 10));
}

#[test]
fn href_to_a_large_array_is_refused() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // a 2-d array whose 100 rows all refer to one array of 50,000 ints
    let mut doc = String::from(ENV11);
    doc.push_str("<s:Body><op><rows soapenc:arrayType=\"soapenc:Array[100]\">");
    for _ in 0..100 {
        doc.push_str("<r href=\"#big\"/>");
    }
    doc.push_str("</rows></op><big id=\"big\" soapenc:arrayType=\"xsd:int[50000]\">");
    for i in 0..50_000 {
        doc.push_str(&format!("<i>{i}</i>"));
    }
    doc.push_str("</big></s:Body></s:Envelope>");
    let (r, peak) = peak_of(|| decode::<EchoGrid>(&doc, &Limits::default()));
    assert_budget_error(&r.unwrap_err());
    assert!(peak < 6 * doc.len() + (256 << 10), "peak {peak}");
    // two references are fine
    let doc = doc
        .replacen("soapenc:Array[100]", "soapenc:Array[2]", 1)
        .replacen(
            &"<r href=\"#big\"/>".repeat(100),
            &"<r href=\"#big\"/>".repeat(2),
            1,
        );
    let v = decode::<EchoGrid>(&doc, &Limits::default()).unwrap();
    assert_eq!(v.rows.len(), 2);
    assert_eq!(v.rows[1][49_999], 49_999);
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Tree {
    l: Option<Box<Tree>>,
    r: Option<Box<Tree>>,
    leaf: Option<String>,
}

#[test]
fn trees_of_references_are_refused() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // each level refers twice to the next, the last holds 200 KB: 2^3 copies of the leaf
    // from a document of one; few XML events, so only the byte budget can catch it
    let mut doc = String::from(ENV11);
    doc.push_str("<s:Body><op><l href=\"#n0\"/><r href=\"#n0\"/></op>");
    for i in 0..2 {
        doc.push_str(&format!(
            "<n id=\"n{i}\"><l href=\"#n{j}\"/><r href=\"#n{j}\"/></n>",
            j = i + 1
        ));
    }
    doc.push_str("<n id=\"n2\"><leaf>");
    doc.push_str(&"y".repeat(200_000));
    doc.push_str("</leaf></n></s:Body></s:Envelope>");
    let (r, peak) = peak_of(|| decode::<Tree>(&doc, &Limits::default()));
    assert_budget_error(&r.unwrap_err());
    assert!(peak < 6 * doc.len() + (256 << 10), "peak {peak}");
}

#[test]
fn soap12_ref_is_charged_too() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let mut doc = String::from(ENV12);
    doc.push_str("<e:Body><m:echoStringArray xmlns:m=\"http://soapinterop.org/\" e:encodingStyle=\"http://www.w3.org/2003/05/soap-encoding\"><inputStringArray enc:itemType=\"xsd:string\" enc:arraySize=\"100\">");
    for _ in 0..100 {
        doc.push_str("<i enc:ref=\"b\"/>");
    }
    doc.push_str("</inputStringArray><big enc:id=\"b\">");
    doc.push_str(&"z".repeat(100_000));
    doc.push_str("</big></m:echoStringArray></e:Body></e:Envelope>");
    let (r, peak) = peak_of(|| decode::<EchoStringArray>(&doc, &Limits::default()));
    assert_budget_error(&r.unwrap_err());
    assert!(peak < 6 * doc.len() + (256 << 10), "peak {peak}");
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Session {
    tokens: Vec<String>,
}

#[test]
fn header_blocks_share_the_document_budget() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // one header block refers to the body's 100 KB multiRef three times: within the budget
    // once, but decoding it again (or another block) must not get a fresh budget
    let mut doc = String::from(ENV11);
    doc.push_str(
        "<s:Header><h:session xmlns:h=\"urn:h\"><tokens soapenc:arrayType=\"xsd:string[3]\">",
    );
    doc.push_str(&"<t href=\"#b\"/>".repeat(3));
    doc.push_str("</tokens></h:session></s:Header><s:Body><op/><multiRef id=\"b\">");
    doc.push_str(&"w".repeat(100_000));
    doc.push_str("</multiRef></s:Body></s:Envelope>");
    let env = Envelope::parse(doc.as_bytes(), &Limits::default()).unwrap();
    let first = env.header::<Session>(0, Style::Encoded).unwrap();
    assert_eq!(first.tokens.len(), 3);
    let mut refused = None;
    for _ in 0..4 {
        if let Err(e) = env.header::<Session>(0, Style::Encoded) {
            refused = Some(e);
            break;
        }
    }
    assert_budget_error(&refused.expect("the budget runs out across header decodes"));
    // a fresh envelope has a fresh budget
    let env = Envelope::parse(doc.as_bytes(), &Limits::default()).unwrap();
    assert!(env.header::<Session>(0, Style::Encoded).is_ok());
}

#[derive(Serialize)]
struct Out {
    items: Vec<String>,
    ints: Vec<i32>,
}

#[test]
fn the_encoder_stops_at_max_bytes() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let value = Out {
        items: vec!["v".repeat(1000); 1000],
        ints: (0..1000).collect(),
    };
    let wrapper = QName::new("urn:t", "opResponse");
    for style in [Style::Literal, Style::Encoded] {
        let mut opts = EncodeOptions::default();
        opts.style = style;
        let mut full = Vec::new();
        encode(&mut full, &opts, &[], &wrapper, &value).unwrap();
        // exactly the size: written; one byte less: refused, and the buffer stayed small
        opts.max_bytes = full.len();
        let mut out = Vec::new();
        encode(&mut out, &opts, &[], &wrapper, &value).unwrap();
        assert_eq!(out, full);
        opts.max_bytes = full.len() - 1;
        let mut out = Vec::new();
        let e = encode(&mut out, &opts, &[], &wrapper, &value).unwrap_err();
        assert!(
            e.to_string().starts_with(&format!(
                "the message would exceed the limit of {} bytes",
                full.len() - 1
            )),
            "{e}"
        );
        opts.max_bytes = 10_000;
        let mut out = Vec::new();
        let (r, peak) = peak_of(|| encode(&mut out, &opts, &[], &wrapper, &value));
        assert!(r.is_err());
        assert!(out.len() <= 10_000 + 1100, "{}", out.len());
        assert!(peak < 64 << 10, "peak {peak}");
    }
}
