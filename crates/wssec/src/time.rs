//! `xsd:dateTime` in UTC, the only clock WS-Security timestamps need: parsing what clients send
//! (`2026-11-23T23:12:01Z`, fractions and `+hh:mm` offsets allowed) and writing what ours send.
//!
//! Exists so the crate needs no calendar library for two conversions. Must never accept a value
//! it cannot place exactly in time (no timezone means UTC, as WSS 1.1 section 10 requires UTC).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use soapstone_codec::calendar::{civil_from_days, days_from_civil};

fn num(s: &str) -> Option<i64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// Parses an `xsd:dateTime` into milliseconds since the Unix epoch; `None` if malformed.
pub(crate) fn parse(s: &str) -> Option<i64> {
    let s = s.trim();
    let (date, rest) = s.split_once('T')?;
    let mut dp = date.splitn(3, '-');
    let (y, m, d) = (num(dp.next()?)?, num(dp.next()?)?, num(dp.next()?)?);
    if date.len() != 10 || !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    // Split the zone off: `Z`, `+hh:mm`, `-hh:mm`, or none (UTC).
    let (clock, offset_min) = if let Some(c) = rest.strip_suffix('Z') {
        (c, 0)
    } else if rest.len() > 6 && matches!(rest.as_bytes()[rest.len() - 6], b'+' | b'-') {
        let (c, z) = rest.split_at(rest.len() - 6);
        let (h, mi) = z[1..].split_once(':')?;
        let off = num(h)? * 60 + num(mi)?;
        (c, if z.starts_with('-') { -off } else { off })
    } else {
        (rest, 0)
    };
    let (hms, frac) = match clock.split_once('.') {
        Some((hms, f)) => (hms, f),
        None => (clock, ""),
    };
    if hms.len() != 8 {
        return None;
    }
    let mut tp = hms.splitn(3, ':');
    let (h, mi, sec) = (num(tp.next()?)?, num(tp.next()?)?, num(tp.next()?)?);
    if h > 23 || mi > 59 || sec > 60 {
        return None;
    }
    let millis = if frac.is_empty() {
        0
    } else {
        let digits: String = frac.chars().chain("000".chars()).take(3).collect();
        num(frac)?;
        num(&digits)?
    };
    let days = days_from_civil(y, m, d);
    let secs = days * 86_400 + h * 3600 + mi * 60 + sec - offset_min * 60;
    Some(secs * 1000 + millis)
}

/// Writes milliseconds since the epoch as `YYYY-MM-DDThh:mm:ss.sssZ`.
pub(crate) fn format(millis: i64) -> String {
    let secs = millis.div_euclid(1000);
    let ms = millis.rem_euclid(1000);
    let (days, tod) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{ms:03}Z",
        tod / 3600,
        tod % 3600 / 60,
        tod % 60
    )
}

/// Milliseconds since the epoch of `t`.
pub(crate) fn millis(t: SystemTime) -> i64 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_millis()).unwrap_or(i64::MAX),
        Err(e) => -i64::try_from(e.duration().as_millis()).unwrap_or(i64::MAX),
    }
}

/// A duration in milliseconds, saturating.
pub(crate) fn ms(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_zones() {
        let t = parse("2026-11-23T23:12:01Z").unwrap();
        assert_eq!(format(t), "2026-11-23T23:12:01.000Z");
        assert_eq!(parse("2026-11-23T23:12:01.5Z"), Some(t + 500));
        assert_eq!(parse("2026-11-23T23:12:01.123456Z"), Some(t + 123));
        assert_eq!(parse("2026-11-24T00:12:01+01:00"), Some(t));
        assert_eq!(parse("2026-11-23T22:12:01-01:00"), Some(t));
        assert_eq!(parse("2026-11-23T23:12:01"), Some(t));
        assert_eq!(parse("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(format(951_782_400_000), "2000-02-29T00:00:00.000Z");
        for bad in [
            "",
            "2026-11-23",
            "2026-13-01T00:00:00Z",
            "2026-11-23T24:00:00Z",
            "x-11-23T00:00:00Z",
            "2026-11-23T00:00:00.zZ",
            "2026-1-23T00:00:00Z",
        ] {
            assert_eq!(parse(bad), None, "{bad}");
        }
    }
}
