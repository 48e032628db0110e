//! The emulated LAN's helpers that run things: the `soapstone lab-delayline` child process
//! ([`crate::delayline`]) seen from the lab, and the round trip measured across the link once
//! it exists (so the report says what the link did, not only what it was asked to do).
//!
//! The child must never outlive its [`crate::netem::Lan`]: [`LineProcess`] kills and reaps it
//! when dropped, and it removes the namespaces itself when its stdin closes (the lab died). The
//! probe must never hang the lab: every accept, connect and read has a deadline.

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::process::CommandExt as _;
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use nix::sched::{setns, CloneFlags};

use crate::delayline::{LineStats, FRAMING_BYTES};
use crate::netem::{LanSpec, SERVER_IP};

/// A running `soapstone lab-delayline`: killed and reaped when dropped.
#[derive(Debug)]
pub(crate) struct LineProcess {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    realtime: bool,
}

impl LineProcess {
    /// Starts the delay line between `netns` (server's, client's) with `tuns` (server's,
    /// client's) shaped by `spec`, or, with no `tuns`, only the janitor that removes the
    /// namespaces if the lab dies. Returns once it said `ready`. The delay line runs at
    /// real-time priority (`chrt -f 50`) where permitted, so that a busy machine does not make
    /// its packets late; [`LineProcess::realtime`] says whether it does.
    pub(crate) fn spawn(
        exe: &Path,
        netns: [&str; 2],
        tuns: Option<[&str; 2]>,
        spec: &LanSpec,
    ) -> Result<LineProcess, String> {
        let mut args: Vec<String> = vec![
            "lab-delayline".into(),
            "--server-netns".into(),
            netns[0].into(),
            "--client-netns".into(),
            netns[1].into(),
        ];
        if let Some([s, c]) = tuns {
            args.extend([
                "--server-tun".into(),
                s.into(),
                "--client-tun".into(),
                c.into(),
                format!("--rate-mbit={}", spec.rate_mbit),
                format!("--delay-us={}", spec.delay_us),
            ]);
            let mut rt = vec!["-f".to_owned(), "50".to_owned(), exe.display().to_string()];
            rt.extend(args.iter().cloned());
            if let Ok(line) = Self::start(Path::new("chrt"), &rt, true) {
                return Ok(line);
            }
        }
        Self::start(exe, &args, false)
    }

    fn start(program: &Path, args: &[String], realtime: bool) -> Result<LineProcess, String> {
        let mut cmd = Command::new(program);
        // Its own process group: a Ctrl-C to the lab's terminal ends the lab, whose exit closes
        // this child's stdin, which then removes the namespaces (it would die first otherwise).
        cmd.args(args)
            .process_group(0)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(if realtime {
                Stdio::null() // a refused `chrt` is retried without it
            } else {
                Stdio::inherit()
            });
        let mut child = cmd
            .spawn()
            .map_err(|e| format!("cannot start `{} lab-delayline`: {e}", program.display()))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err("the delay line's pipes were not made".to_owned());
        };
        let mut line = LineProcess {
            child,
            stdin,
            stdout: BufReader::new(stdout),
            realtime,
        };
        match line.reply()? {
            r if r == "ready" => Ok(line),
            r => Err(format!("the delay line said `{r}` instead of `ready`")),
        }
    }

    /// Whether it runs at real-time priority (`SCHED_FIFO` 50).
    pub(crate) fn realtime(&self) -> bool {
        self.realtime
    }

    fn reply(&mut self) -> Result<String, String> {
        let mut s = String::new();
        match self.stdout.read_line(&mut s) {
            Ok(0) => {
                let status = self.child.wait().map(|s| s.to_string()).unwrap_or_default();
                Err(format!(
                    "the delay line exited ({status}; its error is on stderr above)"
                ))
            }
            Ok(_) => Ok(s.trim().to_owned()),
            Err(e) => Err(format!("cannot read the delay line's answer: {e}")),
        }
    }

    /// Sends one command line and returns its answer (an `error ...` answer is an error).
    pub(crate) fn command(&mut self, cmd: &str) -> Result<String, String> {
        writeln!(self.stdin, "{cmd}")
            .and_then(|()| self.stdin.flush())
            .map_err(|e| format!("cannot talk to the delay line: {e}"))?;
        let r = self.reply()?;
        match r.strip_prefix("error ") {
            Some(why) => Err(format!("the delay line refused `{cmd}`: {why}")),
            None => Ok(r),
        }
    }

    /// The packets forwarded and dropped, and how late the writes were.
    pub(crate) fn stats(&mut self) -> Result<LineStats, String> {
        let r = self.command("stats")?;
        let json = r.strip_prefix("stats ").unwrap_or(&r);
        serde_json::from_str(json).map_err(|e| format!("unreadable stats `{r}`: {e}"))
    }

    /// Its process id.
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for LineProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The round trip across the link, measured from the client's namespace.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RoundTrip {
    /// Median time of a TCP `connect` (SYN out, SYN/ACK back: one round trip), µs.
    pub connect_us: f64,
    /// Median time of a 1-byte write answered by a 1-byte echo on a kept connection (Nagle off
    /// both ends), µs.
    pub echo_us: f64,
}

