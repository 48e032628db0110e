//! The dynamic client: an operation name and a `serde_json::Value` in, a `Value` out, over
//! one port of a read WSDL, the way zeep's `client.service.op(**kwargs)` works.
//!
//! Must never report success for an answer it could not find: a result element that is
//! missing (and that the schema does not allow to be missing) is an error that names the
//! path and the element actually found. A one-part answer is found whatever its element is
//! called (Axis names results `echoFloatReturn`), as zeep does.

use std::sync::Arc;

use bytes::Bytes;
use serde_json::{Map, Value};
use soapstone_codec::{QName, Version};
use soapstone_wsdl::read::{
    AbstractOperation, Binding, BindingOperation, BodyBinding, Definitions, Message, MessagePart,
    OpStyle, SoapVersion, Use,
};

use crate::decode::{self, Body, Fault, Reader};
use crate::encode::{ArgError, Item, Writer};
use crate::headers;
use crate::schema::{Ty, View};

/// Which port to call, and where.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Target {
    /// The service (local name). Default: `None`: the first with a matching port.
    pub service: Option<String>,
    /// The port. Default: `None`: the service's SOAP 1.1 port, else its first SOAP port.
    pub port: Option<String>,
    /// Use a SOAP 1.2 port. Default: `false`.
    pub soap12: bool,
    /// The endpoint URL. Default: `None`: the port's `soap:address`.
    pub endpoint: Option<String>,
}

/// Why a call failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum CallError {
    /// The WSDL has no such service, port or operation, or the port cannot be used.
    Usage(String),
    /// The JSON arguments do not fit the operation's input.
    Args(ArgError),
    /// The request could not be sent or the answer not received.
    Transport(soapstone_client::Error),
    /// The server answered with a SOAP Fault.
    Fault {
        /// The fault.
        fault: Fault,
        /// The whole response envelope.
        envelope: Bytes,
    },
    /// The answer is not what the WSDL says (not SOAP, a missing result, a bad value).
    Response {
        /// What is wrong.
        message: String,
        /// The HTTP status.
        status: u16,
        /// The whole response body.
        envelope: Bytes,
    },
}

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CallError::Usage(m) => f.write_str(m),
            CallError::Args(e) => write!(f, "bad arguments: {e}"),
            CallError::Transport(e) => write!(f, "{e}"),
            CallError::Fault { fault, .. } => write!(f, "{fault}"),
            CallError::Response {
                message, status, ..
            } => write!(f, "{message} (HTTP {status})"),
        }
    }
}

impl std::error::Error for CallError {}

/// A successful answer.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Answer {
    /// The result: the single output value, an object of several, or `null` for none (and
    /// for a one-way operation, which the server accepted with no envelope).
    pub value: Value,
    /// The response's header blocks the binding declares, by part name (an object; empty
    /// when there are none).
    pub headers: Value,
    /// The whole response envelope.
    pub envelope: Bytes,
}

/// A client for one port of a WSDL.
#[derive(Debug, Clone)]
pub struct DynamicClient {
    defs: Arc<Definitions>,
    binding: soapstone_codec::QName,
    version: Version,
    endpoint: String,
    http: soapstone_client::Client,
}

impl DynamicClient {
    /// A client for the port `target` picks.
    pub fn new(defs: Arc<Definitions>, target: &Target) -> Result<Self, CallError> {
        Self::with_config(defs, target, soapstone_client::ClientConfig::default())
    }

    /// A client for the port `target` picks, with the HTTP client's settings (timeouts, TLS
    /// roots or CA, lenient reading).
    pub fn with_config(
        defs: Arc<Definitions>,
        target: &Target,
        config: soapstone_client::ClientConfig,
    ) -> Result<Self, CallError> {
        let want = if target.soap12 {
            SoapVersion::Soap12
        } else {
            SoapVersion::Soap11
        };
        let mut candidates = Vec::new();
        for s in &defs.services {
            if target.service.as_ref().is_some_and(|n| *n != s.name.local) {
                continue;
            }
            for p in &s.ports {
                if target.port.as_ref().is_some_and(|n| *n != p.name) {
                    continue;
                }
                if let Some(b) = defs.bindings.get(&p.binding).filter(|b| b.soap.is_some()) {
                    candidates.push((p, b));
                }
            }
        }
        let pick = candidates
            .iter()
            .find(|(_, b)| b.soap == Some(want))
            .or_else(|| candidates.iter().find(|_| !target.soap12))
            .ok_or_else(|| {
                if !candidates.is_empty() {
                    // `--soap12` and only SOAP 1.1 ports: say which there are.
                    let ports: Vec<String> = candidates
                        .iter()
                        .map(|(p, _)| format!("`{}` (SOAP 1.1)", p.name))
                        .collect();
                    return CallError::Usage(format!(
                        "no SOAP 1.2 port: the WSDL binds {} with SOAP 1.1 only; call without `--soap12`",
                        ports.join(", ")
                    ));
                }
                CallError::Usage(format!(
                    "no SOAP port{}{}",
                    target
                        .service
                        .as_ref()
                        .map(|s| format!(" in service `{s}`"))
                        .unwrap_or_default(),
                    target
                        .port
                        .as_ref()
                        .map(|p| format!(" named `{p}`"))
                        .unwrap_or_default(),
                ))
            })?;
        let (port, binding) = *pick;
        let endpoint = target
            .endpoint
            .clone()
            .or_else(|| port.address.clone())
            .ok_or_else(|| {
                CallError::Usage(format!(
                    "port `{}` has no address: pass an endpoint",
                    port.name
                ))
            })?;
        let http = soapstone_client::Client::with_config(&endpoint, config)
            .map_err(CallError::Transport)?;
        let version = match binding.soap {
            Some(SoapVersion::Soap12) => Version::Soap12,
            _ => Version::Soap11,
        };
        let binding = binding.name.clone();
        Ok(DynamicClient {
            defs,
            binding,
            version,
            endpoint,
            http,
        })
    }

