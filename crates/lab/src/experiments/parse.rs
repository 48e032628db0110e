//! Elfwing and Paulsson (seed 000, 2002), Table 3, and Ruby's parser overheads (seed 002): how
//! long DOM and streaming parsers take on the studies' own SOAP messages (the thesis's appendix C
//! calls, Ruby's echoFloat request).
//!
//! Timed in-process, one parse at a time, each parse timed on its own (a parse takes
//! microseconds, the clock read tens of nanoseconds), after a warm-up: soapstone's codec reads
//! the envelope and decodes the body into typed values (what a server does per request);
//! roxmltree builds a DOM (the thesis's "DOM"); xml-rs and quick-xml stream events (its "SAX").
//! When criterion has left results (`target/criterion/**/new/
//! estimates.json`, e.g. from `cargo bench -p soapstone-codec`) they are added as their own
//! table. This is a measurement, not a test: nothing here asserts a duration, and a parser that
//! fails on a document is a problem in the report, not a panic.

use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::experiments::{echo, thesis, Lab};
use crate::report::{fmt, Row, Section, Table};
use crate::results::{Placement, PlacementKind, Results, Run, Settings};
use crate::seeds;

const EXP: &str = "parse";
const CRITERION: &str = "parse-criterion";

/// The parsers timed: (system id, kind as the thesis names it).
pub(crate) const PARSERS: [(&str, &str); 4] = [
    ("soapstone-codec", "streaming, typed values"),
    ("roxmltree", "DOM"),
    ("xml-rs", "streaming (SAX-like)"),
    ("quick-xml", "streaming (pull)"),
];

/// What soapstone's codec decodes an appendix C call into (every call's parameters are ints).
#[derive(Debug, serde::Deserialize)]
struct ChargingCall {
    id: Option<i32>,
    am: Option<i32>,
    res: Option<i32>,
    cn: Option<i32>,
}

/// Ruby's echoFloat request body.
#[derive(Debug, serde::Deserialize)]
struct EchoFloatRequest {
    input: f32,
}

/// Ruby's echoFloat response body.
#[derive(Debug, serde::Deserialize)]
struct EchoFloatResult {
    result: f32,
}

/// Decodes `doc` with soapstone's codec into typed values, as a server does: the envelope up to
/// the body element, then the body into a struct (SOAP-encoded for the charging calls, literal
/// for Ruby's messages).
fn codec_decode(doc: &str) -> Result<usize, String> {
    use soapstone_codec::{Envelope, Limits, Style};
    let limits = Limits::default();
    let env = Envelope::parse(doc.as_bytes(), &limits).map_err(|e| e.to_string())?;
    let name = env
        .body_element()
        .map(|q| q.local.clone())
        .ok_or("no body element")?;
    let n = match name.as_str() {
        "echoFloat" => {
            let v: EchoFloatRequest = env.body(Style::Literal).map_err(|e| e.to_string())?;
            usize::from(v.input > 0.0)
        }
        "echoFloatResult" => {
            let v: EchoFloatResult = env.body(Style::Literal).map_err(|e| e.to_string())?;
            usize::from(v.result > 0.0)
        }
        _ => {
            let v: ChargingCall = env.body(Style::Encoded).map_err(|e| e.to_string())?;
            [v.id, v.am, v.res, v.cn].iter().flatten().count()
        }
    };
    Ok(n + name.len())
}

const ENVELOPE_HEAD: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<SOAP-ENV:Envelope SOAP-ENV:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"
  xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/"
  xmlns:xsd="http://www.w3.org/2001/XMLSchema"
  xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
  xmlns:SOAP-ENC="http://schemas.xmlsoap.org/soap/encoding/">
  <SOAP-ENV:Body>
"#;
const ENVELOPE_TAIL: &str = "  </SOAP-ENV:Body>\n</SOAP-ENV:Envelope>\n";

