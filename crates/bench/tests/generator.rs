//! The generator end to end against real loopback servers: schedules and their phases,
//! warm-up, Poisson load, the request on the wire, and the report's bookkeeping.

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{http_server, response, ENVELOPE};
use http::StatusCode;
use soapstone_bench::schedule::open_arrivals;
use soapstone_bench::{
    run, start_baseline, Arrivals, Baseline, BenchConfig, Load, Phase, Schedule, SoapVersion,
    Target,
};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

async fn noop_target() -> (soapstone_bench::BaselineServer, Target) {
    let server = start_baseline(Baseline::HttpNoop, "127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    let target = Target::soap(&server.url(Baseline::HttpNoop), ENVELOPE).unwrap();
    (server, target)
}

/// Uniform arrivals of one phase over `tasks` tasks (they do not depend on the seed).
fn uniform_count(start: Duration, end: Duration, rate: f64, tasks: usize) -> u64 {
    (0..tasks)
        .map(|t| open_arrivals(start, end, rate, Arrivals::Uniform, t, tasks, 0).count() as u64)
        .sum()
}

#[tokio::test]
async fn mixed_schedule_runs_each_phase() {
    let (_server, target) = noop_target().await;
    let schedule = Schedule::parse(
        "300ms rate 100\n\
         300ms idle\n\
         300ms closed 2\n\
         300ms bursts 2 burst 100ms gap 50ms\n",
    )
    .unwrap();
    let run = run(BenchConfig::new(target, schedule).connections(3))
        .await
        .unwrap();
    let r = &run.report;
    assert_eq!(r.connections, 3);
    assert_eq!(r.phases.len(), 4);
    let [open, idle, closed, bursts] = &r.phases[..] else {
        unreachable!()
    };
    assert_eq!(open.requests, 30, "{r:#?}");
    assert_eq!(open.ok, 30);
    assert!((open.expected.unwrap() - 30.0).abs() < 1e-9);
    assert_eq!(idle.requests, 0);
    assert!(closed.ok > 0 && closed.errors == 0);
    assert!(
        bursts.ok > 0,
        "bursts of 100 ms every 50 ms on average: {bursts:?}"
    );
    assert_eq!(r.requests.ok, open.ok + closed.ok + bursts.ok);
    assert_eq!(
        r.requested_rate, None,
        "closed phases have no requested rate"
    );
    assert!((r.duration_secs - 1.2).abs() < 1e-9);
    assert!(r.elapsed_secs >= 1.2);
    // Nothing goes out in the idle phase (due times bucket by second: 0.3-0.6 s is in
    // second 0, so check the phase, not the timeline).
    assert_eq!(r.timeline.len(), 2);
}

#[tokio::test]
async fn test1_scaled_down_keeps_its_phases() {
    let (_server, target) = noop_target().await;
    // 5 phases of 0.24 s at 100, 240, 100, 240, 100 requests/s.
    let schedule = Schedule::test1().scale_time(0.004).unwrap();
    let phases: Vec<Phase> = schedule.phases().to_vec();
    let run = run(BenchConfig::new(target, schedule).connections(4).threads(2))
        .await
        .unwrap();
    let r = &run.report;
    let mut start = Duration::ZERO;
    for (phase, report) in phases.iter().zip(&r.phases) {
        let Load::Open { rate, .. } = phase.load else {
            unreachable!()
        };
        let end = start + phase.duration;
        assert_eq!(
            report.requests,
            uniform_count(start, end, rate, 4),
            "{report:?}"
        );
        assert_eq!(report.ok, report.requests);
        start = end;
    }
    let (calm, stress) = (&r.phases[0], &r.phases[1]);
    assert!(stress.requests > 2 * calm.requests);
    assert!((r.requested_rate.unwrap() - 156.0).abs() < 1e-9);
}

#[tokio::test]
async fn warmup_is_not_measured() {
    let (_server, target) = noop_target().await;
    let schedule = Schedule::single(
        ms(300),
        Load::Open {
            rate: 100.0,
            arrivals: Arrivals::Uniform,
        },
    )
    .unwrap();
    let run = run(BenchConfig::new(target, schedule)
        .connections(2)
        .warmup(ms(200)))
    .await
    .unwrap();
    let r = &run.report;
    assert_eq!(r.requests.sent, 30, "{r:#?}");
    assert_eq!(r.warmup_secs, 0.2);
    assert_eq!(r.timeline.iter().map(|s| s.requests).sum::<u64>(), 30);
}

#[tokio::test]
async fn poisson_traffic_is_near_its_rate() {
    let (_server, target) = noop_target().await;
    // 400/s for 1 s: N ~ Poisson(400), sd 20.
    let schedule = Schedule::traffic(Duration::from_secs(1), 400.0).unwrap();
    let run = run(BenchConfig::new(target, schedule).connections(4).seed(11))
        .await
        .unwrap();
    let n = run.report.requests.sent as f64;
    assert!((n - 400.0).abs() < 100.0, "sent {n}");
    assert_eq!(run.report.requests.ok, run.report.requests.sent);
}

#[tokio::test]
async fn one_write_per_request_with_the_soap_headers() {
    // A raw server reads once per request and checks that the whole request is there.
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let seen: Arc<Mutex<Vec<Vec<u8>>>> = Arc::default();
    let log = seen.clone();
    tokio::spawn(async move {
        let (mut stream, _) = listener.accept().await.unwrap();
        let mut buf = vec![0u8; 65536];
        for _ in 0..3 {
            let n = stream.read(&mut buf).await.unwrap();
            log.lock().unwrap().push(buf[..n].to_vec());
            stream
                .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n<ok/>")
                .await
                .unwrap();
        }
    });
    let target = Target::soap(&format!("http://{addr}/svc/echo?x=1"), ENVELOPE)
        .unwrap()
        .with_action("urn:echoFloat")
        .with_version(SoapVersion::Soap11);
    let schedule = Schedule::single(
        ms(300),
        Load::Open {
            rate: 10.0,
            arrivals: Arrivals::Uniform,
        },
    )
    .unwrap();
    let r = run(BenchConfig::new(target, schedule))
        .await
        .unwrap()
        .report;
    assert_eq!(r.requests.ok, 3, "{r:#?}");
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 3);
    for request in seen.iter() {
        let text = String::from_utf8_lossy(request);
        assert!(
            text.starts_with("POST /svc/echo?x=1 HTTP/1.1\r\n"),
            "{text}"
        );
        let lower = text.to_ascii_lowercase();
        assert!(
            lower.contains("\r\nsoapaction: \"urn:echofloat\"\r\n"),
            "{text}"
        );
        assert!(
            lower.contains("\r\ncontent-type: text/xml; charset=utf-8\r\n"),
            "{text}"
        );
        assert!(
            lower.contains(&format!("\r\ncontent-length: {}\r\n", ENVELOPE.len())),
            "{text}"
        );
        assert!(
            text.ends_with(ENVELOPE),
            "the first read holds the whole request: {text}"
        );
    }
    assert_eq!(
        r.bytes_sent,
        seen.iter().map(|s| s.len() as u64).sum::<u64>()
    );
    assert_eq!(r.bytes_received, 3 * 43);
}