    /// The SOAP version of the port.
    pub fn version(&self) -> Version {
        self.version
    }

    /// The endpoint URL called.
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    fn binding(&self) -> &Binding {
        &self.defs.bindings[&self.binding]
    }

    fn operation(&self, name: &str) -> Result<(&AbstractOperation, &BindingOperation), CallError> {
        let b = self.binding();
        let pt = self.defs.port_types.get(&b.port_type).ok_or_else(|| {
            CallError::Usage(format!("portType `{}` is not defined", b.port_type.local))
        })?;
        let op = pt.operations.iter().find(|o| o.name == name);
        let bop = b.operations.iter().find(|o| o.name == name);
        match (op, bop) {
            (Some(op), Some(_)) if op.output_first => Err(CallError::Usage(format!(
                "operation `{name}` is a notification or solicit-response: the server would send first, which SOAP over HTTP cannot (WS-I BP R2303)"
            ))),
            (Some(op), Some(bop)) => Ok((op, bop)),
            _ => {
                let names: Vec<&str> = pt.operations.iter().map(|o| o.name.as_str()).collect();
                Err(CallError::Usage(format!(
                    "no operation `{name}` in port binding `{}` (it has: {})",
                    b.name.local,
                    names.join(", ")
                )))
            }
        }
    }

    fn message(&self, name: Option<&QName>, op: &str) -> Result<Option<&Message>, CallError> {
        match name {
            None => Ok(None),
            Some(m) => self.defs.messages.get(m).map(Some).ok_or_else(|| {
                CallError::Usage(format!(
                    "operation `{op}` uses message `{}`, which is not defined",
                    m.local
                ))
            }),
        }
    }

    /// Whether `op`'s response declares header blocks (`soap:header` in the binding's output).
    pub fn declares_response_headers(&self, op: &str) -> Result<bool, CallError> {
        let (_, bop) = self.operation(op)?;
        Ok(bop.output.as_ref().is_some_and(|b| !b.headers.is_empty()))
    }

    /// The request envelope for `op` with `args`, and its SOAPAction.
    pub fn request(&self, op: &str, args: &Value) -> Result<(Option<String>, Vec<u8>), CallError> {
        self.request_with_headers(op, args, &Value::Null)
    }

