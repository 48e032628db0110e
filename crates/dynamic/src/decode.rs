//! Reading a response envelope into JSON, guided by the schema: numbers and booleans as JSON
//! numbers and booleans, repeated elements and SOAP-ENC arrays (partial and sparse ones too)
//! as JSON arrays, `href` multi-refs followed, `xsi:nil` as `null`; a Fault as a [`Fault`].
//!
//! Must never follow an `href` cycle forever, nest deeper than [`MAX_DEPTH`], or allocate an
//! array larger than the elements it holds plus [`MAX_SPARSE`]: a sparse array's declared size
//! is a claim, not an allocation.

use std::collections::HashMap;

use roxmltree::{Document, Node, ParsingOptions};
use serde_json::{Map, Number, Value};
use soapstone_codec::QName;
use soapstone_wsdl::SOAP_ENC_NS;

use crate::schema::{Kind, Ty, View};

const XSI_NS: &str = "http://www.w3.org/2001/XMLSchema-instance";
const SOAP12_ENC: &str = "http://www.w3.org/2003/05/soap-encoding";

/// Deepest element nesting decoded.
pub(crate) const MAX_DEPTH: usize = 100;
/// Most `null` gaps a sparse or partial array may add beyond its elements.
pub(crate) const MAX_SPARSE: usize = 10_000;

/// A SOAP Fault, as the server sent it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    /// The fault code as written (`soap:Server`, `env:Sender`).
    pub code: String,
    /// The reason (`faultstring`, or the first `Reason/Text`).
    pub reason: String,
    /// The detail element's content, as XML text (empty when none).
    pub detail: String,
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "fault `{}`: {}", self.code, self.reason)?;
        if !self.detail.trim().is_empty() {
            write!(f, " (detail: {})", self.detail.trim())?;
        }
        Ok(())
    }
}

/// What a response body holds.
pub(crate) enum Body<'a, 'i> {
    /// The body's child elements.
    Elements(Vec<Node<'a, 'i>>),
    /// A Fault.
    Fault(Fault),
}

/// Deepest element nesting of a response parsed (past `MAX_DEPTH` decoding refuses it anyway;
/// this bounds the parse): roxmltree recurses per level, so a hostile server's deeply nested
/// answer would overflow the stack and abort the caller.
const PARSE_DEPTH: usize = 256;

/// Parses an envelope (no DTD; at most `max_nodes` nodes, `PARSE_DEPTH` levels).
pub(crate) fn parse(text: &str, max_nodes: u32) -> Result<Document<'_>, String> {
    if let Some(line) = soapstone_codec::nested_past(text, PARSE_DEPTH) {
        return Err(format!(
            "the response is nested deeper than {PARSE_DEPTH} elements (line {line})"
        ));
    }
    let options = ParsingOptions {
        allow_dtd: false,
        nodes_limit: max_nodes,
    };
    Document::parse_with_options(text, options).map_err(|e| format!("the response is not XML: {e}"))
}

/// The body's children, or its Fault.
pub(crate) fn body<'a, 'i>(doc: &'a Document<'i>) -> Result<Body<'a, 'i>, String> {
    let env = doc.root_element();
    if env.tag_name().name() != "Envelope" {
        return Err(format!(
            "the response is not a SOAP envelope: its root is `{}`",
            env.tag_name().name()
        ));
    }
    let Some(body) = env
        .children()
        .find(|c| c.is_element() && c.tag_name().name() == "Body")
    else {
        return Err("the response envelope has no `Body`".into());
    };
    let children: Vec<Node<'a, 'i>> = body.children().filter(|c| c.is_element()).collect();
    if let Some(f) = children.first().filter(|c| c.tag_name().name() == "Fault") {
        return Ok(Body::Fault(fault(*f)));
    }
    Ok(Body::Elements(children))
}

fn child<'a, 'i>(n: Node<'a, 'i>, local: &str) -> Option<Node<'a, 'i>> {
    n.children()
        .find(|c| c.is_element() && c.tag_name().name() == local)
}

