//! XML Schema value types that have no Rust primitive, and the Rust-to-XSD type name map.
//!
//! Each type serializes as a serde *newtype struct* whose name is reserved (`$xsd:dateTime`,
//! ...) around its lexical form as a string. This crate's serializer recognizes the name and
//! writes `xsi:type="xsd:dateTime"`; its deserializer checks the incoming `xsi:type` and hands
//! the text to the type, which validates the lexical form. Other serde formats (JSON) just
//! see the lexical string. [`xsd_type_name`] is the one place that says which XSD type a Rust
//! type maps to, so that WSDL generation agrees with what goes on the wire.
//! Must never: accept a lexical form XML Schema forbids where it would change the value
//! (out-of-range months, bad base64).

use std::fmt;
use std::str::FromStr;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

use crate::QName;

pub use crate::any::AnyXml;
pub use crate::any_read::Node;
pub use crate::list::{List, ListError};

/// Prefix of the reserved newtype-struct names.
pub(crate) const RESERVED: &str = "$xsd:";

/// The XSD built-in type (local name in `http://www.w3.org/2001/XMLSchema`) that a Rust type
/// is written as, by the type's name as written in Rust (the last path segment counts:
/// `xsd::DateTime` and `DateTime` are the same). `None` for types that are not simple
/// (structs become complex types named after the struct; `Vec<T>` becomes an array of `T`;
/// `Option<T>` is `T` with `minOccurs="0"` / `nillable`).
///
/// | Rust | XSD |
/// |---|---|
/// | `bool` | `boolean` |
/// | `i8` `i16` `i32` `i64` `i128` | `byte` `short` `int` `long` `integer` |
/// | `u8` `u16` `u32` `u64` `u128` | `unsignedByte` `unsignedShort` `unsignedInt` `unsignedLong` `nonNegativeInteger` |
/// | `f32` `f64` | `float` `double` |
/// | `String` `str` `char` | `string` |
/// | [`DateTime`] [`Date`] [`Time`] | `dateTime` `date` `time` |
/// | [`Decimal`] | `decimal` |
/// | [`Base64Binary`] [`HexBinary`] | `base64Binary` `hexBinary` |
/// | [`QNameValue`] [`AnyUri`] | `QName` `anyURI` |
pub fn xsd_type_name(rust_type: &str) -> Option<&'static str> {
    let t = rust_type.trim();
    let t = t
        .strip_prefix('&')
        .unwrap_or(t)
        .trim_start_matches("'static ")
        .trim();
    let last = t.rsplit("::").next().unwrap_or(t).trim();
    Some(match last {
        "bool" => "boolean",
        "i8" => "byte",
        "i16" => "short",
        "i32" => "int",
        "i64" => "long",
        "i128" => "integer",
        "u8" => "unsignedByte",
        "u16" => "unsignedShort",
        "u32" => "unsignedInt",
        "u64" => "unsignedLong",
        "u128" => "nonNegativeInteger",
        "f32" => "float",
        "f64" => "double",
        "String" | "str" | "char" => "string",
        "DateTime" => "dateTime",
        "Date" => "date",
        "Time" => "time",
        "Decimal" => "decimal",
        "Base64Binary" => "base64Binary",
        "HexBinary" => "hexBinary",
        "QNameValue" => "QName",
        "AnyUri" => "anyURI",
        _ => return None,
    })
}

/// Why a lexical form was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LexicalError {
    type_name: &'static str,
    found: String,
}

impl fmt::Display for LexicalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "expected xsd:{}, found {}",
            self.type_name,
            crate::error::excerpt(&self.found)
        )
    }
}

impl std::error::Error for LexicalError {}

fn lex_err(type_name: &'static str, found: &str) -> LexicalError {
    LexicalError {
        type_name,
        found: found.to_string(),
    }
}

/// Implements Serialize/Deserialize (as the reserved newtype around the lexical string),
/// Display and FromStr for a type with `fn parse(&str) -> Option<Self>` and `fn lexical`.
macro_rules! lexical_type {
    ($ty:ident, $xsd:literal) => {
        impl FromStr for $ty {
            type Err = LexicalError;
            fn from_str(s: &str) -> Result<Self, LexicalError> {
                let t = s.trim();
                // the date/time/binary forms are ASCII; checking first keeps slicing safe
                if !t.is_ascii()
                    && matches!(
                        $xsd,
                        "date" | "time" | "dateTime" | "hexBinary" | "base64Binary" | "decimal"
                    )
                {
                    return Err(lex_err($xsd, s));
                }
                $ty::parse(t).ok_or_else(|| lex_err($xsd, s))
            }
        }
        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.lexical())
            }
        }
        impl Serialize for $ty {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_newtype_struct(concat!("$xsd:", $xsd), &*self.lexical())
            }
        }
        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = $ty;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        f.write_str(concat!("xsd:", $xsd))
                    }
                    fn visit_str<E: de::Error>(self, v: &str) -> Result<$ty, E> {
                        v.parse().map_err(E::custom)
                    }
                    fn visit_newtype_struct<D: Deserializer<'de>>(
                        self,
                        d: D,
                    ) -> Result<$ty, D::Error> {
                        d.deserialize_str(self)
                    }
                }
                d.deserialize_newtype_struct(concat!("$xsd:", $xsd), V)
            }
        }
    };
}

