//! A one-way operation generated from a WSDL (node-soap's `wsdl/strict/one-way.wsdl`): the
//! generated server runs the method and answers HTTP 202 Accepted with no body (raw bytes over
//! a TcpStream), the generated client returns once it arrives, and the WSDL the generated server
//! publishes has the operation's input and no output.

use std::sync::{Arc, Mutex};

use soapstone_build_test::one_way::{OneWayService, OneWayServiceClient, OneWayServiceServer};
use soapstone_server::Server;
use soapstone_service::{Fault, SoapService};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

type Lines = Arc<Mutex<Vec<Option<String>>>>;

struct Log(Lines);

impl OneWayService for Log {
    async fn one_way(&self, one_way_field: Option<String>) -> Result<(), Fault> {
        self.0.lock().unwrap().push(one_way_field);
        Ok(())
    }
}

#[tokio::test]
async fn the_generated_one_way_server_answers_202_and_its_client_returns() {
    let log = Lines::default();
    let server = OneWayServiceServer::new(Log(Arc::clone(&log)));
    let wsdl = server.document("wsdl", "http://127.0.0.1:9/ow").unwrap();
    assert!(
        wsdl.contains("<wsdl:input message=\"tns:OneWayRequest\"/>"),
        "{wsdl}"
    );
    assert!(!wsdl.contains("<wsdl:output"), "{wsdl}");

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let serving = Server::builder()
        .mount("/ow", Arc::new(server))
        .serve_with_shutdown(listener, async move {
            let _ = rx.await;
        })
        .unwrap();
    let addr = serving.local_addr();
    let task = tokio::spawn(std::future::IntoFuture::into_future(serving));

    let body = r#"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><n:OneWayRequest xmlns:n="http://www.OneWay.com/Name/Types"><OneWayField>raw</OneWayField></n:OneWayRequest></s:Body></s:Envelope>"#;
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "POST /ow HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml; charset=utf-8\r\nSOAPAction: \"http://www.OneWay.com#OneWay\"\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    s.write_all(format!("{head}{body}").as_bytes())
        .await
        .unwrap();
    let mut reply = Vec::new();
    tokio::time::timeout(
        std::time::Duration::from_secs(30),
        s.read_to_end(&mut reply),
    )
    .await
    .expect("an answer in time")
    .unwrap();
    let reply = String::from_utf8(reply).unwrap();
    assert!(reply.starts_with("HTTP/1.1 202 Accepted\r\n"), "{reply}");
    assert!(reply.ends_with("\r\n\r\n"), "{reply}");

    let client = OneWayServiceClient::new(&format!("http://{addr}/ow")).unwrap();
    client.one_way(Some("typed".into())).await.unwrap();
    client.soap12().one_way(None).await.unwrap();
    assert_eq!(
        *log.lock().unwrap(),
        [Some("raw".to_string()), Some("typed".to_string()), None]
    );
    let _ = tx.send(());
    task.await.unwrap().unwrap();
}
