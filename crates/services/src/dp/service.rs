//! The Davis and Parashar interface as a SOAP service: rpc/encoded in `urn:test:soap`, the
//! namespace of the paper's Fig. 1 request (`<ns1:getIntegers xmlns:ns1="urn:test:soap">`).
//! Integer arrays travel as SOAP-ENC arrays of `xsd:int` items, as Apache SOAP sent them.

use soapstone_codec::Fault;

use super::data::{check_size, integers_of, string_of, DpState};

/// The namespace of the paper's request.
pub const NAMESPACE: &str = "urn:test:soap";

/// The test interface of Davis and Parashar (seed 001, section IV): a call that does nothing,
/// a size setter, and getters whose answers grow with the size.
#[soapstone_service::service(name = "TestService", namespace = "urn:test:soap", style = "rpc")]
pub trait Dp {
    /// Does nothing: the overhead of a SOAP call.
    async fn do_nothing(&self) -> Result<(), Fault>;
    /// Sets the size of what `getString` and `getIntegers` return (server-wide), `0..=100000`.
    async fn set_size(&self, size: i32) -> Result<(), Fault>;
    /// A string of the set size (letters only: the same XML whatever the length).
    async fn get_string(&self) -> Result<String, Fault>;
    /// The integers `0..size` of the set size.
    async fn get_integers(&self) -> Result<Vec<i32>, Fault>;
    /// A string of `n` letters (stateless, for concurrent clients).
    async fn get_string_of_size(&self, n: i32) -> Result<String, Fault>;
    /// The integers `0..n` (stateless, for concurrent clients).
    async fn get_integers_of_size(&self, n: i32) -> Result<Vec<i32>, Fault>;
}

impl Dp for DpState {
    async fn do_nothing(&self) -> Result<(), Fault> {
        Ok(())
    }
    async fn set_size(&self, size: i32) -> Result<(), Fault> {
        DpState::set_size(self, size)
    }
    async fn get_string(&self) -> Result<String, Fault> {
        Ok(string_of(self.size()))
    }
    async fn get_integers(&self) -> Result<Vec<i32>, Fault> {
        Ok(integers_of(self.size()))
    }
    async fn get_string_of_size(&self, n: i32) -> Result<String, Fault> {
        Ok(string_of(check_size(n)?))
    }
    async fn get_integers_of_size(&self, n: i32) -> Result<Vec<i32>, Fault> {
        Ok(integers_of(check_size(n)?))
    }
}
