//! Sequential echoFloat round trips over one keep-alive connection on loopback, side by side
//! with a plain TCP ping-pong of the same request and response sizes (the floor), in one run.
//!
//! ```text
//! cargo run --release -p soapstone-server --example pingpong            # 20000 calls per row
//! cargo run --release -p soapstone-server --example pingpong -- 50000   # more
//! PINGPONG_RUNTIME=multi PINGPONG_REPEAT=5 cargo run ...   # server runtime flavour, repeats
//! ```
//!
//! The request is Sam Ruby's (seeds/002, 2001), answered in the shape of his printed response.
//! Server and client run in separate processes (this example re-executes itself), each pinned
//! with `taskset`: both on CPU 0, then on CPUs 0 and 1. A cross-CPU wakeup on a small VM costs
//! tens of microseconds each way, so the same-CPU ratio is the one that shows our overhead.
//! Rows: `tcp floor` (blocking TCP client and server, the same bytes); `server, canned answer`
//! (the soapstone server answering with precomputed bytes: HTTP and dispatch without the
//! codec); `soap, raw client` (the soapstone server with the codec; a blocking client writing
//! the captured HTTP request and reading by Content-Length: the server's own cost);
//! `soap, soapstone Client` (adds the client's cost); `soap over tls, Client` (the same over
//! TLS 1.3, a certificate made at start, verified for `localhost`). `srv cpu`/`cli cpu` are on-CPU
//! microseconds per call of each process (from `/proc/PID/task/*/schedstat`), which other
//! load on the machine disturbs less than the wall-clock columns.
//!
//! Measured 2026-11-22 on the 2-core VM while other builds ran (load average ~5), 20000
//! calls, best of 5, server runtime `current`:
//!
//! ```text
//! same CPU (0,0)             mean us   p50 us  srv cpu  cli cpu  x floor x fl p50
//!   tcp floor                  14.09    13.35     6.96     7.09     1.00     1.00
//!   server, canned answer      19.17    18.11    10.37     8.70     1.36     1.36
//!   soap, raw client           21.95    20.53    12.68     8.96     1.56     1.54
//!   soap, soapstone Client     28.14    26.37    14.25    14.03     2.00     1.98
//! cross CPU (srv 0, cli 1)
//!   tcp floor                  83.86    38.51    27.36    27.53     1.00     1.00
//!   soap, raw client          145.88    61.36    40.73    29.44     1.74     1.59
//!   soap, soapstone Client    137.05    59.14    44.20    35.64     1.63     1.54
//! ```
//!
//! TLS, measured 2026-11-23 (20000 calls, best of 5, load average ~2): over TLS 1.3 the
//! soapstone Client's round trip is 1.09x the plain one on one CPU (mean 23.03 vs 21.15 us,
//! p50 22.58 vs 20.75; server CPU 11.56 vs 10.73 us per call) and 1.03x across CPUs (68.25 vs
//! 66.27 us).

use std::future::IntoFuture;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use serde::{Deserialize, Serialize};
use soapstone_codec::{EncodeOptions, Envelope, Fault, Limits, QName, SchemaNs, Style, Version};
use soapstone_server::{Runtime, Server, ServerConfig};
use soapstone_service::{BoxFuture, SoapRequest, SoapResponse, SoapService};

/// Sam Ruby's request, the mail archive's line wrap inside `xmlns:xsi` undone.
const REQUEST: &str = r#"<?xml version="1.0"?>
<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:soapenc="http://schemas.xmlsoap.org/soap/encoding/" xmlns:xsi="http://www.w3.org/1999/XMLSchema-instance" xmlns:xsd="http://www.w3.org/1999/XMLSchema">
<soap:Body>
<echoFloat xmlns="http://tempuri.org/">
<input xsi:type="xsd:float">3.14159</input>
</echoFloat>
</soap:Body>
</soap:Envelope>"#;

const ACTION: &str = "http://tempuri.org/echoFloat";

fn main() -> io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("serve-soap") => serve_soap(args.get(2).map_or("current", String::as_str), None),
        Some("serve-soap-tls") => serve_soap(&args[2], Some(&args[3])),
        Some("serve-tcp") => serve_tcp(arg(&args, 2), arg(&args, 3)),
        Some("client") => client(
            &args[2],
            &args[3],
            arg(&args, 4),
            arg(&args, 5),
            arg(&args, 6),
        ),
        n => orchestrate(n.and_then(|n| n.parse().ok()).unwrap_or(20_000)),
    }
}

