//! The request bodies of the thesis's charging calls that cannot be repeated verbatim
//! (`directDebit`, `reserve`, `debitReservation`, `releaseRes`, `confirmAction`), written as a
//! directory of envelopes the bench rotates over, and the reservations the last two consume,
//! created beforehand with plain HTTP POSTs of appendix C.1.
//!
//! The HTTP client is hand-written (one `Connection: close` POST per call over a tokio socket):
//! it runs only before a point, to create reservations, and the lab has no HTTP client
//! dependency to spare for that. Must never run while a point is measured, and never reuse a
//! reservation id across bodies (a second use faults).

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{bail, Context};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Accounts `directDebit` rotates over (the service seeds 10,000 with at least 10,000 each).
pub(crate) const DEBIT_ACCOUNTS: std::ops::RangeInclusive<i32> = 1..=2000;
/// Accounts `reserve` rotates over.
pub(crate) const RESERVE_ACCOUNTS: std::ops::RangeInclusive<i32> = 2001..=4000;
/// Accounts the reservations consumed by `debitReservation` and `releaseRes` are made on.
pub(crate) const POOL_ACCOUNTS: std::ops::RangeInclusive<i32> = 4001..=10_000;
/// The amount of every debit and reservation: small, so a window drains no account (even
/// 10,000 calls spread over 2,000 accounts take 15 from each).
pub(crate) const AMOUNT: i32 = 3;
/// The most reservations made for one point (each account of [`POOL_ACCOUNTS`] holds at least
/// 3,333 reservations of [`AMOUNT`]; a pool of 40,000 takes 7 from each).
pub(crate) const MAX_POOL: usize = 40_000;

/// An appendix C envelope calling `op` with `fields` (all `xsd:int`).
pub(crate) fn envelope(op: &str, fields: &[(&str, i32)]) -> String {
    let mut s = String::from(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<SOAP-ENV:Envelope SOAP-ENV:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"
  xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/"
  xmlns:xsd="http://www.w3.org/2001/XMLSchema"
  xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
  xmlns:SOAP-ENC="http://schemas.xmlsoap.org/soap/encoding/">
  <SOAP-ENV:Body>
"#,
    );
    s.push_str(&format!("    <{op}>\n"));
    for (name, v) in fields {
        s.push_str(&format!(
            "      <{name} xsi:type=\"xsd:int\">{v}</{name}>\n"
        ));
    }
    s.push_str(&format!(
        "    </{op}>\n  </SOAP-ENV:Body>\n</SOAP-ENV:Envelope>\n"
    ));
    s
}

/// Writes `bodies` as `dir/00000.xml`, ... (name order is rotation order), replacing what `dir`
/// held. Returns the mean body size in bytes.
pub(crate) fn write_dir(dir: &Path, bodies: &[String]) -> anyhow::Result<u64> {
    if bodies.is_empty() {
        bail!("no bodies for `{}`", dir.display());
    }
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create `{}`", dir.display()))?;
    let mut total = 0u64;
    for (i, b) in bodies.iter().enumerate() {
        let p = dir.join(format!("{i:05}.xml"));
        std::fs::write(&p, b).with_context(|| format!("cannot write `{}`", p.display()))?;
        total += b.len() as u64;
    }
    Ok(total / bodies.len() as u64)
}

/// Bodies of `op(id, am)` over every account of `accounts`.
pub(crate) fn per_account(op: &str, accounts: std::ops::RangeInclusive<i32>) -> Vec<String> {
    accounts
        .map(|id| envelope(op, &[("id", id), ("am", AMOUNT)]))
        .collect()
}

/// One reservation: account and id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Reservation {
    pub(crate) account: i32,
    pub(crate) res: i32,
}

/// Bodies of `debitReservation` using each reservation once.
pub(crate) fn debit_bodies(pool: &[Reservation]) -> Vec<String> {
    pool.iter()
        .map(|r| {
            envelope(
                "debitReservation",
                &[("id", r.account), ("am", AMOUNT), ("res", r.res)],
            )
        })
        .collect()
}

/// Bodies of `releaseRes` using each reservation once.
pub(crate) fn release_bodies(pool: &[Reservation]) -> Vec<String> {
    pool.iter()
        .map(|r| envelope("releaseRes", &[("res", r.res)]))
        .collect()
}

/// How many reservations a point needs when its calls go at about `rate` per second (the
/// fastest durable write measured on this server and placement): twice the calls of warm-up
/// plus window at that rate, and 50 spare, at most [`MAX_POOL`]. Without a measured rate, a
/// quarter of [`MAX_POOL`]. A point that still runs out is caught by [`pool_overrun`] and
/// measured again with a pool sized from its own rate.
pub(crate) fn pool_size(rate: Option<f64>, window: Duration, warmup: Duration) -> usize {
    let Some(rate) = rate.filter(|r| r.is_finite() && *r >= 0.0) else {
        return MAX_POOL / 4;
    };
    let calls = rate * (window + warmup).as_secs_f64();
    ((calls * 2.0).ceil() as usize + 50).clamp(50, MAX_POOL)
}

