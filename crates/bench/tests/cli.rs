//! `soapstone bench` / `soapstone baseline` argument handling: clap parsing, the
//! validation into a config, clear errors, and one full run through `run_cli`.

mod common;

use std::time::Duration;

use clap::Parser;
use soapstone_bench::{
    run_cli, start_baseline, Arrivals, Baseline, BaselineArgs, BenchArgs, BenchReport, Load,
};

#[derive(Parser)]
struct Bench {
    #[command(flatten)]
    args: BenchArgs,
}

#[derive(Parser)]
struct Base {
    #[command(flatten)]
    args: BaselineArgs,
}

fn bench(argv: &[&str]) -> Result<BenchArgs, clap::Error> {
    Bench::try_parse_from(std::iter::once("bench").chain(argv.iter().copied())).map(|b| b.args)
}

/// A request body in a file of its own, removed when dropped: the tests run in parallel, and
/// one shared path could be truncated by one test's write while another read it (and it was
/// left in /tmp after every run).
fn body_file() -> tempfile::NamedTempFile {
    let file = tempfile::Builder::new()
        .prefix("soapstone-bench-cli-")
        .suffix(".xml")
        .tempfile()
        .unwrap();
    std::fs::write(file.path(), common::ENVELOPE).unwrap();
    file
}

#[test]
fn patterns_become_the_thesis_schedules() {
    let body = body_file();
    let body = body.path().to_str().unwrap();
    let url = "http://127.0.0.1:9/soap";

    let c = bench(&[url, "--body", body, "--pattern", "stress"])
        .unwrap()
        .to_config()
        .unwrap();
    assert_eq!(c.schedule.phases()[0].load, Load::Closed { workers: 5 });
    assert_eq!(c.schedule.duration(), Duration::from_secs(10));

    let c = bench(&[
        url,
        "--body",
        body,
        "--pattern",
        "peak",
        "-c",
        "3",
        "--duration",
        "4s",
    ])
    .unwrap()
    .to_config()
    .unwrap();
    assert!(matches!(
        c.schedule.phases()[0].load,
        Load::Bursts { workers: 3, .. }
    ));

    let c = bench(&[url, "--body", body, "--pattern", "traffic"])
        .unwrap()
        .to_config()
        .unwrap();
    assert_eq!(
        c.schedule.phases()[0].load,
        Load::Open {
            rate: 10.0,
            arrivals: Arrivals::Poisson
        }
    );
    assert_eq!(c.connections, 10);

    let c = bench(&[url, "--body", body, "--rate", "250", "--timeout", "2s"])
        .unwrap()
        .to_config()
        .unwrap();
    assert_eq!(
        c.schedule.phases()[0].load,
        Load::Open {
            rate: 250.0,
            arrivals: Arrivals::Uniform
        }
    );
    assert_eq!(c.timeout, Duration::from_secs(2));

    let c = bench(&[url, "--body", body]).unwrap().to_config().unwrap();
    assert_eq!(c.schedule.phases()[0].load, Load::Closed { workers: 1 });

    let c = bench(&[url, "--body", body, "--schedule", "test2", "--scale", "0.1"])
        .unwrap()
        .to_config()
        .unwrap();
    assert_eq!(c.schedule.phases().len(), 10);
    assert_eq!(c.schedule.duration(), Duration::from_secs(30));
}

#[test]
fn schedule_files_are_read() {
    let path = std::env::temp_dir().join(format!(
        "soapstone-bench-schedule-{}.txt",
        std::process::id()
    ));
    std::fs::write(&path, "1s rate 5 poisson\n2s closed 2\n").unwrap();
    let c = bench(&[
        "tcp-connect://127.0.0.1:9",
        "--schedule",
        path.to_str().unwrap(),
    ])
    .unwrap()
    .to_config()
    .unwrap();
    assert_eq!(c.schedule.phases().len(), 2);
    std::fs::write(&path, "1s rate five\n").unwrap();
    let err = bench(&[
        "tcp-connect://127.0.0.1:9",
        "--schedule",
        path.to_str().unwrap(),
    ])
    .unwrap()
    .to_config()
    .unwrap_err();
    let msg = format!("{err:#}");
    assert!(
        msg.contains("line 1: rate must be a number, got `five`"),
        "{msg}"
    );
    let err = bench(&["tcp-connect://127.0.0.1:9", "--schedule", "test3"])
        .unwrap()
        .to_config()
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("neither test1, test2 nor a readable file"),
        "{err}"
    );
}

