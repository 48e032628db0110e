//! SOAP headers and declared faults in the typed API, from a vendor-style WSDL
//! (`wsdl/calculator.wsdl`): the generated server reads the request header as a typed parameter
//! and sets a response header, the generated client sends one and reads the other, a declared
//! fault travels as a typed detail, `mustUnderstand` and roles are honoured (raw bytes over a
//! TcpStream), the WSDL served back declares the same headers and faults, and zeep (when
//! installed) calls the generated server.

mod support;

use std::sync::Arc;

use soapstone_build_test::calculator::{
    Auth, Calculator, CalculatorClient, CalculatorServer, DivideByZero, DivideFault, Trace,
};
use soapstone_service::{CallError, Context, Fault, ServiceConfig};

struct Calc;

impl Calculator for Calc {
    async fn divide(
        &self,
        ctx: &Context,
        dividend: i32,
        divisor: i32,
        auth: Option<Auth>,
    ) -> Result<(i32, i32), Fault> {
        let Some(auth) = auth else {
            return Err(Fault::client("missing `Auth` header"));
        };
        if auth.token != "secret" {
            return Err(Fault::client(format!("bad token for `{}`", auth.user)));
        }
        ctx.set_header(&Trace {
            id: format!("trace-{}", auth.user),
        })?;
        if divisor == 0 {
            return Err(DivideFault::DivideByZero(DivideByZero {
                dividend,
                hint: "divide by something else".into(),
            })
            .into_fault(Fault::client("division by zero")));
        }
        Ok((dividend / divisor, dividend % divisor))
    }
}

async fn serve(config: ServiceConfig) -> support::Running {
    support::serve(vec![(
        "/calc",
        Arc::new(CalculatorServer::new(Calc).with_config(config)),
    )])
    .await
}

fn auth() -> Auth {
    Auth {
        user: "ann".into(),
        token: "secret".into(),
    }
}

#[tokio::test]
async fn the_generated_client_sends_and_reads_headers_and_gets_typed_faults() {
    let server = serve(ServiceConfig::default()).await;
    let client = CalculatorClient::new(&format!("http://{}/calc", server.addr)).unwrap();

    let answer = client.divide(17, 5, Some(auth())).await.unwrap();
    assert_eq!(answer.value, (3, 2));
    let trace: Option<Trace> = answer.headers.get().unwrap();
    assert_eq!(trace.unwrap().id, "trace-ann");

    // Without the header the handler sees `None` (a plain, undeclared fault).
    let e = client.divide(1, 1, None).await.unwrap_err();
    assert!(e.declared().is_none());
    assert_eq!(e.fault().unwrap().reason, "missing `Auth` header");

    // A declared fault comes back typed.
    match client.divide(9, 0, Some(auth())).await.unwrap_err() {
        CallError::Declared { detail, fault } => {
            assert_eq!(
                detail,
                DivideFault::DivideByZero(DivideByZero {
                    dividend: 9,
                    hint: "divide by something else".into()
                })
            );
            assert_eq!(fault.reason, "division by zero");
        }
        CallError::Other(e) => panic!("expected the declared fault, got {e}"),
    }

    // A header set once per client goes with every call (the per-call one is not needed).
    let per_client = CalculatorClient::new(&format!("http://{}/calc", server.addr))
        .unwrap()
        .with_header(&auth())
        .unwrap();
    assert_eq!(per_client.divide(8, 3, None).await.unwrap().value, (2, 2));
    server.stop().await;
}

fn envelope(headers: &str) -> String {
    format!(
        r#"<?xml version="1.0"?><s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" xmlns:c="urn:example:calc"><s:Header>{headers}</s:Header><s:Body><c:Divide><c:dividend>7</c:dividend><c:divisor>2</c:divisor></c:Divide></s:Body></s:Envelope>"#
    )
}

const AUTH: &str =
    r#"<c:Auth s:mustUnderstand="1"><c:user>bob</c:user><c:token>secret</c:token></c:Auth>"#;

