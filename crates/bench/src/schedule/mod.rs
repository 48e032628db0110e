//! Load schedules: what load to offer, and when.
//!
//! A [`Schedule`] is a list of [`Phase`]s, each a duration and a [`Load`]. Everything the
//! seeds describe is one of these, and the generator (`engine`) only ever walks a
//! schedule, so a new load shape never touches the code that sends requests.
//!
//! The seeds' shapes:
//!
//! * **none**, **stress**, **peak**, **traffic**: Elfwing & Paulsson, *Performance of SOAP
//!   in Web Service Environment compared to CORBA* (2002), section 5 (seed
//!   `000_*.txt`): "Traffic. [...] the requests were Poisson distributed with the intensity
//!   (λ) set to 200 requests per second when using CORBA and 10 requests per second when
//!   using SOAP"; "Stress. Both generators started five threads where each of the threads
//!   sequentially sent as many requests as possible"; "Peak. Both generators sent bursts of
//!   requests with maximum speed and the length of 1 second. The bursts were Poisson
//!   distributed with an intensity of 1 burst every other second"; "None. The load
//!   generators were not active". So traffic is [`Load::Open`] with Poisson arrivals,
//!   stress is [`Load::Closed`] with 5 workers, and peak is [`Load::Bursts`]: burst
//!   *starts* form a Poisson process of rate 0.5/s (mean gap between starts 2 s), each burst
//!   lasts 1 s (overlapping bursts merge), and during a burst the workers send back to back.
//! * **test1**, **test2**: García, Blanco, Blanco & París, *A comparative performance
//!   evaluation of different implementations of the SOAP protocol* (seed `004_*.txt`),
//!   section IV-B. test1 (their Fig. 3) is five one-minute phases, "a request every 0.01
//!   seconds [...] during a lapse of one minute. It follows an stress phase, where the
//!   server will have to handle 240 users per second during one minute as well. This
//!   process will take place once again and the test will end with a non-stress phase":
//!   100, 240, 100, 240, 100 requests/s. test2 (Fig. 4) "establishes ten phases, each one of
//!   them running for 30 seconds [...] starting in 100 request/second until the final phase
//!   is reached, with 1000 requests/second": 100, 200, ..., 1000 requests/s. Their clients
//!   sent on a fixed period ("a request every 0.01 seconds"), so both use
//!   [`Arrivals::Uniform`]. Their result tables (Fig. 6 and Fig. 11) report the highest
//!   rate of HTTP 200s per second, the total of 200s, timeouts and the megabytes sent and
//!   received: the report's `peak_ok_per_second`, `requests.ok`, `errors.timeout`,
//!   `bytes_sent` and `bytes_received`.
//!
//! [`Schedule::scale_time`] shrinks a schedule for short runs (test1 at 0.1 is 30 s) and
//! [`Schedule::scale_rate`] scales the offered rates (a small machine cannot offer 1000/s
//! of a heavy service).
//!
//! # Schedule files
//!
//! `soapstone bench --schedule FILE` and [`Schedule::parse`] read either format:
//!
//! **Text**: one phase per line, `DURATION LOAD`; `#` starts a comment, blank lines are
//! ignored. `DURATION` is a number with a unit (`500ms`, `30s`, `1.5m`, `1h`; a bare
//! number is seconds). `LOAD` is one of
//!
//! ```text
//! idle                          # no request
//! rate R [uniform|poisson]      # open loop, R requests/s over all connections (default uniform)
//! closed N                      # N connections sending back to back
//! bursts N [burst D] [gap D]    # peak: N connections during bursts (default 1s, mean gap 2s)
//! ```
//!
//! so García et al.'s test1 is five lines: `60s rate 100`, `60s rate 240`, `60s rate 100`,
//! `60s rate 240`, `60s rate 100`.
//!
//! **JSON** (first non-blank character `{` or `[`): a list of phases or
//! `{"phases": [...]}`, each phase the serde form of [`Phase`]:
//!
//! ```json
//! {"phases": [
//!   {"duration_secs": 10, "load": "idle"},
//!   {"duration_secs": 60, "load": {"open": {"rate": 100, "arrivals": "poisson"}}},
//!   {"duration_secs": 30, "load": {"closed": {"workers": 5}}},
//!   {"duration_secs": 30, "load": {"bursts": {"workers": 5, "burst": 1, "mean_gap": 2}}}
//! ]}
//! ```
//!
//! This module must never do I/O or read the clock: arrivals are a pure function of the
//! schedule and a seed, so tests check them exactly.

