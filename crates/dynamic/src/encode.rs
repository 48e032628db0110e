//! Writing a request envelope from JSON arguments, as the WSDL's binding says: document or rpc
//! style, literal or SOAP-encoded (with `xsi:type` and SOAP-ENC arrays), elements qualified or
//! not as the schema's `form` says.
//!
//! Must never guess: a JSON key that names no element or attribute of the type, a missing
//! required element, or a value of the wrong shape is an [`ArgError`] with its path
//! (`/echoStruct/inputStruct/varInt`), not something silently dropped or sent.

use std::fmt::Write as _;

use quick_xml::escape::escape;
use serde_json::Value;
use soapstone_codec::{QName, Version};
use soapstone_wsdl::read::ComplexType;
use soapstone_wsdl::{SOAP_ENC_NS, XSD_NS};

use crate::schema::{Kind, Ty, View};

const XSI_NS: &str = "http://www.w3.org/2001/XMLSchema-instance";
const SOAP11_ENV: &str = "http://schemas.xmlsoap.org/soap/envelope/";
const SOAP12_ENV: &str = "http://www.w3.org/2003/05/soap-envelope";
const SOAP12_ENC: &str = "http://www.w3.org/2003/05/soap-encoding";

/// Deepest JSON nesting written.
const MAX_DEPTH: usize = 100;

/// A JSON argument that does not fit the operation's input: what and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgError {
    /// The path into the arguments (`/inputStruct/varInt`).
    pub path: String,
    /// What is wrong (lower case, offending key in backticks).
    pub message: String,
}

impl std::fmt::Display for ArgError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} at `{}`", self.message, self.path)
    }
}

impl std::error::Error for ArgError {}

/// One element to write: its name, type, and whether it may repeat or be absent.
pub(crate) struct Item<'d> {
    pub(crate) name: QName,
    pub(crate) ty: Ty<'d>,
    pub(crate) repeats: bool,
    pub(crate) optional: bool,
    pub(crate) nillable: bool,
}

pub(crate) struct Writer<'d> {
    pub(crate) view: View<'d>,
    pub(crate) version: Version,
    pub(crate) encoded: bool,
    pub(crate) out: String,
    /// Counter for namespace prefixes declared on the element that needs them.
    prefixes: usize,
}

impl<'d> Writer<'d> {
    pub(crate) fn new(view: View<'d>, version: Version, encoded: bool) -> Self {
        Writer {
            view,
            version,
            encoded,
            out: String::with_capacity(1024),
            prefixes: 0,
        }
    }

    pub(crate) fn start_envelope(&mut self) {
        let env = match self.version {
            Version::Soap11 => SOAP11_ENV,
            Version::Soap12 => SOAP12_ENV,
        };
        let enc = self.enc_ns();
        let _ = write!(
            self.out,
            "<?xml version=\"1.0\" encoding=\"utf-8\"?><soapenv:Envelope xmlns:soapenv=\"{env}\" xmlns:xsd=\"{XSD_NS}\" xmlns:xsi=\"{XSI_NS}\" xmlns:soapenc=\"{enc}\">"
        );
    }

    /// Opens the `Body` (after the header blocks, if any).
    pub(crate) fn start_body(&mut self) {
        self.out.push_str("<soapenv:Body>");
    }

    pub(crate) fn end_envelope(&mut self) {
        self.out.push_str("</soapenv:Body></soapenv:Envelope>");
    }

