//! A small SVG writer for the report's three kinds of plot: horizontal bar charts (linear or log
//! scale), latency-percentile curves, and per-second timelines.
//!
//! Hand-written rather than `plotters`: the report needs three fixed chart shapes that must match
//! the page's look and embed as plain inline `<svg>` text with no fonts, files or scripts;
//! a hundred lines of string building does that with no dependency. This module only draws what
//! it is given: it must never compute, smooth or drop a measured value (a non-finite or
//! non-positive value on a log axis is skipped and the chart says so in its caption).

use std::fmt::Write as _;

use super::fmt;

/// Series colours (colour-blind friendly, Okabe-Ito).
const PALETTE: &[&str] = &[
    "#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#666666", "#F0E442",
];

/// Colour of series `i`.
pub(crate) fn colour(i: usize) -> &'static str {
    PALETTE[i % PALETTE.len()]
}

/// Escapes text for XML content and attribute values.
pub(crate) fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A horizontal bar chart: one group of bars per category, one bar per series.
#[derive(Debug, Clone, Default)]
pub(crate) struct BarChart {
    pub(crate) title: String,
    /// Axis label (unit), e.g. `messages per second`.
    pub(crate) unit: String,
    /// Log-scale value axis (for values spanning orders of magnitude).
    pub(crate) log: bool,
    /// Series names (legend), e.g. `same CPU`, `cross-CPU`.
    pub(crate) series: Vec<String>,
    /// Categories: label and one optional value per series.
    pub(crate) groups: Vec<(String, Vec<Option<f64>>)>,
}

/// A line chart of (x, y) points per series.
#[derive(Debug, Clone, Default)]
pub(crate) struct LineChart {
    pub(crate) title: String,
    pub(crate) x_label: String,
    pub(crate) y_label: String,
    /// X values are percentiles (0..100) drawn on a "nines" scale (50, 90, 99, 99.9 ...).
    pub(crate) x_nines: bool,
    /// Log-scale y axis.
    pub(crate) y_log: bool,
    pub(crate) series: Vec<LineSeries>,
}

/// One line of a [`LineChart`].
#[derive(Debug, Clone, Default)]
pub(crate) struct LineSeries {
    pub(crate) name: String,
    pub(crate) points: Vec<(f64, f64)>,
    /// Draw dashed (e.g. the requested rate beside the achieved one).
    pub(crate) dashed: bool,
    /// Draw as a step function (rates per second).
    pub(crate) step: bool,
}

const WIDTH: f64 = 760.0;

/// Value → pixel mapping along one axis.
#[derive(Debug, Clone, Copy)]
struct Scale {
    lo: f64,
    hi: f64,
    px0: f64,
    px1: f64,
    log: bool,
}

impl Scale {
    fn map(&self, v: f64) -> f64 {
        let (lo, hi, v) = if self.log {
            (self.lo.log10(), self.hi.log10(), v.max(self.lo).log10())
        } else {
            (self.lo, self.hi, v)
        };
        let t = if hi > lo { (v - lo) / (hi - lo) } else { 0.0 };
        self.px0 + t * (self.px1 - self.px0)
    }

    /// Tick values: powers of ten on a log axis, 1-2-5 steps on a linear one.
    fn ticks(&self) -> Vec<f64> {
        if self.log {
            let mut t = 10f64.powf(self.lo.log10().floor());
            let mut out = Vec::new();
            while t <= self.hi * 1.0001 {
                if t >= self.lo * 0.9999 {
                    out.push(t);
                }
                t *= 10.0;
            }
            out
        } else {
            let step = nice_step((self.hi - self.lo) / 5.0);
            let mut out = Vec::new();
            let mut t = (self.lo / step).ceil() * step;
            while t <= self.hi + step * 1e-9 {
                out.push(t);
                t += step;
            }
            out
        }
    }
}