/// The documents: the thesis's appendix C calls (C.1-C.7) and Ruby's echoFloat request and
/// response.
pub(crate) fn documents() -> Vec<(&'static str, String)> {
    let wrap = |body: &str| format!("{ENVELOPE_HEAD}{body}{ENVELOPE_TAIL}");
    vec![
        ("C.1 reserve", wrap("    <reserve>\n      <id xsi:type=\"xsd:int\">2</id>\n      <am xsi:type=\"xsd:int\">520</am>\n    </reserve>\n")),
        ("C.2 debitReservation", wrap("    <debitReservation>\n      <id xsi:type=\"xsd:int\">2</id>\n      <am xsi:type=\"xsd:int\">520</am>\n      <res xsi:type=\"xsd:int\">12407</res>\n    </debitReservation>\n")),
        ("C.3 directDebit", wrap("    <directDebit>\n      <id xsi:type=\"xsd:int\">8</id>\n      <am xsi:type=\"xsd:int\">438</am>\n    </directDebit>\n")),
        ("C.4 creditControl", thesis::CREDIT_CONTROL.to_owned()),
        ("C.5 credit", thesis::CREDIT.to_owned()),
        ("C.6 releaseRes", wrap("    <releaseRes>\n      <res xsi:type=\"xsd:int\">12418</res>\n    </releaseRes>\n")),
        ("C.7 confirmAction", wrap("    <confirmAction>\n      <cn xsi:type=\"xsd:int\">76430</cn>\n    </confirmAction>\n")),
        ("echoFloat request", echo::RUBY_REQUEST.to_owned()),
        ("echoFloat response", echo::RUBY_RESPONSE.to_owned()),
    ]
}

/// Parses `doc` once with `parser`; returns a count of what it saw (kept so nothing is elided).
pub(crate) fn parse_once(parser: &str, doc: &str) -> Result<usize, String> {
    match parser {
        "soapstone-codec" => codec_decode(doc),
        "roxmltree" => roxmltree::Document::parse(doc)
            .map(|d| d.descendants().count())
            .map_err(|e| e.to_string()),
        "xml-rs" => {
            let mut n = 0;
            for ev in xml::reader::EventReader::new(doc.as_bytes()) {
                ev.map_err(|e| e.to_string())?;
                n += 1;
            }
            Ok(n)
        }
        "quick-xml" => {
            let mut reader = quick_xml::NsReader::from_str(doc);
            let mut n = 0;
            loop {
                match reader.read_resolved_event() {
                    Ok((_, quick_xml::events::Event::Eof)) => return Ok(n),
                    Ok(_) => n += 1,
                    Err(e) => return Err(e.to_string()),
                }
            }
        }
        other => Err(format!("unknown parser `{other}`")),
    }
}

/// Times `parser` on `doc` for `window` after a short warm-up; per-parse times in µs.
fn time(parser: &str, doc: &str, window: Duration) -> Result<Vec<f64>, String> {
    let warm = Instant::now();
    while warm.elapsed() < window / 5 {
        black_box(parse_once(parser, black_box(doc))?);
    }
    let mut samples = Vec::with_capacity(100_000);
    let start = Instant::now();
    while start.elapsed() < window && samples.len() < 5_000_000 {
        let t = Instant::now();
        black_box(parse_once(parser, black_box(doc))?);
        samples.push(t.elapsed().as_secs_f64() * 1e6);
    }
    Ok(samples)
}

fn summarize(mut s: Vec<f64>) -> (f64, f64, f64, f64, usize) {
    s.sort_by(f64::total_cmp);
    let n = s.len().max(1);
    let q = |p: f64| s[((p * (n - 1) as f64).round() as usize).min(n - 1)];
    let mean = s.iter().sum::<f64>() / n as f64;
    let var = s.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n as f64;
    (q(0.5), q(0.99), mean, var.sqrt(), s.len())
}

