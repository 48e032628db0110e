//! SOAPBuilders Interop Lab Round 2, group B: five operations on structs, nested structs and a
//! two-dimensional array, rpc/encoded in `http://soapinterop.org/` (`r2-interopB.wsdl`).
//!
//! HAND-WRITTEN, not `#[service]`: `echoStructAsSimpleTypes` answers with three parts
//! (`outputString`, `outputInteger`, `outputFloat`) and the macro gives an operation one result
//! part. So the service model is built here and served through the same runtime the macro uses
//! (`soapstone_service::codegen::Dispatcher`, `Stub`): same envelope checks, faults and WSDL.
//! Move it to `#[service]` once the macro can return several parts.
//!
//! Must never: change a value it echoes.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};
use soapstone_service::codegen::{Dispatcher, Stub};
use soapstone_service::wsdl::{BindingStyle, OperationModel, Part, ServiceModel, XsdType};
use soapstone_service::{BoxFuture, Fault, ServiceConfig, SoapRequest, SoapResponse, SoapService};

use super::interop::{SoapStruct, NAMESPACE};

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

/// The three parts `echoStructAsSimpleTypes` answers with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SimpleTypes {
    /// `outputString`.
    pub output_string: String,
    /// `outputInteger`.
    pub output_integer: i32,
    /// `outputFloat`.
    pub output_float: f32,
}

#[derive(Serialize, Deserialize)]
struct InputStruct<T> {
    #[serde(rename = "inputStruct")]
    input_struct: T,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct SimpleInputs {
    input_string: String,
    input_integer: i32,
    input_float: f32,
}

#[derive(Serialize, Deserialize)]
struct Input2D {
    #[serde(rename = "input2DStringArray", default)]
    input: Vec<Vec<String>>,
}

#[derive(Serialize, Deserialize)]
struct Return<T> {
    #[serde(rename = "return")]
    value: T,
}

const OPS: [&str; 5] = [
    "echoStructAsSimpleTypes",
    "echoSimpleTypesAsStruct",
    "echo2DStringArray",
    "echoNestedStruct",
    "echoNestedArray",
];

/// The request element names of group B (for routing on a shared namespace).
pub fn operations() -> &'static [&'static str] {
    &OPS
}

/// The service model of group B (what its WSDL is generated from).
pub fn group_b_model() -> &'static ServiceModel {
    static MODEL: OnceLock<ServiceModel> = OnceLock::new();
    MODEL.get_or_init(|| {
        let mut m = ServiceModel::new("InteropTestB", NAMESPACE, BindingStyle::RpcEncoded);
        m.documentation = Some("SOAPBuilders Interop Lab Round 2, group B".into());
        let s = &mut m.schema;
        let st = SoapStruct::describe(s);
        let ops = vec![
            (
                OPS[0],
                vec![Part::new("inputStruct", st.clone())],
                vec![
                    Part::new("outputString", String::describe(s)),
                    Part::new("outputInteger", i32::describe(s)),
                    Part::new("outputFloat", f32::describe(s)),
                ],
            ),
            (
                OPS[1],
                vec![
                    Part::new("inputString", String::describe(s)),
                    Part::new("inputInteger", i32::describe(s)),
                    Part::new("inputFloat", f32::describe(s)),
                ],
                vec![Part::new("return", st)],
            ),
            {
                let a = Vec::<Vec<String>>::describe(s);
                (
                    OPS[2],
                    vec![Part::new("input2DStringArray", a.clone())],
                    vec![Part::new("return", a)],
                )
            },
            {
                let t = SoapStructStruct::describe(s);
                (
                    OPS[3],
                    vec![Part::new("inputStruct", t.clone())],
                    vec![Part::new("return", t)],
                )
            },
            {
                let t = SoapArrayStruct::describe(s);
                (
                    OPS[4],
                    vec![Part::new("inputStruct", t.clone())],
                    vec![Part::new("return", t)],
                )
            },
        ];
        for (name, input, output) in ops {
            let mut op = OperationModel::new(name, format!("{NAMESPACE}{name}"));
            op.input = input;
            op.output = output;
            m.operations.push(op);
        }
        m
    })
}

/// Group B served over [`Dispatcher`], a `SoapService`.
#[derive(Debug)]
pub struct GroupBServer {
    dispatcher: std::sync::Arc<Dispatcher>,
}

impl Default for GroupBServer {
    fn default() -> Self {
        GroupBServer::new(ServiceConfig::default())
    }
}