fn arg(args: &[String], i: usize) -> usize {
    args[i].parse().expect("a number")
}

// ---- the service ------------------------------------------------------------------------

#[derive(Deserialize)]
struct EchoFloat {
    input: f32,
}

#[derive(Serialize)]
struct EchoFloatResult {
    result: f32,
}

struct Echo {
    wrapper: QName,
    options: EncodeOptions,
    limits: Limits,
}

impl Echo {
    fn new() -> Self {
        let mut options = EncodeOptions::default();
        options.schema_ns = SchemaNs::Xsd1999;
        options.qualified = true;
        Echo {
            wrapper: QName::new("http://tempuri.org/", "echoFloatResult"),
            options,
            limits: Limits::default(),
        }
    }

    fn answer(&self, req: &SoapRequest) -> Result<Vec<u8>, Box<Fault>> {
        let env =
            Envelope::parse(&req.body, &self.limits).map_err(|e| Box::new(Fault::from(&e)))?;
        let input: EchoFloat = env
            .body(Style::Encoded)
            .map_err(|e| Box::new(Fault::from(&e)))?;
        let mut out = Vec::with_capacity(512);
        let value = EchoFloatResult {
            result: input.input,
        };
        soapstone_codec::encode(&mut out, &self.options, &[], &self.wrapper, &value)
            .map_err(|e| Box::new(Fault::server(e.to_string())))?;
        Ok(out)
    }
}

/// The same answer, precomputed: what the server costs without the codec.
struct Canned(Bytes);

impl SoapService for Canned {
    fn name(&self) -> &str {
        "Canned"
    }
    fn document(&self, _: &str, _: &str) -> Option<String> {
        None
    }
    fn call(&self, req: SoapRequest) -> BoxFuture<SoapResponse> {
        let resp = SoapResponse::new(req.version, false, Some("echoFloat"), self.0.clone());
        Box::pin(std::future::ready(resp))
    }
}

impl SoapService for Echo {
    fn name(&self) -> &str {
        "Echo"
    }
    fn document(&self, _: &str, _: &str) -> Option<String> {
        None
    }
    fn call(&self, req: SoapRequest) -> BoxFuture<SoapResponse> {
        let resp = match self.answer(&req) {
            Ok(body) => SoapResponse::new(req.version, false, Some("echoFloat"), Bytes::from(body)),
            Err(fault) => {
                let mut out = Vec::new();
                soapstone_codec::encode_fault(&mut out, req.version, &fault);
                SoapResponse::new(req.version, true, None, Bytes::from(out))
            }
        };
        Box::pin(std::future::ready(resp))
    }
}

// ---- server modes -----------------------------------------------------------------------

/// A CA and a certificate for `localhost` it signed: writes the CA to `ca_path`, returns the
/// server's TLS settings.
fn test_tls(ca_path: &str) -> io::Result<soapstone_server::Tls> {
    use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};
    let err = |e: rcgen::Error| io::Error::other(e.to_string());
    let mut ca = CertificateParams::new(Vec::<String>::new()).map_err(err)?;
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca = CertifiedIssuer::self_signed(ca, KeyPair::generate().map_err(err)?).map_err(err)?;
    let key = KeyPair::generate().map_err(err)?;
    let leaf = CertificateParams::new(vec!["localhost".to_owned()])
        .map_err(err)?
        .signed_by(&key, &ca)
        .map_err(err)?;
    std::fs::write(ca_path, ca.pem())?;
    soapstone_server::Tls::from_pem(leaf.pem().as_bytes(), key.serialize_pem().as_bytes())
}

