//! Shared by the codec's fuzz harnesses: the seed messages of `testdata/` and the byte-level
//! mutations applied to them (the stable stand-in for `cargo fuzz`'s mutator).

#![allow(dead_code)]

use std::path::Path;
use std::sync::OnceLock;

use proptest::prelude::*;
use soapstone_mutate::Mutator;
pub(crate) use soapstone_mutate::{config, Op};

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

pub(crate) const MUTATOR: Mutator<&str> = Mutator {
    snippets: SNIPPETS,
    max_delete: 40,
    max_duplicate: 200,
    insert_weight: 3,
};

pub(crate) fn op() -> impl Strategy<Value = Op> {
    MUTATOR.op()
}

pub(crate) fn apply(doc: Vec<u8>, ops: &[Op]) -> Vec<u8> {
    MUTATOR.apply(doc, ops)
}
