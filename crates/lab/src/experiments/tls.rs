//! The TLS row (issue 11): Sam Ruby's echoFloat over https against the same call over plain
//! http, on the same release `soapstone serve --services echo` started twice side by side
//! (once with `--tls-cert/--tls-key`), measured in one run with the same windows and
//! placements: the round trip with one sequential client, and throughput with
//! [`CONNECTIONS`] closed-loop connections, each same-CPU and cross-CPU, and the TLS / plain
//! ratio of each.
//!
//! The certificate is made at run time (rcgen: a throwaway CA and a leaf for `127.0.0.1`), kept
//! under `OUT/tls/` beside the logs, and the bench trusts that CA only (`--tls-ca`): the run
//! needs no network and no files of the user's. Connections are kept alive, so the handshake
//! is paid once per connection during the warm-up and the rows measure the record layer.
//! Must never compare a TLS point with a plain one measured with another placement or window.

use std::path::PathBuf;

use anyhow::Context as _;

use crate::driver::{BenchSpec, Load};
use crate::experiments::echo::RUBY_REQUEST;
use crate::experiments::{Lab, READY};
use crate::procs::Server;
use crate::report::{fmt, pair, Row, Section, Table};
use crate::results::{PlacementKind, Results};

const EXP: &str = "tls";
/// One sequential client: the round trip.
const ROUND_TRIP: &str = "echoFloat";
/// [`CONNECTIONS`] closed-loop connections: throughput.
const THROUGHPUT: &str = "echoFloat/8 connections";
/// Connections of the throughput points.
const CONNECTIONS: u32 = 8;
const PLAIN: &str = "soapstone-http";
const TLS: &str = "soapstone-https";

/// A CA and a leaf it signed for `127.0.0.1` and `localhost`, written under `dir`:
/// (ca, cert, key) paths.
fn certificates(dir: &std::path::Path) -> anyhow::Result<(PathBuf, PathBuf, PathBuf)> {
    use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair};
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create `{}`", dir.display()))?;
    let mut ca = CertificateParams::new(Vec::<String>::new())?;
    ca.distinguished_name
        .push(DnType::CommonName, "soapstone lab throwaway ca");
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca = CertifiedIssuer::self_signed(ca, KeyPair::generate()?)?;
    let key = KeyPair::generate()?;
    let leaf = CertificateParams::new(vec!["127.0.0.1".to_owned(), "localhost".to_owned()])?
        .signed_by(&key, &ca)?;
    let paths = (
        dir.join("ca.pem"),
        dir.join("cert.pem"),
        dir.join("key.pem"),
    );
    for (path, pem) in [
        (&paths.0, ca.pem()),
        (&paths.1, leaf.pem()),
        (&paths.2, key.serialize_pem()),
    ] {
        std::fs::write(path, pem).with_context(|| format!("cannot write `{}`", path.display()))?;
    }
    Ok(paths)
}

pub(crate) async fn run(lab: &mut Lab) -> anyhow::Result<()> {
    let t = lab.cfg.timing.clone();
    let body = lab.body("echoFloat.xml", RUBY_REQUEST)?;
    let (ca, cert, key) = certificates(&lab.cfg.out.join("tls"))?;
    let plain = lab.serve(&["echo"]).await?;
    let args: Vec<String> = [
        "serve",
        "--addr",
        "127.0.0.1:0",
        "--services",
        "echo",
        "--tls-cert",
    ]
    .into_iter()
    .map(str::to_owned)
    .chain([cert.display().to_string(), "--tls-key".into()])
    .chain([key.display().to_string()])
    .collect();
    let tls = match Server::start(
        &lab.launcher,
        "serve-echo-tls",
        Some(&lab.cfg.server_cpu),
        &args,
        READY,
    )
    .await
    {
        Ok(s) => s,
        Err(e) => {
            plain.stop().await?;
            return Err(e);
        }
    };
    let urls = [
        (PLAIN, format!("http://{}/echo", plain.addr), None),
        (TLS, format!("https://{}/echo", tls.addr), Some(&ca)),
    ];
    // Interleaved per placement and load, plain then TLS, so that the machine's drift hits
    // both sides of each ratio alike.
    for pin in lab.pins() {
        for (op, load) in [
            (
                ROUND_TRIP,
                Load::Sequential {
                    duration: t.latency_window,
                    warmup: t.warmup,
                },
            ),
            (
                THROUGHPUT,
                Load::Closed {
                    connections: CONNECTIONS,
                    duration: t.latency_window,
                    warmup: t.warmup,
                },
            ),
        ] {
            for (system, url, ca) in &urls {
                let mut spec = BenchSpec::sequential(url.clone(), t.latency_window, t.warmup)
                    .with_body(body.clone());
                spec.load = load.clone();
                if let Some(ca) = ca {
                    spec.extra = vec!["--tls-ca".into(), ca.display().to_string()];
                }
                lab.measure((system, EXP, op), pin.placement(None), &spec)
                    .await;
            }
        }
    }
    plain.stop().await?;
    tls.stop().await?;
    Ok(())
}

