//! Schedule correctness: arrival statistics with fixed seeds, the seeds' shapes, formats.

use std::time::Duration;

use super::*;

fn secs(s: f64) -> Duration {
    Duration::from_secs_f64(s)
}

/// All tasks' arrivals of one open phase, merged and sorted.
fn merged(rate: f64, arrivals: Arrivals, tasks: usize, len: f64, seed: u64) -> Vec<f64> {
    let mut all: Vec<f64> = (0..tasks)
        .flat_map(|task| {
            open_arrivals(secs(0.0), secs(len), rate, arrivals, task, tasks, seed)
                .map(|d| d.as_secs_f64())
        })
        .collect();
    all.sort_by(f64::total_cmp);
    all
}

fn mean_and_cv(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, var.sqrt() / mean)
}

fn gaps(ts: &[f64]) -> Vec<f64> {
    ts.windows(2).map(|w| w[1] - w[0]).collect()
}

#[test]
fn poisson_arrivals_have_the_requested_rate_and_exponential_gaps() {
    // 1000/s over 4 tasks for 100 s: N ~ Poisson(100_000), sd 316; 5 sd = 1.6 %.
    let ts = merged(1000.0, Arrivals::Poisson, 4, 100.0, 42);
    let n = ts.len() as f64;
    assert!((n - 100_000.0).abs() < 5.0 * 100_000f64.sqrt(), "count {n}");
    // Exponential gaps: mean 1 ms, coefficient of variation 1 (uniform would be 0).
    let (mean, cv) = mean_and_cv(&gaps(&ts));
    assert!((mean - 0.001).abs() < 0.00003, "mean gap {mean}");
    assert!((cv - 1.0).abs() < 0.03, "cv {cv}");
    // Counts per 1 s window are Poisson: variance over mean (index of dispersion) ~ 1.
    let mut per_second = vec![0f64; 100];
    for t in &ts {
        per_second[*t as usize] += 1.0;
    }
    let (m, cv_count) = mean_and_cv(&per_second);
    let dispersion = (cv_count * m).powi(2) / m;
    assert!((0.6..1.5).contains(&dispersion), "dispersion {dispersion}");
}

#[test]
fn poisson_streams_depend_on_the_seed_only() {
    let a = merged(50.0, Arrivals::Poisson, 3, 10.0, 7);
    let b = merged(50.0, Arrivals::Poisson, 3, 10.0, 7);
    let c = merged(50.0, Arrivals::Poisson, 3, 10.0, 8);
    assert_eq!(a, b);
    assert_ne!(a, c);
}

#[test]
fn uniform_arrivals_are_exact_and_interleaved() {
    // 100/s for 2 s over 3 tasks: exactly 200 requests, 10 ms apart, starting at 0.
    let ts = merged(100.0, Arrivals::Uniform, 3, 2.0, 0);
    assert_eq!(ts.len(), 200);
    for (k, t) in ts.iter().enumerate() {
        assert!((t - k as f64 * 0.01).abs() < 1e-9, "arrival {k} at {t}");
    }
}

#[test]
fn arrivals_stay_inside_their_phase() {
    let ts: Vec<Duration> =
        open_arrivals(secs(5.0), secs(6.0), 20.0, Arrivals::Uniform, 0, 1, 0).collect();
    assert_eq!(ts.len(), 20);
    assert_eq!(ts[0], secs(5.0));
    assert!(ts.iter().all(|t| *t >= secs(5.0) && *t < secs(6.0)));
}

#[test]
fn peak_bursts_last_one_second_and_start_every_two_seconds_on_average() {
    let len = 20_000.0;
    let starts = burst_starts(secs(0.0), secs(len), secs(2.0), 3);
    // N ~ Poisson(10_000), sd 100.
    let n = starts.len() as f64;
    assert!((n - 10_000.0).abs() < 500.0, "bursts {n}");
    let starts: Vec<f64> = starts.iter().map(Duration::as_secs_f64).collect();
    let (mean, cv) = mean_and_cv(&gaps(&starts));
    assert!((mean - 2.0).abs() < 0.08, "mean gap {mean}");
    assert!((cv - 1.0).abs() < 0.05, "cv {cv}");

    let windows = burst_windows(secs(0.0), secs(len), secs(1.0), secs(2.0), 3);
    // Windows are disjoint, ordered, at least one burst long (merged ones are longer),
    // and a window that is exactly 1 s long is an unmerged burst.
    for w in windows.windows(2) {
        assert!(w[0].1 < w[1].0);
    }
    let last = windows.len() - 1;
    for (i, (s, e)) in windows.iter().enumerate() {
        assert!(i == last || *e - *s >= secs(1.0) - Duration::from_nanos(1));
    }
    let single = windows
        .iter()
        .filter(|(s, e)| (*e - *s).as_secs_f64() < 1.0 + 1e-9)
        .count();
    assert!(single > windows.len() / 2);
    // Share of time inside a burst: P(a start in the last 1 s) = 1 - e^(-1/2) = 0.3935.
    let busy: f64 = windows.iter().map(|(s, e)| (*e - *s).as_secs_f64()).sum();
    let share = busy / len;
    assert!((share - 0.3935).abs() < 0.02, "busy share {share}");
}

