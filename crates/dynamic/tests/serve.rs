//! Against a real, in-process `soapstone serve` on a loopback port: every WSDL it publishes
//! reads back (over HTTP) to the very model it was written from, and the dynamic client calls
//! the services from their WSDLs alone, SOAP 1.1 and 1.2, with the right values.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use soapstone_dynamic::{get, http_fetch, CallError, DynamicClient, Target};
use soapstone_server::Server;
use soapstone_services::{build_services, Db, ServiceKind, ServicesConfig};
use soapstone_wsdl::read::{read, read_str, Definitions, ReadOptions};

struct Serve {
    base: String,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
}

async fn serve(dir: &std::path::Path) -> Serve {
    let mut config = ServicesConfig::default();
    config.services = ServiceKind::ALL.to_vec();
    config.db = Db::Sqlite(dir.join("charging.db"));
    config.seed = soapstone_services::charging::SeedConfig::with_accounts(20);
    let services = build_services(&config).await.expect("build services");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let serving = services
        .mount_on(Server::builder())
        .serve_with_shutdown(listener, async move {
            let _ = rx.await;
        })
        .unwrap();
    let base = format!("http://{}", serving.local_addr());
    let task = tokio::spawn(std::future::IntoFuture::into_future(serving));
    Serve {
        base,
        shutdown: Some(tx),
        task,
    }
}

impl Serve {
    async fn stop(mut self) {
        let _ = self.shutdown.take().unwrap().send(());
        self.task.await.unwrap().unwrap();
    }
}

/// The WSDLs `soapstone serve` publishes: (path, query).
const PUBLISHED: [(&str, &str); 9] = [
    ("/charging", "wsdl"),
    ("/dp", "wsdl"),
    ("/echo", "wsdl"),
    ("/echo", "wsdl=groupB"),
    ("/echo", "wsdl=tempuri"),
    ("/contacts", "wsdl"),
    ("/wsb/card", "wsdl"),
    ("/wsb/news", "wsdl"),
    ("/wsb/shop", "wsdl"),
];

async fn fetch(url: String) -> String {
    tokio::task::spawn_blocking(move || get(&url, 16 << 20, Duration::from_secs(30), None))
        .await
        .unwrap()
        .unwrap()
}

