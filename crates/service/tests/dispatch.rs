//! Dispatch through `SoapService::call` with real envelope bytes: both styles, both SOAP
//! versions, and every fault a generated server sends.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use bytes::Bytes;
use serde::{Deserialize, Serialize};
use soapstone_service::{
    service, Fault, QName, ServiceConfig, SoapRequest, SoapResponse, SoapService, Version, XsdType,
};

const ENV11: &str = "http://schemas.xmlsoap.org/soap/envelope/";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, XsdType)]
pub struct Account {
    pub id: i32,
    pub balance: i64,
}

#[service(name = "Charging", namespace = "urn:charging", style = "rpc")]
pub trait Charging {
    async fn reserve(&self, id: i32, am: i32) -> Result<i32, Fault>;
    #[soap(name = "releaseRes", action = "urn:charging#releaseRes", cache)]
    async fn release(&self, res: i32) -> Result<bool, Fault>;
    async fn account(&self, id: i32) -> Result<Account, Fault>;
    async fn do_nothing(&self) -> Result<(), Fault>;
}

#[derive(Default)]
struct Bank {
    releases: AtomicUsize,
}

impl Charging for Bank {
    async fn reserve(&self, id: i32, am: i32) -> Result<i32, Fault> {
        if am <= 0 {
            return Err(Fault::client(format!("amount `{am}` is not positive")));
        }
        Ok(id * 10_000 + am)
    }
    async fn release(&self, res: i32) -> Result<bool, Fault> {
        self.releases.fetch_add(1, Ordering::SeqCst);
        Ok(res % 2 == 0)
    }
    async fn account(&self, id: i32) -> Result<Account, Fault> {
        Ok(Account {
            id,
            balance: 1_000 + i64::from(id),
        })
    }
    async fn do_nothing(&self) -> Result<(), Fault> {
        Ok(())
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, XsdType)]
#[serde(rename_all = "camelCase")]
pub struct Contact {
    pub first_name: String,
    #[serde(default)]
    pub phones: Vec<String>,
}

#[service(name = "Book", namespace = "urn:book")]
pub trait Book {
    async fn add_contact(&self, contact: Contact) -> Result<i64, Fault>;
    async fn list(&self, prefix: String) -> Result<Vec<Contact>, Fault>;
    /// Parameters named like the generated code's locals.
    async fn hygiene(
        &self,
        reply: String,
        inner: i32,
        request: bool,
        dispatcher: u8,
    ) -> Result<String, Fault>;
}

struct Contacts;

impl Book for Contacts {
    async fn hygiene(
        &self,
        reply: String,
        inner: i32,
        request: bool,
        dispatcher: u8,
    ) -> Result<String, Fault> {
        Ok(format!("{reply}{inner}{request}{dispatcher}"))
    }
    async fn add_contact(&self, contact: Contact) -> Result<i64, Fault> {
        Ok(contact.phones.len() as i64 * 100 + contact.first_name.len() as i64)
    }
    async fn list(&self, prefix: String) -> Result<Vec<Contact>, Fault> {
        Ok(vec![
            Contact {
                first_name: format!("{prefix}a"),
                phones: vec!["1".into(), "2".into()],
            },
            Contact {
                first_name: format!("{prefix}b"),
                phones: vec![],
            },
        ])
    }
}

fn call(
    service: &dyn SoapService,
    version: Version,
    action: Option<&str>,
    body: &str,
) -> SoapResponse {
    let request = SoapRequest::new(
        version,
        action.map(soapstone_service::Action::from),
        Bytes::from(body.to_string()),
    );
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    rt.block_on(service.call(request))
}

/// The response envelope's text and its body's first element, checked for the version.
struct Answer {
    text: String,
}