/// What the link model alone gives a 1-byte TCP echo: two 53-byte IP packets (20 IP, 32 TCP with
/// timestamps, 1 data), each serialized with its framing and delayed, µs.
pub(crate) fn modelled_echo_us(spec: &LanSpec) -> f64 {
    let bits = ((53 + FRAMING_BYTES) * 8) as f64;
    2.0 * (f64::from(spec.delay_us) + bits / f64::from(spec.rate_mbit))
}

const PROBES: usize = 21;
const DEADLINE: Duration = Duration::from_secs(10);

/// Enters network namespace `ns` (this thread only).
fn enter(ns: &str) -> Result<(), String> {
    let f = File::open(format!("/var/run/netns/{ns}"))
        .map_err(|e| format!("no network namespace `{ns}`: {e}"))?;
    setns(&f, CloneFlags::CLONE_NEWNET).map_err(|e| format!("cannot enter `{ns}`: {e}"))
}

fn median_us(mut v: Vec<Duration>) -> f64 {
    v.sort();
    v[v.len() / 2].as_secs_f64() * 1e6
}

fn serve_echo(ns: &str, addr: std::sync::mpsc::Sender<std::net::SocketAddr>) -> Result<(), String> {
    enter(ns)?;
    let l = TcpListener::bind((SERVER_IP, 0)).map_err(|e| format!("probe bind: {e}"))?;
    let _ = addr.send(l.local_addr().map_err(|e| e.to_string())?);
    l.set_nonblocking(true).map_err(|e| e.to_string())?;
    let deadline = Instant::now() + DEADLINE;
    let mut served = 0;
    while served <= PROBES && Instant::now() < deadline {
        match l.accept() {
            Ok((mut c, _)) => {
                served += 1;
                let _ = c.set_nonblocking(false);
                let _ = c.set_nodelay(true);
                let _ = c.set_read_timeout(Some(DEADLINE));
                let mut b = [0u8; 1];
                while matches!(c.read(&mut b), Ok(1)) {
                    if c.write_all(&b).is_err() {
                        break;
                    }
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_millis(1));
            }
            Err(e) => return Err(format!("probe accept: {e}")),
        }
    }
    Ok(())
}

fn call(
    ns: &str,
    addr: std::sync::mpsc::Receiver<std::net::SocketAddr>,
) -> Result<RoundTrip, String> {
    enter(ns)?;
    let addr = addr
        .recv_timeout(DEADLINE)
        .map_err(|_| "the probe's listener never started".to_owned())?;
    let io = |e: std::io::Error| format!("probe to `{addr}`: {e}");
    let mut connects = Vec::with_capacity(PROBES);
    for _ in 0..PROBES {
        let t = Instant::now();
        let c = TcpStream::connect_timeout(&addr, DEADLINE).map_err(io)?;
        connects.push(t.elapsed());
        drop(c);
        // Let the closing FINs cross before the next SYN, which would queue behind them on a
        // slow link and measure the wire's backlog instead of its round trip.
        std::thread::sleep(Duration::from_millis(3));
    }
    let mut c = TcpStream::connect_timeout(&addr, DEADLINE).map_err(io)?;
    c.set_nodelay(true).map_err(io)?;
    c.set_read_timeout(Some(DEADLINE)).map_err(io)?;
    let mut echoes = Vec::with_capacity(PROBES);
    let mut b = [7u8; 1];
    for _ in 0..PROBES {
        let t = Instant::now();
        c.write_all(&b).map_err(io)?;
        c.read_exact(&mut b).map_err(io)?;
        echoes.push(t.elapsed());
    }
    Ok(RoundTrip {
        connect_us: median_us(connects),
        echo_us: median_us(echoes),
    })
}

/// Measures [`RoundTrip`] from `client_ns` to a listener in `server_ns`, each on a thread of
/// its own that enters its namespace (the lab's other threads stay where they are).
pub(crate) fn round_trip(server_ns: &str, client_ns: &str) -> Result<RoundTrip, String> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::scope(|s| {
        let server = s.spawn(move || serve_echo(server_ns, tx));
        let client = s.spawn(move || call(client_ns, rx));
        let measured = client.join().map_err(|_| "the probe panicked".to_owned())?;
        server
            .join()
            .map_err(|_| "the probe's server panicked".to_owned())??;
        measured
    })
}
