//! The runtime of generated servers: envelope checks, routing, decoding, replies, caching.
//!
//! Generated code stays small (tonic-style): per operation it only names the request and
//! response types and calls the user's method; everything protocol-shaped lives here, once.
//! Every failure becomes a SOAP Fault in a [`SoapResponse`]; this module must never panic on
//! input, never answer without an envelope, and never hold a parsed request across the user's
//! `.await` (what it hands back is owned).

use std::cell::RefCell;

use bytes::{Bytes, BytesMut};
use serde::{de::DeserializeOwned, Serialize};
use soapstone_codec::{
    self as codec, EncodeOptions, Envelope, Fault, FaultCode, QName, Style, Version,
};
use soapstone_wsdl::{own_namespace, Body, ServiceModel};

use crate::cache::ResponseCache;
use crate::config::ServiceConfig;
use crate::table::Table;
use crate::{Context, ServiceFuture, SoapRequest, SoapResponse};

const NEXT_11: &str = "http://schemas.xmlsoap.org/soap/actor/next";
const NEXT_12: &str = "http://www.w3.org/2003/05/soap-envelope/role/next";
const ULTIMATE_12: &str = "http://www.w3.org/2003/05/soap-envelope/role/ultimateReceiver";
/// The SOAP 1.2 RPC namespace (Part 2 section 4.4), whose fault subcodes
/// `ProcedureNotPresent` and `BadArguments` say what was wrong with the call.
pub const RPC_NS: &str = "http://www.w3.org/2003/05/soap-rpc";

/// Answers to requests up to this size are encoded into a buffer kept per thread, then copied
/// into the thread's answer arena ([`arena_copy`]), where a fresh `Vec` handed to `Bytes`
/// costs two allocations (the `Vec`, then `Bytes`' shared header whenever the length is not
/// the capacity). A thread keeps at most this much (a bigger answer's growth is given back);
/// answers to bigger requests are encoded into a buffer sized like the request, as before,
/// so a large echo is not copied.
const SCRATCH_MAX: usize = 16 << 10;
/// The answer arena of a thread: answers up to [`PIECE_MAX`] are slices of it, and once the
/// server has written and dropped them the arena is reclaimed in place (no allocation per
/// answer). An answer kept longer (by a layer, not by the server) keeps at most this much
/// alive: `8 KiB`.
const ARENA: usize = 8 << 10;
/// Largest answer cut from the arena; a larger one gets its own exact-size copy: `2 KiB`.
const PIECE_MAX: usize = 2 << 10;

thread_local! {
    static SCRATCH: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    static ANSWERS: RefCell<BytesMut> = RefCell::new(BytesMut::new());
}

/// `bytes` as a slice of this thread's answer arena: no allocation once the answers cut from
/// it before have been dropped (the arena is then unique and `reserve` reuses it in place); a
/// fresh arena while an earlier one is still shared (an answer in flight on another
/// connection); an exact-size copy past [`PIECE_MAX`].
fn arena_copy(bytes: &[u8]) -> Bytes {
    if bytes.len() > PIECE_MAX {
        return Bytes::copy_from_slice(bytes);
    }
    ANSWERS
        .try_with(|arena| {
            let mut arena = arena.try_borrow_mut().ok()?;
            if arena.capacity() < bytes.len() {
                // Reclaims the whole arena when no answer cut from it is alive, else
                // allocates a new one (the old one is freed with its last answer).
                arena.reserve(ARENA);
            }
            arena.extend_from_slice(bytes);
            Some(arena.split().freeze())
        })
        .ok()
        .flatten()
        .unwrap_or_else(|| Bytes::copy_from_slice(bytes))
}

/// The operations chosen lately on this thread for envelopes laid over a remembered opening
/// ([`Envelope::remembered_opening`]): by dispatcher, opening and action, the operation a
/// full look-up chose (the envelope checks, the action's and the body element's tables).
/// That choice reads nothing but the opening's bytes (an envelope without `Header`, whose
/// body element is fixed by them), the action and the dispatcher's fixed tables, so the same
/// three give the same operation. Only an operation found is kept; a request that faults is
/// looked up in full every time. About 300 instructions of an echoFloat request (callgrind).
mod chosen {
    use std::cell::RefCell;