fn nice_step(raw: f64) -> f64 {
    if raw <= 0.0 || !raw.is_finite() {
        return 1.0;
    }
    let mag = 10f64.powf(raw.log10().floor());
    let f = raw / mag;
    let n = if f <= 1.0 {
        1.0
    } else if f <= 2.0 {
        2.0
    } else if f <= 5.0 {
        5.0
    } else {
        10.0
    };
    n * mag
}

fn tick_label(v: f64) -> String {
    if v >= 1000.0 {
        let (d, s) = if v >= 1e6 { (1e6, "M") } else { (1e3, "k") };
        let x = v / d;
        if x.fract() == 0.0 {
            format!("{x:.0}{s}")
        } else {
            format!("{x:.1}{s}")
        }
    } else if v >= 1.0 || v == 0.0 {
        fmt::count(v)
    } else {
        format!("{v}")
    }
}

fn header(out: &mut String, height: f64, title: &str) {
    let _ = write!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {WIDTH} {height}\" \
         width=\"{WIDTH}\" height=\"{height}\" role=\"img\" aria-label=\"{t}\" \
         font-family=\"system-ui, sans-serif\" font-size=\"12\">\
         <title>{t}</title>\
         <rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\
         <text x=\"8\" y=\"18\" font-size=\"14\" font-weight=\"600\">{t}</text>",
        t = esc(title)
    );
}

/// Height of one legend row.
const LEGEND_ROW: f64 = 16.0;

/// Where each legend entry goes: (x, row), wrapping onto a new row where the next entry would
/// run past the chart's width (a chart of thirteen systems drew half its legend off the page).
fn legend_layout(names: &[(String, bool)]) -> Vec<(f64, usize)> {
    let mut out = Vec::with_capacity(names.len());
    let (mut x, mut row) = (8.0, 0);
    for (name, _) in names {
        let w = 38.0 + 7.2 * name.chars().count() as f64;
        if x > 8.0 && x + w > WIDTH - 8.0 {
            (x, row) = (8.0, row + 1);
        }
        out.push((x, row));
        x += w;
    }
    out
}

/// The extra height the legend's rows beyond the first take.
fn legend_extra(names: &[(String, bool)]) -> f64 {
    let rows = legend_layout(names).last().map_or(0, |(_, r)| *r);
    rows as f64 * LEGEND_ROW
}

/// Whether series `i` is drawn dashed: asked for, or past the palette's first round (the
/// colours repeat, so the second round of series is told apart by its dashes).
fn dashed(i: usize, asked: bool) -> bool {
    asked || (i / PALETTE.len()) % 2 == 1
}

fn legend(out: &mut String, names: &[(String, bool)], y: f64) {
    for (i, ((name, asked), (x, row))) in names.iter().zip(legend_layout(names)).enumerate() {
        let y = y + row as f64 * LEGEND_ROW;
        let dash = if dashed(i, *asked) {
            " stroke-dasharray=\"5 3\""
        } else {
            ""
        };
        let _ = write!(
            out,
            "<line x1=\"{x}\" y1=\"{y}\" x2=\"{x2}\" y2=\"{y}\" stroke=\"{c}\" stroke-width=\"6\"{dash}/>\
             <text x=\"{tx}\" y=\"{ty}\">{n}</text>",
            x2 = x + 18.0,
            c = colour(i),
            tx = x + 24.0,
            ty = y + 4.0,
            n = esc(name)
        );
    }
}

