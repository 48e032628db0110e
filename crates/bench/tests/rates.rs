//! Rates are over the scheduled measured window: an answer that arrives after the window
//! counts (and shows in the latencies) but does not stretch the rate's denominator.

mod common;

use std::time::Duration;

use common::{http_server, response, ENVELOPE};
use http::StatusCode;
use soapstone_bench::{run, BenchConfig, Load, Schedule, Target};

#[tokio::test]
async fn rates_divide_by_the_scheduled_window_not_the_last_answer() {
    // Every answer takes 250 ms: one closed-loop worker over a 400 ms window sends at 0 and
    // at 250 ms, and the second answer comes in at 500 ms, after the window.
    let addr = http_server(|_| async {
        tokio::time::sleep(Duration::from_millis(250)).await;
        response(StatusCode::OK, "<ok/>")
    })
    .await;
    let target = Target::soap(&format!("http://{addr}/soap"), ENVELOPE).unwrap();
    let schedule =
        Schedule::single(Duration::from_millis(400), Load::Closed { workers: 1 }).unwrap();
    let r = run(BenchConfig::new(target, schedule).timeout(Duration::from_secs(5)))
        .await
        .unwrap()
        .report;
    assert_eq!(r.requests.ok, 2, "{r:#?}");
    assert!((r.duration_secs - 0.4).abs() < 1e-9);
    // The case under test: the last answer is after the window.
    assert!(r.elapsed_secs > r.duration_secs, "{r:#?}");
    assert_eq!(
        r.achieved_rate,
        r.requests.responses as f64 / r.duration_secs
    );
    assert_eq!(r.ok_rate, r.requests.ok as f64 / r.duration_secs);
    // The late answer is in the latencies.
    assert_eq!(r.latency.corrected.count, 2);
    assert_eq!(r.phases[0].achieved_rate, 2.0 / 0.4);
}
