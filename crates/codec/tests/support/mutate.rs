//! Shared by the codec's fuzz harnesses: the seed messages of `testdata/` and the byte-level
//! mutations applied to them (the stable stand-in for `cargo fuzz`'s mutator).

#![allow(dead_code)]

use std::path::Path;
use std::sync::OnceLock;

use proptest::prelude::*;

/// Every SOAP message in `testdata/`: SOAPBuilders Rounds 2-4 and the W3C SOAP 1.2 test
/// collection (php-ext-soap), node-soap's request/response samples and WSTest's posted
/// bodies; read once per test binary.
pub(crate) fn corpus() -> &'static [Vec<u8>] {
    static CORPUS: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    CORPUS.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata");
        let mut files = Vec::new();
        for dir in [
            "php-ext-soap/messages",
            "node-soap/request-response-samples",
            "wstest/scripts/bench/post_files",
        ] {
            collect(&root.join(dir), &mut files);
        }
        files.sort();
        assert!(files.len() > 300, "testdata has {} messages", files.len());
        files.iter().map(|f| std::fs::read(f).unwrap()).collect()
    })
}

fn collect(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "xml") {
            out.push(path);
        }
    }
}

/// `cases` unless `PROPTEST_CASES` asks for more (a long campaign: `PROPTEST_CASES=200000
/// cargo test --release`); finds are saved next to the test file
/// (`<file>.proptest-regressions`, committed) and replayed first; new cases stay random.
pub(crate) fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(cases),
        failure_persistence: Some(Box::new(
            proptest::test_runner::FileFailurePersistence::WithSource("proptest-regressions"),
        )),
        ..ProptestConfig::default()
    }
}

/// Pieces of markup a mutation may insert: the constructs each layer must refuse or handle.
pub(crate) const SNIPPETS: &[&str] = &[
    "<",
    ">",
    "&",
    "&amp;",
    "&#0;",
    "&#xD;",
    "&#x110000;",
    "&#xFFFE;",
    "]]>",
    "<![CDATA[",
    "<![CDATA[x]]>",
    "<!--",
    "<!-- c -->",
    "<?pi?>",
    "<!DOCTYPE x>",
    "\"",
    "'",
    "\r\n",
    "\t",
    "xmlns=\"\"",
    " xmlns=\"urn:d\"",
    " xmlns:a=\"urn:a\"",
    " xmlns:a=\"\"",
    " a:x=\"1\"",
    "a:",
    " xmlns:xml=\"urn:x\"",
    " xml:lang=\"en\"",
    " xsi:nil=\"1\"",
    " xsi:nil=\"true\"",
    " xsi:type=\"xsd:string\"",
    " xsi:type=\"a:b\"",
    " href=\"#a\"",
    " id=\"a\"",
    " enc:ref=\"a\"",
    " enc:id=\"a\"",
    " SOAP-ENC:arrayType=\"xsd:string[2,3]\"",
    " SOAP-ENC:arrayType=\"xsd:int[99999999999]\"",
    " SOAP-ENC:offset=\"[5]\"",
    " SOAP-ENC:position=\"[1]\"",
    " mustUnderstand=\"1\"",
    "<item>",
    "</item>",
    "<a:item xmlns:a=\"urn:a\">",
    "<detail>",
    "</detail>",
    "\u{FFFE}",
    "\u{0}",
    "\u{85}",
    "\u{2028}",
    "é",
    "\u{1F600}",
    "\u{FEFF}",
];

/// One edit of a document.
#[derive(Debug, Clone)]
pub(crate) enum Op {
    Flip(usize, u8),
    Delete(usize, usize),
    Insert(usize, usize),
    Duplicate(usize, usize),
    Truncate(usize),
}

pub(crate) fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        1 => (any::<usize>(), any::<u8>()).prop_map(|(a, b)| Op::Flip(a, b)),
        1 => (any::<usize>(), 0usize..40).prop_map(|(a, n)| Op::Delete(a, n)),
        3 => (any::<usize>(), 0..SNIPPETS.len()).prop_map(|(a, s)| Op::Insert(a, s)),
        1 => (any::<usize>(), 0usize..200).prop_map(|(a, n)| Op::Duplicate(a, n)),
        1 => any::<usize>().prop_map(Op::Truncate),
    ]
}

pub(crate) fn apply(mut doc: Vec<u8>, ops: &[Op]) -> Vec<u8> {
    for op in ops {
        let len = doc.len().max(1);
        match *op {
            Op::Flip(at, b) => {
                if !doc.is_empty() {
                    doc[at % len] = b;
                }
            }
            Op::Delete(at, n) => {
                let a = at % len;
                let b = (a + n).min(doc.len());
                if a < b {
                    doc.drain(a..b);
                }
            }
            Op::Insert(at, s) => {
                let a = (at % len).min(doc.len());
                doc.splice(a..a, SNIPPETS[s].bytes());
            }
            Op::Duplicate(at, n) => {
                let a = (at % len).min(doc.len());
                let b = (a + n).min(doc.len());
                let piece = doc[a..b].to_vec();
                doc.splice(b..b, piece);
            }
            Op::Truncate(at) => doc.truncate(at % len),
        }
    }
    doc
}