#[tokio::test]
async fn declared_headers_are_understood_and_roles_are_honoured() {
    let server = serve(ServiceConfig::default().role("urn:example:auditor")).await;
    // A declared header with mustUnderstand is understood; the response carries `Trace`.
    let (status, reply) = support::post(
        server.addr,
        "/calc",
        "urn:example:calc#divide",
        &envelope(AUTH),
    )
    .await;
    assert_eq!(status, 200, "{reply}");
    assert!(
        reply.contains("<c:quotient>3</c:quotient>") || reply.contains("quotient>3<"),
        "{reply}"
    );
    assert!(reply.contains("trace-bob"), "{reply}");

    // An undeclared mustUnderstand block aimed at us is a MustUnderstand fault...
    let other = r#"<x:Other xmlns:x="urn:other" s:mustUnderstand="1"/>"#;
    let (status, reply) = support::post(
        server.addr,
        "/calc",
        "urn:example:calc#divide",
        &envelope(&format!("{AUTH}{other}")),
    )
    .await;
    assert_eq!(status, 500, "{reply}");
    assert!(reply.contains("MustUnderstand"), "{reply}");

    // ... also when aimed at a role this node was configured to play ...
    let audited =
        r#"<x:Other xmlns:x="urn:other" s:mustUnderstand="1" s:actor="urn:example:auditor"/>"#;
    let (status, reply) = support::post(
        server.addr,
        "/calc",
        "urn:example:calc#divide",
        &envelope(&format!("{AUTH}{audited}")),
    )
    .await;
    assert_eq!(status, 500, "{reply}");
    assert!(reply.contains("MustUnderstand"), "{reply}");

    // ... but not when aimed at a role it does not play.
    let elsewhere =
        r#"<x:Other xmlns:x="urn:other" s:mustUnderstand="1" s:actor="urn:example:cache"/>"#;
    let (status, reply) = support::post(
        server.addr,
        "/calc",
        "urn:example:calc#divide",
        &envelope(&format!("{AUTH}{elsewhere}")),
    )
    .await;
    assert_eq!(status, 200, "{reply}");

    // A declared header that does not decode is a Client fault naming it.
    let bad = r#"<c:Auth><c:user>bob</c:user></c:Auth>"#;
    let (status, reply) = support::post(
        server.addr,
        "/calc",
        "urn:example:calc#divide",
        &envelope(bad),
    )
    .await;
    assert_eq!(status, 500, "{reply}");
    assert!(reply.contains("header `Auth`"), "{reply}");

    // The declared fault's detail on the wire.
    let zero = envelope(AUTH).replace("<c:divisor>2<", "<c:divisor>0<");
    let (status, reply) =
        support::post(server.addr, "/calc", "urn:example:calc#divide", &zero).await;
    assert_eq!(status, 500, "{reply}");
    assert!(
        reply.contains("<detail><c:DivideByZero") || reply.contains("DivideByZero xmlns"),
        "{reply}"
    );
    assert!(reply.contains("divide by something else"), "{reply}");
    server.stop().await;
}

#[test]
fn the_wsdl_served_back_declares_the_same_headers_and_faults() {
    let model = CalculatorServer::<Calc>::model();
    let wsdl = soapstone_wsdl::wsdl(model, "http://127.0.0.1:1/calc");
    let dir = std::env::temp_dir().join(format!("soapstone-calc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("calc.wsdl");
    std::fs::write(&path, &wsdl).unwrap();
    let defs = soapstone_wsdl::read::read(
        path.to_str().unwrap(),
        &soapstone_wsdl::read::ReadOptions::default(),
    )
    .unwrap();
    let port = defs.default_port("Calculator").unwrap().to_string();
    let again = defs.service_model("Calculator", &port).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let (a, b) = (&model.operations[0], &again.operations[0]);
    assert_eq!(a.request, "Divide");
    assert_eq!(b.request, a.request);
    assert_eq!(b.input_headers, a.input_headers, "{wsdl}");
    assert_eq!(b.output_headers, a.output_headers, "{wsdl}");
    assert_eq!(b.faults, a.faults, "{wsdl}");
    assert_eq!(b.input, a.input);
}

/// zeep reads the WSDL the generated server publishes, sends the declared header, reads the
/// response header and gets the declared fault's detail. Skipped loudly without zeep, a
/// failure without it under `CI`.
#[tokio::test]
async fn zeep_calls_the_generated_server_with_headers_and_faults() {
    if !support::zeep_or_skip() {
        return;
    }
    let server = serve(ServiceConfig::default()).await;
    let url = format!("http://{}/calc?wsdl", server.addr);
    let output = support::run_zeep("calc_zeep.py", &url).await;
    server.stop().await;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    println!("{stdout}");
}
