//! `index.html`: the report as one self-contained page (inline CSS and SVG, no scripts, no
//! external resources), so it opens from disk, in CI artefacts and in headless Chromium alike.
//! The first screen carries the headline; the seed tables follow. This renderer must never load
//! anything from the network and never show a table cell the Markdown report does not have.

use std::fmt::Write as _;

use super::svg::esc;
use super::{Report, RowKind, Table};

const CSS: &str = "
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:0;color:#1b1b1b;background:#fafafa}
main{max-width:1180px;margin:0 auto;padding:20px 28px 60px}
h1{font-size:24px;margin:4px 0 2px}
.sub{color:#555;margin:0 0 14px}
.headline{background:#fff;border:1px solid #d8d8d8;border-left:6px solid #0072B2;padding:14px 18px;border-radius:4px}
.headline p.summary{font-size:18px;line-height:1.45;margin:0 0 10px}
.flex{display:flex;gap:18px;flex-wrap:wrap;align-items:flex-start}
.flex>div{flex:1 1 420px;min-width:0}
svg{max-width:100%;height:auto;border:1px solid #e4e4e4;border-radius:3px;background:#fff}
table{border-collapse:collapse;margin:6px 0 4px;font-size:13.5px;background:#fff}
th,td{border:1px solid #d0d0d0;padding:4px 8px;text-align:right;white-space:nowrap}
th{background:#eef3f8;font-weight:600;white-space:normal;min-width:5em;max-width:11em;vertical-align:bottom}
td:first-child,th:first-child{text-align:left;white-space:normal;min-width:13em;max-width:360px}
td.prose{white-space:normal;text-align:left;min-width:14em;max-width:26em}
td.text{text-align:left}
tr.group td{background:#f2f2f2;font-weight:600;text-align:left;font-size:12.5px;color:#333}
tr.published td{color:#555;font-style:italic}
tr.today td{font-weight:500}
tr.today td:first-child::before{content:'';display:inline-block;width:8px;height:8px;border-radius:50%;background:#009E73;margin-right:6px}
tr.published td:first-child::before{content:'';display:inline-block;width:8px;height:8px;border-radius:50%;background:#bbb;margin-right:6px}
.tablewrap{overflow-x:auto;margin:14px 0 18px}
.caption{font-weight:600;margin:0}
.source{color:#666;font-size:12.5px;margin:2px 0 0}
.note{color:#444;font-size:12.5px;margin:4px 0 0;max-width:1000px}
section{border-top:1px solid #ddd;margin-top:26px;padding-top:6px}
h2{font-size:20px;margin:10px 0 6px}
.intro{max-width:1000px;line-height:1.45}
ul.findings{margin:6px 0 10px;line-height:1.45}
.legend{font-size:12.5px;color:#444;margin:8px 0 0}
.problems{background:#fff4e5;border:1px solid #f0c36d;padding:8px 14px;border-radius:4px;margin:12px 0}
nav{margin:14px 0 0;font-size:13.5px}
nav a{margin-right:12px}
dl.facts{display:grid;grid-template-columns:max-content auto;gap:2px 14px;font-size:13px}
dl.facts dt{color:#555}
";

/// A cell of words rather than a figure: long, with spaces.
fn is_prose(cell: &str) -> bool {
    cell.chars().count() > 32 && cell.contains(' ')
}

fn table(out: &mut String, t: &Table) {
    out.push_str("<div class=\"tablewrap\">");
    let _ = write!(out, "<p class=\"caption\">{}</p>", esc(&t.title));
    if !t.source.is_empty() {
        let _ = write!(
            out,
            "<p class=\"source\">Published figures: {}</p>",
            esc(&t.source)
        );
    }
    out.push_str("<table><thead><tr>");
    for h in &t.header {
        let _ = write!(out, "<th>{}</th>", esc(h));
    }
    out.push_str("</tr></thead><tbody>");
    let cols = t.header.len().max(1);
    for row in &t.rows {
        match row.kind {
            RowKind::Group => {
                let _ = write!(
                    out,
                    "<tr class=\"group\"><td colspan=\"{cols}\">{}</td></tr>",
                    esc(row.cells.first().map(String::as_str).unwrap_or(""))
                );
            }
            kind => {
                let class = if kind == RowKind::Published {
                    "published"
                } else {
                    "today"
                };
                let _ = write!(out, "<tr class=\"{class}\">");
                for i in 0..cols {
                    let cell = row.cells.get(i).map(String::as_str).unwrap_or("");
                    // A sentence in a cell wraps in a column of its own width, so that a
                    // table of figures and words fits the page instead of scrolling.
                    let prose = i > 0 && is_prose(cell);
                    // Figures align right so their digits line up; words align left.
                    let words = cell.chars().next().is_some_and(char::is_alphabetic);
                    let open = if prose {
                        "<td class=\"prose\">"
                    } else if i > 0 && words {
                        "<td class=\"text\">"
                    } else {
                        "<td>"
                    };
                    let _ = write!(out, "{open}{}</td>", esc(cell));
                }
                out.push_str("</tr>");
            }
        }
    }
    out.push_str("</tbody></table>");
    if !t.note.is_empty() {
        let _ = write!(out, "<p class=\"note\">{}</p>", text(&t.note));
    }
    out.push_str("</div>");
}

/// Inline `code` spans in otherwise plain text.
fn text(s: &str) -> String {
    let mut out = String::new();
    for (i, part) in s.split('`').enumerate() {
        if i % 2 == 1 {
            let _ = write!(out, "<code>{}</code>", esc(part));
        } else {
            out.push_str(&esc(part));
        }
    }
    out
}

/// Renders the whole page.
pub(crate) fn render(report: &Report) -> String {
    let mut out = String::with_capacity(256 * 1024);
    let _ = write!(
        out,
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"/>\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\
         <title>soapstone lab report</title><style>{CSS}</style></head><body><main>\
         <h1>soapstone lab: the SOAP performance studies of 2001-2008, rerun today</h1>\
         <p class=\"sub\">Each seed study's table redrawn with today's numbers beside the \
         published ones. Rows with a green dot are measured now on this machine; grey italic \
         rows are as published.</p>"
    );
    out.push_str("<div class=\"headline\">");
    let _ = write!(
        out,
        "<p class=\"summary\">{}</p>",
        text(&report.headline.summary)
    );
    out.push_str("<div class=\"flex\">");
    if let Some(t) = &report.headline.table {
        out.push_str("<div>");
        table(&mut out, t);
        out.push_str("</div>");
    }
    if let Some(c) = &report.headline.chart {
        let _ = write!(out, "<div>{c}</div>");
    }
    out.push_str("</div></div>");
    if !report.problems.is_empty() {
        out.push_str("<div class=\"problems\"><b>Problems during this run</b> (the affected cells show –; a suspect point is marked ⚠ in its cell, its figure shown but not a result):<ul>");
        for p in &report.problems {
            let _ = write!(out, "<li>{}</li>", text(p));
        }
        out.push_str("</ul></div>");
    }
    out.push_str("<nav>Experiments: ");
    for s in &report.sections {
        let _ = write!(out, "<a href=\"#{}\">{}</a>", esc(&s.id), esc(&s.title));
    }
    out.push_str("<a href=\"#run\">This run</a></nav>");
    for s in &report.sections {
        let _ = write!(
            out,
            "<section id=\"{}\"><h2>{}</h2><p class=\"intro\">{}</p>",
            esc(&s.id),
            esc(&s.title),
            text(&s.intro)
        );
        if !s.findings.is_empty() {
            out.push_str("<ul class=\"findings\">");
            for f in &s.findings {
                let _ = write!(out, "<li>{}</li>", text(f));
            }
            out.push_str("</ul>");
        }
        if !s.charts.is_empty() {
            out.push_str("<div class=\"flex\">");
            for c in &s.charts {
                let _ = write!(out, "<div>{c}</div>");
            }
            out.push_str("</div>");
        }
        for t in &s.tables {
            table(&mut out, t);
        }
        out.push_str("</section>");
    }
    out.push_str("<section id=\"run\"><h2>This run</h2><dl class=\"facts\">");
    for (k, v) in &report.facts {
        let _ = write!(out, "<dt>{}</dt><dd>{}</dd>", esc(k), esc(v));
    }
    out.push_str(
        "</dl><p class=\"note\">Every number on this page comes from <code>results.json</code> \
         beside it; <code>docs/lab.md</code> explains each experiment.</p></section>\
         </main></body></html>\n",
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Row;

    #[test]
    fn sentences_in_cells_wrap_and_figures_do_not() {
        let t = Table {
            title: "t".into(),
            source: String::new(),
            note: String::new(),
            header: vec!["mode".into(), "median".into(), "stalls".into()],
            rows: vec![Row::today(vec![
                "server: Nagle on, head and body in two writes".into(),
                "44.0 ms".into(),
                "delayed ACK +43.6 ms, Nagle (29 of 30 calls)".into(),
            ])],
        };
        let mut out = String::new();
        table(&mut out, &t);
        assert!(
            out.contains("<td>44.0 ms</td><td class=\"prose\">delayed ACK +43.6 ms"),
            "{out}"
        );
        // The first column wraps by the stylesheet already.
        assert!(out.contains("<td>server: Nagle on"), "{out}");
        assert!(CSS.contains("td.prose{white-space:normal"));
    }

    /// The systems table right-aligned names and roles like figures: words align left, and
    /// figures, flags and dashes stay right.
    #[test]
    fn words_align_left_and_figures_right() {
        let t = Table {
            header: vec!["id".into(), "system".into(), "p50".into(), "flag".into()],
            rows: vec![Row::today(vec![
                "spyne".into(),
                "spyne 2.14.0 (Python 3.11.7)".into(),
                "1,108".into(),
                "⚠ 13 calls: 48,031".into(),
            ])],
            ..Table::default()
        };
        let mut out = String::new();
        table(&mut out, &t);
        assert!(
            out.contains(
                "<td class=\"text\">spyne 2.14.0 (Python 3.11.7)</td><td>1,108</td><td>⚠ 13 calls"
            ),
            "{out}"
        );
        assert!(CSS.contains("td.text{text-align:left}"));
    }
}
