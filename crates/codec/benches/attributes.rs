//! What attributes and text content cost beside elements, measured side by side in one run:
//! 1,000 items whose id, code and price are child elements (`plain`) against the same values as
//! two attributes and the text of a simple-content element (`attributes`), decoded and encoded
//! (document/literal). `cargo bench -p soapstone-codec --bench attributes`; report the ratio of
//! the two medians of each group, not the absolute times.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use serde::{Deserialize, Serialize};
use soapstone_codec::{encode, EncodeOptions, Envelope, Limits, QName, Style};

#[derive(Serialize, Deserialize)]
struct PlainPrice {
    currency: String,
    amount: f64,
}

#[derive(Serialize, Deserialize)]
struct Plain {
    id: u32,
    code: String,
    name: String,
    price: PlainPrice,
}

#[derive(Serialize, Deserialize)]
struct AttrPrice {
    #[serde(rename = "@currency")]
    currency: String,
    #[serde(rename = "$text")]
    amount: f64,
}

#[derive(Serialize, Deserialize)]
struct Attrs {
    #[serde(rename = "@id")]
    id: u32,
    #[serde(rename = "@code")]
    code: String,
    name: String,
    price: AttrPrice,
}

#[derive(Serialize, Deserialize)]
struct Many<T> {
    item: Vec<T>,
}

fn plain(n: u32) -> Many<Plain> {
    Many {
        item: (0..n)
            .map(|i| Plain {
                id: i,
                code: format!("C-{i}"),
                name: format!("item {i}"),
                price: PlainPrice {
                    currency: "EUR".into(),
                    amount: f64::from(i) + 0.5,
                },
            })
            .collect(),
    }
}

fn attrs(n: u32) -> Many<Attrs> {
    Many {
        item: (0..n)
            .map(|i| Attrs {
                id: i,
                code: format!("C-{i}"),
                name: format!("item {i}"),
                price: AttrPrice {
                    currency: "EUR".into(),
                    amount: f64::from(i) + 0.5,
                },
            })
            .collect(),
    }
}

fn benches(c: &mut Criterion) {
    let wrapper = QName::new("urn:bench", "items");
    let opts = EncodeOptions::default();
    let (p, a) = (plain(1000), attrs(1000));
    let mut p_doc = Vec::new();
    encode(&mut p_doc, &opts, &[], &wrapper, &p).unwrap();
    let mut a_doc = Vec::new();
    encode(&mut a_doc, &opts, &[], &wrapper, &a).unwrap();

    let mut g = c.benchmark_group("decode/1000 items");
    g.throughput(Throughput::Elements(1000));
    g.bench_function(BenchmarkId::from_parameter("plain"), |b| {
        b.iter(|| {
            let env = Envelope::parse(black_box(&p_doc), &Limits::default()).unwrap();
            let v: Many<Plain> = env.body(Style::Literal).unwrap();
            black_box(v.item.len())
        })
    });
    g.bench_function(BenchmarkId::from_parameter("attributes"), |b| {
        b.iter(|| {
            let env = Envelope::parse(black_box(&a_doc), &Limits::default()).unwrap();
            let v: Many<Attrs> = env.body(Style::Literal).unwrap();
            black_box(v.item.len())
        })
    });
    g.finish();

    let mut g = c.benchmark_group("encode/1000 items");
    g.throughput(Throughput::Elements(1000));
    let mut buf = Vec::with_capacity(p_doc.len().max(a_doc.len()));
    g.bench_function(BenchmarkId::from_parameter("plain"), |b| {
        b.iter(|| {
            buf.clear();
            encode(&mut buf, &opts, &[], &wrapper, black_box(&p)).unwrap();
            black_box(buf.len())
        })
    });
    g.bench_function(BenchmarkId::from_parameter("attributes"), |b| {
        b.iter(|| {
            buf.clear();
            encode(&mut buf, &opts, &[], &wrapper, black_box(&a)).unwrap();
            black_box(buf.len())
        })
    });
    g.finish();
}

criterion_group!(attributes, benches);
criterion_main!(attributes);
