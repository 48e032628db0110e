//! Encoded multi-ref graphs, generated: `href`/`id` (SOAP 1.1) and `enc:ref`/`enc:id`
//! (SOAP 1.2) references forming chains, diamonds and cycles, to typed recursive values,
//! arrays and `IgnoredAny`. Whatever the graph, a decode ends in `Ok` or a `DecodeError`
//! (never a panic, a stack overflow or a loop), and the peak of bytes live while it runs
//! (bounded above by the bytes allocated while it runs) stays under `64 x input + 4 MiB` (the bound `fuzz/`'s `decode` target enforces; the
//! codec's documented multi-ref budget keeps the text it materializes under `5 x input +
//! 64 KiB`).
//!
//! A counting global allocator (`stats_alloc`) is process-wide, so this file holds one test. `PROPTEST_CASES` runs a longer campaign (see `support/mutate.rs`).

#[path = "support/mutate.rs"]
mod mutate;

use std::alloc::System;

use proptest::prelude::*;
use serde::Deserialize;
use soapstone_codec::*;
use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Runs `f` and returns the bytes allocated meanwhile (growth by `realloc` included): at
/// least the peak of what `f` held.
fn peak_of<R>(f: impl FnOnce() -> R) -> (R, usize) {
    let region = Region::new(GLOBAL);
    let r = f();
    let s = region.change();
    let grown = usize::try_from(s.bytes_reallocated).unwrap_or(0);
    (r, s.bytes_allocated + grown)
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Node {
    v: Option<String>,
    a: Option<Box<Node>>,
    b: Option<Box<Node>>,
    #[serde(default)]
    items: Vec<Node>,
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Root {
    first: Option<Node>,
    second: Option<Node>,
    list: Option<Vec<String>>,
    grid: Option<Vec<Vec<String>>>,
}

/// One node of a generated graph: its text, and where its children point (`None`: no child).
#[derive(Debug, Clone)]
struct Spec {
    text: usize,
    a: Option<usize>,
    b: Option<usize>,
    items: Vec<usize>,
}

fn spec(nodes: usize) -> impl Strategy<Value = Spec> {
    (
        prop_oneof![Just(0usize), 1usize..64, Just(4096), Just(60_000)],
        proptest::option::of(0..nodes),
        proptest::option::of(0..nodes),
        proptest::collection::vec(0..nodes, 0..6),
    )
        .prop_map(|(text, a, b, items)| Spec { text, a, b, items })
}

/// A whole envelope: the body's accessors reference nodes `roots`; each node is a multiRef.
fn document(v12: bool, specs: &[Spec], roots: &[usize], refs: usize) -> String {
    let (env, href, id) = if v12 {
        (
            r#"<e:Envelope xmlns:e="http://www.w3.org/2003/05/soap-envelope" xmlns:enc="http://www.w3.org/2003/05/soap-encoding" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><e:Body><m:op xmlns:m="urn:m" e:encodingStyle="http://www.w3.org/2003/05/soap-encoding">"#,
            (|i| format!(r#" enc:ref="n{i}""#)) as fn(usize) -> String,
            (|i| format!(r#" enc:id="n{i}""#)) as fn(usize) -> String,
        )
    } else {
        (
            r#"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" xmlns:soapenc="http://schemas.xmlsoap.org/soap/encoding/" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><s:Body><m:op xmlns:m="urn:m" s:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/">"#,
            (|i| format!(r##" href="#n{i}""##)) as fn(usize) -> String,
            (|i| format!(r#" id="n{i}""#)) as fn(usize) -> String,
        )
    };
    let mut doc = String::from(env);
    let names = ["first", "second"];
    for (k, &r) in roots.iter().enumerate() {
        doc.push_str(&format!("<{0}{1}/>", names[k % 2], href(r)));
    }
    doc.push_str(&format!(
        r#"<list{}>"#,
        if v12 {
            r#" enc:itemType="xsd:string" enc:arraySize="*""#
        } else {
            r#" soapenc:arrayType="xsd:string[]""#
        }
    ));
    for i in 0..refs {
        doc.push_str(&format!("<i{}/>", href(i % specs.len().max(1))));
    }
    doc.push_str("</list></m:op>");
    for (i, s) in specs.iter().enumerate() {
        let tag = if v12 { "n" } else { "multiRef" };
        doc.push_str(&format!("<{tag}{}>", id(i)));
        if s.text > 0 {
            doc.push_str(&format!("<v>{}</v>", "x".repeat(s.text)));
        }
        for (name, to) in [("a", s.a), ("b", s.b)] {
            if let Some(to) = to {
                doc.push_str(&format!("<{name}{}/>", href(to)));
            }
        }
        if !s.items.is_empty() {
            doc.push_str("<items>");
            for &to in &s.items {
                doc.push_str(&format!("<item{}/>", href(to)));
            }
            doc.push_str("</items>");
        }
        doc.push_str(&format!("</{tag}>"));
    }
    doc.push_str(if v12 {
        "</e:Body></e:Envelope>"
    } else {
        "</s:Body></s:Envelope>"
    });
    doc
}

/// Decodes `doc` every way; the peak must stay within the bound.
fn check(doc: &[u8]) -> Result<(), String> {
    let ((), peak) = peak_of(|| {
        let Ok(env) = Envelope::parse(doc, &Limits::default()) else {
            return;
        };
        let _ = env.body::<Root>(Style::Encoded);
        let _ = env.body::<serde::de::IgnoredAny>(Style::Encoded);
        let _ = env.body::<xsd::AnyXml>(Style::Encoded);
    });
    let bound = 64 * doc.len() + (4 << 20);
    if peak > bound {
        return Err(format!(
            "peak {peak} bytes for an input of {} bytes (bound {bound})",
            doc.len()
        ));
    }
    Ok(())
}

fn graph() -> impl Strategy<Value = (bool, Vec<Spec>, Vec<usize>, usize)> {
    (1usize..40).prop_flat_map(|n| {
        (
            any::<bool>(),
            proptest::collection::vec(spec(n), n),
            proptest::collection::vec(0..n, 0..3),
            0usize..300,
        )
    })
}

/// One test, so that nothing else allocates while a decode is measured (the counter is
/// process-wide): the fixed shapes first, then generated graphs, plain and mutated.
#[test]
fn multi_ref_graphs_decode_within_the_bound() {
    chains_and_cycles_end();
    diamond_lattices_stay_within_the_bound();
    let mut config = mutate::config(120);
    config.source_file = Some(file!());
    let mut runner = proptest::test_runner::TestRunner::new(config);
    let cases = (
        graph(),
        proptest::option::of(proptest::collection::vec(mutate::op(), 1..4)),
    );
    let res = runner.run(&cases, |((v12, specs, roots, refs), ops)| {
        let mut doc = document(v12, &specs, &roots, refs).into_bytes();
        if let Some(ops) = ops {
            doc = mutate::apply(doc, &ops);
        }
        check(&doc).map_err(TestCaseError::fail)
    });
    if let Err(e) = res {
        panic!("{e}");
    }
}

/// Chains, self-references and cycles of every length up to 5,000 nodes.
fn chains_and_cycles_end() {
    for n in [1, 2, 3, 63, 64, 65, 200, 1000, 5000] {
        for v12 in [false, true] {
            // a chain n0 → n1 → ... → n(n-1), and the same closed into a cycle
            for cycle in [false, true] {
                let specs: Vec<Spec> = (0..n)
                    .map(|i| Spec {
                        text: 3,
                        a: if i + 1 < n {
                            Some(i + 1)
                        } else if cycle {
                            Some(0)
                        } else {
                            None
                        },
                        b: None,
                        items: vec![],
                    })
                    .collect();
                let doc = document(v12, &specs, &[0], 0);
                check(doc.as_bytes())
                    .unwrap_or_else(|e| panic!("n {n}, v12 {v12}, cycle {cycle}: {e}"));
            }
        }
    }
}

/// A diamond lattice: each of `n` levels references the next level's node twice, so a naive
/// decoder would copy 2^n subtrees.
fn diamond_lattices_stay_within_the_bound() {
    for n in [10, 20, 40] {
        let specs: Vec<Spec> = (0..n)
            .map(|i| Spec {
                text: 1000,
                a: (i + 1 < n).then_some(i + 1),
                b: (i + 1 < n).then_some(i + 1),
                items: if i + 1 < n { vec![i + 1; 4] } else { vec![] },
            })
            .collect();
        let doc = document(false, &specs, &[0, 0], 100);
        check(doc.as_bytes()).unwrap_or_else(|e| panic!("n {n}: {e}"));
    }
}