    /// Kept per thread: a client calling a few operations in turn finds each.
    const SLOTS: usize = 4;

    struct Chosen {
        dispatcher: u64,
        opening: u64,
        action: Option<crate::Action>,
        op: usize,
    }

    thread_local! {
        /// The slots, and the next to replace.
        static CHOSEN: RefCell<([Option<Chosen>; SLOTS], usize)> =
            const { RefCell::new(([const { None }; SLOTS], 0)) };
    }

    /// The operation kept for these three, if any.
    pub(super) fn recall(
        dispatcher: u64,
        opening: u64,
        action: Option<&crate::Action>,
    ) -> Option<usize> {
        CHOSEN
            .try_with(|c| {
                let c = c.try_borrow().ok()?;
                c.0.iter().flatten().find_map(|k| {
                    (k.dispatcher == dispatcher
                        && k.opening == opening
                        && k.action.as_ref() == action)
                        .then_some(k.op)
                })
            })
            .ok()
            .flatten()
    }

    /// Keeps `op` for these three, in place of the oldest kept.
    pub(super) fn keep(dispatcher: u64, opening: u64, action: Option<&crate::Action>, op: usize) {
        let _ = CHOSEN.try_with(|c| {
            if let Ok(mut c) = c.try_borrow_mut() {
                let next = c.1;
                c.0[next] = Some(Chosen {
                    dispatcher,
                    opening,
                    action: action.cloned(),
                    op,
                });
                c.1 = (next + 1) % SLOTS;
            }
        });
    }
}

/// Routing tables and settings of one generated server; shared by all its requests.
#[derive(Debug)]
pub struct Dispatcher {
    /// Unique in the process: the key of the operations this thread chose for it (`chosen`).
    id: u64,
    model: &'static ServiceModel,
    config: ServiceConfig,
    /// By bytes: a request's action is looked up without checking its UTF-8 again.
    by_action: Table<&'static [u8], usize>,
    /// Operations by the local name of the element their request's Body starts with, each
    /// with that element's namespace (routing is on the qualified name; an unqualified
    /// element is taken as the service's).
    by_request: Table<&'static str, Vec<(&'static str, usize)>>,
    /// Operations whose request is an empty Body (`Body::Parts` with no part).
    empty_body: Vec<usize>,
    responses: Vec<QName>,
    options: [EncodeOptions; 2],
    /// SOAP 1.2 response options per operation: rpc style may name its single result part in
    /// `rpc:result` (Part 2 4.2.2, [`ServiceConfig::rpc_result`]).
    options12: Vec<EncodeOptions>,
    caches: Vec<Option<ResponseCache>>,
    /// The configured understood headers and those the model's operations declare.
    understood: Vec<QName>,
}

/// A request whose envelope was checked and whose operation was found.
#[derive(Debug)]
pub struct Incoming<'a> {
    envelope: &'a Envelope<'a>,
    op: usize,
    dispatcher: &'a Dispatcher,
    request_len: usize,
}

/// What a reply needs to know about its request; owned, so it crosses the user's `.await`.
#[derive(Debug)]
pub struct Reply {
    op: usize,
    version: Version,
    cache_key: Option<Vec<u8>>,
    /// Bytes of the request: the first guess at the response's size.
    request_len: usize,
}

fn options(version: Version, model: &ServiceModel, config: &ServiceConfig) -> EncodeOptions {
    let mut o = EncodeOptions::default();
    o.version = version;
    o.style = model.style.body_style();
    o.qualified = model.qualified;
    o.array_item_types = config.array_item_types;
    o.max_bytes = config.max_response_bytes;
    o
}

fn index(version: Version) -> usize {
    match version {
        Version::Soap11 => 0,
        Version::Soap12 => 1,
    }
}

fn clark(q: &QName) -> String {
    if q.namespace.is_empty() {
        q.local.clone()
    } else {
        format!("{{{}}}{}", q.namespace, q.local)
    }
}

