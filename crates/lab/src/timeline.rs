//! Per-call packet timelines: the captured segments of each call, with their time since the
//! call started, direction, flags and size, and the stalls the seeds traced named on them
//! (delayed ACK, Nagle, waiting for FIN, a client holding its body).
//!
//! Shared by `soapstone trace` (printed) and the lab's causes section (stored in
//! `results.json`, drawn as a figure). The classification only reads the packets: it must never
//! name a stall from a call's duration alone, and never name one after the call had its answer
//! (a cured call's last ACK is delayed too, with nothing to ride on, and costs the call
//! nothing).

use std::fmt::Write as _;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::pcap::Packet;

/// A gap before a packet at least this long is a stall.
pub(crate) const STALL: Duration = Duration::from_millis(20);

/// The delayed ACK the client's stack held back.
pub(crate) const DELAYED_ACK: &str = "delayed ACK";
/// The server's data Nagle held until that ACK.
pub(crate) const NAGLE: &str = "Nagle: held until that ACK";
/// The client waiting for the server to close.
pub(crate) const FIN_WAIT: &str = "waiting for FIN";
/// The client holding data back (its body, waiting for `100 Continue`).
pub(crate) const CLIENT_HELD: &str = "client held its data";

/// One packet of a call's timeline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TimelinePacket {
    /// Milliseconds since the call started.
    pub t_ms: f64,
    /// From the client to the server.
    pub to_server: bool,
    /// TCP flags as tcpdump prints them (`S`, `S.`, `P.`, `F.`, `.`).
    pub flags: String,
    /// Payload bytes.
    pub len: usize,
    /// The stall this packet ended, if it waited 20 ms or more (or the data Nagle held).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stall: Option<String>,
    /// Sent after the client had its answer: shown, never named.
    #[serde(default)]
    pub after_call: bool,
}

/// One call: how long the client waited, its status, and its packets.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallTimeline {
    /// Milliseconds from sending to having the whole answer, as the client measured.
    pub ms: f64,
    /// The HTTP status, if the call got an answer.
    pub status: Option<u16>,
    /// Why the call failed, if it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The packets between this call's start and the next call's (empty without a capture).
    pub packets: Vec<TimelinePacket>,
}

impl CallTimeline {
    /// Whether the call got a 2xx answer (a fault or an error is not a timed call).
    pub fn answered(&self) -> bool {
        matches!(self.status, Some(200..=299))
    }

    /// The stalls named on this call, in order.
    pub fn stalls(&self) -> Vec<&str> {
        self.packets
            .iter()
            .filter_map(|p| p.stall.as_deref())
            .collect()
    }
}

/// A call as the client saw it: start (seconds since the epoch), duration, outcome.
#[derive(Debug, Clone)]
pub(crate) struct CallTime {
    pub(crate) start: f64,
    pub(crate) took: Duration,
    pub(crate) status: Result<u16, String>,
}

/// Names the stall before `packets[i]`, if it waited at least [`STALL`].
fn stall(packets: &[Packet], i: usize) -> Option<&'static str> {
    let p = packets.get(i)?;
    let prev = packets.get(i.checked_sub(1)?)?;
    if p.time - prev.time < STALL.as_secs_f64() {
        return None;
    }
    Some(if p.flags.contains('F') && p.len == 0 {
        FIN_WAIT
    } else if p.len == 0 && p.flags == "." {
        DELAYED_ACK
    } else if p.to_server && p.len > 0 {
        CLIENT_HELD
    } else {
        "stall"
    })
}

/// A data packet sent right after the peer's delayed ACK: held back by Nagle.
fn nagle(packets: &[Packet], i: usize) -> bool {
    let (Some(p), Some(prev)) = (
        packets.get(i),
        i.checked_sub(1).and_then(|j| packets.get(j)),
    ) else {
        return false;
    };
    p.len > 0 && prev.to_server != p.to_server && stall(packets, i - 1) == Some(DELAYED_ACK)
}

/// Splits `packets` (sorted by time) among `calls` (sorted, sequential) and names the stalls.
pub(crate) fn timelines(calls: &[CallTime], packets: &[Packet]) -> Vec<CallTimeline> {
    calls
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let end = calls.get(i + 1).map_or(f64::INFINITY, |n| n.start);
            let first = packets.partition_point(|p| p.time < c.start);
            let last = packets.partition_point(|p| p.time < end);
            let call = &packets[first..last.max(first)];
            // An answered call read every data segment the server sent in its window, so it
            // ended after the last one, whatever the two clocks say: the capture's stamps and
            // the client's can disagree by tens of µs (seen under load: an answer stamped
            // 80 µs after the client had it).
            let read_until = call
                .iter()
                .filter(|p| c.status.is_ok() && !p.to_server && p.len > 0)
                .map(|p| p.time);
            let done = read_until.fold(c.start + c.took.as_secs_f64(), f64::max);
            let packets = call
                .iter()
                .enumerate()
                .map(|(j, p)| {
                    let after_call = p.time > done;
                    let stall = match stall(call, j) {
                        _ if after_call => None,
                        Some(s) => Some(s),
                        None if nagle(call, j) => Some(NAGLE),
                        None => None,
                    };
                    TimelinePacket {
                        t_ms: (p.time - c.start) * 1e3,
                        to_server: p.to_server,
                        flags: p.flags.clone(),
                        len: p.len,
                        stall: stall.map(str::to_owned),
                        after_call,
                    }
                })
                .collect();
            let (status, error) = match &c.status {
                Ok(s) => (Some(*s), None),
                Err(e) => (None, Some(e.clone())),
            };
            CallTimeline {
                ms: c.took.as_secs_f64() * 1e3,
                status,
                error,
                packets,
            }
        })
        .collect()
}

