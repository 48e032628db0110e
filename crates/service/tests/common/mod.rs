//! Shared by the end-to-end tests: the Echo service (every XSD type the macros support) in
//! both styles, and a real soapstone server on a loopback port.
#![allow(dead_code, unreachable_pub)]

use std::net::SocketAddr;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use soapstone_service::codec::xsd;
use soapstone_service::{service, Fault, SoapService, XsdType};

/// SOAPBuilders' SOAPStruct.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, XsdType)]
#[serde(rename_all = "camelCase")]
pub struct SoapStruct {
    pub var_string: String,
    pub var_int: i32,
    pub var_float: f32,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, XsdType)]
pub enum Color {
    Red,
    Green,
    #[serde(rename = "deep-blue")]
    Blue,
}

/// One of everything, nested.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, XsdType)]
pub struct Everything {
    pub byte: i8,
    pub short: i16,
    pub int: i32,
    pub long: i64,
    pub ubyte: u8,
    pub ushort: u16,
    pub uint: u32,
    pub ulong: u64,
    pub float: f32,
    pub double: f64,
    pub boolean: bool,
    pub text: String,
    pub maybe: Option<String>,
    #[serde(default)]
    pub ints: Vec<i32>,
    pub color: Color,
    #[serde(default)]
    pub structs: Vec<SoapStruct>,
    pub child: Option<Box<Everything>>,
    pub values: Option<Values>,
}

/// The codec's XSD value types.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, XsdType)]
#[serde(rename_all = "camelCase")]
pub struct Values {
    pub date_time: xsd::DateTime,
    pub date: xsd::Date,
    pub time: xsd::Time,
    pub decimal: xsd::Decimal,
    pub base64: xsd::Base64Binary,
    pub hex: xsd::HexBinary,
    pub uri: xsd::AnyUri,
    pub qname: xsd::QNameValue,
}

macro_rules! echo_service {
    ($trait:ident, $name:tt, $style:tt) => {
        /// Echoes what it is sent.
        #[service(name = $name, namespace = "http://soapinterop.org/", style = $style)]
        pub trait $trait {
            async fn echo_string(&self, input_string: String) -> Result<String, Fault>;
            async fn echo_int(&self, input_int: i32) -> Result<i32, Fault>;
            async fn echo_long(&self, input_long: i64) -> Result<i64, Fault>;
            async fn echo_byte(&self, input_byte: i8) -> Result<i8, Fault>;
            async fn echo_short(&self, input_short: i16) -> Result<i16, Fault>;
            async fn echo_unsigned_long(&self, input: u64) -> Result<u64, Fault>;
            async fn echo_unsigned_byte(&self, input: u8) -> Result<u8, Fault>;
            async fn echo_float(&self, input_float: f32) -> Result<f32, Fault>;
            async fn echo_double(&self, input_double: f64) -> Result<f64, Fault>;
            async fn echo_boolean(&self, input_boolean: bool) -> Result<bool, Fault>;
            async fn echo_struct(&self, input_struct: SoapStruct) -> Result<SoapStruct, Fault>;
            async fn echo_struct_array(
                &self,
                input_struct_array: Vec<SoapStruct>,
            ) -> Result<Vec<SoapStruct>, Fault>;
            async fn echo_integer_array(
                &self,
                input_integer_array: Vec<i32>,
            ) -> Result<Vec<i32>, Fault>;
            async fn echo_string_array(
                &self,
                input_string_array: Vec<String>,
            ) -> Result<Vec<String>, Fault>;
            async fn echo_2d_string_array(
                &self,
                input: Vec<Vec<String>>,
            ) -> Result<Vec<Vec<String>>, Fault>;
            async fn echo_optional(&self, input: Option<String>) -> Result<Option<String>, Fault>;
            async fn echo_color(&self, input: Color) -> Result<Color, Fault>;
            async fn echo_everything(&self, input: Everything) -> Result<Everything, Fault>;
            async fn echo_values(&self, input: Values) -> Result<Values, Fault>;
            async fn echo_date_time(&self, input: xsd::DateTime) -> Result<xsd::DateTime, Fault>;
            async fn echo_base64(
                &self,
                input: xsd::Base64Binary,
            ) -> Result<xsd::Base64Binary, Fault>;
            async fn echo_decimal(&self, input: xsd::Decimal) -> Result<xsd::Decimal, Fault>;
            async fn echo_void(&self) -> Result<(), Fault>;
            /// Sam Ruby's 2001 shape: `echoFloatResult` holding `result`.
            #[soap(
                name = "echoFloatRuby",
                response = "echoFloatResult",
                result = "result"
            )]
            async fn echo_float_ruby(&self, input: f32) -> Result<f32, Fault>;
            async fn fail(&self, reason: String) -> Result<(), Fault>;
        }

        impl $trait for Echo {
            async fn echo_string(&self, v: String) -> Result<String, Fault> {
                Ok(v)
            }
            async fn echo_int(&self, v: i32) -> Result<i32, Fault> {
                Ok(v)
            }
            async fn echo_long(&self, v: i64) -> Result<i64, Fault> {
                Ok(v)
            }
            async fn echo_byte(&self, v: i8) -> Result<i8, Fault> {
                Ok(v)
            }
            async fn echo_short(&self, v: i16) -> Result<i16, Fault> {
                Ok(v)
            }
            async fn echo_unsigned_long(&self, v: u64) -> Result<u64, Fault> {
                Ok(v)
            }
            async fn echo_unsigned_byte(&self, v: u8) -> Result<u8, Fault> {
                Ok(v)
            }
            async fn echo_float(&self, v: f32) -> Result<f32, Fault> {
                Ok(v)
            }
            async fn echo_double(&self, v: f64) -> Result<f64, Fault> {
                Ok(v)
            }
            async fn echo_boolean(&self, v: bool) -> Result<bool, Fault> {
                Ok(v)
            }
            async fn echo_struct(&self, v: SoapStruct) -> Result<SoapStruct, Fault> {
                Ok(v)
            }
            async fn echo_struct_array(
                &self,
                v: Vec<SoapStruct>,
            ) -> Result<Vec<SoapStruct>, Fault> {
                Ok(v)
            }
            async fn echo_integer_array(&self, v: Vec<i32>) -> Result<Vec<i32>, Fault> {
                Ok(v)
            }
            async fn echo_string_array(&self, v: Vec<String>) -> Result<Vec<String>, Fault> {
                Ok(v)
            }
            async fn echo_2d_string_array(
                &self,
                v: Vec<Vec<String>>,
            ) -> Result<Vec<Vec<String>>, Fault> {
                Ok(v)
            }
            async fn echo_optional(&self, v: Option<String>) -> Result<Option<String>, Fault> {
                Ok(v)
            }
            async fn echo_color(&self, v: Color) -> Result<Color, Fault> {
                Ok(v)
            }
            async fn echo_everything(&self, v: Everything) -> Result<Everything, Fault> {
                Ok(v)
            }
            async fn echo_values(&self, v: Values) -> Result<Values, Fault> {
                Ok(v)
            }
            async fn echo_date_time(&self, v: xsd::DateTime) -> Result<xsd::DateTime, Fault> {
                Ok(v)
            }
            async fn echo_base64(&self, v: xsd::Base64Binary) -> Result<xsd::Base64Binary, Fault> {
                Ok(v)
            }
            async fn echo_decimal(&self, v: xsd::Decimal) -> Result<xsd::Decimal, Fault> {
                Ok(v)
            }
            async fn echo_void(&self) -> Result<(), Fault> {
                Ok(())
            }
            async fn echo_float_ruby(&self, v: f32) -> Result<f32, Fault> {
                Ok(v)
            }
            async fn fail(&self, reason: String) -> Result<(), Fault> {
                Err(Fault::server(reason))
            }
        }
    };
}

