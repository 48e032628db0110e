//! The baselines answer correctly over real sockets, and the generator's matching client
//! modes drive them without error (counts and byte totals exact).

mod common;

use std::net::SocketAddr;
use std::time::Duration;

use soapstone_bench::proto::echo_client::EchoClient;
use soapstone_bench::proto::{Count, EchoMessage, Empty, FloatValue};
use soapstone_bench::{
    run, start_baseline, Baseline, BenchConfig, BenchReport, GrpcCall, Load, Schedule, Target,
    ECHO_FLOAT,
};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

fn any_port() -> SocketAddr {
    "127.0.0.1:0".parse().unwrap()
}

/// Two closed-loop connections for 300 ms.
async fn drive(target: Target) -> BenchReport {
    let schedule =
        Schedule::single(Duration::from_millis(300), Load::Closed { workers: 2 }).unwrap();
    let report = run(BenchConfig::new(target, schedule).timeout(Duration::from_secs(5)))
        .await
        .unwrap()
        .report;
    assert!(report.requests.ok > 0, "{report:#?}");
    assert_eq!(
        report.requests.ok, report.requests.sent,
        "{:?}",
        report.errors
    );
    assert_eq!(report.errors.total, 0);
    report
}

#[tokio::test]
async fn tcp_pingpong_answers_each_request_with_the_agreed_size() {
    let kind = Baseline::TcpPingPong {
        request_size: 700,
        response_size: 1300,
    };
    let server = start_baseline(kind, any_port()).await.unwrap();
    let mut s = TcpStream::connect(server.local_addr()).await.unwrap();
    for round in 0..3 {
        // Send the request in two pieces: framing is by size, not by write.
        s.write_all(&[round; 300]).await.unwrap();
        s.write_all(&[round; 400]).await.unwrap();
        let mut answer = vec![0u8; 1300];
        s.read_exact(&mut answer).await.unwrap();
        assert!(answer.iter().all(|&b| b == b'x'));
    }
    // Half a request gets no answer; closing ends the connection cleanly.
    s.write_all(&[0; 100]).await.unwrap();
    s.shutdown().await.unwrap();
    let mut rest = Vec::new();
    s.read_to_end(&mut rest).await.unwrap();
    assert!(rest.is_empty());

    let url = server.url(kind);
    assert!(url.starts_with("tcp://"));
    let r = drive(Target::tcp_pingpong(
        server.local_addr().to_string(),
        vec![b'r'; 700],
        1300,
    ))
    .await;
    assert_eq!(r.bytes_sent, r.requests.sent * 700);
    assert_eq!(r.bytes_received, r.requests.sent * 1300);
    server.shutdown().await;
}

#[tokio::test]
async fn tcp_pingpong_rejects_empty_sizes() {
    let err = start_baseline(
        Baseline::TcpPingPong {
            request_size: 0,
            response_size: 5,
        },
        any_port(),
    )
    .await
    .unwrap_err();
    assert!(err.to_string().contains("at least 1 byte"), "{err}");
}

#[tokio::test]
async fn tcp_connect_accepts_and_closes() {
    let server = start_baseline(Baseline::TcpConnect, any_port())
        .await
        .unwrap();
    let mut s = TcpStream::connect(server.local_addr()).await.unwrap();
    // The server closes at once: reading ends with EOF and nothing in it.
    let mut buf = Vec::new();
    s.read_to_end(&mut buf).await.unwrap();
    assert!(buf.is_empty());
    let r = drive(Target::tcp_connect(server.local_addr().to_string())).await;
    assert_eq!(r.bytes_sent, 0);
    server.shutdown().await;
}

#[tokio::test]
async fn http_noop_answers_an_empty_200_and_keeps_the_connection() {
    let server = start_baseline(Baseline::HttpNoop, any_port())
        .await
        .unwrap();
    let mut s = TcpStream::connect(server.local_addr()).await.unwrap();
    for _ in 0..2 {
        s.write_all(b"POST /soap HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml\r\nContent-Length: 5\r\n\r\nhello")
            .await
            .unwrap();
        let mut got = Vec::new();
        let mut buf = [0u8; 1024];
        while !got.windows(4).any(|w| w == b"\r\n\r\n") {
            let n = s.read(&mut buf).await.unwrap();
            assert!(n > 0, "closed early: {:?}", String::from_utf8_lossy(&got));
            got.extend_from_slice(&buf[..n]);
        }
        let text = String::from_utf8_lossy(&got).to_ascii_lowercase();
        assert!(text.starts_with("http/1.1 200 ok\r\n"), "{text}");
        assert!(text.contains("content-length: 0\r\n"), "{text}");
        assert!(text.ends_with("\r\n\r\n"), "no body expected: {text}");
    }
    let url = server.url(Baseline::HttpNoop);
    let r = drive(Target::soap(&url, common::ENVELOPE).unwrap()).await;
    // Every request went out whole: the envelope plus its headers.
    assert!(r.bytes_sent > r.requests.sent * common::ENVELOPE.len() as u64);
    server.shutdown().await;
}

#[tokio::test]
async fn grpc_echo_answers_every_call() {
    let server = start_baseline(Baseline::Grpc, any_port()).await.unwrap();
    let mut client = EchoClient::connect(format!("http://{}", server.local_addr()))
        .await
        .unwrap();
    client.do_nothing(Empty {}).await.unwrap();
    let f = client
        .echo_float(FloatValue { value: ECHO_FLOAT })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(f.value, ECHO_FLOAT);
    let s = client
        .get_string(Count { n: 1000 })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(s.value.len(), 1000);
    let ints = client
        .get_integers(Count { n: 5 })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(ints.values, [0, 1, 2, 3, 4]);
    let msg = EchoMessage {
        value: 1.5,
        text: "héllo".into(),
        integers: vec![-1, 7],
    };
    assert_eq!(client.echo(msg.clone()).await.unwrap().into_inner(), msg);
    let err = client
        .get_integers(Count { n: u32::MAX })
        .await
        .unwrap_err();
    assert_eq!(err.code(), tonic::Code::InvalidArgument);
    assert!(err.message().contains("`4294967295`"), "{}", err.message());

    let addr = server.local_addr().to_string();
    for call in [
        GrpcCall::DoNothing,
        GrpcCall::EchoFloat(ECHO_FLOAT),
        GrpcCall::GetString(100),
        GrpcCall::GetIntegers(100),
        GrpcCall::Echo(10),
    ] {
        let r = drive(Target::grpc(addr.clone(), call)).await;
        assert!(r.bytes_received > 0);
    }
    server.shutdown().await;
}

#[tokio::test]
async fn shutdown_stops_the_listener() {
    let server = start_baseline(Baseline::HttpNoop, any_port())
        .await
        .unwrap();
    let addr = server.local_addr();
    server.shutdown().await;
    assert!(TcpStream::connect(addr).await.is_err());
}
