//! The limits of `soapstone serve` as a user sets them: the real `soapstone-serve` binary (the
//! same arguments as `soapstone serve`) on a free loopback port, raw HTTP over a real TcpStream.
//! Large echoes are refused with the precise status or fault under the defaults and pass with
//! flags or a `--config` file; bad values stop the process with exit code 2; `--lenient` lets a
//! gSOAP-style SOAP 1.2 request through that the default refuses.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_soapstone-serve");

/// A running `soapstone-serve`, killed when dropped.
struct Serve {
    child: Child,
    addr: SocketAddr,
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(args: &[&str]) -> Serve {
    let mut child = Command::new(BIN)
        .args(["--addr", "127.0.0.1:0", "--services", "echo"])
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start soapstone-serve");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { return };
            if let Some(url) = line.strip_prefix("listening on http://") {
                let _ = tx.send(url.to_string());
            }
        }
    });
    let addr = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("`listening on` within 60 s")
        .parse()
        .expect("an address");
    Serve { child, addr }
}

/// A refused start: the exit code and what it printed on stderr.
fn refused(args: &[&str]) -> (Option<i32>, String) {
    let out = Command::new(BIN)
        .args(["--addr", "127.0.0.1:0", "--services", "echo"])
        .args(args)
        .output()
        .expect("run soapstone-serve");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

struct Reply {
    status: u16,
    body: String,
}

fn post(addr: SocketAddr, content_type: &str, envelope: &[u8]) -> Reply {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let head = format!(
        "POST /echo HTTP/1.1\r\nHost: {addr}\r\nContent-Type: {content_type}\r\nSOAPAction: \"http://soapinterop.org/\"\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        envelope.len()
    );
    let mut req = head.into_bytes();
    req.extend_from_slice(envelope);
    // The server may answer 413 and close before it has read a large body: write from another
    // thread and read at once, so the answer is read before the close resets the connection.
    let mut w = s.try_clone().unwrap();
    let writer = std::thread::spawn(move || {
        let _ = w.write_all(&req);
    });
    let mut buf = Vec::new();
    let mut chunk = [0u8; 64 << 10];
    loop {
        match s.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e) if buf.is_empty() => panic!("no answer: {e}"),
            Err(_) => break,
        }
    }
    let _ = writer.join();
    let text = String::from_utf8(buf).expect("utf-8 reply");
    let (head, body) = text.split_once("\r\n\r\n").expect("a head and a body");
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status");
    Reply {
        status,
        body: body.to_string(),
    }
}

/// SOAPBuilders Round 2 echoString (rpc/encoded, SOAP 1.1) with `len` bytes of text.
fn echo_string(len: usize) -> Vec<u8> {
    let mut v = br#"<?xml version="1.0" encoding="UTF-8"?>
<SOAP-ENV:Envelope xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/" xmlns:ns1="http://soapinterop.org/" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" SOAP-ENV:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"><SOAP-ENV:Body><ns1:echoString><inputString xsi:type="xsd:string">"#.to_vec();
    v.extend(std::iter::repeat_n(b'a', len));
    v.extend_from_slice(b"</inputString></ns1:echoString></SOAP-ENV:Body></SOAP-ENV:Envelope>");
    v
}

fn echo11(addr: SocketAddr, len: usize) -> Reply {
    post(addr, "text/xml; charset=utf-8", &echo_string(len))
}

/// The length of the echoed string in an echoString answer.
fn echoed_len(body: &str) -> usize {
    let start = body.find("<outputString").expect("outputString");
    let text = &body[start..];
    let open = text.find('>').unwrap() + 1;
    let close = text.find("</outputString>").unwrap();
    close - open
}

#[test]
fn defaults_refuse_large_echoes_precisely() {
    let s = serve(&[]);
    let ok = echo11(s.addr, 1 << 20);
    assert_eq!(ok.status, 200, "{}", &ok.body[..ok.body.len().min(300)]);
    assert_eq!(echoed_len(&ok.body), 1 << 20);
    let r = echo11(s.addr, (1 << 20) + 1);
    assert_eq!(r.status, 500);
    assert!(
        r.body.contains(
            "/Envelope/Body/echoString/inputString: text of 1048577 bytes exceeds the limit of 1048576 bytes"
        ),
        "{}",
        r.body
    );
    assert!(r.body.contains("Client"), "{}", r.body);
    let r = echo11(s.addr, 5 << 20);
    assert_eq!(r.status, 413);
}

#[test]
fn flags_let_a_10_mb_echo_through() {
    let s = serve(&["--max-body-bytes", "16MiB", "--max-text-bytes", "12MiB"]);
    let r = echo11(s.addr, 10_000_000);
    assert_eq!(r.status, 200, "{}", &r.body[..r.body.len().min(300)]);
    assert_eq!(echoed_len(&r.body), 10_000_000);
    // the raised limits are still limits
    let r = echo11(s.addr, 13 << 20);
    assert_eq!(r.status, 500, "{}", &r.body[..r.body.len().min(300)]);
    assert!(
        r.body.contains("exceeds the limit of 12582912 bytes"),
        "{}",
        r.body
    );
    let r = echo11(s.addr, 17 << 20);
    assert_eq!(r.status, 413);
}

