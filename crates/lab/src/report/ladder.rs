//! The packet figure of the causes section: one lane per mode, each packet of one call a mark
//! at its time since the request started (log scale, so a 20 µs request and a 350 ms stall
//! share the axis), above the lane when it goes to the server, below when it comes back;
//! filled for data, hollow for a bare ACK, SYN or FIN; the stalls the capture showed named in
//! red beside the packet that ended them, and the moment the client had its answer marked.
//!
//! Like [`super::svg`] it only draws what it is given: it must never place a packet anywhere
//! but at its captured time (a time below the axis's start is drawn at the start and the
//! caption says so), and never name a stall the timeline did not.

use std::fmt::Write as _;

use super::svg::{colour, esc};
use crate::timeline::TimelinePacket;

const WIDTH: f64 = 760.0;
const LABEL_W: f64 = 200.0;
const LANE_H: f64 = 46.0;
/// The axis starts here, in ms.
const LO_MS: f64 = 0.01;

/// One lane: a mode's call.
#[derive(Debug, Clone, Default)]
pub(crate) struct Lane {
    pub(crate) label: String,
    /// When the client had its answer, ms since the request started.
    pub(crate) answered_ms: Option<f64>,
    pub(crate) packets: Vec<TimelinePacket>,
    /// Shown instead of packets when there are none (e.g. capture not permitted).
    pub(crate) note: Option<String>,
}

/// The figure.
#[derive(Debug, Clone, Default)]
pub(crate) struct Ladder {
    pub(crate) title: String,
    pub(crate) lanes: Vec<Lane>,
}

impl Ladder {
    /// Renders the figure as an `<svg>` element.
    pub(crate) fn render(&self) -> String {
        let top = 34.0;
        let axis_y = top + LANE_H * self.lanes.len() as f64 + 6.0;
        let height = axis_y + 72.0;
        let latest = self
            .lanes
            .iter()
            .flat_map(|l| l.packets.iter().map(|p| p.t_ms).chain(l.answered_ms))
            .fold(1.0f64, f64::max);
        let hi = 10f64.powf(latest.log10().ceil());
        let x = |t: f64| {
            let (lo, hi, v) = (LO_MS.log10(), hi.log10(), t.max(LO_MS).log10());
            LABEL_W + (v - lo) / (hi - lo) * (WIDTH - LABEL_W - 32.0)
        };
        let mut out = String::new();
        let _ = write!(
            out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {WIDTH} {height}\" \
             width=\"{WIDTH}\" height=\"{height}\" role=\"img\" aria-label=\"{t}\" \
             font-family=\"system-ui, sans-serif\" font-size=\"11\">\
             <title>{t}</title><rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\
             <text x=\"8\" y=\"18\" font-size=\"14\" font-weight=\"600\">{t}</text>",
            t = esc(&self.title)
        );
        // Grid: one line per power of ten.
        let mut tick = LO_MS;
        while tick <= hi * 1.0001 {
            let tx = x(tick);
            let label = if tick < 1.0 {
                format!("{tick} ms")
            } else {
                format!("{tick:.0} ms")
            };
            let _ = write!(
                out,
                "<line x1=\"{tx:.1}\" y1=\"{top}\" x2=\"{tx:.1}\" y2=\"{axis_y}\" stroke=\"#e4e4e4\"/>\
                 <text x=\"{tx:.1}\" y=\"{ly}\" text-anchor=\"middle\" fill=\"#444\">{label}</text>",
                ly = axis_y + 14.0
            );
            tick *= 10.0;
        }
        let mut clamped = false;
        for (i, lane) in self.lanes.iter().enumerate() {
            let mid = top + LANE_H * i as f64 + LANE_H / 2.0;
            let _ = write!(
                out,
                "<text x=\"8\" y=\"{:.1}\">{}</text>\
                 <line x1=\"{LABEL_W}\" y1=\"{mid}\" x2=\"{}\" y2=\"{mid}\" stroke=\"#bbb\"/>",
                mid + 4.0,
                esc(&lane.label),
                WIDTH - 32.0
            );
            if let Some(note) = &lane.note {
                let _ = write!(
                    out,
                    "<text x=\"{}\" y=\"{:.1}\" fill=\"#888\">{}</text>",
                    LABEL_W + 6.0,
                    mid - 6.0,
                    esc(note)
                );
            }
            if let Some(a) = lane.answered_ms {
                let ax = x(a);
                let _ = write!(
                    out,
                    "<line x1=\"{ax:.1}\" y1=\"{:.1}\" x2=\"{ax:.1}\" y2=\"{:.1}\" stroke=\"#009E73\" \
                     stroke-width=\"2\"><title>answered at {a:.3} ms</title></line>",
                    mid - 18.0,
                    mid + 18.0
                );
            }
            for p in &lane.packets {
                clamped |= p.t_ms < LO_MS;
                mark(&mut out, p, x(p.t_ms), mid);
            }
        }
        let _ = write!(
            out,
            "<text x=\"{}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"#444\">time since the \
             request started (log scale)</text>",
            (LABEL_W + WIDTH) / 2.0,
            axis_y + 30.0
        );
        let note = if clamped {
            "; packets before 0.01 ms drawn at 0.01 ms"
        } else {
            ""
        };
        let _ = write!(
            out,
            "<text x=\"8\" y=\"{:.1}\" fill=\"#444\">▲ (blue) to the server, ▼ (orange) \
             back; filled: data, hollow: ACK/SYN/FIN; green bar: the client has its \
             answer;</text><text x=\"8\" y=\"{:.1}\" fill=\"#444\">red: a stall the capture \
             shows{note}</text></svg>",
            axis_y + 48.0,
            axis_y + 62.0,
        );
        out
    }
}

