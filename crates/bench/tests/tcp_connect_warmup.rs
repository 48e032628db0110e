//! A `tcp-connect` run with a warm-up still measures: the warm-up phase must not leave the
//! measured phases without requests (the lab saw `0 sent` with `--warmup` above 0).

use std::net::SocketAddr;
use std::time::Duration;

use soapstone_bench::{
    run, start_baseline, Arrivals, Baseline, BenchConfig, Load, Schedule, Target,
};

fn any_port() -> SocketAddr {
    "127.0.0.1:0".parse().unwrap()
}

async fn run_with_warmup(load: Load) -> soapstone_bench::BenchReport {
    let server = start_baseline(Baseline::TcpConnect, any_port())
        .await
        .unwrap();
    let schedule = Schedule::single(Duration::from_millis(400), load).unwrap();
    let config = BenchConfig::new(
        Target::tcp_connect(server.local_addr().to_string()),
        schedule,
    )
    .warmup(Duration::from_millis(200))
    .timeout(Duration::from_secs(5));
    let report = run(config).await.unwrap().report;
    server.shutdown().await;
    report
}

#[tokio::test]
async fn tcp_connect_open_loop_with_warmup_sends_the_measured_requests() {
    let r = run_with_warmup(Load::Open {
        rate: 200.0,
        arrivals: Arrivals::Uniform,
    })
    .await;
    // 200/s over 0.4 s: 80 due in the measured window, all connect+close on loopback.
    assert_eq!(r.requests.sent + r.requests.unsent, 80, "{r:#?}");
    assert_eq!(r.requests.ok, r.requests.sent, "{:?}", r.errors);
    assert!(r.requests.sent > 0, "{r:#?}");
}

#[tokio::test]
async fn tcp_connect_closed_loop_with_warmup_sends() {
    let r = run_with_warmup(Load::Closed { workers: 1 }).await;
    assert!(r.requests.sent > 0, "{r:#?}");
    assert_eq!(r.requests.ok, r.requests.sent, "{:?}", r.errors);
}

/// The lab's case, made certain: the server stops accepting around the end of the warm-up,
/// its accept queue fills, the kernel drops the next SYN and the client retransmits it a
/// second later. The warm-up connect then spans the whole measured window; it must be
/// measured, not leave the window with nothing sent.
#[test]
fn tcp_connect_warmup_connect_that_spans_the_window_is_measured() {
    let (addr_tx, addr_rx) = std::sync::mpsc::channel();
    let (stall_tx, stall_rx) = std::sync::mpsc::channel::<Duration>();
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let server = std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let server = start_baseline(Baseline::TcpConnect, any_port())
                .await
                .unwrap();
            addr_tx.send(server.local_addr()).unwrap();
            let stall = tokio::task::spawn_blocking(move || stall_rx.recv().unwrap())
                .await
                .unwrap();
            // Blocking the server's only thread stops its accept loop.
            std::thread::sleep(stall);
            let _ = stop_rx.await;
            server.shutdown().await;
        });
    });
    let addr = addr_rx.recv().unwrap();
    let client = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let schedule =
        Schedule::single(Duration::from_millis(300), Load::Closed { workers: 1 }).unwrap();
    let config = BenchConfig::new(Target::tcp_connect(addr.to_string()), schedule)
        .warmup(Duration::from_millis(200))
        .timeout(Duration::from_secs(5));
    let report = client.block_on(async {
        let run = tokio::spawn(run(config));
        tokio::time::sleep(Duration::from_millis(100)).await;
        stall_tx.send(Duration::from_millis(500)).unwrap();
        run.await.unwrap().unwrap().report
    });
    stop_tx.send(()).unwrap();
    server.join().unwrap();
    assert!(report.requests.sent >= 1, "{report:#?}");
    assert_eq!(
        report.requests.ok, report.requests.sent,
        "{:?}",
        report.errors
    );
}