#[test]
fn test1_is_five_minutes_of_calm_and_stress() {
    let s = Schedule::test1();
    let rates: Vec<f64> = s.phases().iter().map(|p| open_rate(p.load)).collect();
    assert_eq!(rates, [100.0, 240.0, 100.0, 240.0, 100.0]);
    assert!(s.phases().iter().all(|p| p.duration == secs(60.0)));
    assert_eq!(s.duration(), secs(300.0));
    assert_eq!(s.expected_open_requests(), 46_800.0);
    assert!(s.is_open_loop());
}

#[test]
fn test2_is_ten_thirty_second_steps_to_a_thousand() {
    let s = Schedule::test2();
    let rates: Vec<f64> = s.phases().iter().map(|p| open_rate(p.load)).collect();
    let want: Vec<f64> = (1..=10).map(|k| k as f64 * 100.0).collect();
    assert_eq!(rates, want);
    assert!(s.phases().iter().all(|p| p.duration == secs(30.0)));
    assert_eq!(s.expected_open_requests(), 165_000.0);
}

#[test]
fn scale_shrinks_time_and_keeps_rates() {
    let s = Schedule::test2().scale_time(0.1).unwrap();
    assert_eq!(s.phases().len(), 10);
    assert!(s
        .phases()
        .iter()
        .all(|p| (p.duration.as_secs_f64() - 3.0).abs() < 1e-9));
    assert_eq!(open_rate(s.phases()[9].load), 1000.0);
    assert!((s.expected_open_requests() - 16_500.0).abs() < 1e-6);

    let p = Schedule::peak(secs(10.0), 5)
        .unwrap()
        .scale_time(0.5)
        .unwrap();
    match p.phases()[0].load {
        Load::Bursts {
            burst, mean_gap, ..
        } => {
            assert_eq!(burst, secs(0.5));
            assert_eq!(mean_gap, secs(1.0));
        }
        other => panic!("not bursts: {other:?}"),
    }
    let r = Schedule::test1().scale_rate(0.5).unwrap();
    assert_eq!(open_rate(r.phases()[1].load), 120.0);
    assert!(Schedule::test1().scale_time(0.0).is_err());
    assert!(Schedule::test1().scale_time(f64::NAN).is_err());
}

#[test]
fn the_thesis_patterns() {
    let stress = Schedule::stress(secs(10.0), 5).unwrap();
    assert_eq!(stress.phases()[0].load, Load::Closed { workers: 5 });
    assert_eq!(stress.max_workers(), 5);
    assert!(!stress.is_open_loop());
    let traffic = Schedule::traffic(secs(10.0), 10.0).unwrap();
    assert_eq!(
        traffic.phases()[0].load,
        Load::Open {
            rate: 10.0,
            arrivals: Arrivals::Poisson
        }
    );
    assert_eq!(
        Schedule::none(secs(1.0)).unwrap().phases()[0].load,
        Load::Idle
    );
}

#[test]
fn text_format() {
    let s = Schedule::parse(
        "# warm, then stress\n\
         500ms rate 100\n\
         \n\
         2s rate 50 poisson   # traffic\n\
         1m closed 5\n\
         10s idle\n\
         30s bursts 4 burst 0.5s gap 3s\n",
    )
    .unwrap();
    let p = s.phases();
    assert_eq!(p.len(), 5);
    assert_eq!(p[0].duration, secs(0.5));
    assert_eq!(
        p[1].load,
        Load::Open {
            rate: 50.0,
            arrivals: Arrivals::Poisson
        }
    );
    assert_eq!(p[2].duration, secs(60.0));
    assert_eq!(p[2].load, Load::Closed { workers: 5 });
    assert_eq!(p[3].load, Load::Idle);
    assert_eq!(
        p[4].load,
        Load::Bursts {
            workers: 4,
            burst: secs(0.5),
            mean_gap: secs(3.0)
        }
    );
}

