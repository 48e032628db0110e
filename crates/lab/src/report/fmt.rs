//! Number formatting shared by the Markdown, HTML and SVG renderers, so one value reads the same
//! everywhere. Pure functions; they must never round a value to something that reads as a
//! different magnitude (a latency under 1 µs is printed with decimals, not as `0`).

/// A latency in microseconds with a sensible precision: `7.42`, `38.1`, `412`, `12,345`.
pub(crate) fn us(v: f64) -> String {
    if !v.is_finite() {
        return "–".to_owned();
    }
    if v < 10.0 {
        format!("{v:.2}")
    } else if v < 100.0 {
        format!("{v:.1}")
    } else {
        thousands(v.round())
    }
}

/// A value in the seeds' milliseconds, printed as published (one or two decimals kept).
pub(crate) fn ms(v: f64) -> String {
    if v.fract() == 0.0 && v >= 100.0 {
        thousands(v)
    } else if (v * 10.0).fract().abs() < 1e-9 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

/// A rate or count: `12,345` (or `3.2` below 10).
pub(crate) fn count(v: f64) -> String {
    if !v.is_finite() {
        return "–".to_owned();
    }
    if v.abs() < 10.0 && v.fract() != 0.0 {
        format!("{v:.1}")
    } else {
        thousands(v.round())
    }
}

/// A ratio: `×1.23`, `×45`, `×1,200`.
pub(crate) fn ratio(v: f64) -> String {
    if !v.is_finite() {
        return "–".to_owned();
    }
    if v < 10.0 {
        format!("×{v:.2}")
    } else if v < 100.0 {
        format!("×{v:.1}")
    } else {
        format!("×{}", thousands(v.round()))
    }
}

/// A Unix time as a UTC date and minute: `2026-11-23 23:12 UTC`.
pub(crate) fn utc(unix: u64) -> String {
    let days = (unix / 86_400) as i64;
    let (h, m) = ((unix % 86_400) / 3600, (unix % 3600) / 60);
    let (y, mo, d) = soapstone_codec::calendar::civil_from_days(days);
    format!("{y:04}-{mo:02}-{d:02} {h:02}:{m:02} UTC")
}

/// Megabytes with two decimals.
pub(crate) fn mb(bytes: u64) -> String {
    format!("{:.2}", bytes as f64 / 1_000_000.0)
}

/// An integer-valued float with thousands separators: `1234567` → `1,234,567`.
pub(crate) fn thousands(v: f64) -> String {
    let neg = v < 0.0;
    let digits = format!("{:.0}", v.abs());
    let mut out = String::with_capacity(digits.len() + digits.len() / 3 + 1);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if neg {
        format!("-{out}")
    } else {
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(us(7.4249), "7.42");
        assert_eq!(us(38.14), "38.1");
        assert_eq!(us(12345.4), "12,345");
        assert_eq!(us(0.5), "0.50");
        assert_eq!(ms(1.63), "1.63");
        assert_eq!(ms(1810.6), "1810.6");
        assert_eq!(ms(15624.0), "15,624");
        assert_eq!(count(1_234_567.0), "1,234,567");
        assert_eq!(count(3.25), "3.2");
        assert_eq!(ratio(1.234), "×1.23");
        assert_eq!(ratio(523.4), "×523");
        assert_eq!(thousands(-1000.0), "-1,000");
        assert_eq!(mb(1_500_000), "1.50");
        assert_eq!(utc(0), "1970-01-01 00:00 UTC");
        assert_eq!(utc(951_782_400), "2000-02-29 00:00 UTC");
        assert_eq!(utc(1_795_475_520), "2026-11-23 23:12 UTC");
    }
}