/// Calls recovered from the packets alone, for a capture whose client gave no call times (a
/// peer's client, a kept pcap): a call starts at the client's SYN, or at a client data
/// segment that follows the server's data on its connection (or opens it); it ends at the
/// server's last data segment before the next call, or at the server's FIN when the client
/// reads to EOF (`ends_at_fin`). A request sent in two parts around an interim answer
/// (`100 Continue`) is counted as two calls: this must only be used where that cannot happen.
pub(crate) fn calls_from_packets(packets: &[Packet], ends_at_fin: bool) -> Vec<CallTime> {
    use std::collections::HashMap;
    let mut starts: Vec<usize> = Vec::new();
    // Per connection: whether its last data went to the server, and whether a call is open.
    let mut conns: HashMap<u16, (Option<bool>, bool)> = HashMap::new();
    for (i, p) in packets.iter().enumerate() {
        let conn = conns.entry(p.client_port).or_insert((None, false));
        if p.to_server && p.flags == "S" {
            *conn = (None, true);
            starts.push(i);
        } else if p.len > 0 {
            if p.to_server && (conn.0 == Some(false) || (conn.0.is_none() && !conn.1)) {
                starts.push(i);
            }
            *conn = (Some(p.to_server), true);
        }
    }
    starts
        .iter()
        .enumerate()
        .map(|(k, &i)| {
            let next = starts.get(k + 1).copied().unwrap_or(packets.len());
            let end = packets[i..next]
                .iter()
                .filter(|p| !p.to_server && (p.len > 0 || (ends_at_fin && p.flags.contains('F'))))
                .map(|p| p.time)
                .fold(packets[i].time, f64::max);
            CallTime {
                start: packets[i].time,
                took: Duration::from_secs_f64(end - packets[i].time),
                status: Ok(200),
            }
        })
        .collect()
}

/// The timelines as text, one block per call (what `soapstone trace` prints).
pub(crate) fn render(calls: &[CallTimeline]) -> String {
    let mut out = String::new();
    for (i, c) in calls.iter().enumerate() {
        let status = match (&c.status, &c.error) {
            (Some(s), _) => s.to_string(),
            (None, Some(e)) => format!("error: {e}"),
            (None, None) => "no answer".to_owned(),
        };
        let _ = writeln!(out, "call {} ({status}): {:.3}ms", i + 1, c.ms);
        for p in &c.packets {
            let dir = if p.to_server { "->" } else { "<-" };
            let why = match &p.stall {
                _ if p.after_call => "  (after the call)".to_owned(),
                Some(s) => format!("  <- {s}"),
                None => String::new(),
            };
            let _ = writeln!(
                out,
                "  {:>10.3} ms {dir} [{:<3}] {:>6}{why}",
                p.t_ms, p.flags, p.len
            );
        }
    }
    out
}