#[test]
fn the_response_limit_is_a_flag_too() {
    let big = ["--max-body-bytes", "32MiB", "--max-text-bytes", "24MiB"];
    let s = serve(&big);
    let r = echo11(s.addr, 20_000_000);
    assert_eq!(r.status, 500);
    assert!(
        r.body.contains("16777216"),
        "{}",
        &r.body[..r.body.len().min(600)]
    );
    drop(s);
    let s = serve(&[&big[..], &["--max-response-bytes", "32MiB"]].concat());
    let r = echo11(s.addr, 20_000_000);
    assert_eq!(r.status, 200, "{}", &r.body[..r.body.len().min(600)]);
    assert_eq!(echoed_len(&r.body), 20_000_000);
}

#[test]
fn config_file_with_flags_over_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("limits.toml");
    std::fs::write(
        &path,
        "# soapstone serve limits\nmax-body-bytes = \"16MiB\"\nmax-text-bytes = \"12MiB\"\n",
    )
    .unwrap();
    let file = path.to_str().unwrap();
    let s = serve(&["--config", file]);
    let r = echo11(s.addr, 10_000_000);
    assert_eq!(r.status, 200);
    assert_eq!(echoed_len(&r.body), 10_000_000);
    drop(s);
    // the flag wins over the file's text limit; the file's body limit still holds (a 5 MiB body
    // is read, not refused with 413, and its text is refused by the flag's limit)
    let s = serve(&["--config", file, "--max-text-bytes", "2MiB"]);
    let r = echo11(s.addr, 5 << 20);
    assert_eq!(r.status, 500);
    assert!(
        r.body.contains("exceeds the limit of 2097152 bytes"),
        "{}",
        r.body
    );
}

#[test]
fn bad_values_exit_with_code_2() {
    let dir = tempfile::tempdir().unwrap();
    let typo = dir.path().join("typo.toml");
    std::fs::write(&typo, "max-bodybytes = \"16MiB\"\n").unwrap();
    let typo = typo.to_str().unwrap();
    let missing = dir.path().join("missing.toml");
    let missing = missing.to_str().unwrap();
    for (args, message) in [
        (
            vec!["--max-in-flight", "0"],
            "`--max-in-flight` must be between 1 and 1048576, not 0",
        ),
        (
            vec!["--max-body-bytes", "4apples"],
            "bad size unit `apples` in `4apples`",
        ),
        (
            vec!["--idle-timeout", "0s"],
            "`--idle-timeout` must be between 10ms and a day, not 0ns",
        ),
        (vec!["--config", typo], "unknown field `max-bodybytes`"),
        (vec!["--config", missing], "cannot read `--config` file"),
    ] {
        let (code, stderr) = refused(&args);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
    }
}

/// echoString in SOAP 1.2 as gSOAP writes it: `env:encodingStyle` on Body.
const GSOAP_ECHO_STRING: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<SOAP-ENV:Envelope xmlns:SOAP-ENV="http://www.w3.org/2003/05/soap-envelope" xmlns:SOAP-ENC="http://www.w3.org/2003/05/soap-encoding" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:ns="http://soapinterop.org/"><SOAP-ENV:Body SOAP-ENV:encodingStyle="http://www.w3.org/2003/05/soap-encoding"><ns:echoString><inputString xsi:type="xsd:string">Hello &#xD83D;&#xDE00;</inputString></ns:echoString></SOAP-ENV:Body></SOAP-ENV:Envelope>"#;

#[test]
fn the_server_is_strict_unless_lenient() {
    let ct = "application/soap+xml; charset=utf-8";
    let s = serve(&[]);
    let r = post(s.addr, ct, GSOAP_ECHO_STRING.as_bytes());
    assert!(r.status == 400 || r.status == 500, "{}", r.body);
    assert!(
        r.body
            .contains("encodingStyle is not allowed on the soap 1.2 Body"),
        "{}",
        r.body
    );
    drop(s);
    let s = serve(&["--lenient"]);
    let r = post(s.addr, ct, GSOAP_ECHO_STRING.as_bytes());
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.body.contains("Hello \u{1F600}"), "{}", r.body);
}

#[test]
fn the_per_ip_connection_cap_is_a_flag() {
    let s = serve(&["--max-connections-per-ip", "1"]);
    let mut idle = TcpStream::connect(s.addr).unwrap();
    idle.set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    // make sure the first connection is accepted before the second arrives
    let r = echo11(s.addr, 5);
    assert_eq!(r.status, 200);
    // the new connection from the same address evicted the idle one: it reads EOF
    let mut buf = [0u8; 64];
    match idle.read(&mut buf) {
        Ok(0) => {}
        Ok(n) => panic!(
            "the idle connection got {:?} instead of being closed",
            String::from_utf8_lossy(&buf[..n])
        ),
        Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => {}
        Err(e) => panic!("the idle connection was not closed: {e}"),
    }
}
