//! An in-process `soapstone serve` on a free loopback port, and raw HTTP over a real TcpStream.

use std::net::SocketAddr;

use soapstone_server::Server;
use soapstone_services::{build_services, Services, ServicesConfig};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

pub struct TestServer {
    pub addr: SocketAddr,
    pub services: Services,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<std::io::Result<()>>>,
}

impl TestServer {
    pub async fn start(config: ServicesConfig) -> TestServer {
        let services = build_services(&config).await.expect("build services");
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let serving = services
            .mount_on(Server::builder())
            .serve_with_shutdown(listener, async move {
                let _ = rx.await;
            })
            .unwrap();
        let addr = serving.local_addr();
        let task = tokio::spawn(std::future::IntoFuture::into_future(serving));
        TestServer {
            addr,
            services,
            shutdown: Some(tx),
            task: Some(task),
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    pub async fn stop(mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(task) = self.task.take() {
            task.await.unwrap().unwrap();
        }
    }
}

/// A raw HTTP answer.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub head: String,
    pub body: String,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.trim().eq_ignore_ascii_case(name).then(|| v.trim())
        })
    }
}

/// Sends `request` (a whole HTTP request) as it is, and reads the answer until the server
/// closes (the request says `Connection: close`).
pub async fn raw(addr: SocketAddr, request: &[u8]) -> Reply {
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    s.write_all(request).await.unwrap();
    let mut buf = Vec::new();
    tokio::time::timeout(std::time::Duration::from_secs(30), s.read_to_end(&mut buf))
        .await
        .expect("reply in time")
        .unwrap();
    let text = String::from_utf8(buf).expect("utf-8 reply");
    let (head, body) = text.split_once("\r\n\r\n").expect("a head and a body");
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status");
    Reply {
        status,
        head: head.to_string(),
        body: body.to_string(),
    }
}

/// POSTs a SOAP 1.1 envelope over a real TCP connection, as Apache SOAP and Axis did.
pub async fn post(addr: SocketAddr, path: &str, action: &str, envelope: &str) -> Reply {
    let req = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: text/xml; charset=utf-8\r\n\
         SOAPAction: \"{action}\"\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{envelope}",
        envelope.len()
    );
    raw(addr, req.as_bytes()).await
}

/// GETs a document (`?wsdl`).
pub async fn get(addr: SocketAddr, path_and_query: &str) -> Reply {
    let req = format!("GET {path_and_query} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    raw(addr, req.as_bytes()).await
}

/// The text of the first element named `local` (any namespace) in `xml`.
pub fn text_of(xml: &str, local: &str) -> Option<String> {
    let doc = roxmltree::Document::parse(xml).ok()?;
    let node = doc
        .descendants()
        .find(|n| n.is_element() && n.tag_name().name() == local)?;
    Some(node.text().unwrap_or("").to_string())
}

/// The faultstring of a SOAP 1.1 fault answer.
pub fn faultstring(xml: &str) -> Option<String> {
    text_of(xml, "faultstring")
}