impl Answer {
    fn new(response: SoapResponse, version: Version) -> Self {
        assert_eq!(response.version, version);
        let text = String::from_utf8(response.body.to_vec()).unwrap();
        let doc = roxmltree::Document::parse(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
        assert_eq!(
            doc.root_element().tag_name().namespace(),
            Some(version.envelope_ns()),
            "{text}"
        );
        Answer { text }
    }

    fn with<R>(&self, f: impl FnOnce(roxmltree::Node) -> R) -> R {
        let doc = roxmltree::Document::parse(&self.text).unwrap();
        let body = doc
            .root_element()
            .children()
            .find(|n| n.tag_name().name() == "Body")
            .unwrap();
        f(body.first_element_child().expect("a body child"))
    }

    /// (namespace, local) of the body element and the text of each child.
    fn wrapper(&self) -> (String, String, Vec<(String, String)>) {
        self.with(|w| {
            let children = w
                .children()
                .filter(|c| c.is_element())
                .map(|c| {
                    (
                        c.tag_name().name().to_string(),
                        c.text().unwrap_or("").to_string(),
                    )
                })
                .collect();
            (
                w.tag_name().namespace().unwrap_or("").to_string(),
                w.tag_name().name().to_string(),
                children,
            )
        })
    }

    /// The fault code (local part) and reason.
    fn fault(&self) -> (String, String) {
        self.with(|f| {
            assert_eq!(f.tag_name().name(), "Fault", "{}", self.text);
            let text_of = |name: &str| {
                f.descendants()
                    .find(|n| n.tag_name().name() == name)
                    .and_then(|n| n.text())
                    .unwrap_or("")
                    .to_string()
            };
            let code = if f.tag_name().namespace() == Some(ENV11) {
                text_of("faultcode")
            } else {
                f.descendants()
                    .find(|n| n.tag_name().name() == "Value")
                    .and_then(|n| n.text())
                    .unwrap_or("")
                    .to_string()
            };
            let code = code.rsplit(':').next().unwrap().to_string();
            let reason = if f.tag_name().namespace() == Some(ENV11) {
                text_of("faultstring")
            } else {
                text_of("Text")
            };
            (code, reason)
        })
    }
}

fn envelope(version: Version, header: &str, body: &str) -> String {
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<SOAP-ENV:Envelope xmlns:SOAP-ENV="{}" xmlns:xsd="http://www.w3.org/2001/XMLSchema"
  xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:SOAP-ENC="http://schemas.xmlsoap.org/soap/encoding/">
{header}<SOAP-ENV:Body>{body}</SOAP-ENV:Body></SOAP-ENV:Envelope>"#,
        version.envelope_ns()
    )
}

/// Appendix C.1 of the Elfwing & Paulsson thesis: an unqualified `<reserve>` wrapper.
const THESIS_RESERVE: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<SOAP-ENV:Envelope SOAP-ENV:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"
  xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/"
  xmlns:xsd="http://www.w3.org/2001/XMLSchema"
  xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
  xmlns:SOAP-ENC="http://schemas.xmlsoap.org/soap/encoding/">

  <SOAP-ENV:Body>
    <reserve>
      <id xsi:type="xsd:int">2</id>
      <am xsi:type="xsd:int">520</am>
    </reserve>
  </SOAP-ENV:Body>
</SOAP-ENV:Envelope>"#;

#[test]
fn rpc_encoded_thesis_message() {
    let server = ChargingServer::new(Bank::default());
    let answer = Answer::new(
        call(&server, Version::Soap11, Some(""), THESIS_RESERVE),
        Version::Soap11,
    );
    let (ns, local, children) = answer.wrapper();
    assert_eq!(
        (ns.as_str(), local.as_str()),
        ("urn:charging", "reserveResponse")
    );
    assert_eq!(children, [("return".to_string(), "20520".to_string())]);
    assert!(
        answer.text.contains("xsi:type"),
        "encoded answers carry xsi:type: {}",
        answer.text
    );
}

#[test]
fn rpc_encoded_soap12_struct_and_empty_result() {
    let server =
        ChargingServer::new(Bank::default()).with_config(ServiceConfig::default().rpc_result(true));
    let body = r#"<c:account xmlns:c="urn:charging"><id xsi:type="xsd:int">7</id></c:account>"#;
    let response = call(
        &server,
        Version::Soap12,
        None,
        &envelope(Version::Soap12, "", body),
    );
    assert_eq!(response.operation, Some("account"));
    assert!(!response.fault);
    let answer = Answer::new(response, Version::Soap12);
    answer.with(|w| {
        assert_eq!(w.tag_name().name(), "accountResponse");
        // SOAP 1.2 RPC (Part 2 4.2.2): the first child names the return value's accessor
        let result = w.first_element_child().unwrap();
        assert_eq!(
            (result.tag_name().namespace(), result.tag_name().name()),
            (Some("http://www.w3.org/2003/05/soap-rpc"), "result")
        );
        assert_eq!(result.text(), Some("return"));
        let ret = result.next_sibling_element().unwrap();
        assert_eq!(ret.tag_name().name(), "return");
        let fields: Vec<_> = ret
            .children()
            .filter(|c| c.is_element())
            .map(|c| (c.tag_name().name(), c.text().unwrap()))
            .collect();
        assert_eq!(fields, [("id", "7"), ("balance", "1007")]);
    });

    let body = r#"<c:doNothing xmlns:c="urn:charging"/>"#;
    let answer = Answer::new(
        call(
            &server,
            Version::Soap11,
            None,
            &envelope(Version::Soap11, "", body),
        ),
        Version::Soap11,
    );
    let (ns, local, children) = answer.wrapper();
    assert_eq!(
        (ns.as_str(), local.as_str(), children.len()),
        ("urn:charging", "doNothingResponse", 0)
    );
}