fn fault(f: Node<'_, '_>) -> Fault {
    let text = |n: Option<Node<'_, '_>>| {
        n.map(|n| {
            n.descendants()
                .filter(|t| t.is_text())
                .map(|t| t.text().unwrap_or(""))
                .collect::<String>()
                .trim()
                .to_string()
        })
        .unwrap_or_default()
    };
    let inner_xml = |n: Option<Node<'_, '_>>| {
        n.map(|n| {
            let doc = n.document().input_text();
            n.children().map(|c| &doc[c.range()]).collect::<String>()
        })
        .unwrap_or_default()
    };
    match child(f, "Code") {
        // SOAP 1.2: Code/Value (and Subcode/Value), Reason/Text, Detail.
        Some(code) => {
            let mut value = text(child(code, "Value"));
            if let Some(sub) = child(code, "Subcode") {
                value = format!("{value} / {}", text(child(sub, "Value")));
            }
            Fault {
                code: value,
                reason: text(child(f, "Reason").and_then(|r| child(r, "Text"))),
                detail: inner_xml(child(f, "Detail")),
            }
        }
        None => Fault {
            code: text(child(f, "faultcode")),
            reason: text(child(f, "faultstring")),
            detail: inner_xml(child(f, "detail")),
        },
    }
}

/// Decodes elements by schema, following `href`s to the body's `id`-carrying elements.
pub(crate) struct Reader<'d, 'a, 'i> {
    pub(crate) view: View<'d>,
    ids: HashMap<&'a str, Node<'a, 'i>>,
}

impl<'d, 'a, 'i> Reader<'d, 'a, 'i> {
    pub(crate) fn new(view: View<'d>, doc: &'a Document<'i>) -> Self {
        let ids = doc
            .descendants()
            .filter_map(|n| n.attribute("id").map(|id| (id, n)))
            .collect();
        Reader { view, ids }
    }

    /// The element `n` refers to (itself, or the target of its `href`), following at most
    /// a few `href` hops.
    fn target(&self, n: Node<'a, 'i>) -> Result<Node<'a, 'i>, String> {
        let mut n = n;
        for _ in 0..8 {
            let href = n
                .attribute("href")
                .or_else(|| n.attribute((SOAP12_ENC, "ref")));
            match href {
                Some(h) => {
                    let id = h.trim_start_matches('#');
                    n = *self
                        .ids
                        .get(id)
                        .ok_or_else(|| format!("`href=\"{h}\"` names no element"))?;
                }
                None => return Ok(n),
            }
        }
        Err("`href` chain longer than 8".into())
    }

    /// The JSON value of element `n` whose declared type is `ty`.
    pub(crate) fn value(
        &self,
        n: Node<'a, 'i>,
        ty: Ty<'d>,
        path: &str,
        depth: usize,
    ) -> Result<Value, String> {
        if depth > MAX_DEPTH {
            return Err(format!("nested deeper than {MAX_DEPTH} at `{path}`"));
        }
        let n = self.target(n)?;
        if matches!(n.attribute((XSI_NS, "nil")), Some("true" | "1")) {
            return Ok(Value::Null);
        }
        // `xsi:type` wins over the declaration (a derived type, or an encoded value).
        let xsi = n.attribute((XSI_NS, "type")).and_then(|t| resolve(n, t));
        let declared = self.view.kind(ty);
        let kind = match (xsi.as_ref().map(|q| self.view.named(q)), declared) {
            (None | Some(Kind::Any), d) => d,
            // `soapenc:Array` says less than the declared array type (its item type).
            (Some(Kind::Array(None)), d @ Kind::Array(Some(_))) => d,
            (Some(k), _) => k,
        };
        self.by_kind(n, kind, path, depth)
    }

    fn by_kind(
        &self,
        n: Node<'a, 'i>,
        kind: Kind<'d>,
        path: &str,
        depth: usize,
    ) -> Result<Value, String> {
        match kind {
            Kind::Builtin(local) => Ok(scalar(local, &text(n))),
            Kind::Simple(base) => Ok(scalar(base.unwrap_or("string"), &text(n))),
            Kind::Array(item) => self.array(n, item, path, depth),
            Kind::Complex(c) => {
                if let Some(k) = self.view.simple_content(c) {
                    let v = match k {
                        Kind::Builtin(l) | Kind::Simple(Some(l)) => scalar(l, &text(n)),
                        _ => Value::String(text(n)),
                    };
                    let attrs = self.attributes(n, c);
                    if attrs.is_empty() {
                        return Ok(v);
                    }
                    let mut map = attrs;
                    map.insert("_value".into(), v);
                    return Ok(Value::Object(map));
                }
                let slots = self.view.slots(c);
                let mut map = self.attributes(n, c);
                for s in &slots {
                    if s.repeats {
                        map.insert(s.name.local.clone(), Value::Array(Vec::new()));
                    }
                }
                for child in n.children().filter(|c| c.is_element()) {
                    let local = child.tag_name().name();
                    let p = format!("{path}/{local}");
                    let slot = slots.iter().find(|s| s.name.local == local);
                    let ty = Ty::Use(slot.and_then(|s| s.ty));
                    let v = self.value(child, ty, &p, depth + 1)?;
                    insert(&mut map, local, v, slot.is_some_and(|s| s.repeats));
                }
                Ok(Value::Object(map))
            }
            Kind::Any => self.untyped(n, path, depth),
        }
    }