pub(crate) async fn run(lab: &mut Lab) -> anyhow::Result<()> {
    let window = lab.cfg.timing.parse_window;
    let docs = documents();
    for (parser, _) in PARSERS {
        for (name, doc) in &docs {
            let (p, d) = (parser.to_owned(), doc.clone());
            let samples = tokio::task::spawn_blocking(move || time(&p, &d, window)).await?;
            match samples {
                Ok(s) if !s.is_empty() => {
                    let (p50, p99, mean, std, n) = summarize(s);
                    lab.runs.push(Run {
                        system: parser.to_owned(),
                        experiment: EXP.to_owned(),
                        operation: (*name).to_owned(),
                        p50_us: p50,
                        p99_us: p99,
                        mean_us: mean,
                        stdev_us: Some(std),
                        throughput_rps: n as f64 / window.as_secs_f64(),
                        ok: n as u64,
                        errors: 0,
                        timeouts: 0,
                        unsent: 0,
                        peak_ok_per_second: None,
                        cache: None,
                        phases: Vec::new(),
                        bytes_sent: None,
                        bytes_received: None,
                        percentiles: Vec::new(),
                        timeline: Vec::new(),
                        settings: in_process(window, doc.len(), None),
                    });
                }
                Ok(_) => lab.problem(format!(
                    "parse: {parser} on {name}: no sample in the window"
                )),
                Err(e) => lab.problem(format!("parse: {parser} failed on {name}: {e}")),
            }
        }
    }
    let dir = lab.cfg.criterion_dir.clone();
    lab.runs.extend(criterion_runs(&dir));
    Ok(())
}

fn in_process(window: Duration, bytes: usize, command: Option<String>) -> Settings {
    Settings {
        placement: Placement {
            kind: PlacementKind::InProcess,
            server_cpu: None,
            client_cpu: None,
            load_cpu: None,
        },
        duration_s: window.as_secs_f64(),
        warmup_s: window.as_secs_f64() / 5.0,
        connections: 0,
        rate: None,
        schedule: Vec::new(),
        background: None,
        request_bytes: Some(bytes as u64),
        command,
    }
}

/// Runs read from criterion's `new/estimates.json` files under `dir` (none if absent).
pub(crate) fn criterion_runs(dir: &Path) -> Vec<Run> {
    let mut files = Vec::new();
    collect(dir, &mut files, 0);
    files.sort();
    files
        .into_iter()
        .filter_map(|f| {
            let v: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&f).ok()?).ok()?;
            let est = |k: &str| {
                v.pointer(&format!("/{k}/point_estimate"))
                    .and_then(|x| x.as_f64())
            };
            let (mean, median) = (est("mean")? / 1000.0, est("median")? / 1000.0);
            // <dir>/<group>/<function>[/<param>]/new/estimates.json
            let rel = f.parent()?.parent()?.strip_prefix(dir).ok()?;
            let parts: Vec<String> = rel
                .iter()
                .map(|c| c.to_string_lossy().into_owned())
                .collect();
            let (group, rest) = parts.split_first()?;
            let system = rest.first().cloned().unwrap_or_else(|| group.clone());
            let mut op = group.clone();
            if rest.len() > 1 {
                op = format!("{group}/{}", rest[1..].join("/"));
            }
            Some(Run {
                system,
                experiment: CRITERION.to_owned(),
                operation: op,
                p50_us: median,
                p99_us: f64::NAN,
                mean_us: mean,
                stdev_us: est("std_dev").map(|s| s / 1000.0),
                throughput_rps: 1e6 / mean,
                ok: 0,
                errors: 0,
                timeouts: 0,
                unsent: 0,
                peak_ok_per_second: None,
                cache: None,
                phases: Vec::new(),
                bytes_sent: None,
                bytes_received: None,
                percentiles: Vec::new(),
                timeline: Vec::new(),
                settings: in_process(
                    Duration::ZERO,
                    0,
                    Some(format!("criterion: {}", f.display())),
                ),
            })
        })
        .collect()
}

fn collect(dir: &Path, out: &mut Vec<std::path::PathBuf>, depth: usize) {
    if depth > 6 {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            if p.file_name().is_some_and(|n| n == "report") {
                continue;
            }
            collect(&p, out, depth + 1);
        } else if p.file_name().is_some_and(|n| n == "estimates.json")
            && p.parent()
                .and_then(|d| d.file_name())
                .is_some_and(|n| n == "new")
        {
            out.push(p);
        }
    }
}

