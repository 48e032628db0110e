//! A client generated from the WSDL Apache CXF 4 publishes for a code-first service
//! (`tests/cxf/*.java`; the WSDL saved from `GET /interop?wsdl` as
//! `testdata/interop/cxf-interop.wsdl`) calls that real CXF server on loopback:
//! document/literal wrapped with unqualified children (CXF's default; a qualified child is
//! a Client fault there), strings with markup, repeated elements, a bean with a list and an
//! optional field, a one-way operation (CXF answers 202; the call is seen arriving), and the
//! declared fault decoded into its detail type.
//!
//! CXF comes from Maven Central (`lab/peers/setup.sh --only cxf`); this test compiles the
//! service with `javac` against those jars. Without them the test says so loudly and passes
//! (CI does not build them). `scripts/interop-generated.sh` builds them and runs this test.

mod peers;

use std::path::Path;

use soapstone_build_test::cxf_interop::{DivideFault, InteropServiceClient, Person};
use soapstone_service::codegen::CallError;

#[tokio::test]
async fn the_generated_client_calls_cxf() {
    let lib = peers::build_dir().join("cxf/lib");
    let has_javac = std::process::Command::new("javac")
        .arg("-version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !lib.is_dir() || !has_javac {
        return peers::skip(
            "the CXF peer (or javac)",
            "run lab/peers/setup.sh --only cxf",
        );
    }
    let classes = std::env::temp_dir().join(format!("soapstone-cxf-{}", std::process::id()));
    std::fs::create_dir_all(&classes).unwrap();
    let cp = format!("{}/*", lib.display());
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cxf");
    let sources: Vec<_> = std::fs::read_dir(&src)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "java"))
        .collect();
    let javac = std::process::Command::new("javac")
        .arg("-d")
        .arg(&classes)
        .arg("-cp")
        .arg(&cp)
        .args(&sources)
        .status()
        .unwrap();
    assert!(javac.success(), "javac failed");
    let port = peers::ReservedPort::new();
    let command: Vec<String> = vec![
        "java".into(),
        "-XX:+UseSerialGC".into(),
        "-Xmx256m".into(),
        "-cp".into(),
        format!("{}:{cp}", classes.display()),
        "InteropCxfServer".into(),
        "{port}".into(),
    ];
    let mut child = peers::start(&command, &port, true).await;
    let c = InteropServiceClient::new(&format!("http://127.0.0.1:{}/interop", port.port)).unwrap();
    let calls = async {
        let s = "a <b> & \u{fc}";
        assert_eq!(
            c.echo_string(Some(s.into())).await.unwrap().as_deref(),
            Some(s)
        );
        assert_eq!(c.echo_string(None).await.unwrap(), None);
        assert_eq!(c.echo_ints(vec![3, -1, 7]).await.unwrap(), [3, -1, 7]);
        assert_eq!(c.echo_ints(vec![]).await.unwrap(), Vec::<i32>::new());
        let ann = Person {
            name: Some("Ann".into()),
            age: 40,
            tags: vec!["a".into()],
        };
        let older = c.older(Some(ann), 2).await.unwrap().unwrap();
        assert_eq!(
            older,
            Person {
                name: Some("Ann".into()),
                age: 42,
                tags: vec!["a".into(), "older".into()],
            }
        );
        // One-way: returns once CXF accepted it (202), and CXF ran it.
        c.record(Some("first".into())).await.unwrap();
        c.record(Some("second".into())).await.unwrap();
        // CXF may run a one-way call after answering 202: poll (bounded, 30 s) for both.
        let mut seen = Vec::new();
        for _ in 0..600 {
            seen = c.recorded().await.unwrap();
            if seen.len() == 2 {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        assert_eq!(seen, ["first", "second"]);
        assert_eq!(c.divide(7, 2).await.unwrap(), 3);
        match c.divide(7, 0).await {
            Err(CallError::Declared {
                detail: DivideFault::DivisionByZero(d),
                fault,
            }) => {
                // CXF sends the detail element empty (`<ns1:DivisionByZero/>`) for an
                // exception without `getFaultInfo`; the reason carries the message.
                assert_eq!(d.message, None);
                assert_eq!(fault.reason, "cannot divide `7` by zero");
            }
            other => panic!("expected the declared fault, got {other:?}"),
        }
    };
    tokio::time::timeout(std::time::Duration::from_secs(120), calls)
        .await
        .expect("CXF answers in time");
    child.kill().await.unwrap();
    let _ = std::fs::remove_dir_all(&classes);
}