impl BarChart {
    /// Renders the chart as an `<svg>` element.
    pub(crate) fn render(&self) -> String {
        let label_w = 210.0;
        let bar_h = 14.0;
        let group_gap = 10.0;
        let n_series = self.series.len().max(1);
        let group_h = bar_h * n_series as f64 + group_gap;
        let names: Vec<(String, bool)> = self.series.iter().map(|s| (s.clone(), false)).collect();
        let top = 46.0 + legend_extra(&names);
        let plot_h = group_h * self.groups.len().max(1) as f64;
        let height = top + plot_h + 44.0;
        let values: Vec<f64> = self
            .groups
            .iter()
            .flat_map(|(_, v)| v.iter().flatten().copied())
            .filter(|v| v.is_finite() && (!self.log || *v > 0.0))
            .collect();
        let max = values.iter().copied().fold(0.0, f64::max);
        let min_pos = values.iter().copied().fold(f64::INFINITY, f64::min);
        let scale = if self.log {
            let lo = if min_pos.is_finite() {
                10f64.powf(min_pos.log10().floor())
            } else {
                1.0
            };
            let hi = if max > 0.0 {
                10f64.powf(max.log10().ceil())
            } else {
                10.0
            };
            Scale {
                lo,
                hi: hi.max(lo * 10.0),
                px0: label_w,
                px1: WIDTH - 70.0,
                log: true,
            }
        } else {
            let step = nice_step(max.max(1e-9) / 5.0);
            Scale {
                lo: 0.0,
                hi: (max / step).ceil().max(1.0) * step,
                px0: label_w,
                px1: WIDTH - 70.0,
                log: false,
            }
        };
        let mut out = String::new();
        header(&mut out, height, &self.title);
        if self.series.len() > 1 {
            legend(&mut out, &names, 34.0);
        }
        for t in scale.ticks() {
            let x = scale.map(t);
            let _ = write!(
                out,
                "<line x1=\"{x:.1}\" y1=\"{top}\" x2=\"{x:.1}\" y2=\"{b}\" stroke=\"#ddd\"/>\
                 <text x=\"{x:.1}\" y=\"{ty}\" text-anchor=\"middle\" fill=\"#555\">{l}</text>",
                b = top + plot_h,
                ty = top + plot_h + 14.0,
                l = tick_label(t)
            );
        }
        let mut skipped = 0;
        for (g, (label, vals)) in self.groups.iter().enumerate() {
            let gy = top + g as f64 * group_h;
            let _ = write!(
                out,
                "<text x=\"{x}\" y=\"{y:.1}\" text-anchor=\"end\">{l}</text>",
                x = label_w - 6.0,
                y = gy + (bar_h * n_series as f64) / 2.0 + 4.0,
                l = esc(label)
            );
            for (s, v) in vals.iter().enumerate() {
                let y = gy + s as f64 * bar_h;
                match v {
                    Some(v) if v.is_finite() && (!self.log || *v > 0.0) => {
                        let x1 = scale.map(*v);
                        let _ = write!(
                            out,
                            "<rect x=\"{x0}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"{h}\" fill=\"{c}\">\
                             <title>{n}: {val}</title></rect>\
                             <text x=\"{tx:.1}\" y=\"{ty:.1}\" font-size=\"11\">{val}</text>",
                            x0 = label_w,
                            w = (x1 - label_w).max(1.0),
                            h = bar_h - 2.0,
                            c = colour(s),
                            n = esc(self.series.get(s).map(String::as_str).unwrap_or("")),
                            val = fmt::count(*v),
                            tx = x1 + 3.0,
                            ty = y + bar_h - 4.0,
                        );
                    }
                    Some(_) => skipped += 1,
                    None => {}
                }
            }
        }
        let caption = if skipped > 0 {
            format!(
                "{} ({} value(s) not drawn: zero or negative on a log axis)",
                self.unit, skipped
            )
        } else if self.log {
            format!("{} (log scale)", self.unit)
        } else {
            self.unit.clone()
        };
        let _ = write!(
            out,
            "<text x=\"{x}\" y=\"{y}\" text-anchor=\"middle\" fill=\"#333\">{c}</text></svg>",
            x = (label_w + WIDTH - 70.0) / 2.0,
            y = top + plot_h + 34.0,
            c = esc(&caption)
        );
        out
    }
}