fn serve_soap(runtime: &str, tls_ca_path: Option<&str>) -> io::Result<()> {
    let request = SoapRequest::new(
        Version::Soap11,
        None,
        Bytes::from_static(REQUEST.as_bytes()),
    );
    let canned = Canned(Bytes::from(
        Echo::new()
            .answer(&request)
            .map_err(|f| io::Error::other(f.reason))?,
    ));
    let mut config = ServerConfig::default();
    // `current` (default): the server's own current_thread runtime; `percore`: one per CPU;
    // `multi`: tasks on a multi-thread runtime (tokio's default flavour).
    config.runtime = match runtime {
        "multi" => Runtime::Ambient,
        "percore" => Runtime::PerCore(0),
        _ => Runtime::CurrentThread,
    };
    config.tls = tls_ca_path.map(test_tls).transpose()?;
    let listener = TcpListener::bind("127.0.0.1:0")?;
    println!("{}", listener.local_addr()?);
    let rt = match runtime {
        "multi" => tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()?,
        _ => tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?,
    };
    let serving = Server::builder()
        .mount("/echo", Arc::new(Echo::new()))
        .mount("/canned", Arc::new(canned))
        .config(config)
        .serve_with_shutdown(listener, async {
            // Ends when the parent closes our stdin.
            let _ = tokio::task::spawn_blocking(|| io::stdin().read_to_end(&mut Vec::new())).await;
        })?;
    rt.block_on(serving.into_future())
}

/// The floor: read exactly `req_len` bytes, write `resp_len` bytes, in one write each.
fn serve_tcp(req_len: usize, resp_len: usize) -> io::Result<()> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    println!("{}", listener.local_addr()?);
    let mut req = vec![0u8; req_len];
    let resp = vec![b'x'; resp_len];
    loop {
        let (mut s, _) = listener.accept()?;
        s.set_nodelay(true)?;
        while s.read_exact(&mut req).is_ok() {
            s.write_all(&resp)?;
        }
    }
}

// ---- client mode ------------------------------------------------------------------------

/// `client KIND ADDR N REQ_LEN RESP_LEN`: prints `mean_us p50_us p99_us cpu_us_per_call`.
fn client(kind: &str, addr: &str, n: usize, req_len: usize, resp_len: usize) -> io::Result<()> {
    let warmup = warmup(n);
    let cpu_start = cpu_ns("self");
    let mut samples = Vec::with_capacity(n);
    let total = match kind {
        "tcp" => {
            let mut s = TcpStream::connect(addr)?;
            s.set_nodelay(true)?;
            let req = vec![b'r'; req_len];
            let mut resp = vec![0u8; resp_len];
            let mut one = || -> io::Result<()> {
                s.write_all(&req)?;
                s.read_exact(&mut resp)
            };
            timed(warmup, n, &mut samples, &mut one)?
        }
        "raw" | "canned" => {
            let mut s = TcpStream::connect(addr)?;
            s.set_nodelay(true)?;
            let mut req = http_request(addr);
            if kind == "canned" {
                req = String::from_utf8(req)
                    .expect("ascii")
                    .replacen("/echo", "/canned", 1)
                    .into_bytes();
            }
            let mut buf = Vec::with_capacity(4096);
            let mut one = || -> io::Result<()> {
                s.write_all(&req)?;
                read_http(&mut s, &mut buf)?;
                Ok(())
            };
            timed(warmup, n, &mut samples, &mut one)?
        }
        "client" | "tls-client" => {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            let client = if kind == "tls-client" {
                // The certificate is for `localhost`: SNI and verification as in production.
                let ca = std::fs::read(std::env::var("PINGPONG_TLS_CA").expect("the CA path"))?;
                let config = soapstone_client::ClientConfig::default()
                    .tls_ca_pem(&ca)
                    .map_err(io::Error::other)?;
                let port = addr.rsplit(':').next().unwrap_or_default();
                let url = format!("https://localhost:{port}/echo");
                soapstone_client::Client::with_config(&url, config)
            } else {
                soapstone_client::Client::new(&format!("http://{addr}/echo"))
            }
            .map_err(io::Error::other)?;
            let body = Bytes::from_static(REQUEST.as_bytes());
            rt.block_on(async {
                let call = async || -> io::Result<()> {
                    let r = client
                        .call_raw(Version::Soap11, Some(ACTION), body.clone())
                        .await
                        .map_err(io::Error::other)?;
                    assert_eq!(r.status, 200);
                    Ok(())
                };
                for _ in 0..warmup {
                    call().await?;
                }
                let start = Instant::now();
                for _ in 0..n {
                    let t = Instant::now();
                    call().await?;
                    samples.push(t.elapsed());
                }
                Ok::<_, io::Error>(start.elapsed())
            })?
        }
        other => panic!("unknown client kind `{other}`"),
    };
    let cpu = (cpu_ns("self") - cpu_start) as f64 / 1e3 / (n + warmup) as f64;
    samples.sort_unstable();
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    println!(
        "{:.2} {:.2} {:.2} {:.2}",
        us(total) / n as f64,
        us(samples[samples.len() / 2]),
        us(samples[samples.len() * 99 / 100]),
        cpu
    );
    Ok(())
}

