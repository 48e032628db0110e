//! The report: a renderer-neutral model ([`Report`], [`Section`], [`Table`]) built from
//! [`Results`], and its two renderings, `report.md` ([`markdown`]) and the self-contained
//! `index.html` ([`html`]) with inline SVG plots ([`svg`]).
//!
//! Each experiment module builds its own [`Section`] from the runs; this module adds the
//! headline and the run facts. Nothing here measures: every "today" cell comes from a [`Run`] in
//! `results.json`, every "published" cell from [`crate::seeds`]; a missing run shows as `–`,
//! never as a made-up value.
//!
//! [`Run`]: crate::results::Run

pub(crate) mod fmt;
pub(crate) mod headline;
pub(crate) mod html;
pub(crate) mod ladder;
pub(crate) mod markdown;
pub(crate) mod suspect;
pub(crate) mod svg;
#[cfg(test)]
pub(crate) mod tests;

use crate::results::Results;

/// What a table row holds: published figures, today's measurements, or a group heading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RowKind {
    /// A heading row spanning the table (first cell only).
    Group,
    /// Figures as published by the seed study.
    Published,
    /// Figures measured by this run of the lab.
    Today,
}

/// One table row.
#[derive(Debug, Clone)]
pub(crate) struct Row {
    pub(crate) kind: RowKind,
    pub(crate) cells: Vec<String>,
}

impl Row {
    pub(crate) fn group(label: impl Into<String>) -> Row {
        Row {
            kind: RowKind::Group,
            cells: vec![label.into()],
        }
    }

    pub(crate) fn published(cells: Vec<String>) -> Row {
        Row {
            kind: RowKind::Published,
            cells,
        }
    }

    pub(crate) fn today(cells: Vec<String>) -> Row {
        Row {
            kind: RowKind::Today,
            cells,
        }
    }
}

/// A table: a seed table redrawn with today's numbers beside the published ones.
#[derive(Debug, Clone, Default)]
pub(crate) struct Table {
    pub(crate) title: String,
    /// Citation of the published figures (study, table number).
    pub(crate) source: String,
    /// How to read it: units, statistics, placements.
    pub(crate) note: String,
    pub(crate) header: Vec<String>,
    pub(crate) rows: Vec<Row>,
}

/// One experiment's part of the report.
#[derive(Debug, Clone, Default)]
pub(crate) struct Section {
    /// Anchor id (the experiment id).
    pub(crate) id: String,
    pub(crate) title: String,
    /// What was done, in a few sentences.
    pub(crate) intro: String,
    /// Takeaways computed from the runs (one sentence each).
    pub(crate) findings: Vec<String>,
    pub(crate) tables: Vec<Table>,
    /// Inline SVG plots.
    pub(crate) charts: Vec<String>,
}

/// The whole report.
#[derive(Debug, Clone)]
pub(crate) struct Report {
    pub(crate) headline: headline::Headline,
    pub(crate) sections: Vec<Section>,
    /// Run facts: host, duration, settings (label, value).
    pub(crate) facts: Vec<(String, String)>,
    pub(crate) problems: Vec<String>,
}

impl Report {
    /// Builds the report model from the results and the experiments' sections.
    pub(crate) fn build(results: &Results, sections: Vec<Section>) -> Report {
        let host = &results.host;
        let mut facts = vec![
            ("soapstone".to_owned(), results.version.clone()),
            (
                "commit".to_owned(),
                results
                    .commit
                    .clone()
                    .unwrap_or_else(|| "unknown (the lab did not run in a git checkout)".into()),
            ),
            ("started".to_owned(), fmt::utc(results.started_unix)),
            (
                "preset".to_owned(),
                if results.quick { "--quick" } else { "full" }.to_owned(),
            ),
            (
                "lab duration".to_owned(),
                format!("{:.0} s", results.elapsed_s),
            ),
            ("CPUs".to_owned(), host.cpus.to_string()),
            ("experiments".to_owned(), results.experiments.join(", ")),
            ("runs".to_owned(), results.runs.len().to_string()),
        ];
        if let Some(lan) = &results.lan {
            facts.push(("separate-host tables".to_owned(), lan.clone()));
        }
        if let Some(m) = &host.cpu_model {
            facts.push(("CPU model".to_owned(), m.clone()));
        }
        if let Some(k) = &host.kernel {
            facts.push(("kernel".to_owned(), k.clone()));
        }
        let mut problems = results.problems.clone();
        if let Some(l) = host.load_at_start {
            facts.push(("load average at start".to_owned(), format!("{l:.2}")));
            if l > 0.5 * host.cpus as f64 {
                problems.insert(
                    0,
                    format!(
                        "the machine was busy when the lab started (load average {l:.2} on {} \
                         CPUs): other work shares the pinned CPUs, so every figure is slower and \
                         noisier than on an idle machine",
                        host.cpus
                    ),
                );
            }
        }
        problems.extend(suspect::suspect_points(results));
        let mut headline = headline::Headline::from_results(results);
        if let Some(standing) = crate::experiments::dp::standing(results) {
            headline.summary = format!("{standing} {}", headline.summary);
        }
        Report {
            headline,
            sections,
            facts,
            problems,
        }
    }
}

/// A "same / cross" pair of optional values formatted with `f`, e.g. `31.2 / 58.0`.
pub(crate) fn pair(a: Option<f64>, b: Option<f64>, f: fn(f64) -> String) -> String {
    let s = |v: Option<f64>| v.map(f).unwrap_or_else(|| "–".to_owned());
    format!("{} / {}", s(a), s(b))
}