fn digits(s: &str, n: usize) -> Option<u32> {
    if s.len() != n || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// Parses an optional timezone suffix: `Z`, `+hh:mm`, `-hh:mm`; returns (rest, offset minutes).
fn split_tz(s: &str) -> Option<(&str, Option<i16>)> {
    if let Some(rest) = s.strip_suffix('Z') {
        return Some((rest, Some(0)));
    }
    if s.len() >= 6 {
        let (rest, tz) = s.split_at(s.len() - 6);
        let b = tz.as_bytes();
        if (b[0] == b'+' || b[0] == b'-') && b[3] == b':' {
            let h = digits(&tz[1..3], 2)? as i16;
            let m = digits(&tz[4..6], 2)? as i16;
            if h > 14 || m > 59 {
                return None;
            }
            let off = h * 60 + m;
            return Some((rest, Some(if b[0] == b'-' { -off } else { off })));
        }
    }
    Some((s, None))
}

fn write_tz(out: &mut String, tz: Option<i16>) {
    match tz {
        None => {}
        Some(0) => out.push('Z'),
        Some(m) => {
            let sign = if m < 0 { '-' } else { '+' };
            let m = m.unsigned_abs();
            out.push_str(&format!("{sign}{:02}:{:02}", m / 60, m % 60));
        }
    }
}

/// `xsd:date`: a calendar date with an optional timezone offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Date {
    /// Year (may be negative; no year zero in XSD 1.0 but accepted).
    pub year: i32,
    /// Month, 1-12.
    pub month: u8,
    /// Day, 1-31.
    pub day: u8,
    /// Offset from UTC in minutes (`Some(0)` is `Z`); `None`: no timezone.
    pub offset_minutes: Option<i16>,
}

impl Date {
    fn parse_ymd(s: &str) -> Option<(i32, u8, u8)> {
        let (neg, s) = match s.strip_prefix('-') {
            Some(r) => (true, r),
            None => (false, s),
        };
        let mut it = s.splitn(3, '-');
        let y = it.next()?;
        if y.len() < 4 || !y.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let year: i32 = y.parse().ok()?;
        let month = digits(it.next()?, 2)? as u8;
        let day = digits(it.next()?, 2)? as u8;
        if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
            return None;
        }
        Some((if neg { -year } else { year }, month, day))
    }
    fn parse(s: &str) -> Option<Self> {
        let (rest, tz) = split_tz(s)?;
        let (year, month, day) = Self::parse_ymd(rest)?;
        Some(Date {
            year,
            month,
            day,
            offset_minutes: tz,
        })
    }
    fn ymd(&self, out: &mut String) {
        if self.year < 0 {
            out.push('-');
        }
        out.push_str(&format!(
            "{:04}-{:02}-{:02}",
            self.year.unsigned_abs(),
            self.month,
            self.day
        ));
    }
    fn lexical(&self) -> String {
        let mut s = String::with_capacity(16);
        self.ymd(&mut s);
        write_tz(&mut s, self.offset_minutes);
        s
    }
}
lexical_type!(Date, "date");

/// `xsd:time`: a time of day with optional fractional seconds and timezone offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Time {
    /// Hour, 0-23 (24 only as `24:00:00`).
    pub hour: u8,
    /// Minute, 0-59.
    pub minute: u8,
    /// Second, 0-60 (leap second).
    pub second: u8,
    /// Fraction of the second in nanoseconds.
    pub nanosecond: u32,
    /// Offset from UTC in minutes (`Some(0)` is `Z`); `None`: no timezone.
    pub offset_minutes: Option<i16>,
}

