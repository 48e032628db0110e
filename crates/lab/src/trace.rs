//! `soapstone trace URL`: the packets of a few calls to any SOAP endpoint, as per-call
//! timelines, with the stalls named (delayed ACK, Nagle, waiting for FIN).
//!
//! It drives `tcpdump` (writing a pcap file that is kept as evidence, then reading it back as
//! text) rather than linking libpcap: the capture needs privileges the rest of soapstone never
//! asks for. Where capture is not permitted it says so and stops; it must never make more calls
//! than asked, nor leave a tcpdump running.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{bail, Context as _};
use bytes::Bytes;
use soapstone_client::{Client, ClientConfig, NaiveModes};
use soapstone_codec::Version;
use tokio::io::AsyncReadExt as _;

/// A gap before a packet at least this long is a stall.
const STALL: Duration = Duration::from_millis(20);

const ECHO_FLOAT: &str = "<soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\" xmlns:t=\"http://tempuri.org/\"><soap:Body><t:echoFloat><t:input>3.14159</t:input></t:echoFloat></soap:Body></soap:Envelope>";

/// The arguments of `soapstone trace`.
#[derive(Debug, Clone, clap::Args)]
#[non_exhaustive]
pub struct TraceArgs {
    /// The endpoint, `http://host:port/path`.
    pub url: String,
    /// Sequential calls to make (at most 1000).
    #[arg(long, default_value_t = 5)]
    pub calls: usize,
    /// The envelope to post (default: an echoFloat request).
    #[arg(long)]
    pub body: Option<PathBuf>,
    /// The SOAPAction.
    #[arg(long, default_value = "http://tempuri.org/echoFloat")]
    pub action: String,
    /// The interface to capture on.
    #[arg(long, default_value = "lo")]
    pub interface: String,
    /// Where the capture is kept.
    #[arg(long, default_value = "logs/trace.pcap")]
    pub pcap: PathBuf,
    /// Lab only, hidden: the client's causes on purpose (`read-to-eof`,
    /// `connection-per-call`, `expect-continue`, `all`).
    #[arg(long, hide = true, value_name = "CAUSES")]
    pub naive: Option<String>,
}

/// One captured packet.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Packet {
    /// Seconds since the epoch.
    pub(crate) time: f64,
    /// From the client to the server.
    pub(crate) to_server: bool,
    /// tcpdump's flags, e.g. `P.` or `F.`.
    pub(crate) flags: String,
    /// Payload bytes.
    pub(crate) len: usize,
}

/// Parses one line of `tcpdump -n -tt -r`, keeping packets to or from `port`.
pub(crate) fn parse_line(line: &str, port: u16) -> Option<Packet> {
    let (time, rest) = line.split_once(' ')?;
    let time: f64 = time.parse().ok()?;
    let rest = rest
        .strip_prefix("IP ")
        .or_else(|| rest.strip_prefix("IP6 "))?;
    let (src, rest) = rest.split_once(" > ")?;
    let (dst, rest) = rest.split_once(": ")?;
    let port_of = |a: &str| a.rsplit_once('.').and_then(|(_, p)| p.parse::<u16>().ok());
    let to_server = match (port_of(src)?, port_of(dst)?) {
        (_, d) if d == port => true,
        (s, _) if s == port => false,
        _ => return None,
    };
    let flags = rest.strip_prefix("Flags [")?.split_once(']')?.0.to_owned();
    let len = rest
        .rsplit_once("length ")
        .and_then(|(_, n)| n.trim().parse().ok())
        .unwrap_or(0);
    Some(Packet {
        time,
        to_server,
        flags,
        len,
    })
}

/// Names the stall before `packets[i]`, if it waited at least [`STALL`].
pub(crate) fn stall(packets: &[Packet], i: usize) -> Option<&'static str> {
    let p = packets.get(i)?;
    let prev = packets.get(i.checked_sub(1)?)?;
    if p.time - prev.time < STALL.as_secs_f64() {
        return None;
    }
    let pure_ack = p.len == 0 && p.flags == ".";
    Some(if p.flags.contains('F') && p.len == 0 {
        "waiting for FIN"
    } else if pure_ack {
        "delayed ACK"
    } else {
        "stall"
    })
}

