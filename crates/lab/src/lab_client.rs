//! `soapstone lab-client URL OP N WARMUP_S WINDOW_S` (hidden): soapstone's row of Zilora and
//! Ketha's client table, the program a user of soapstone writes. It calls Davis and Parashar's
//! service through the typed client the `#[service]` macro generates (`DpClient` of
//! soapstone-services: encode the call, one kept-alive connection, decode the answer into
//! `String` and `Vec<i32>`), so its figure is what an application pays per call, unlike
//! `soapstone bench`, a load generator that sends fixed bytes and never decodes the answer.
//!
//! It speaks the lab's peer-client protocol like the PHP, Python, Perl, Node, Java and C#
//! clients (`docs/lab.md`; [`crate::peers::client`] runs it): untimed calls for `WARMUP_S`, then
//! timed calls for `WINDOW_S`, each answer checked against the contract (`getStringOfSize(n)` is
//! the letters `abc...`, `getIntegersOfSize(n)` the integers `0..n`), and one JSON line on stdout.
//! It must never record a call whose answer was not checked, nor keep more than
//! [`MAX_SAMPLES`] samples.

use std::time::{Duration, Instant};

use anyhow::{bail, Context as _};
use serde::Serialize;
use soapstone_services::dp::DpClient;

use crate::peers::check::string_of;

/// The most timed calls kept (the protocol's bound on `samples_us`); the window ends there.
pub(crate) const MAX_SAMPLES: usize = 1_000_000;
/// The largest size the contract allows (`0..=100000`).
const MAX_SIZE: u32 = 100_000;

/// Arguments of `soapstone lab-client`, the peer-client protocol's five.
#[derive(Debug, clap::Args)]
#[non_exhaustive]
pub struct LabClientArgs {
    /// The service's URL (`http://127.0.0.1:PORT/dp`).
    pub url: String,
    /// `doNothing`, `getStringOfSize` or `getIntegersOfSize`.
    pub op: String,
    /// The size for the two getters, `0..=100000` (ignored by `doNothing`).
    pub n: u32,
    /// Seconds of untimed calls first.
    pub warmup_s: f64,
    /// Seconds of timed calls.
    pub window_s: f64,
}

/// The operation, validated.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Op {
    DoNothing,
    String(u32),
    Integers(u32),
}

impl Op {
    fn parse(op: &str, n: u32) -> anyhow::Result<Op> {
        if n > MAX_SIZE && op != "doNothing" {
            bail!("size `{n}` is out of range `0..={MAX_SIZE}`");
        }
        Ok(match op {
            "doNothing" => Op::DoNothing,
            "getStringOfSize" => Op::String(n),
            "getIntegersOfSize" => Op::Integers(n),
            other => {
                bail!("unknown operation `{other}` (doNothing, getStringOfSize, getIntegersOfSize)")
            }
        })
    }
}

/// What the client prints: the protocol's JSON line.
#[derive(Debug, Default, Serialize)]
struct Report {
    ok: u64,
    errors: u64,
    first_error: Option<String>,
    samples_us: Vec<f64>,
    warmup_calls: u64,
    first_call_us: Option<f64>,
}

/// One call and its check: `Err` says what was wrong (a fault, a transport error, a wrong value).
async fn call(client: &DpClient, op: Op) -> Result<(), String> {
    match op {
        Op::DoNothing => client.do_nothing().await.map_err(|e| e.to_string()),
        Op::String(n) => {
            let got = client
                .get_string_of_size(n as i32)
                .await
                .map_err(|e| e.to_string())?;
            let want = string_of(n);
            if got != want {
                return Err(format!(
                    "getStringOfSize({n}) answered {} characters `{}...`, not the letters `abc...` ({n})",
                    got.len(),
                    got.chars().take(12).collect::<String>()
                ));
            }
            Ok(())
        }
        Op::Integers(n) => {
            let got = client
                .get_integers_of_size(n as i32)
                .await
                .map_err(|e| e.to_string())?;
            if let Some(i) = (0..n as usize).find(|&i| got.get(i) != Some(&(i as i32))) {
                return Err(format!(
                    "getIntegersOfSize({n}): item {i} is {:?}, not `{i}`",
                    got.get(i)
                ));
            }
            if got.len() != n as usize {
                return Err(format!(
                    "getIntegersOfSize({n}) answered {} integers",
                    got.len()
                ));
            }
            Ok(())
        }
    }
}

fn seconds(what: &str, s: f64) -> anyhow::Result<Duration> {
    Duration::try_from_secs_f64(s).with_context(|| format!("{what} `{s}` is not a duration in s"))
}

/// Runs the client; prints the JSON line. A wrong answer is counted, never recorded.
pub async fn run_lab_client(args: LabClientArgs) -> anyhow::Result<()> {
    let op = Op::parse(&args.op, args.n)?;
    let warmup = seconds("warm-up", args.warmup_s)?;
    let window = seconds("window", args.window_s)?;
    let client = DpClient::new(&args.url)
        .with_context(|| format!("cannot make a client for `{}`", args.url))?;
    let report = measure(&client, op, warmup, window).await;
    println!("{}", serde_json::to_string(&report)?);
    Ok(())
}

async fn measure(client: &DpClient, op: Op, warmup: Duration, window: Duration) -> Report {
    let mut r = Report::default();
    let fail = |r: &mut Report, e: String| {
        r.errors += 1;
        r.first_error.get_or_insert(e);
    };
    let start = Instant::now();
    // At least one untimed call: it opens the connection and reports the cold first call.
    loop {
        let t = Instant::now();
        let res = call(client, op).await;
        r.first_call_us
            .get_or_insert(t.elapsed().as_secs_f64() * 1e6);
        match res {
            Ok(()) => r.warmup_calls += 1,
            Err(e) => fail(&mut r, e),
        }
        if start.elapsed() >= warmup {
            break;
        }
    }
    let start = Instant::now();
    while start.elapsed() < window && r.samples_us.len() < MAX_SAMPLES {
        let t = Instant::now();
        match call(client, op).await {
            Ok(()) => {
                r.samples_us.push(t.elapsed().as_secs_f64() * 1e6);
                r.ok += 1;
            }
            Err(e) => fail(&mut r, e),
        }
    }
    r
}

#[cfg(test)]
#[path = "lab_client_tests.rs"]
mod tests;
