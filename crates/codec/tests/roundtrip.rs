//! Property tests: whatever a value is, `encode` then `Envelope::parse` + `body` gives it
//! back, in both styles, both SOAP versions, qualified or not, both schema namespaces.

use proptest::prelude::*;
use serde::{Deserialize, Serialize};
use soapstone_codec::*;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Inner {
    var_string: String,
    var_int: i32,
    maybe: Option<Box<Inner>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
enum Level {
    #[serde(rename = "low")]
    Low,
    Medium,
    #[serde(rename = "HIGH-ish")]
    High,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Message {
    text: String,
    ch: char,
    flag: bool,
    small: i8,
    short: i16,
    int: i32,
    long: i64,
    huge: i128,
    ubyte: u8,
    ushort: u16,
    uint: u32,
    ulong: u64,
    single: f32,
    double: f64,
    when: xsd::DateTime,
    day: xsd::Date,
    clock: xsd::Time,
    amount: xsd::Decimal,
    blob: xsd::Base64Binary,
    hex: xsd::HexBinary,
    name: xsd::QNameValue,
    link: xsd::AnyUri,
    level: Level,
    opt_int: Option<i32>,
    opt_text: Option<String>,
    opt_inner: Option<Inner>,
    inner: Inner,
    ints: Vec<i32>,
    texts: Vec<String>,
    inners: Vec<Inner>,
    grid: Vec<Vec<String>>,
    ragged: Vec<Vec<i64>>,
}

/// Text XML 1.0 can carry.
fn xml_string() -> impl Strategy<Value = String> {
    prop_oneof![
        "[ -~]{0,12}",
        "[<>&\"' \t\n\r]{0,6}",
        any::<String>().prop_map(|s| s
            .chars()
            .filter(|&c| !((c < ' ' && !matches!(c, '\t' | '\n' | '\r'))
                || c == '\u{FFFE}'
                || c == '\u{FFFF}'))
            .collect()),
    ]
}

fn xml_char() -> impl Strategy<Value = char> {
    any::<char>().prop_filter("xml char", |&c| {
        !((c < ' ' && !matches!(c, '\t' | '\n' | '\r')) || c == '\u{FFFE}' || c == '\u{FFFF}')
    })
}

fn offset() -> impl Strategy<Value = Option<i16>> {
    prop_oneof![
        Just(None),
        (-14i16..=14, 0i16..60).prop_map(|(h, m)| Some(if h < 0 {
            h * 60 - m
        } else {
            h * 60 + m
        }))
    ]
}

fn date() -> impl Strategy<Value = xsd::Date> {
    (-9999i32..=99999, 1u8..=12, 1u8..=28, offset()).prop_map(
        |(year, month, day, offset_minutes)| xsd::Date {
            year,
            month,
            day,
            offset_minutes,
        },
    )
}

fn time() -> impl Strategy<Value = xsd::Time> {
    (
        0u8..24,
        0u8..60,
        0u8..60,
        prop_oneof![Just(0u32), 0u32..1_000_000_000],
        offset(),
    )
        .prop_map(
            |(hour, minute, second, nanosecond, offset_minutes)| xsd::Time {
                hour,
                minute,
                second,
                nanosecond,
                offset_minutes,
            },
        )
}

fn date_time() -> impl Strategy<Value = xsd::DateTime> {
    (date(), time(), offset()).prop_map(|(mut date, mut time, offset_minutes)| {
        date.offset_minutes = None;
        time.offset_minutes = None;
        xsd::DateTime {
            date,
            time,
            offset_minutes,
        }
    })
}

fn inner() -> impl Strategy<Value = Inner> {
    let leaf = (xml_string(), any::<i32>()).prop_map(|(var_string, var_int)| Inner {
        var_string,
        var_int,
        maybe: None,
    });
    leaf.prop_recursive(3, 8, 2, |inner| {
        (xml_string(), any::<i32>(), proptest::option::of(inner)).prop_map(
            |(var_string, var_int, maybe)| Inner {
                var_string,
                var_int,
                maybe: maybe.map(Box::new),
            },
        )
    })
}

fn finite_f64() -> impl Strategy<Value = f64> {
    prop_oneof![
        any::<f64>().prop_filter("not nan", |f| !f.is_nan()),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        Just(3.25),
    ]
}

fn message() -> impl Strategy<Value = Message> {
    let scalars = (
        xml_string(),
        xml_char(),
        any::<bool>(),
        any::<i8>(),
        any::<i16>(),
        any::<i32>(),
        any::<i64>(),
        any::<i128>(),
        any::<u8>(),
        any::<u16>(),
        any::<u32>(),
        any::<u64>(),
    );
    let floats_and_types = (
        any::<f32>().prop_filter("not nan", |f| !f.is_nan()),
        finite_f64(),
        date_time(),
        date(),
        time(),
        "[+-]?[0-9]{1,20}(\\.[0-9]{0,20})?".prop_map(|s| s.parse::<xsd::Decimal>().unwrap()),
        proptest::collection::vec(any::<u8>(), 0..40),
        proptest::collection::vec(any::<u8>(), 0..20),
        ("(urn:[a-z]{1,8})?", "[a-zA-Z_][a-zA-Z0-9_.-]{0,8}"),
        "[!-~]{0,20}",
        prop_oneof![Just(Level::Low), Just(Level::Medium), Just(Level::High)],
    );
    let compound = (
        proptest::option::of(any::<i32>()),
        proptest::option::of(xml_string()),
        proptest::option::of(inner()),
        inner(),
        proptest::collection::vec(any::<i32>(), 0..6),
        proptest::collection::vec(xml_string(), 0..4),
        proptest::collection::vec(inner(), 0..3),
        (0usize..4, 1usize..4).prop_flat_map(|(r, c)| {
            proptest::collection::vec(proptest::collection::vec(xml_string(), c..=c), r..=r)
        }),
        proptest::collection::vec(proptest::collection::vec(any::<i64>(), 0..4), 0..4),
    );
    (scalars, floats_and_types, compound).prop_map(|(s, f, c)| Message {
        text: s.0,
        ch: s.1,
        flag: s.2,
        small: s.3,
        short: s.4,
        int: s.5,
        long: s.6,
        huge: s.7,
        ubyte: s.8,
        ushort: s.9,
        uint: s.10,
        ulong: s.11,
        single: f.0,
        double: f.1,
        when: f.2,
        day: f.3,
        clock: f.4,
        amount: f.5,
        blob: xsd::Base64Binary(f.6),
        hex: xsd::HexBinary(f.7),
        name: xsd::QNameValue(QName::new(f.8 .0, f.8 .1)),
        link: xsd::AnyUri(f.9),
        level: f.10,
        opt_int: c.0,
        opt_text: c.1,
        opt_inner: c.2,
        inner: c.3,
        ints: c.4,
        texts: c.5,
        inners: c.6,
        grid: c.7,
        ragged: c.8,
    })
}

fn options() -> impl Strategy<Value = EncodeOptions> {
    (
        prop_oneof![Just(Version::Soap11), Just(Version::Soap12)],
        prop_oneof![Just(Style::Literal), Just(Style::Encoded)],
        any::<bool>(),
        prop_oneof![Just(SchemaNs::Xsd2001), Just(SchemaNs::Xsd1999)],
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(
            |(version, style, qualified, schema_ns, xml_declaration, item_types)| {
                let mut o = EncodeOptions::default();
                o.version = version;
                o.style = style;
                o.qualified = qualified;
                o.schema_ns = schema_ns;
                o.xml_declaration = xml_declaration;
                o.array_item_types = item_types;
                if style == Style::Literal && item_types {
                    o.xsi_types = Some(true);
                }
                o
            },
        )
}

/// `cases` unless `PROPTEST_CASES` asks for more (a long campaign: `PROPTEST_CASES=200000
/// cargo test --release`); finds are saved next to this file (`roundtrip.proptest-regressions`,
/// committed) and replayed first, while new cases stay random.
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

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn encode_then_decode_gives_the_value_back(msg in message(), opts in options(), ns in "(urn:[a-z]{1,6})?") {
        let wrapper = QName::new(ns, "echoMessage");
        let mut out = Vec::new();
        encode(&mut out, &opts, &[], &wrapper, &msg).unwrap();
        let text = String::from_utf8(out.clone()).unwrap();
        let env = Envelope::parse(&out, &Limits::default()).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(env.version(), opts.version);
        prop_assert_eq!(env.body_element(), Some(&wrapper));
        let back: Message = env.body(opts.style).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(back, msg, "{}", text);
    }

    #[test]
    fn nan_and_special_floats(v in prop_oneof![Just(f64::NAN), Just(-0.0), Just(f64::MIN_POSITIVE), Just(f64::MAX)], opts in options()) {
        #[derive(Serialize, Deserialize)]
        struct F { v: f64, w: f32 }
        let mut out = Vec::new();
        encode(&mut out, &opts, &[], &QName::new("urn:f", "f"), &F { v, w: v as f32 }).unwrap();
        let back: F = Envelope::parse(&out, &Limits::default()).unwrap().body(opts.style).unwrap();
        prop_assert_eq!(back.v.to_bits(), v.to_bits());
        prop_assert_eq!(back.w.to_bits(), (v as f32).to_bits());
    }
}
