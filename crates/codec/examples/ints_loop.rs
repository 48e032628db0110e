//! Decodes or encodes the codec bench's 100,000-int SOAP-ENC array (`parse/ints-100000`,
//! `encode/ints-100000`) in a loop: a fixed workload for `valgrind --tool=callgrind`
//! (instruction counts are repeatable where timings on a shared machine are not). Two runs
//! with different counts give the instructions of one iteration by difference.
//!
//! `cargo run --release -p soapstone-codec --example ints_loop -- decode|encode [iterations]`

use serde::{Deserialize, Serialize};
use soapstone_codec::{encode, EncodeOptions, Envelope, Limits, QName, Style};

#[derive(Serialize, Deserialize)]
struct Ints {
    #[serde(rename = "return")]
    ret: Vec<i32>,
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mode = args.next().unwrap_or_else(|| "decode".to_owned());
    let n: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(10);
    // the bench's values and options (benches/codec.rs)
    let value = Ints {
        ret: (0..100_000)
            .map(|i| (i as i64 * 7919 % 1_000_003) as i32)
            .collect(),
    };
    let mut options = EncodeOptions::default();
    options.style = Style::Encoded;
    let name = QName::new("urn:test:soap", "getIntegersResponse");
    let mut doc = Vec::new();
    encode(&mut doc, &options, &[], &name, &value).expect("encode");
    let limits = Limits::default();
    let mut total = 0usize;
    // reused, as the bench reuses its buffer
    let mut out = Vec::with_capacity(doc.len());
    for _ in 0..n {
        match mode.as_str() {
            "decode" => {
                let env = Envelope::parse(std::hint::black_box(&doc), &limits).expect("parse");
                let v: Ints = env.body(Style::Encoded).expect("body");
                total += v.ret.len();
            }
            "encode" => {
                out.clear();
                encode(&mut out, &options, &[], &name, std::hint::black_box(&value))
                    .expect("encode");
                total += out.len();
            }
            other => {
                eprintln!("ints_loop: unknown mode `{other}`, expected `decode` or `encode`");
                std::process::exit(2);
            }
        }
    }
    println!("{n} {mode}s of {} bytes, total {total}", doc.len());
}