    /// A value with no schema: text, or an object of its children (repeats become arrays).
    fn untyped(&self, n: Node<'a, 'i>, path: &str, depth: usize) -> Result<Value, String> {
        let children: Vec<_> = n.children().filter(|c| c.is_element()).collect();
        if children.is_empty() {
            return Ok(Value::String(text(n)));
        }
        if is_soap_array(n) {
            return self.array(n, None, path, depth);
        }
        let mut map = Map::new();
        for child in children {
            let local = child.tag_name().name();
            let v = self.value(child, Ty::Use(None), &format!("{path}/{local}"), depth + 1)?;
            insert(&mut map, local, v, false);
        }
        Ok(Value::Object(map))
    }

    /// A SOAP-ENC array: its items in order, placed by `offset` and `position` when given.
    fn array(
        &self,
        n: Node<'a, 'i>,
        item: Option<&'d QName>,
        path: &str,
        depth: usize,
    ) -> Result<Value, String> {
        let items: Vec<_> = n.children().filter(|c| c.is_element()).collect();
        if items.is_empty() && !text(n).trim().is_empty() {
            return Err(format!(
                "text `{}` where an array was expected at `{path}`",
                text(n).trim()
            ));
        }
        // The declared size (`xsd:int[5]`, SOAP 1.2 `arraySize="5"`): a partial or sparse
        // array is as long as it says, within the bound above.
        let declared = n
            .attribute((SOAP_ENC_NS, "arrayType"))
            .and_then(|t| t.rsplit_once('[').map(|(_, d)| format!("[{d}")))
            .or_else(|| {
                n.attribute((SOAP12_ENC, "arraySize"))
                    .map(|s| format!("[{s}]"))
            })
            .and_then(|d| first_index(&d));
        let offset = n
            .attribute((SOAP_ENC_NS, "offset"))
            .map(|o| first_index(o).ok_or_else(|| format!("bad `offset` `{o}` at `{path}`")))
            .transpose()?
            .unwrap_or(0);
        let limit = items.len() + MAX_SPARSE;
        let mut out: Vec<Value> = Vec::with_capacity(items.len().min(limit));
        let mut next = offset;
        for (i, child) in items.into_iter().enumerate() {
            let at = match child.attribute((SOAP_ENC_NS, "position")) {
                Some(p) => first_index(p)
                    .ok_or_else(|| format!("bad `position` `{p}` at `{path}[{i}]`"))?,
                None => next,
            };
            if at >= limit {
                return Err(format!(
                    "array position {at} at `{path}` is beyond its {} elements plus {MAX_SPARSE}",
                    limit - MAX_SPARSE
                ));
            }
            let v = match item {
                Some(q) => {
                    // The item type is the array's; an `xsi:type` overrides it.
                    let kind = self.view.named(q);
                    let target = self.target(child)?;
                    if matches!(target.attribute((XSI_NS, "nil")), Some("true" | "1")) {
                        Value::Null
                    } else if target.attribute((XSI_NS, "type")).is_some() {
                        self.value(child, Ty::Use(None), &format!("{path}[{at}]"), depth + 1)?
                    } else {
                        self.by_kind(target, kind, &format!("{path}[{at}]"), depth + 1)?
                    }
                }
                None => self.value(child, Ty::Use(None), &format!("{path}[{at}]"), depth + 1)?,
            };
            if out.len() <= at {
                out.resize(at + 1, Value::Null);
            }
            out[at] = v;
            next = at + 1;
        }
        if let Some(size) = declared.filter(|&d| d > out.len() && d <= limit) {
            out.resize(size, Value::Null);
        }
        Ok(Value::Array(out))
    }