/// Names a data packet sent right after the peer's delayed ACK: held back by Nagle.
fn nagle(packets: &[Packet], i: usize) -> bool {
    let (Some(p), Some(prev)) = (
        packets.get(i),
        i.checked_sub(1).and_then(|j| packets.get(j)),
    ) else {
        return false;
    };
    p.len > 0 && prev.to_server != p.to_server && stall(packets, i - 1) == Some("delayed ACK")
}

/// Runs `soapstone trace`.
pub async fn run_trace(args: TraceArgs) -> anyhow::Result<()> {
    if args.calls == 0 || args.calls > 1000 {
        bail!("`--calls` must be 1..=1000, got `{}`", args.calls);
    }
    let mut config = ClientConfig::default();
    if let Some(list) = &args.naive {
        config.naive =
            NaiveModes::parse(list).map_err(|e| anyhow::anyhow!("bad `--naive` value: {e}"))?;
    }
    let client = Client::with_config(&args.url, config)?;
    let uri: http::Uri = args.url.parse()?;
    let port = uri.port_u16().unwrap_or(80);
    let body = match &args.body {
        Some(p) => {
            Bytes::from(std::fs::read(p).with_context(|| format!("reading `{}`", p.display()))?)
        }
        None => Bytes::from_static(ECHO_FLOAT.as_bytes()),
    };
    if let Some(dir) = args.pcap.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let mut dump = tokio::process::Command::new("tcpdump")
        .args(["-i", &args.interface, "-n", "-U", "--immediate-mode", "-w"])
        .arg(&args.pcap)
        .args(["tcp", "port", &port.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .context("cannot run `tcpdump` (install it: apt-get install tcpdump)")?;
    let mut err = dump.stderr.take().context("tcpdump stderr")?;
    let mut said = Vec::new();
    let listening = tokio::time::timeout(Duration::from_secs(10), async {
        let mut b = [0u8; 512];
        while !String::from_utf8_lossy(&said).contains("listening on") {
            let n = err.read(&mut b).await?;
            if n == 0 {
                return Ok(false);
            }
            said.extend_from_slice(&b[..n]);
        }
        std::io::Result::Ok(true)
    })
    .await;
    if !matches!(listening, Ok(Ok(true))) {
        let _ = dump.kill().await;
        bail!(
            "packet capture not permitted or failed on `{}`: {}",
            args.interface,
            String::from_utf8_lossy(&said).trim()
        );
    }
    let mut starts = Vec::new();
    for _ in 0..args.calls {
        let epoch = SystemTime::now().duration_since(UNIX_EPOCH)?.as_secs_f64();
        let t = Instant::now();
        let r = client
            .call_raw(Version::Soap11, Some(&args.action), body.clone())
            .await;
        starts.push((epoch, t.elapsed(), r.map(|r| r.status)));
    }
    // Let the last packets (a FIN, a late ACK) reach the capture (delivered at once:
    // `--immediate-mode`), then stop it cleanly.
    tokio::time::sleep(Duration::from_millis(300)).await;
    if let Some(pid) = dump.id() {
        let _ = Command::new("kill")
            .args(["-INT", &pid.to_string()])
            .status();
    }
    let _ = tokio::time::timeout(Duration::from_secs(5), dump.wait()).await;
    let _ = dump.kill().await;
    let text = Command::new("tcpdump")
        .args(["-n", "-tt", "-r"])
        .arg(&args.pcap)
        .stderr(Stdio::null())
        .output()
        .context("cannot read the capture back with `tcpdump -r`")?;
    let packets: Vec<Packet> = String::from_utf8_lossy(&text.stdout)
        .lines()
        .filter_map(|l| parse_line(l, port))
        .collect();
    print!("{}", render(&starts, &packets));
    let naive = args
        .naive
        .as_ref()
        .map_or(String::new(), |n| format!(" --naive {n}"));
    println!(
        "capture: {} (reproduce: soapstone trace {} --calls {}{naive} --pcap {})",
        args.pcap.display(),
        args.url,
        args.calls,
        args.pcap.display()
    );
    Ok(())
}

type Call = (f64, Duration, Result<u16, soapstone_client::Error>);

/// The per-call timelines: each packet's time since the call started, direction, flags,
/// size, and the stall it ended, if any.
fn render(calls: &[Call], packets: &[Packet]) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    for (i, (start, took, status)) in calls.iter().enumerate() {
        let end = calls.get(i + 1).map_or(f64::INFINITY, |c| c.0);
        let status = match status {
            Ok(s) => s.to_string(),
            Err(e) => format!("error: {e}"),
        };
        let _ = writeln!(out, "call {} ({status}): {took:.3?}", i + 1);
        let first = packets.partition_point(|p| p.time < *start);
        let last = packets.partition_point(|p| p.time < end);
        let call = &packets[first..last];
        for (j, p) in call.iter().enumerate() {
            let dir = if p.to_server { "->" } else { "<-" };
            // A stall after the answer was read (the last ACK, delayed with nothing to ride
            // on) cost the call nothing: shown, not named.
            let why = match stall(call, j) {
                _ if p.time > start + took.as_secs_f64() => "  (after the call)".to_owned(),
                Some(s) => format!("  <- {s}"),
                None if nagle(call, j) => "  <- Nagle: held until that ACK".to_owned(),
                None => String::new(),
            };
            let _ = writeln!(
                out,
                "  {:>10.3} ms {dir} [{:<3}] {:>6}{why}",
                (p.time - start) * 1e3,
                p.flags,
                p.len
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const PORT: u16 = 8080;

    fn p(time: f64, to_server: bool, flags: &str, len: usize) -> Packet {
        Packet {
            time,
            to_server,
            flags: flags.into(),
            len,
        }
    }

    #[test]
    fn parses_tcpdump_lines() {
        let l = "1700000000.123456 IP 127.0.0.1.45678 > 127.0.0.1.8080: Flags [P.], seq 1:200, ack 1, win 512, options [nop,nop,TS val 1 ecr 2], length 199";
        assert_eq!(
            parse_line(l, PORT),
            Some(p(1700000000.123456, true, "P.", 199))
        );
        let l = "1700000000.2 IP 127.0.0.1.8080 > 127.0.0.1.45678: Flags [.], ack 200, win 512, length 0";
        assert_eq!(parse_line(l, PORT), Some(p(1700000000.2, false, ".", 0)));
        assert_eq!(parse_line("reading from file x.pcap", PORT), None);
        let other = "1.0 IP 127.0.0.1.1 > 127.0.0.1.2: Flags [.], length 0";
        assert_eq!(parse_line(other, PORT), None);
    }

    #[test]
    fn names_the_thesis_stalls() {
        // Request, head, 40 ms delayed ACK, body held by Nagle until it, then a late FIN.
        let call = [
            p(0.0, true, "P.", 200),
            p(0.0001, false, "P.", 116),
            p(0.0401, true, ".", 0),
            p(0.0402, false, "P.", 381),
            p(0.0402, true, ".", 0),
            p(0.1, false, "F.", 0),
        ];
        let named: Vec<_> = (0..call.len()).map(|i| stall(&call, i)).collect();
        assert_eq!(
            named,
            [
                None,
                None,
                Some("delayed ACK"),
                None,
                None,
                Some("waiting for FIN")
            ]
        );
        assert!(nagle(&call, 3));
        assert!(!nagle(&call, 1));
        let calls = [(0.0, Duration::from_millis(45), Ok(200))];
        let text = render(&calls, &call);
        assert!(
            text.contains("<- delayed ACK") && text.contains("Nagle"),
            "{text}"
        );
        // Ended at 45 ms: the late FIN is after the call, not its stall.
        assert!(text.contains("(after the call)"), "{text}");
        assert!(!text.contains("waiting for FIN"), "{text}");
    }
}
