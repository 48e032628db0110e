//! The generated client sends the very bytes the hand-declared `#[service]` client sends for
//! the same call (one emitter): captured from a real TcpStream.

use soapstone_build_test::interop;
use soapstone_services::echo;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Accepts one request, answers a Fault (the capture is all that matters), returns the bytes.
async fn capture_one() -> (String, tokio::task::JoinHandle<Vec<u8>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/echo", listener.local_addr().unwrap());
    let task = tokio::spawn(async move {
        let (mut s, _) = listener.accept().await.unwrap();
        let mut req = Vec::new();
        let mut buf = [0u8; 65536];
        loop {
            let n = s.read(&mut buf).await.unwrap();
            assert!(n > 0, "closed before a whole request");
            req.extend_from_slice(&buf[..n]);
            let text = String::from_utf8_lossy(&req).to_string();
            if let Some(i) = text.find("\r\n\r\n") {
                let len: usize = text[..i]
                    .lines()
                    .find_map(|l| {
                        let (k, v) = l.split_once(':')?;
                        k.eq_ignore_ascii_case("content-length")
                            .then(|| v.trim().parse().ok())?
                    })
                    .unwrap();
                if req.len() >= i + 4 + len {
                    break;
                }
            }
        }
        let body = "<soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\"><soap:Body><soap:Fault><faultcode>soap:Server</faultcode><faultstring>captured</faultstring></soap:Fault></soap:Body></soap:Envelope>";
        let head = format!("HTTP/1.1 500 Internal Server Error\r\nContent-Type: text/xml\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", body.len());
        s.write_all(format!("{head}{body}").as_bytes())
            .await
            .unwrap();
        req
    });
    (url, task)
}

fn without_host(req: Vec<u8>) -> String {
    String::from_utf8(req)
        .unwrap()
        .lines()
        .filter(|l| !l.to_ascii_lowercase().starts_with("host:"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test]
async fn generated_and_hand_declared_clients_send_the_same_bytes() {
    let floats: Vec<f32> = (0..100).map(|i| i as f32 * 0.5).collect();
    let (url, t) = capture_one().await;
    let _ = interop::InteropTestClient::new(&url)
        .unwrap()
        .echo_float_array(floats.clone())
        .await;
    let generated = without_host(t.await.unwrap());
    let (url, t) = capture_one().await;
    let _ = echo::InteropClient::new(&url)
        .unwrap()
        .echo_float_array(floats)
        .await;
    let hand = without_host(t.await.unwrap());
    assert_eq!(generated, hand);
}