/// `x1.09`, or a dash when either side is missing.
fn ratio(tls: Option<f64>, plain: Option<f64>) -> Option<f64> {
    Some(tls? / plain?).filter(|r| r.is_finite())
}

pub(crate) fn section(results: &Results) -> Section {
    let mut rows = Vec::new();
    let mut findings = Vec::new();
    for (op, label) in [
        (ROUND_TRIP, "round trip, one sequential client"),
        (THROUGHPUT, "throughput, 8 closed-loop connections"),
    ] {
        rows.push(Row::group(label));
        let value = |r: &crate::results::Run| {
            if op == ROUND_TRIP {
                r.p50_us
            } else {
                r.throughput_rps
            }
        };
        let mut cells = |sys: &'static str, name: &str| {
            let same = results.get(EXP, sys, op, PlacementKind::SameCpu);
            let cross = results.get(EXP, sys, op, PlacementKind::CrossCpu);
            rows.push(Row::today(vec![
                name.to_owned(),
                pair(same.map(|r| r.p50_us), cross.map(|r| r.p50_us), fmt::us),
                pair(
                    same.map(|r| r.throughput_rps),
                    cross.map(|r| r.throughput_rps),
                    fmt::count,
                ),
            ]));
            (same.map(value), cross.map(value))
        };
        let plain = cells(PLAIN, "plain http");
        let tls = cells(TLS, "https (TLS 1.3, rustls)");
        let (same, cross) = (ratio(tls.0, plain.0), ratio(tls.1, plain.1));
        let what = if op == ROUND_TRIP {
            "p50 round trip"
        } else {
            "throughput"
        };
        rows.push(Row::today(vec![
            format!("TLS / plain ({what})"),
            if op == ROUND_TRIP {
                pair(same, cross, fmt::ratio)
            } else {
                String::new()
            },
            if op == ROUND_TRIP {
                String::new()
            } else {
                pair(same, cross, fmt::ratio)
            },
        ]));
        if let Some(r) = same {
            findings.push(format!(
                "TLS / plain {what} of echoFloat, client and server on one CPU: {}.",
                fmt::ratio(r)
            ));
        }
    }
    Section {
        id: EXP.to_owned(),
        title: "echoFloat over TLS (issue 11)".to_owned(),
        intro: "The same release `soapstone serve --services echo` started twice side by side, \
                once plain and once with a certificate made for this run (rcgen: a throwaway CA \
                and a leaf for 127.0.0.1), loaded by `soapstone bench` with Ruby's echoFloat \
                envelope: one sequential client for the round trip, 8 closed-loop connections \
                for throughput. Connections are kept alive, so the handshake falls in the \
                warm-up and the rows measure TLS's record layer. Plain and TLS points alternate \
                within one run; the ratio is the claim, the absolute figures move with the \
                machine."
            .to_owned(),
        findings,
        tables: vec![Table {
            title: "echoFloat, https against plain http".to_owned(),
            source: "issue 11 (no published figure)".to_owned(),
            note: "Each cell is `same CPU / cross-CPU`: client and server pinned to one CPU, \
                   then to two. The ratio rows divide TLS by plain (above 1: TLS takes longer, \
                   or answers more)."
                .to_owned(),
            header: vec![
                "system".to_owned(),
                "p50 µs".to_owned(),
                "calls per second".to_owned(),
            ],
            rows,
        }],
        charts: Vec::new(),
    }
}