#[test]
fn document_literal_both_versions() {
    let server = BookServer::new(Contacts);
    for version in [Version::Soap11, Version::Soap12] {
        let body = r#"<b:addContact xmlns:b="urn:book"><b:contact><b:firstName>Ann</b:firstName><b:phones>1</b:phones><b:phones>2</b:phones></b:contact></b:addContact>"#;
        let answer = Answer::new(
            call(&server, version, None, &envelope(version, "", body)),
            version,
        );
        let (ns, local, children) = answer.wrapper();
        assert_eq!(
            (ns.as_str(), local.as_str()),
            ("urn:book", "addContactResponse")
        );
        assert_eq!(children, [("return".to_string(), "203".to_string())]);
        answer.with(|w| {
            assert_eq!(
                w.first_element_child().unwrap().tag_name().namespace(),
                Some("urn:book")
            )
        });
    }
    let body = r#"<list xmlns="urn:book"><prefix>x</prefix></list>"#;
    let answer = Answer::new(
        call(
            &server,
            Version::Soap11,
            None,
            &envelope(Version::Soap11, "", body),
        ),
        Version::Soap11,
    );
    answer.with(|w| {
        let items: Vec<_> = w.children().filter(|c| c.is_element()).collect();
        assert_eq!(items.len(), 2, "{}", answer.text);
        assert!(items.iter().all(
            |i| i.tag_name().name() == "return" && i.tag_name().namespace() == Some("urn:book")
        ));
        let first: Vec<_> = items[0]
            .children()
            .filter(|c| c.is_element())
            .map(|c| c.text().unwrap())
            .collect();
        assert_eq!(first, ["xa", "1", "2"]);
        assert!(
            !answer.text.contains("xsi:type"),
            "literal answers carry no xsi:type: {}",
            answer.text
        );
    });
}

#[test]
fn parameters_may_shadow_generated_locals() {
    let server = BookServer::new(Contacts);
    let body = r#"<b:hygiene xmlns:b="urn:book"><b:reply>r</b:reply><b:inner>1</b:inner><b:request>true</b:request><b:dispatcher>2</b:dispatcher></b:hygiene>"#;
    let answer = Answer::new(
        call(
            &server,
            Version::Soap11,
            None,
            &envelope(Version::Soap11, "", body),
        ),
        Version::Soap11,
    );
    assert_eq!(
        answer.wrapper().2,
        [("return".to_string(), "r1true2".to_string())]
    );
}

#[test]
fn dispatch_by_action_then_element() {
    let server = ChargingServer::new(Bank::default());
    let body = r#"<releaseRes><res xsi:type="xsd:int">12418</res></releaseRes>"#;
    let env = envelope(Version::Soap11, "", body);
    let r = call(
        &server,
        Version::Soap11,
        Some("urn:charging#releaseRes"),
        &env,
    );
    assert_eq!(r.operation, Some("releaseRes"));
    // A wrong or foreign action falls back to the body element.
    let r = call(&server, Version::Soap11, Some("urn:charging#reserve"), &env);
    assert_eq!(r.operation, Some("releaseRes"));
    let (_, _, children) = Answer::new(r, Version::Soap11).wrapper();
    assert_eq!(children, [("return".to_string(), "true".to_string())]);
}

