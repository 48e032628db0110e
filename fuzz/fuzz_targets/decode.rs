//! Envelope decoding, then body decoding into a few typed structs in both styles, headers and
//! faults: whatever the bytes, the codec returns `Ok` or a `DecodeError` and never panics.
//! A crash found here is shrunk (`cargo fuzz tmin decode <file>`) and added as an ordinary
//! test to `crates/codec/tests/mutations.rs` (module `regressions`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde::Deserialize;
use soapstone_codec::{xsd, Envelope, Limits, Style};

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Reserve {
    id: i32,
    am: Option<i64>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct SoapStruct {
    var_string: String,
    var_int: i32,
    var_float: f32,
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Many {
    #[serde(rename = "inputStringArray")]
    strings: Option<Vec<String>>,
    #[serde(rename = "inputStruct")]
    st: Option<SoapStruct>,
    #[serde(rename = "input2DStringArray")]
    grid: Option<Vec<Vec<String>>>,
    #[serde(rename = "inputDate")]
    date: Option<xsd::DateTime>,
    #[serde(rename = "inputBase64")]
    b64: Option<xsd::Base64Binary>,
    #[serde(rename = "inputDecimal")]
    dec: Option<xsd::Decimal>,
}

fuzz_target!(|bytes: &[u8]| {
    let limits = Limits::default();
    let Ok(env) = Envelope::parse(bytes, &limits) else { return };
    for i in 0..env.headers().len() {
        let _ = env.header_xml(i);
        let _ = env.header::<serde::de::IgnoredAny>(i, Style::Literal);
    }
    if env.is_fault() {
        let _ = env.fault();
    }
    for style in [Style::Literal, Style::Encoded] {
        let _ = env.body::<Reserve>(style);
        let _ = env.body::<Many>(style);
        let _ = env.body::<SoapStruct>(style);
        let _ = env.body::<serde::de::IgnoredAny>(style);
        let _ = env.body::<()>(style);
    }
});
