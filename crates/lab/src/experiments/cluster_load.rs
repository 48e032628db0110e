//! The cluster experiment's own clients: keyed charging calls that retry with their
//! idempotency key until answered (the failover), a probe that times single calls (the
//! PostgreSQL restart), HAProxy's CSV statistics, and the ledger read back with `psql`.
//!
//! Hand-written HTTP (one `Connection: close` request per call over a tokio socket, as in
//! [`super::charging_calls`]): the lab has no HTTP client dependency to spare. Every call has a
//! timeout, every answer is read to a bound ([`MAX_ANSWER`]); this module must never retry an
//! operation under a new key (that could apply it twice) nor count an unanswered one as done.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context as _};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The most bytes of one answer read (a charging answer is < 1 KiB; HAProxy's CSV ~4 KiB).
pub(crate) const MAX_ANSWER: u64 = 256 * 1024;
/// Per-call timeout.
const CALL_TIMEOUT: Duration = Duration::from_secs(10);

/// One HTTP answer: status and body text (or why there was none).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Answer {
    Http(u16, String),
    Io(String),
}

/// Sends `method path` with `body` to `host` (`ip:port`) and reads the answer to the close.
pub(crate) async fn http(host: &str, method: &str, path: &str, body: &str) -> Answer {
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: text/xml; charset=utf-8\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let r = tokio::time::timeout(CALL_TIMEOUT, async {
        let mut s = TcpStream::connect(host).await?;
        s.write_all(request.as_bytes()).await?;
        let mut buf = Vec::new();
        (&mut s).take(MAX_ANSWER).read_to_end(&mut buf).await?;
        std::io::Result::Ok(buf)
    })
    .await;
    match r {
        Err(_) => Answer::Io(format!("no answer in {} s", CALL_TIMEOUT.as_secs())),
        Ok(Err(e)) => Answer::Io(e.to_string()),
        Ok(Ok(buf)) => {
            let text = String::from_utf8_lossy(&buf);
            let status = text
                .split_whitespace()
                .nth(1)
                .and_then(|s| s.parse().ok())
                .unwrap_or(0);
            let body = text.split_once("\r\n\r\n").map(|(_, b)| b).unwrap_or("");
            if status == 0 {
                Answer::Io(format!("not an HTTP answer: `{}`", first_line(&text)))
            } else {
                Answer::Http(status, body.to_owned())
            }
        }
    }
}

fn first_line(t: &str) -> &str {
    t.lines().next().unwrap_or("").get(..80).unwrap_or(t)
}

/// `http://host:port/path` → (`host:port`, `/path`).
pub(crate) fn split_url(url: &str) -> anyhow::Result<(String, String)> {
    let rest = url
        .strip_prefix("http://")
        .with_context(|| format!("not an http url `{url}`"))?;
    let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    Ok((
        host.to_owned(),
        if path.is_empty() { "/" } else { path }.to_owned(),
    ))
}

/// A charging call's outcome, classified for retrying.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Answered with `<return>N</return>`.
    Done(i32),
    /// A `Client` fault: final, never retried.
    Refused(String),
    /// A `Server` fault, a 502/503/504, an I/O error: retried with the same key.
    Retry(String),
}

/// Classifies an answer (`label` for the failure kind, e.g. `Server fault 500`).
pub(crate) fn classify(a: &Answer) -> Outcome {
    match a {
        Answer::Io(e) => Outcome::Retry(format!("i/o: {e}")),
        Answer::Http(200, body) => match super::charging_calls::return_value(body) {
            Some(v) => Outcome::Done(v),
            None => Outcome::Retry("200 without `<return>`".to_owned()),
        },
        Answer::Http(status, body) => {
            let code = fault_code(body).unwrap_or("no fault");
            if code.ends_with("Client") {
                Outcome::Refused(format!("Client fault {status}"))
            } else {
                Outcome::Retry(format!("{code} {status}"))
            }
        }
    }
}

