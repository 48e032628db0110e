//! Reads the TCP segments of one port out of a classic pcap file (what `tcpdump -w` writes).
//!
//! The lab keeps tcpdump for the capture (it needs privileges soapstone never asks for) but
//! reads the file itself rather than parsing `tcpdump -r`'s text: the text format changes with
//! tcpdump's version and options, while the file format has not changed since 1998, and a
//! reader in Rust lets the timeline tests run from a capture kept in the repository on a
//! machine without tcpdump. It reads only what a timeline needs (time, addresses, ports, flags,
//! payload length) and must never trust a length field: every slice is bounds-checked and a
//! truncated or foreign file is an error naming the offset, never a panic.

use std::fmt;

/// One captured TCP segment to or from the port of interest.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Packet {
    /// Seconds since the epoch.
    pub(crate) time: f64,
    /// From the client to the server (the segment's destination port is the server's).
    pub(crate) to_server: bool,
    /// The TCP flags as tcpdump prints them: `S`, `F`, `P`, `R` then `.` for ACK (`S.`, `P.`).
    pub(crate) flags: String,
    /// Payload bytes.
    pub(crate) len: usize,
    /// The client's port: one connection per client port.
    pub(crate) client_port: u16,
}

/// A pcap file that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PcapError(String);

impl fmt::Display for PcapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PcapError {}

fn err(msg: String) -> PcapError {
    PcapError(msg)
}

/// Link-layer header length of a pcap link type, for the ones a loopback, veth or TUN capture
/// has.
fn link_header(linktype: u32) -> Result<usize, PcapError> {
    Ok(match linktype {
        0 => 4,    // BSD loopback (null)
        1 => 14,   // Ethernet (Linux `lo` and veth)
        101 => 0,  // raw IP (a TUN device: the delay line's LAN)
        113 => 16, // Linux cooked (`-i any`)
        276 => 20, // Linux cooked v2
        other => return Err(err(format!("unsupported pcap link type `{other}`"))),
    })
}

/// The TCP segments to or from `port` in a pcap file's bytes, in capture order.
pub(crate) fn read(bytes: &[u8], port: u16) -> Result<Vec<Packet>, PcapError> {
    let header = bytes.get(..24).ok_or_else(|| {
        err(format!(
            "not a pcap file: {} bytes, the header is 24",
            bytes.len()
        ))
    })?;
    let magic = [header[0], header[1], header[2], header[3]];
    let (little, nanos) = match magic {
        [0xd4, 0xc3, 0xb2, 0xa1] => (true, false),
        [0xa1, 0xb2, 0xc3, 0xd4] => (false, false),
        [0x4d, 0x3c, 0xb2, 0xa1] => (true, true),
        [0xa1, 0xb2, 0x3c, 0x4d] => (false, true),
        _ => {
            return Err(err(format!(
                "not a pcap file: magic `{:02x}{:02x}{:02x}{:02x}` (pcapng is not read)",
                magic[0], magic[1], magic[2], magic[3]
            )))
        }
    };
    let u32_at = |b: &[u8], at: usize| -> u32 {
        let w = [b[at], b[at + 1], b[at + 2], b[at + 3]];
        if little {
            u32::from_le_bytes(w)
        } else {
            u32::from_be_bytes(w)
        }
    };
    let link = link_header(u32_at(header, 20))?;
    let mut out = Vec::new();
    let mut at = 24;
    while at < bytes.len() {
        let rec = bytes
            .get(at..at + 16)
            .ok_or_else(|| err(format!("truncated record header at byte {at}")))?;
        let (secs, frac, caplen) = (u32_at(rec, 0), u32_at(rec, 4), u32_at(rec, 8) as usize);
        let data = bytes
            .get(at + 16..(at + 16).saturating_add(caplen))
            .ok_or_else(|| {
                err(format!(
                    "truncated packet at byte {at}: `{caplen}` bytes announced"
                ))
            })?;
        at += 16 + caplen;
        let time = f64::from(secs) + f64::from(frac) / if nanos { 1e9 } else { 1e6 };
        if let Some(p) = data.get(link..).and_then(|ip| segment(ip, time, port)) {
            out.push(p);
        }
    }
    Ok(out)
}

