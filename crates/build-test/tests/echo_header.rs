//! SOAP-encoded header blocks in generated code (SOAPBuilders Round 2 group C,
//! `r2-echoheadersvc.wsdl`, `soap:header use="encoded"`): the generated client sends them typed,
//! the generated server reads them as typed parameters and answers the group C way (each
//! request block echoed as its response block), over HTTP; the wire carries `xsi:type` and
//! `encodingStyle` on the blocks (raw bytes over a TcpStream); the WSDL served back declares
//! the blocks encoded again. `php.rs` calls PHP's SoapServer with the same client.

mod support;

use std::sync::Arc;

use soapstone_build_test::echo_header::{
    EchoMeStringRequest, EchoMeStringResponse, EchoMeStructRequest, EchoMeStructResponse,
    InteropLabEchoHeader, InteropLabEchoHeaderClient, InteropLabEchoHeaderServer, SOAPStruct,
};
use soapstone_server::Server;
use soapstone_service::codegen::codec::xsd::{Base64Binary, DateTime, Decimal, HexBinary};
use soapstone_service::{Context, Fault};

struct Echo;

/// The group C rule: each request header block comes back as its response block.
#[allow(clippy::result_large_err)] // handlers return `Fault`; `?` needs the same here
fn echo_headers(
    ctx: &Context,
    s: Option<EchoMeStringRequest>,
    st: Option<EchoMeStructRequest>,
) -> Result<(), Fault> {
    if let Some(EchoMeStringRequest(s)) = s {
        ctx.set_header(&EchoMeStringResponse(s))?;
    }
    if let Some(EchoMeStructRequest(st)) = st {
        ctx.set_header(&EchoMeStructResponse(st))?;
    }
    Ok(())
}

macro_rules! echoes {
    ($($name:ident($ty:ty);)*) => {
        impl InteropLabEchoHeader for Echo {
            $(
                async fn $name(
                    &self,
                    ctx: &Context,
                    value: $ty,
                    s: Option<EchoMeStringRequest>,
                    st: Option<EchoMeStructRequest>,
                ) -> Result<$ty, Fault> {
                    echo_headers(ctx, s, st)?;
                    Ok(value)
                }
            )*
            async fn echo_void(
                &self,
                ctx: &Context,
                s: Option<EchoMeStringRequest>,
                st: Option<EchoMeStructRequest>,
            ) -> Result<(), Fault> {
                echo_headers(ctx, s, st)
            }
        }
    };
}

echoes! {
    echo_string(String);
    echo_string_array(Vec<String>);
    echo_integer(i32);
    echo_integer_array(Vec<i32>);
    echo_float(f32);
    echo_float_array(Vec<f32>);
    echo_struct(SOAPStruct);
    echo_struct_array(Vec<SOAPStruct>);
    echo_base64(Base64Binary);
    echo_date(DateTime);
    echo_hex_binary(HexBinary);
    echo_decimal(Decimal);
    echo_boolean(bool);
}

async fn serve() -> (std::net::SocketAddr, tokio::sync::oneshot::Sender<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let serving = Server::builder()
        .mount(
            "/echoheader",
            Arc::new(InteropLabEchoHeaderServer::new(Echo)),
        )
        .serve_with_shutdown(listener, async move {
            let _ = rx.await;
        })
        .unwrap();
    let addr = serving.local_addr();
    tokio::spawn(std::future::IntoFuture::into_future(serving));
    (addr, tx)
}

fn soap_struct() -> SOAPStruct {
    SOAPStruct {
        var_string: "h & <i>".into(),
        var_int: 3,
        var_float: 0.5,
    }
}

#[tokio::test]
async fn the_generated_client_and_server_exchange_encoded_header_blocks() {
    let (addr, _stop) = serve().await;
    let url = format!("http://{addr}/echoheader");
    for client in [
        InteropLabEchoHeaderClient::new(&url).unwrap(),
        InteropLabEchoHeaderClient::new(&url).unwrap().soap12(),
    ] {
        let answer = client
            .echo_string(
                "body".into(),
                Some(EchoMeStringRequest("from the header".into())),
                None,
            )
            .await
            .unwrap();
        assert_eq!(answer.value, "body");
        assert_eq!(
            answer.headers.get::<EchoMeStringResponse>().unwrap(),
            Some(EchoMeStringResponse("from the header".into()))
        );
        assert_eq!(answer.headers.get::<EchoMeStructResponse>().unwrap(), None);

        let answer = client
            .echo_integer(5, None, Some(EchoMeStructRequest(soap_struct())))
            .await
            .unwrap();
        assert_eq!(answer.value, 5);
        assert_eq!(
            answer.headers.get::<EchoMeStructResponse>().unwrap(),
            Some(EchoMeStructResponse(soap_struct()))
        );
        // Both at once, and a call without any.
        let answer = client
            .echo_void(
                Some(EchoMeStringRequest("a".into())),
                Some(EchoMeStructRequest(soap_struct())),
            )
            .await
            .unwrap();
        assert!(answer
            .headers
            .get::<EchoMeStringResponse>()
            .unwrap()
            .is_some());
        assert!(answer
            .headers
            .get::<EchoMeStructResponse>()
            .unwrap()
            .is_some());
        let answer = client.echo_boolean(true, None, None).await.unwrap();
        assert!(answer.value);
        assert!(answer.headers.names().is_empty());
    }
}