pub(crate) mod arrivals;
mod parse;

pub use arrivals::{burst_starts, burst_windows, open_arrivals};
pub use parse::parse_duration;

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// How an open-loop phase spaces its requests.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Arrivals {
    /// A fixed period of `1 / rate` (wrk2, García's "a request every 0.01 seconds").
    #[default]
    Uniform,
    /// Exponential gaps of mean `1 / rate` (the thesis's traffic pattern).
    Poisson,
}

/// The load offered during one phase.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Load {
    /// No request at all (the thesis's "none", a pause between phases).
    Idle,
    /// Open loop: `rate` requests per second over all connections, sent on schedule
    /// whether or not earlier ones were answered; latency counts from the scheduled time.
    Open {
        /// Requests per second, over all connections.
        rate: f64,
        /// How the requests are spaced.
        #[serde(default)]
        arrivals: Arrivals,
    },
    /// Closed loop: `workers` connections, each sending its next request as soon as the
    /// previous one is answered (the thesis's stress pattern: 5 workers).
    Closed {
        /// Number of connections sending back to back.
        workers: usize,
    },
    /// The thesis's peak pattern: bursts of `burst` during which `workers` connections send
    /// back to back; burst starts are a Poisson process with mean gap `mean_gap`.
    Bursts {
        /// Number of connections sending back to back during a burst.
        workers: usize,
        /// Length of one burst. Default in [`Schedule::peak`]: `1 s`.
        #[serde(with = "secs")]
        burst: Duration,
        /// Mean time between burst starts. Default in [`Schedule::peak`]: `2 s`.
        #[serde(with = "secs")]
        mean_gap: Duration,
    },
}

impl Load {
    /// Connections this load needs (0 for idle and open loads, which use all of them).
    pub fn workers(&self) -> usize {
        match *self {
            Load::Idle | Load::Open { .. } => 0,
            Load::Closed { workers } | Load::Bursts { workers, .. } => workers,
        }
    }

    /// `true` for a load whose requests go out on a schedule.
    pub fn is_open(&self) -> bool {
        matches!(self, Load::Open { .. })
    }
}

/// One phase of a schedule.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Phase {
    /// How long the phase lasts.
    #[serde(rename = "duration_secs", with = "secs")]
    pub duration: Duration,
    /// What load it offers.
    pub load: Load,
}

impl Phase {
    /// A phase of `duration` offering `load`.
    pub fn new(duration: Duration, load: Load) -> Self {
        Phase { duration, load }
    }
}

/// Why a schedule is not usable.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ScheduleError {
    /// The schedule has no phase.
    #[error("a schedule needs at least one phase")]
    Empty,
    /// A phase lasts zero seconds or a duration is not a number.
    #[error("phase {phase}: duration must be positive, got `{value}`")]
    Duration {
        /// 1-based phase number.
        phase: usize,
        /// The offending value.
        value: String,
    },
    /// A rate is zero, negative or not finite.
    #[error("phase {phase}: rate must be a positive number of requests per second, got `{value}`")]
    Rate {
        /// 1-based phase number.
        phase: usize,
        /// The offending value.
        value: String,
    },
    /// A closed or burst phase with no worker.
    #[error("phase {phase}: workers must be at least 1")]
    Workers {
        /// 1-based phase number.
        phase: usize,
    },
    /// A line or JSON document that does not parse.
    #[error("line {line}: {message}")]
    Syntax {
        /// 1-based line number (1 for JSON).
        line: usize,
        /// What is wrong, quoting the offending token.
        message: String,
    },
    /// A scale factor that is zero, negative or not finite.
    #[error("scale factor must be a positive number, got `{0}`")]
    Scale(String),
}

