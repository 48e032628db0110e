//! `report.md`: the report as GitHub-flavoured Markdown (headline, then one section per
//! experiment with its redrawn seed tables). Plots are only in `index.html`; this renderer must
//! never drop a table row or a cell the HTML shows.

use std::fmt::Write as _;

use super::{Report, RowKind, Table};

/// Escapes a table cell (pipes and line breaks would break the table).
fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

pub(crate) fn table(out: &mut String, t: &Table) {
    let _ = writeln!(out, "**{}**", t.title);
    if !t.source.is_empty() {
        let _ = writeln!(out, "\n_Published figures: {}._", t.source);
    }
    out.push('\n');
    let cols = t.header.len().max(1);
    let _ = writeln!(
        out,
        "| {} |",
        t.header
            .iter()
            .map(|h| cell(h))
            .collect::<Vec<_>>()
            .join(" | ")
    );
    let _ = writeln!(out, "|{}", "---|".repeat(cols));
    for row in &t.rows {
        let mut cells: Vec<String> = row.cells.iter().map(|c| cell(c)).collect();
        if row.kind == RowKind::Group {
            cells = vec![format!(
                "**{}**",
                cells.first().cloned().unwrap_or_default()
            )];
        }
        cells.resize(cols, String::new());
        let _ = writeln!(out, "| {} |", cells.join(" | "));
    }
    if !t.note.is_empty() {
        let _ = writeln!(out, "\n{}", t.note);
    }
    out.push('\n');
}

/// Renders the whole report.
pub(crate) fn render(report: &Report) -> String {
    let mut out = String::new();
    out.push_str("# soapstone lab: the SOAP performance studies of 2001-2008, rerun today\n\n");
    let _ = writeln!(out, "{}\n", report.headline.summary);
    if let Some(t) = &report.headline.table {
        table(&mut out, t);
    }
    if !report.problems.is_empty() {
        out.push_str("**Problems during this run** (the affected cells show `–`; a suspect point is marked ⚠ in its cell, its figure shown but not a result):\n\n");
        for p in &report.problems {
            let _ = writeln!(out, "- {}", p.replace('\n', " "));
        }
        out.push('\n');
    }
    out.push_str("Contents: ");
    let links: Vec<String> = report
        .sections
        .iter()
        .map(|s| format!("[{}](#{})", s.title, s.id))
        .collect();
    let _ = writeln!(out, "{}\n", links.join(" · "));
    for s in &report.sections {
        let _ = writeln!(
            out,
            "<a id=\"{}\"></a>\n\n## {}\n\n{}\n",
            s.id, s.title, s.intro
        );
        for f in &s.findings {
            let _ = writeln!(out, "- {f}");
        }
        if !s.findings.is_empty() {
            out.push('\n');
        }
        for t in &s.tables {
            table(&mut out, t);
        }
    }
    out.push_str("## This run\n\n| | |\n|---|---|\n");
    for (k, v) in &report.facts {
        let _ = writeln!(out, "| {} | {} |", cell(k), cell(v));
    }
    out.push_str(
        "\nEvery number above comes from `results.json` beside this file; \
         `docs/lab.md` explains each experiment.\n",
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Row;

    #[test]
    fn tables_have_a_cell_per_column_and_escape_pipes() {
        let t = Table {
            title: "T".into(),
            source: "Somebody 2002, Table I".into(),
            note: "note".into(),
            header: vec!["system".into(), "a".into(), "b".into()],
            rows: vec![
                Row::group("published"),
                Row::published(vec!["x|y".into(), "1.2".into()]),
                Row::today(vec!["soapstone".into(), "3".into(), "4".into()]),
            ],
        };
        let mut out = String::new();
        table(&mut out, &t);
        let lines: Vec<&str> = out.lines().filter(|l| l.starts_with('|')).collect();
        assert_eq!(lines.len(), 5, "{out}");
        for l in &lines {
            // 3 columns → 4 unescaped pipes.
            let pipes = l.matches('|').count() - l.matches("\\|").count();
            assert_eq!(pipes, 4, "{l}");
        }
        assert!(out.contains("x\\|y"));
        assert!(out.contains("**published**"));
        assert!(out.contains("Somebody 2002, Table I"));
    }
}