    /// The request envelope for `op` with `args` and the header blocks `headers` (a JSON
    /// object by the binding's `soap:header` part names; `null` for none), and its SOAPAction.
    pub fn request_with_headers(
        &self,
        op: &str,
        args: &Value,
        headers: &Value,
    ) -> Result<(Option<String>, Vec<u8>), CallError> {
        let (aop, bop) = self.operation(op)?;
        let message = self.message(aop.input.as_ref(), op)?;
        let body = bop.input.as_ref();
        let encoded = body.is_some_and(|b| b.use_ == Use::Encoded);
        let mut w = Writer::new(View { defs: &self.defs }, self.version, encoded);
        w.start_envelope();
        let blocks = headers::declared(&self.defs, body).map_err(CallError::Usage)?;
        headers::write(&mut w, &blocks, headers).map_err(|mut e| {
            e.path = format!("headers{}", e.path);
            CallError::Args(e)
        })?;
        w.start_body();
        let parts = message.map(|m| body_parts(m, body)).unwrap_or_default();
        let map = match args {
            Value::Object(m) => Some(m),
            Value::Null => None,
            _ => None,
        };
        match bop.style {
            OpStyle::Rpc => {
                // the model's rule (one place: `Binding::rpc_namespace`)
                let ns = self.binding().rpc_namespace(bop);
                let wrapper = QName::new(ns, aop.name.clone());
                let map = object(args, "")?;
                check_keys(map, parts.iter().map(|p| p.name.as_str()), "")?;
                w.open_wrapper(&wrapper);
                for p in &parts {
                    let (item, _) = self.part_item(p, encoded);
                    w.item(&item, map.get(&p.name), &wrapper.namespace, "", 1)
                        .map_err(CallError::Args)?;
                }
                w.close(&wrapper);
            }
            OpStyle::Document => {
                let single = parts.len() == 1;
                if !single {
                    check_keys(object(args, "")?, parts.iter().map(|p| p.name.as_str()), "")?;
                }
                for p in &parts {
                    let (item, _) = self.part_item(p, false);
                    // A one-part message takes the part's value itself; a `type=` part of a
                    // built-in type also as `{"part": value}`, the way `inspect` lists it.
                    let keyed = match (&p.ty, args) {
                        (Some(t), Value::Object(m))
                            if single && t.namespace == soapstone_wsdl::XSD_NS && m.len() == 1 =>
                        {
                            m.get(&p.name)
                        }
                        _ => None,
                    };
                    let value = if let Some(v) = keyed {
                        Some(v)
                    } else if single {
                        Some(args)
                    } else {
                        map.and_then(|m| m.get(&p.name))
                    };
                    let value = match value {
                        // No arguments for an element with no content: `{}`.
                        Some(Value::Null) if single => Some(&EMPTY),
                        v => v,
                    };
                    w.item(&item, value, "", "", 1).map_err(CallError::Args)?;
                }
            }
        }
        w.end_envelope();
        Ok((bop.action.clone(), w.out.into_bytes()))
    }