#[test]
fn unknown_operation_is_a_client_fault() {
    let server = ChargingServer::new(Bank::default());
    for (version, code) in [(Version::Soap11, "Client"), (Version::Soap12, "Sender")] {
        let env = envelope(version, "", r#"<c:refund xmlns:c="urn:charging"/>"#);
        let r = call(&server, version, None, &env);
        assert!(r.fault);
        assert_eq!(r.operation, None);
        let (c, reason) = Answer::new(r, version).fault();
        assert_eq!(c, code);
        assert_eq!(
            reason,
            "unknown operation `{urn:charging}refund` in service `Charging`"
        );
    }
    // The right local name in a foreign namespace is not ours either.
    let env = envelope(Version::Soap11, "", r#"<c:reserve xmlns:c="urn:other"/>"#);
    let (_, reason) =
        Answer::new(call(&server, Version::Soap11, None, &env), Version::Soap11).fault();
    assert_eq!(
        reason,
        "unknown operation `{urn:other}reserve` in service `Charging`"
    );
    let env = envelope(Version::Soap11, "", "");
    let (_, reason) =
        Answer::new(call(&server, Version::Soap11, None, &env), Version::Soap11).fault();
    assert!(reason.contains("empty `Body`"), "{reason}");
}

#[test]
fn must_understand() {
    let header = |attrs: &str| {
        format!(
            r#"<SOAP-ENV:Header><t:tx xmlns:t="urn:tx" SOAP-ENV:mustUnderstand="1"{attrs}>5</t:tx></SOAP-ENV:Header>"#
        )
    };
    let body = r#"<c:doNothing xmlns:c="urn:charging"/>"#;
    let server = ChargingServer::new(Bank::default());
    for version in [Version::Soap11, Version::Soap12] {
        let r = call(
            &server,
            version,
            None,
            &envelope(version, &header(""), body),
        );
        assert!(r.fault);
        let answer = Answer::new(r, version);
        assert_eq!(answer.fault().0, "MustUnderstand");
        assert!(
            answer.text.contains("urn:tx"),
            "names the header: {}",
            answer.text
        );
    }
    let next = r#" SOAP-ENV:actor="http://schemas.xmlsoap.org/soap/actor/next""#;
    assert!(
        call(
            &server,
            Version::Soap11,
            None,
            &envelope(Version::Soap11, &header(next), body)
        )
        .fault
    );
    let ultimate =
        r#" SOAP-ENV:role="http://www.w3.org/2003/05/soap-envelope/role/ultimateReceiver""#;
    assert!(
        call(
            &server,
            Version::Soap12,
            None,
            &envelope(Version::Soap12, &header(ultimate), body)
        )
        .fault
    );
    // Aimed at someone else: not our business.
    let other = r#" SOAP-ENV:actor="urn:some-intermediary""#;
    assert!(
        !call(
            &server,
            Version::Soap11,
            None,
            &envelope(Version::Soap11, &header(other), body)
        )
        .fault
    );
    // Declared understood.
    let server =
        server.with_config(ServiceConfig::default().understand(QName::new("urn:tx", "tx")));
    assert!(
        !call(
            &server,
            Version::Soap11,
            None,
            &envelope(Version::Soap11, &header(""), body)
        )
        .fault
    );
}

#[test]
fn version_mismatch_is_soap11_shaped() {
    let server = ChargingServer::new(Bank::default());
    let env = r#"<e:Envelope xmlns:e="http://www.w3.org/2001/12/soap-envelope"><e:Body><reserve/></e:Body></e:Envelope>"#;
    for version in [Version::Soap11, Version::Soap12] {
        let r = call(&server, version, None, env);
        assert!(r.fault);
        let answer = Answer::new(r, Version::Soap11);
        assert_eq!(answer.fault().0, "VersionMismatch");
    }
}

#[test]
fn user_and_decode_faults() {
    let server = ChargingServer::new(Bank::default());
    let env = envelope(
        Version::Soap11,
        "",
        r#"<reserve><id xsi:type="xsd:int">1</id><am xsi:type="xsd:int">-5</am></reserve>"#,
    );
    let r = call(&server, Version::Soap11, None, &env);
    assert!(r.fault);
    assert_eq!(r.operation, Some("reserve"));
    assert_eq!(
        Answer::new(r, Version::Soap11).fault(),
        ("Client".into(), "amount `-5` is not positive".into())
    );

    let env = envelope(
        Version::Soap12,
        "",
        r#"<reserve><id xsi:type="xsd:int">1</id><am xsi:type="xsd:int">abc</am></reserve>"#,
    );
    let r = call(&server, Version::Soap12, None, &env);
    assert!(r.fault);
    let (code, reason) = Answer::new(r, Version::Soap12).fault();
    assert_eq!(code, "Sender");
    assert!(
        reason.contains("`abc`"),
        "the codec's message names the token: {reason}"
    );

    let r = call(&server, Version::Soap11, None, "<not a soap message");
    assert!(r.fault);
    assert_eq!(Answer::new(r, Version::Soap11).fault().0, "Client");
}

#[test]
fn cache_answers_repeated_requests_without_calling() {
    let bank = Arc::new(Bank::default());
    let server = ChargingServer::from_arc(Arc::clone(&bank));
    let a = envelope(
        Version::Soap11,
        "",
        r#"<releaseRes><res xsi:type="xsd:int">4</res></releaseRes>"#,
    );
    // The same request written differently (prefix, whitespace, no xsi:type) is the same key.
    let b = envelope(
        Version::Soap11,
        "",
        "<c:releaseRes xmlns:c=\"urn:charging\">\n  <res>4</res>\n</c:releaseRes>",
    );
    let first = call(&server.clone(), Version::Soap11, None, &a);
    let second = call(&server, Version::Soap11, None, &b);
    assert_eq!(bank.releases.load(Ordering::SeqCst), 1);
    assert_eq!(first.body, second.body);
    // Another version or argument is another entry.
    call(
        &server,
        Version::Soap12,
        None,
        &envelope(
            Version::Soap12,
            "",
            r#"<releaseRes><res>4</res></releaseRes>"#,
        ),
    );
    call(
        &server,
        Version::Soap11,
        None,
        &envelope(
            Version::Soap11,
            "",
            r#"<releaseRes><res>5</res></releaseRes>"#,
        ),
    );
    assert_eq!(bank.releases.load(Ordering::SeqCst), 3);
    // Operations without `cache` are called every time.
    let r = envelope(
        Version::Soap11,
        "",
        r#"<reserve><id>1</id><am>1</am></reserve>"#,
    );
    call(&server, Version::Soap11, None, &r);
    call(&server, Version::Soap11, None, &r);
}

#[test]
fn cache_capacity_zero_turns_the_cache_off_and_the_byte_bound_holds() {
    let a = envelope(
        Version::Soap11,
        "",
        r#"<releaseRes><res>4</res></releaseRes>"#,
    );
    let bank = Arc::new(Bank::default());
    let off = ChargingServer::from_arc(Arc::clone(&bank))
        .with_config(ServiceConfig::default().cache_capacity(0));
    let first = call(&off, Version::Soap11, None, &a);
    let second = call(&off, Version::Soap11, None, &a);
    assert_eq!(first.body, second.body);
    assert_eq!(
        bank.releases.load(Ordering::SeqCst),
        2,
        "no cache: called twice"
    );
    // A byte bound smaller than twice the entry keeps nothing: every call runs the handler.
    let bank = Arc::new(Bank::default());
    let tiny = ChargingServer::from_arc(Arc::clone(&bank))
        .with_config(ServiceConfig::default().cache_max_bytes(64));
    call(&tiny, Version::Soap11, None, &a);
    call(&tiny, Version::Soap11, None, &a);
    assert_eq!(bank.releases.load(Ordering::SeqCst), 2, "too big to keep");
    // The default bound keeps it.
    let bank = Arc::new(Bank::default());
    let on = ChargingServer::from_arc(Arc::clone(&bank));
    call(&on, Version::Soap11, None, &a);
    call(&on, Version::Soap11, None, &a);
    assert_eq!(bank.releases.load(Ordering::SeqCst), 1);
}

#[test]
fn documents() {
    let server = ChargingServer::new(Bank::default());
    let wsdl = server
        .document("wsdl", "http://127.0.0.1:1/charging")
        .unwrap();
    let doc = roxmltree::Document::parse(&wsdl).unwrap();
    let ops: Vec<_> = doc
        .descendants()
        .filter(|n| {
            n.tag_name().name() == "operation"
                && n.parent().unwrap().tag_name().name() == "portType"
        })
        .map(|n| n.attribute("name").unwrap())
        .collect();
    assert_eq!(ops, ["reserve", "releaseRes", "account", "doNothing"]);
    assert!(server
        .document("xsd=soapenc", "http://127.0.0.1:1/charging")
        .unwrap()
        .contains("arrayType"));
    assert_eq!(server.document("xsd=nope", "http://x/"), None);
    assert_eq!(
        ChargingServer::<Bank>::model().operations[1].action,
        "urn:charging#releaseRes"
    );
    assert_eq!(book_model().operations[0].action, "urn:book#addContact");
}