/// Whether a pooled point may have run out of reservations: it sent (`sent`, in its window of
/// `window` after a warm-up of `warmup` at the same rate) as many calls as the `pool` held. Its
/// faults are then the lab's, not the service's.
pub(crate) fn pool_overrun(sent: u64, pool: usize, window: Duration, warmup: Duration) -> bool {
    let scale = (window + warmup).as_secs_f64() / window.as_secs_f64().max(1e-3);
    sent as f64 * scale >= pool as f64
}

/// Makes `n` reservations of [`AMOUNT`] over [`POOL_ACCOUNTS`], starting at account offset
/// `start` (so successive pools spread over the accounts), from 4 connections at once.
pub(crate) async fn reserve_pool(
    url: &str,
    n: usize,
    start: usize,
) -> anyhow::Result<Vec<Reservation>> {
    let span = (POOL_ACCOUNTS.end() - POOL_ACCOUNTS.start() + 1) as usize;
    let accounts: Vec<i32> = (0..n)
        .map(|i| POOL_ACCOUNTS.start() + ((start + i) % span) as i32)
        .collect();
    let mut set = tokio::task::JoinSet::new();
    for chunk in accounts.chunks(n.div_ceil(4).max(1)) {
        let (url, chunk) = (url.to_owned(), chunk.to_vec());
        set.spawn(async move {
            let mut out = Vec::with_capacity(chunk.len());
            for account in chunk {
                let body = envelope("reserve", &[("id", account), ("am", AMOUNT)]);
                let res = call(&url, &body)
                    .await
                    .with_context(|| format!("reserve on account `{account}` failed"))?;
                out.push(Reservation { account, res });
            }
            anyhow::Ok(out)
        });
    }
    let mut pool = Vec::with_capacity(n);
    while let Some(part) = set.join_next().await {
        pool.extend(part.context("a reservation task panicked")??);
    }
    Ok(pool)
}

/// POSTs `body` to `url` (`http://host:port/path`) and returns the call's `<return>` integer.
/// The request carries `SOAPAction: ""`, which SOAP 1.1 requires of every HTTP request (Axis
/// 1.4's servlet faults `Client.NoSOAPAction` without it).
pub(crate) async fn call(url: &str, body: &str) -> anyhow::Result<i32> {
    let rest = url
        .strip_prefix("http://")
        .with_context(|| format!("not an http url `{url}`"))?;
    let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let path = if path.is_empty() { "/" } else { path };
    let request = format!(
        "POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: text/xml; charset=utf-8\r\n\
         SOAPAction: \"\"\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let answer = tokio::time::timeout(Duration::from_secs(10), async {
        let mut s = TcpStream::connect(host)
            .await
            .with_context(|| format!("cannot connect to `{host}`"))?;
        s.write_all(request.as_bytes()).await?;
        let mut buf = Vec::new();
        s.read_to_end(&mut buf).await?;
        anyhow::Ok(buf)
    })
    .await
    .with_context(|| format!("no answer from `{url}` in 10 s"))??;
    let text = String::from_utf8_lossy(&answer);
    let status = text.split_whitespace().nth(1).unwrap_or("");
    if status != "200" {
        bail!(
            "http status `{status}`: {}",
            text.chars().take(400).collect::<String>()
        );
    }
    return_value(&text).with_context(|| {
        format!(
            "no integer `<return>` in the answer: {}",
            text.chars().take(400).collect::<String>()
        )
    })
}

/// The integer inside the first `<return ...>N</return>` of `text`, or of the element it
/// refers to (`<return href="#id0"/>` ... `<multiRef id="id0" ...>N</multiRef>`: Axis 1.4's
/// multi-reference answer).
pub(crate) fn return_value(text: &str) -> Option<i32> {
    let at = text.find("<return")?;
    let after = &text[at + "<return".len()..];
    let open = after.find('>')?;
    let attrs = &after[..open];
    if let Some(h) = attrs.find("href=\"#") {
        let id = &attrs[h + "href=\"#".len()..];
        let id = &id[..id.find('"')?];
        let target = text.find(&format!(" id=\"{id}\""))?;
        let rest = &text[target..];
        let inner = &rest[rest.find('>')? + 1..];
        return inner[..inner.find('<')?].trim().parse().ok();
    }
    let inner = &after[open + 1..];
    let end = inner.find("</return>")?;
    inner[..end].trim().parse().ok()
}