#[test]
fn text_format_errors_name_the_line_and_token() {
    let err = Schedule::parse("10s rate 100\n5x rate 3\n").unwrap_err();
    assert_eq!(
        err.to_string(),
        "line 2: unknown unit in duration `5x` (use ms, s, m or h)"
    );
    let err = Schedule::parse("10s rate fast").unwrap_err();
    assert_eq!(err.to_string(), "line 1: rate must be a number, got `fast`");
    let err = Schedule::parse("10s jump").unwrap_err();
    assert!(err.to_string().contains("unknown load `jump`"), "{err}");
    let err = Schedule::parse("10s rate -3").unwrap_err();
    assert!(err.to_string().contains("got `-3`"), "{err}");
    assert_eq!(
        Schedule::parse("# nothing\n").unwrap_err(),
        ScheduleError::Empty
    );
    assert_eq!(
        Schedule::parse("1s closed 0").unwrap_err(),
        ScheduleError::Workers { phase: 1 }
    );
}

#[test]
fn json_format_round_trips() {
    let json = serde_json::to_string(&Schedule::test1()).unwrap();
    assert_eq!(Schedule::parse(&json).unwrap(), Schedule::test1());
    let s = Schedule::parse(
        r#"[{"duration_secs": 2, "load": "idle"},
            {"duration_secs": 1.5, "load": {"open": {"rate": 10, "arrivals": "poisson"}}},
            {"duration_secs": 3, "load": {"closed": {"workers": 2}}}]"#,
    )
    .unwrap();
    assert_eq!(
        s.phases()[1].load,
        Load::Open {
            rate: 10.0,
            arrivals: Arrivals::Poisson
        }
    );
    assert!(Schedule::parse(r#"{"phases": [{"duration_secs": 1}]}"#).is_err());
}

#[test]
fn durations() {
    assert_eq!(parse_duration("250ms").unwrap(), secs(0.25));
    assert_eq!(parse_duration("1.5s").unwrap(), secs(1.5));
    assert_eq!(parse_duration("2m").unwrap(), secs(120.0));
    assert_eq!(parse_duration("3").unwrap(), secs(3.0));
    assert_eq!(parse_duration("100us").unwrap(), Duration::from_micros(100));
    assert!(parse_duration("").is_err());
    assert!(parse_duration("s").is_err());
    assert!(parse_duration("-1s").is_err());
}

fn open_rate(load: Load) -> f64 {
    match load {
        Load::Open { rate, .. } => rate,
        other => panic!("not open: {other:?}"),
    }
}

#[test]
fn the_documented_json_example_parses() {
    let s = Schedule::parse(
        r#"{"phases": [
  {"duration_secs": 10, "load": "idle"},
  {"duration_secs": 60, "load": {"open": {"rate": 100, "arrivals": "poisson"}}},
  {"duration_secs": 30, "load": {"closed": {"workers": 5}}},
  {"duration_secs": 30, "load": {"bursts": {"workers": 5, "burst": 1, "mean_gap": 2}}}
]}"#,
    )
    .unwrap();
    assert_eq!(s.duration(), secs(130.0));
    assert_eq!(
        s.phases()[3].load,
        Schedule::peak(secs(1.0), 5).unwrap().phases()[0].load
    );
}

#[test]
fn uniform_arrivals_do_not_round_past_the_phase_end() {
    // 0.3 + 60 * 0.01 is just below 0.9 in floating point: an arrival exactly at the end
    // belongs to the next phase, so 1000/s over [0.3 s, 0.9 s) on 10 tasks is 600.
    let count: usize = (0..10)
        .map(|t| open_arrivals(secs(0.3), secs(0.9), 1000.0, Arrivals::Uniform, t, 10, 0).count())
        .sum();
    assert_eq!(count, 600);
    let warm: usize = (0..10)
        .map(|t| open_arrivals(secs(0.0), secs(0.3), 1000.0, Arrivals::Uniform, t, 10, 0).count())
        .sum();
    assert_eq!(warm, 300);
}