/// The `faultcode` text of a SOAP 1.1 fault (`soap:Server`), if any.
pub(crate) fn fault_code(body: &str) -> Option<&str> {
    let at = body.find("<faultcode>")? + "<faultcode>".len();
    let end = body[at..].find("</faultcode>")?;
    Some(body[at..at + end].trim())
}

/// A charging money operation with an idempotency key (`urn:soapstone:charging` literal).
pub(crate) fn keyed_envelope(op: &str, key: &str, id: i32, am: i32) -> String {
    format!(
        r#"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" xmlns:ch="urn:soapstone:charging"><s:Header><ch:IdempotencyKey s:mustUnderstand="1">{key}</ch:IdempotencyKey></s:Header><s:Body><ch:{op}><id>{id}</id><am>{am}</am></ch:{op}></s:Body></s:Envelope>"#
    )
}

/// One acknowledged operation: transaction number, kind, account, amount.
pub(crate) type Acked = (i32, &'static str, i32, i64);

/// What the keyed clients saw.
#[derive(Debug, Default)]
pub(crate) struct Seen {
    pub(crate) acked: Vec<Acked>,
    pub(crate) retried: u64,
    pub(crate) unanswered: u64,
    pub(crate) failures: Vec<Instant>,
    pub(crate) recoveries: Vec<Instant>,
}

/// `clients` keyed clients alternating `credit` and `directDebit` of 1..=9 over `accounts`
/// until `stop`; each operation is retried with its key (backoff 20 to 150 ms, for up to
/// 60 s) until answered.
pub(crate) async fn keyed_load(
    url: &str,
    clients: u32,
    accounts: i32,
    stop: Arc<AtomicBool>,
) -> Seen {
    let Ok((host, path)) = split_url(url) else {
        return Seen::default();
    };
    let run = std::process::id();
    let mut set = tokio::task::JoinSet::new();
    for c in 0..clients {
        let (host, path, stop) = (host.clone(), path.clone(), stop.clone());
        set.spawn(async move {
            let mut seen = Seen::default();
            let mut n: u64 = 0;
            while !stop.load(Ordering::Relaxed) {
                n += 1;
                let id = 1 + ((c as i64 * 7919 + n as i64 * 31) % i64::from(accounts)) as i32;
                let am = 1 + (n % 9) as i32;
                let op = if n.is_multiple_of(2) {
                    "credit"
                } else {
                    "directDebit"
                };
                let key = format!("lab-{run}-{c}-{n}");
                let body = keyed_envelope(op, &key, id, am);
                let started = Instant::now();
                let mut first = true;
                let mut backoff = Duration::from_millis(20);
                let result = loop {
                    match classify(&http(&host, "POST", &path, &body).await) {
                        Outcome::Retry(_) if started.elapsed() < Duration::from_secs(60) => {
                            if first {
                                seen.retried += 1;
                                seen.failures.push(Instant::now());
                                first = false;
                            }
                            tokio::time::sleep(backoff).await;
                            backoff = (backoff * 2).min(Duration::from_millis(150));
                        }
                        other => break other,
                    }
                };
                if !first {
                    seen.recoveries.push(Instant::now());
                }
                match result {
                    Outcome::Done(cn) => seen.acked.push((cn, op_kind(op), id, i64::from(am))),
                    _ => seen.unanswered += 1,
                }
            }
            seen
        });
    }
    let mut all = Seen::default();
    while let Some(part) = set.join_next().await {
        if let Ok(s) = part {
            all.acked.extend(s.acked);
            all.retried += s.retried;
            all.unanswered += s.unanswered;
            all.failures.extend(s.failures);
            all.recoveries.extend(s.recoveries);
        } else {
            all.unanswered += 1;
        }
    }
    all
}

fn op_kind(op: &str) -> &'static str {
    if op == "credit" {
        "credit"
    } else {
        "directDebit"
    }
}

