//! The SOAPBuilders Interop Lab Round 2 base echoes (2001): fourteen rpc/encoded calls in
//! `http://soapinterop.org/`, sent as PHP ext/soap's interop suite recorded them
//! (`testdata/php-ext-soap/messages/Round2/Base/r2_base_0NNw-request.xml`, copied next to this
//! file), and the check that a server's answer echoes the request's value.
//!
//! Why compare values and not bytes: every stack writes its own envelope (prefixes, `xsi:type`
//! or none, multi-ref `href`s, `1.0E0` or `1`), and the 2001 interop table asked only whether the
//! value came back. So the expected value is read from the request itself and compared with the
//! answer's by kind: strings, ints, base64, hex and booleans exactly (as values: `1` is `true`,
//! hex is case-blind), floats as the same `f32` (a different lexical form is noted, never
//! failed), dates as the same instant, decimals as the same number. This module must never
//! accept a fault, a missing value, a wrong count or a changed value.

use roxmltree::{Document, Node};

/// One echo: the operation and the request body.
pub(crate) struct Echo {
    pub(crate) op: &'static str,
    pub(crate) request: &'static str,
}

macro_rules! echo {
    ($op:literal) => {
        Echo {
            op: $op,
            request: include_str!(concat!("round2/", $op, ".xml")),
        }
    };
}

/// The fourteen Round 2 base echoes, in the order of the SOAPBuilders table.
pub(crate) const ECHOES: [Echo; 14] = [
    echo!("echoString"),
    echo!("echoStringArray"),
    echo!("echoInteger"),
    echo!("echoIntegerArray"),
    echo!("echoFloat"),
    echo!("echoFloatArray"),
    echo!("echoStruct"),
    echo!("echoStructArray"),
    echo!("echoVoid"),
    echo!("echoBase64"),
    echo!("echoDate"),
    echo!("echoHexBinary"),
    echo!("echoDecimal"),
    echo!("echoBoolean"),
];

/// The literal form of a recorded request, for a peer that refuses rpc/encoded (CXF, like every
/// JAX-WS 2 stack): the same elements and values without the encoding's attributes
/// (`xsi:type`, `SOAP-ENC:arrayType`, `SOAP-ENV:encodingStyle`), so arrays are plain repeated
/// `item` elements.
pub(crate) fn literal(request: &str) -> String {
    let mut out = request.to_owned();
    for attr in [
        " xsi:type=\"",
        " SOAP-ENC:arrayType=\"",
        " SOAP-ENV:encodingStyle=\"",
    ] {
        while let Some(start) = out.find(attr) {
            let value = start + attr.len();
            let Some(len) = out[value..].find('"') else {
                break;
            };
            out.replace_range(start..value + len + 1, "");
        }
    }
    out
}

/// How a leaf value is compared.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    String,
    Int,
    Float,
    Base64,
    Hex,
    Decimal,
    Date,
    Boolean,
}

/// The kind of the leaves of `op`'s value (a struct's fields are typed by name).
fn kind_of(op: &str, field: &str) -> Kind {
    match field {
        "varString" => return Kind::String,
        "varInt" => return Kind::Int,
        "varFloat" => return Kind::Float,
        _ => {}
    }
    let base = op.trim_start_matches("echo").trim_end_matches("Array");
    match base {
        "Integer" => Kind::Int,
        "Float" => Kind::Float,
        "Base64" => Kind::Base64,
        "HexBinary" => Kind::Hex,
        "Decimal" => Kind::Decimal,
        "Date" => Kind::Date,
        "Boolean" => Kind::Boolean,
        _ => Kind::String,
    }
}

fn elements<'a, 'i>(n: Node<'a, 'i>) -> impl Iterator<Item = Node<'a, 'i>> {
    n.children().filter(|c| c.is_element())
}

/// `n`, or the multi-ref element its `href="#id"` points to.
fn deref<'a, 'i>(doc: &'a Document<'i>, n: Node<'a, 'i>) -> Result<Node<'a, 'i>, String> {
    match n.attribute("href").and_then(|h| h.strip_prefix('#')) {
        Some(id) => doc
            .descendants()
            .find(|d| d.attribute("id") == Some(id))
            .ok_or_else(|| format!("`href=\"#{id}\"` points to no element")),
        None => Ok(n),
    }
}

