//! The news service of Garcia et al. (seed 004): "small data input - big data output ... fed
//! some input parameters, like day range and information sources, and retrieves the headlines
//! from each one of the information sources", an RSS-like feed.
//!
//! Each (source, day) has 8 to 12 generated headlines (title, link, date, summary), the same on
//! every run. A query of 7 days over 4 sources answers about 300 headlines (~130 KB); the seed's
//! measured average (1,078 MB over 38,973 answers, ~28 KB) is about one day of 6 sources.
//! Must never: answer more than [`MAX_SOURCE_DAYS`] source-days in one response.

use rand::Rng;
use serde::{Deserialize, Serialize};
use soapstone_codec::Fault;

use crate::gen;

/// The largest `days x sources` a query may select (~ 10,000 headlines, ~4 MB).
pub const MAX_SOURCE_DAYS: i64 = 1_000;

/// A headline query.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, soapstone_service::XsdType)]
#[serde(rename_all = "camelCase")]
pub struct NewsQuery {
    /// First day, `YYYY-MM-DD`.
    pub from: String,
    /// Last day (inclusive), `YYYY-MM-DD`.
    pub to: String,
    /// Source names (see [`sources`]); empty: all of them.
    pub sources: Vec<String>,
}

/// One headline.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, soapstone_service::XsdType)]
#[serde(rename_all = "camelCase")]
pub struct Headline {
    /// The source's name.
    pub source: String,
    /// Publication day, `YYYY-MM-DD`.
    pub date: String,
    /// The title.
    pub title: String,
    /// Where the story is.
    pub link: String,
    /// A one-paragraph summary.
    pub summary: String,
}

/// The sources the service knows.
pub fn sources() -> Vec<String> {
    gen::NEWS_SOURCES.iter().map(|s| s.to_string()).collect()
}

fn date(field: &str, value: &str) -> Result<i64, Fault> {
    gen::parse_date(value)
        .ok_or_else(|| Fault::client(format!("`{field}` is not a date (YYYY-MM-DD): `{value}`")))
}

/// The headlines of `query`, by source (in the query's order) then day then rank.
pub fn headlines(query: &NewsQuery) -> Result<Vec<Headline>, Fault> {
    let (from, to) = (date("from", &query.from)?, date("to", &query.to)?);
    if to < from {
        return Err(Fault::client(format!(
            "`to` ({}) is before `from` ({})",
            query.to, query.from
        )));
    }
    let chosen: Vec<usize> = if query.sources.is_empty() {
        (0..gen::NEWS_SOURCES.len()).collect()
    } else {
        query
            .sources
            .iter()
            .map(|s| {
                gen::NEWS_SOURCES
                    .iter()
                    .position(|k| k == s)
                    .ok_or_else(|| {
                        Fault::client(format!(
                            "unknown source `{s}` (known: {})",
                            gen::NEWS_SOURCES.join(", ")
                        ))
                    })
            })
            .collect::<Result<_, _>>()?
    };
    let days = to - from + 1;
    let selected = days.saturating_mul(chosen.len() as i64);
    if selected > MAX_SOURCE_DAYS {
        return Err(Fault::client(format!(
            "query selects `{selected}` source-days ({days} days x {} sources); at most `{MAX_SOURCE_DAYS}`",
            chosen.len()
        )));
    }
    let mut out = Vec::with_capacity(selected as usize * 10);
    for &s in &chosen {
        let source = gen::NEWS_SOURCES[s];
        for day in from..=to {
            let mut rng = gen::rng(&[4, s as u64, day as u64]);
            let date = gen::format_date(day);
            for rank in 0..rng.gen_range(8..=12) {
                let title_words = rng.gen_range(6..=10);
                let title = gen::sentence(&mut rng, gen::WORDS, title_words);
                let summary_words = rng.gen_range(25..=40);
                let mut summary = gen::sentence(&mut rng, gen::WORDS, summary_words);
                summary.push('.');
                let link = format!("http://news.example.org/{source}/{date}/{rank}");
                out.push(Headline {
                    source: source.to_string(),
                    date: date.clone(),
                    title,
                    link,
                    summary,
                });
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(from: &str, to: &str, sources: &[&str]) -> NewsQuery {
        NewsQuery {
            from: from.into(),
            to: to.into(),
            sources: sources.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn deterministic_sized_and_checked() {
        let query = q(
            "2008-03-01",
            "2008-03-07",
            &[
                "coruna-herald",
                "atlantic-wire",
                "tech-dispatch",
                "sports-desk",
            ],
        );
        let a = headlines(&query).unwrap();
        assert_eq!(a, headlines(&query).unwrap());
        assert!((4 * 7 * 8..=4 * 7 * 12).contains(&a.len()), "{}", a.len());
        assert_eq!(a[0].source, "coruna-herald");
        assert_eq!(a[0].date, "2008-03-01");
        assert_eq!(a.last().unwrap().date, "2008-03-07");
        // A source's day does not depend on what else was asked.
        let one = headlines(&q("2008-03-02", "2008-03-02", &["tech-dispatch"])).unwrap();
        let same: Vec<_> = a
            .iter()
            .filter(|h| h.source == "tech-dispatch" && h.date == "2008-03-02")
            .cloned()
            .collect();
        assert_eq!(one, same);
        let all_sources = headlines(&q("2008-03-01", "2008-03-01", &[])).unwrap();
        assert!(
            all_sources.iter().any(|h| h.source == "river-press"),
            "no source means all"
        );
        let bytes: usize = a
            .iter()
            .map(|h| h.title.len() + h.summary.len() + h.link.len() + 40)
            .sum();
        assert!(
            bytes > 60_000,
            "a week of 4 sources is a big answer: {bytes}"
        );

        assert_eq!(
            headlines(&q("2008-3-01", "2008-03-02", &[]))
                .unwrap_err()
                .reason,
            "`from` is not a date (YYYY-MM-DD): `2008-3-01`"
        );
        assert_eq!(
            headlines(&q("2008-03-02", "2008-03-01", &[]))
                .unwrap_err()
                .reason,
            "`to` (2008-03-01) is before `from` (2008-03-02)"
        );
        assert!(headlines(&q("2008-03-01", "2008-03-01", &["nope"]))
            .unwrap_err()
            .reason
            .starts_with("unknown source `nope` (known: coruna-herald"));
        assert_eq!(
            headlines(&q("2008-01-01", "2008-12-31", &[]))
                .unwrap_err()
                .reason,
            "query selects `5856` source-days (366 days x 16 sources); at most `1000`"
        );
    }
}
