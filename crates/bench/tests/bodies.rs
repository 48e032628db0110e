//! Several request bodies: requests rotate round-robin over them (library and `--body`).

mod common;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use clap::Parser;
use common::{http_server, response, ENVELOPE};
use http::StatusCode;
use soapstone_bench::{run, Arrivals, BenchArgs, BenchConfig, Load, Schedule, Target};

#[derive(Parser)]
struct Bench {
    #[command(flatten)]
    args: BenchArgs,
}

fn bench(argv: &[&str]) -> BenchArgs {
    Bench::try_parse_from(std::iter::once("bench").chain(argv.iter().copied()))
        .unwrap()
        .args
}

fn account(n: usize) -> Bytes {
    Bytes::from(ENVELOPE.replace("654.321", &format!("{n}.5")))
}

#[tokio::test]
async fn requests_rotate_over_the_bodies() {
    let seen: Arc<Mutex<BTreeMap<Bytes, u64>>> = Arc::default();
    let counted = seen.clone();
    let addr = http_server(move |s| {
        *counted.lock().unwrap().entry(s.body).or_default() += 1;
        async { response(StatusCode::OK, "<ok/>") }
    })
    .await;
    let bodies: Vec<Bytes> = (0..3).map(account).collect();
    let target = Target::soap_bodies(&format!("http://{addr}/soap"), bodies.clone()).unwrap();
    // 100/s over 0.3 s on 2 connections: 15 requests each. Connection 0 sends bodies
    // 0,1,2,0,.. and connection 1 sends 1,2,0,..: 10 of each body in all.
    let schedule = Schedule::single(
        Duration::from_millis(300),
        Load::Open {
            rate: 100.0,
            arrivals: Arrivals::Uniform,
        },
    )
    .unwrap();
    let r = run(BenchConfig::new(target, schedule)
        .connections(2)
        .timeout(Duration::from_secs(5)))
    .await
    .unwrap()
    .report;
    assert_eq!(r.requests.ok, 30, "{r:#?}");
    let seen = seen.lock().unwrap();
    let expected: BTreeMap<Bytes, u64> = bodies.into_iter().map(|b| (b, 10)).collect();
    assert_eq!(*seen, expected);
}

#[test]
fn soap_bodies_needs_at_least_one() {
    let err = Target::soap_bodies("http://127.0.0.1:9/soap", Vec::new()).unwrap_err();
    assert!(err.to_string().contains("at least one body"), "{err}");
}

#[test]
fn body_flag_repeats_and_takes_a_directory() {
    let dir = std::env::temp_dir().join(format!("soapstone-bench-bodies-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("many")).unwrap();
    std::fs::create_dir_all(dir.join("empty")).unwrap();
    for (name, n) in [("b.xml", 1), ("a.xml", 0), ("c.xml", 2)] {
        std::fs::write(dir.join("many").join(name), account(n)).unwrap();
    }
    let one = dir.join("one.xml");
    std::fs::write(&one, account(7)).unwrap();
    let (many, empty, one) = (
        dir.join("many").to_str().unwrap().to_string(),
        dir.join("empty").to_str().unwrap().to_string(),
        one.to_str().unwrap().to_string(),
    );
    let url = "http://127.0.0.1:9/soap";

    let bodies = |argv: &[&str]| match bench(argv).to_config().unwrap().target {
        Target::Soap(t) => t.bodies,
        other => panic!("not a soap target: {other:?}"),
    };
    // A directory stands for its files in name order; repeated flags keep their order.
    assert_eq!(
        bodies(&[url, "--body", &one, "--body", &many]),
        vec![account(7), account(0), account(1), account(2)]
    );
    assert_eq!(bodies(&[url, "--body", &one]), vec![account(7)]);

    let err = |argv: &[&str]| bench(argv).to_config().unwrap_err().to_string();
    assert!(
        err(&[url, "--body", &empty]).contains("is a directory with no files"),
        "{}",
        err(&[url, "--body", &empty])
    );
    let tcp = err(&[
        "tcp://127.0.0.1:9",
        "--body",
        &one,
        "--body",
        &one,
        "--response-size",
        "4",
    ]);
    assert!(tcp.contains("gives 2 bodies"), "{tcp}");
    let _ = std::fs::remove_dir_all(&dir);
}