fn warmup(n: usize) -> usize {
    (n / 10).max(500)
}

/// On-CPU time of all threads of a process (`self` or a pid), from the scheduler's
/// statistics: nanoseconds, unaffected by time spent waiting for a CPU.
fn cpu_ns(pid: &str) -> u64 {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return 0;
    };
    tasks
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("schedstat")).ok())
        .filter_map(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .sum()
}

fn timed(
    warmup: usize,
    n: usize,
    samples: &mut Vec<Duration>,
    one: &mut dyn FnMut() -> io::Result<()>,
) -> io::Result<Duration> {
    for _ in 0..warmup {
        one()?;
    }
    let start = Instant::now();
    for _ in 0..n {
        let t = Instant::now();
        one()?;
        samples.push(t.elapsed());
    }
    Ok(start.elapsed())
}

/// The HTTP request the soapstone Client sends, byte for byte in its essentials.
fn http_request(addr: &str) -> Vec<u8> {
    format!(
        "POST /echo HTTP/1.1\r\nhost: {addr}\r\ncontent-type: text/xml; charset=utf-8\r\nsoapaction: \"{ACTION}\"\r\ncontent-length: {}\r\n\r\n{REQUEST}",
        REQUEST.len()
    )
    .into_bytes()
}

/// Reads one response by its Content-Length; returns its total size.
fn read_http(s: &mut TcpStream, buf: &mut Vec<u8>) -> io::Result<usize> {
    buf.clear();
    let mut chunk = [0u8; 4096];
    loop {
        let n = s.read(&mut chunk)?;
        if n == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = std::str::from_utf8(&buf[..end]).map_err(io::Error::other)?;
            let len: usize = head
                .split("\r\n")
                .find_map(|l| {
                    let (k, v) = l.split_once(':')?;
                    k.eq_ignore_ascii_case("content-length")
                        .then(|| v.trim().parse().ok())?
                })
                .ok_or_else(|| io::Error::other("no content-length"))?;
            let total = end + 4 + len;
            while buf.len() < total {
                let n = s.read(&mut chunk)?;
                if n == 0 {
                    return Err(io::ErrorKind::UnexpectedEof.into());
                }
                buf.extend_from_slice(&chunk[..n]);
            }
            return Ok(total);
        }
    }
}

// ---- orchestration ----------------------------------------------------------------------

struct Proc(Child);

