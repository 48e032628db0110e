//! The codec against a DOM (roxmltree: parse, then walk to the values) and a pull parser
//! (xml-rs `EventReader`: events, then the values), on the seeds' messages, so that the
//! thesis's DOM-vs-SAX parser table can be redrawn with soapstone beside them.
//!
//! Group and function names are stable (the lab reads target/criterion/<group>/<function>):
//! `parse/<message>` with `soapstone`, `roxmltree`, `xml-rs`; `encode/<message>` with
//! `soapstone`. Throughput is in bytes of the XML message.
#![allow(clippy::approx_constant)] // 3.14159 is the seeds' echoFloat value

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use serde::{Deserialize, Serialize};
use soapstone_codec::{encode, EncodeOptions, Envelope, Limits, QName, SchemaNs, Style};

fn document(name: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/tests/documents/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

#[derive(Serialize, Deserialize)]
struct EchoFloat {
    input: f32,
}

#[derive(Deserialize)]
struct Reserve {
    id: i32,
    am: i32,
}

#[derive(Serialize, Deserialize)]
struct Ints {
    #[serde(rename = "return")]
    ret: Vec<i32>,
}

#[derive(Serialize, Deserialize)]
struct Grid {
    #[serde(rename = "return")]
    ret: Vec<Vec<String>>,
}

/// A getIntegers response as Apache SOAP 2.x wrote it (1999 schema, typed items).
fn get_integers_response(n: usize) -> String {
    let mut s = String::from(
        "<?xml version='1.0' encoding='UTF-8'?>\n<SOAP-ENV:Envelope xmlns:SOAP-ENV=\"http://schemas.xmlsoap.org/soap/envelope/\" \
xmlns:xsi=\"http://www.w3.org/1999/XMLSchema-instance\" xmlns:xsd=\"http://www.w3.org/1999/XMLSchema\">\n<SOAP-ENV:Body>\n\
<ns1:getIntegersResponse xmlns:ns1=\"urn:test:soap\" SOAP-ENV:encodingStyle=\"http://schemas.xmlsoap.org/soap/encoding/\">\n",
    );
    s.push_str(&format!(
        "<return xmlns:ns2=\"http://schemas.xmlsoap.org/soap/encoding/\" xsi:type=\"ns2:Array\" ns2:arrayType=\"xsd:int[{n}]\">\n"
    ));
    for i in 0..n {
        s.push_str(&format!(
            "<item xsi:type=\"xsd:int\">{}</item>\n",
            (i as i64 * 7919 % 1_000_003) as i32
        ));
    }
    s.push_str("</return>\n</ns1:getIntegersResponse>\n</SOAP-ENV:Body>\n</SOAP-ENV:Envelope>\n");
    s
}

fn ints(n: usize) -> Vec<i32> {
    (0..n)
        .map(|i| (i as i64 * 7919 % 1_000_003) as i32)
        .collect()
}

/// 13,000 contacts x (name, phone), as in the 2-d array test of the .NET/Java study.
fn contacts() -> Vec<Vec<String>> {
    (0..13_000)
        .map(|i| {
            vec![
                format!("Contact Name {i:05}"),
                format!("+1 555 {:04} {:03}", i % 10_000, i % 997),
            ]
        })
        .collect()
}

fn encoded_opts() -> EncodeOptions {
    let mut o = EncodeOptions::default();
    o.style = Style::Encoded;
    o
}

fn soapstone_body<T: serde::de::DeserializeOwned>(doc: &[u8]) -> T {
    Envelope::parse(doc, &Limits::default())
        .unwrap()
        .body(Style::Encoded)
        .unwrap()
}

// ---- DOM baseline: parse the whole tree, then walk to the values ----

fn dom_wrapper<'a>(doc: &'a roxmltree::Document<'a>) -> roxmltree::Node<'a, 'a> {
    let body = doc
        .root_element()
        .children()
        .find(|n| n.is_element() && n.tag_name().name() == "Body")
        .unwrap();
    body.children().find(|n| n.is_element()).unwrap()
}

fn dom_fields(text: &str) -> Vec<String> {
    let doc = roxmltree::Document::parse(text).unwrap();
    dom_wrapper(&doc)
        .children()
        .filter(|n| n.is_element())
        .map(|n| n.text().unwrap_or("").to_string())
        .collect()
}

fn dom_ints(text: &str) -> Vec<i32> {
    let doc = roxmltree::Document::parse(text).unwrap();
    let ret = dom_wrapper(&doc)
        .children()
        .find(|n| n.is_element())
        .unwrap();
    ret.children()
        .filter(|n| n.is_element())
        .map(|n| n.text().unwrap_or("").trim().parse().unwrap())
        .collect()
}

