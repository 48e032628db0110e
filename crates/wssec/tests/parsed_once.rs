//! `Secured` reads the envelope once and hands it on: the service behind it is called through
//! `serve_parsed` (with the envelope and the principal) instead of `call`, which would read the
//! envelope a second time.

use std::sync::Arc;
use std::time::SystemTime;

use bytes::Bytes;
use soapstone_codec::{Envelope, Version};
use soapstone_service::{
    BoxFuture, Principal, ServiceFuture, SoapRequest, SoapResponse, SoapService,
};
use soapstone_wssec::{hash_password, Secured, UsernameTokenHeader, UsersFile};

/// Answers how it was reached: `call` (envelope read again) or `serve_parsed`, and by whom.
struct Tells;

impl SoapService for Tells {
    fn name(&self) -> &str {
        "Tells"
    }

    fn document(&self, _query: &str, _endpoint: &str) -> Option<String> {
        None
    }

    fn call(&self, request: SoapRequest) -> BoxFuture<SoapResponse> {
        let answer = SoapResponse::new(request.version, false, None, Bytes::from("read again"));
        Box::pin(std::future::ready(answer))
    }

    fn serve_parsed(&self, request: &SoapRequest, envelope: &Envelope<'_>) -> ServiceFuture {
        let (ns, local) = envelope.body_name().expect("a body element");
        let who = request
            .extensions
            .get::<Principal>()
            .map_or("nobody", |p| p.name.as_str());
        let text = format!("handed on: {{{ns}}}{local} for {who}");
        ServiceFuture::ready(SoapResponse::new(
            envelope.version(),
            false,
            None,
            Bytes::from(text),
        ))
    }
}

#[test]
fn the_guarded_service_gets_the_envelope_already_read() {
    let users = format!(
        "[users.alice]\npermissions = [\"move\"]\npassword_hash = \"{}\"\n",
        hash_password("alice-text")
    );
    let users = Arc::new(UsersFile::parse(&users).unwrap());
    let secured = Secured::new(Arc::new(Tells), users);
    let envelope = |nonce: &[u8]| {
        let block =
            UsernameTokenHeader::text("alice", "alice-text").block_at(nonce, SystemTime::now());
        let xml = format!(
            r#"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Header>{block}</soap:Header><soap:Body><v:deposit xmlns:v="urn:vault"><am>5</am></v:deposit></soap:Body></soap:Envelope>"#
        );
        SoapRequest::new(Version::Soap11, None, Bytes::from(xml))
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let answer = rt.block_on(secured.serve(envelope(b"n-1")));
    assert!(!answer.fault, "{:?}", answer.body);
    assert_eq!(answer.body, "handed on: {urn:vault}deposit for alice");
    // `call` (the boxed interface) takes the same path.
    let answer = rt.block_on(secured.call(envelope(b"n-2")));
    assert_eq!(answer.body, "handed on: {urn:vault}deposit for alice");
}
