//! The schedule file formats (`soapstone bench --schedule FILE`): text and JSON.
//!
//! The grammar is documented in the `schedule` module doc.
//!
//! Hand-written rather than a parser library: the grammar is one line of four words.

use std::time::Duration;

use serde::Deserialize;

use super::{Arrivals, Load, Phase, Schedule, ScheduleError};

/// Parses `text` in either format into a validated schedule.
pub(super) fn parse(text: &str) -> Result<Schedule, ScheduleError> {
    let trimmed = text.trim_start();
    if trimmed.starts_with('{') || trimmed.starts_with('[') {
        return parse_json(trimmed);
    }
    let mut phases = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let phase = parse_line(line).map_err(|message| ScheduleError::Syntax {
            line: i + 1,
            message,
        })?;
        phases.push(phase);
    }
    Schedule::new(phases)
}

fn parse_json(text: &str) -> Result<Schedule, ScheduleError> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Doc {
        List(Vec<Phase>),
        Object { phases: Vec<Phase> },
    }
    let doc: Doc = serde_json::from_str(text).map_err(|e| ScheduleError::Syntax {
        line: e.line(),
        message: format!("not a schedule document: {e}"),
    })?;
    let phases = match doc {
        Doc::List(p) | Doc::Object { phases: p } => p,
    };
    Schedule::new(phases)
}

fn parse_line(line: &str) -> Result<Phase, String> {
    let mut words = line.split_whitespace();
    let duration = words.next().ok_or("missing duration")?;
    let duration = parse_duration(duration)?;
    let kind = words.next().ok_or("missing load after the duration")?;
    let rest: Vec<&str> = words.collect();
    let load = match kind {
        "idle" | "none" => {
            no_more(&rest)?;
            Load::Idle
        }
        "rate" => {
            let (rate, tail) = rest
                .split_first()
                .ok_or("`rate` needs a number of requests/s")?;
            let rate: f64 = rate
                .parse()
                .map_err(|_| format!("rate must be a number, got `{rate}`"))?;
            let arrivals = match tail {
                [] | ["uniform"] => Arrivals::Uniform,
                ["poisson"] => Arrivals::Poisson,
                [other, ..] => {
                    return Err(format!("expected `uniform` or `poisson`, got `{other}`"))
                }
            };
            if tail.len() > 1 {
                return Err(format!("unexpected `{}`", tail[1]));
            }
            Load::Open { rate, arrivals }
        }
        "closed" | "stress" => {
            let (n, tail) = rest
                .split_first()
                .ok_or("`closed` needs a number of workers")?;
            no_more(tail)?;
            Load::Closed {
                workers: parse_workers(n)?,
            }
        }
        "bursts" | "peak" => {
            let (n, mut tail) = rest
                .split_first()
                .ok_or("`bursts` needs a number of workers")?;
            let workers = parse_workers(n)?;
            let mut burst = Duration::from_secs(1);
            let mut mean_gap = Duration::from_secs(2);
            while let [key, value, more @ ..] = tail {
                match *key {
                    "burst" => burst = parse_duration(value)?,
                    "gap" => mean_gap = parse_duration(value)?,
                    other => return Err(format!("expected `burst` or `gap`, got `{other}`")),
                }
                tail = more;
            }
            if let [key] = tail {
                return Err(format!("`{key}` needs a duration"));
            }
            Load::Bursts {
                workers,
                burst,
                mean_gap,
            }
        }
        other => {
            return Err(format!(
                "unknown load `{other}` (expected idle, rate, closed or bursts)"
            ))
        }
    };
    Ok(Phase::new(duration, load))
}

fn no_more(rest: &[&str]) -> Result<(), String> {
    match rest.first() {
        Some(word) => Err(format!("unexpected `{word}`")),
        None => Ok(()),
    }
}

fn parse_workers(n: &str) -> Result<usize, String> {
    n.parse()
        .map_err(|_| format!("workers must be a whole number, got `{n}`"))
}

/// Parses `500ms`, `30s`, `1.5m`, `1h`, `250us` or a bare number of seconds.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let value: f64 = number
        .parse()
        .map_err(|_| format!("invalid duration `{text}` (try `500ms`, `30s`, `2m`)"))?;
    let factor = match unit {
        "" | "s" => 1.0,
        "ms" => 1e-3,
        "us" => 1e-6,
        "m" | "min" => 60.0,
        "h" => 3600.0,
        _ => {
            return Err(format!(
                "unknown unit in duration `{text}` (use ms, s, m or h)"
            ))
        }
    };
    Duration::try_from_secs_f64(value * factor).map_err(|_| format!("invalid duration `{text}`"))
}
