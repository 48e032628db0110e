//! WS-Security over a real loopback server: UsernameToken text and digest from the typed
//! client, and every refusal as raw bytes over a TcpStream (fault code, HTTP status, and that
//! the service's state did not change).

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use soapstone_client::ClientConfig;
use soapstone_service::{service, Context, Fault, SoapService};
use soapstone_wssec::{
    hash_password, Secured, UsernameTokenHeader, UsersFile, WsseConfig, WsseFault, WSSE_NS,
};

#[service(name = "Vault", namespace = "urn:vault")]
pub trait Vault {
    /// Adds `am` to the total (needs `move`); returns who did it.
    async fn deposit(&self, ctx: &Context, am: i32) -> Result<String, Fault>;
}

#[derive(Default)]
struct Impl {
    total: AtomicI32,
}

impl Vault for Arc<Impl> {
    async fn deposit(&self, ctx: &Context, am: i32) -> Result<String, Fault> {
        let Some(p) = ctx.principal() else {
            return Ok("nobody".into());
        };
        if !p.may("move") {
            return Err(WsseFault::FailedAuthentication.to_fault(ctx.version()));
        }
        self.total.fetch_add(am, Ordering::SeqCst);
        Ok(p.name.clone())
    }
}

struct Running {
    addr: SocketAddr,
    state: Arc<Impl>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    rt: tokio::runtime::Runtime,
    server: Option<tokio::task::JoinHandle<std::io::Result<()>>>,
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(h) = self.server.take() {
            let _ = self.rt.block_on(h);
        }
    }
}

fn users() -> Arc<UsersFile> {
    let text = format!(
        "[users.alice]\npermissions = [\"move\", \"read\"]\npassword_hash = \"{}\"\n\
         digest_secret = \"alice-digest\"\n\
         [users.reader]\npermissions = [\"read\"]\ndigest_secret = \"reader-digest\"\n",
        hash_password("alice-text")
    );
    Arc::new(UsersFile::parse(&text).unwrap())
}

fn start() -> Running {
    let state = Arc::new(Impl::default());
    let inner: Arc<dyn SoapService> = Arc::new(VaultServer::new(state.clone()));
    let secured = Secured::with_config(inner.clone(), users(), WsseConfig::default());
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = soapstone_server::Server::builder()
        .mount("/vault", Arc::new(secured))
        .mount("/open", inner)
        .serve_with_shutdown(listener, async move {
            let _ = stopped.await;
        })
        .unwrap();
    let addr = serving.local_addr();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let server = rt.spawn(std::future::IntoFuture::into_future(serving));
    Running {
        addr,
        state,
        stop: Some(stop),
        rt,
        server: Some(server),
    }
}

fn envelope11(header: &str, am: i32) -> String {
    format!(
        r#"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Header>{header}</soap:Header><soap:Body><v:deposit xmlns:v="urn:vault"><am>{am}</am></v:deposit></soap:Body></soap:Envelope>"#
    )
}

