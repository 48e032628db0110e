//! What `xsi:type` on every encoded array item (`ServiceConfig::array_item_types`) costs a
//! generated rpc/encoded server: a whole `SoapService::call` (parse, dispatch, encode) of an
//! echo of 100 ints and of 100 SOAPStructs, with the option off and on. The response grows by
//! `xsi:type="xsd:int"` (19 bytes) per simple item and `xsi:type="ns1:SOAPStruct"`-like per
//! struct item; the bench prints both sizes once.
//!
//! `cargo bench -p soapstone-service --bench item_types`

use std::task::{Context, Poll, Waker};

use bytes::Bytes;
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use serde::{Deserialize, Serialize};
use soapstone_service::{
    service, Fault, ServiceConfig, SoapRequest, SoapService, Version, XsdType,
};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, XsdType)]
#[serde(rename = "SOAPStruct", rename_all = "camelCase")]
pub struct SoapStruct {
    pub var_string: String,
    pub var_int: i32,
    pub var_float: f32,
}

#[service(
    name = "InteropTest",
    namespace = "http://soapinterop.org/",
    style = "rpc"
)]
pub trait Interop {
    #[soap(result = "outputIntegerArray")]
    async fn echo_integer_array(&self, input_integer_array: Vec<i32>) -> Result<Vec<i32>, Fault>;
    #[soap(result = "outputStructArray")]
    async fn echo_struct_array(
        &self,
        input_struct_array: Vec<SoapStruct>,
    ) -> Result<Vec<SoapStruct>, Fault>;
}

struct Echo;

impl Interop for Echo {
    async fn echo_integer_array(&self, v: Vec<i32>) -> Result<Vec<i32>, Fault> {
        Ok(v)
    }
    async fn echo_struct_array(&self, v: Vec<SoapStruct>) -> Result<Vec<SoapStruct>, Fault> {
        Ok(v)
    }
}

fn envelope(body: &str) -> Bytes {
    Bytes::from(format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<SOAP-ENV:Envelope xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/" xmlns:ns1="http://soapinterop.org/" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:SOAP-ENC="http://schemas.xmlsoap.org/soap/encoding/" SOAP-ENV:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"><SOAP-ENV:Body>{body}</SOAP-ENV:Body></SOAP-ENV:Envelope>"#
    ))
}

fn ints(n: usize) -> Bytes {
    let items: String = (0..n)
        .map(|i| format!("<item xsi:type=\"xsd:int\">{}</item>", i * 7919))
        .collect();
    envelope(&format!(
        r#"<ns1:echoIntegerArray><inputIntegerArray SOAP-ENC:arrayType="xsd:int[{n}]" xsi:type="SOAP-ENC:Array">{items}</inputIntegerArray></ns1:echoIntegerArray>"#
    ))
}

fn structs(n: usize) -> Bytes {
    let items: String = (0..n)
        .map(|i| format!("<item xsi:type=\"ns1:SOAPStruct\"><varString xsi:type=\"xsd:string\">arg{i}</varString><varInt xsi:type=\"xsd:int\">{i}</varInt><varFloat xsi:type=\"xsd:float\">325.325</varFloat></item>"))
        .collect();
    envelope(&format!(
        r#"<ns1:echoStructArray><inputStructArray SOAP-ENC:arrayType="ns1:SOAPStruct[{n}]" xsi:type="SOAP-ENC:Array">{items}</inputStructArray></ns1:echoStructArray>"#
    ))
}

/// The service's futures finish on their first poll (nothing in them waits): no runtime needed.
fn call(service: &dyn SoapService, body: &Bytes) -> Bytes {
    let request = SoapRequest::new(Version::Soap11, None, body.clone());
    let mut future = service.call(request);
    match future
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    {
        Poll::Ready(response) => {
            assert!(!response.fault, "{:?}", response.body);
            response.body
        }
        Poll::Pending => panic!("the echo service never waits"),
    }
}

fn item_types(c: &mut Criterion) {
    for (name, body) in [("ints100", ints(100)), ("structs100", structs(100))] {
        let mut group = c.benchmark_group(format!("item_types/{name}"));
        group.throughput(Throughput::Elements(1));
        for on in [false, true] {
            let server =
                InteropServer::new(Echo).with_config(ServiceConfig::default().array_item_types(on));
            let size = call(&server, &body).len();
            eprintln!("item_types/{name}/{on}: response {size} bytes");
            group.bench_function(if on { "on" } else { "off" }, |b| {
                b.iter(|| call(&server, black_box(&body)))
            });
        }
        group.finish();
    }
}

criterion_group!(benches, item_types);
criterion_main!(benches);
