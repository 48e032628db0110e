//! Proleptic Gregorian dates as day numbers, for the few places that turn `xsd:date` and
//! `xsd:dateTime` values into instants or back (WS-Security timestamps, the charging service's
//! expiry dates, the lab's report).
//!
//! Exists so that no crate needs a calendar library for two conversions, and so that the
//! arithmetic lives once. Howard Hinnant's algorithms ("chrono-Compatible Low-Level Date
//! Algorithms"): exact for every year an `i64` day count can hold. Must never panic: the
//! divisions are Euclidean, so negative day numbers (before 1970) are placed right.

/// Days since 1970-01-01 of the date `y`-`m`-`d` (`m` in 1..=12, `d` in 1..=31; a day past the
/// month's end rolls into the next month, as the algorithm does).
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date `(year, month, day)` of a day number counted from 1970-01-01.
pub fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_dates_have_known_day_numbers() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
        assert_eq!(days_from_civil(1969, 12, 31), -1);
        assert_eq!(civil_from_days(20_416), (2025, 11, 24));
        assert_eq!(civil_from_days(-719_468), (0, 3, 1));
    }

    #[test]
    fn every_day_of_four_centuries_round_trips() {
        for days in days_from_civil(1900, 1, 1)..days_from_civil(2300, 1, 1) {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days, "{y}-{m}-{d}");
        }
    }
}
