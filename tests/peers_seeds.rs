//! The seeds' other services on the peers (García's card/news/shop, Zilora & Ketha's contacts,
//! Ruby's echoFloat), end to end through the real `soapstone lab`: a python3 HTTP server stands
//! in for a peer and answers with what the Erlang peer really sent (`crates/lab/src/peers/
//! answers/`), so this runs everywhere (CI builds no JVM, Mono or Erlang peer). A second
//! stand-in answers card wrongly and must be reported as failed and never timed. No timing is
//! asserted. The real Axis2/Erlang/CXF/Mono peers are exercised by `soapstone lab` after
//! `lab/peers/setup.sh` (docs/lab.md).

use std::path::{Path, PathBuf};
use std::process::Command;

struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A stand-in peer: POST /wsb/{card,news,shop} answer the Erlang peer's captured answers (card
/// answers `false` when `WRONG` is given), /echo Ruby's answer, /contacts n generated contacts.
const PEER: &str = r#"import http.server, re, sys
ANSWERS, PORT, WRONG = sys.argv[1], int(sys.argv[2]), len(sys.argv) > 3
def captured(name):
    return open(f"{ANSWERS}/erlang-{name}.xml", "rb").read()
ENV = (b'<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>%s'
       b'</soap:Body></soap:Envelope>')
def contacts(req):
    op = re.search(rb"<c:(\w+)", req).group(1).decode()
    n = int((re.search(rb"<c:n>(\d+)</c:n>", req) or re.search(rb"()", req)).group(1) or 1)
    c = lambda i: f"<name>Ada Berg</name><phone>585-200-{i % 10000:04d}</phone>"
    if op == "getContactCount": inner = "<return>13000</return>"
    elif op == "getContactNames": inner = "".join("<return>Ada Berg</return>" for _ in range(n))
    elif op == "getContacts": inner = "".join(f"<return>{c(i)}</return>" for i in range(n))
    else: inner = f"<return>{c(1)}</return>"
    body = f'<{op}Response xmlns="urn:soapstone:contacts">{inner}</{op}Response>'
    return ENV % body.encode()
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_POST(self):
        req = self.rfile.read(int(self.headers["Content-Length"]))
        if self.path.startswith("/wsb/"):
            answer = captured(self.path[5:])
            if WRONG:
                answer = answer.replace(b">true<", b">false<")
        elif self.path == "/echo":
            answer = ENV % b'<echoFloatResult xmlns="http://tempuri.org/"><result>3.14159</result></echoFloatResult>'
        else:
            answer = contacts(req)
        self.send_response(200)
        self.send_header("Content-Type", "text/xml")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)
    def log_message(self, *a):
        pass
http.server.ThreadingHTTPServer(("127.0.0.1", PORT), H).serve_forever()
"#;

#[test]
fn wsb_contacts_and_echo_run_on_a_peer_and_a_wrong_one_is_not_timed() {
    let dir = std::env::temp_dir().join(format!("soapstone-peers-seeds-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let dir = TempDir(dir);
    let script = dir.0.join("peer.py");
    std::fs::write(&script, PEER).unwrap();
    let answers = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/lab/src/peers/answers");
    let (s, a) = (script.to_str().unwrap(), answers.to_str().unwrap());
    let services =
        serde_json::json!({"wsb": "/wsb/{service}", "echo": "/echo", "contacts": "/contacts"});
    let manifest = dir.0.join("manifest.json");
    let peers = serde_json::json!({
        "schema": 1,
        "peers": [{
            "id": "erlang", "role": "server", "transport": "soap-http", "name": "stand-in",
            "stands_for": "test", "status": "ready", "reason": "", "version": "0",
            "command": ["python3", s, a, "{port}"], "path": "/dp", "services": services
        }, {
            "id": "axis2", "role": "server", "transport": "soap-http", "name": "wrong card",
            "stands_for": "test", "status": "ready", "reason": "", "version": "0",
            "command": ["python3", s, a, "{port}", "wrong"], "path": "/dp",
            "services": {"wsb": "/wsb/{service}"}
        }]
    });
    std::fs::write(&manifest, peers.to_string()).unwrap();
    let out = dir.0.join("out");
    let status = Command::new(env!("CARGO_BIN_EXE_soapstone"))
        .args([
            "lab",
            "--quick",
            "--only",
            "wsb,contacts,echo",
            "--duration",
            "0.2s",
        ])
        .args([
            "--warmup",
            "0.05s",
            "--wsb-scale",
            "0.003",
            "--lan",
            "off",
            "--peers",
        ])
        .arg(&manifest)
        .arg("--out")
        .arg(&out)
        .status()
        .expect("run soapstone lab");
    assert!(status.success(), "soapstone lab failed: {status}");
    let results = soapstone_lab::read_results(&out.join("results.json")).expect("results.json");
    let md = std::fs::read_to_string(out.join("report.md")).expect("report.md");
    let ops = |exp: &str, system: &str| -> Vec<String> {
        let mut v: Vec<String> = results
            .runs
            .iter()
            .filter(|r| r.experiment == exp && r.system == system)
            .map(|r| r.operation.clone())
            .collect();
        v.sort();
        v.dedup();
        v
    };
    let problems: Vec<&String> = results
        .problems
        .iter()
        .filter(|p| p.contains("erlang"))
        .collect();
    assert!(problems.is_empty(), "{problems:#?}");
    // García: both tests on all three services, beside soapstone's.
    assert_eq!(ops("wsb", "erlang").len(), 6, "{:?}", ops("wsb", "erlang"));
    assert_eq!(ops("wsb", "erlang"), ops("wsb", "soapstone"));
    assert!(
        md.contains("| card, Erlang (inets stand-in) (today)"),
        "{md}"
    );
    // Zilora & Ketha: Table 4's four sizes and Table 5's points on 1 and 2 CPUs.
    let contacts = ops("contacts", "erlang");
    for op in [
        "getContactNames/1",
        "getContactNames/1000",
        "getContactCount",
        "getContacts/1000",
        "2cpu/getContactCount",
        "2cpu/getContacts/1000",
    ] {
        assert!(
            contacts.iter().any(|o| o == op),
            "{op} missing: {contacts:?}"
        );
    }
    assert!(md.contains("Table 5: server software × hardware"), "{md}");
    // Ruby: echoFloat beside soapstone's.
    assert_eq!(ops("echo", "erlang"), ["echoFloat"]);
    // The wrong peer: failed with the reason, no run at all.
    assert!(results.runs.iter().all(|r| r.system != "axis2"));
    let problem = results
        .problems
        .iter()
        .find(|p| p.contains("peer axis2 was not measured"))
        .unwrap_or_else(|| panic!("{:#?}", results.problems));
    assert!(
        problem.contains("answered `false`, not `true`"),
        "{problem}"
    );
    let sys = |id: &str| {
        results
            .systems
            .iter()
            .find(|s| s.id == id)
            .unwrap()
            .status
            .clone()
    };
    assert_eq!(sys("axis2"), "failed");
    assert_eq!(sys("erlang"), "ready");
}
