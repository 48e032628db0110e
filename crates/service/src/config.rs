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
    /// Most responses kept per cached operation (`#[soap(cache)]`). Default: `1024`.
    pub cache_capacity: usize,
}

impl Default for ServiceConfig {
    fn default() -> Self {
        ServiceConfig {
            limits: Limits::default(),
            understood_headers: Vec::new(),
            cache_capacity: 1024,
        }
    }
}

impl ServiceConfig {
    /// Sets the input limits.
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Declares a header block as understood.
    pub fn understand(mut self, header: QName) -> Self {
        self.understood_headers.push(header);
        self
    }

    /// Sets how many responses each cached operation keeps.
    pub fn cache_capacity(mut self, capacity: usize) -> Self {
        self.cache_capacity = capacity;
        self
    }
}