/// The body's first element of `xml`, or why there is none (a fault gives its faultstring).
fn body_first<'a, 'i>(doc: &'a Document<'i>) -> Result<Node<'a, 'i>, String> {
    let body = elements(doc.root_element())
        .find(|c| c.tag_name().name() == "Body")
        .ok_or("no `Envelope/Body`")?;
    let first = elements(body).next().ok_or("an empty `Body`")?;
    if first.tag_name().name() == "Fault" {
        let why = first
            .descendants()
            .find(|d| d.has_tag_name("faultstring"))
            .and_then(|d| d.text())
            .unwrap_or_default();
        return Err(format!("a fault: `{}`", why.trim()));
    }
    Ok(first)
}

/// Whether `n` is `xsi:nil="true"` (or `1`) and empty: an element that carries no value.
fn is_nil(n: Node) -> bool {
    const XSI: &str = "http://www.w3.org/2001/XMLSchema-instance";
    matches!(n.attribute((XSI, "nil")), Some("true" | "1")) && !n.has_children()
}

/// A value read from the XML: a leaf's text, or the children of an array or struct.
#[derive(Debug)]
enum Value {
    Leaf(String),
    Items(Vec<Value>),
    Fields(Vec<(String, Value)>),
}

/// Reads the value of `n` (`array` when the operation's value is an array).
fn value(doc: &Document, n: Node, array: bool) -> Result<Value, String> {
    let n = deref(doc, n)?;
    let kids: Vec<Node> = elements(n).collect();
    if kids.is_empty() && !array {
        return Ok(Value::Leaf(n.text().unwrap_or_default().trim().to_owned()));
    }
    if array {
        return kids
            .into_iter()
            .map(|k| value(doc, k, false))
            .collect::<Result<_, _>>()
            .map(Value::Items);
    }
    kids.into_iter()
        .map(|k| Ok((k.tag_name().name().to_owned(), value(doc, k, false)?)))
        .collect::<Result<_, String>>()
        .map(Value::Fields)
}

/// Checks the answer `xml` to `echo` against its request. `Ok` carries a note when the value
/// came back equal in another lexical form (a float written `342.23001`, say).
pub(crate) fn check(echo: &Echo, xml: &str) -> Result<Option<String>, String> {
    let req = Document::parse(echo.request).map_err(|e| format!("the request: {e}"))?;
    let doc = Document::parse(xml).map_err(|e| format!("the answer is not XML: {e}"))?;
    let resp = body_first(&doc)?;
    let want_name = format!("{}Response", echo.op);
    if resp.tag_name().name() != want_name {
        return Err(format!(
            "`/Envelope/Body/{}` instead of `{want_name}`",
            resp.tag_name().name()
        ));
    }
    let call = body_first(&req)?;
    let Some(input) = elements(call).next() else {
        // echoVoid: an empty response element, or one whose only child is nil (Axis2's POJO
        // form of a void result: `<return xsi:nil="true"/>`, no value), noted.
        return match elements(resp).collect::<Vec<_>>().as_slice() {
            [] => Ok(None),
            [c] if is_nil(*c) => Ok(Some(format!(
                "echoVoid answered a nil `{}`",
                c.tag_name().name()
            ))),
            [c, ..] => Err(format!("echoVoid answered a `{}`", c.tag_name().name())),
        };
    };
    let array = echo.op.ends_with("Array");
    let outs: Vec<Node> = elements(resp).collect();
    let got = match outs.as_slice() {
        [] => return Err(format!("`{want_name}` has no return value")),
        [one] => value(&doc, *one, array)?,
        // Repeated return elements (a literal array without a wrapper).
        many if array => Value::Items(
            many.iter()
                .map(|k| value(&doc, *k, false))
                .collect::<Result<_, _>>()?,
        ),
        many => {
            return Err(format!(
                "`{want_name}` has {} return values, not one",
                many.len()
            ))
        }
    };
    let want = value(&req, input, array)?;
    let mut notes = Vec::new();
    same(echo.op, "", &want, &got, &mut notes)?;
    Ok((!notes.is_empty()).then(|| notes.join("; ")))
}

