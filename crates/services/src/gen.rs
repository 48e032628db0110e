//! Deterministic generated data for the services: word lists and a seeded generator per key.
//!
//! The seeds' services served data we do not have (a contact database, news feeds, shop
//! catalogues). We generate stand-ins that look alike in shape and size, from fixed word lists
//! and ChaCha8 (value-stable across `rand_chacha` versions), so every run, every machine and
//! every client sees byte-identical answers. Must never: read the clock, the environment or OS
//! randomness.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use soapstone_codec::calendar::{civil_from_days, days_from_civil};

/// A generator seeded by a list of keys (e.g. source index, day, item index).
pub(crate) fn rng(keys: &[u64]) -> ChaCha8Rng {
    // FNV-1a over the keys' bytes: a stable, well-spread seed.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for k in keys {
        for b in k.to_le_bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    ChaCha8Rng::seed_from_u64(h)
}

/// A stable 64-bit key of a string (FNV-1a).
pub(crate) fn key(s: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// One element of `list`.
pub(crate) fn pick<'a>(rng: &mut ChaCha8Rng, list: &[&'a str]) -> &'a str {
    list[rng.gen_range(0..list.len())]
}

/// `n` words from `list`, space-separated, the first capitalized.
pub(crate) fn sentence(rng: &mut ChaCha8Rng, list: &[&str], n: usize) -> String {
    let mut s = String::with_capacity(n * 8);
    for i in 0..n {
        let w = pick(rng, list);
        if i == 0 {
            let mut c = w.chars();
            if let Some(f) = c.next() {
                s.extend(f.to_uppercase());
                s.push_str(c.as_str());
            }
        } else {
            s.push(' ');
            s.push_str(w);
        }
    }
    s
}

pub(crate) const FIRST_NAMES: &[&str] = &[
    "Ada", "Alan", "Alice", "Amir", "Ana", "Anders", "Anya", "Ben", "Bianca", "Carla", "Chen",
    "Chloe", "Dana", "David", "Diego", "Elena", "Emil", "Erik", "Fatima", "Felix", "Grace", "Hana",
    "Hugo", "Ines", "Ivan", "Jamal", "Jana", "Jonas", "Julia", "Karin", "Kenji", "Lars", "Laura",
    "Leo", "Lina", "Luca", "Maja", "Marco", "Maria", "Mei", "Mia", "Nadia", "Nils", "Noah", "Olga",
    "Omar", "Paula", "Pedro", "Priya", "Rafael", "Rosa", "Sam", "Sara", "Sofia", "Tariq", "Tom",
    "Ulla", "Vera", "Yuki", "Zoe",
];

pub(crate) const LAST_NAMES: &[&str] = &[
    "Abbott",
    "Alvarez",
    "Andersson",
    "Baker",
    "Berg",
    "Blanco",
    "Brown",
    "Carter",
    "Chen",
    "Costa",
    "Davis",
    "Dubois",
    "Eriksson",
    "Evans",
    "Fischer",
    "Garcia",
    "Gomez",
    "Green",
    "Hall",
    "Hansen",
    "Hoffmann",
    "Ito",
    "Jensen",
    "Johnson",
    "Kato",
    "Keller",
    "Khan",
    "Kim",
    "Klein",
    "Kowalski",
    "Larsen",
    "Lee",
    "Lopez",
    "Martin",
    "Meyer",
    "Miller",
    "Moreau",
    "Muller",
    "Nakamura",
    "Nguyen",
    "Nilsson",
    "Novak",
    "Olsen",
    "Paris",
    "Patel",
    "Perez",
    "Petrov",
    "Quinn",
    "Reyes",
    "Rossi",
    "Russo",
    "Sato",
    "Schmidt",
    "Silva",
    "Smith",
    "Suzuki",
    "Svensson",
    "Tanaka",
    "Taylor",
    "Torres",
    "Wagner",
    "Walker",
    "Weber",
    "White",
    "Wilson",
    "Wong",
    "Young",
    "Zhang",
];