/// A validated list of phases (never empty, every number positive and finite).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Schedule {
    phases: Vec<Phase>,
}

impl Schedule {
    /// Validates `phases` into a schedule.
    pub fn new(phases: Vec<Phase>) -> Result<Self, ScheduleError> {
        if phases.is_empty() {
            return Err(ScheduleError::Empty);
        }
        for (i, phase) in phases.iter().enumerate() {
            let n = i + 1;
            if phase.duration.is_zero() {
                return Err(ScheduleError::Duration {
                    phase: n,
                    value: format!("{:?}", phase.duration),
                });
            }
            match phase.load {
                Load::Idle => {}
                Load::Open { rate, .. } => {
                    if !(rate.is_finite() && rate > 0.0) {
                        return Err(ScheduleError::Rate {
                            phase: n,
                            value: rate.to_string(),
                        });
                    }
                }
                Load::Closed { workers } => {
                    if workers == 0 {
                        return Err(ScheduleError::Workers { phase: n });
                    }
                }
                Load::Bursts {
                    workers,
                    burst,
                    mean_gap,
                } => {
                    if workers == 0 {
                        return Err(ScheduleError::Workers { phase: n });
                    }
                    for d in [burst, mean_gap] {
                        if d.is_zero() {
                            return Err(ScheduleError::Duration {
                                phase: n,
                                value: format!("{d:?}"),
                            });
                        }
                    }
                }
            }
        }
        Ok(Schedule { phases })
    }

    /// One phase of `duration` offering `load`.
    pub fn single(duration: Duration, load: Load) -> Result<Self, ScheduleError> {
        Schedule::new(vec![Phase::new(duration, load)])
    }

    /// The thesis's "none": the generator idles for `duration`.
    pub fn none(duration: Duration) -> Result<Self, ScheduleError> {
        Schedule::single(duration, Load::Idle)
    }

    /// The thesis's stress: `workers` closed-loop connections (the thesis used 5).
    pub fn stress(duration: Duration, workers: usize) -> Result<Self, ScheduleError> {
        Schedule::single(duration, Load::Closed { workers })
    }

    /// The thesis's peak: 1 s bursts at full speed by `workers` connections, burst starts
    /// Poisson with a mean gap of 2 s.
    pub fn peak(duration: Duration, workers: usize) -> Result<Self, ScheduleError> {
        Schedule::single(
            duration,
            Load::Bursts {
                workers,
                burst: Duration::from_secs(1),
                mean_gap: Duration::from_secs(2),
            },
        )
    }

    /// The thesis's traffic: Poisson arrivals at `rate` per second (the thesis used 10/s
    /// for SOAP and 200/s for CORBA).
    pub fn traffic(duration: Duration, rate: f64) -> Result<Self, ScheduleError> {
        Schedule::single(
            duration,
            Load::Open {
                rate,
                arrivals: Arrivals::Poisson,
            },
        )
    }

    /// García et al.'s test1 (Fig. 3): 60 s phases at 100, 240, 100, 240, 100 requests/s.
    pub fn test1() -> Self {
        let phases = [100.0, 240.0, 100.0, 240.0, 100.0]
            .into_iter()
            .map(|rate| Phase::new(Duration::from_secs(60), uniform(rate)))
            .collect();
        Schedule { phases }
    }

    /// García et al.'s test2 (Fig. 4): ten 30 s phases at 100, 200, ..., 1000 requests/s.
    pub fn test2() -> Self {
        let phases = (1..=10)
            .map(|k| Phase::new(Duration::from_secs(30), uniform(f64::from(k) * 100.0)))
            .collect();
        Schedule { phases }
    }