/// Posts `body` and returns (status, body).
fn post(addr: SocketAddr, path: &str, content_type: &str, body: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    write!(
        stream,
        "POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: {content_type}\r\nSOAPAction: \"\"\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let status = answer[9..12].parse().unwrap();
    let body = answer.split_once("\r\n\r\n").unwrap().1.to_string();
    (status, body)
}

fn post11(addr: SocketAddr, header: &str) -> (u16, String) {
    post(
        addr,
        "/vault",
        "text/xml; charset=utf-8",
        &envelope11(header, 5),
    )
}

fn block(user: &str, password: &str, digest: bool, nonce: &[u8], at: SystemTime) -> String {
    let h = if digest {
        UsernameTokenHeader::digest(user, password)
    } else {
        UsernameTokenHeader::text(user, password)
    };
    h.block_at(nonce, at)
}

fn assert_wsse_fault_11(status: u16, body: &str, local: &str) {
    assert_eq!(status, 500, "{body}");
    assert!(
        body.contains(&format!(
            "<faultcode xmlns:c=\"{WSSE_NS}\">c:{local}</faultcode>"
        )),
        "{body}"
    );
    assert!(
        !body.contains("alice") && !body.contains("mallory"),
        "{body}"
    );
}

#[test]
fn typed_clients_with_text_and_digest_tokens_are_served_as_their_user() {
    let s = start();
    let url = format!("http://{}/vault", s.addr);
    for header in [
        UsernameTokenHeader::digest("alice", "alice-digest"),
        UsernameTokenHeader::text("alice", "alice-text").timestamp(Duration::from_secs(60)),
    ] {
        let config = ClientConfig::default().headers(Arc::new(header));
        let client =
            VaultClient::with_client(soapstone_client::Client::with_config(&url, config).unwrap());
        let who = s.rt.block_on(async {
            // Two calls: each carries a fresh nonce, so the second is no replay.
            client.deposit(1).await.unwrap();
            client.deposit(2).await.unwrap()
        });
        assert_eq!(who, "alice");
    }
    assert_eq!(s.state.total.load(Ordering::SeqCst), 6);
}

#[test]
fn wrong_password_and_unknown_user_read_the_same_and_change_nothing() {
    let s = start();
    let now = SystemTime::now();
    let (st1, wrong) = post11(s.addr, &block("alice", "alice-texT", false, b"n-1", now));
    assert_wsse_fault_11(st1, &wrong, "FailedAuthentication");
    let (st2, unknown) = post11(s.addr, &block("mallory", "alice-text", false, b"n-2", now));
    assert_wsse_fault_11(st2, &unknown, "FailedAuthentication");
    assert_eq!(wrong, unknown, "the two refusals must not be told apart");
    let (st3, digest) = post11(s.addr, &block("alice", "alice-text", true, b"n-3", now));
    assert_wsse_fault_11(st3, &digest, "FailedAuthentication");
    assert_eq!(s.state.total.load(Ordering::SeqCst), 0);
}

#[test]
fn a_replayed_nonce_is_refused_the_second_time() {
    let s = start();
    let header = block(
        "alice",
        "alice-digest",
        true,
        b"once-only",
        SystemTime::now(),
    );
    let (status, body) = post11(s.addr, &header);
    assert_eq!(status, 200, "{body}");
    assert!(body.contains(">alice<"), "{body}");
    let (status, body) = post11(s.addr, &header);
    assert_wsse_fault_11(status, &body, "FailedAuthentication");
    assert_eq!(s.state.total.load(Ordering::SeqCst), 5);
}

#[test]
fn expired_timestamps_and_stale_tokens_are_message_expired() {
    let s = start();
    let hour_ago = SystemTime::now() - Duration::from_secs(3600);
    // A token created an hour ago (freshness window 300 s + 60 s skew).
    let (status, body) = post11(
        s.addr,
        &block("alice", "alice-digest", true, b"old", hour_ago),
    );
    assert_wsse_fault_11(status, &body, "MessageExpired");
    // A fresh token in a Security header whose Timestamp expired ten minutes ago.
    let fresh = block("alice", "alice-digest", true, b"fresh", SystemTime::now());
    let expired = fresh.replacen(
        "<wsse:UsernameToken>",
        "<wsu:Timestamp><wsu:Created>2026-01-01T00:00:00Z</wsu:Created><wsu:Expires>2026-01-01T00:05:00Z</wsu:Expires></wsu:Timestamp><wsse:UsernameToken>",
        1,
    );
    let (status, body) = post11(s.addr, &expired);
    assert_wsse_fault_11(status, &body, "MessageExpired");
    // A token from the future, past the skew.
    let later = SystemTime::now() + Duration::from_secs(600);
    let (status, body) = post11(
        s.addr,
        &block("alice", "alice-digest", true, b"future", later),
    );
    assert_wsse_fault_11(status, &body, "InvalidSecurityToken");
    assert_eq!(s.state.total.load(Ordering::SeqCst), 0);
}

#[test]
fn a_missing_or_malformed_security_header_is_refused() {
    let s = start();
    let (status, body) = post11(s.addr, "");
    assert_wsse_fault_11(status, &body, "InvalidSecurity");
    // No username.
    let bad = format!(
        r#"<wsse:Security xmlns:wsse="{WSSE_NS}"><wsse:UsernameToken><wsse:Password>x</wsse:Password></wsse:UsernameToken></wsse:Security>"#
    );
    let (status, body) = post11(s.addr, &bad);
    assert_wsse_fault_11(status, &body, "InvalidSecurityToken");
    // An unknown password type.
    let bad = format!(
        r#"<wsse:Security xmlns:wsse="{WSSE_NS}"><wsse:UsernameToken><wsse:Username>alice</wsse:Username><wsse:Password Type="urn:rot13">nyvpr</wsse:Password></wsse:UsernameToken></wsse:Security>"#
    );
    let (status, body) = post11(s.addr, &bad);
    assert_wsse_fault_11(status, &body, "UnsupportedSecurityToken");
    // A digest without its nonce.
    let digest = block("alice", "alice-digest", true, b"n", SystemTime::now());
    let start = digest.find("<wsse:Nonce").unwrap();
    let end = digest.find("</wsse:Nonce>").unwrap() + "</wsse:Nonce>".len();
    let no_nonce = format!("{}{}", &digest[..start], &digest[end..]);
    let (status, body) = post11(s.addr, &no_nonce);
    assert_wsse_fault_11(status, &body, "InvalidSecurityToken");
    assert_eq!(s.state.total.load(Ordering::SeqCst), 0);
}

#[test]
fn a_user_without_the_permission_is_refused_by_the_service() {
    let s = start();
    let header = block("reader", "reader-digest", true, b"r1", SystemTime::now());
    let (status, body) = post11(s.addr, &header);
    assert_wsse_fault_11(status, &body, "FailedAuthentication");
    assert_eq!(s.state.total.load(Ordering::SeqCst), 0);
}

#[test]
fn soap12_refusals_are_sender_faults_with_the_wsse_subcode_and_http_400() {
    let s = start();
    let body = format!(
        r#"<soap:Envelope xmlns:soap="http://www.w3.org/2003/05/soap-envelope"><soap:Header>{}</soap:Header><soap:Body><v:deposit xmlns:v="urn:vault"><am>5</am></v:deposit></soap:Body></soap:Envelope>"#,
        block("alice", "wrong", true, b"12", SystemTime::now())
    );
    let (status, body) = post(
        s.addr,
        "/vault",
        "application/soap+xml; charset=utf-8",
        &body,
    );
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("<env:Value>env:Sender</env:Value>"), "{body}");
    assert!(
        body.contains(&format!(
            "<env:Subcode><env:Value xmlns:c=\"{WSSE_NS}\">c:FailedAuthentication</env:Value></env:Subcode>"
        )),
        "{body}"
    );
    assert_eq!(s.state.total.load(Ordering::SeqCst), 0);
}

#[test]
fn must_understand_security_is_obeyed_by_the_layer_and_refused_without_it() {
    let s = start();
    let header = block("alice", "alice-digest", true, b"mu", SystemTime::now());
    assert!(header.contains("soap:mustUnderstand=\"1\""), "{header}");
    let (status, body) = post11(s.addr, &header);
    assert_eq!(status, 200, "{body}");
    // The same service mounted without the layer does not understand the header.
    let header = block("alice", "alice-digest", true, b"mu2", SystemTime::now());
    let (status, body) = post(
        s.addr,
        "/open",
        "text/xml; charset=utf-8",
        &envelope11(&header, 5),
    );
    assert_eq!(status, 500, "{body}");
    assert!(body.contains("MustUnderstand</faultcode>"), "{body}");
    assert_eq!(s.state.total.load(Ordering::SeqCst), 5);
}
