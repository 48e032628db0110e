//! The service a code generator emits: Rust names and types beside the wire names.
//!
//! Both front ends build one: `#[service]` from a trait (types as the user wrote them), and
//! [`generate`](crate::generate) from a WSDL (types it generates). Must never hold anything the
//! emitter would have to decide itself: every name, action and wrapper is settled here.

use syn::{Ident, Type};

/// The binding style: document/literal, rpc/encoded or rpc/literal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    Document,
    Rpc,
    RpcLiteral,
}

/// A whole service.
pub struct Service {
    pub ident: Ident,
    pub name: String,
    pub namespace: String,
    pub style: Style,
    /// Elements inside the body are qualified with the namespace (`elementFormDefault`).
    pub qualified: bool,
    pub docs: Option<String>,
    pub methods: Vec<Method>,
}

/// A header block an operation declares: typed `Option<ty>` in the trait and the client.
pub struct HeaderParam {
    pub ident: Ident,
    pub ty: Type,
    pub namespace: String,
    pub element: String,
    /// The element and qualification come from `ty`'s `Header` impl (`#[soap(header)]`), not
    /// from `namespace`/`element` (a WSDL's).
    pub from_type: bool,
    /// A WSDL's SOAP-encoded block (`soap:header use="encoded"`): `Some(namespace of the
    /// service's types)`. A `#[service]` header says so through `Header::encoded`.
    pub encoded: Option<String>,
}

/// The faults an operation declares: an enum named `ident` with one variant per fault.
pub struct FaultSet {
    pub ident: Ident,
    pub faults: Vec<FaultDecl>,
}

/// One declared fault: variant `variant` holding the detail element's content `ty`.
pub struct FaultDecl {
    pub name: String,
    pub variant: Ident,
    pub ty: Type,
    pub namespace: String,
    pub element: String,
}

/// One parameter of an operation.
pub struct Param {
    pub ident: Ident,
    pub ty: Type,
    pub part: String,
}

/// One part of an operation's response: the single result, or one element of a tuple result.
pub struct ResultPart {
    pub name: String,
    pub ty: Type,
}

/// One operation.
pub struct Method {
    pub ident: Ident,
    pub name: String,
    /// The request wrapper element (the operation name unless a WSDL says otherwise).
    pub request: String,
    pub action: String,
    pub response: String,
    /// The request wrapper's namespace when it is not the service's (a WSDL's).
    pub request_namespace: Option<String>,
    /// The response wrapper's namespace when it is not the service's.
    pub response_namespace: Option<String>,
    /// The request's parts are the Body's children, not a wrapper's (`Body::Parts`: a WSDL's
    /// document/literal message of several parts, or none).
    pub bare_input: bool,
    /// The response's parts are the Body's children.
    pub bare_output: bool,
    pub params: Vec<Param>,
    /// The `T` of `Result<T, E>`; `None` for `()`.
    pub ok: Option<Type>,
    /// The response parts: none for `()`, one for a plain `T`, one per element of a tuple
    /// `T` whose part names `result = "a, b"` lists.
    pub results: Vec<ResultPart>,
    pub cache: bool,
    /// The method takes `ctx: &Context` right after `&self` (header blocks, peer, principal,
    /// response headers); the request's bytes then live until the handler returns.
    pub context: bool,
    /// Request header blocks, each an `Option<T>` parameter after the body's.
    pub headers: Vec<HeaderParam>,
    /// Response header blocks (set through the context; the client returns them).
    pub response_headers: Vec<HeaderParam>,
    pub faults: Option<FaultSet>,
    pub docs: Option<String>,
    /// A one-way operation: no response wrapper, the server answers HTTP 202 once the method
    /// returns `Ok(())`, the client returns `Ok(())` once it arrives. `ok` is `None`,
    /// `results`, `response_headers` and `faults` are empty.
    pub one_way: bool,
}