    /// The element a message part is on the wire, and whether it came from a global element;
    /// `rpc` when its accessor is the part name (rpc/encoded).
    fn part_item<'d>(&'d self, p: &'d MessagePart, rpc: bool) -> (Item<'d>, bool) {
        if let Some(e) = p
            .element
            .as_ref()
            .and_then(|e| self.defs.schema.elements.get(e))
        {
            // An rpc/encoded accessor is the part name; a literal one (document, and rpc
            // with `element=`, as the model and zeep have it) the element itself, qualified.
            let name = if rpc {
                QName::new("", p.name.clone())
            } else {
                e.name.clone()
            };
            let item = Item {
                name,
                ty: Ty::Use(e.ty.as_ref()),
                repeats: false,
                optional: false,
                nillable: e.nillable,
            };
            return (item, true);
        }
        let ty = match &p.ty {
            Some(t) => Ty::Name(t),
            None => Ty::Use(None),
        };
        (
            Item {
                name: QName::new("", p.name.clone()),
                ty,
                repeats: false,
                optional: false,
                nillable: true,
            },
            false,
        )
    }

    /// Calls `op` with `args` and decodes the answer.
    pub async fn call(&self, op: &str, args: &Value) -> Result<Answer, CallError> {
        self.call_with_headers(op, args, &Value::Null).await
    }

    /// Calls `op` with `args` and the header blocks `headers` (see
    /// [`DynamicClient::request_with_headers`]) and decodes the answer with its header blocks.
    pub async fn call_with_headers(
        &self,
        op: &str,
        args: &Value,
        headers: &Value,
    ) -> Result<Answer, CallError> {
        let (action, envelope) = self.request_with_headers(op, args, headers)?;
        let raw = self
            .http
            .call_raw(self.version, action.as_deref(), Bytes::from(envelope))
            .await
            .map_err(CallError::Transport)?;
        let (value, headers) = self.response_with_headers(op, raw.status, &raw.body)?;
        Ok(Answer {
            value,
            headers,
            envelope: raw.body,
        })
    }

    /// Decodes a response body (`status`: its HTTP status) to `op`'s output.
    pub fn response(&self, op: &str, status: u16, body: &Bytes) -> Result<Value, CallError> {
        Ok(self.response_with_headers(op, status, body)?.0)
    }

    /// Decodes a response body to `op`'s output and its declared header blocks (an object by
    /// part name). A one-way operation's answer is a 2xx with no envelope (WS-I BP R2714):
    /// `null`; an envelope that is not a Fault is ignored (R2750).
    pub fn response_with_headers(
        &self,
        op: &str,
        status: u16,
        body: &Bytes,
    ) -> Result<(Value, Value), CallError> {
        let bad = |message: String| CallError::Response {
            message,
            status,
            envelope: body.clone(),
        };
        let (aop, bop) = self.operation(op)?;
        if body.iter().all(u8::is_ascii_whitespace) {
            return match ((200..300).contains(&status), aop.output.is_none()) {
                (true, true) => Ok((Value::Null, Value::Object(Map::new()))),
                (true, false) => Err(bad(format!(
                    "the answer has no envelope, but `{op}` is not one-way"
                ))),
                (false, _) => Err(bad(format!("HTTP status {status} without a Fault"))),
            };
        }
        let text =
            std::str::from_utf8(body).map_err(|_| bad("the response is not UTF-8".into()))?;
        let doc = decode::parse(text, 4_000_000).map_err(bad)?;
        let children = match decode::body(&doc).map_err(bad)? {
            Body::Fault(fault) => {
                return Err(CallError::Fault {
                    fault,
                    envelope: body.clone(),
                })
            }
            Body::Elements(c) => c,
        };
        if !(200..300).contains(&status) {
            return Err(bad(format!("HTTP status {status} without a Fault")));
        }
        let Some(message) = self.message(aop.output.as_ref(), op)? else {
            return Ok((Value::Null, Value::Object(Map::new())));
        };
        let parts = body_parts(message, bop.output.as_ref());
        let reader = Reader::new(View { defs: &self.defs }, &doc);
        let blocks = headers::declared(&self.defs, bop.output.as_ref()).map_err(bad)?;
        let headers = headers::read(&reader, &doc, &blocks).map_err(bad)?;
        let found = |nodes: &[roxmltree::Node<'_, '_>]| {
            nodes
                .iter()
                .map(|n| format!("`{}`", n.tag_name().name()))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut out = Map::new();
        let (nodes, base) = match bop.style {
            OpStyle::Rpc => {
                let Some(wrapper) = children.first() else {
                    return Err(bad("the response body is empty".into()));
                };
                let kids: Vec<_> = wrapper.children().filter(|c| c.is_element()).collect();
                (kids, format!("/{}", wrapper.tag_name().name()))
            }
            OpStyle::Document => (children.clone(), String::new()),
        };
        for p in &parts {
            let encoded = bop.output.as_ref().is_some_and(|b| b.use_ == Use::Encoded);
            let (item, _) = self.part_item(p, bop.style == OpStyle::Rpc && encoded);
            let want = &item.name.local;
            let node = nodes
                .iter()
                .find(|n| n.tag_name().name() == want)
                .or_else(|| (parts.len() == 1 && nodes.len() == 1).then(|| &nodes[0]));
            let Some(node) = node else {
                return Err(bad(format!(
                    "the response has no `{want}` at `{base}` (found: {})",
                    if nodes.is_empty() {
                        "nothing".to_string()
                    } else {
                        found(&nodes)
                    }
                )));
            };
            let path = format!("{base}/{}", node.tag_name().name());
            let v = reader.value(*node, item.ty, &path, 0).map_err(bad)?;
            out.insert(p.name.clone(), v);
        }
        let value = match out.len() {
            0 => Value::Null,
            1 => {
                let v = out
                    .into_iter()
                    .next()
                    .map(|(_, v)| v)
                    .unwrap_or(Value::Null);
                // A document/literal wrapper with one child: its value (zeep's rule).
                match (bop.style, v) {
                    (OpStyle::Document, Value::Object(m)) if m.len() == 1 => {
                        m.into_iter().next().map(|(_, v)| v).unwrap_or(Value::Null)
                    }
                    (_, v) => v,
                }
            }
            _ => Value::Object(out),
        };
        Ok((value, headers))
    }
}

static EMPTY: Value = Value::Null;

fn object<'v>(v: &'v Value, path: &str) -> Result<&'v Map<String, Value>, CallError> {
    static NONE: std::sync::OnceLock<Map<String, Value>> = std::sync::OnceLock::new();
    match v {
        Value::Object(m) => Ok(m),
        Value::Null => Ok(NONE.get_or_init(Map::new)),
        _ => Err(CallError::Args(ArgError {
            path: if path.is_empty() {
                "/".into()
            } else {
                path.into()
            },
            message: "expected a JSON object of the operation's parameters".into(),
        })),
    }
}

fn check_keys<'a>(
    map: &Map<String, Value>,
    names: impl Iterator<Item = &'a str>,
    path: &str,
) -> Result<(), CallError> {
    let names: Vec<&str> = names.collect();
    for k in map.keys() {
        if !names.contains(&k.as_str()) {
            return Err(CallError::Args(ArgError {
                path: format!("{path}/{k}"),
                message: format!("unknown parameter `{k}` (expected: {})", names.join(", ")),
            }));
        }
    }
    Ok(())
}

/// The parts of `m` in the body: those `soap:body parts=` names, else all but the headers'.
fn body_parts<'m>(m: &'m Message, body: Option<&BodyBinding>) -> Vec<&'m MessagePart> {
    m.parts
        .iter()
        .filter(|p| match body {
            Some(b) => match &b.parts {
                Some(names) => names.contains(&p.name),
                None => !b
                    .headers
                    .iter()
                    .any(|h| h.message == m.name && h.part == p.name),
            },
            None => true,
        })
        .collect()
}
