//! The seeds' own messages (tests/documents, see its README): the charging thesis's
//! appendix C, Sam Ruby's echoFloat and Davis & Parashar's getIntegers request.
#![allow(clippy::approx_constant)] // 3.14159 is the echoFloat value of the seed

use serde::{Deserialize, Serialize};
use soapstone_codec::*;

fn doc(name: &str) -> String {
    let p = format!("{}/tests/documents/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{p}: {e}"))
}

fn decode<T: serde::de::DeserializeOwned>(name: &str, op: &QName, style: Style) -> T {
    let text = doc(name);
    let env = Envelope::parse(text.as_bytes(), &Limits::default())
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(env.version(), Version::Soap11);
    assert_eq!(env.body_element(), Some(op), "{name}");
    assert!(env.headers().is_empty());
    env.body(style).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[derive(Debug, Deserialize, Serialize, PartialEq)]
struct IdAm {
    id: i32,
    am: i32,
}

#[derive(Debug, Deserialize, PartialEq)]
struct DebitReservation {
    id: i32,
    am: i32,
    res: i32,
}

#[derive(Debug, Deserialize, PartialEq)]
struct Id {
    id: i32,
}

#[derive(Debug, Deserialize, PartialEq)]
struct Res {
    res: i32,
}

#[derive(Debug, Deserialize, PartialEq)]
struct Cn {
    cn: i32,
}

fn local(op: &str) -> QName {
    QName::new("", op)
}

#[test]
fn thesis_appendix_c() {
    assert_eq!(
        decode::<IdAm>("thesis_reserve.xml", &local("reserve"), Style::Encoded),
        IdAm { id: 2, am: 520 }
    );
    assert_eq!(
        decode::<DebitReservation>(
            "thesis_debitReservation.xml",
            &local("debitReservation"),
            Style::Encoded
        ),
        DebitReservation {
            id: 2,
            am: 520,
            res: 12407
        }
    );
    assert_eq!(
        decode::<IdAm>(
            "thesis_directDebit.xml",
            &local("directDebit"),
            Style::Encoded
        ),
        IdAm { id: 8, am: 438 }
    );
    assert_eq!(
        decode::<Id>(
            "thesis_creditControl.xml",
            &local("creditControl"),
            Style::Encoded
        ),
        Id { id: 6 }
    );
    assert_eq!(
        decode::<IdAm>("thesis_credit.xml", &local("credit"), Style::Encoded),
        IdAm { id: 8, am: 147 }
    );
    assert_eq!(
        decode::<Res>(
            "thesis_releaseRes.xml",
            &local("releaseRes"),
            Style::Encoded
        ),
        Res { res: 12418 }
    );
    assert_eq!(
        decode::<Cn>(
            "thesis_confirmAction.xml",
            &local("confirmAction"),
            Style::Encoded
        ),
        Cn { cn: 76430 }
    );
    // the same messages read in literal style too (xsi:type is then just checked)
    assert_eq!(
        decode::<IdAm>("thesis_reserve.xml", &local("reserve"), Style::Literal),
        IdAm { id: 2, am: 520 }
    );
}

#[test]
fn thesis_reserve_reencoded_decodes_alike() {
    let mut opts = EncodeOptions::default();
    opts.style = Style::Encoded;
    let mut out = Vec::new();
    encode(
        &mut out,
        &opts,
        &[],
        &local("reserve"),
        &IdAm { id: 2, am: 520 },
    )
    .unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains(r#"<reserve soap:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"><id xsi:type="xsd:int">2</id><am xsi:type="xsd:int">520</am></reserve>"#), "{text}");
    let env = Envelope::parse(text.as_bytes(), &Limits::default()).unwrap();
    assert_eq!(
        env.body::<IdAm>(Style::Encoded).unwrap(),
        IdAm { id: 2, am: 520 }
    );
}

#[test]
fn sam_ruby_echo_float() {
    #[derive(Debug, Deserialize, Serialize)]
    struct EchoFloat {
        input: f32,
    }
    #[derive(Deserialize)]
    struct EchoFloatResult {
        result: f32,
    }
    let ns = "http://tempuri.org/";
    let req: EchoFloat = decode(
        "samruby_echoFloat_request.xml",
        &QName::new(ns, "echoFloat"),
        Style::Encoded,
    );
    assert_eq!(req.input, 3.14159);
    let resp: EchoFloatResult = decode(
        "samruby_echoFloat_response.xml",
        &QName::new(ns, "echoFloatResult"),
        Style::Encoded,
    );
    assert_eq!(resp.result, 3.14159);
    // the 1999 schema namespace is recognized: a wrong xsi:type is caught
    let bad = doc("samruby_echoFloat_request.xml").replace("xsd:float", "xsd:boolean");
    let env = Envelope::parse(bad.as_bytes(), &Limits::default()).unwrap();
    let e = env.body::<EchoFloat>(Style::Encoded).unwrap_err();
    assert_eq!(
        e.to_string(),
        "/Envelope/Body/echoFloat/input: expected xsd:float, found xsi:type `xsd:boolean`"
    );
    // and it is written back as 3.14159 with the 1999 schema
    let mut opts = EncodeOptions::default();
    opts.style = Style::Encoded;
    opts.schema_ns = SchemaNs::Xsd1999;
    let mut out = Vec::new();
    encode(
        &mut out,
        &opts,
        &[],
        &QName::new(ns, "echoFloat"),
        &EchoFloat { input: 3.14159 },
    )
    .unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.contains(r#"<input xsi:type="xsd:float">3.14159</input>"#),
        "{text}"
    );
    assert!(
        text.contains(r#"xmlns:xsd="http://www.w3.org/1999/XMLSchema""#),
        "{text}"
    );
}

#[test]
fn davis_parashar_get_integers() {
    #[derive(Deserialize, Debug, PartialEq)]
    struct GetIntegers {}
    let op = QName::new("urn:test:soap", "getIntegers");
    assert_eq!(
        decode::<GetIntegers>("dp_getIntegers_request.xml", &op, Style::Encoded),
        GetIntegers {}
    );
    decode::<()>("dp_getIntegers_request.xml", &op, Style::Encoded);
}

/// The golden copies are the seeds' text: each document appears in the seed it cites, up to the
/// changes its README lists (indentation, typographic quotes). Runs when the seed texts are
/// beside the repository (`../shared/seeds`); otherwise says it was skipped.
#[test]
fn documents_are_the_seeds_text() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/seeds");
    let Ok(entries) = std::fs::read_dir(dir) else {
        eprintln!("SKIPPED: the seed texts are not beside the repository ({dir})");
        return;
    };
    let normalize = |s: &str| -> String {
        s.replace(['\u{2019}', '\u{2018}'], "'")
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join("\n")
    };
    let seeds: Vec<String> = entries
        .flatten()
        .map(|e| normalize(&std::fs::read_to_string(e.path()).unwrap_or_default()))
        .collect();
    let docs = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/documents");
    let mut checked = 0;
    for e in std::fs::read_dir(docs).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if !name.ends_with(".xml") {
            continue;
        }
        let doc = normalize(&std::fs::read_to_string(e.path()).unwrap());
        assert!(
            seeds.iter().any(|s| s.contains(&doc)),
            "tests/documents/{name} is not in any seed text"
        );
        checked += 1;
    }
    assert_eq!(checked, 10, "golden documents checked");
}
