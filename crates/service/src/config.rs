//! Settings of a generated server (`FooServer::with_config`).
//!
//! Kept apart from the generated code so that every service is configured the same way and
//! a new setting needs no macro change. Must never hold per-request state.

use soapstone_codec::{Limits, QName};

/// How a generated server parses requests and caches responses.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ServiceConfig {
    /// Limits on hostile input for every request. Default: [`Limits::default`].
    pub limits: Limits,
    /// Header blocks this service understands: a `mustUnderstand` header aimed at us that is
    /// not listed here is answered with a MustUnderstand fault. Default: none.
    pub understood_headers: Vec<QName>,
    /// Roles this node plays besides SOAP 1.2's `next` and `ultimateReceiver` (1.1: `actor`
    /// URIs besides `next`): a header block aimed at one of them is processed here, so a
    /// `mustUnderstand` one must be understood; blocks aimed at other roles are left alone.
    /// Default: none.
    pub roles: Vec<String>,
    /// Most responses kept per cached operation (`#[soap(cache)]`); `0` turns the cache off,
    /// so that a server can declare an operation cacheable and leave the choice to whoever
    /// deploys it. Default: `1024`.
    pub cache_capacity: usize,
    /// Most bytes (canonical requests plus response envelopes) kept per cached operation; a
    /// response larger than half of it is never kept. With [`ServiceConfig::cache_capacity`]
    /// this bounds the cache whatever the size of the answers. Default: `32 MiB`.
    pub cache_max_bytes: usize,
    /// How long a cached response is answered from, counted from when it was computed (a hit
    /// does not extend it); past it the handler computes the answer again. `None`: never
    /// expires, for answers that are pure functions of the request. The default bounds how
    /// stale a cached answer can be when the handler reads data that change (a news feed's
    /// headlines), at the cost of one computation per distinct request per minute, which
    /// leaves a hot request's hit path (hundreds of calls a second) as it was. Default:
    /// `Some(60 s)`.
    pub cache_ttl: Option<std::time::Duration>,
    /// In rpc/encoded responses, write `xsi:type` on every SOAP-ENC array item too, not only
    /// the array's `arrayType` (codec `EncodeOptions::array_item_types`); no effect on
    /// document/literal. Clients that ignore `arrayType` (zeep) hand untyped items back as
    /// raw XML elements; PHP ext/soap and SOAP::Lite write item types too. It costs about
    /// 5-10% of a call that echoes 100 ints or structs and makes an int array's response ~1.8x
    /// larger (`benches/item_types.rs`). On by default so that the clients people use (zeep) read
    /// arrays without help. Default: `true`.
    pub array_item_types: bool,
    /// Largest response envelope a handler may produce: past it the encoder stops (before
    /// writing more) and the answer is a Server fault naming the limit, never a truncated
    /// message. With the codec's multi-ref budget this bounds what one request can make the
    /// server hold, whatever the handler does with its input. Default: `16 MiB`.
    pub max_response_bytes: usize,
    /// In SOAP 1.2 rpc/encoded responses of a single result, write the `rpc:result` element
    /// that names the result's accessor as the wrapper's first child (codec
    /// `EncodeOptions::rpc_result`; SOAP 1.2 Part 2 4.2.2 requires it of a non-void result).
    /// Off by default because zeep refuses it ("Unexpected element
    /// `{http://www.w3.org/2003/05/soap-rpc}result`, expected `return`") while no client we
    /// know needs it; soapstone's own client skips it either way. The W3C SOAP 1.2 test
    /// collection's node turns it on. Default: `false`.
    pub rpc_result: bool,
}

impl Default for ServiceConfig {
    fn default() -> Self {
        ServiceConfig {
            limits: Limits::default(),
            understood_headers: Vec::new(),
            roles: Vec::new(),
            cache_capacity: 1024,
            cache_max_bytes: 32 << 20,
            cache_ttl: Some(std::time::Duration::from_secs(60)),
            array_item_types: true,
            max_response_bytes: 16 << 20,
            rpc_result: false,
        }
    }
}

impl ServiceConfig {
    /// Sets the input limits.
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Accepts (or not) the non-conforming constructs of old toolkits in requests (see
    /// [`soapstone_codec::Lenient`]); each is logged through `tracing`. A server should stay
    /// strict unless it must serve such clients. Default: strict.
    pub fn lenient(mut self, lenient: soapstone_codec::Lenient) -> Self {
        self.limits.lenient = lenient;
        self
    }

    /// Declares a header block as understood.
    pub fn understand(mut self, header: QName) -> Self {
        self.understood_headers.push(header);
        self
    }

    /// Plays the role (SOAP 1.2) or actor (1.1) `uri` too (see [`ServiceConfig::roles`]).
    pub fn role(mut self, uri: impl Into<String>) -> Self {
        self.roles.push(uri.into());
        self
    }

    /// Writes (or not) `xsi:type` on every item of an encoded array.
    pub fn array_item_types(mut self, on: bool) -> Self {
        self.array_item_types = on;
        self
    }

    /// Sets the largest response envelope (see [`ServiceConfig::max_response_bytes`]).
    pub fn max_response_bytes(mut self, bytes: usize) -> Self {
        self.max_response_bytes = bytes;
        self
    }

    /// Writes (or not) SOAP 1.2's `rpc:result` in rpc/encoded responses.
    pub fn rpc_result(mut self, on: bool) -> Self {
        self.rpc_result = on;
        self
    }

    /// Sets how many responses each cached operation keeps (`0`: no cache).
    pub fn cache_capacity(mut self, capacity: usize) -> Self {
        self.cache_capacity = capacity;
        self
    }

    /// Sets how many bytes each cached operation keeps (see [`ServiceConfig::cache_max_bytes`]).
    pub fn cache_max_bytes(mut self, bytes: usize) -> Self {
        self.cache_max_bytes = bytes;
        self
    }

    /// Sets how long a cached response is answered from (`None`: forever; see
    /// [`ServiceConfig::cache_ttl`]).
    pub fn cache_ttl(mut self, ttl: Option<std::time::Duration>) -> Self {
        self.cache_ttl = ttl;
        self
    }
}