#[tokio::test]
async fn encoded_blocks_travel_typed_on_the_wire() {
    let (addr, _stop) = serve().await;
    // What a SOAPBuilders client sends (the block's type declared on it, prefixes of its own).
    let body = r#"<?xml version="1.0"?>
<SOAP-ENV:Envelope xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:SOAP-ENC="http://schemas.xmlsoap.org/soap/encoding/">
<SOAP-ENV:Header>
<h:echoMeStructRequest xmlns:h="http://soapinterop.org/echoheader/" xmlns:s="http://soapinterop.org/xsd" SOAP-ENV:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/" SOAP-ENV:mustUnderstand="1" xsi:type="s:SOAPStruct"><varString xsi:type="xsd:string">raw</varString><varInt xsi:type="xsd:int">9</varInt><varFloat xsi:type="xsd:float">1.5</varFloat></h:echoMeStructRequest>
</SOAP-ENV:Header>
<SOAP-ENV:Body><m:echoString xmlns:m="http://soapinterop.org/" SOAP-ENV:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"><inputString xsi:type="xsd:string">b</inputString></m:echoString></SOAP-ENV:Body>
</SOAP-ENV:Envelope>"#;
    let (status, text) = support::post(addr, "/echoheader", "http://soapinterop.org/", body).await;
    assert_eq!(status, 200, "{text}");
    // The response block: qualified, typed, encoded, children unqualified.
    let start = text.find("<h:echoMeStructResponse ").expect(&text);
    let block = &text[start..text[start..].find("</h:echoMeStructResponse>").unwrap() + start];
    for part in [
        "xmlns:h=\"http://soapinterop.org/echoheader/\"",
        "e:encodingStyle=\"http://schemas.xmlsoap.org/soap/encoding/\"",
        "xsi:type=\"ns1:SOAPStruct\" xmlns:ns1=\"http://soapinterop.org/xsd\"",
        "<varString xsi:type=\"xsd:string\">raw</varString><varInt xsi:type=\"xsd:int\">9</varInt>",
    ] {
        assert!(block.contains(part), "`{part}` in {block}");
    }

    // A block of the wrong shape is a Client fault naming it.
    let bad = body.replace(
        "<varInt xsi:type=\"xsd:int\">9</varInt>",
        "<varInt xsi:type=\"xsd:int\">nine</varInt>",
    );
    let (status, text) = support::post(addr, "/echoheader", "http://soapinterop.org/", &bad).await;
    assert_eq!(status, 500, "{text}");
    assert!(text.contains("header `echoMeStructRequest`"), "{text}");
}

#[test]
fn the_wsdl_served_back_declares_the_blocks_encoded() {
    let wsdl = soapstone_wsdl::wsdl(
        soapstone_build_test::echo_header::interop_lab_echo_header_model(),
        "http://localhost/echoheader",
    );
    assert!(
        wsdl.contains("<wsdl:part name=\"echoMeStringRequest\" type=\"xsd:string\"/>"),
        "{wsdl}"
    );
    assert!(wsdl.contains("part=\"echoMeStructResponse\" use=\"encoded\" namespace=\"http://soapinterop.org/echoheader/\" encodingStyle=\"http://schemas.xmlsoap.org/soap/encoding/\""), "{wsdl}");
    // Read back, it lowers to the same header blocks.
    let defs = soapstone_wsdl::read::read_str(&wsdl, "served.wsdl", &Default::default()).unwrap();
    let service = &defs.services[0].name.local;
    let port = defs.default_port(service).unwrap();
    let model = defs.service_model(service, port).unwrap();
    let original = soapstone_build_test::echo_header::interop_lab_echo_header_model();
    for (a, b) in model.operations.iter().zip(&original.operations) {
        assert_eq!(a.input_headers, b.input_headers, "{}", a.name);
        assert_eq!(a.output_headers, b.output_headers, "{}", a.name);
    }
}