/// The implementation of both styles.
pub struct Echo;

/// The thesis's charging service (rpc/encoded, ints only: its WSDL names no SOAP-ENC type).
#[service(name = "Charging", namespace = "urn:charging", style = "rpc")]
pub trait Charging {
    async fn reserve(&self, id: i32, am: i32) -> Result<i32, Fault>;
    #[soap(name = "releaseRes")]
    async fn release(&self, res: i32) -> Result<bool, Fault>;
    async fn credit_control(&self, id: i32) -> Result<i64, Fault>;
}

pub struct Bank;

impl Charging for Bank {
    async fn reserve(&self, id: i32, am: i32) -> Result<i32, Fault> {
        Ok(id * 10_000 + am)
    }
    async fn release(&self, res: i32) -> Result<bool, Fault> {
        Ok(res % 2 == 0)
    }
    async fn credit_control(&self, id: i32) -> Result<i64, Fault> {
        if id < 0 {
            return Err(Fault::client(format!("no account `{id}`")));
        }
        Ok(i64::from(id) * 100)
    }
}

echo_service!(EchoLiteral, "EchoLiteral", "document");
echo_service!(EchoEncoded, "EchoEncoded", "rpc");

/// A running soapstone server with both Echo services mounted at `/literal` and `/encoded`,
/// and Charging at `/charging`.
pub struct Running {
    pub addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Running {
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Starts the server on its own thread and runtime (so tests may block on other processes).
pub fn start() -> Running {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let literal: Arc<dyn SoapService> = Arc::new(EchoLiteralServer::new(Echo));
    let encoded: Arc<dyn SoapService> = Arc::new(EchoEncodedServer::new(Echo));
    let charging: Arc<dyn SoapService> = Arc::new(ChargingServer::new(Bank));
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = soapstone_server::Server::builder()
        .mount("/literal", literal)
        .mount("/encoded", encoded)
        .mount("/charging", charging)
        .serve_with_shutdown(listener, async move {
            let _ = stopped.await;
        })
        .unwrap();
    let addr = serving.local_addr();
    let thread = std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(std::future::IntoFuture::into_future(serving))
            .unwrap();
    });
    Running {
        addr,
        stop: Some(stop),
        thread: Some(thread),
    }
}

/// A sample of every value type.
pub fn values() -> Values {
    Values {
        date_time: "2001-04-18T02:14:58Z".parse().unwrap(),
        date: "2008-02-29".parse().unwrap(),
        time: "23:59:59.5".parse().unwrap(),
        decimal: "-1234567890.000000001".parse().unwrap(),
        base64: xsd::Base64Binary(vec![0, 1, 2, 254, 255]),
        hex: xsd::HexBinary(vec![0xde, 0xad, 0xbe, 0xef]),
        uri: xsd::AnyUri("http://example.org/a?b=c&d".into()),
        qname: xsd::QNameValue(soapstone_service::QName::new("urn:q", "local")),
    }
}