/// A percentile label without trailing zeros: `99.5`, `99.95`.
fn trim_pct(p: f64) -> String {
    let s = format!("{p:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// Maps a percentile (0..100) to the "nines" axis: 0 → 0, 90 → 1, 99 → 2, 99.9 → 3.
fn nines(p: f64) -> f64 {
    let q = (100.0 - p.clamp(0.0, 99.9999)) / 100.0;
    -q.log10()
}

impl LineChart {
    /// Renders the chart as an `<svg>` element.
    pub(crate) fn render(&self) -> String {
        let names: Vec<(String, bool)> = self
            .series
            .iter()
            .map(|s| (s.name.clone(), s.dashed))
            .collect();
        let extra = legend_extra(&names);
        let (left, right, top, height) = (70.0, WIDTH - 20.0, 46.0 + extra, 300.0 + extra);
        let bottom = height - 44.0;
        let xs = |x: f64| if self.x_nines { nines(x) } else { x };
        let pts: Vec<(f64, f64)> = self
            .series
            .iter()
            .flat_map(|s| s.points.iter().copied())
            .filter(|(x, y)| x.is_finite() && y.is_finite() && (!self.y_log || *y > 0.0))
            .collect();
        let (mut x_lo, mut x_hi) = (f64::INFINITY, f64::NEG_INFINITY);
        let (mut y_lo, mut y_hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for (x, y) in &pts {
            x_lo = x_lo.min(xs(*x));
            x_hi = x_hi.max(xs(*x));
            y_lo = y_lo.min(*y);
            y_hi = y_hi.max(*y);
        }
        if !x_lo.is_finite() {
            (x_lo, x_hi, y_lo, y_hi) = (0.0, 1.0, 1.0, 10.0);
        }
        let ys = if self.y_log {
            Scale {
                lo: 10f64.powf(y_lo.log10().floor()),
                hi: 10f64
                    .powf(y_hi.log10().ceil())
                    .max(10f64.powf(y_lo.log10().floor() + 1.0)),
                px0: bottom,
                px1: top,
                log: true,
            }
        } else {
            let step = nice_step(y_hi.max(1e-9) / 5.0);
            Scale {
                lo: 0.0,
                hi: (y_hi / step).ceil().max(1.0) * step,
                px0: bottom,
                px1: top,
                log: false,
            }
        };
        // The percentile axis ends where the data end (the highest percentile any series has),
        // not at the next power of ten: a run with 600 calls has no p99.9 to draw.
        let xscale = Scale {
            lo: if self.x_nines { 0.0 } else { x_lo.min(0.0) },
            hi: if self.x_nines {
                x_hi.max(1.0)
            } else {
                x_hi.max(x_lo + 1e-9)
            },
            px0: left,
            px1: right,
            log: false,
        };
        let mut out = String::new();
        header(&mut out, height, &self.title);
        legend(&mut out, &names, 34.0);
        for t in ys.ticks() {
            let y = ys.map(t);
            let _ = write!(
                out,
                "<line x1=\"{left}\" y1=\"{y:.1}\" x2=\"{right}\" y2=\"{y:.1}\" stroke=\"#ddd\"/>\
                 <text x=\"{tx}\" y=\"{ty:.1}\" text-anchor=\"end\" fill=\"#555\">{l}</text>",
                tx = left - 4.0,
                ty = y + 4.0,
                l = tick_label(t)
            );
        }
        let xticks: Vec<(f64, String)> = if self.x_nines {
            let labels = ["p0", "p90", "p99", "p99.9", "p99.99", "p99.999"];
            let whole = (xscale.hi + 1e-9).floor();
            let mut t: Vec<(f64, String)> = (0..=(whole as usize).min(5))
                .map(|i| (i as f64, labels[i].to_owned()))
                .collect();
            if xscale.hi - whole > 0.15 {
                // The last percentile drawn, where the axis ends.
                let p = 100.0 - 100.0 * 10f64.powf(-xscale.hi);
                t.push((xscale.hi, format!("p{}", trim_pct(p))));
            }
            t
        } else {
            xscale
                .ticks()
                .into_iter()
                .map(|t| (t, tick_label(t)))
                .collect()
        };
        for (t, l) in xticks {
            let x = xscale.map(t);
            let _ = write!(
                out,
                "<line x1=\"{x:.1}\" y1=\"{top}\" x2=\"{x:.1}\" y2=\"{bottom}\" stroke=\"#eee\"/>\
                 <text x=\"{x:.1}\" y=\"{ty}\" text-anchor=\"middle\" fill=\"#555\">{l}</text>",
                ty = bottom + 14.0,
                l = esc(&l)
            );
        }
        for (i, s) in self.series.iter().enumerate() {
            let mut d = String::new();
            let mut prev: Option<(f64, f64)> = None;
            for (x, y) in &s.points {
                if !(x.is_finite() && y.is_finite()) || (self.y_log && *y <= 0.0) {
                    continue;
                }
                let (px, py) = (xscale.map(xs(*x)), ys.map(*y));
                match prev {
                    None => {
                        let _ = write!(d, "M{px:.1},{py:.1}");
                    }
                    Some((_, pprev)) if s.step => {
                        let _ = write!(d, " L{px:.1},{pprev:.1} L{px:.1},{py:.1}");
                    }
                    Some(_) => {
                        let _ = write!(d, " L{px:.1},{py:.1}");
                    }
                }
                prev = Some((px, py));
            }
            let dash = if dashed(i, s.dashed) {
                " stroke-dasharray=\"5 3\""
            } else {
                ""
            };
            let _ = write!(
                out,
                "<path d=\"{d}\" fill=\"none\" stroke=\"{c}\" stroke-width=\"2\"{dash}><title>{n}</title></path>",
                c = colour(i),
                n = esc(&s.name)
            );
        }
        let _ = write!(
            out,
            "<text x=\"{x}\" y=\"{y}\" text-anchor=\"middle\" fill=\"#333\">{xl}</text>\
             <text x=\"14\" y=\"{my}\" text-anchor=\"middle\" fill=\"#333\" \
             transform=\"rotate(-90 14 {my})\">{yl}</text></svg>",
            x = (left + right) / 2.0,
            y = height - 8.0,
            my = (top + bottom) / 2.0,
            xl = esc(&self.x_label),
            yl = esc(&format!(
                "{}{}",
                self.y_label,
                if self.y_log { " (log)" } else { "" }
            ))
        );
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn well_formed(svg: &str) {
        roxmltree::Document::parse(svg)
            .unwrap_or_else(|e| panic!("svg not well-formed: {e}\n{svg}"));
    }

    #[test]
    fn bar_chart_is_well_formed_and_has_a_bar_per_value() {
        let chart = BarChart {
            title: "echoFloat <msgs/s> & more".into(),
            unit: "messages per second".into(),
            log: false,
            series: vec!["same CPU".into(), "cross-CPU".into()],
            groups: vec![
                ("soapstone".into(), vec![Some(25_000.0), Some(14_000.0)]),
                ("grpc".into(), vec![Some(20_000.0), None]),
            ],
        };
        let svg = chart.render();
        well_formed(&svg);
        assert_eq!(svg.matches("<rect x=").count(), 3);
        assert!(svg.contains("echoFloat &lt;msgs/s&gt; &amp; more"));
        assert!(svg.contains("25,000"));
    }

    #[test]
    fn log_bar_chart_skips_zero_and_says_so() {
        let chart = BarChart {
            title: "t".into(),
            unit: "µs".into(),
            log: true,
            series: vec!["a".into()],
            groups: vec![
                ("x".into(), vec![Some(0.0)]),
                ("y".into(), vec![Some(15_600.0)]),
            ],
        };
        let svg = chart.render();
        well_formed(&svg);
        assert!(svg.contains("not drawn"));
        assert_eq!(svg.matches("<rect x=").count(), 1);
    }

    #[test]
    fn line_chart_percentiles_and_steps() {
        let chart = LineChart {
            title: "latency".into(),
            x_label: "percentile".into(),
            y_label: "µs".into(),
            x_nines: true,
            y_log: true,
            series: vec![
                LineSeries {
                    name: "soapstone".into(),
                    points: vec![(0.0, 20.0), (50.0, 25.0), (99.0, 60.0), (99.9, 120.0)],
                    ..Default::default()
                },
                LineSeries {
                    name: "rate".into(),
                    points: vec![(0.0, 10.0), (1.0, 20.0)],
                    dashed: true,
                    step: true,
                },
            ],
        };
        let svg = chart.render();
        well_formed(&svg);
        assert_eq!(svg.matches("<path ").count(), 2);
        assert!(svg.contains("p99.9"));
        assert!(svg.contains("stroke-dasharray"));
    }

    #[test]
    fn a_percentile_axis_ends_where_the_data_end() {
        let chart = |last: f64| {
            LineChart {
                title: "latency".into(),
                x_label: "percentile".into(),
                y_label: "µs".into(),
                x_nines: true,
                y_log: true,
                series: vec![LineSeries {
                    name: "s".into(),
                    points: vec![(0.0, 20.0), (90.0, 25.0), (last, 60.0)],
                    ..Default::default()
                }],
            }
            .render()
        };
        // Data up to p99.5: the axis stops there, labelled, with no p99.9 beyond the data.
        let svg = chart(99.5);
        assert!(svg.contains(">p99.5<"), "{svg}");
        assert!(!svg.contains(">p99.9<"), "{svg}");
        // Data up to p99: the last tick is p99.
        let svg = chart(99.0);
        assert!(svg.contains(">p99<") && !svg.contains(">p99.9<"), "{svg}");
    }

    #[test]
    fn empty_charts_still_render() {
        well_formed(&BarChart::default().render());
        well_formed(&LineChart::default().render());
    }

    #[test]
    fn nines_axis() {
        assert!((nines(90.0) - 1.0).abs() < 1e-9);
        assert!((nines(99.0) - 2.0).abs() < 1e-9);
        assert_eq!(nines(0.0), 0.0);
    }

    /// The echo section's percentile chart has thirteen systems: every legend entry must sit
    /// inside the chart, and the series past the palette's eight colours must be dashed, so no
    /// two series look alike.
    #[test]
    fn a_long_legend_wraps_inside_the_chart_and_repeated_colours_are_dashed() {
        let names = [
            "soapstone",
            "tcp-pingpong",
            "grpc",
            "http-noop",
            "axis2",
            "cxf",
            "erlang",
            "gsoap",
            "mono-asmx",
            "node-soap-server",
            "php-soapserver",
            "soaplite-server",
            "spyne",
        ];
        let chart = LineChart {
            title: "echoFloat latency distribution".into(),
            x_label: "percentile".into(),
            y_label: "µs".into(),
            x_nines: true,
            y_log: true,
            series: names
                .iter()
                .map(|n| LineSeries {
                    name: (*n).into(),
                    points: vec![(0.0, 10.0), (50.0, 20.0), (99.0, 90.0)],
                    dashed: false,
                    step: false,
                })
                .collect(),
        };
        let svg = chart.render();
        well_formed(&svg);
        let doc = roxmltree::Document::parse(&svg).unwrap();
        let legend: Vec<_> = doc
            .descendants()
            .filter(|n| n.has_tag_name("line") && n.attribute("stroke-width") == Some("6"))
            .collect();
        assert_eq!(legend.len(), names.len());
        for (line, name) in legend.iter().zip(names) {
            let x: f64 = line.attribute("x1").unwrap().parse().unwrap();
            let end = x + 38.0 + 7.2 * name.len() as f64;
            assert!(end <= WIDTH, "`{name}` ends at {end}, past {WIDTH}");
            assert_eq!(
                line.attribute("stroke-dasharray").is_some(),
                names.iter().position(|n| n == &name).unwrap() >= PALETTE.len(),
                "{name}"
            );
        }
        let rows: std::collections::BTreeSet<&str> =
            legend.iter().map(|l| l.attribute("y1").unwrap()).collect();
        assert!(rows.len() > 1, "one legend row for thirteen names");
        let paths = doc.descendants().filter(|n| n.has_tag_name("path"));
        assert_eq!(
            paths
                .filter(|p| p.attribute("stroke-dasharray").is_some())
                .count(),
            names.len() - PALETTE.len()
        );
    }
}
