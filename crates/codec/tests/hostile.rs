//! Hostile input: every `Limits` bound, DOCTYPE / XXE / billion laughs, bad encodings, and
//! reference tricks. Each must end in a clear error, never a panic, hang or huge allocation.

use serde::Deserialize;
use soapstone_codec::*;

const ENV_OPEN: &str = r#"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:enc="http://schemas.xmlsoap.org/soap/encoding/"><s:Body>"#;
const ENV_CLOSE: &str = "</s:Body></s:Envelope>";

fn wrap(body: &str) -> String {
    format!("{ENV_OPEN}{body}{ENV_CLOSE}")
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Ints {
    v: Vec<i32>,
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Text {
    t: String,
}

fn decode<T: serde::de::DeserializeOwned>(
    doc: &str,
    limits: &Limits,
    style: Style,
) -> Result<T, DecodeError> {
    Envelope::parse(doc.as_bytes(), limits)?.body(style)
}

#[test]
fn doctype_xxe_and_billion_laughs_are_refused() {
    let laughs = r#"<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>
<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><op><t>&lol3;</t></op></s:Body></s:Envelope>"#;
    let xxe = r#"<?xml version="1.0"?><!DOCTYPE foo [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><op><t>&xxe;</t></op></s:Body></s:Envelope>"#;
    let external = r#"<!DOCTYPE s:Envelope SYSTEM "http://example.invalid/evil.dtd"><s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body/></s:Envelope>"#;
    for doc in [laughs, xxe, external] {
        let e = Envelope::parse(doc.as_bytes(), &Limits::default()).unwrap_err();
        assert!(
            e.to_string()
                .contains("document type declaration (`<!DOCTYPE`) is not allowed"),
            "{e}"
        );
        assert_eq!(Fault::from(&e).code, FaultCode::Client);
    }
    // an entity reference without any DTD is an unknown entity, not an expansion
    let e = decode::<Text>(
        &wrap("<op><t>&xxe;</t></op>"),
        &Limits::default(),
        Style::Literal,
    )
    .unwrap_err();
    assert!(e.to_string().contains("unknown entity `&xxe;`"), "{e}");
    // the five predefined ones and character references are fine
    let t: Text = decode(
        &wrap("<op><t>&lt;&gt;&amp;&quot;&apos;&#65;&#x263A;</t></op>"),
        &Limits::default(),
        Style::Literal,
    )
    .unwrap();
    assert_eq!(t.t, "<>&\"'A☺");
    let e = decode::<Text>(
        &wrap("<op><t>&#0;</t></op>"),
        &Limits::default(),
        Style::Literal,
    )
    .unwrap_err();
    assert!(e.to_string().contains("character"), "{e}");
}

#[test]
fn document_size_limit() {
    let mut limits = Limits::default();
    limits.max_document_bytes = 100;
    let doc = wrap("<op><t>x</t></op>");
    let e = Envelope::parse(doc.as_bytes(), &limits).unwrap_err();
    assert!(e.is_limit());
    assert!(
        e.to_string().contains("exceeds the limit of 100 bytes"),
        "{e}"
    );
}

#[test]
fn depth_limit() {
    let deep = format!("<op>{}{}</op>", "<a>".repeat(100), "</a>".repeat(100));
    let e = decode::<serde::de::IgnoredAny>(&wrap(&deep), &Limits::default(), Style::Literal)
        .unwrap_err();
    assert!(e.is_limit(), "{e}");
    assert!(
        e.to_string().contains("nests deeper than the limit of 64"),
        "{e}"
    );
    // deep nesting in a header block is caught by parse itself
    let doc = format!(
        r#"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Header><h:x xmlns:h="urn:h">{}{}</h:x></s:Header><s:Body/></s:Envelope>"#,
        "<a>".repeat(1000),
        "</a>".repeat(1000)
    );
    assert!(Envelope::parse(doc.as_bytes(), &Limits::default())
        .unwrap_err()
        .is_limit());
}

#[test]
fn attribute_limits() {
    let many: String = (0..65).map(|i| format!(" a{i}=\"v\"")).collect();
    let e = decode::<Text>(
        &wrap(&format!("<op><t{many}>x</t></op>")),
        &Limits::default(),
        Style::Literal,
    )
    .unwrap_err();
    assert!(
        e.is_limit() && e.to_string().contains("more than 64 attributes"),
        "{e}"
    );
    let decls: String = (0..65)
        .map(|i| format!(" xmlns:p{i}=\"urn:{i}\""))
        .collect();
    let e = decode::<Text>(
        &wrap(&format!("<op{decls}><t>x</t></op>")),
        &Limits::default(),
        Style::Literal,
    )
    .unwrap_err();
    assert!(e.is_limit(), "{e}");
    let e = decode::<Text>(
        &wrap("<op><t a=\"1\" a=\"2\">x</t></op>"),
        &Limits::default(),
        Style::Literal,
    )
    .unwrap_err();
    assert!(e.to_string().contains("duplicate attribute `a`"), "{e}");
    let mut limits = Limits::default();
    limits.max_text_len = 60;
    let e = decode::<Text>(
        &wrap(&format!("<op><t a=\"{}\">x</t></op>", "v".repeat(61))),
        &limits,
        Style::Literal,
    )
    .unwrap_err();
    assert!(
        e.is_limit() && e.to_string().contains("attribute value of 61 bytes"),
        "{e}"
    );
}

#[test]
fn name_and_text_limits() {
    let long = "n".repeat(257);
    let e = decode::<Text>(
        &wrap(&format!("<op><{long}>x</{long}></op>")),
        &Limits::default(),
        Style::Literal,
    )
    .unwrap_err();
    assert!(
        e.is_limit() && e.to_string().contains("element name of 257 bytes"),
        "{e}"
    );
    let e = decode::<Text>(
        &wrap(&format!("<op><t {long}=\"1\">x</t></op>")),
        &Limits::default(),
        Style::Literal,
    )
    .unwrap_err();
    assert!(
        e.is_limit() && e.to_string().contains("attribute name of 257 bytes"),
        "{e}"
    );
    let mut limits = Limits::default();
    limits.max_text_len = 1000;
    let e = decode::<Text>(
        &wrap(&format!("<op><t>{}</t></op>", "x".repeat(1001))),
        &limits,
        Style::Literal,
    )
    .unwrap_err();
    assert!(e.is_limit(), "{e}");
    // pieces (text + CDATA + text) are bounded as a whole
    let piece = "y".repeat(400);
    let doc = wrap(&format!(
        "<op><t>{piece}<![CDATA[{piece}]]>{piece}</t></op>"
    ));
    let e = decode::<Text>(&doc, &limits, Style::Literal).unwrap_err();
    assert!(e.is_limit(), "{e}");
    let t: Text = decode(&doc, &Limits::default(), Style::Literal).unwrap();
    assert_eq!(t.t.len(), 1200);
}

#[test]
fn array_limits_checked_before_allocating() {
    for (attr, what) in [
        (
            "xsd:int[999999999]",
            "array size `xsd:int[999999999]` exceeds the limit of 1000000 items",
        ),
        ("xsd:int[100000,100000]", "exceeds the limit"),
        ("xsd:int[18446744073709551616]", "exceeds the limit"),
        ("xsd:int[99999999999999999999999]", "exceeds the limit"),
    ] {
        let doc = wrap(&format!(
            "<op><v enc:arrayType=\"{attr}\"><i>1</i></v></op>"
        ));
        let e = decode::<Ints>(&doc, &Limits::default(), Style::Encoded).unwrap_err();
        assert!(e.is_limit(), "{attr}: {e}");
        assert!(e.to_string().contains(what), "{e}");
    }
    let mut limits = Limits::default();
    limits.max_array_len = 10;
    let items = "<i>1</i>".repeat(11);
    // encoded, no declared size
    let e = decode::<Ints>(
        &wrap(&format!("<op><v>{items}</v></op>")),
        &limits,
        Style::Encoded,
    )
    .unwrap_err();
    assert!(
        e.is_limit() && e.to_string().contains("more than 10 items"),
        "{e}"
    );
    // literal, repeated elements
    let reps = "<v>1</v>".repeat(11);
    let e =
        decode::<Ints>(&wrap(&format!("<op>{reps}</op>")), &limits, Style::Literal).unwrap_err();
    assert!(e.is_limit(), "{e}");
    let ok: Ints = decode(
        &wrap(&format!("<op>{}</op>", "<v>1</v>".repeat(10))),
        &limits,
        Style::Literal,
    )
    .unwrap();
    assert_eq!(ok.v.len(), 10);
}

#[test]
fn encodings_and_utf8() {
    let mut bad = wrap("<op><t>x</t></op>").into_bytes();
    let at = bad.len() - 30;
    bad[at] = 0xFF;
    let e = Envelope::parse(&bad, &Limits::default()).unwrap_err();
    assert_eq!(e.to_string(), format!("invalid utf-8 at byte {at}"));
    let latin = format!(
        "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>{}",
        wrap("<op/>")
    );
    let e = Envelope::parse(latin.as_bytes(), &Limits::default()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "unsupported encoding `ISO-8859-1` (only utf-8 is accepted)"
    );
    let utf16: Vec<u8> = [0xFF, 0xFE]
        .into_iter()
        .chain("<x/>".bytes().flat_map(|b| [b, 0]))
        .collect();
    let e = Envelope::parse(&utf16, &Limits::default()).unwrap_err();
    assert!(e.to_string().contains("UTF-16"), "{e}");
    for enc in ["utf-8", "UTF-8", "US-ASCII"] {
        let doc = format!(
            "<?xml version=\"1.0\" encoding=\"{enc}\"?>{}",
            wrap("<op/>")
        );
        Envelope::parse(doc.as_bytes(), &Limits::default()).unwrap();
    }
    // a UTF-8 byte order mark is fine
    let doc = format!("\u{FEFF}<?xml version=\"1.0\"?>{}", wrap("<op/>"));
    Envelope::parse(doc.as_bytes(), &Limits::default()).unwrap();
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Node {
    l: Option<Box<Node>>,
    r: Option<Box<Node>>,
}

#[test]
fn reference_explosion_is_bounded() {
    // each level refers twice to the next: 2^40 expansions if followed naively
    let mut body = String::from("<op><l href=\"#n0\"/><r href=\"#n0\"/></op>");
    for i in 0..40 {
        body.push_str(&format!(
            "<n id=\"n{i}\"><l href=\"#n{}\"/><r href=\"#n{}\"/></n>",
            i + 1,
            i + 1
        ));
    }
    body.push_str("<n id=\"n40\"/>");
    let e = decode::<Node>(&wrap(&body), &Limits::default(), Style::Encoded).unwrap_err();
    assert!(e.is_limit(), "{e}");
    // a long chain of references is bounded by the depth limit
    let mut body = String::from("<op><l href=\"#n0\"/></op>");
    for i in 0..200 {
        body.push_str(&format!("<n id=\"n{i}\"><l href=\"#n{}\"/></n>", i + 1));
    }
    body.push_str("<n id=\"n200\"/>");
    let e = decode::<Node>(&wrap(&body), &Limits::default(), Style::Encoded).unwrap_err();
    assert!(e.is_limit(), "{e}");
    // duplicate ids
    let e = decode::<Node>(
        &wrap("<op><l href=\"#a\"/></op><n id=\"a\"/><n id=\"a\"/>"),
        &Limits::default(),
        Style::Encoded,
    )
    .unwrap_err();
    assert!(e.to_string().contains("duplicate id `a`"), "{e}");
    // external references are not fetched
    let e = decode::<Node>(
        &wrap("<op><l href=\"http://example.invalid/x\"/></op>"),
        &Limits::default(),
        Style::Encoded,
    )
    .unwrap_err();
    assert!(e.to_string().contains("is not local"), "{e}");
}

#[test]
fn many_namespace_declarations_stay_linear() {
    // 60 nested elements each declaring 60 prefixes, then many lookups of the outermost one
    let mut doc = String::from(ENV_OPEN);
    doc.push_str("<op xmlns:root=\"urn:root\">");
    for d in 0..60 {
        doc.push_str("<w");
        for i in 0..60 {
            doc.push_str(&format!(" xmlns:p{d}x{i}=\"urn:{d}:{i}\""));
        }
        doc.push('>');
    }
    for _ in 0..20_000 {
        doc.push_str("<root:e xsi:type=\"xsd:int\">1</root:e>");
    }
    for _ in 0..60 {
        doc.push_str("</w>");
    }
    doc.push_str("</op>");
    doc.push_str(ENV_CLOSE);
    let v: serde::de::IgnoredAny = decode(&doc, &Limits::default(), Style::Encoded).unwrap();
    let _ = v;
}

#[test]
fn truncations_never_panic() {
    let doc = std::fs::read_to_string(format!(
        "{}/tests/documents/thesis_debitReservation.xml",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct D {
        id: i32,
        am: i32,
        res: i32,
    }
    let full = Envelope::parse(doc.as_bytes(), &Limits::default())
        .unwrap()
        .body::<D>(Style::Encoded);
    assert!(full.is_ok());
    for n in 0..doc.len() - 1 {
        let part = &doc.as_bytes()[..n];
        if let Ok(env) = Envelope::parse(part, &Limits::default()) {
            assert!(
                env.body::<D>(Style::Encoded).is_err(),
                "prefix of {n} bytes decoded"
            );
        }
    }
}