impl Dispatcher {
    /// The dispatcher of `model`; `cached[i]` tells whether operation `i` caches responses
    /// (none does when [`ServiceConfig::cache_capacity`] is `0`).
    ///
    /// # Panics
    /// If the model is invalid ([`ServiceModel::validate`]): a programming error in the
    /// service definition, reported when the server is built rather than on a request.
    pub fn new(model: &'static ServiceModel, config: ServiceConfig, cached: &[bool]) -> Self {
        if let Err(e) = model.validate() {
            panic!("invalid service model for `{}`: {e}", model.name);
        }
        let mut by_action = Table::default();
        let mut by_request: Table<&'static str, Vec<(&'static str, usize)>> = Table::default();
        let mut empty_body = Vec::new();
        for (i, op) in model.operations.iter().enumerate() {
            if !op.action.is_empty() {
                by_action.insert(op.action.as_bytes(), i);
            }
            let ns: &'static str = op.request_namespace.as_deref().unwrap_or(&model.namespace);
            let first = match op.input_body {
                Body::Wrapper => Some((ns, op.request.as_str())),
                Body::Parts => op
                    .input
                    .first()
                    .map(|p| own_namespace(&p.name).unwrap_or((ns, p.name.as_str()))),
            };
            match first {
                Some((ns, local)) => by_request.entry(local).or_default().push((ns, i)),
                None => empty_body.push(i),
            }
        }
        let caches = (0..model.operations.len())
            .map(|i| {
                (cached.get(i).copied().unwrap_or(false) && config.cache_capacity > 0).then(|| {
                    ResponseCache::new(
                        config.cache_capacity,
                        config.cache_max_bytes,
                        config.cache_ttl,
                    )
                })
            })
            .collect();
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        Dispatcher {
            id: NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            by_action,
            by_request,
            empty_body,
            responses: model
                .operations
                .iter()
                .map(|op| model.response_name(op))
                .collect(),
            options12: model
                .operations
                .iter()
                .map(|op| {
                    let mut o = options(Version::Soap12, model, &config);
                    if let ([result], Style::Encoded, true) =
                        (&op.output[..], o.style, config.rpc_result)
                    {
                        o.rpc_result = Some(result.name.clone());
                    }
                    o
                })
                .collect(),
            options: [
                options(Version::Soap11, model, &config),
                options(Version::Soap12, model, &config),
            ],
            caches,
            understood: config
                .understood_headers
                .iter()
                .chain(model.declared_request_headers())
                .cloned()
                .collect(),
            model,
            config,
        }
    }

    /// The model served.
    pub fn model(&self) -> &'static ServiceModel {
        self.model
    }

    /// The settings.
    pub fn config(&self) -> &ServiceConfig {
        &self.config
    }

    /// The encoding options of responses (and requests) in `version`.
    pub fn options(&self, version: Version) -> &EncodeOptions {
        &self.options[index(version)]
    }

    /// Opens `request` and hands `dispatch` the operation found, or answers the fault: reads
    /// the envelope of `request.body` (or takes `given`, the envelope a layer in front already
    /// read from those bytes, see [`crate::SoapService::serve_parsed`]: not read again, unless
    /// it was read under other limits than this service's, which then applies its own),
    /// checks its version and headers, and finds the operation: by the action when it names
    /// one whose wrapper is the body element, else by the body element (qualified with the
    /// service namespace, or unqualified).
    ///
    /// The envelope is lent to `dispatch` (a closure, since the one read here lives on this
    /// frame), never moved: it is a kilobyte, and each move of it was a `memcpy` of that size
    /// per request.
    pub fn serve<F>(
        &self,
        request: &SoapRequest,
        given: Option<&Envelope<'_>>,
        dispatch: F,
    ) -> ServiceFuture
    where
        F: FnOnce(Incoming<'_>) -> ServiceFuture,
    {
        let own;
        let envelope = match given {
            Some(envelope) if envelope.limits() == &self.config.limits => envelope,
            _ => match Envelope::parse(&request.body, &self.config.limits) {
                Ok(envelope) => {
                    own = envelope;
                    &own
                }
                Err(e) => return ServiceFuture::ready(self.parse_fault(request, &e)),
            },
        };
        match self.open_envelope(request, envelope) {
            Ok(incoming) => dispatch(incoming),
            Err(response) => ServiceFuture::ready(response),
        }
    }

    /// The answer to an envelope that did not parse: a VersionMismatch fault in SOAP 1.1 for
    /// a foreign envelope namespace, else the codec's fault in the request's version.
    fn parse_fault(&self, request: &SoapRequest, e: &codec::DecodeError) -> SoapResponse {
        if e.is_version_mismatch() {
            let mut out = Vec::with_capacity(512);
            codec::encode_version_mismatch_fault(&mut out, Version::Soap11, &e.to_string());
            return SoapResponse::new(Version::Soap11, true, None, Bytes::from(out))
                .with_fault_code(FaultCode::VersionMismatch);
        }
        fault_response(request.version, None, &Fault::from(e))
    }

    fn open_envelope<'a>(
        &'a self,
        request: &SoapRequest,
        envelope: &'a Envelope<'a>,
    ) -> Result<Incoming<'a>, SoapResponse> {
        let version = envelope.version();
        // Laid over a remembered opening (so without a Header: nothing to understand), the
        // operation chosen for the same opening and action before (`chosen`).
        let remembered = envelope
            .remembered_opening()
            .filter(|_| envelope.headers().is_empty());
        // Compared by bytes: `as_deref` would check the action's UTF-8 again (about 230
        // instructions).
        let action = request.action.as_ref();
        if let Some(op) = remembered.and_then(|o| chosen::recall(self.id, o, action)) {
            return Ok(Incoming {
                envelope,
                op,
                dispatcher: self,
                request_len: request.body.len(),
            });
        }
        // Blocks a layer in front of us processed (e.g. WS-Security) count as understood.
        let by_layer = request.extensions.get::<crate::UnderstoodHeaders>();
        let not_understood: Vec<QName> = envelope
            .headers()
            .iter()
            .filter(|h| {
                h.must_understand && targets_us(version, h.role.as_deref(), &self.config.roles)
            })
            .filter(|h| !self.understood.contains(&h.name))
            .filter(|h| !by_layer.is_some_and(|u| u.0.contains(&h.name)))
            .map(|h| h.name.clone())
            .collect();
        if !not_understood.is_empty() {
            let mut out = Vec::with_capacity(512);
            codec::encode_must_understand_fault(&mut out, version, &not_understood);
            return Err(SoapResponse::new(version, true, None, Bytes::from(out))
                .with_fault_code(FaultCode::MustUnderstand));
        }
        let by_action = request
            .action
            .as_ref()
            .and_then(|a| self.by_action.get(a.as_bytes()))
            .copied();
        let Some((namespace, local)) = envelope.body_name() else {
            // An empty Body: the operation that takes one, by its action or as the only one.
            let op = match (by_action, self.empty_body.as_slice()) {
                (Some(i), _) if self.empty_body.contains(&i) => Some(i),
                (_, [only]) => Some(*only),
                _ => None,
            };
            return match op {
                Some(op) => Ok(Incoming {
                    envelope,
                    op,
                    dispatcher: self,
                    request_len: request.body.len(),
                }),
                None => Err(fault_response(
                    version,
                    None,
                    &Fault::client("empty `Body`: expected an operation element"),
                )),
            };
        };
        let candidates = self.by_request.get(local).map_or(&[][..], Vec::as_slice);
        let matches = |&&(ns, _): &&(&str, usize)| namespace.is_empty() || ns == namespace;
        let op = match by_action {
            Some(i) if candidates.iter().any(|c| c.1 == i && matches(&c)) => Some(i),
            _ => {
                let mut found = candidates.iter().filter(matches);
                match (found.next(), found.next()) {
                    (Some(c), None) => Some(c.1),
                    // The model allows a shared request element only when each operation has
                    // its own SOAPAction; without one, nothing says which operation is meant.
                    (Some(_), Some(_)) => {
                        return Err(fault_response(
                            version,
                            None,
                            &Fault::client(format!(
                                "`{}` is the request of several operations of service `{}`: the SOAPAction says which, and `{}` names none of them",
                                clark(&QName::new(namespace, local)),
                                self.model.name,
                                request.action.as_deref().unwrap_or("")
                            )),
                        ))
                    }
                    _ => None,
                }
            }
        };
        match op {
            Some(op) => {
                if let Some(opening) = remembered {
                    chosen::keep(self.id, opening, request.action.as_ref(), op);
                }
                Ok(Incoming {
                    envelope,
                    op,
                    dispatcher: self,
                    request_len: request.body.len(),
                })
            }
            None => {
                let mut fault = Fault::client(format!(
                    "unknown operation `{}` in service `{}`",
                    clark(&QName::new(namespace, local)),
                    self.model.name
                ));
                fault
                    .subcodes
                    .push(QName::new(RPC_NS, "ProcedureNotPresent"));
                Err(fault_response(version, None, &fault))
            }
        }
    }

    /// The context of `request` for a handler that asks for one (header blocks decode under
    /// this service's limits and body style).
    pub fn context(&self, request: &SoapRequest, version: Version) -> Context {
        Context::new(
            request,
            version,
            &self.config.limits,
            self.model.style.body_style(),
        )
    }

    /// Encodes the reply to a request: the response wrapper with `result`'s fields, or the
    /// fault; stores a successful response of a cached operation.
    pub fn reply<R: Serialize>(&self, reply: Reply, result: Result<R, Fault>) -> SoapResponse {
        self.reply_with_headers(reply, result, Vec::new())
    }

    /// [`Dispatcher::reply`] with header blocks (raw markup) in the response's `Header`. A
    /// fault is written without them (its header blocks would describe a success).
    pub fn reply_with_headers<R: Serialize>(
        &self,
        reply: Reply,
        result: Result<R, Fault>,
        headers: Vec<String>,
    ) -> SoapResponse {
        let name = self.operation_name(reply.op);
        let value = match result {
            Ok(value) => value,
            Err(fault) => return fault_response(reply.version, Some(name), &fault),
        };
        let wrapper = &self.responses[reply.op];
        let options = match reply.version {
            Version::Soap11 => self.options(reply.version),
            Version::Soap12 => &self.options12[reply.op],
        };
        let cached = self.caches[reply.op].is_some();
        let headers: Vec<&str> = headers.iter().map(String::as_str).collect();
        let encode = |out: &mut Vec<u8>| codec::encode(out, options, &headers, wrapper, &value);
        let small = (reply.request_len <= SCRATCH_MAX)
            .then(|| {
                SCRATCH.with(|scratch| {
                    // (a `Serialize` impl that encodes a reply of its own finds it taken)
                    let mut out = scratch.try_borrow_mut().ok()?;
                    out.clear();
                    let encoded = encode(&mut out).map(|()| match cached {
                        // A cached answer lives on: its own exact-size copy, so it pins no
                        // arena.
                        true => Bytes::copy_from_slice(&out),
                        false => arena_copy(&out),
                    });
                    if out.capacity() > SCRATCH_MAX {
                        *out = Vec::new();
                    }
                    Some(encoded)
                })
            })
            .flatten();
        let encoded = small.unwrap_or_else(|| {
            // Sized like the request (plus room for the response envelope): an echo's answer
            // then never grows its buffer, so a large one is not copied (and held twice) on
            // the way. Pages a smaller answer leaves untouched cost address space, not memory.
            let mut out = Vec::with_capacity(reply.request_len.saturating_add(1024).max(512));
            encode(&mut out).map(|()| {
                if out.capacity() - out.len() > 64 << 10 {
                    // a small answer to a large request: give the unused guess back
                    out.shrink_to_fit();
                }
                Bytes::from(out)
            })
        });
        let body = match encoded {
            Ok(body) => body,
            Err(e) => {
                let fault = Fault::server(format!("cannot encode the response of `{name}`: {e}"));
                return fault_response(reply.version, Some(name), &fault);
            }
        };
        if let (Some(cache), Some(key)) = (&self.caches[reply.op], reply.cache_key) {
            cache.insert(reply.version, key, body.clone());
        }
        SoapResponse::new(reply.version, false, Some(name), body)
    }

    /// The reply to a one-way operation: [`SoapResponse::accepted`] (HTTP 202, no body) once
    /// the handler succeeded, or its fault. Response header blocks have nowhere to go.
    pub fn accepted(&self, reply: Reply, result: Result<(), Fault>) -> SoapResponse {
        let name = self.operation_name(reply.op);
        match result {
            Ok(()) => SoapResponse::accepted(reply.version, Some(name)),
            Err(fault) => fault_response(reply.version, Some(name), &fault),
        }
    }

    /// The cached response to this request, if its operation caches and has one.
    pub fn cached(&self, reply: &Reply) -> Option<SoapResponse> {
        let key = reply.cache_key.as_deref()?;
        let body = self.caches[reply.op].as_ref()?.get(reply.version, key)?;
        Some(SoapResponse::new(
            reply.version,
            false,
            Some(self.operation_name(reply.op)),
            body,
        ))
    }

    fn operation_name(&self, op: usize) -> &'static str {
        let model: &'static ServiceModel = self.model;
        &model.operations[op].name
    }
}

