//! Sam Ruby's echoFloat (seed 002, axis-dev, April 2001): the request and response exactly as
//! he printed them. The body element is `echoFloat` in `http://tempuri.org/` (the .NET default
//! namespace) with a namespace-qualified `input`; the answer is `echoFloatResult` with a
//! qualified `result` and no `xsi:type`: .NET's document/literal shape, which is what this
//! service is (the request's `xsi:type="xsd:float"` in the 1999 schema namespace is accepted
//! and not needed).

use soapstone_codec::Fault;

/// The .NET default namespace Sam Ruby's message used.
pub const NAMESPACE: &str = "http://tempuri.org/";

/// Sam Ruby's small-message timing service.
#[soapstone_service::service(name = "EchoFloat", namespace = "http://tempuri.org/")]
pub trait SamRuby {
    /// Echoes `input` as `result` inside `echoFloatResult`.
    #[soap(response = "echoFloatResult", result = "result")]
    async fn echo_float(&self, input: f32) -> Result<f32, Fault>;
}

impl SamRuby for super::interop::Echo {
    async fn echo_float(&self, input: f32) -> Result<f32, Fault> {
        Ok(input)
    }
}