    fn attributes(
        &self,
        n: Node<'a, 'i>,
        c: &'d soapstone_wsdl::read::ComplexType,
    ) -> Map<String, Value> {
        let mut map = Map::new();
        for a in self.view.attributes(c) {
            let ns = (!a.name.namespace.is_empty()).then_some(a.name.namespace.as_str());
            let v = match ns {
                Some(ns) => n.attribute((ns, a.name.local.as_str())),
                None => n.attribute(a.name.local.as_str()),
            };
            if let Some(v) = v {
                let base = match self.view.kind(Ty::Use(a.ty.as_ref())) {
                    Kind::Builtin(l) | Kind::Simple(Some(l)) => l,
                    _ => "string",
                };
                map.insert(a.name.local.clone(), scalar(base, v));
            }
        }
        map
    }
}

/// Adds `v` under `key`; a second value (or any, when `many`) makes an array.
fn insert(map: &mut Map<String, Value>, key: &str, v: Value, many: bool) {
    match map.get_mut(key) {
        Some(Value::Array(a)) if many => a.push(v),
        Some(Value::Array(a)) => a.push(v),
        Some(old) => {
            let first = old.take();
            *old = Value::Array(vec![first, v]);
        }
        None if many => {
            map.insert(key.to_string(), Value::Array(vec![v]));
        }
        None => {
            map.insert(key.to_string(), v);
        }
    }
}

fn is_soap_array(n: Node<'_, '_>) -> bool {
    n.attribute((SOAP_ENC_NS, "arrayType")).is_some()
        || n.attribute((SOAP12_ENC, "itemType")).is_some()
        || n.attribute((SOAP12_ENC, "arraySize")).is_some()
}

/// `[3]` or `[3,1]` → 3 (the first index; multi-dimensional positions are flattened by the
/// caller's order).
fn first_index(s: &str) -> Option<usize> {
    s.trim()
        .strip_prefix('[')?
        .strip_suffix(']')?
        .split(',')
        .next()?
        .trim()
        .parse()
        .ok()
}

fn resolve(n: Node<'_, '_>, value: &str) -> Option<QName> {
    match value.split_once(':') {
        Some((p, l)) => Some(QName::new(n.lookup_namespace_uri(Some(p))?, l)),
        None => Some(QName::new(
            n.lookup_namespace_uri(None).unwrap_or(""),
            value,
        )),
    }
}

fn text(n: Node<'_, '_>) -> String {
    n.children()
        .filter(|c| c.is_text())
        .map(|c| c.text().unwrap_or(""))
        .collect()
}

/// The JSON form of a built-in simple value: numbers and booleans as such when they parse.
fn scalar(xsd: &str, text: &str) -> Value {
    let t = text.trim();
    match xsd {
        "int" | "integer" | "long" | "short" | "byte" | "nonNegativeInteger"
        | "positiveInteger" | "negativeInteger" | "nonPositiveInteger" | "unsignedLong"
        | "unsignedInt" | "unsignedShort" | "unsignedByte" => {
            if let Ok(i) = t.parse::<i64>() {
                return Value::Number(i.into());
            }
            if let Ok(u) = t.parse::<u64>() {
                return Value::Number(u.into());
            }
            Value::String(text.to_string())
        }
        "float" | "double" => match t.parse::<f64>().ok().and_then(Number::from_f64) {
            Some(n) => Value::Number(n),
            // NaN and INF have no JSON number.
            None => Value::String(t.to_string()),
        },
        "boolean" => match t {
            "true" | "1" => Value::Bool(true),
            "false" | "0" => Value::Bool(false),
            _ => Value::String(text.to_string()),
        },
        _ => Value::String(text.to_string()),
    }
}

#[cfg(test)]
mod depth_tests {
    #[test]
    fn a_deeply_nested_response_is_refused_not_a_stack_overflow() {
        // 200,000 levels overflowed a 512 KiB thread inside roxmltree (the process aborts).
        let worker = std::thread::Builder::new()
            .stack_size(512 << 10)
            .spawn(|| {
                let deep = format!("{}{}", "<a>".repeat(200_000), "</a>".repeat(200_000));
                let err = super::parse(&deep, 4_000_000).err().unwrap();
                assert_eq!(
                    err,
                    "the response is nested deeper than 256 elements (line 1)"
                );
                assert!(super::parse("<a><b/></a>", 10).is_ok());
            })
            .unwrap();
        worker.join().unwrap();
    }
}