fn dom_grid(text: &str) -> Vec<Vec<String>> {
    let doc = roxmltree::Document::parse(text).unwrap();
    let ret = dom_wrapper(&doc)
        .children()
        .find(|n| n.is_element())
        .unwrap();
    let items: Vec<String> = ret
        .children()
        .filter(|n| n.is_element())
        .map(|n| n.text().unwrap_or("").to_string())
        .collect();
    items.chunks(2).map(|c| c.to_vec()).collect()
}

// ---- pull-parser baseline: events, keeping the text of elements below the wrapper ----

/// Texts of the elements at `depth` (Envelope = 1), in order.
fn pull_texts(bytes: &[u8], depth: usize) -> Vec<String> {
    use xml::reader::{EventReader, XmlEvent};
    let mut out = Vec::new();
    let mut d = 0;
    let mut text = String::new();
    for e in EventReader::new(bytes) {
        match e.unwrap() {
            XmlEvent::StartElement { .. } => {
                d += 1;
                text.clear();
            }
            XmlEvent::Characters(s) => text.push_str(&s),
            XmlEvent::EndElement { .. } => {
                if d == depth {
                    out.push(std::mem::take(&mut text));
                }
                d -= 1;
            }
            _ => {}
        }
    }
    out
}

fn parse_group(c: &mut Criterion, name: &str, doc: &str, run: &dyn Fn(&str)) {
    let mut g = c.benchmark_group(format!("parse/{name}"));
    g.throughput(Throughput::Bytes(doc.len() as u64));
    // The same document again and again: its opening remembered (`envelope/opening.rs`) and,
    // where the body is struct of scalars, the body played back (`de/replay.rs`).
    g.bench_function("soapstone", |b| b.iter(|| run(black_box(doc))));
    // The same document with one of five openings in turn (the XML declaration's first space
    // widened), one more than a thread remembers (`envelope/opening.rs`), so that no parse
    // finds its opening remembered: what a first message, or a thread serving more clients
    // or operations in turn than it remembers, costs.
    assert!(
        doc.starts_with("<?xml "),
        "{name} has an XML declaration to widen"
    );
    let others: Vec<String> = (1..=5)
        .map(|k| doc.replacen("<?xml ", &format!("<?xml {}", " ".repeat(k)), 1))
        .collect();
    g.bench_function("soapstone, opening not remembered", |b| {
        let mut turn = 0;
        b.iter(|| {
            turn = (turn + 1) % others.len();
            run(black_box(&others[turn]))
        })
    });
    // Four of them in turn: as many as a thread remembers, each found.
    g.bench_function("soapstone, four openings in turn", |b| {
        let mut turn = 0;
        b.iter(|| {
            turn = (turn + 1) % 4;
            run(black_box(&others[turn]))
        })
    });
    g.bench_function("roxmltree", |b| {
        b.iter(|| match name {
            "echoFloat" => {
                let f = dom_fields(black_box(doc));
                black_box(f[0].trim().parse::<f32>().unwrap());
            }
            "reserve" => {
                let f = dom_fields(black_box(doc));
                black_box((
                    f[0].trim().parse::<i32>().unwrap(),
                    f[1].trim().parse::<i32>().unwrap(),
                ));
            }
            n if n.starts_with("contacts") => {
                black_box(dom_grid(black_box(doc)));
            }
            _ => {
                black_box(dom_ints(black_box(doc)));
            }
        })
    });
    // the floor: quick-xml's tokenizer alone, no namespaces, no values
    g.bench_function("quick-xml", |b| {
        b.iter(|| {
            let mut r = quick_xml::Reader::from_reader(black_box(doc.as_bytes()));
            let mut n = 0usize;
            loop {
                match r.read_event().unwrap() {
                    quick_xml::events::Event::Eof => break,
                    _ => n += 1,
                }
            }
            black_box(n)
        })
    });
    g.bench_function("xml-rs", |b| {
        b.iter(|| match name {
            "echoFloat" => {
                let f = pull_texts(black_box(doc.as_bytes()), 4);
                black_box(f[0].trim().parse::<f32>().unwrap());
            }
            "reserve" => {
                let f = pull_texts(black_box(doc.as_bytes()), 4);
                black_box((
                    f[0].trim().parse::<i32>().unwrap(),
                    f[1].trim().parse::<i32>().unwrap(),
                ));
            }
            n if n.starts_with("contacts") => {
                let items = pull_texts(black_box(doc.as_bytes()), 5);
                black_box(items.chunks(2).map(|c| c.to_vec()).collect::<Vec<_>>());
            }
            _ => {
                let items = pull_texts(black_box(doc.as_bytes()), 5);
                black_box(
                    items
                        .iter()
                        .map(|s| s.trim().parse::<i32>().unwrap())
                        .collect::<Vec<_>>(),
                );
            }
        })
    });
    g.finish();
}

