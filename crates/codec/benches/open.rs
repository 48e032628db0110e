//! What open content costs beside typed decoding, measured side by side in one run: a body of
//! 1,000 `<entry>` elements read into typed structs, as a `choice` (an enum), and as raw
//! values (`$any`: each captured with the namespace declarations in scope written on it).
//! Report the ratios (`cargo bench -p soapstone-codec --bench open`), never absolute times.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use serde::Deserialize;
use soapstone_codec::xsd::AnyXml;
use soapstone_codec::{Envelope, Limits, Style};

#[derive(Deserialize)]
#[allow(dead_code)]
struct Entry {
    name: String,
    qty: i32,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct Typed {
    entry: Vec<Entry>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
enum Choice {
    #[serde(rename = "entry")]
    Entry(Entry),
    #[serde(rename = "other")]
    Other(String),
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct Chosen {
    #[serde(rename = "$choice:entry|other")]
    entries: Vec<Choice>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct Raw {
    #[serde(rename = "$any")]
    entries: Vec<AnyXml>,
}

fn document(n: usize) -> String {
    let mut s = String::from(
        r#"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><s:Body><t:order xmlns:t="urn:t">"#,
    );
    for i in 0..n {
        s.push_str(&format!(
            "<entry><name>item {i}</name><qty>{i}</qty></entry>"
        ));
    }
    s.push_str("</t:order></s:Body></s:Envelope>");
    s
}

fn benches(c: &mut Criterion) {
    let doc = document(1000);
    let limits = Limits::default();
    let mut g = c.benchmark_group("open/entries-1000");
    g.bench_function("typed", |b| {
        b.iter(|| {
            let env = Envelope::parse(black_box(doc.as_bytes()), &limits).unwrap();
            env.body::<Typed>(Style::Literal).unwrap()
        })
    });
    g.bench_function("choice", |b| {
        b.iter(|| {
            let env = Envelope::parse(black_box(doc.as_bytes()), &limits).unwrap();
            env.body::<Chosen>(Style::Literal).unwrap()
        })
    });
    g.bench_function("raw", |b| {
        b.iter(|| {
            let env = Envelope::parse(black_box(doc.as_bytes()), &limits).unwrap();
            env.body::<Raw>(Style::Literal).unwrap()
        })
    });
    g.finish();
}

criterion_group!(open, benches);
criterion_main!(open);