/// Pooled mean and standard deviation of `parser` over the appendix C documents.
fn pooled(results: &Results, parser: &str) -> Option<(f64, f64, f64)> {
    let runs: Vec<&Run> = results
        .runs
        .iter()
        .filter(|r| r.experiment == EXP && r.system == parser && r.operation.starts_with("C."))
        .collect();
    let n: f64 = runs.iter().map(|r| r.ok as f64).sum();
    if runs.is_empty() || n <= 0.0 {
        return None;
    }
    let mean = runs.iter().map(|r| r.mean_us * r.ok as f64).sum::<f64>() / n;
    let var = runs
        .iter()
        .map(|r| r.ok as f64 * (r.stdev_us.unwrap_or(0.0).powi(2) + (r.mean_us - mean).powi(2)))
        .sum::<f64>()
        / n;
    let median_of_medians = {
        let mut m: Vec<f64> = runs.iter().map(|r| r.p50_us).collect();
        m.sort_by(f64::total_cmp);
        m[m.len() / 2]
    };
    Some((mean, var.sqrt(), median_of_medians))
}

pub(crate) fn section(results: &Results) -> Section {
    let seed = &seeds::THESIS_TABLE_3;
    let mut rows = vec![Row::group(format!(
        "published ({}; Java, Pentium II, ms)",
        seed.source
    ))];
    for r in seed.rows {
        rows.push(Row::published(vec![
            r.label.to_owned(),
            format!("{} ± {}", fmt::ms(r.values[0]), fmt::ms(r.values[1])),
            String::new(),
            String::new(),
        ]));
    }
    rows.push(Row::group("today (in-process, one parse at a time, µs)"));
    for (parser, kind) in PARSERS {
        let p = pooled(results, parser);
        rows.push(Row::today(vec![
            format!("{parser} ({kind})"),
            String::new(),
            p.map(|(m, s, _)| format!("{} ± {}", fmt::us(m), fmt::us(s)))
                .unwrap_or_else(|| "–".into()),
            p.map(|(_, _, med)| fmt::us(med))
                .unwrap_or_else(|| "–".into()),
        ]));
    }
    let mut tables = vec![Table {
        title: "Table 3: parse times of the charging calls (appendix C)".to_owned(),
        source: seed.source.to_owned(),
        note: "2002: ms, average ± standard deviation over the prototype's SOAP calls fed as \
               byte streams. Today: µs, mean ± standard deviation over every parse of the seven \
               appendix C calls, and the median of the per-document medians."
            .to_owned(),
        header: vec![
            "parser".to_owned(),
            "2002 (ms)".to_owned(),
            "today mean ± std (µs)".to_owned(),
            "today p50 (µs)".to_owned(),
        ],
        rows,
    }];
    let ruby = &seeds::RUBY_PARSERS;
    let mut rrows = vec![Row::group(format!("published ({}; µs)", ruby.source))];
    for r in ruby.rows {
        rrows.push(Row::published(vec![
            r.label.to_owned(),
            fmt::count(r.values[0]),
        ]));
    }
    rrows.push(Row::group(
        "today: median parse of the same echoFloat request (µs)",
    ));
    for (parser, kind) in PARSERS {
        let v = results
            .get(EXP, parser, "echoFloat request", PlacementKind::InProcess)
            .map(|r| fmt::us(r.p50_us))
            .unwrap_or_else(|| "–".into());
        rrows.push(Row::today(vec![format!("{parser} ({kind})"), v]));
    }
    tables.push(Table {
        title: "Ruby 2001: parser overhead per echoFloat message".to_owned(),
        source: ruby.source.to_owned(),
        note: "2001: µs per message inside a web server on a 550 MHz Pentium III. Today: µs, \
               median in-process parse."
            .to_owned(),
        header: vec!["parser".to_owned(), "µs per message".to_owned()],
        rows: rrows,
    });
    let crit: Vec<&Run> = results
        .runs
        .iter()
        .filter(|r| r.experiment == CRITERION)
        .collect();
    if !crit.is_empty() {
        tables.push(Table {
            title: "From criterion (cargo bench -p soapstone-codec), when present".to_owned(),
            source: String::new(),
            note: "criterion's point estimates, µs per iteration, as found under the criterion \
                   directory; see the codec's benches for what each group parses."
                .to_owned(),
            header: vec![
                "benchmark".to_owned(),
                "function".to_owned(),
                "mean (µs)".to_owned(),
                "median (µs)".to_owned(),
            ],
            rows: crit
                .iter()
                .map(|r| {
                    Row::today(vec![
                        r.operation.clone(),
                        r.system.clone(),
                        fmt::us(r.mean_us),
                        fmt::us(r.p50_us),
                    ])
                })
                .collect(),
        });
    }
    let mut findings = Vec::new();
    if let (Some((codec, _, _)), Some((dom, _, _))) = (
        pooled(results, "soapstone-codec"),
        pooled(results, "roxmltree"),
    ) {
        findings.push(format!(
            "soapstone's codec decodes a charging call into typed values in {} µs on average; \
             building a DOM of it alone (roxmltree) takes {} µs. In 2002 the fastest parser of \
             the thesis (Crimson SAX) took 3.36 ms.",
            fmt::us(codec),
            fmt::us(dom)
        ));
    }
    if let (Some((dom, _, _)), Some((pull, _, _))) =
        (pooled(results, "roxmltree"), pooled(results, "quick-xml"))
    {
        findings.push(format!(
            "A DOM parse of a charging call takes {} µs, a streaming parse {} µs: {} in favour \
             of streaming (the thesis found ×2.7 for Xerces, ×1.3 for Crimson).",
            fmt::us(dom),
            fmt::us(pull),
            fmt::ratio(dom / pull)
        ));
    }
    Section {
        id: EXP.to_owned(),
        title: "Parse times, DOM vs streaming (Elfwing & Paulsson 2002, Ruby 2001)".to_owned(),
        intro: "The studies' own messages are parsed in the lab process, one parse at a time: \
                by soapstone's codec (envelope read without a DOM, body decoded into typed \
                values, as the server does), by a DOM parser (roxmltree), and by two streaming \
                parsers that only produce events (xml-rs, and quick-xml)."
            .to_owned(),
        findings,
        tables,
        charts: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_parser_reads_every_document() {
        for (parser, _) in PARSERS {
            for (name, doc) in documents() {
                let n = parse_once(parser, &doc).unwrap_or_else(|e| panic!("{parser} {name}: {e}"));
                assert!(n > 5, "{parser} saw {n} items in {name}");
                if parser == "soapstone-codec" && name.starts_with("C.") {
                    // The typed decode found the call's int parameters (1 to 3 of them).
                    let params = n - doc_element(&doc).len();
                    assert!((1..=3).contains(&params), "{name}: {params} parameters");
                }
            }
        }
    }

    fn doc_element(doc: &str) -> String {
        let d = roxmltree::Document::parse(doc).unwrap();
        let body = d.descendants().find(|n| n.has_tag_name("Body")).unwrap();
        let first = body.children().find(|n| n.is_element()).unwrap();
        first.tag_name().name().to_owned()
    }

    #[test]
    fn a_broken_document_is_an_error_not_a_panic() {
        for (parser, _) in PARSERS {
            assert!(parse_once(parser, "<a><b></a>").is_err(), "{parser}");
        }
    }

    #[test]
    fn criterion_estimates_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("envelope/roxmltree/credit/new");
        std::fs::create_dir_all(&p).unwrap();
        std::fs::write(
            p.join("estimates.json"),
            r#"{"mean":{"point_estimate":2500.0},"median":{"point_estimate":2400.0},"std_dev":{"point_estimate":100.0}}"#,
        )
        .unwrap();
        let runs = criterion_runs(dir.path());
        assert_eq!(runs.len(), 1);
        assert_eq!(runs[0].system, "roxmltree");
        assert_eq!(runs[0].operation, "envelope/credit");
        assert!((runs[0].mean_us - 2.5).abs() < 1e-9);
        assert!(criterion_runs(&dir.path().join("missing")).is_empty());
    }
}