impl Time {
    fn parse_hms(s: &str) -> Option<(u8, u8, u8, u32)> {
        let b = s.as_bytes();
        if b.len() < 8 || b[2] != b':' || b[5] != b':' {
            return None;
        }
        let h = digits(&s[0..2], 2)? as u8;
        let m = digits(&s[3..5], 2)? as u8;
        let sec = digits(&s[6..8], 2)? as u8;
        let mut nanos = 0u32;
        if b.len() > 8 {
            let frac = s[8..].strip_prefix('.')?;
            if frac.is_empty() || !frac.bytes().all(|c| c.is_ascii_digit()) {
                return None;
            }
            let mut scale = 100_000_000u32;
            for c in frac.bytes().take(9) {
                nanos += u32::from(c - b'0') * scale;
                scale /= 10;
            }
        }
        if h > 24 || m > 59 || sec > 60 || (h == 24 && (m, sec, nanos) != (0, 0, 0)) {
            return None;
        }
        Some((h, m, sec, nanos))
    }
    fn hms(&self, out: &mut String) {
        out.push_str(&format!(
            "{:02}:{:02}:{:02}",
            self.hour, self.minute, self.second
        ));
        if self.nanosecond > 0 {
            let frac = format!("{:09}", self.nanosecond);
            out.push('.');
            out.push_str(frac.trim_end_matches('0'));
        }
    }
    fn parse(s: &str) -> Option<Self> {
        let (rest, tz) = split_tz(s)?;
        let (hour, minute, second, nanosecond) = Self::parse_hms(rest)?;
        Some(Time {
            hour,
            minute,
            second,
            nanosecond,
            offset_minutes: tz,
        })
    }
    fn lexical(&self) -> String {
        let mut s = String::with_capacity(20);
        self.hms(&mut s);
        write_tz(&mut s, self.offset_minutes);
        s
    }
}
lexical_type!(Time, "time");

/// `xsd:dateTime` (also read from the 1999 schema's `timeInstant`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct DateTime {
    /// The date part (its `offset_minutes` is unused; see [`DateTime::offset_minutes`]).
    pub date: Date,
    /// The time part (its `offset_minutes` is unused).
    pub time: Time,
    /// Offset from UTC in minutes (`Some(0)` is `Z`); `None`: no timezone.
    pub offset_minutes: Option<i16>,
}

impl DateTime {
    fn parse(s: &str) -> Option<Self> {
        let (rest, tz) = split_tz(s)?;
        let t = rest.rfind('T')?;
        let (year, month, day) = Date::parse_ymd(&rest[..t])?;
        let (hour, minute, second, nanosecond) = Time::parse_hms(&rest[t + 1..])?;
        Some(DateTime {
            date: Date {
                year,
                month,
                day,
                offset_minutes: None,
            },
            time: Time {
                hour,
                minute,
                second,
                nanosecond,
                offset_minutes: None,
            },
            offset_minutes: tz,
        })
    }
    fn lexical(&self) -> String {
        let mut s = String::with_capacity(32);
        self.date.ymd(&mut s);
        s.push('T');
        self.time.hms(&mut s);
        write_tz(&mut s, self.offset_minutes);
        s
    }
}
lexical_type!(DateTime, "dateTime");

/// `xsd:decimal`, kept as its (validated) lexical form so no digit is lost.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Decimal(String);

impl Decimal {
    fn parse(s: &str) -> Option<Self> {
        let body = s.strip_prefix(['+', '-']).unwrap_or(s);
        let (int, frac) = match body.split_once('.') {
            Some((i, f)) => (i, f),
            None => (body, ""),
        };
        let ok = (!int.is_empty() || !frac.is_empty())
            && int.bytes().all(|b| b.is_ascii_digit())
            && frac.bytes().all(|b| b.is_ascii_digit());
        ok.then(|| Decimal(s.to_string()))
    }
    fn lexical(&self) -> String {
        self.0.clone()
    }
    /// The lexical form, as received or given.
    pub fn as_str(&self) -> &str {
        &self.0
    }
    /// The nearest `f64`.
    pub fn to_f64(&self) -> f64 {
        self.0.parse().unwrap_or(f64::NAN)
    }
}
lexical_type!(Decimal, "decimal");

impl From<i64> for Decimal {
    fn from(v: i64) -> Self {
        Decimal(v.to_string())
    }
}

/// `xsd:base64Binary`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Base64Binary(pub Vec<u8>);

impl Base64Binary {
    fn parse(s: &str) -> Option<Self> {
        use base64::Engine;
        let compact: String;
        let s = if s.bytes().any(|b| b.is_ascii_whitespace()) {
            compact = s.chars().filter(|c| !c.is_ascii_whitespace()).collect();
            compact.as_str()
        } else {
            s
        };
        base64::engine::general_purpose::STANDARD
            .decode(s)
            .ok()
            .map(Base64Binary)
    }
    fn lexical(&self) -> String {
        use base64::Engine;
        base64::engine::general_purpose::STANDARD.encode(&self.0)
    }
}
lexical_type!(Base64Binary, "base64Binary");