/// `dir` under the lab's bodies directory for one operation and point.
pub(crate) fn point_dir(bodies: &Path, op: &str, point: &str) -> PathBuf {
    bodies.join(format!("charging-{op}-{point}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envelope_matches_appendix_c() {
        assert_eq!(
            envelope("credit", &[("id", 8), ("am", 147)]),
            super::super::thesis::CREDIT
        );
    }

    #[test]
    fn return_value_reads_the_number() {
        let t =
            r#"<m:reserveResponse><return xsi:type="xsd:int">12407</return></m:reserveResponse>"#;
        assert_eq!(return_value(t), Some(12407));
        assert_eq!(return_value("<return>x</return>"), None);
        // Axis 1.4 (lab/peers/axis1) answers with a multi-reference.
        let axis = r##"<creditControlResponse soapenv:encodingStyle="x"><return href="#id0"/></creditControlResponse><multiRef id="id0" soapenc:root="0" xsi:type="xsd:int">57514</multiRef>"##;
        assert_eq!(return_value(axis), Some(57514));
        assert_eq!(
            return_value(&axis.replace("id=\"id0\"", "id=\"id1\"")),
            None
        );
        assert_eq!(return_value("<fault/>"), None);
    }

    #[test]
    fn pool_size_covers_warmup_and_window_at_the_rate() {
        let w = Duration::from_millis(500);
        let u = Duration::from_millis(200);
        // 1,000 calls/s for 0.7 s: 700 calls, twice that, 50 spare.
        assert_eq!(pool_size(Some(1000.0), w, u), 1450);
        assert_eq!(pool_size(Some(0.0), w, u), 50);
        assert_eq!(pool_size(Some(1e9), w, u), MAX_POOL);
        assert_eq!(pool_size(None, w, u), MAX_POOL / 4);
        assert_eq!(pool_size(Some(f64::NAN), w, u), MAX_POOL / 4);
    }

    #[test]
    fn a_pool_sized_from_the_fastest_write_covers_the_run_that_ran_out() {
        // A `--quick` run: the unloaded cross-CPU `reserve` point sent 166 calls in 0.5 s (a
        // slow fsync), `directDebit` 1,181; `debitReservation` went at 2,666 calls/s and ran
        // out of the ~400 reservations sized from `reserve` (1,127 faults).
        let w = Duration::from_millis(500);
        let u = Duration::from_millis(200);
        let from_read = pool_size(Some(1181.0 / 0.5), w, u);
        assert!(from_read >= 233 + 1127, "{from_read}");
        assert!(!pool_overrun(233 + 1127, from_read, w, u));
        assert!(pool_overrun(233 + 1127, 400, w, u));
        assert!(!pool_overrun(100, 400, w, u));
    }

    #[tokio::test]
    async fn call_sends_soapaction_over_a_real_socket() {
        // A server that answers like Axis 1.4's servlet: a fault without the SOAPAction header.
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let server = tokio::spawn(async move {
            let (mut s, _) = listener.accept().await.unwrap();
            let mut buf = Vec::new();
            let mut chunk = [0u8; 4096];
            while !String::from_utf8_lossy(&buf).contains("</SOAP-ENV:Envelope>") {
                let n = s.read(&mut chunk).await.unwrap();
                assert!(n > 0, "the request ended early");
                buf.extend_from_slice(&chunk[..n]);
            }
            let request = String::from_utf8_lossy(&buf).to_ascii_lowercase();
            let answer = if request.contains("\r\nsoapaction: \"\"\r\n") {
                "HTTP/1.1 200 OK\r\nContent-Type: text/xml\r\nConnection: close\r\n\r\n\
                 <creditControlResponse><return>57514</return></creditControlResponse>"
            } else {
                "HTTP/1.1 500 Internal Server Error\r\nConnection: close\r\n\r\n\
                 <faultstring>no SOAPAction header!</faultstring>"
            };
            s.write_all(answer.as_bytes()).await.unwrap();
        });
        let body = envelope("creditControl", &[("id", 8)]);
        let got = call(&format!("http://{addr}/axis/services/charging"), &body).await;
        assert_eq!(got.unwrap(), 57514);
        server.await.unwrap();
    }

    #[test]
    fn bodies_use_each_reservation_once() {
        let pool = [
            Reservation {
                account: 4001,
                res: 7,
            },
            Reservation {
                account: 4002,
                res: 9,
            },
        ];
        let d = debit_bodies(&pool);
        assert!(d[0].contains(">7</res>") && d[1].contains(">9</res>"));
        assert!(d[1].contains(">4002</id>"));
        let r = release_bodies(&pool);
        assert!(r[1].contains("<releaseRes>") && r[1].contains(">9</res>"));
    }
}