fn encode_group<T: Serialize>(
    c: &mut Criterion,
    name: &str,
    opts: &EncodeOptions,
    wrapper: &QName,
    value: &T,
) {
    let mut out = Vec::new();
    encode(&mut out, opts, &[], wrapper, value).unwrap();
    let mut g = c.benchmark_group(format!("encode/{name}"));
    g.throughput(Throughput::Bytes(out.len() as u64));
    let mut buf = Vec::with_capacity(out.len());
    g.bench_function(BenchmarkId::from_parameter("soapstone"), |b| {
        b.iter(|| {
            buf.clear();
            encode(&mut buf, opts, &[], wrapper, black_box(value)).unwrap();
            black_box(buf.len())
        })
    });
    g.finish();
}

fn benches(c: &mut Criterion) {
    // Sam Ruby's echoFloat
    let echo = document("samruby_echoFloat_request.xml");
    assert_eq!(soapstone_body::<EchoFloat>(echo.as_bytes()).input, 3.14159);
    assert_eq!(dom_fields(&echo)[0].trim(), "3.14159");
    parse_group(c, "echoFloat", &echo, &|d| {
        black_box(soapstone_body::<EchoFloat>(d.as_bytes()).input);
    });
    let mut opts = encoded_opts();
    opts.schema_ns = SchemaNs::Xsd1999;
    encode_group(
        c,
        "echoFloat",
        &opts,
        &QName::new("http://tempuri.org/", "echoFloat"),
        &EchoFloat { input: 3.14159 },
    );

    // the thesis's reserve request
    let reserve = document("thesis_reserve.xml");
    parse_group(c, "reserve", &reserve, &|d| {
        let r: Reserve = soapstone_body(d.as_bytes());
        black_box((r.id, r.am));
    });

    // Davis & Parashar getIntegers responses
    for n in [200, 400, 800] {
        let doc = get_integers_response(n);
        assert_eq!(soapstone_body::<Ints>(doc.as_bytes()).ret, ints(n));
        assert_eq!(dom_ints(&doc), ints(n));
        parse_group(c, &format!("getIntegers-{n}"), &doc, &|d| {
            black_box(soapstone_body::<Ints>(d.as_bytes()).ret.len());
        });
        encode_group(
            c,
            &format!("getIntegers-{n}"),
            &encoded_opts(),
            &QName::new("urn:test:soap", "getIntegersResponse"),
            &Ints { ret: ints(n) },
        );
    }

    // a large int array, for MB/s
    let big = Ints { ret: ints(100_000) };
    let mut doc = Vec::new();
    encode(
        &mut doc,
        &encoded_opts(),
        &[],
        &QName::new("urn:test:soap", "getIntegersResponse"),
        &big,
    )
    .unwrap();
    let doc = String::from_utf8(doc).unwrap();
    parse_group(c, "ints-100000", &doc, &|d| {
        black_box(soapstone_body::<Ints>(d.as_bytes()).ret.len());
    });
    encode_group(
        c,
        "ints-100000",
        &encoded_opts(),
        &QName::new("urn:test:soap", "getIntegersResponse"),
        &big,
    );

    // 13,000 x 2 strings as a 2-d SOAP-ENC array
    let grid = Grid { ret: contacts() };
    let mut doc = Vec::new();
    encode(
        &mut doc,
        &encoded_opts(),
        &[],
        &QName::new("urn:contacts", "getContactsResponse"),
        &grid,
    )
    .unwrap();
    let doc = String::from_utf8(doc).unwrap();
    assert!(doc.contains("xsd:string[13000,2]"));
    assert_eq!(soapstone_body::<Grid>(doc.as_bytes()).ret, grid.ret);
    assert_eq!(dom_grid(&doc), grid.ret);
    parse_group(c, "contacts-13000x2", &doc, &|d| {
        black_box(soapstone_body::<Grid>(d.as_bytes()).ret.len());
    });
    encode_group(
        c,
        "contacts-13000x2",
        &encoded_opts(),
        &QName::new("urn:contacts", "getContactsResponse"),
        &grid,
    );
}

criterion_group!(codec, benches);
criterion_main!(codec);