    /// A built-in schedule by name (`test1`, `test2`), or `None`.
    pub fn builtin(name: &str) -> Option<Self> {
        match name {
            "test1" => Some(Schedule::test1()),
            "test2" => Some(Schedule::test2()),
            _ => None,
        }
    }

    /// Parses a schedule file: the text format or JSON (see [Schedule files](crate::schedule#schedule-files)).
    pub fn parse(text: &str) -> Result<Self, ScheduleError> {
        parse::parse(text)
    }

    /// Multiplies every duration (phases, bursts, gaps) by `factor`: 0.1 runs test1 in 30 s
    /// with the same rates. Rates are unchanged.
    pub fn scale_time(mut self, factor: f64) -> Result<Self, ScheduleError> {
        check_factor(factor)?;
        let scale = |d: Duration| Duration::from_secs_f64(d.as_secs_f64() * factor);
        for phase in &mut self.phases {
            phase.duration = scale(phase.duration);
            if let Load::Bursts {
                burst, mean_gap, ..
            } = &mut phase.load
            {
                *burst = scale(*burst);
                *mean_gap = scale(*mean_gap);
            }
        }
        Schedule::new(self.phases)
    }

    /// Multiplies every open-loop rate by `factor`.
    pub fn scale_rate(mut self, factor: f64) -> Result<Self, ScheduleError> {
        check_factor(factor)?;
        for phase in &mut self.phases {
            if let Load::Open { rate, .. } = &mut phase.load {
                *rate *= factor;
            }
        }
        Schedule::new(self.phases)
    }

    /// The phases, in order.
    pub fn phases(&self) -> &[Phase] {
        &self.phases
    }

    /// The sum of the phase durations.
    pub fn duration(&self) -> Duration {
        self.phases.iter().map(|p| p.duration).sum()
    }

    /// The most connections any phase needs for its own workers.
    pub fn max_workers(&self) -> usize {
        self.phases
            .iter()
            .map(|p| p.load.workers())
            .max()
            .unwrap_or(0)
    }

    /// The requests the open-loop phases ask for on average (`rate * duration` summed).
    pub fn expected_open_requests(&self) -> f64 {
        self.phases
            .iter()
            .map(|p| match p.load {
                Load::Open { rate, .. } => rate * p.duration.as_secs_f64(),
                _ => 0.0,
            })
            .sum()
    }

    /// `true` when every phase that sends is open loop (so a requested rate exists).
    pub fn is_open_loop(&self) -> bool {
        self.phases
            .iter()
            .all(|p| matches!(p.load, Load::Idle | Load::Open { .. }))
            && self.phases.iter().any(|p| p.load.is_open())
    }

    /// The same schedule with a first phase of `warmup` offering the first phase's load.
    pub(crate) fn with_warmup(&self, warmup: Duration) -> Vec<Phase> {
        let mut phases = Vec::with_capacity(self.phases.len() + 1);
        if !warmup.is_zero() {
            phases.push(Phase::new(warmup, self.phases[0].load));
        }
        phases.extend_from_slice(&self.phases);
        phases
    }
}

fn uniform(rate: f64) -> Load {
    Load::Open {
        rate,
        arrivals: Arrivals::Uniform,
    }
}

fn check_factor(factor: f64) -> Result<(), ScheduleError> {
    if factor.is_finite() && factor > 0.0 {
        Ok(())
    } else {
        Err(ScheduleError::Scale(factor.to_string()))
    }
}

/// Serializes a `Duration` as seconds (`f64`).
pub(crate) mod secs {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    pub(crate) fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(d.as_secs_f64())
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        let secs = f64::deserialize(d)?;
        Duration::try_from_secs_f64(secs).map_err(|_| {
            serde::de::Error::custom(format!(
                "duration must be a non-negative number of seconds, got `{secs}`"
            ))
        })
    }
}

#[cfg(test)]
mod tests;