/// HAProxy's view of backend server `name` (`UP`, `DOWN`, `DOWN 1/2`...) from its CSV stats.
pub(crate) fn server_status(csv: &str, name: &str) -> Option<String> {
    csv.lines().find_map(|l| {
        let f: Vec<&str> = l.split(',').collect();
        (f.len() > 17 && f[0] == "replicas" && f[1] == name).then(|| f[17].to_owned())
    })
}

/// Fetches HAProxy's CSV statistics from `stats_url` (`http://127.0.0.1:P/;csv`).
pub(crate) async fn stats(stats_url: &str) -> Option<String> {
    let (host, path) = split_url(stats_url).ok()?;
    match http(&host, "GET", &path, "").await {
        Answer::Http(200, body) => Some(body),
        _ => None,
    }
}

/// Ledger comparison: (found once and equal, missing or different, entries nobody acked).
pub(crate) fn compare_ledger(acked: &[Acked], ledger: &[Acked]) -> (u64, u64, u64) {
    let rows: HashMap<i32, &Acked> = ledger.iter().map(|r| (r.0, r)).collect();
    let found = acked
        .iter()
        .filter(|a| rows.get(&a.0).is_some_and(|r| *r == *a))
        .count() as u64;
    let acked_cns: std::collections::HashSet<i32> = acked.iter().map(|a| a.0).collect();
    let extra = ledger.iter().filter(|r| !acked_cns.contains(&r.0)).count() as u64;
    (found, acked.len() as u64 - found, extra)
}

/// Parses `psql -At -F,` output of `cn,kind,account,amount` rows.
pub(crate) fn parse_ledger(text: &str) -> anyhow::Result<Vec<Acked>> {
    let mut out = Vec::new();
    for (i, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let f: Vec<&str> = line.trim().split(',').collect();
        let bad = || {
            format!(
                "ledger line {}: `{line}` is not `cn,kind,account,amount`",
                i + 1
            )
        };
        if f.len() != 4 {
            bail!("{}", bad());
        }
        let kind = match f[1] {
            "credit" => "credit",
            "directDebit" => "directDebit",
            _ => "other",
        };
        out.push((
            f[0].parse().with_context(bad)?,
            kind,
            f[2].parse().with_context(bad)?,
            f[3].parse().with_context(bad)?,
        ));
    }
    Ok(out)
}

