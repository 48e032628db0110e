//! The write→read invariant, fuzzed: whatever the parser accepts and captures verbatim
//! (`xsd:any` and `anyType` content as [`xsd::AnyXml`], header blocks, faults with their
//! `detail`) must survive the codec's own writer: written into a new envelope it reads back,
//! and a second round gives the same capture (a relay, a cache or a proxy re-sends what it
//! read). Seeds: every message of `testdata/` (Rounds 2-4, the SOAP 1.2 collection,
//! node-soap, WSTest), mutated.
//!
//! A failure becomes a named test in `regressions` below; `PROPTEST_CASES` runs a longer
//! campaign (see `support/mutate.rs`).

#[path = "support/mutate.rs"]
mod mutate;

use mutate::{apply, config, corpus, op};
use proptest::prelude::*;
use serde::{Deserialize, Serialize};
use soapstone_codec::*;

/// Every child of the wrapper, captured.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Open {
    #[serde(rename = "$any", default)]
    any: Vec<xsd::AnyXml>,
}

/// Named children of type `anyType` (the Round 2 and WSTest parameter names).
#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Typed {
    #[serde(rename = "inputString", skip_serializing_if = "Option::is_none")]
    string: Option<xsd::AnyXml>,
    #[serde(rename = "inputStruct", skip_serializing_if = "Option::is_none")]
    st: Option<xsd::AnyXml>,
    #[serde(rename = "inputStringArray", skip_serializing_if = "Option::is_none")]
    strings: Option<xsd::AnyXml>,
    #[serde(rename = "Order", skip_serializing_if = "Option::is_none")]
    order: Option<xsd::AnyXml>,
}

fn options(version: Version, style: Style) -> EncodeOptions {
    let mut o = EncodeOptions::default();
    o.version = version;
    o.style = style;
    o
}

fn parse(bytes: &[u8]) -> Result<Envelope<'_>, DecodeError> {
    Envelope::parse(bytes, &Limits::default())
}

/// Writes `value` as the body of a fresh envelope and reads it back as `T`.
fn again<T>(value: &T, wrapper: &QName, version: Version, style: Style) -> Result<T, String>
where
    T: Serialize + for<'de> Deserialize<'de>,
{
    let mut out = Vec::new();
    encode(&mut out, &options(version, style), &[], wrapper, value)
        .map_err(|e| format!("encode: {e}"))?;
    let text = String::from_utf8_lossy(&out).into_owned();
    let env = parse(&out).map_err(|e| format!("{e}\n{text}"))?;
    env.body::<T>(style).map_err(|e| format!("{e}\n{text}"))
}

/// A body value read as `T` is written and read twice: both reads succeed and the second
/// gives back the first.
fn body_survives<T>(env: &Envelope<'_>, style: Style) -> Result<(), String>
where
    T: Serialize + for<'de> Deserialize<'de> + PartialEq + std::fmt::Debug,
{
    let (Ok(first), Some(wrapper)) = (env.body::<T>(style), env.body_element()) else {
        return Ok(());
    };
    let second = again(&first, wrapper, env.version(), style)?;
    let third = again(&second, wrapper, env.version(), style)?;
    if second != third {
        return Err(format!("not a fixed point:\n{second:?}\n{third:?}"));
    }
    Ok(())
}

/// Each header block captured as `AnyXml`, written as a header block and read back.
fn headers_survive(env: &Envelope<'_>) -> Result<(), String> {
    for i in 0..env.headers().len() {
        let Ok(first) = env.header::<xsd::AnyXml>(i, Style::Literal) else {
            continue;
        };
        let round = |block: &xsd::AnyXml| -> Result<xsd::AnyXml, String> {
            let mut out = Vec::new();
            let opts = options(env.version(), Style::Literal);
            encode(
                &mut out,
                &opts,
                &[block.as_str()],
                &QName::new("urn:x", "op"),
                &(),
            )
            .map_err(|e| format!("encode: {e}"))?;
            let text = String::from_utf8_lossy(&out).into_owned();
            let back = parse(&out).map_err(|e| format!("{e}\n{text}"))?;
            back.header::<xsd::AnyXml>(0, Style::Literal)
                .map_err(|e| format!("{e}\n{text}"))
        };
        let second = round(&first)?;
        let third = round(&second)?;
        if second != third {
            return Err(format!(
                "header {i} not a fixed point:\n{second:?}\n{third:?}"
            ));
        }
    }
    Ok(())
}

/// A fault read, written again in the same version and read back, is the same fault.
fn fault_survives(env: &Envelope<'_>) -> Result<(), String> {
    let Ok(first) = env.fault() else {
        return Ok(());
    };
    let round = |f: &Fault| -> Result<Fault, String> {
        let mut out = Vec::new();
        encode_fault(&mut out, env.version(), f);
        let text = String::from_utf8_lossy(&out).into_owned();
        let back = parse(&out).map_err(|e| format!("{e}\n{text}"))?;
        back.fault().map_err(|e| format!("{e}\n{text}"))
    };
    let second = round(&first)?;
    let third = round(&second)?;
    if second != third {
        return Err(format!("fault not a fixed point:\n{second:?}\n{third:?}"));
    }
    Ok(())
}

/// How much of a document the invariant reached: header blocks, faults, captured bodies.
#[derive(Default)]
struct Reached {
    headers: usize,
    faults: usize,
    captures: usize,
}

fn check(bytes: &[u8], reached: &mut Reached) -> Result<(), String> {
    let Ok(env) = parse(bytes) else {
        return Ok(());
    };
    headers_survive(&env)?;
    reached.headers += env.headers().len();
    if env.is_fault() {
        reached.faults += usize::from(env.fault().is_ok());
        return fault_survives(&env);
    }
    for style in [Style::Literal, Style::Encoded] {
        body_survives::<Open>(&env, style)?;
        body_survives::<Typed>(&env, style)?;
        reached.captures += env.body::<Open>(style).map_or(0, |o| o.any.len());
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(1500))]

    #[test]
    fn what_is_read_survives_its_own_writer(which in any::<usize>(), ops in proptest::collection::vec(op(), 0..5)) {
        let seeds = corpus();
        let doc = apply(seeds[which % seeds.len()].clone(), &ops);
        if let Err(e) = check(&doc, &mut Reached::default()) {
            return Err(TestCaseError::fail(format!("{e}\ninput: {:?}", String::from_utf8_lossy(&doc))));
        }
    }
}

/// Every unmutated message of `testdata/` holds the invariant.
#[test]
fn every_testdata_message_survives_its_own_writer() {
    let mut reached = Reached::default();
    for doc in corpus() {
        if let Err(e) = check(doc, &mut reached) {
            panic!("{e}\ninput: {}", String::from_utf8_lossy(doc));
        }
    }
    // The corpus reaches every part of the invariant (so the mutations start from there).
    assert!(reached.headers >= 60, "{} header blocks", reached.headers);
    assert!(reached.faults >= 60, "{} faults", reached.faults);
    assert!(reached.captures >= 1000, "{} captures", reached.captures);
}

mod regressions {
    //! Inputs that once broke the invariant; kept as ordinary tests.
}
