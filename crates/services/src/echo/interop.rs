//! SOAPBuilders Interop Lab Round 2, base group: fourteen echo operations, rpc/encoded in
//! `http://soapinterop.org/`, the parameter and result names of
//! `testdata/soapbuilders-round2-wsdl/r2-interop.wsdl` (`inputString` -> `outputString`).
//!
//! Must never: change a value it echoes (floats go back in their shortest exact form).

use serde::{Deserialize, Serialize};
use soapstone_codec::Fault;

pub use soapstone_codec::xsd::{Base64Binary, DateTime, Decimal, HexBinary};

/// The SOAPBuilders namespace.
pub const NAMESPACE: &str = "http://soapinterop.org/";

/// `s:SOAPStruct` of the Round 2 WSDLs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, soapstone_service::XsdType)]
#[serde(rename = "SOAPStruct", rename_all = "camelCase")]
pub struct SoapStruct {
    /// `varString`.
    pub var_string: String,
    /// `varInt`.
    pub var_int: i32,
    /// `varFloat`.
    pub var_float: f32,
}

/// The Round 2 base operations.
#[soapstone_service::service(
    name = "InteropTest",
    namespace = "http://soapinterop.org/",
    style = "rpc"
)]
pub trait Interop {
    /// Echoes a string (nil stays nil).
    #[soap(result = "outputString")]
    async fn echo_string(&self, input_string: Option<String>) -> Result<Option<String>, Fault>;
    /// Echoes an array of strings (nil stays nil).
    #[soap(result = "outputStringArray")]
    async fn echo_string_array(
        &self,
        input_string_array: Option<Vec<String>>,
    ) -> Result<Option<Vec<String>>, Fault>;
    /// Echoes an int.
    #[soap(result = "outputInteger")]
    async fn echo_integer(&self, input_integer: i32) -> Result<i32, Fault>;
    /// Echoes an array of ints.
    #[soap(result = "outputIntegerArray")]
    async fn echo_integer_array(&self, input_integer_array: Vec<i32>) -> Result<Vec<i32>, Fault>;
    /// Echoes a float.
    #[soap(result = "outputFloat")]
    async fn echo_float(&self, input_float: f32) -> Result<f32, Fault>;
    /// Echoes an array of floats.
    #[soap(result = "outputFloatArray")]
    async fn echo_float_array(&self, input_float_array: Vec<f32>) -> Result<Vec<f32>, Fault>;
    /// Echoes a SOAPStruct.
    #[soap(result = "outputStruct")]
    async fn echo_struct(&self, input_struct: SoapStruct) -> Result<SoapStruct, Fault>;
    /// Echoes an array of SOAPStructs.
    #[soap(result = "outputStructArray")]
    async fn echo_struct_array(
        &self,
        input_struct_array: Vec<SoapStruct>,
    ) -> Result<Vec<SoapStruct>, Fault>;
    /// Does nothing.
    async fn echo_void(&self) -> Result<(), Fault>;
    /// Echoes base64 binary.
    #[soap(result = "outputBase64")]
    async fn echo_base64(&self, input_base64: Base64Binary) -> Result<Base64Binary, Fault>;
    /// Echoes a dateTime.
    #[soap(result = "outputDate")]
    async fn echo_date(&self, input_date: DateTime) -> Result<DateTime, Fault>;
    /// Echoes hex binary.
    #[soap(result = "outputHexBinary")]
    async fn echo_hex_binary(&self, input_hex_binary: HexBinary) -> Result<HexBinary, Fault>;
    /// Echoes a decimal.
    #[soap(result = "outputDecimal")]
    async fn echo_decimal(&self, input_decimal: Decimal) -> Result<Decimal, Fault>;
    /// Echoes a boolean.
    #[soap(result = "outputBoolean")]
    async fn echo_boolean(&self, input_boolean: bool) -> Result<bool, Fault>;
}

/// The echo implementation (stateless).
#[derive(Debug, Clone, Copy, Default)]
pub struct Echo;

impl Interop for Echo {
    async fn echo_string(&self, v: Option<String>) -> Result<Option<String>, Fault> {
        Ok(v)
    }
    async fn echo_string_array(
        &self,
        v: Option<Vec<String>>,
    ) -> Result<Option<Vec<String>>, Fault> {
        Ok(v)
    }
    async fn echo_integer(&self, v: i32) -> Result<i32, Fault> {
        Ok(v)
    }
    async fn echo_integer_array(&self, v: Vec<i32>) -> Result<Vec<i32>, Fault> {
        Ok(v)
    }
    async fn echo_float(&self, v: f32) -> Result<f32, Fault> {
        Ok(v)
    }
    async fn echo_float_array(&self, v: Vec<f32>) -> Result<Vec<f32>, Fault> {
        Ok(v)
    }
    async fn echo_struct(&self, v: SoapStruct) -> Result<SoapStruct, Fault> {
        Ok(v)
    }
    async fn echo_struct_array(&self, v: Vec<SoapStruct>) -> Result<Vec<SoapStruct>, Fault> {
        Ok(v)
    }
    async fn echo_void(&self) -> Result<(), Fault> {
        Ok(())
    }
    async fn echo_base64(&self, v: Base64Binary) -> Result<Base64Binary, Fault> {
        Ok(v)
    }
    async fn echo_date(&self, v: DateTime) -> Result<DateTime, Fault> {
        Ok(v)
    }
    async fn echo_hex_binary(&self, v: HexBinary) -> Result<HexBinary, Fault> {
        Ok(v)
    }
    async fn echo_decimal(&self, v: Decimal) -> Result<Decimal, Fault> {
        Ok(v)
    }
    async fn echo_boolean(&self, v: bool) -> Result<bool, Fault> {
        Ok(v)
    }
}