/// Reads the ledger with `psql` from the cluster's PostgreSQL.
pub(crate) async fn read_ledger(pg_bin: &str, pg_port: &str) -> anyhow::Result<Vec<Acked>> {
    let out = tokio::process::Command::new(format!("{pg_bin}/psql"))
        .args([
            "-h",
            "127.0.0.1",
            "-p",
            pg_port,
            "-U",
            "postgres",
            "-d",
            "charging",
        ])
        .args(["-At", "-F,", "-c"])
        .arg("SELECT cn, kind, account, amount FROM charging_transactions ORDER BY cn")
        .output()
        .await
        .context("cannot run psql")?;
    if !out.status.success() {
        bail!(
            "psql failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    parse_ledger(&String::from_utf8_lossy(&out.stdout))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_classified_for_retrying() {
        let fault = |code: &str| {
            format!("<soap:Envelope><soap:Body><soap:Fault><faultcode>{code}</faultcode><faultstring>x</faultstring></soap:Fault></soap:Body></soap:Envelope>")
        };
        assert_eq!(
            classify(&Answer::Http(200, "<return>17</return>".into())),
            Outcome::Done(17)
        );
        assert_eq!(
            classify(&Answer::Http(500, fault("soap:Server"))),
            Outcome::Retry("soap:Server 500".into())
        );
        assert_eq!(
            classify(&Answer::Http(503, fault("soap:Server"))),
            Outcome::Retry("soap:Server 503".into())
        );
        assert_eq!(
            classify(&Answer::Http(500, fault("env:Client"))),
            Outcome::Refused("Client fault 500".into())
        );
        assert_eq!(
            classify(&Answer::Http(502, "<html>bad gateway</html>".into())),
            Outcome::Retry("no fault 502".into())
        );
        assert!(
            matches!(classify(&Answer::Io("reset".into())), Outcome::Retry(l) if l == "i/o: reset")
        );
    }

    #[test]
    fn the_keyed_envelope_carries_the_key_as_a_header() {
        let e = keyed_envelope("credit", "lab-1-2-3", 42, 5);
        assert!(e.contains(
            r#"<ch:IdempotencyKey s:mustUnderstand="1">lab-1-2-3</ch:IdempotencyKey></s:Header>"#
        ));
        assert!(e.contains("<ch:credit><id>42</id><am>5</am></ch:credit>"));
    }

    #[test]
    fn the_ledger_is_compared_exactly() {
        let acked = [
            (1, "credit", 3, 5),
            (2, "directDebit", 4, 6),
            (5, "credit", 1, 1),
        ];
        let ledger = parse_ledger("1,credit,3,5\n2,directDebit,4,7\n3,credit,9,9\n\n").unwrap();
        // cn 2 differs, cn 5 is missing, cn 3 was never acknowledged (applied twice).
        assert_eq!(compare_ledger(&acked, &ledger), (1, 2, 1));
        assert_eq!(compare_ledger(&acked[..1], &ledger[..1]), (1, 0, 0));
        let e = parse_ledger("1,credit,x,5").unwrap_err().to_string();
        assert!(e.contains("ledger line 1: `1,credit,x,5`"), "{e}");
        assert!(parse_ledger("1,credit").is_err());
    }

    #[test]
    fn haproxy_csv_gives_the_server_status() {
        let csv = "# pxname,svname,qcur,qmax,scur,smax,slim,stot,bin,bout,dreq,dresp,ereq,econ,eresp,wretr,wredis,status,weight\n\
                   replicas,r1,0,0,0,1,,10,1,1,,0,,0,0,0,0,DOWN,1\n\
                   replicas,r2,0,0,0,1,,10,1,1,,0,,0,0,0,0,UP,1\n";
        assert_eq!(server_status(csv, "r1").as_deref(), Some("DOWN"));
        assert_eq!(server_status(csv, "r2").as_deref(), Some("UP"));
        assert_eq!(server_status(csv, "r3"), None);
    }

    #[tokio::test]
    async fn http_reads_a_real_answer_and_bounds_it() {
        let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = l.local_addr().unwrap().to_string();
        tokio::spawn(async move {
            for body in [
                "<faultcode>soap:Server</faultcode>".to_owned(),
                "x".repeat(1 << 20),
            ] {
                let (mut s, _) = l.accept().await.unwrap();
                let mut buf = [0u8; 4096];
                let _ = s.read(&mut buf).await;
                let head = format!(
                    "HTTP/1.1 503 Service Unavailable\r\nContent-Length: {}\r\n\r\n",
                    body.len()
                );
                let _ = s.write_all(head.as_bytes()).await;
                let _ = s.write_all(body.as_bytes()).await;
            }
        });
        let a = http(&addr, "POST", "/charging", "<x/>").await;
        assert_eq!(classify(&a), Outcome::Retry("soap:Server 503".into()));
        match http(&addr, "POST", "/charging", "<x/>").await {
            Answer::Http(503, body) => assert!(body.len() as u64 <= MAX_ANSWER, "{}", body.len()),
            other => panic!("{other:?}"),
        }
        let (host, path) = split_url("http://127.0.0.1:9/charging").unwrap();
        assert_eq!((host.as_str(), path.as_str()), ("127.0.0.1:9", "/charging"));
        assert!(split_url("https://x/")
            .unwrap_err()
            .to_string()
            .contains("`https://x/`"));
    }
}