impl Incoming<'_> {
    /// The index of the operation (declaration order).
    pub fn operation(&self) -> usize {
        self.op
    }

    /// The SOAP version of the request.
    pub fn version(&self) -> Version {
        self.envelope.version()
    }

    /// Deserializes the request wrapper; a decode error is a Client fault with the codec's
    /// message. For a cached operation the request is re-encoded as the cache key.
    pub fn decode<T: DeserializeOwned + Serialize>(self) -> Result<(T, Reply), SoapResponse> {
        let d = self.dispatcher;
        let version = self.envelope.version();
        let name = d.operation_name(self.op);
        let value: T = match self.envelope.body(d.model.style.body_style()) {
            Ok(v) => v,
            Err(e) => return Err(fault_response(version, Some(name), &argument_fault(&e))),
        };
        let cache_key = match &d.caches[self.op] {
            Some(_) => {
                let mut key = Vec::with_capacity(256);
                let wrapper = QName::new("", name);
                match codec::encode(&mut key, d.options(version), &[], &wrapper, &value) {
                    Ok(()) => Some(key),
                    Err(_) => None,
                }
            }
            None => None,
        };
        Ok((
            value,
            Reply {
                op: self.op,
                version,
                cache_key,
                request_len: self.request_len,
            },
        ))
    }
}

