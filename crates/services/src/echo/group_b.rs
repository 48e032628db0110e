//! SOAPBuilders Interop Lab Round 2, group B: five operations on structs, nested structs and a
//! two-dimensional array, rpc/encoded in `http://soapinterop.org/` (`r2-interopB.wsdl`).
//!
//! `echoStructAsSimpleTypes` answers with three parts (`outputString`, `outputInteger`,
//! `outputFloat`): a tuple result named by `#[soap(result = "..")]`.
//!
//! Must never: change a value it echoes.

use serde::{Deserialize, Serialize};
use soapstone_service::Fault;

use super::interop::{Echo, SoapStruct};

/// `s:SOAPStructStruct`: a SOAPStruct's fields plus a nested SOAPStruct.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, soapstone_service::XsdType)]
#[serde(rename = "SOAPStructStruct", rename_all = "camelCase")]
pub struct SoapStructStruct {
    /// `varString`.
    pub var_string: String,
    /// `varInt`.
    pub var_int: i32,
    /// `varFloat`.
    pub var_float: f32,
    /// `varStruct`.
    pub var_struct: SoapStruct,
}

/// `s:SOAPArrayStruct`: a SOAPStruct's fields plus an array of strings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, soapstone_service::XsdType)]
#[serde(rename = "SOAPArrayStruct", rename_all = "camelCase")]
pub struct SoapArrayStruct {
    /// `varString`.
    pub var_string: String,
    /// `varInt`.
    pub var_int: i32,
    /// `varFloat`.
    pub var_float: f32,
    /// `varArray`.
    #[serde(default)]
    pub var_array: Vec<String>,
}

/// SOAPBuilders Interop Lab Round 2, group B
#[soapstone_service::service(
    name = "InteropTestB",
    namespace = "http://soapinterop.org/",
    style = "rpc"
)]
pub trait GroupB {
    /// Answers a SOAPStruct's fields as three parts.
    #[soap(result = "outputString, outputInteger, outputFloat")]
    async fn echo_struct_as_simple_types(
        &self,
        input_struct: SoapStruct,
    ) -> Result<(String, i32, f32), Fault>;
    /// Answers three parts as a SOAPStruct.
    async fn echo_simple_types_as_struct(
        &self,
        input_string: String,
        input_integer: i32,
        input_float: f32,
    ) -> Result<SoapStruct, Fault>;
    /// Echoes a two-dimensional array of strings (rows of equal length).
    #[soap(name = "echo2DStringArray")]
    async fn echo_2d_string_array(
        &self,
        #[soap(name = "input2DStringArray")] input: Vec<Vec<String>>,
    ) -> Result<Vec<Vec<String>>, Fault>;
    /// Echoes a struct holding a struct.
    async fn echo_nested_struct(
        &self,
        input_struct: SoapStructStruct,
    ) -> Result<SoapStructStruct, Fault>;
    /// Echoes a struct holding an array.
    async fn echo_nested_array(
        &self,
        input_struct: SoapArrayStruct,
    ) -> Result<SoapArrayStruct, Fault>;
}

/// The request element names of group B (for routing on a namespace shared with the base group).
pub fn operations() -> Vec<&'static str> {
    group_b_model()
        .operations
        .iter()
        .map(|op| op.request.as_str())
        .collect()
}

impl GroupB for Echo {
    async fn echo_struct_as_simple_types(
        &self,
        s: SoapStruct,
    ) -> Result<(String, i32, f32), Fault> {
        Ok((s.var_string, s.var_int, s.var_float))
    }
    async fn echo_simple_types_as_struct(
        &self,
        var_string: String,
        var_int: i32,
        var_float: f32,
    ) -> Result<SoapStruct, Fault> {
        Ok(SoapStruct {
            var_string,
            var_int,
            var_float,
        })
    }
    async fn echo_2d_string_array(&self, v: Vec<Vec<String>>) -> Result<Vec<Vec<String>>, Fault> {
        Ok(v)
    }
    async fn echo_nested_struct(&self, v: SoapStructStruct) -> Result<SoapStructStruct, Fault> {
        Ok(v)
    }
    async fn echo_nested_array(&self, v: SoapArrayStruct) -> Result<SoapArrayStruct, Fault> {
        Ok(v)
    }
}
