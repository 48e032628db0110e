//! The W3C SOAP 1.2 test collection (the T01..T80 messages PHP ext/soap ships, in
//! `testdata/php-ext-soap/messages/soap12-testcollection`) against node C of the collection
//! (`w3c/node.rs`) served by a real server on 127.0.0.1: each request goes over raw HTTP/1.1
//! as `application/soap+xml`, and the answer is compared canonically (`w3c/canon.rs`) with
//! the reference response, corrected where PHP's answer departs from SOAP 1.2 (`OVERRIDES`),
//! together with the HTTP status (SOAP 1.2 Part 2 7.5.2.2) and the response media type.
//!
//! The test prints the pass count and every failing case with its reason, and fails if a case
//! fails that is not in `OUT_OF_SCOPE`, or if one there passes (so the list stays honest).

#[path = "w3c/canon.rs"]
mod canon;
mod common;
#[path = "w3c/node.rs"]
mod node;

use std::future::IntoFuture;
use std::net::SocketAddr;

use canon::Canon;
use common::{read_response, send, Resp};
use soapstone_codec::{FaultCode, QName, Version};
use soapstone_server::Server;

const ENC: &str = "http://www.w3.org/2003/05/soap-encoding";
const RPC: &str = "http://www.w3.org/2003/05/soap-rpc";

/// Cases whose reference answer (PHP's) is not what SOAP 1.2 asks; the expected fault instead,
/// with its subcodes, and why.
/// A case, the fault expected instead of the reference answer, its subcodes (namespace,
/// local name), and why.
type Override = (
    &'static str,
    FaultCode,
    &'static [(&'static str, &'static str)],
    &'static str,
);

const OVERRIDES: &[Override] = &[
    ("T25", FaultCode::Client, &[], "a DTD is the sender's error (Part 1 5: a message MUST NOT contain one); PHP says Receiver"),
    ("T64", FaultCode::Client, &[], "as T25"),
    ("T65", FaultCode::Client, &[], "as T25"),
    ("T26", FaultCode::Client, &[], "a processing instruction is forbidden (Part 1 5); PHP skips it and answers"),
    ("T33", FaultCode::Client, &[(RPC, "ProcedureNotPresent")], "Part 2 4.4: env:Sender with subcode rpc:ProcedureNotPresent; PHP puts the subcode, undeclared, in Code/Value"),
    ("T56", FaultCode::Client, &[(ENC, "MissingID")], "Part 2 3.3: an unresolved enc:ref is env:Sender/enc:MissingID; PHP says Receiver"),
    ("T58", FaultCode::Client, &[(RPC, "BadArguments")], "an element where an int item belongs: the arguments do not parse (Part 2 4.4); PHP says Receiver"),
    ("T59", FaultCode::Client, &[(RPC, "BadArguments")], "an element with both enc:id and enc:ref (Part 2 3.1.5.3) is the sender's error; PHP says Receiver"),
    ("T61", FaultCode::Client, &[(RPC, "BadArguments")], "`*` may only be the first arraySize value: the sender's error; PHP says Receiver"),
    ("T27", FaultCode::Client, &[(RPC, "BadArguments")], "the argument is named `array`, which echoStringArray does not have (and its item is a struct where a string belongs): the arguments do not match (Part 2 4.4); PHP says Receiver"),
    ("T46", FaultCode::Client, &[(RPC, "ProcedureNotPresent")], "the body element is in `http://exaple.org/ts-tests` (sic), a namespace node C does not serve: no such procedure (Part 2 4.4); PHP ignores the namespace and answers"),
    ("T53", FaultCode::Client, &[(RPC, "BadArguments")], "`xsi:type=\"xsd:date\"` on a dateTime value: the xsd:date lexical space has no time, so the argument has the wrong type (Part 2 4.4); PHP reads it as a dateTime"),
];

/// Cases left failing, and why (checked: each must still fail). None is: every case of the
/// collection is node C's, and node C needs nothing an ultimate receiver built on soapstone
/// lacks (the intermediary B of some W3C tests is not part of these messages).
const OUT_OF_SCOPE: &[(&str, &str)] = &[];

