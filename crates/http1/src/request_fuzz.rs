//! The request head parser fuzzed directly (the wire harness is the server's
//! `tests/fuzz_lean.rs`): for any bytes, [`parse`] returns without panicking, and a head it
//! calls `Complete` is one hyper would frame the same way (one all-digit `Content-Length` or
//! none, no `Transfer-Encoding`, `Expect` or `Upgrade`, an origin-form target), whose length
//! does not change with the bytes that follow it and whose every proper prefix is `Partial`
//! (never served early).

use proptest::prelude::*;

use crate::request::{parse, Head, Known, Parsed};

fn config(cases: u32) -> ProptestConfig {
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

const LINES: &[&str] = &[
    "POST /echo HTTP/1.1\r\n",
    "GET /echo?wsdl HTTP/1.0\r\n",
    "POST http://h/echo HTTP/1.1\r\n",
    "Host: h\r\n",
    "Content-Length: 5\r\n",
    "Content-Length: 05\r\n",
    "Content-Length: 5, 5\r\n",
    "content-length:7 \r\n",
    "Content-Length: 99999999999999999999\r\n",
    "Transfer-Encoding: chunked\r\n",
    "Expect: 100-continue\r\n",
    "Upgrade: h2c\r\n",
    "Connection: close, keep-alive\r\n",
    "Content-Type: text/xml\r\n",
    "CONTENT-TYPE: a\r\n",
    "SOAPAction: \"x\"\r\n",
    "soapactioN: y\r\n",
    "Soap-Action: z\r\n",
    "Accept-Encoding: gzip\r\n",
    "Content-Encoding: gzip\r\n",
    "Content-Typf: b\r\n",
    "X-Folded: a\r\n b\r\n",
    "X: \t\x7f\r\n",
    "\r\n",
    "\n",
    " ",
    ":",
    "\0",
];

fn head_bytes() -> impl Strategy<Value = Vec<u8>> {
    (
        proptest::collection::vec(0..LINES.len(), 0..10),
        proptest::collection::vec((any::<usize>(), any::<u8>()), 0..3),
    )
        .prop_map(|(lines, flips)| {
            let mut b: Vec<u8> = lines.iter().flat_map(|&i| LINES[i].bytes()).collect();
            for (at, v) in flips {
                if !b.is_empty() {
                    let n = b.len();
                    b[at % n] = v;
                }
            }
            b
        })
}

/// A head of the common shape (mostly): a request line, headers, the blank line.
fn common_head() -> impl Strategy<Value = Vec<u8>> {
    (
        0..2usize,
        proptest::collection::vec(3..22usize, 0..6),
        proptest::collection::vec((any::<usize>(), any::<u8>()), 0..2),
    )
        .prop_map(|(start, lines, flips)| {
            let mut b: Vec<u8> = LINES[start].bytes().collect();
            for i in lines {
                b.extend_from_slice(LINES[i].as_bytes());
            }
            b.extend_from_slice(b"\r\n");
            for (at, v) in flips {
                let n = b.len();
                b[at % n] = v;
            }
            b
        })
}

fn header_values<'a>(head: &'a [u8], name: &str) -> Vec<&'a [u8]> {
    let mut headers = [httparse::EMPTY_HEADER; 100];
    let mut req = httparse::Request::new(&mut headers);
    let _ = req.parse(head);
    req.headers
        .iter()
        .filter(|h| h.name.eq_ignore_ascii_case(name))
        .map(|h| h.value)
        .collect()
}