impl GroupBServer {
    /// The service with these settings.
    pub fn new(config: ServiceConfig) -> Self {
        GroupBServer {
            dispatcher: std::sync::Arc::new(Dispatcher::new(group_b_model(), config, &[false; 5])),
        }
    }
}

fn answer<Req, Resp>(
    d: &Dispatcher,
    incoming: soapstone_service::codegen::Incoming<'_>,
    f: impl FnOnce(Req) -> Resp,
) -> SoapResponse
where
    Req: serde::de::DeserializeOwned + Serialize,
    Resp: Serialize,
{
    match incoming.decode::<Req>() {
        Ok((req, reply)) => d.reply::<Resp>(reply, Ok::<Resp, Fault>(f(req))),
        Err(response) => response,
    }
}

impl SoapService for GroupBServer {
    fn name(&self) -> &str {
        &self.dispatcher.model().name
    }

    fn document(&self, query: &str, endpoint: &str) -> Option<String> {
        soapstone_service::wsdl::document(self.dispatcher.model(), query, endpoint)
    }

    fn call(&self, request: SoapRequest) -> BoxFuture<SoapResponse> {
        let d = self.dispatcher.clone();
        Box::pin(async move {
            let incoming = match d.open(&request) {
                Ok(i) => i,
                Err(response) => return response,
            };
            match incoming.operation() {
                0 => answer(&d, incoming, |r: InputStruct<SoapStruct>| SimpleTypes {
                    output_string: r.input_struct.var_string,
                    output_integer: r.input_struct.var_int,
                    output_float: r.input_struct.var_float,
                }),
                1 => answer(&d, incoming, |r: SimpleInputs| Return {
                    value: SoapStruct {
                        var_string: r.input_string,
                        var_int: r.input_integer,
                        var_float: r.input_float,
                    },
                }),
                2 => answer(&d, incoming, |r: Input2D| Return { value: r.input }),
                3 => answer(&d, incoming, |r: InputStruct<SoapStructStruct>| Return {
                    value: r.input_struct,
                }),
                4 => answer(&d, incoming, |r: InputStruct<SoapArrayStruct>| Return {
                    value: r.input_struct,
                }),
                _ => soapstone_service::codegen::fault_response(
                    incoming.version(),
                    None,
                    &Fault::server("operation index out of range in `InteropTestB`"),
                ),
            }
        })
    }
}

/// A typed client of group B (hand-written like the server; same runtime as generated clients).
#[derive(Debug, Clone)]
pub struct GroupBClient {
    stub: Stub,
}

type CallResult<T> = Result<T, soapstone_client::Error>;

impl GroupBClient {
    /// A client of the service at `url` (`http://host:port/echo`).
    pub fn new(url: &str) -> CallResult<Self> {
        Ok(GroupBClient {
            stub: Stub::new(soapstone_client::Client::new(url)?, group_b_model()),
        })
    }

    /// `echoStructAsSimpleTypes`.
    pub async fn echo_struct_as_simple_types(
        &self,
        input_struct: SoapStruct,
    ) -> CallResult<SimpleTypes> {
        self.stub.call(0, &InputStruct { input_struct }).await
    }

    /// `echoSimpleTypesAsStruct`.
    pub async fn echo_simple_types_as_struct(
        &self,
        s: String,
        i: i32,
        f: f32,
    ) -> CallResult<SoapStruct> {
        let r: Return<SoapStruct> = self
            .stub
            .call(
                1,
                &SimpleInputs {
                    input_string: s,
                    input_integer: i,
                    input_float: f,
                },
            )
            .await?;
        Ok(r.value)
    }

    /// `echo2DStringArray` (rows of equal length).
    pub async fn echo_2d_string_array(
        &self,
        input: Vec<Vec<String>>,
    ) -> CallResult<Vec<Vec<String>>> {
        let r: Return<Vec<Vec<String>>> = self.stub.call(2, &Input2D { input }).await?;
        Ok(r.value)
    }

    /// `echoNestedStruct`.
    pub async fn echo_nested_struct(
        &self,
        input_struct: SoapStructStruct,
    ) -> CallResult<SoapStructStruct> {
        let r: Return<SoapStructStruct> = self.stub.call(3, &InputStruct { input_struct }).await?;
        Ok(r.value)
    }

    /// `echoNestedArray`.
    pub async fn echo_nested_array(
        &self,
        input_struct: SoapArrayStruct,
    ) -> CallResult<SoapArrayStruct> {
        let r: Return<SoapArrayStruct> = self.stub.call(4, &InputStruct { input_struct }).await?;
        Ok(r.value)
    }
}