async fn defs(url: String) -> Arc<Definitions> {
    let d = tokio::task::spawn_blocking(move || {
        let mut options = ReadOptions::default();
        options.fetch = Some(http_fetch(16 << 20, Duration::from_secs(30), None));
        read(&url, &options)
    })
    .await
    .unwrap()
    .unwrap();
    assert!(d.problems.is_empty(), "{:?}", d.problems);
    Arc::new(d)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_published_wsdl_reads_back_to_its_model_and_is_callable() {
    let dir = std::env::temp_dir().join(format!("soapstone-dynamic-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let s = serve(&dir).await;
    for (path, query) in PUBLISHED {
        let endpoint = format!("{}{path}", s.base);
        let url = format!("{endpoint}?{query}");
        let text = fetch(url.clone()).await;
        let d = read_str(&text, &url, &ReadOptions::default()).unwrap();
        for svc in &d.services {
            for port in &svc.ports {
                let model = d.service_model(&svc.name.local, &port.name).unwrap();
                assert_eq!(
                    soapstone_wsdl::wsdl(&model, &endpoint),
                    text,
                    "{url} port {}",
                    port.name
                );
            }
        }
    }
    echo_calls(&s.base).await;
    s.stop().await;
    let _ = std::fs::remove_dir_all(&dir);
}

async fn call(d: &Arc<Definitions>, soap12: bool, op: &str, args: Value) -> Value {
    let mut t = Target::default();
    t.soap12 = soap12;
    let c = DynamicClient::new(d.clone(), &t).unwrap();
    c.call(op, &args)
        .await
        .unwrap_or_else(|e| panic!("{op} (soap12 {soap12}): {e}"))
        .value
}

async fn echo_calls(base: &str) {
    let base_wsdl = defs(format!("{base}/echo?wsdl")).await;
    let group_b = defs(format!("{base}/echo?wsdl=groupB")).await;
    let tempuri = defs(format!("{base}/echo?wsdl=tempuri")).await;
    let card = defs(format!("{base}/wsb/card?wsdl")).await;
    let news = defs(format!("{base}/wsb/news?wsdl")).await;
    let s1 = json!({"varString": "a <&> b", "varInt": -7, "varFloat": 1.5});
    let s2 = json!({"varString": "", "varInt": 2147483647, "varFloat": -0.25});
    for soap12 in [false, true] {
        let b = &base_wsdl;
        let cases = [
            (
                "echoString",
                json!({"inputString": "Hello World"}),
                json!("Hello World"),
            ),
            ("echoString", json!({"inputString": null}), Value::Null),
            ("echoInteger", json!({"inputInteger": -42}), json!(-42)),
            ("echoFloat", json!({"inputFloat": 654.321}), json!(654.321)),
            ("echoBoolean", json!({"inputBoolean": false}), json!(false)),
            (
                "echoDecimal",
                json!({"inputDecimal": "123.45"}),
                json!("123.45"),
            ),
            (
                "echoBase64",
                json!({"inputBase64": "AAEC/w=="}),
                json!("AAEC/w=="),
            ),
            (
                "echoHexBinary",
                json!({"inputHexBinary": "00FF10"}),
                json!("00FF10"),
            ),
            (
                "echoIntegerArray",
                json!({"inputIntegerArray": [1, 2, 3]}),
                json!([1, 2, 3]),
            ),
            (
                "echoIntegerArray",
                json!({"inputIntegerArray": []}),
                json!([]),
            ),
            (
                "echoFloatArray",
                json!({"inputFloatArray": [0.5, -1.25]}),
                json!([0.5, -1.25]),
            ),
            (
                "echoStringArray",
                json!({"inputStringArray": ["a", "b"]}),
                json!(["a", "b"]),
            ),
            ("echoStruct", json!({"inputStruct": s1}), s1.clone()),
            (
                "echoStructArray",
                json!({"inputStructArray": [s1, s2]}),
                json!([s1, s2]),
            ),
            ("echoVoid", json!({}), Value::Null),
        ];
        for (op, args, want) in cases {
            assert_eq!(
                call(b, soap12, op, args.clone()).await,
                want,
                "{op} {args} soap12 {soap12}"
            );
        }
        // A dateTime comes back as the same instant (the server may normalise its form).
        let date = call(
            b,
            soap12,
            "echoDate",
            json!({"inputDate": "2001-02-03T04:05:06Z"}),
        )
        .await;
        assert!(
            date.as_str().unwrap().starts_with("2001-02-03T04:05:06"),
            "{date}"
        );
        // Several results (rpc/encoded): an object of the parts.
        assert_eq!(
            call(
                &group_b,
                soap12,
                "echoStructAsSimpleTypes",
                json!({"inputStruct": s1})
            )
            .await,
            json!({"outputString": "a <&> b", "outputInteger": -7, "outputFloat": 1.5})
        );
        assert_eq!(
            call(
                &group_b,
                soap12,
                "echoSimpleTypesAsStruct",
                json!({"inputString": "x", "inputInteger": 1, "inputFloat": 2.5})
            )
            .await,
            json!({"varString": "x", "varInt": 1, "varFloat": 2.5})
        );
        // document/literal wrapped.
        assert_eq!(
            call(&tempuri, soap12, "echoFloat", json!({"input": 1.25})).await,
            json!(1.25)
        );
        let authorized = call(
            &card,
            soap12,
            "authorize",
            json!({"account": "4111111111111111", "holder": "A", "userId": "u", "amount": 10.0, "currency": "EUR", "expiry": "2010-01"}),
        )
        .await;
        assert_eq!(authorized, json!(true));
        let headlines = call(
            &news,
            soap12,
            "getHeadlines",
            json!({"from": "2008-01-01", "to": "2008-01-02", "sources": ["coruna-herald", "tech-dispatch"]}),
        )
        .await;
        let list = headlines.as_array().expect("an array of headlines");
        assert!(!list.is_empty(), "{headlines}");
        assert!(list.iter().all(|h| h.is_object()), "{headlines}");
    }
    // A Fault is an error with the server's code and reason, not a value.
    let c = DynamicClient::new(base_wsdl.clone(), &Target::default()).unwrap();
    match c.call("echoInteger", &json!({"inputInteger": "x"})).await {
        Err(CallError::Fault { fault, .. }) => {
            assert!(fault.code.ends_with("Client"), "{fault}");
            assert!(fault.reason.contains("inputInteger"), "{fault}");
        }
        other => panic!("expected a fault, got {other:?}"),
    }
    // Arguments that do not fit are refused before anything is sent.
    match c
        .call(
            "echoStruct",
            &json!({"inputStruct": {"varString": "a", "varInt": 1}}),
        )
        .await
    {
        Err(CallError::Args(e)) => {
            assert_eq!(
                e.to_string(),
                "missing `varFloat` at `/inputStruct/varFloat`"
            )
        }
        other => panic!("expected an argument error, got {other:?}"),
    }
}
