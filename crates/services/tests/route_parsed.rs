//! One envelope parse per request: the namespace router hands the envelope it read on
//! (`SoapService::call_parsed`), a generated service decodes that envelope instead of reading
//! the request again, and one whose limits differ from the router's reads it again under its
//! own, so the router's peek never loosens them.

use std::sync::{Arc, Mutex};

use bytes::Bytes;
use soapstone_codec::{Envelope, Limits, Version};
use soapstone_service::{BoxFuture, ServiceConfig, SoapRequest, SoapResponse, SoapService};
use soapstone_services::echo::{Echo, InteropServer};
use soapstone_services::route::ByNamespace;

const INTEROP: &str = "http://soapinterop.org/";

fn echo_float(value: &str) -> String {
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?><SOAP-ENV:Envelope xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><SOAP-ENV:Body><ns1:echoFloat xmlns:ns1="http://soapinterop.org/" SOAP-ENV:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"><inputFloat xsi:type="xsd:float">{value}</inputFloat></ns1:echoFloat></SOAP-ENV:Body></SOAP-ENV:Envelope>"#
    )
}

fn request(body: String) -> SoapRequest {
    SoapRequest::new(Version::Soap11, Some(INTEROP.into()), Bytes::from(body))
}

fn run(future: BoxFuture<SoapResponse>) -> SoapResponse {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(future)
}

fn text(response: &SoapResponse) -> &str {
    std::str::from_utf8(&response.body).unwrap()
}

/// Records how it was called: `call`, or `call_parsed` with the body element's name.
#[derive(Default)]
struct Recorder(Mutex<Vec<String>>);

impl SoapService for Recorder {
    fn name(&self) -> &str {
        "Recorder"
    }

    fn document(&self, _query: &str, _endpoint: &str) -> Option<String> {
        None
    }

    fn call(&self, request: SoapRequest) -> BoxFuture<SoapResponse> {
        self.0.lock().unwrap().push("call".into());
        soapstone_service::ready(SoapResponse::accepted(request.version, None))
    }

    fn call_parsed(
        &self,
        request: &SoapRequest,
        envelope: &Envelope<'_>,
    ) -> BoxFuture<SoapResponse> {
        let (ns, local) = envelope.body_name().unwrap_or_default();
        self.0
            .lock()
            .unwrap()
            .push(format!("call_parsed {{{ns}}}{local}"));
        soapstone_service::ready(SoapResponse::accepted(request.version, None))
    }
}

#[test]
fn the_router_hands_the_envelope_it_read_on() {
    let recorder = Arc::new(Recorder::default());
    let router = ByNamespace::builder("R")
        .route(INTEROP, "a", recorder.clone())
        .build();
    let answer = run(router.call(request(echo_float("1.5"))));
    assert!(answer.is_accepted());
    // an envelope the router cannot read goes to the primary as it came, to be read (and
    // refused precisely) there
    run(router.call(request("<not-soap/>".into())));
    assert_eq!(
        *recorder.0.lock().unwrap(),
        ["call_parsed {http://soapinterop.org/}echoFloat", "call"]
    );
}

#[test]
fn a_generated_service_decodes_the_envelope_it_is_handed() {
    let service = InteropServer::new(Echo);
    // The request's bytes say 2.5, the envelope handed on was read from bytes saying 1.5:
    // the answer shows which one was decoded (the contract is that they are the same bytes;
    // this makes a second read visible).
    let handed = echo_float("1.5");
    let envelope = Envelope::parse(handed.as_bytes(), &Limits::default()).unwrap();
    let request = request(echo_float("2.5"));
    let answer = run(service.call_parsed(&request, &envelope));
    assert!(!answer.fault, "{}", text(&answer));
    assert!(text(&answer).contains(">1.5<"), "{}", text(&answer));
    // and `call` reads the request itself
    let answer = run(service.call(request));
    assert!(text(&answer).contains(">2.5<"), "{}", text(&answer));
}

#[test]
fn a_service_with_other_limits_reads_the_envelope_again_under_its_own() {
    let mut config = ServiceConfig::default();
    config.limits.max_document_bytes = 200;
    let strict = Arc::new(InteropServer::new(Echo).with_config(config));
    // the router's peek runs under the (laxer) default limits
    let router = ByNamespace::builder("R")
        .route(INTEROP, "a", strict)
        .build();
    let body = echo_float("1.5");
    assert!(body.len() > 200);
    let answer = run(router.call(request(body)));
    assert!(answer.fault, "{}", text(&answer));
    assert!(
        text(&answer).contains("exceeds the limit of 200 bytes"),
        "{}",
        text(&answer)
    );
}

/// A router keeps, per thread, the route it picked for an envelope laid over a remembered
/// opening: keyed by the router too, so two routers that route the same envelope to their
/// routes at other positions each pick their own, call after call.
#[test]
fn routes_picked_for_a_remembered_opening_are_each_routers_own() {
    const OTHER: &str = "http://tempuri.org/";
    let (a_interop, a_other) = (Arc::new(Recorder::default()), Arc::new(Recorder::default()));
    let (b_interop, b_other) = (Arc::new(Recorder::default()), Arc::new(Recorder::default()));
    let a = ByNamespace::builder("A")
        .route(INTEROP, "i", a_interop.clone())
        .route(OTHER, "o", a_other.clone())
        .build();
    let b = ByNamespace::builder("B")
        .route(OTHER, "o", b_other.clone())
        .route(INTEROP, "i", b_interop.clone())
        .build();
    let other = echo_float("1").replace(INTEROP, OTHER);
    for _ in 0..3 {
        for router in [&a, &b] {
            run(router.call(request(echo_float("1.5"))));
            run(router.call(request(other.clone())));
        }
    }
    for (recorder, ns) in [
        (&a_interop, INTEROP),
        (&a_other, OTHER),
        (&b_interop, INTEROP),
        (&b_other, OTHER),
    ] {
        assert_eq!(
            *recorder.0.lock().unwrap(),
            vec![format!("call_parsed {{{ns}}}echoFloat"); 3]
        );
    }
}