/// `xsd:hexBinary`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct HexBinary(pub Vec<u8>);

impl HexBinary {
    fn parse(s: &str) -> Option<Self> {
        let b = s.as_bytes();
        if !b.len().is_multiple_of(2) {
            return None;
        }
        let hex = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
        b.chunks(2)
            .map(|p| Some(hex(p[0])? << 4 | hex(p[1])?))
            .collect::<Option<Vec<u8>>>()
            .map(HexBinary)
    }
    fn lexical(&self) -> String {
        const HEX: &[u8; 16] = b"0123456789ABCDEF";
        let mut s = String::with_capacity(self.0.len() * 2);
        for &b in &self.0 {
            s.push(HEX[usize::from(b >> 4)] as char);
            s.push(HEX[usize::from(b & 15)] as char);
        }
        s
    }
}
lexical_type!(HexBinary, "hexBinary");

/// `xsd:anyURI` (kept as written; only whitespace is trimmed).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct AnyUri(pub String);

impl AnyUri {
    fn parse(s: &str) -> Option<Self> {
        Some(AnyUri(s.to_string()))
    }
    fn lexical(&self) -> String {
        self.0.clone()
    }
}
lexical_type!(AnyUri, "anyURI");

/// `xsd:QName`: the decoder resolves the prefix in the text against the namespaces in scope;
/// the encoder declares a prefix for it. The lexical form seen by other serde formats is
/// Clark notation, `{namespace}local`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct QNameValue(pub QName);

impl QNameValue {
    fn parse(s: &str) -> Option<Self> {
        match s.strip_prefix('{') {
            Some(rest) => {
                let (ns, local) = rest.split_once('}')?;
                Some(QNameValue(QName::new(ns, local)))
            }
            None => Some(QNameValue(QName::new("", s))),
        }
    }
    fn lexical(&self) -> String {
        if self.0.namespace.is_empty() {
            self.0.local.clone()
        } else {
            format!("{{{}}}{}", self.0.namespace, self.0.local)
        }
    }
}
lexical_type!(QNameValue, "QName");

/// The attributes of an element that no other field names (`xsd:anyAttribute`), in a field
/// renamed `@*`: `local` for an unqualified attribute, `{ns}local` for a qualified one, to its
/// value. Holds at most `Limits::max_attributes` entries when read.
pub type OtherAttributes = std::collections::BTreeMap<String, String>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn date_time_forms() {
        let d: DateTime = "2001-05-24T17:31:41Z".parse().unwrap();
        assert_eq!(d.date.year, 2001);
        assert_eq!(d.time.second, 41);
        assert_eq!(d.offset_minutes, Some(0));
        assert_eq!(d.to_string(), "2001-05-24T17:31:41Z");
        let d: DateTime = "-0044-03-15T12:00:00.125+05:30".parse().unwrap();
        assert_eq!(d.to_string(), "-0044-03-15T12:00:00.125+05:30");
        assert!("2001-13-01T00:00:00".parse::<DateTime>().is_err());
        assert!("2001-05-24".parse::<DateTime>().is_err());
        assert_eq!(
            "2001-05-24-08:00".parse::<Date>().unwrap().offset_minutes,
            Some(-480)
        );
        assert_eq!("23:59:60".parse::<Time>().unwrap().second, 60);
    }

    #[test]
    fn binary_and_decimal() {
        assert_eq!("AQID".parse::<Base64Binary>().unwrap().0, vec![1, 2, 3]);
        assert!("A*QID".parse::<Base64Binary>().is_err());
        assert_eq!("0aFF".parse::<HexBinary>().unwrap().to_string(), "0AFF");
        assert!("0aF".parse::<HexBinary>().is_err());
        assert_eq!(
            "123.45678901234567890".parse::<Decimal>().unwrap().as_str(),
            "123.45678901234567890"
        );
        assert!("1.2.3".parse::<Decimal>().is_err());
        assert!("".parse::<Decimal>().is_err());
    }

    #[test]
    fn type_names() {
        assert_eq!(xsd_type_name("i32"), Some("int"));
        assert_eq!(
            xsd_type_name("soapstone_codec::xsd::DateTime"),
            Some("dateTime")
        );
        assert_eq!(xsd_type_name("&'static str"), Some("string"));
        assert_eq!(xsd_type_name("MyStruct"), None);
    }
}
