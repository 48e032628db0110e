//! Coordinated-omission correction against a real server that stalls once.
//!
//! One connection, open loop at 100 requests/s for 2 s; the server holds its 50th answer
//! (due at 0.49 s) for 500 ms. The 50 requests due during the stall wait on the
//! connection: counted from their due time (corrected) they show the stall, counted from
//! their actual send (uncorrected) they do not. A closed loop under the same stall sees
//! one slow answer either way.

mod common;

use std::time::Duration;

use common::{http_server, response, ENVELOPE};
use hdrhistogram::Histogram;
use http::StatusCode;
use soapstone_bench::{run, BenchConfig, Load, Schedule, Target};

const STALL: Duration = Duration::from_millis(500);
/// Anything at or above this is "the stall showing".
const SLOW_US: u64 = 250_000;

async fn stalling_server() -> std::net::SocketAddr {
    http_server(|seen| async move {
        if seen.n == 49 {
            tokio::time::sleep(STALL).await;
        }
        response(StatusCode::OK, "<ok/>")
    })
    .await
}

fn slow(h: &Histogram<u64>) -> u64 {
    h.iter_recorded()
        .filter(|v| v.value_iterated_to() >= SLOW_US)
        .map(|v| v.count_at_value())
        .sum()
}

#[tokio::test]
async fn open_loop_charges_the_stall_to_the_requests_due_during_it() {
    let addr = stalling_server().await;
    let target = Target::soap(&format!("http://{addr}/soap"), ENVELOPE).unwrap();
    let schedule = Schedule::single(
        Duration::from_secs(2),
        Load::Open {
            rate: 100.0,
            arrivals: Default::default(),
        },
    )
    .unwrap();
    let run = run(BenchConfig::new(target, schedule).connections(1))
        .await
        .unwrap();
    let r = &run.report;
    assert_eq!(r.requests.sent, 200, "{r:#?}");
    assert_eq!(r.requests.ok, 200);
    assert_eq!(r.requests.unsent, 0);
    assert_eq!(r.requested_rate, Some(100.0));

    // Requests due from 0.49 s to 0.74 s waited at least 250 ms: about 25 of them.
    let corrected_slow = slow(&run.corrected);
    let uncorrected_slow = slow(&run.uncorrected);
    assert!(corrected_slow >= 20, "corrected slow {corrected_slow}");
    // Only the stalled request itself was slow on the wire.
    assert!(
        (1..=2).contains(&uncorrected_slow),
        "uncorrected slow {uncorrected_slow}"
    );
    assert!(run.corrected.max() >= 450_000);
    assert!(r.latency.corrected.p90_us >= SLOW_US / 2, "{:?}", r.latency);
    assert!(r.latency.uncorrected.p90_us < SLOW_US, "{:?}", r.latency);

    // The timeline shows the stall in the second the backlog was answered.
    let worst = r.timeline.iter().filter_map(|s| s.p99_us).max().unwrap();
    assert!(worst >= SLOW_US);
    assert_eq!(r.timeline.iter().map(|s| s.requests).sum::<u64>(), 200);
    assert_eq!(r.timeline.iter().map(|s| s.ok).sum::<u64>(), 200);
}

#[tokio::test]
async fn closed_loop_sees_one_slow_answer_either_way() {
    let addr = stalling_server().await;
    let target = Target::soap(&format!("http://{addr}/soap"), ENVELOPE).unwrap();
    let schedule = Schedule::single(Duration::from_secs(1), Load::Closed { workers: 1 }).unwrap();
    let run = run(BenchConfig::new(target, schedule)).await.unwrap();
    let r = &run.report;
    assert!(r.requests.ok > 50, "{r:#?}");
    assert_eq!(r.requested_rate, None);
    assert_eq!(slow(&run.corrected), 1);
    assert_eq!(slow(&run.uncorrected), 1);
}
