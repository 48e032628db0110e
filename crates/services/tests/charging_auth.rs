//! The charging service authenticated (issue 11): every operation needs a principal with the
//! right permission (`read` for balances, `move` for the rest), the ledger records who issued
//! each entry, and every refusal (wrong password, unknown user, replayed nonce, expired
//! timestamp, missing Security header, missing permission) leaves the ledger as it was.
//! Refusals are sent as raw bytes over a real TcpStream; successes by the generated client
//! with a UsernameToken in `ClientConfig::headers`.

mod common;

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use common::server::{post, TestServer};
use soapstone_client::{Client, ClientConfig};
use soapstone_services::charging::{Audit, ChargingClient};
use soapstone_services::{Auth, Db, ServiceKind, ServicesConfig};
use soapstone_wssec::{hash_password, UsernameTokenHeader, UsersFile, WsseConfig, WSSE_NS};

fn users() -> Arc<UsersFile> {
    let text = format!(
        "[users.operator]\npermissions = [\"move\", \"read\"]\npassword_hash = \"{}\"\n\
         digest_secret = \"operator-digest\"\n\
         [users.auditor]\npermissions = [\"read\"]\ndigest_secret = \"auditor-digest\"\n",
        hash_password("operator-text")
    );
    Arc::new(UsersFile::parse(&text).unwrap())
}

async fn start(dir: &std::path::Path) -> TestServer {
    let mut c = ServicesConfig::default();
    c.services = vec![ServiceKind::Charging];
    c.db = Db::Sqlite(dir.join("charging.db"));
    c.seed = common::small_seed();
    c.auth = Some(Auth::new(users(), WsseConfig::default()));
    TestServer::start(c).await
}

fn client(s: &TestServer, token: UsernameTokenHeader) -> ChargingClient {
    let config = ClientConfig::default().headers(Arc::new(token));
    ChargingClient::with_client(Client::with_config(&s.url("/charging"), config).unwrap())
}

fn credit(header: &str, id: i32, am: i32) -> String {
    format!(
        r#"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Header>{header}</soap:Header><soap:Body><c:credit xmlns:c="urn:soapstone:charging"><id>{id}</id><am>{am}</am></c:credit></soap:Body></soap:Envelope>"#
    )
}

fn token(user: &str, password: &str, digest: bool, nonce: &[u8], at: SystemTime) -> String {
    let t = if digest {
        UsernameTokenHeader::digest(user, password)
    } else {
        UsernameTokenHeader::text(user, password)
    };
    t.block_at(nonce, at)
}

async fn ledger(s: &TestServer) -> (Audit, i64) {
    let store = s.services.charging().unwrap().store().clone();
    (
        store.audit().await.unwrap(),
        store.balance(3).await.unwrap(),
    )
}

fn assert_refused(status: u16, body: &str, code: &str) {
    assert_eq!(status, 500, "{body}");
    assert!(
        body.contains(&format!(
            "<faultcode xmlns:c=\"{WSSE_NS}\">c:{code}</faultcode>"
        )),
        "{body}"
    );
}

#[tokio::test]
async fn operators_move_money_and_the_ledger_names_them() {
    let dir = tempfile::tempdir().unwrap();
    let s = start(dir.path()).await;
    let before = ledger(&s).await.1;
    let op = client(
        &s,
        UsernameTokenHeader::digest("operator", "operator-digest"),
    );
    let cn = op.credit(3, 25).await.unwrap();
    op.confirm_action(cn).await.unwrap();
    let text = client(&s, UsernameTokenHeader::text("operator", "operator-text"));
    let cn2 = text.direct_debit(3, 5).await.unwrap();
    assert_eq!(text.credit_control(3).await.unwrap() as i64, before + 20);
    let store = s.services.charging().unwrap().store().clone();
    for cn in [cn, cn2] {
        let entry = store.transaction(cn).await.unwrap().unwrap();
        assert_eq!(entry.issuer.as_deref(), Some("operator"), "{entry:?}");
    }
    // An auditor reads balances but moves nothing.
    let auditor = client(&s, UsernameTokenHeader::digest("auditor", "auditor-digest"));
    assert_eq!(auditor.credit_control(3).await.unwrap() as i64, before + 20);
    let (audit, _) = ledger(&s).await;
    let e = auditor.credit(3, 1).await.unwrap_err();
    let fault = e.fault().expect("a fault");
    assert_eq!(
        fault.reason,
        "the security token could not be authenticated or authorized"
    );
    let e = auditor.confirm_action(cn2).await.unwrap_err();
    assert!(e.fault().is_some(), "{e}");
    assert_eq!(ledger(&s).await, (audit, before + 20));
    assert!(!store.transaction(cn2).await.unwrap().unwrap().confirmed);
    s.stop().await;
}

#[tokio::test]
async fn every_refusal_leaves_the_ledger_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let s = start(dir.path()).await;
    let before = ledger(&s).await;
    let now = SystemTime::now();
    let cases = [
        (
            "wrong password",
            token("operator", "operator-texT", false, b"a", now),
            "FailedAuthentication",
        ),
        (
            "unknown user",
            token("mallory", "operator-text", false, b"b", now),
            "FailedAuthentication",
        ),
        (
            "wrong digest",
            token("operator", "operator-text", true, b"c", now),
            "FailedAuthentication",
        ),
        (
            "stale token",
            token(
                "operator",
                "operator-digest",
                true,
                b"d",
                now - Duration::from_secs(3600),
            ),
            "MessageExpired",
        ),
        ("missing header", String::new(), "InvalidSecurity"),
    ];
    for (what, header, code) in &cases {
        let r = post(s.addr, "/charging", "", &credit(header, 3, 1000)).await;
        assert_refused(r.status, &r.body, code);
        assert_eq!(ledger(&s).await, before, "{what} changed the ledger");
    }
    // An expired Timestamp around an otherwise good token.
    let good = token("operator", "operator-digest", true, b"e", now);
    let expired = good.replacen(
        "<wsse:UsernameToken>",
        "<wsu:Timestamp><wsu:Created>2026-01-01T00:00:00Z</wsu:Created><wsu:Expires>2026-01-01T00:05:00Z</wsu:Expires></wsu:Timestamp><wsse:UsernameToken>",
        1,
    );
    let r = post(s.addr, "/charging", "", &credit(&expired, 3, 1000)).await;
    assert_refused(r.status, &r.body, "MessageExpired");
    assert_eq!(ledger(&s).await, before);
    // A replayed nonce: the first send credits, the replay changes nothing more.
    let once = token("operator", "operator-digest", true, b"replay-me", now);
    let r = post(s.addr, "/charging", "", &credit(&once, 3, 7)).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let after_first = ledger(&s).await;
    assert_eq!(after_first.1, before.1 + 7);
    let r = post(s.addr, "/charging", "", &credit(&once, 3, 7)).await;
    assert_refused(r.status, &r.body, "FailedAuthentication");
    assert_eq!(ledger(&s).await, after_first);
    s.stop().await;
}