pub(crate) const WORDS: &[&str] = &[
    "market",
    "council",
    "river",
    "energy",
    "vote",
    "storm",
    "league",
    "study",
    "report",
    "harbor",
    "budget",
    "school",
    "festival",
    "bridge",
    "court",
    "trade",
    "summit",
    "rail",
    "science",
    "health",
    "museum",
    "record",
    "season",
    "union",
    "airport",
    "climate",
    "coast",
    "farm",
    "factory",
    "software",
    "network",
    "orchestra",
    "election",
    "treaty",
    "bank",
    "launch",
    "satellite",
    "vaccine",
    "housing",
    "tunnel",
    "port",
    "grid",
    "wind",
    "solar",
    "reform",
    "strike",
    "merger",
    "profit",
    "forecast",
    "drought",
    "flood",
    "talks",
    "debate",
    "award",
    "opens",
    "closes",
    "rises",
    "falls",
    "wins",
    "loses",
    "plans",
    "delays",
    "expands",
    "cuts",
    "backs",
    "rejects",
    "approves",
    "warns",
    "signs",
    "tests",
    "unveils",
    "new",
    "record",
    "major",
    "local",
    "national",
    "regional",
    "early",
    "late",
    "final",
    "first",
    "second",
    "quarterly",
    "annual",
    "city",
    "state",
    "northern",
    "southern",
];

pub(crate) const NEWS_SOURCES: &[&str] = &[
    "coruna-herald",
    "atlantic-wire",
    "galicia-daily",
    "iberian-post",
    "morning-ledger",
    "harbor-times",
    "tech-dispatch",
    "market-watcher",
    "science-journal",
    "sports-desk",
    "world-bulletin",
    "city-gazette",
    "evening-courier",
    "north-star",
    "river-press",
    "capital-review",
];

pub(crate) const PROVIDERS: &[&str] = &[
    "acme-supply",
    "bluebird-trading",
    "cedar-wholesale",
    "delta-parts",
    "ember-retail",
    "fjord-goods",
    "granite-depot",
    "harbor-outlet",
    "iris-direct",
    "juniper-market",
    "kestrel-stores",
    "lumen-shop",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeded_by_keys() {
        let a: Vec<u32> = (0..4).map(|_| rng(&[1, 2]).gen()).collect();
        assert!(a.windows(2).all(|w| w[0] == w[1]), "same keys, same values");
        assert_ne!(rng(&[1, 2]).gen::<u64>(), rng(&[2, 1]).gen::<u64>());
        assert_eq!(key("abc"), key("abc"));
        assert_ne!(key("abc"), key("abd"));
        let s = sentence(&mut rng(&[7]), WORDS, 5);
        assert_eq!(s.split(' ').count(), 5);
        assert!(s.chars().next().unwrap().is_uppercase());
    }
}

/// Days since 1970-01-01 of a `YYYY-MM-DD` date (proleptic Gregorian), or `None`.
pub(crate) fn parse_date(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        b[r].iter().try_fold(0i64, |acc, &c| {
            c.is_ascii_digit().then(|| acc * 10 + i64::from(c - b'0'))
        })
    };
    let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    if !(1..=12).contains(&m) || d < 1 || d > days_in_month(y, m) {
        return None;
    }
    Some(days_from_civil(y, m, d))
}

/// The `YYYY-MM-DD` of a day number (inverse of [`parse_date`]).
pub(crate) fn format_date(days: i64) -> String {
    let (y, m, d) = civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02}")
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

#[cfg(test)]
mod date_tests {
    use super::*;

    #[test]
    fn dates_round_trip() {
        assert_eq!(parse_date("1970-01-01"), Some(0));
        assert_eq!(parse_date("2008-03-01"), Some(13_939));
        assert_eq!(
            parse_date("2000-02-29").map(format_date).as_deref(),
            Some("2000-02-29")
        );
        for d in (-1000..30_000).step_by(7) {
            assert_eq!(parse_date(&format_date(d)), Some(d));
        }
        for bad in [
            "2008-13-01",
            "2007-02-29",
            "2008-1-01",
            "2008/01/01",
            "",
            "20080101xx",
            "2008-00-10",
            "abcd-01-01",
        ] {
            assert_eq!(parse_date(bad), None, "{bad}");
        }
    }
}
