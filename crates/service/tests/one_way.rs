//! One-way operations (`#[soap(one_way)]`, WSDL 1.1 section 2.4.1): the server runs the
//! method and answers HTTP 202 Accepted with no body and no media type (WS-I BP R2714, SOAP
//! 1.2 Part 2 7.5.2.2), in SOAP 1.1 and 1.2; a failure is still a Fault; the published WSDL
//! has an input and no output; the generated client returns `Ok(())` once the 202 arrives, and
//! so does zeep, reading the served WSDL.
//! Raw bytes over a real TcpStream where the wire matters.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use soapstone_service::{service, Fault};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

#[service(name = "Logger", namespace = "urn:logger")]
pub trait Logger {
    /// Records a line; nothing is answered.
    #[soap(one_way)]
    async fn log(&self, line: String) -> Result<(), Fault>;
    /// The lines recorded so far.
    async fn lines(&self) -> Result<Vec<String>, Fault>;
}

#[derive(Default)]
struct Impl(Mutex<Vec<String>>);

impl Logger for Impl {
    async fn log(&self, line: String) -> Result<(), Fault> {
        if line.is_empty() {
            return Err(Fault::client("an empty line is not logged"));
        }
        self.0.lock().unwrap().push(line);
        Ok(())
    }
    async fn lines(&self) -> Result<Vec<String>, Fault> {
        Ok(self.0.lock().unwrap().clone())
    }
}

async fn serve() -> (std::net::SocketAddr, tokio::sync::oneshot::Sender<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let serving = soapstone_server::Server::builder()
        .mount("/log", Arc::new(LoggerServer::new(Impl::default())))
        .serve_with_shutdown(listener, async move {
            let _ = rx.await;
        })
        .unwrap();
    let addr = serving.local_addr();
    tokio::spawn(std::future::IntoFuture::into_future(serving));
    (addr, tx)
}

async fn post(addr: std::net::SocketAddr, content_type: &str, body: &str) -> String {
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "POST /log HTTP/1.1\r\nHost: x\r\nContent-Type: {content_type}\r\nSOAPAction: \"urn:logger#log\"\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    s.write_all(format!("{head}{body}").as_bytes())
        .await
        .unwrap();
    let mut reply = Vec::new();
    tokio::time::timeout(Duration::from_secs(30), s.read_to_end(&mut reply))
        .await
        .expect("an answer in time")
        .unwrap();
    String::from_utf8(reply).unwrap()
}

#[tokio::test]
async fn a_one_way_call_is_answered_202_with_no_body_in_both_versions() {
    let (addr, stop) = serve().await;
    let v11 = r#"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" xmlns:l="urn:logger"><s:Body><l:log><l:line>one</l:line></l:log></s:Body></s:Envelope>"#;
    let reply = post(addr, "text/xml; charset=utf-8", v11).await;
    assert!(reply.starts_with("HTTP/1.1 202 Accepted\r\n"), "{reply}");
    let lower = reply.to_ascii_lowercase();
    assert!(lower.contains("\r\ncontent-length: 0\r\n"), "{reply}");
    assert!(!lower.contains("content-type"), "{reply}");
    assert!(reply.ends_with("\r\n\r\n"), "{reply}");

    let v12 = r#"<e:Envelope xmlns:e="http://www.w3.org/2003/05/soap-envelope" xmlns:l="urn:logger"><e:Body><l:log><l:line>two</l:line></l:log></e:Body></e:Envelope>"#;
    let reply = post(addr, "application/soap+xml; charset=utf-8", v12).await;
    assert!(reply.starts_with("HTTP/1.1 202 Accepted\r\n"), "{reply}");

    // A failing one-way method is still a fault (status and envelope), not a silent 202.
    let empty = v11.replace("one", "");
    let reply = post(addr, "text/xml; charset=utf-8", &empty).await;
    assert!(reply.starts_with("HTTP/1.1 500"), "{reply}");
    assert!(reply.contains("an empty line is not logged"), "{reply}");

    // The method ran for both accepted calls.
    let client = LoggerClient::new(&format!("http://{addr}/log")).unwrap();
    assert_eq!(client.lines().await.unwrap(), ["one", "two"]);
    let _ = stop.send(());
}

#[tokio::test]
async fn the_generated_client_returns_once_accepted_and_reads_a_fault() {
    let (addr, stop) = serve().await;
    let url = format!("http://{addr}/log");
    for client in [
        LoggerClient::new(&url).unwrap(),
        LoggerClient::new(&url).unwrap().soap12(),
    ] {
        client.log("hello".into()).await.unwrap();
        let err = client.log(String::new()).await.unwrap_err();
        let fault = err.fault().expect("a fault");
        assert_eq!(fault.reason, "an empty line is not logged");
    }
    let client = LoggerClient::new(&url).unwrap();
    assert_eq!(client.lines().await.unwrap(), ["hello", "hello"]);
    // The same pooled connection carries the next call after a 202.
    assert_eq!(client.client().idle_connections(), 1);
    let _ = stop.send(());
}

#[test]
fn the_wsdl_of_a_one_way_operation_has_no_output() {
    let model = logger_model();
    assert!(model.operations[0].one_way && !model.operations[1].one_way);
    let wsdl = soapstone_service::wsdl::wsdl(model, "http://127.0.0.1:9/log");
    assert!(!wsdl.contains("logResponse"), "{wsdl}");
    assert!(!wsdl.contains("tns:logResponse"), "{wsdl}");
    assert!(
        wsdl.contains("<wsdl:input message=\"tns:logRequest\"/>"),
        "{wsdl}"
    );
    assert!(wsdl.contains("linesResponse"), "{wsdl}");
}

#[tokio::test]
async fn zeep_calls_the_one_way_operation_from_the_served_wsdl() {
    let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".to_string());
    let has_zeep = std::process::Command::new(&python)
        .args(["-c", "import zeep"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_zeep {
        if std::env::var_os("CI").is_some() {
            panic!("python3 with zeep is required in CI");
        }
        eprintln!("SKIPPED: this test needs python3 with zeep (`pip install zeep`)");
        return;
    }
    let (addr, stop) = serve().await;
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/zeep/one_way_client.py");
    let out = tokio::process::Command::new(&python)
        .arg(script)
        .arg(format!("http://{addr}/log?wsdl"))
        .output();
    let out = tokio::time::timeout(Duration::from_secs(120), out)
        .await
        .expect("zeep finishes in time")
        .expect("run the zeep script");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.contains("checks ok"),
        "zeep failed ({}):\n{stdout}\n{stderr}",
        out.status
    );
    let _ = stop.send(());
}