/// Decodes an IPv4 or IPv6 packet carrying TCP to or from `port`; anything else is `None`.
fn segment(ip: &[u8], time: f64, port: u16) -> Option<Packet> {
    let version = ip.first()? >> 4;
    let (tcp, ip_payload) = match version {
        4 => {
            let ihl = usize::from(ip[0] & 0x0f) * 4;
            let total = usize::from(u16::from_be_bytes([*ip.get(2)?, *ip.get(3)?]));
            if *ip.get(9)? != 6 || ihl < 20 {
                return None;
            }
            (ip.get(ihl..total.min(ip.len()))?, total.checked_sub(ihl)?)
        }
        6 => {
            // No extension headers on a loopback TCP segment: next header must be TCP.
            let payload = usize::from(u16::from_be_bytes([*ip.get(4)?, *ip.get(5)?]));
            if *ip.get(6)? != 6 {
                return None;
            }
            (ip.get(40..(40 + payload).min(ip.len()))?, payload)
        }
        _ => return None,
    };
    let src = u16::from_be_bytes([*tcp.first()?, *tcp.get(1)?]);
    let dst = u16::from_be_bytes([*tcp.get(2)?, *tcp.get(3)?]);
    let offset = usize::from(tcp.get(12)? >> 4) * 4;
    let bits = *tcp.get(13)?;
    let (to_server, client_port) = if dst == port {
        (true, src)
    } else if src == port {
        (false, dst)
    } else {
        return None;
    };
    let mut flags = String::new();
    for (bit, c) in [(0x02, 'S'), (0x01, 'F'), (0x08, 'P'), (0x04, 'R')] {
        if bits & bit != 0 {
            flags.push(c);
        }
    }
    if bits & 0x10 != 0 {
        flags.push('.');
    }
    Some(Packet {
        time,
        to_server,
        flags,
        len: ip_payload.saturating_sub(offset),
        client_port,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pcap file (little-endian, microseconds, Ethernet) of the given IPv4 TCP segments:
    /// (time µs, src port, dst port, flags byte, payload length).
    pub(crate) fn file(segments: &[(u32, u16, u16, u8, usize)]) -> Vec<u8> {
        let mut f = Vec::new();
        f.extend_from_slice(&[0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0]);
        f.extend_from_slice(&[0; 8]);
        f.extend_from_slice(&65535u32.to_le_bytes());
        f.extend_from_slice(&1u32.to_le_bytes());
        for &(us, sport, dport, bits, len) in segments {
            let mut pkt = vec![0u8; 14];
            let total = 20 + 20 + len;
            let mut ip = vec![0x45, 0, (total >> 8) as u8, total as u8, 0, 0, 0, 0, 64, 6];
            ip.resize(20, 0);
            let mut tcp = vec![0u8; 20];
            tcp[..2].copy_from_slice(&sport.to_be_bytes());
            tcp[2..4].copy_from_slice(&dport.to_be_bytes());
            tcp[12] = 5 << 4;
            tcp[13] = bits;
            pkt.extend(ip);
            pkt.extend(tcp);
            pkt.resize(14 + total, b'x');
            f.extend_from_slice(&1_700_000_000u32.to_le_bytes());
            f.extend_from_slice(&us.to_le_bytes());
            f.extend_from_slice(&(pkt.len() as u32).to_le_bytes());
            f.extend_from_slice(&(pkt.len() as u32).to_le_bytes());
            f.extend(pkt);
        }
        f
    }

    #[test]
    fn reads_segments_of_one_port() {
        let f = file(&[
            (0, 40000, 8080, 0x02, 0),
            (10, 8080, 40000, 0x12, 0),
            (20, 40000, 8080, 0x18, 200),
            (30, 5000, 6000, 0x18, 9),
            (40, 8080, 40000, 0x11, 0),
        ]);
        let got = read(&f, 8080).unwrap();
        let summary: Vec<_> = got
            .iter()
            .map(|p| (p.to_server, p.flags.as_str(), p.len, p.client_port))
            .collect();
        assert_eq!(
            summary,
            [
                (true, "S", 0, 40000),
                (false, "S.", 0, 40000),
                (true, "P.", 200, 40000),
                (false, "F.", 0, 40000)
            ]
        );
        assert!((got[2].time - 1_700_000_000.000_02).abs() < 1e-7);
    }

    #[test]
    fn truncated_or_foreign_files_are_errors() {
        let f = file(&[(0, 40000, 8080, 0x18, 100)]);
        let e = read(&f[..f.len() - 10], 8080).unwrap_err();
        assert!(e.to_string().contains("truncated packet at byte 24"), "{e}");
        let e = read(b"\x0a\x0d\x0d\x0a and more bytes than a header", 1).unwrap_err();
        assert!(e.to_string().contains("pcapng"), "{e}");
        assert!(read(b"short", 1).is_err());
    }
}