#[test]
fn conflicting_and_missing_arguments_are_refused() {
    let body = body_file();
    let body = body.path().to_str().unwrap();
    let url = "http://127.0.0.1:9/soap";
    assert!(bench(&[url, "--body", body, "--rate", "5", "--closed"]).is_err());
    assert!(bench(&[url, "--body", body, "--schedule", "test1", "--rate", "5"]).is_err());
    assert!(bench(&[
        url,
        "--body",
        body,
        "--schedule",
        "test1",
        "--duration",
        "5s"
    ])
    .is_err());
    assert!(bench(&[url, "--duration", "5 parsecs"]).is_err());

    let msg = |argv: &[&str]| bench(argv).unwrap().to_config().unwrap_err().to_string();
    assert_eq!(
        msg(&[url]),
        "an http target needs `--body FILE` (the SOAP envelope to post)"
    );
    assert!(
        msg(&[url, "--body", body, "--pattern", "stress", "--rate", "3"])
            .contains("`--rate` does not apply")
    );
    assert!(
        msg(&[url, "--body", body, "--pattern", "traffic", "--closed"])
            .contains("`--closed` does not apply")
    );
    assert!(msg(&["tcp://127.0.0.1:9", "--request-size", "10"]).contains("`--response-size M`"));
    assert!(msg(&[
        "tcp://127.0.0.1",
        "--request-size",
        "1",
        "--response-size",
        "1"
    ])
    .contains("a port is required"));
    assert!(msg(&["grpc://127.0.0.1:9", "--body", body]).contains("`--body` has no use"));
    assert!(msg(&["ftp://x:1"]).starts_with("unknown target `ftp://x:1`"));
    assert!(msg(&[url, "--body", "/nonexistent/envelope.xml"]).contains("cannot read `--body"));
    assert!(msg(&[url, "--body", body, "--schedule", "test1", "--scale", "0"]).contains("--scale"));
}

#[test]
fn baseline_arguments() {
    let parse = |argv: &[&str]| {
        Base::try_parse_from(std::iter::once("baseline").chain(argv.iter().copied()))
            .map(|b| b.args)
    };
    let a = parse(&[
        "tcp-pingpong",
        "--request-size",
        "10",
        "--response-size",
        "20",
    ])
    .unwrap();
    assert_eq!(
        a.baseline().unwrap(),
        Baseline::TcpPingPong {
            request_size: 10,
            response_size: 20
        }
    );
    assert_eq!(a.addr.to_string(), "127.0.0.1:0");
    assert!(parse(&["tcp-pingpong"]).unwrap().baseline().is_err());
    assert!(parse(&["grpc", "--response-size", "3"])
        .unwrap()
        .baseline()
        .is_err());
    assert_eq!(
        parse(&["http-noop", "--addr", "127.0.0.1:8080"])
            .unwrap()
            .baseline()
            .unwrap(),
        Baseline::HttpNoop
    );
    assert!(parse(&["corba"]).is_err());
}

#[tokio::test]
async fn run_cli_writes_the_json_report() {
    let server = start_baseline(
        Baseline::TcpPingPong {
            request_size: 64,
            response_size: 32,
        },
        "127.0.0.1:0".parse().unwrap(),
    )
    .await
    .unwrap();
    let out = std::env::temp_dir().join(format!(
        "soapstone-bench-report-{}.json",
        std::process::id()
    ));
    let url = format!("tcp://{}", server.local_addr());
    let args = bench(&[
        &url,
        "--request-size",
        "64",
        "--response-size",
        "32",
        "--rate",
        "50",
        "--duration",
        "200ms",
        "-c",
        "2",
        "--json",
        out.to_str().unwrap(),
    ])
    .unwrap();
    run_cli(args).await.unwrap();
    let report: BenchReport = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(report.requests.ok, 10);
    assert_eq!(report.bytes_sent, 640);
    assert_eq!(report.bytes_received, 320);
    assert_eq!(report.requested_rate, Some(50.0));
    let _ = std::fs::remove_file(&out);

    // Against a dead port every request fails, and the command says so.
    let dead = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap()
    };
    let args = bench(&[
        &format!("tcp-connect://{dead}"),
        "--rate",
        "20",
        "--duration",
        "100ms",
        "-c",
        "1",
    ])
    .unwrap();
    let err = run_cli(args).await.unwrap_err();
    assert_eq!(err.to_string(), "no request succeeded (2 errors)");
    server.shutdown().await;
}

#[test]
fn wsse_arguments_are_checked() {
    let body = body_file();
    let body = body.path().to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let secret = dir.path().join("secret");
    std::fs::write(&secret, "s3cret\n").unwrap();
    let secret = secret.to_str().unwrap();
    let url = "http://127.0.0.1:9/soap";
    let ok = bench(&[
        url,
        "--body",
        body,
        "--wsse-user",
        "op",
        "--wsse-password-file",
        secret,
    ]);
    assert!(ok.unwrap().to_config().is_ok());
    let digest = bench(&[
        url,
        "--body",
        body,
        "--wsse-user",
        "op",
        "--wsse-password-file",
        secret,
        "--wsse-digest",
    ]);
    assert!(digest.unwrap().to_config().is_ok());
    // Each needs the other; a tcp target has no envelope to put a token in.
    assert!(bench(&[url, "--body", body, "--wsse-user", "op"]).is_err());
    assert!(bench(&[url, "--body", body, "--wsse-password-file", secret]).is_err());
    assert!(bench(&[url, "--body", body, "--wsse-digest"]).is_err());
    let e = bench(&[
        "tcp://127.0.0.1:9",
        "--request-size",
        "4",
        "--response-size",
        "4",
        "--wsse-user",
        "op",
        "--wsse-password-file",
        secret,
    ])
    .unwrap()
    .to_config()
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "`--wsse-user` has no use with a `tcp://` target"
    );
    let empty = dir.path().join("empty");
    std::fs::write(&empty, "\n").unwrap();
    let empty = empty.to_str().unwrap();
    let e = bench(&[
        url,
        "--body",
        body,
        "--wsse-user",
        "op",
        "--wsse-password-file",
        empty,
    ])
    .unwrap()
    .to_config()
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        format!("`--wsse-password-file` `{empty}` has an empty first line")
    );
}