/// One packet's triangle, with its stall name in red.
fn mark(out: &mut String, p: &TimelinePacket, px: f64, mid: f64) {
    let (c, tip, base) = if p.to_server {
        (colour(0), mid - 16.0, mid - 4.0)
    } else {
        (colour(1), mid + 16.0, mid + 4.0)
    };
    let stall = p.stall.is_some();
    let stroke = if stall { "#D55E00" } else { c };
    let fill = if p.len > 0 { c } else { "none" };
    let dir = if p.to_server { "->" } else { "<-" };
    let _ = write!(
        out,
        "<path d=\"M{l:.1} {base:.1} L{r:.1} {base:.1} L{px:.1} {tip:.1} Z\" fill=\"{fill}\" \
         stroke=\"{stroke}\" stroke-width=\"{w}\" fill-opacity=\"0.85\"><title>{t:.3} ms {dir} \
         [{f}] {n} bytes{s}</title></path>",
        l = px - 4.0,
        r = px + 4.0,
        w = if stall { 2.0 } else { 1.0 },
        t = p.t_ms,
        f = esc(&p.flags),
        n = p.len,
        s = p
            .stall
            .as_deref()
            .map(|s| format!(": {}", esc(s)))
            .unwrap_or_default()
    );
    if let Some(s) = &p.stall {
        let short = match s.as_str() {
            crate::timeline::NAGLE => "Nagle",
            other => other,
        };
        let y = if p.to_server { mid - 19.0 } else { mid + 27.0 };
        let _ = write!(
            out,
            "<text x=\"{:.1}\" y=\"{y:.1}\" text-anchor=\"end\" fill=\"#D55E00\">{} {:.0} ms</text>",
            px - 5.0,
            esc(short),
            p.t_ms
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(t_ms: f64, to_server: bool, len: usize, stall: Option<&str>) -> TimelinePacket {
        TimelinePacket {
            t_ms,
            to_server,
            flags: if len > 0 { "P." } else { "." }.into(),
            len,
            stall: stall.map(str::to_owned),
            after_call: false,
        }
    }

    #[test]
    fn draws_every_packet_and_names_only_the_given_stalls() {
        let svg = Ladder {
            title: "echoFloat <packets>".into(),
            lanes: vec![
                Lane {
                    label: "cured".into(),
                    answered_ms: Some(0.05),
                    packets: vec![p(0.0, true, 300, None), p(0.04, false, 400, None)],
                    note: None,
                },
                Lane {
                    label: "server".into(),
                    answered_ms: Some(41.0),
                    packets: vec![
                        p(0.02, true, 300, None),
                        p(0.1, false, 116, None),
                        p(40.9, true, 0, Some(crate::timeline::DELAYED_ACK)),
                        p(41.0, false, 274, Some(crate::timeline::NAGLE)),
                    ],
                    note: None,
                },
                Lane {
                    label: "no capture".into(),
                    note: Some("capture not permitted".into()),
                    ..Lane::default()
                },
            ],
        }
        .render();
        assert_eq!(svg.matches("<path").count(), 6, "{svg}");
        assert!(svg.contains("echoFloat &lt;packets&gt;"));
        assert!(svg.contains(">delayed ACK 41 ms<") && svg.contains(">Nagle 41 ms<"));
        assert_eq!(svg.matches("fill=\"#D55E00\"").count(), 2);
        assert!(svg.contains("100 ms") && !svg.contains(">1000 ms<"));
        assert!(svg.contains("drawn at 0.01 ms"));
        assert!(svg.contains("capture not permitted"));
    }
}