    fn enc_ns(&self) -> &'static str {
        match self.version {
            Version::Soap11 => SOAP_ENC_NS,
            Version::Soap12 => SOAP12_ENC,
        }
    }

    /// `<name xmlns="ns"` (or `xmlns=""`), opening an element whose default namespace
    /// differs from its parent's.
    fn open(&mut self, name: &QName, parent_ns: &str) {
        let _ = write!(self.out, "<{}", name.local);
        if name.namespace != parent_ns {
            let _ = write!(self.out, " xmlns=\"{}\"", escape(name.namespace.as_str()));
        }
    }

    /// `xsi:type` for the type `q`, declaring a prefix for it on this element.
    fn xsi_type(&mut self, q: &QName) {
        if q.namespace == XSD_NS {
            let _ = write!(self.out, " xsi:type=\"xsd:{}\"", q.local);
        } else if q.namespace == SOAP_ENC_NS && self.version == Version::Soap11 {
            let _ = write!(self.out, " xsi:type=\"soapenc:{}\"", q.local);
        } else {
            self.prefixes += 1;
            let p = format!("t{}", self.prefixes);
            let _ = write!(
                self.out,
                " xmlns:{p}=\"{}\" xsi:type=\"{p}:{}\"",
                escape(q.namespace.as_str()),
                q.local
            );
        }
    }

    /// Opens an rpc wrapper `{ns}local` (with `encodingStyle` when encoded).
    pub(crate) fn open_wrapper(&mut self, name: &QName) {
        self.open(name, "");
        if self.encoded {
            let enc = self.enc_ns();
            let _ = write!(self.out, " soapenv:encodingStyle=\"{enc}\"");
        }
        self.out.push('>');
    }

    pub(crate) fn close(&mut self, name: &QName) {
        let _ = write!(self.out, "</{}>", name.local);
    }

    /// Writes `item` from `value` (absent: `None`), repeated for a JSON array when it may
    /// repeat.
    pub(crate) fn item(
        &mut self,
        item: &Item<'d>,
        value: Option<&Value>,
        parent_ns: &str,
        path: &str,
        depth: usize,
    ) -> Result<(), ArgError> {
        let path = format!("{path}/{}", item.name.local);
        match value {
            None if item.optional => Ok(()),
            None => Err(ArgError {
                path,
                message: format!("missing `{}`", item.name.local),
            }),
            Some(Value::Array(values)) if item.repeats => {
                for (i, v) in values.iter().enumerate() {
                    self.element(item, v, parent_ns, &format!("{path}[{i}]"), depth)?;
                }
                Ok(())
            }
            Some(v) => self.element(item, v, parent_ns, &path, depth),
        }
    }

    fn element(
        &mut self,
        item: &Item<'d>,
        value: &Value,
        parent_ns: &str,
        path: &str,
        depth: usize,
    ) -> Result<(), ArgError> {
        let kind = self.view.kind(item.ty);
        let named = item.ty.named();
        let nillable = item.nillable || item.optional;
        self.typed(
            &item.name, kind, named, nillable, value, parent_ns, path, depth,
        )
    }

    /// Writes one element `name` of type `kind` (named `named`) holding `value`.
    #[allow(clippy::too_many_arguments)]
    fn typed(
        &mut self,
        name: &QName,
        kind: Kind<'d>,
        named: Option<&QName>,
        nillable: bool,
        value: &Value,
        parent_ns: &str,
        path: &str,
        depth: usize,
    ) -> Result<(), ArgError> {
        if depth > MAX_DEPTH {
            return Err(ArgError {
                path: path.to_string(),
                message: format!("nested deeper than {MAX_DEPTH}"),
            });
        }
        self.open(name, parent_ns);
        if value.is_null() {
            if !(nillable || self.encoded) {
                return Err(ArgError {
                    path: path.to_string(),
                    message: format!("`{}` may not be null", name.local),
                });
            }
            self.out.push_str(" xsi:nil=\"true\"/>");
            return Ok(());
        }
        self.content(kind, named, value, name, path, depth)?;
        self.close(name);
        Ok(())
    }

    /// Writes the attributes (and `xsi:type`), closes the start tag, and writes the content.
    fn content(
        &mut self,
        kind: Kind<'d>,
        named: Option<&QName>,
        value: &Value,
        name: &QName,
        path: &str,
        depth: usize,
    ) -> Result<(), ArgError> {
        let ns = name.namespace.clone();
        match kind {
            Kind::Builtin(local) => {
                if self.encoded {
                    self.xsi_type(&QName::new(XSD_NS, local));
                }
                self.out.push('>');
                self.text(value, path)
            }
            Kind::Simple(_) => {
                if let (true, Some(q)) = (self.encoded, named) {
                    self.xsi_type(q);
                }
                self.out.push('>');
                self.text(value, path)
            }
            Kind::Any => match value {
                Value::Object(map) => {
                    self.out.push('>');
                    for (k, v) in map {
                        let item = Item {
                            name: QName::new("", k.clone()),
                            ty: Ty::Use(None),
                            repeats: true,
                            optional: true,
                            nillable: true,
                        };
                        self.item(&item, Some(v), &ns, path, depth + 1)?;
                    }
                    Ok(())
                }
                v => {
                    if self.encoded {
                        let t = match v {
                            Value::Bool(_) => "boolean",
                            Value::Number(n) if n.is_i64() || n.is_u64() => "long",
                            Value::Number(_) => "double",
                            _ => "string",
                        };
                        self.xsi_type(&QName::new(XSD_NS, t));
                    }
                    self.out.push('>');
                    self.text(v, path)
                }
            },
            Kind::Array(item_ty) => {
                let Value::Array(values) = value else {
                    return Err(ArgError {
                        path: path.to_string(),
                        message: "expected a JSON array".into(),
                    });
                };
                let item_name = item_ty
                    .cloned()
                    .unwrap_or_else(|| QName::new(XSD_NS, "anyType"));
                if let Some(q) = named {
                    self.xsi_type(q);
                }
                let (p, decl) = self.type_prefix(&item_name);
                match self.version {
                    Version::Soap11 => {
                        let _ = write!(
                            self.out,
                            "{decl} soapenc:arrayType=\"{p}:{}[{}]\">",
                            item_name.local,
                            values.len()
                        );
                    }
                    Version::Soap12 => {
                        let _ = write!(
                            self.out,
                            "{decl} soapenc:itemType=\"{p}:{}\" soapenc:arraySize=\"{}\">",
                            item_name.local,
                            values.len()
                        );
                    }
                }
                let kind = item_ty.map_or(Kind::Any, |q| self.view.named(q));
                let item = QName::new("", "item");
                for (i, v) in values.iter().enumerate() {
                    let path = format!("{path}[{i}]");
                    self.typed(&item, kind, item_ty, true, v, &ns, &path, depth + 1)?;
                }
                Ok(())
            }
            Kind::Complex(c) => {
                if let (true, Some(q)) = (self.encoded, named) {
                    self.xsi_type(q);
                }
                self.complex(c, value, &ns, path, depth)
            }
        }
    }

    /// A prefix for `q` as an attribute value: `xsd`, or a fresh one declared here.
    fn type_prefix(&mut self, q: &QName) -> (String, String) {
        if q.namespace == XSD_NS {
            return ("xsd".into(), String::new());
        }
        self.prefixes += 1;
        let p = format!("t{}", self.prefixes);
        let decl = format!(" xmlns:{p}=\"{}\"", escape(q.namespace.as_str()));
        (p, decl)
    }

    fn complex(
        &mut self,
        c: &'d ComplexType,
        value: &Value,
        ns: &str,
        path: &str,
        depth: usize,
    ) -> Result<(), ArgError> {
        let view = View {
            defs: self.view.defs,
        };
        if let Some(kind) = view.simple_content(c) {
            // Text plus attributes: a scalar, or an object with `_value` and attributes.
            let (text, attrs) = match value {
                Value::Object(map) => (map.get("_value"), Some(map)),
                v => (Some(v), None),
            };
            self.attributes(c, attrs, path, &["_value"])?;
            self.out.push('>');
            let _ = kind;
            return match text {
                Some(t) => self.text(t, path),
                None => Ok(()),
            };
        }
        let map = match value {
            Value::Object(map) => map,
            _ => {
                return Err(ArgError {
                    path: path.to_string(),
                    message: "expected a JSON object".into(),
                })
            }
        };
        let slots = view.slots(c);
        let names: Vec<&str> = slots.iter().map(|s| s.name.local.as_str()).collect();
        self.attributes(c, Some(map), path, &names)?;
        self.out.push('>');
        for s in &slots {
            let item = Item {
                name: s.name.clone(),
                ty: Ty::Use(s.ty),
                repeats: s.repeats,
                optional: s.optional,
                nillable: s.decl.nillable,
            };
            self.item(&item, map.get(&s.name.local), ns, path, depth + 1)?;
        }
        Ok(())
    }

    /// Writes the declared attributes found in `map`; refuses a key that is neither an
    /// attribute nor one of `elements`.
    fn attributes(
        &mut self,
        c: &'d ComplexType,
        map: Option<&serde_json::Map<String, Value>>,
        path: &str,
        elements: &[&str],
    ) -> Result<(), ArgError> {
        let attrs = self.view.attributes(c);
        let Some(map) = map else { return Ok(()) };
        for (k, v) in map {
            let Some(a) = attrs.iter().find(|a| a.name.local == *k) else {
                if elements.contains(&k.as_str()) {
                    continue;
                }
                let mut known: Vec<&str> = elements.to_vec();
                known.extend(attrs.iter().map(|a| a.name.local.as_str()));
                return Err(ArgError {
                    path: format!("{path}/{k}"),
                    message: format!(
                        "unknown field `{k}` (expected one of: {})",
                        known.join(", ")
                    ),
                });
            };
            if elements.contains(&k.as_str()) {
                continue;
            }
            let text = scalar(v).ok_or_else(|| ArgError {
                path: format!("{path}/@{k}"),
                message: "an attribute takes a string, number or boolean".into(),
            })?;
            if a.name.namespace.is_empty() {
                let _ = write!(self.out, " {k}=\"{}\"", escape(text.as_str()));
            } else {
                self.prefixes += 1;
                let p = format!("a{}", self.prefixes);
                let _ = write!(
                    self.out,
                    " xmlns:{p}=\"{}\" {p}:{k}=\"{}\"",
                    escape(a.name.namespace.as_str()),
                    escape(text.as_str())
                );
            }
        }
        Ok(())
    }

    fn text(&mut self, value: &Value, path: &str) -> Result<(), ArgError> {
        match scalar(value) {
            Some(t) => {
                self.out.push_str(&escape(t.as_str()));
                Ok(())
            }
            None => Err(ArgError {
                path: path.to_string(),
                message: "expected a string, number or boolean".into(),
            }),
        }
    }
}

/// The text of a JSON scalar.
fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}