proptest! {
    #![proptest_config(config(2000))]

    #[test]
    fn complete_heads_are_framed_as_hyper_would(bytes in head_bytes(), tail in proptest::collection::vec(any::<u8>(), 0..16)) {
        let mut h = Head::default();
        match parse(&bytes, 16 << 10, 100, &mut h) {
            Parsed::Complete => {
                let len = h.len;
                prop_assert!(len <= bytes.len());
                let head = &bytes[..len];
                let lengths = header_values(head, "content-length");
                prop_assert!(lengths.len() <= 1, "{lengths:?}");
                if let [v] = lengths[..] {
                    let v = std::str::from_utf8(v.trim_ascii()).unwrap();
                    prop_assert!(v.bytes().all(|b| b.is_ascii_digit()));
                    prop_assert_eq!(v.parse::<u64>().ok(), Some(h.content_length));
                } else {
                    prop_assert_eq!(h.content_length, 0);
                }
                for name in ["transfer-encoding", "expect", "upgrade"] {
                    prop_assert!(header_values(head, name).is_empty(), "{name}");
                }
                // a known header found at parse is the first of its name, as a scan finds it
                for k in [Known::ContentType, Known::ContentLength, Known::ContentEncoding,
                          Known::AcceptEncoding, Known::SoapAction, Known::Host] {
                    let first = header_values(head, k.name()).first().copied();
                    prop_assert_eq!(h.known(head, k), first, "{}", k.name());
                    prop_assert_eq!(h.header(head, k.name()), first, "{}", k.name());
                }
                // what follows the head does not change it
                let mut more = bytes.clone();
                more.extend_from_slice(&tail);
                let mut h2 = Head::default();
                prop_assert!(matches!(parse(&more, 16 << 10, 100, &mut h2), Parsed::Complete));
                prop_assert_eq!((h2.len, h2.content_length), (len, h.content_length));
                // no proper prefix is served
                for cut in 0..len {
                    let r = parse(&bytes[..cut], 16 << 10, 100, &mut Head::default());
                    prop_assert!(!matches!(r, Parsed::Complete), "served at {cut} of {len}");
                }
            }
            Parsed::Partial | Parsed::TooLarge | Parsed::Invalid(_) | Parsed::Unusual => {}
        }
    }

    #[test]
    fn a_head_read_after_another_is_read_as_alone(
        first in common_head(),
        second in common_head(),
        digits in "[0-9]{1,3}|[0-9 +a]{1,2}",
        extra in 3..22usize,
        kind in 0..4u8,
        limits in (0usize..300, 0usize..120),
    ) {
        // The second head: another, the first with its Content-Length value changed, the
        // first again (under other limits), or the first with a line more at the end; parsed
        // into the Head that holds the first, and into a new one.
        let second = match kind {
            0 => second,
            3 => {
                let mut b = first.clone();
                let at = b.len().saturating_sub(2);
                b.splice(at..at, LINES[extra].bytes());
                b
            }
            1 => {
                let text = String::from_utf8_lossy(&first).into_owned();
                let mut out = text.clone();
                if let Some(at) = text.to_ascii_lowercase().find("content-length:") {
                    let from = at + "content-length:".len();
                    let from = from + text[from..].len() - text[from..].trim_start().len();
                    let to = text[from..].find('\r').map_or(text.len(), |e| from + e);
                    out.replace_range(from..to, &digits);
                }
                out.into_bytes()
            }
            _ => first.clone(),
        };
        let (max_bytes, max_headers) = if kind == 2 { limits } else { (16 << 10, 100) };
        let mut kept = Head::default();
        let _ = parse(&first, 16 << 10, 100, &mut kept);
        for cut in [second.len(), second.len().saturating_sub(1), second.len() / 2] {
            let bytes = &second[..cut];
            let mut alone = Head::default();
            let want = parse(bytes, max_bytes, max_headers, &mut alone);
            let got = parse(bytes, max_bytes, max_headers, &mut kept);
            prop_assert_eq!(format!("{got:?}"), format!("{want:?}"));
            if matches!(want, Parsed::Complete) {
                prop_assert_eq!(
                    (kept.len, &kept.method, kept.http10, kept.content_length, kept.keep_alive),
                    (alone.len, &alone.method, alone.http10, alone.content_length, alone.keep_alive)
                );
                prop_assert_eq!(kept.target(bytes), alone.target(bytes));
                for k in [Known::ContentType, Known::ContentLength, Known::ContentEncoding,
                          Known::AcceptEncoding, Known::SoapAction, Known::Host] {
                    prop_assert_eq!(kept.known(bytes, k), alone.known(bytes, k), "{}", k.name());
                    prop_assert_eq!(kept.header(bytes, "x-folded"), alone.header(bytes, "x-folded"));
                }
            }
        }
    }

    #[test]
    fn any_bytes_and_limits_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200), max_bytes in 0usize..300, max_headers in 0usize..120) {
        let _ = parse(&bytes, max_bytes, max_headers, &mut Head::default());
    }
}