fn dir() -> String {
    format!(
        "{}/../../testdata/php-ext-soap/messages/soap12-testcollection",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// The case names, in order (T01 .. T80, with T38_1 and the like).
fn cases() -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter_map(|n| n.strip_suffix("-request.xml").map(str::to_string))
        .collect();
    v.sort();
    v
}

fn start() -> (SocketAddr, tokio::sync::oneshot::Sender<()>) {
    let server = Server::builder().mount("/ts", node::NodeC::new()).build();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let serving = server
        .serve_with_shutdown(listener, async {
            let _ = rx.await;
        })
        .unwrap();
    let addr = serving.local_addr();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let _ = rt.block_on(serving.into_future());
    });
    (addr, tx)
}

fn post(addr: SocketAddr, body: &[u8]) -> Resp {
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(std::time::Duration::from_secs(30)))
        .unwrap();
    let mut req = format!(
        "POST /ts HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/soap+xml; charset=utf-8\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    req.extend_from_slice(body);
    send(&mut s, &req);
    read_response(&mut s).unwrap()
}

/// What the answer to `case` must be: the reference response, corrected by `OVERRIDES`.
fn expected(case: &str) -> Canon {
    let bytes = std::fs::read(format!("{}/{case}-response.xml", dir())).unwrap();
    let mut canon = match Canon::read(&bytes) {
        Ok(c) => c,
        Err(e) => panic!("{case}: reference response does not parse: {e}"),
    };
    if let Some((_, code, subs, _)) = OVERRIDES.iter().find(|o| o.0 == case) {
        let subs = subs.iter().map(|(ns, l)| QName::new(*ns, *l)).collect();
        canon.fault = Some((code.clone(), subs));
        canon.body = None;
    }
    if case == "T24" {
        // an unknown envelope: SOAP 1.2 Part 1 5.4.7 lets the node answer in the envelope
        // it prefers; soapstone answers VersionMismatch in SOAP 1.1, which any sender reads
        canon.version = Version::Soap11;
    }
    canon
}

fn status_of(c: &Canon) -> u16 {
    match &c.fault {
        None => 200,
        Some((FaultCode::Client, _)) if c.version == Version::Soap12 => 400,
        Some(_) => 500,
    }
}

/// Why the answer is wrong, or `None` when it is right.
fn judge(case: &str, resp: &Resp) -> Option<String> {
    let want = expected(case);
    let got = match Canon::read(&resp.body) {
        Ok(c) => c,
        Err(e) => return Some(format!("answer does not parse: {e}: {}", resp.text())),
    };
    if got != want {
        return Some(format!("got {got}\n      want {want}"));
    }
    if resp.status != status_of(&want) {
        return Some(format!(
            "http status {}, want {}",
            resp.status,
            status_of(&want)
        ));
    }
    let media = resp.header("content-type").unwrap_or("");
    if !media.starts_with(want.version.media_type()) {
        return Some(format!(
            "content type `{media}`, want `{}`",
            want.version.media_type()
        ));
    }
    None
}

#[test]
fn the_w3c_soap12_test_collection_passes() {
    let (addr, _stop) = start();
    let cases = cases();
    assert_eq!(cases.len(), 73, "the collection as shipped");
    let mut failed = Vec::new();
    for case in &cases {
        let body = std::fs::read(format!("{}/{case}-request.xml", dir())).unwrap();
        let resp = post(addr, &body);
        if let Some(why) = judge(case, &resp) {
            failed.push((case.clone(), why));
        }
    }
    println!(
        "W3C SOAP 1.2 test collection: {} of {} cases pass",
        cases.len() - failed.len(),
        cases.len()
    );
    for (case, why) in &failed {
        let note = OUT_OF_SCOPE
            .iter()
            .find(|o| o.0 == case)
            .map_or("UNEXPECTED", |o| o.1);
        println!("  {case} fails ({note}):\n      {why}");
    }
    let unexpected: Vec<_> = failed
        .iter()
        .filter(|(c, _)| !OUT_OF_SCOPE.iter().any(|o| o.0 == c))
        .map(|(c, _)| c.as_str())
        .collect();
    assert!(unexpected.is_empty(), "cases failing: {unexpected:?}");
    let stale: Vec<_> = OUT_OF_SCOPE
        .iter()
        .filter(|o| !failed.iter().any(|(c, _)| c == o.0))
        .map(|o| o.0)
        .collect();
    assert!(
        stale.is_empty(),
        "out-of-scope cases that now pass: {stale:?}"
    );
}
