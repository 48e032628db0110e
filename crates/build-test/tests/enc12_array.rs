//! SOAP 1.2 rpc/encoded arrays that restrict the SOAP 1.2 encoding's `Array`
//! (`wsdl/enc12_array.wsdl`, after node-soap's gSOAP-style `rpcexample.wsdl`): the generated
//! client calls the generated server over a loopback socket in SOAP 1.2 and gets the array
//! back; on the wire the result is a SOAP 1.2 encoded array (`enc:itemType`, `enc:arraySize`).

mod support;

use std::sync::Arc;

use soapstone_build_test::enc12_array::{Files, FilesClient, FilesServer};
use soapstone_service::Fault;

struct Dir;

impl Files for Dir {
    async fn list_files(&self, dir: String) -> Result<Vec<String>, Fault> {
        Ok(vec![format!("{dir}/a.txt"), format!("{dir}/b <&>.txt")])
    }
}

#[tokio::test]
async fn the_generated_client_reads_a_soap12_encoded_array() {
    let server = support::serve(vec![("/files", Arc::new(FilesServer::new(Dir)))]).await;
    let client = FilesClient::new(&format!("http://{}/files", server.addr)).unwrap();
    let files = client.list_files("/tmp".into()).await.unwrap();
    assert_eq!(files, ["/tmp/a.txt", "/tmp/b <&>.txt"]);
    server.stop().await;
}

#[tokio::test]
async fn the_array_is_soap12_encoded_on_the_wire() {
    let server = support::serve(vec![("/files", Arc::new(FilesServer::new(Dir)))]).await;
    let body = r#"<?xml version="1.0"?><env:Envelope xmlns:env="http://www.w3.org/2003/05/soap-envelope" xmlns:f="urn:example:files"><env:Body><f:listFiles env:encodingStyle="http://www.w3.org/2003/05/soap-encoding"><dir>/d</dir></f:listFiles></env:Body></env:Envelope>"#;
    let reply = soap12_post(server.addr, body).await;
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    assert!(reply.contains("itemType=\""), "{reply}");
    assert!(reply.contains("arraySize=\"2\""), "{reply}");
    assert!(reply.contains(">/d/a.txt<"), "{reply}");
    server.stop().await;
}

async fn soap12_post(addr: std::net::SocketAddr, body: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "POST /files HTTP/1.1\r\nHost: x\r\nContent-Type: application/soap+xml; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    s.write_all(format!("{head}{body}").as_bytes())
        .await
        .unwrap();
    let mut buf = Vec::new();
    tokio::time::timeout(std::time::Duration::from_secs(30), s.read_to_end(&mut buf))
        .await
        .expect("an answer in time")
        .unwrap();
    String::from_utf8(buf).unwrap()
}