/// Whether a header block with this role is aimed at this (the ultimate) receiver, which also
/// plays `roles`.
fn targets_us(version: Version, role: Option<&str>, roles: &[String]) -> bool {
    match role {
        None | Some("") => true,
        Some(r) if roles.iter().any(|ours| ours == r) => true,
        Some(r) => match version {
            Version::Soap11 => r == NEXT_11,
            Version::Soap12 => r == NEXT_12 || r == ULTIMATE_12,
        },
    }
}

/// The fault for a request wrapper that did not decode: the codec's, and, when it is the
/// sender's error and no limit, the SOAP 1.2 RPC subcode `rpc:BadArguments` ("the receiver
/// cannot parse the arguments or there is a mismatch in number and/or type", Part 2 4.4).
/// An encoding subcode the codec gave (`enc:MissingID`) is kept instead.
fn argument_fault(e: &codec::DecodeError) -> Fault {
    let mut fault = Fault::from(e);
    if fault.code == FaultCode::Client && fault.subcodes.is_empty() && !e.is_limit() {
        fault.subcodes.push(QName::new(RPC_NS, "BadArguments"));
    }
    fault
}

/// A response envelope holding `fault` in `version`'s shape.
pub fn fault_response(
    version: Version,
    operation: Option<&'static str>,
    fault: &Fault,
) -> SoapResponse {
    SoapResponse::from_fault(version, operation, fault)
}
