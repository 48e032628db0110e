//! The SOAPBuilders Interop Lab Round 2 base table (2001), redrawn live: the fourteen base
//! echoes (PHP ext/soap's recorded requests, [`crate::peers::round2`]) sent to soapstone's
//! `/echo` and to every ready peer whose manifest lists a `round2` path. Each answer is checked
//! against the request's value first; a wrong answer is a failed cell with its reason and is
//! never timed. A right one then gets a short sequential latency point (`soapstone bench`, the
//! client on the server's CPU). The table: rows = systems, columns = echoes, cells = p50 µs or
//! ✗; and how many of the 14 each system answers right. Must never time an unchecked answer
//! nor drop a system that failed: it stays a row with its reasons.

use std::time::Duration;

use crate::driver::BenchSpec;
use crate::peers::check::{http_body, post};
use crate::peers::round2::{self, check, ECHOES};
use crate::peers::server::PeerServer;
use crate::peers::ManifestPeer;
use crate::report::suspect::{self, MIN_SAMPLES};
use crate::report::{fmt, Row, Section, Table};
use crate::results::{InteropCheck, PlacementKind, Results};

use super::{Lab, READY};

const EXP: &str = "round2";
/// The most untimed calls per echo a JVM or Mono peer gets with `--quick` (its manifest's
/// warm-up, 20 s for the JVM peers, spread over 14 echoes would be ~1.4 s each).
const QUICK_PEER_WARMUP: Duration = Duration::from_millis(500);
/// The longest window of a point measured again for too few calls (`--quick`, full).
const QUICK_RETRY_CAP: Duration = Duration::from_millis(1500);
const RETRY_CAP: Duration = Duration::from_secs(5);
/// soapstone's Round 2 endpoint (`soapstone serve --services echo`).
const SOAPSTONE_PATH: &str = "/echo";

pub(crate) async fn run(lab: &mut Lab) -> anyhow::Result<()> {
    let server = lab.serve(&["echo"]).await?;
    let addr = server.addr.clone();
    let warmup = lab.cfg.timing.warmup / 2;
    one_system(lab, "soapstone", &addr, SOAPSTONE_PATH, warmup, false).await;
    server.stop().await?;
    for peer in lab.peers.carrying(EXP) {
        let result = one_peer(lab, &peer).await;
        lab.peer_outcome(EXP, &peer.id, result);
    }
    Ok(())
}

async fn one_peer(lab: &mut Lab, peer: &ManifestPeer) -> anyhow::Result<()> {
    let path = peer.services.get(EXP).cloned().unwrap_or_default();
    let server = PeerServer::start(&lab.launcher, peer, Some(&lab.cfg.server_cpu), READY).await?;
    let warmup = peer_warmup(lab, peer);
    let literal = peer.request.as_deref() == Some("literal");
    let right = one_system(lab, &peer.id, &server.addr(), &path, warmup, literal).await;
    server.stop().await?;
    if right == 0 {
        anyhow::bail!("none of the 14 Round 2 echoes was answered right");
    }
    Ok(())
}

/// The untimed calls before each echo's point on `peer`: the manifest's JIT warm-up (`warmup_s`,
/// a JVM or Mono peer) spread over the fourteen echoes, at most [`QUICK_PEER_WARMUP`] per echo
/// with `--quick`; the lab's own warm-up otherwise.
fn peer_warmup(lab: &Lab, peer: &ManifestPeer) -> Duration {
    let own = lab.cfg.timing.warmup / 2;
    let jit = peer.warmup_s.unwrap_or(0.0).max(0.0) / ECHOES.len() as f64;
    let jit = Duration::from_secs_f64(jit);
    let jit = if lab.cfg.quick {
        jit.min(QUICK_PEER_WARMUP)
    } else {
        jit
    };
    own.max(jit)
}

