//! The server as a tower `Service`: called directly, and mounted inside an axum app served on
//! a real socket.

mod common;

use common::*;
use http_body_util::{BodyExt as _, Full};
use tower::ServiceExt as _;

#[tokio::test]
async fn called_as_a_tower_service() {
    let req = http::Request::post("/echo")
        .header("content-type", "text/xml")
        .body(Full::new(bytes::Bytes::from_static(ECHO_FLOAT.as_bytes())))
        .unwrap();
    let resp = soap_server().oneshot(req).await.unwrap();
    assert_eq!(resp.status(), 200);
    let body = resp.into_body().collect().await.unwrap().to_bytes();
    assert!(std::str::from_utf8(&body)
        .unwrap()
        .contains("<result>3.14159</result>"));
}

#[tokio::test]
async fn mounted_in_an_axum_router() {
    let app = axum::Router::new()
        .route("/health", axum::routing::get(|| async { "ok" }))
        .route_service("/echo", soap_server());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });

    let r = tokio::task::spawn_blocking(move || {
        let mut s = std::net::TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(std::time::Duration::from_secs(30)))
            .unwrap();
        send(&mut s, &post(ECHO_FLOAT, ""));
        let soap = read_response(&mut s).unwrap();
        send(&mut s, b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n");
        let health = read_response(&mut s).unwrap();
        send(
            &mut s,
            b"GET /echo?wsdl HTTP/1.1\r\nHost: app.example\r\n\r\n",
        );
        let wsdl = read_response(&mut s).unwrap();
        (soap, health, wsdl)
    })
    .await
    .unwrap();
    assert_eq!(r.0.status, 200);
    assert!(r.0.text().contains("<result>3.14159</result>"));
    assert_eq!(r.1.text(), "ok");
    assert!(
        r.2.text().contains("location=\"http://app.example/echo\""),
        "{}",
        r.2.text()
    );
}