/// Compares `want` (from the request) with `got` (from the answer) at `path`.
fn same(
    op: &str,
    path: &str,
    want: &Value,
    got: &Value,
    notes: &mut Vec<String>,
) -> Result<(), String> {
    let at = |p: &str| {
        if p.is_empty() {
            String::new()
        } else {
            format!(" at `{p}`")
        }
    };
    match (want, got) {
        (Value::Leaf(w), Value::Leaf(g)) => {
            let field = path.rsplit('/').next().unwrap_or_default();
            leaf(kind_of(op, field), w, g, notes).map_err(|e| format!("{e}{}", at(path)))
        }
        (Value::Items(w), Value::Items(g)) => {
            if w.len() != g.len() {
                return Err(format!(
                    "{} items instead of {}{}",
                    g.len(),
                    w.len(),
                    at(path)
                ));
            }
            for (i, (w, g)) in w.iter().zip(g).enumerate() {
                same(op, &format!("{path}[{i}]"), w, g, notes)?;
            }
            Ok(())
        }
        (Value::Fields(w), Value::Fields(g)) => {
            for (name, wv) in w {
                let gv = g
                    .iter()
                    .find(|(n, _)| n == name)
                    .map(|(_, v)| v)
                    .ok_or_else(|| format!("no `{name}`{}", at(path)))?;
                same(op, &format!("{path}/{name}"), wv, gv, notes)?;
            }
            Ok(())
        }
        (Value::Leaf(_), _) => Err(format!("a structure instead of a value{}", at(path))),
        (_, Value::Leaf(g)) => Err(format!(
            "the value `{g}` instead of a structure{}",
            at(path)
        )),
        _ => Err(format!("an array and a struct confused{}", at(path))),
    }
}

/// Compares two leaves of `kind`.
fn leaf(kind: Kind, w: &str, g: &str, notes: &mut Vec<String>) -> Result<(), String> {
    use soapstone_codec::xsd::{Base64Binary, DateTime, HexBinary};
    let wrong = || Err(format!("`{g}` instead of `{w}`"));
    let equal = match kind {
        Kind::String => w == g,
        Kind::Int => g.parse::<i64>().ok() == w.parse::<i64>().ok(),
        Kind::Float => {
            let (wf, gf) = (w.parse::<f32>().ok(), g.parse::<f32>().ok());
            if gf.is_some() && wf == gf && w != g {
                notes.push(format!("float `{w}` came back as `{g}`"));
            }
            gf.is_some() && wf == gf
        }
        Kind::Base64 => {
            let p = |s: &str| s.parse::<Base64Binary>().ok();
            p(g).is_some() && p(g) == p(w)
        }
        Kind::Hex => {
            let p = |s: &str| s.parse::<HexBinary>().ok();
            p(g).is_some() && p(g) == p(w)
        }
        Kind::Decimal => decimal(g).is_some() && decimal(g) == decimal(w),
        Kind::Date => {
            let p = |s: &str| s.parse::<DateTime>().ok().and_then(instant);
            let same = p(g).is_some() && p(g) == p(w);
            if same && w != g {
                notes.push(format!("date `{w}` came back as `{g}`"));
            }
            same
        }
        Kind::Boolean => {
            let p = |s: &str| match s {
                "true" | "1" => Some(true),
                "false" | "0" => Some(false),
                _ => None,
            };
            p(g).is_some() && p(g) == p(w)
        }
    };
    if equal {
        Ok(())
    } else {
        wrong()
    }
}

/// A decimal's value as (negative, integer digits, fraction digits) without needless zeros.
fn decimal(s: &str) -> Option<(bool, String, String)> {
    let d = s.parse::<soapstone_codec::xsd::Decimal>().ok()?;
    let t = d.as_str();
    let neg = t.starts_with('-');
    let body = t.trim_start_matches(['+', '-']);
    let (i, f) = body.split_once('.').unwrap_or((body, ""));
    let (i, f) = (i.trim_start_matches('0'), f.trim_end_matches('0'));
    Some((
        neg && !(i.is_empty() && f.is_empty()),
        i.to_owned(),
        f.to_owned(),
    ))
}

/// The instant of a dateTime as (seconds since 1970 UTC, nanoseconds); no timezone reads as UTC.
fn instant(d: soapstone_codec::xsd::DateTime) -> Option<(i64, u32)> {
    let (y, m, day) = (
        i64::from(d.date.year),
        i64::from(d.date.month),
        i64::from(d.date.day),
    );
    // Days from the civil date (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * ((m + 9) % 12) + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let secs = days * 86_400
        + i64::from(d.time.hour) * 3600
        + i64::from(d.time.minute) * 60
        + i64::from(d.time.second)
        - i64::from(d.offset_minutes.unwrap_or(0)) * 60;
    Some((secs, d.time.nanosecond))
}

#[cfg(test)]
#[path = "round2_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "round2_live.rs"]
mod live;