/// Checks and times every echo on `system` at `http://addr{path}`, each point after `warmup`
/// of untimed calls, in the `literal` form for a peer that refuses rpc/encoded; returns how many
/// were right.
async fn one_system(
    lab: &mut Lab,
    system: &str,
    addr: &str,
    path: &str,
    warmup: Duration,
    literal: bool,
) -> usize {
    let t = lab.cfg.timing.clone();
    let pin = lab.pins().remove(0);
    let url = format!("http://{addr}{path}");
    let mut right = 0;
    for echo in &ECHOES {
        let action = format!("http://soapinterop.org/{}", echo.op);
        let request = if literal {
            round2::literal(echo.request)
        } else {
            echo.request.to_owned()
        };
        let answer = match post(addr, path, &request, &action).await {
            Ok(raw) => http_body(&raw).and_then(|b| check(echo, &b)),
            Err(e) => Err(e),
        };
        let (ok, reason, note) = match answer {
            Ok(note) => (true, None, note),
            Err(e) => (false, Some(e), None),
        };
        lab.interop.push(InteropCheck {
            system: system.to_owned(),
            operation: echo.op.to_owned(),
            ok,
            reason,
            note,
            literal,
        });
        if !ok {
            continue;
        }
        right += 1;
        let name = format!("round2-{}-{system}.xml", echo.op);
        let body = match lab.body(&name, &request) {
            Ok(b) => b,
            Err(e) => {
                lab.problem(format!("{EXP}: {e:#}"));
                continue;
            }
        };
        let mut spec =
            BenchSpec::sequential(url.clone(), t.parse_window, warmup).with_body(body.clone());
        spec.action = Some(action.clone());
        let Some(i) = lab
            .measure((system, EXP, echo.op), pin.placement(None), &spec)
            .await
        else {
            continue;
        };
        // A slow system (SOAP::Lite's ~44 ms a call) or a descheduled client leaves too few
        // calls in the short window: the point is measured again, once, in a window sized for
        // MIN_SAMPLES calls at the first point's mean, capped.
        let first = &lab.runs[i];
        if first.ok < MIN_SAMPLES {
            let mean_s = if first.ok > 0 {
                first.mean_us / 1e6
            } else {
                t.parse_window.as_secs_f64()
            };
            let want = Duration::from_secs_f64(mean_s * (MIN_SAMPLES as f64) * 1.5);
            let cap = if lab.cfg.quick {
                QUICK_RETRY_CAP
            } else {
                RETRY_CAP
            };
            let window = want.clamp(t.parse_window, cap);
            lab.runs.remove(i);
            let mut spec =
                BenchSpec::sequential(url.clone(), window, warmup.min(t.warmup)).with_body(body);
            spec.action = Some(action);
            lab.measure((system, EXP, echo.op), pin.placement(None), &spec)
                .await;
        }
    }
    right
}

/// A short column header: `echoStringArray` -> `StringArray`.
fn short(op: &str) -> &str {
    op.strip_prefix("echo").unwrap_or(op)
}

