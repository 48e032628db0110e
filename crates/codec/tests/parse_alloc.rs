//! Heap allocations of reading an envelope, counted per thread by the counting global
//! allocator of `allocation-counter` (only the thread that asked is counted: the test
//! harness's own threads allocate whenever another test starts or finishes, and a process-wide
//! count made this test fail in CI, one allocation too many). A
//! server parses each request's envelope once per router in front of the dispatcher and once
//! more to decode it, so what a parse allocates is paid several times per request: reading up
//! to the body element and naming it must allocate nothing (issue 12), and an envelope with
//! more bindings than are kept inline still reads right.

use serde::Deserialize;
use soapstone_codec::{Envelope, Limits, Style};

/// Allocations (reallocations included) made by this thread while `f` runs.
fn allocations(f: impl FnOnce()) -> u64 {
    allocation_counter::measure(f).count_total
}

/// SOAPBuilders' echoFloat, as `soapstone bench` sends it in `scripts/rpc-compare.sh`.
const ECHO_FLOAT: &str = r#"<?xml version="1.0" encoding="UTF-8"?><SOAP-ENV:Envelope xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><SOAP-ENV:Body><ns1:echoFloat xmlns:ns1="http://soapinterop.org/" SOAP-ENV:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"><inputFloat xsi:type="xsd:float">654.321</inputFloat></ns1:echoFloat></SOAP-ENV:Body></SOAP-ENV:Envelope>"#;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct EchoFloat {
    input_float: f32,
}

#[test]
fn parsing_to_the_body_element_allocates_nothing() {
    let limits = Limits::default();
    // the first parse may set up lazily initialised statics; steady state is what counts
    let _ = Envelope::parse(ECHO_FLOAT.as_bytes(), &limits).unwrap();
    let n = allocations(|| {
        let env = Envelope::parse(ECHO_FLOAT.as_bytes(), &limits).unwrap();
        assert_eq!(
            env.body_name(),
            Some(("http://soapinterop.org/", "echoFloat"))
        );
        assert!(!env.is_fault());
    });
    assert_eq!(n, 0, "Envelope::parse and body_name allocated {n} times");
}

#[test]
fn decoding_a_scalar_body_allocates_nothing_beyond_the_value() {
    let limits = Limits::default();
    // steady state: the first read remembers the opening, the second the body past it (the
    // third and later are played back: `de::replay`)
    for _ in 0..2 {
        let env = Envelope::parse(ECHO_FLOAT.as_bytes(), &limits).unwrap();
        let _: EchoFloat = env.body(Style::Encoded).unwrap();
    }
    let n = allocations(|| {
        let env = Envelope::parse(ECHO_FLOAT.as_bytes(), &limits).unwrap();
        let v: EchoFloat = env.body(Style::Encoded).unwrap();
        assert_eq!(v.input_float, 654.321);
    });
    assert_eq!(n, 0, "parsing and decoding echoFloat allocated {n} times");
}

#[test]
fn more_bindings_than_kept_inline_still_resolve() {
    // twelve declarations on Envelope: past the inline capacity, the bindings spill to the heap
    let mut decls = String::new();
    for i in 0..10 {
        decls.push_str(&format!(r#" xmlns:p{i}="urn:p{i}""#));
    }
    let doc = format!(
        r#"<e:Envelope xmlns:e="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"{decls}><e:Body><p9:echoFloat><inputFloat xsi:type="p3:float">1.5</inputFloat></p9:echoFloat></e:Body></e:Envelope>"#
    );
    let env = Envelope::parse(doc.as_bytes(), &Limits::default()).unwrap();
    assert_eq!(env.body_name(), Some(("urn:p9", "echoFloat")));
    assert_eq!(env.body_element().unwrap().namespace, "urn:p9");
    let v: EchoFloat = env.body(Style::Literal).unwrap();
    assert_eq!(v.input_float, 1.5);
}