/// The call whose duration is the median of `calls` (the one a figure shows), if any.
pub(crate) fn median_call(calls: &[CallTimeline]) -> Option<&CallTimeline> {
    let mut ok: Vec<&CallTimeline> = calls.iter().filter(|c| c.answered()).collect();
    ok.sort_by(|a, b| a.ms.total_cmp(&b.ms));
    ok.get(ok.len() / 2).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(time: f64, to_server: bool, flags: &str, len: usize) -> Packet {
        Packet {
            time,
            to_server,
            flags: flags.into(),
            len,
            client_port: 40000,
        }
    }

    fn named(calls: &[CallTimeline]) -> Vec<Vec<&str>> {
        calls.iter().map(CallTimeline::stalls).collect()
    }

    #[test]
    fn names_the_thesis_stalls() {
        // Request, head, 40 ms delayed ACK, body held by Nagle until it, then a late FIN.
        let packets = [
            p(0.0, true, "P.", 200),
            p(0.0001, false, "P.", 116),
            p(0.0401, true, ".", 0),
            p(0.0402, false, "P.", 381),
            p(0.0402, true, ".", 0),
            p(0.2, false, "F.", 0),
        ];
        let call = |ms| CallTime {
            start: 0.0,
            took: Duration::from_millis(ms),
            status: Ok(200),
        };
        // Ended at 45 ms: the late FIN is after the call, not its stall.
        let t = timelines(&[call(45)], &packets);
        assert_eq!(named(&t), [vec![DELAYED_ACK, NAGLE]]);
        assert!(t[0].packets[5].after_call);
        let text = render(&t);
        assert!(text.contains("<- delayed ACK") && text.contains("(after the call)"));
        // A client reading to EOF had its answer only at the FIN: now it is named.
        let t = timelines(&[call(200)], &packets);
        assert_eq!(named(&t), [vec![DELAYED_ACK, NAGLE, FIN_WAIT]]);
    }

    #[test]
    fn an_answer_stamped_after_the_clients_end_is_still_inside_the_call() {
        // The capture's clock a little ahead of the client's: the answer appears 80 µs after
        // the call ended; the client's ACK of it, after that, is after the call.
        let packets = [
            p(0.0004, true, "P.", 342),
            p(0.00227, false, "P.", 390),
            p(0.00228, true, ".", 0),
        ];
        let call = CallTime {
            start: 0.0,
            took: Duration::from_micros(2184),
            status: Ok(200),
        };
        let t = timelines(&[call], &packets);
        let after: Vec<bool> = t[0].packets.iter().map(|p| p.after_call).collect();
        assert_eq!(after, [false, false, true]);
        // A failed call did not read its answer: its window is what the client measured.
        let failed = CallTime {
            start: 0.0,
            took: Duration::from_micros(2184),
            status: Err("timed out".into()),
        };
        let t = timelines(&[failed], &packets);
        assert!(t[0].packets[1].after_call);
    }

    #[test]
    fn a_held_body_is_the_clients_stall_and_calls_split_at_their_starts() {
        let packets = [
            p(0.0, true, "P.", 150),
            p(0.0001, false, ".", 0),
            p(0.35, true, "P.", 200),
            p(0.3502, false, "P.", 300),
            p(1.0, true, "P.", 350),
            p(1.0001, false, "P.", 300),
        ];
        let calls = [
            CallTime {
                start: 0.0,
                took: Duration::from_millis(351),
                status: Ok(200),
            },
            CallTime {
                start: 1.0,
                took: Duration::from_millis(1),
                status: Err("timed out".into()),
            },
        ];
        let t = timelines(&calls, &packets);
        assert_eq!(named(&t), [vec![CLIENT_HELD], vec![]]);
        assert_eq!(t[0].packets.len(), 4);
        assert_eq!(t[1].packets.len(), 2);
        assert!(t[1].packets[0].t_ms.abs() < 1e-6);
        assert_eq!(t[1].error.as_deref(), Some("timed out"));
        assert_eq!(median_call(&t).map(|c| c.ms.round()), Some(351.0));
    }

    /// `testdata/naive-all-echo.pcap`: three echoFloat calls on one keep-alive connection to
    /// `soapstone serve --naive all` (see `testdata/README.md`).
    #[test]
    fn a_kept_capture_of_the_naive_server_shows_the_stall_after_quick_ack_mode() {
        let bytes = include_bytes!("../testdata/naive-all-echo.pcap");
        let packets = crate::pcap::read(bytes, 18089).unwrap();
        let calls = calls_from_packets(&packets, false);
        assert_eq!(calls.len(), 3);
        let t = timelines(&calls, &packets);
        // The first call, on a new connection, is still in quick-ACK mode: no stall.
        assert_eq!(
            named(&t),
            [vec![], vec![DELAYED_ACK, NAGLE], vec![DELAYED_ACK, NAGLE]]
        );
        for c in &t[1..] {
            // The thesis's packets 4-8: request, head alone, the ACK ~40 ms late, the body.
            let shape: Vec<_> = c.packets.iter().map(|p| (p.to_server, p.len > 0)).collect();
            assert_eq!(
                shape[..4],
                [(true, true), (false, true), (true, false), (false, true)]
            );
            assert!(
                c.packets[2].t_ms > 35.0 && c.packets[2].t_ms < 250.0,
                "{c:?}"
            );
            assert!(c.ms > 35.0, "{c:?}");
        }
        assert!(t[0].ms < 20.0, "{:?}", t[0]);
    }

    /// `testdata/read-to-eof-echo.pcap`: two calls of a client reading to EOF against the same
    /// server: a connection each, the answer in two writes, the call ending at the server's FIN.
    #[test]
    fn a_kept_capture_of_a_read_to_eof_client_ends_each_call_at_the_fin() {
        let bytes = include_bytes!("../testdata/read-to-eof-echo.pcap");
        let packets = crate::pcap::read(bytes, 18089).unwrap();
        let calls = calls_from_packets(&packets, true);
        assert_eq!(calls.len(), 2);
        for c in timelines(&calls, &packets) {
            let from_server: Vec<_> = c
                .packets
                .iter()
                .filter(|p| !p.to_server && (p.len > 0 || p.flags.contains('F')))
                .map(|p| (p.flags.as_str(), p.len > 0))
                .collect();
            // Two writes (head, body), then the FIN the client waited for.
            assert_eq!(from_server, [("P.", true), ("P.", true), ("F.", false)]);
            let fin = c
                .packets
                .iter()
                .position(|p| !p.to_server && p.flags == "F.")
                .unwrap();
            assert!(!c.packets[fin].after_call, "{c:?}");
            assert_eq!(c.packets[0].flags, "S");
        }
    }
}