pub(crate) fn section(results: &Results) -> Section {
    let mut systems: Vec<&str> = Vec::new();
    for c in &results.interop {
        if !systems.contains(&c.system.as_str()) {
            systems.push(&c.system);
        }
    }
    let name = |id: &str| {
        results
            .systems
            .iter()
            .find(|s| s.id == id)
            .map(|s| {
                if s.name.starts_with(id) {
                    s.name.clone()
                } else {
                    format!("{id} ({})", s.name)
                }
            })
            .unwrap_or_else(|| id.to_owned())
    };
    let mut rows = Vec::new();
    let mut summary = Vec::new();
    let mut reasons = Vec::new();
    for sys in &systems {
        let literal = results
            .interop
            .iter()
            .any(|c| c.system == *sys && c.literal);
        let mut label = name(sys);
        if literal {
            label.push_str(" — literal form: no xsi:type, no SOAP-ENC arrays");
        }
        let mut cells = vec![label];
        let mut right = 0;
        for echo in &ECHOES {
            let c = results
                .interop
                .iter()
                .find(|c| c.system == *sys && c.operation == echo.op);
            cells.push(match c {
                None => "–".to_owned(),
                Some(c) if !c.ok => {
                    let why = c.reason.clone().unwrap_or_default();
                    reasons.push(format!("{sys} {}: {why}", echo.op));
                    "✗".to_owned()
                }
                Some(c) => {
                    right += 1;
                    if let Some(n) = &c.note {
                        reasons.push(format!("{sys} {} (right): {n}", echo.op));
                    }
                    match results.get(EXP, sys, echo.op, PlacementKind::SameCpu) {
                        Some(r) => suspect::cell(Some(r), |r| r.p50_us, fmt::us),
                        None => "✓ (not timed)".to_owned(),
                    }
                }
            });
        }
        cells.push(format!("{right}/14"));
        summary.push(format!("{sys} {right}/14"));
        rows.push(Row::today(cells));
    }
    let mut header = vec!["system".to_owned()];
    header.extend(ECHOES.iter().map(|e| short(e.op).to_owned()));
    header.push("right".to_owned());
    let mut findings = Vec::new();
    if !summary.is_empty() {
        findings.push(format!(
            "Round 2 base echoes answered right, of 14: {}.",
            summary.join(", ")
        ));
    }
    let mut note = "Cells: p50 round trip in µs of a short sequential point (client on the \
                    server's CPU), or ✗ when the answer did not echo the request's value; the \
                    last column counts the right answers. Strings, ints, base64, hex and \
                    booleans are compared exactly as values, floats as the same f32 (another \
                    lexical form is noted), dates as the same instant, decimals as the same \
                    number. A point with too few calls in its short window is measured again once \
                    in a longer one (up to 1.5 s quick, 5 s full); a JVM or Mono peer gets its \
                    manifest's JIT warm-up spread over the echoes before each point (at most \
                    0.5 s per echo quick). "
        .to_owned();
    note.push_str(suspect::MARK_NOTE);
    if !reasons.is_empty() {
        note.push_str(" Failures and notes: ");
        note.push_str(&reasons.join("; "));
        note.push('.');
    }
    Section {
        id: EXP.to_owned(),
        title: "SOAPBuilders Round 2 base echoes, live (2001 interop table)".to_owned(),
        intro: "The fourteen Round 2 base echoes of the SOAPBuilders Interop Lab \
                (rpc/encoded, http://soapinterop.org/), sent as PHP ext/soap's interop suite \
                recorded them, to soapstone and to every peer carrying them (a peer that reads \
                literal only, CXF's rpc/literal and Axis2's and spyne's document/literal \
                wrapped, gets them without their encoding attributes: the literal form, named \
                in its row); each answer is checked against the request \
                before its point is timed."
            .to_owned(),
        findings,
        tables: vec![Table {
            title: "Round 2 base: p50 µs per echo, or ✗".to_owned(),
            source: "SOAPBuilders Interop Lab Round 2 (2001); requests from php-src \
                     ext/soap/tests/interop/Round2/Base"
                .to_owned(),
            note,
            header,
            rows,
        }],
        charts: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::tests::{run, sample};

    #[test]
    fn a_wrong_answer_is_a_cross_with_its_reason_and_the_count_says_so() {
        let mut r = sample();
        for echo in &ECHOES {
            let ok = echo.op != "echoDecimal";
            r.interop.push(InteropCheck {
                system: "php-soapserver".into(),
                operation: echo.op.into(),
                ok,
                reason: (!ok).then(|| "`12345.6789001` instead of `12345.67890`".into()),
                note: None,
                literal: false,
            });
            if ok {
                r.runs.push(run(
                    "php-soapserver",
                    EXP,
                    echo.op,
                    PlacementKind::SameCpu,
                    120.0,
                ));
            }
        }
        // One point with a single call: shown, but marked suspect.
        let few = r
            .runs
            .iter_mut()
            .find(|x| x.experiment == EXP && x.operation == "echoBoolean")
            .unwrap();
        few.ok = 1;
        let s = section(&r);
        let row = &s.tables[0].rows[0].cells;
        assert!(row[14].starts_with("⚠ "), "{row:?}");
        assert_eq!(row.len(), 16, "{row:?}");
        assert_eq!(row[13], "✗", "{row:?}");
        assert_eq!(row[15], "13/14");
        assert!(row[1].contains("120"), "{row:?}");
        assert!(
            s.tables[0]
                .note
                .contains("php-soapserver echoDecimal: `12345.6789001` instead of `12345.67890`"),
            "{}",
            s.tables[0].note
        );
        assert_eq!(
            s.findings[0],
            "Round 2 base echoes answered right, of 14: php-soapserver 13/14."
        );
    }
}
