//! The client generated from node-soap's attributes sample
//! (`testdata/node-soap/request-response-samples/Dummy__should_handle_attributes_in_response`)
//! reads the response node-soap recorded for it (`response.xml`, served as it is from a raw
//! loopback socket): the `language` attribute and the text of the simple-content `Dummy`, the
//! absent `code` attribute as `None`. The request it sends is checked on the wire against the
//! recorded `request.xml`'s values.

use soapstone_build_test::node_soap_attributes::DummyServiceClient;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const SAMPLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../testdata/node-soap/request-response-samples/Dummy__should_handle_attributes_in_response"
);

/// Answers one request with `body` and hands back the request it read.
async fn answer_once(
    listener: tokio::net::TcpListener,
    body: String,
) -> tokio::task::JoinHandle<String> {
    tokio::spawn(async move {
        let (mut s, _) = listener.accept().await.unwrap();
        let mut req = Vec::new();
        let mut buf = [0u8; 4096];
        // the head, then as many body bytes as Content-Length says
        loop {
            let n = s.read(&mut buf).await.unwrap();
            assert!(n > 0, "connection closed before a whole request");
            req.extend_from_slice(&buf[..n]);
            let text = String::from_utf8_lossy(&req).to_string();
            if let Some((head, rest)) = text.split_once("\r\n\r\n") {
                let len = head
                    .lines()
                    .find_map(|l| {
                        let (k, v) = l.split_once(':')?;
                        k.eq_ignore_ascii_case("content-length")
                            .then(|| v.trim().parse::<usize>().ok())?
                    })
                    .unwrap_or(0);
                if rest.len() >= len {
                    break;
                }
            }
        }
        let reply = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: text/xml; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        s.write_all(reply.as_bytes()).await.unwrap();
        String::from_utf8(req).unwrap()
    })
}

#[tokio::test]
async fn the_generated_client_reads_node_soaps_recorded_response() {
    let response = std::fs::read_to_string(format!("{SAMPLE}/response.xml")).unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = answer_once(listener, response).await;
    let client = DummyServiceClient::new(&format!("http://{addr}/")).unwrap();
    let result = tokio::time::timeout(
        std::time::Duration::from_secs(30),
        client.dummy(
            Some("Humpty".into()),
            Some(soapstone_build_test::node_soap_attributes::DummyFilter {
                dummy_int_filter: None,
                dummy_string_filter: Some("Dumpty".into()),
            }),
        ),
    )
    .await
    .expect("an answer in time")
    .unwrap();
    assert_eq!(result.code, None);
    let list = result.dummy_list.expect("DummyList");
    assert_eq!(list.dummy_element.len(), 1);
    let element = &list.dummy_element[0];
    assert_eq!(element.language.as_deref(), Some("en-US"));
    // simple content is kept exactly, the recorded indentation included
    assert_eq!(element.value.trim(), "Dummy Element Entry");
    assert!(element.value.starts_with('\n'), "{:?}", element.value);

    let request = server.await.unwrap();
    assert!(request.contains(">Humpty</"), "{request}");
    assert!(request.contains(">Dumpty</"), "{request}");
    assert!(request.contains("DummyRequest"), "{request}");
}
