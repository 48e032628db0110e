//! Interop: zeep's `UsernameToken` (PasswordText, then PasswordDigest), and PHP SoapClient
//! with the header built by hand (PasswordDigest), over https to the authenticated charging
//! service; the ledger names the user, and a wrong password comes back as
//! `wsse:FailedAuthentication` and changes nothing. Needs `python3` with `zeep`, and `php` with
//! ext/soap: each test is skipped loudly without its client, a failure under `CI=true`.

mod common;

use std::future::IntoFuture;
use std::sync::Arc;

use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair};
use soapstone_server::{Server, ServerConfig, Tls};
use soapstone_services::{build_services, Auth, Db, ServiceKind, ServicesConfig};
use soapstone_wssec::{UserEntry, UsersFile, WsseConfig};

const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/zeep/wsse.py");
const PHP: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/wsse_php.php");

/// The charging service over https behind `--auth wsse` with one user `operator` (text
/// `operator-text`, digest `operator-digest`).
struct Https {
    dir: tempfile::TempDir,
    port: u16,
    services: soapstone_services::Services,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<std::io::Result<()>>>,
}

impl Https {
    async fn start() -> Https {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
        ca.distinguished_name
            .push(DnType::CommonName, "wsse interop ca");
        ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        let ca = CertifiedIssuer::self_signed(ca, KeyPair::generate().unwrap()).unwrap();
        let key = KeyPair::generate().unwrap();
        let leaf = CertificateParams::new(vec!["localhost".to_owned()])
            .unwrap()
            .signed_by(&key, &ca)
            .unwrap();
        std::fs::write(d.join("ca.pem"), ca.pem()).unwrap();
        let users = d.join("users.toml");
        let entry = UserEntry::new(["read".to_owned(), "move".to_owned()])
            .password("operator-text")
            .digest_secret("operator-digest");
        UsersFile::write_user(&users, "operator", entry).unwrap();
        let mut config = ServicesConfig::default();
        config.services = vec![ServiceKind::Charging];
        config.db = Db::Sqlite(d.join("charging.db"));
        config.seed = common::small_seed();
        config.auth = Some(Auth::new(
            Arc::new(UsersFile::load(&users).unwrap()),
            WsseConfig::default(),
        ));
        let services = build_services(&config).await.unwrap();
        let mut server = ServerConfig::default();
        server.tls =
            Some(Tls::from_pem(leaf.pem().as_bytes(), key.serialize_pem().as_bytes()).unwrap());
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let serving = services
            .mount_on(Server::builder().config(server))
            .serve_with_shutdown(std::net::TcpListener::bind("127.0.0.1:0").unwrap(), async {
                let _ = rx.await;
            })
            .unwrap();
        let port = serving.local_addr().port();
        let task = tokio::spawn(serving.into_future());
        Https {
            dir,
            port,
            services,
            stop: Some(tx),
            task: Some(task),
        }
    }

    fn url(&self) -> String {
        format!("https://localhost:{}/charging", self.port)
    }

    fn ca(&self) -> std::path::PathBuf {
        self.dir.path().join("ca.pem")
    }

    fn store(&self) -> Arc<dyn soapstone_services::charging::Store> {
        self.services.charging().unwrap().store().clone()
    }

    async fn stop(mut self) {
        drop(self.stop.take());
        self.task.take().unwrap().await.unwrap().unwrap();
    }
}

/// Runs `program args...` and parses its one JSON line.
async fn run_json(program: &str, args: &[String]) -> serde_json::Value {
    let out = tokio::process::Command::new(program)
        .args(args)
        .output()
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{program} failed: {}{stdout}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("not one JSON line ({e}): {stdout}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn php_soapclient_with_a_hand_built_digest_header_over_https() {
    let probe = tokio::process::Command::new("php")
        .args([
            "-r",
            "new SoapClient(null, ['location' => 'x', 'uri' => 'y']);",
        ])
        .output()
        .await;
    match probe {
        Ok(o) if o.status.success() => {}
        Ok(o) => {
            return common::skip_unless_ci(&format!(
                "php has no soap extension: {}",
                String::from_utf8_lossy(&o.stderr)
            ))
        }
        Err(e) => return common::skip_unless_ci(&format!("php is required: {e}")),
    }
    let s = Https::start().await;
    let store = s.store();
    let before = store.balance(3).await.unwrap();
    let r = run_json(
        "php",
        &[PHP.to_owned(), s.url(), s.ca().display().to_string()],
    )
    .await;
    assert_eq!(r["balance"].as_i64(), Some(before + 40), "{r}");
    let cn = r["cn"].as_i64().unwrap() as i32;
    let entry = store.transaction(cn).await.unwrap().unwrap();
    assert_eq!(entry.issuer.as_deref(), Some("operator"), "{entry:?}");
    assert!(
        r["wrong"]["code"]
            .as_str()
            .unwrap_or("")
            .ends_with("FailedAuthentication"),
        "{r}"
    );
    assert_eq!(store.balance(3).await.unwrap(), before + 40);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn zeep_username_token_text_and_digest_over_https() {
    let probe = tokio::process::Command::new("python3")
        .args(["-c", "import zeep, requests"])
        .output()
        .await;
    match probe {
        Ok(o) if o.status.success() => {}
        Ok(o) => {
            return common::skip_unless_ci(&format!(
                "python3 has no zeep (pip install zeep): {}",
                String::from_utf8_lossy(&o.stderr)
            ))
        }
        Err(e) => return common::skip_unless_ci(&format!("python3 is required: {e}")),
    }
    let s = Https::start().await;
    let store = s.store();
    let before = store.balance(3).await.unwrap();
    let r = run_json(
        "python3",
        &[SCRIPT.to_owned(), s.url(), s.ca().display().to_string()],
    )
    .await;
    assert_eq!(r["text_balance"].as_i64(), Some(before + 10), "{r}");
    assert_eq!(r["digest_balance"].as_i64(), Some(before + 30), "{r}");
    for key in ["text_cn", "digest_cn"] {
        let cn = r[key].as_i64().unwrap() as i32;
        let entry = store.transaction(cn).await.unwrap().unwrap();
        assert_eq!(entry.issuer.as_deref(), Some("operator"), "{entry:?}");
    }
    let wrong = &r["wrong"];
    assert!(
        wrong["code"]
            .as_str()
            .unwrap_or("")
            .ends_with("FailedAuthentication"),
        "{r}"
    );
    assert_eq!(store.balance(3).await.unwrap(), before + 30);
    s.stop().await;
}