#[tokio::test]
async fn soap12_content_type_carries_the_action() {
    let headers: Arc<Mutex<Vec<String>>> = Arc::default();
    let log = headers.clone();
    let addr = http_server(move |seen| {
        let log = log.clone();
        async move {
            let ct = seen
                .headers
                .get("content-type")
                .unwrap()
                .to_str()
                .unwrap()
                .to_string();
            assert!(seen.headers.get("soapaction").is_none());
            log.lock().unwrap().push(ct);
            response(StatusCode::OK, "")
        }
    })
    .await;
    let target = Target::soap(&format!("http://{addr}/"), ENVELOPE)
        .unwrap()
        .with_action("urn:a")
        .with_version(SoapVersion::Soap12);
    let schedule = Schedule::single(
        ms(100),
        Load::Open {
            rate: 20.0,
            arrivals: Arrivals::Uniform,
        },
    )
    .unwrap();
    let r = run(BenchConfig::new(target, schedule))
        .await
        .unwrap()
        .report;
    assert_eq!(r.requests.ok, 2);
    for ct in headers.lock().unwrap().iter() {
        assert_eq!(ct, "application/soap+xml; charset=utf-8; action=\"urn:a\"");
    }
}

#[tokio::test]
async fn report_serializes_to_json_and_back() {
    let (_server, target) = noop_target().await;
    let schedule = Schedule::single(
        ms(200),
        Load::Open {
            rate: 50.0,
            arrivals: Arrivals::Uniform,
        },
    )
    .unwrap();
    let r = run(BenchConfig::new(target, schedule))
        .await
        .unwrap()
        .report;
    let json = serde_json::to_value(&r).unwrap();
    assert_eq!(json["requests"]["sent"], 10);
    assert_eq!(json["schedule"][0]["load"]["open"]["rate"], 50.0);
    assert!(json["latency"]["corrected"]["p99_us"].as_u64().unwrap() > 0);
    let back: soapstone_bench::BenchReport = serde_json::from_value(json).unwrap();
    assert_eq!(back, r);
}

#[tokio::test]
async fn bad_config_is_a_clear_error() {
    let (_server, target) = noop_target().await;
    let schedule = Schedule::single(ms(100), Load::Closed { workers: 1 }).unwrap();
    let err = run(BenchConfig::new(target, schedule.clone()).connections(0))
        .await
        .unwrap_err();
    assert_eq!(err.to_string(), "connections must be at least 1");
    let err = run(BenchConfig::new(
        Target::tcp_pingpong("127.0.0.1:1", Vec::new(), 10),
        schedule.clone(),
    ))
    .await
    .unwrap_err();
    assert!(err.to_string().contains("at least 1 byte"), "{err}");
    // No port: fails in the resolver without asking DNS.
    let err = run(BenchConfig::new(Target::tcp_connect("127.0.0.1"), schedule))
        .await
        .unwrap_err();
    assert!(
        err.to_string().starts_with("cannot resolve `127.0.0.1`"),
        "{err}"
    );
    // https is a target now (tests/https.rs).
    assert!(Target::soap("https://example.org/", "x").is_ok());
    assert!(Target::soap("ftp://example.org/", "x").is_err());
}
