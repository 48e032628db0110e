//! Issue 8, item 1: one 1 MB request killed the server. An `echoStringArray` whose 4,000
//! items each `href` one 1 MB multiRef made the decoder copy the megabyte once per reference
//! (4 GB) and the process abort, taking `/charging` down with it. Sent here as raw bytes over
//! a real TcpStream to an in-process `soapstone serve`: the answer must be a Client fault
//! naming the reference budget, and the charging service must go on answering.

mod common;

use common::server::{faultstring, raw, text_of, TestServer};
use soapstone_services::charging::{ChargingClient, SeedConfig};
use soapstone_services::{Db, ServiceKind, ServicesConfig};

/// The issue's request: `n` items `href`ing one multiRef of `size` bytes (SOAP 1.1), or the
/// SOAP 1.2 form with `enc:ref`/`enc:id`.
fn bomb(n: usize, size: usize, soap12: bool) -> String {
    let mut b = String::with_capacity(size + n * 24 + 1024);
    if soap12 {
        b.push_str(r#"<?xml version="1.0" encoding="UTF-8"?><e:Envelope xmlns:e="http://www.w3.org/2003/05/soap-envelope" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:enc="http://www.w3.org/2003/05/soap-encoding"><e:Body><m:echoStringArray xmlns:m="http://soapinterop.org/" e:encodingStyle="http://www.w3.org/2003/05/soap-encoding"><inputStringArray enc:itemType="xsd:string" enc:arraySize=""#);
        b.push_str(&n.to_string());
        b.push_str("\">");
        for _ in 0..n {
            b.push_str("<item enc:ref=\"b\"/>");
        }
        b.push_str("</inputStringArray><big enc:id=\"b\" xsi:type=\"xsd:string\">");
        b.push_str(&"x".repeat(size));
        b.push_str("</big></m:echoStringArray></e:Body></e:Envelope>");
    } else {
        b.push_str(r#"<?xml version="1.0" encoding="UTF-8"?><SOAP-ENV:Envelope xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/" xmlns:SOAP-ENC="http://schemas.xmlsoap.org/soap/encoding/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema" SOAP-ENV:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"><SOAP-ENV:Body><m:echoStringArray xmlns:m="http://soapinterop.org/"><inputStringArray SOAP-ENC:arrayType="xsd:string["#);
        b.push_str(&n.to_string());
        b.push_str("]\">");
        for _ in 0..n {
            b.push_str("<item href=\"#b\"/>");
        }
        b.push_str(
            "</inputStringArray></m:echoStringArray><multiRef id=\"b\" xsi:type=\"xsd:string\">",
        );
        b.push_str(&"x".repeat(size));
        b.push_str("</multiRef></SOAP-ENV:Body></SOAP-ENV:Envelope>");
    }
    b
}

fn request(body: &str, soap12: bool) -> Vec<u8> {
    let ct = if soap12 {
        "application/soap+xml; charset=utf-8"
    } else {
        "text/xml; charset=utf-8\r\nSOAPAction: \"http://soapinterop.org/\""
    };
    let mut r = format!(
        "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: {ct}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .into_bytes();
    r.extend_from_slice(body.as_bytes());
    r
}

async fn server(dir: &std::path::Path) -> TestServer {
    let mut c = ServicesConfig::default();
    c.services = vec![ServiceKind::Charging, ServiceKind::Echo];
    c.db = Db::Sqlite(dir.join("charging.db"));
    c.seed = SeedConfig::with_accounts(20);
    TestServer::start(c).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_4000_reference_request_is_a_client_fault_and_charging_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let s = server(dir.path()).await;
    let charging = ChargingClient::new(&s.url("/charging")).unwrap();
    let before = charging.credit_control(3).await.unwrap();

    // 4,000 references to 1 MiB: a 1.05 MB request, 4 GiB if every reference were copied
    let body = bomb(4_000, 1 << 20, false);
    assert!(body.len() < 1_200_000, "{}", body.len());
    let req = request(&body, false);
    // a few at once, as an attacker would
    let answers = futures_join(s.addr, &req, 3).await;
    for r in answers {
        assert_eq!(r.status, 500, "{}", r.head);
        let code = text_of(&r.body, "faultcode").unwrap_or_default();
        assert!(code.ends_with(":Client"), "{}", r.body);
        let reason = faultstring(&r.body).unwrap();
        assert!(
            reason.starts_with(
                "/Envelope/Body/echoStringArray/inputStringArray/item: following reference `#b` would decode its 1048"
            ) && reason.contains("past the budget of"),
            "{reason}"
        );
        assert!(
            r.body.len() < 2048,
            "a fault, not an echo: {}",
            r.body.len()
        );
    }

    // the server is still up, and charging still answers and still counts
    let cn = charging.credit(3, 7).await.unwrap();
    charging.confirm_action(cn).await.unwrap();
    assert_eq!(charging.credit_control(3).await.unwrap(), before + 7);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn soap12_enc_ref_bomb_is_a_sender_fault() {
    let dir = tempfile::tempdir().unwrap();
    let s = server(dir.path()).await;
    let body = bomb(1_000, 1 << 20, true);
    let r = raw(s.addr, &request(&body, true)).await;
    // SOAP 1.2 Part 2 wants 400 for env:Sender; either way it is a fault, not an echo
    assert!(matches!(r.status, 400 | 500), "{}", r.head);
    let code = text_of(&r.body, "Value").unwrap_or_default();
    assert!(code.ends_with(":Sender"), "{}", r.body);
    let reason = text_of(&r.body, "Text").unwrap();
    assert!(
        reason.contains("following reference `#b`") && reason.contains("past the budget of"),
        "{reason}"
    );
    // legitimate sharing still works: three references to 100 KB
    let body = bomb(3, 100_000, false);
    let r = raw(s.addr, &request(&body, false)).await;
    assert_eq!(r.status, 200, "{}", &r.body[..r.body.len().min(500)]);
    assert_eq!(r.body.matches(&"x".repeat(100_000)).count(), 3);
    s.stop().await;
}

/// Sends `req` on `n` connections at once and returns every answer.
async fn futures_join(
    addr: std::net::SocketAddr,
    req: &[u8],
    n: usize,
) -> Vec<common::server::Reply> {
    let tasks: Vec<_> = (0..n)
        .map(|_| {
            let req = req.to_vec();
            tokio::spawn(async move { raw(addr, &req).await })
        })
        .collect();
    let mut out = Vec::new();
    for t in tasks {
        out.push(t.await.unwrap());
    }
    out
}