impl Drop for Proc {
    fn drop(&mut self) {
        drop(self.0.stdin.take());
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn pinned(cpu: &str, args: &[&str]) -> io::Result<Command> {
    let exe = std::env::current_exe()?;
    let mut c = Command::new("taskset");
    c.arg("-c").arg(cpu).arg(exe).args(args);
    Ok(c)
}

/// Starts a pinned server process; returns it and the address it printed.
fn start_server(cpu: &str, args: &[&str]) -> io::Result<(Proc, String)> {
    let mut child = pinned(cpu, args)?
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| io::Error::other(format!("cannot run `taskset` ({e}); install util-linux")))?;
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout")).read_line(&mut line)?;
    Ok((Proc(child), line.trim().to_owned()))
}

/// Runs a pinned client: `[mean, p50, p99, client cpu, server cpu]`, microseconds (per call).
fn run_client(
    cpu: &str,
    kind: &str,
    server: &Proc,
    addr: &str,
    n: usize,
    sizes: (usize, usize),
) -> io::Result<[f64; 5]> {
    let server_pid = server.0.id().to_string();
    let server_start = cpu_ns(&server_pid);
    let calls = n + warmup(n);
    let (n, rq, rs) = (n.to_string(), sizes.0.to_string(), sizes.1.to_string());
    let out = pinned(cpu, &["client", kind, addr, &n, &rq, &rs])?.output()?;
    let server_cpu = (cpu_ns(&server_pid) - server_start) as f64 / 1e3 / calls as f64;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(io::Error::other(format!("client `{kind}` failed: {err}")));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let v: Vec<f64> = text
        .split_whitespace()
        .map(|x| x.parse().expect("number"))
        .collect();
    Ok([v[0], v[1], v[2], v[3], server_cpu])
}

fn orchestrate(n: usize) -> io::Result<()> {
    let runtime = std::env::var("PINGPONG_RUNTIME").unwrap_or_else(|_| "current".into());
    let repeat: usize = std::env::var("PINGPONG_REPEAT")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(3);
    // One request to learn the exact sizes on the wire.
    let (server, addr) = start_server("0", &["serve-soap", &runtime])?;
    let mut s = TcpStream::connect(&addr)?;
    let req = http_request(&addr);
    s.write_all(&req)?;
    let mut buf = Vec::new();
    let resp_len = read_http(&mut s, &mut buf)?;
    let head_end = buf.windows(4).position(|w| w == b"\r\n\r\n").unwrap_or(0) + 4;
    println!(
        "request: {} bytes (body {}), response: {} bytes (body {})",
        req.len(),
        REQUEST.len(),
        resp_len,
        resp_len - head_end
    );
    println!(
        "response body:\n{}\n",
        String::from_utf8_lossy(&buf[head_end..])
    );
    drop(s);
    drop(server);

    println!("{n} sequential calls per row (best of {repeat}), one keep-alive connection, server runtime `{runtime}`");
    println!("cpu: on-CPU microseconds per call of the server and of the client process");
    println!(
        "{:<26} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8}",
        "placement / row",
        "mean us",
        "p50 us",
        "p99 us",
        "srv cpu",
        "cli cpu",
        "x floor",
        "x fl p50"
    );
    let sizes = (req.len(), resp_len);
    let places = [
        ("same CPU (0,0)", "0", "0"),
        ("cross CPU (srv 0, cli 1)", "0", "1"),
    ];
    for (label, server_cpu, client_cpu) in places {
        let tcp_args = ["serve-tcp", &sizes.0.to_string(), &sizes.1.to_string()];
        let (tcp, tcp_addr) = start_server(server_cpu, &tcp_args.each_ref().map(|s| s.as_ref()))?;
        let (soap, soap_addr) = start_server(server_cpu, &["serve-soap", &runtime])?;
        let ca = std::env::temp_dir().join(format!("pingpong-ca-{}.pem", std::process::id()));
        let ca = ca.to_string_lossy().into_owned();
        std::env::set_var("PINGPONG_TLS_CA", &ca);
        let (tls, tls_addr) = start_server(server_cpu, &["serve-soap-tls", &runtime, &ca])?;
        let mut rows = [
            ("  tcp floor", "tcp", &tcp, &tcp_addr, [f64::MAX; 5]),
            (
                "  server, canned answer",
                "canned",
                &soap,
                &soap_addr,
                [f64::MAX; 5],
            ),
            (
                "  soap, raw client",
                "raw",
                &soap,
                &soap_addr,
                [f64::MAX; 5],
            ),
            (
                "  soap, soapstone Client",
                "client",
                &soap,
                &soap_addr,
                [f64::MAX; 5],
            ),
            (
                "  soap over tls, Client",
                "tls-client",
                &tls,
                &tls_addr,
                [f64::MAX; 5],
            ),
        ];
        // Interleaved repetitions, best mean kept (as Sam Ruby kept the best of five).
        for _ in 0..repeat {
            for (_, kind, server, addr, best) in rows.iter_mut() {
                let r = run_client(client_cpu, kind, server, addr, n, sizes)?;
                if r[0] < best[0] {
                    *best = r;
                }
            }
        }
        let floor = rows[0].4;
        let _ = std::fs::remove_file(&ca);
        println!("{label}");
        for (name, _, _, _, r) in rows {
            println!(
                "{:<26} {:>8.2} {:>8.2} {:>8.2} {:>8.2} {:>8.2} {:>8.2} {:>8.2}",
                name,
                r[0],
                r[1],
                r[2],
                r[4],
                r[3],
                r[0] / floor[0],
                r[1] / floor[1]
            );
        }
    }
    Ok(())
}
