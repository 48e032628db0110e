//! Idempotency keys on the wire: the `<ch:IdempotencyKey>` header block as raw bytes over a
//! real TcpStream (same answer twice, charged once; mustUnderstand honoured; bad and reused
//! keys are Client faults), and the retrying client through a proxy that loses the first
//! answer after the server applied it.

mod common;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::server::{faultstring, post, text_of, TestServer};
use soapstone_services::charging::{
    ChargingClient, ChargingStub, IdempotencyKey, KeyedChargingClient, Op, SeedConfig,
};
use soapstone_services::{Db, ServiceKind, ServicesConfig};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

fn config(dir: &std::path::Path) -> ServicesConfig {
    let mut c = ServicesConfig::default();
    c.services = vec![ServiceKind::Charging];
    c.db = Db::Sqlite(dir.join("charging.db"));
    c.seed = SeedConfig::with_accounts(20);
    c
}

fn debit(header: &str, id: i32, am: i32) -> String {
    format!(
        r#"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" xmlns:ch="urn:soapstone:charging"><s:Header>{header}</s:Header><s:Body><ch:directDebit><id>{id}</id><am>{am}</am></ch:directDebit></s:Body></s:Envelope>"#
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_keyed_request_sent_twice_is_charged_once() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(config(dir.path())).await;
    let plain = ChargingClient::new(&server.url("/charging")).unwrap();
    let before = plain.credit_control(2).await.unwrap();
    let header = r#"<ch:IdempotencyKey s:mustUnderstand="1">order-77</ch:IdempotencyKey>"#;
    let first = post(server.addr, "/charging", "", &debit(header, 2, 25)).await;
    assert_eq!(first.status, 200, "{}", first.body);
    let again = post(server.addr, "/charging", "", &debit(header, 2, 25)).await;
    assert_eq!(again.status, 200, "{}", again.body);
    assert_eq!(
        text_of(&first.body, "return"),
        text_of(&again.body, "return")
    );
    assert_eq!(plain.credit_control(2).await.unwrap(), before - 25);

    // Other arguments under the same key: a Client fault, nothing charged.
    let reused = post(server.addr, "/charging", "", &debit(header, 2, 26)).await;
    assert_eq!(reused.status, 500);
    assert_eq!(
        text_of(&reused.body, "faultcode").as_deref(),
        Some("env:Client")
    );
    assert_eq!(
        faultstring(&reused.body).unwrap(),
        "idempotency key `order-77` was used for `directDebit id=2 am=25`, not `directDebit id=2 am=26`"
    );
    // A malformed key: a Client fault naming it.
    let bad = r#"<ch:IdempotencyKey>no spaces allowed</ch:IdempotencyKey>"#;
    let reply = post(server.addr, "/charging", "", &debit(bad, 2, 1)).await;
    assert_eq!(reply.status, 500);
    assert_eq!(
        faultstring(&reply.body).unwrap(),
        "bad idempotency key `no spaces allowed`: expected 1 to 128 characters of A-Z a-z 0-9 - _ . : ~ + / ="
    );
    assert_eq!(plain.credit_control(2).await.unwrap(), before - 25);
    // Without a key, the same request applies each time.
    for _ in 0..2 {
        let r = post(server.addr, "/charging", "", &debit("", 2, 1)).await;
        assert_eq!(r.status, 200, "{}", r.body);
    }
    assert_eq!(plain.credit_control(2).await.unwrap(), before - 27);
    server.stop().await;
}

/// A proxy that forwards everything, except that on its first connection it drops the
/// server's answer (after the server sent it: the operation was applied) and closes.
async fn lossy_proxy(upstream: SocketAddr) -> (SocketAddr, Arc<AtomicUsize>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let conns = Arc::new(AtomicUsize::new(0));
    let count = conns.clone();
    tokio::spawn(async move {
        while let Ok((mut client, _)) = listener.accept().await {
            let n = count.fetch_add(1, Ordering::SeqCst);
            tokio::spawn(async move {
                let mut server = tokio::net::TcpStream::connect(upstream).await.unwrap();
                if n > 0 {
                    let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
                    return;
                }
                let (mut cr, _cw) = client.split();
                let (mut sr, mut sw) = server.split();
                let forward = async {
                    let mut buf = [0u8; 8192];
                    while let Ok(n @ 1..) = cr.read(&mut buf).await {
                        if sw.write_all(&buf[..n]).await.is_err() {
                            break;
                        }
                    }
                };
                let mut first = [0u8; 1];
                tokio::select! {
                    _ = forward => {}
                    _ = sr.read_exact(&mut first) => {}
                }
                // Both sockets drop here: the answer is lost.
            });
        }
    });
    (addr, conns)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_retrying_client_is_charged_once_when_an_answer_is_lost() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(config(dir.path())).await;
    let (proxy, conns) = lossy_proxy(server.addr).await;
    let keyed = KeyedChargingClient::new(&format!("http://{proxy}/charging")).unwrap();
    let plain = ChargingClient::new(&server.url("/charging")).unwrap();
    let before = plain.credit_control(4).await.unwrap();
    let key = IdempotencyKey::new("retry-me").unwrap();
    let cn = tokio::time::timeout(
        Duration::from_secs(60),
        keyed.apply_with_key(&key, Op::DirectDebit { id: 4, am: 40 }),
    )
    .await
    .expect("answers in time")
    .unwrap();
    assert!(
        conns.load(Ordering::SeqCst) >= 2,
        "the first answer was lost, so it retried"
    );
    assert_eq!(
        plain.credit_control(4).await.unwrap(),
        before - 40,
        "charged once"
    );
    let store = server.services.charging().unwrap().store().clone();
    let audit = store.audit().await.unwrap();
    assert_eq!(audit.transactions, 1, "one ledger entry");
    let rec = store.transaction(cn).await.unwrap().unwrap();
    assert_eq!((rec.account, rec.amount), (4, 40));

    // Without a key the same loss charges twice: what the key is for.
    let (proxy, _) = lossy_proxy(server.addr).await;
    let unkeyed = ChargingStub::new(&format!("http://{proxy}/charging")).unwrap();
    assert!(
        unkeyed.direct_debit(4, 1).await.is_err(),
        "the answer was lost"
    );
    unkeyed.direct_debit(4, 1).await.unwrap();
    assert_eq!(plain.credit_control(4).await.unwrap(), before - 42);
    server.stop().await;
}

/// `serve`'s sweeper: with a short `--reservation-ttl`, a reservation nobody touches is given
/// back by itself (an `expireRes` ledger entry), without any request naming it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sweeper_releases_a_forgotten_reservation() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = config(dir.path());
    config.charging.reservation_ttl = Some(Duration::from_millis(300));
    let server = TestServer::start(config).await;
    let c = ChargingClient::new(&server.url("/charging")).unwrap();
    let before = c.credit_control(5).await.unwrap();
    let res = c.reserve(5, 500).await.unwrap();
    assert_eq!(c.credit_control(5).await.unwrap(), before - 500);
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while c.credit_control(5).await.unwrap() != before {
        assert!(
            std::time::Instant::now() < deadline,
            "reservation {res} not released within 30 s"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let store = server.services.charging().unwrap().store().clone();
    let audit = store.audit().await.unwrap();
    assert!(audit.is_clean(), "{audit:?}");
    assert_eq!(audit.transactions, 2, "the reserve and its expiry");
    let e = c.release_res(res).await.unwrap_err();
    assert_eq!(
        e.fault().unwrap().reason,
        format!("reservation `{res}` was already expired")
    );
    server.stop().await;
}

/// A server that answers every request with `status` and a SOAP 1.1 fault of `code`, counting
/// requests and checking that each carries the same idempotency key.
async fn canned(
    status: u16,
    code: &'static str,
) -> (SocketAddr, Arc<std::sync::Mutex<Vec<String>>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let keys = Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = keys.clone();
    tokio::spawn(async move {
        while let Ok((mut s, _)) = listener.accept().await {
            let seen = seen.clone();
            tokio::spawn(async move {
                let mut buf = Vec::new();
                let mut chunk = [0u8; 4096];
                loop {
                    let Ok(n @ 1..) = s.read(&mut chunk).await else {
                        return;
                    };
                    buf.extend_from_slice(&chunk[..n]);
                    let text = String::from_utf8_lossy(&buf).into_owned();
                    let Some(head_end) = text.find("\r\n\r\n") else {
                        continue;
                    };
                    let len: usize = text[..head_end]
                        .lines()
                        .find_map(|l| {
                            l.to_ascii_lowercase()
                                .strip_prefix("content-length:")
                                .map(|v| v.trim().parse().unwrap())
                        })
                        .unwrap_or(0);
                    if buf.len() < head_end + 4 + len {
                        continue;
                    }
                    let body = &text[head_end + 4..head_end + 4 + len];
                    let key = body
                        .split("IdempotencyKey")
                        .nth(1)
                        .and_then(|r| r.split_once('>'))
                        .and_then(|(_, r)| r.split_once('<'))
                        .map(|(k, _)| k.to_owned())
                        .unwrap_or_default();
                    seen.lock().unwrap().push(key);
                    buf.drain(..head_end + 4 + len);
                    let fault = format!(
                        r#"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><s:Fault><faultcode>s:{code}</faultcode><faultstring>canned</faultstring></s:Fault></s:Body></s:Envelope>"#
                    );
                    let reply = format!(
                        "HTTP/1.1 {status} X\r\nContent-Type: text/xml\r\nContent-Length: {}\r\n\r\n{fault}",
                        fault.len()
                    );
                    if s.write_all(reply.as_bytes()).await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    (addr, keys)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_retrying_client_retries_server_trouble_with_one_key_and_never_a_client_fault() {
    let mut retry = soapstone_services::charging::RetryPolicy::default();
    retry.attempts = 4;
    retry.first_backoff = Duration::from_millis(5);
    for (status, code, attempts) in [(500, "Client", 1), (500, "Server", 4), (503, "Server", 4)] {
        let (addr, keys) = canned(status, code).await;
        let c = KeyedChargingClient::new(&format!("http://{addr}/charging"))
            .unwrap()
            .with_retry(retry.clone());
        let e = c.credit(1, 5).await.unwrap_err();
        let keys = keys.lock().unwrap().clone();
        assert_eq!(keys.len(), attempts, "{status} {code}: {e}");
        assert!(
            IdempotencyKey::new(&keys[0]).is_ok() && keys.iter().all(|k| *k == keys[0]),
            "one key for every attempt: {keys:?}"
        );
    }
    // Two operations: two keys.
    let (addr, keys) = canned(500, "Client").await;
    let c = KeyedChargingClient::new(&format!("http://{addr}/charging")).unwrap();
    let _ = c.credit(1, 5).await;
    let _ = c.credit(1, 5).await;
    let keys = keys.lock().unwrap().clone();
    assert_eq!(keys.len(), 2);
    assert_ne!(keys[0], keys[1], "a fresh key per operation");
}

/// The default `ChargingClient` sends a fresh key with every money operation (one attempt
/// each) and none with reads and confirmations; the generated `ChargingStub` sends none.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_default_client_sends_a_fresh_key_with_every_money_operation() {
    let (addr, keys) = canned(500, "Client").await;
    let url = format!("http://{addr}/charging");
    let c = ChargingClient::new(&url).unwrap();
    let _ = c.credit(1, 5).await;
    let _ = c.direct_debit(1, 5).await;
    let _ = c.reserve(1, 5).await;
    let _ = c.debit_reservation(1, 5, 9).await;
    let _ = c.release_res(9).await;
    let money = keys.lock().unwrap().clone();
    assert_eq!(money.len(), 5, "one attempt each: {money:?}");
    for (i, k) in money.iter().enumerate() {
        assert!(
            IdempotencyKey::new(k).is_ok(),
            "a key with operation {i}: {money:?}"
        );
        assert!(
            !money[..i].contains(k),
            "a fresh key per operation: {money:?}"
        );
    }
    let _ = c.credit_control(1).await;
    let _ = c.confirm_action(3).await;
    let stub = ChargingStub::new(&url).unwrap();
    let _ = stub.credit(1, 5).await;
    let all = keys.lock().unwrap().clone();
    assert_eq!(
        all[5..],
        ["", "", ""],
        "no key on reads, confirmations, the stub"
    );
}

/// A caller retrying by itself with the default client reuses the key: charged once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_default_client_retried_with_its_key_is_charged_once() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(config(dir.path())).await;
    let c = ChargingClient::new(&server.url("/charging")).unwrap();
    let before = c.credit_control(6).await.unwrap();
    let key = IdempotencyKey::random();
    let op = Op::DirectDebit { id: 6, am: 30 };
    let first = c.apply_with_key(&key, op).await.unwrap();
    assert_eq!(c.apply_with_key(&key, op).await.unwrap(), first);
    assert_eq!(c.credit_control(6).await.unwrap(), before - 30);
    // Without the caller's key, two calls are two operations.
    c.direct_debit(6, 1).await.unwrap();
    c.direct_debit(6, 1).await.unwrap();
    assert_eq!(c.credit_control(6).await.unwrap(), before - 32);
    server.stop().await;
}
