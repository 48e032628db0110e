//! Decodes Sam Ruby's echoFloat request in a loop: a fixed workload for
//! `valgrind --tool=callgrind` (instruction counts are repeatable where timings are not).
//!
//! `cargo run --release -p soapstone-codec --example echo_float_loop -- [iterations]`

use soapstone_codec::{Envelope, Limits, Style};

#[derive(serde::Deserialize)]
struct EchoFloat {
    input: f32,
}

fn main() {
    let n: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(100_000);
    let doc = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/documents/samruby_echoFloat_request.xml"
    ))
    .expect("test document");
    let limits = Limits::default();
    let mut sum = 0.0f64;
    for _ in 0..n {
        let env = Envelope::parse(std::hint::black_box(&doc), &limits).expect("parse");
        let v: EchoFloat = env.body(Style::Encoded).expect("body");
        sum += f64::from(v.input);
    }
    println!("{n} decodes, sum {sum}");
}
