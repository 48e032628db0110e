//! Sun WSTest 1.0, contract first: the server generated from `testdata/wstest/conf/wstest.wsdl`
//! answers the benchmark's own POST bodies (`testdata/wstest/scripts/bench/post_files`, raw
//! bytes over a TcpStream), the generated client, and the dynamic client reading the same WSDL.

use std::sync::Arc;

use serde_json::json;
use soapstone_build_test::wstest::{
    COfTestStruct, Order, Synthetic, TestNode, TestService, TestServiceClient, TestServiceServer,
    TestStruct,
};
use soapstone_server::Server;
use soapstone_service::Fault;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const TESTDATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/wstest");

struct Echo;

impl TestService for Echo {
    async fn echo_synthetic(&self, synth: Option<Synthetic>) -> Result<Option<Synthetic>, Fault> {
        Ok(synth)
    }
    async fn echo_struct(&self, array: COfTestStruct) -> Result<COfTestStruct, Fault> {
        Ok(array)
    }
    async fn echo_void(&self) -> Result<(), Fault> {
        Ok(())
    }
    async fn echo_list(&self, list: Option<TestNode>) -> Result<Option<TestNode>, Fault> {
        Ok(list)
    }
    async fn get_order(&self, _: i32, _: i32, _: i32) -> Result<Order, Fault> {
        Err(Fault::server("`GetOrder` is not part of this test"))
    }
}

async fn post(addr: std::net::SocketAddr, action: &str, body: &[u8]) -> (u16, String) {
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "POST /wstest HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml; charset=utf-8\r\nSOAPAction: \"{action}\"\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    s.write_all(&[head.as_bytes(), body].concat())
        .await
        .unwrap();
    let mut buf = Vec::new();
    tokio::time::timeout(std::time::Duration::from_secs(30), s.read_to_end(&mut buf))
        .await
        .expect("an answer in time")
        .unwrap();
    let text = String::from_utf8(buf).unwrap();
    let status = text[9..12].parse().unwrap();
    (status, text)
}

#[tokio::test]
async fn the_generated_wstest_server_answers_the_benchmark_and_both_clients() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let serving = Server::builder()
        .mount("/wstest", Arc::new(TestServiceServer::new(Echo)))
        .serve_with_shutdown(listener, async move {
            let _ = rx.await;
        })
        .unwrap();
    let addr = serving.local_addr();
    let task = tokio::spawn(std::future::IntoFuture::into_future(serving));
    let url = format!("http://{addr}/wstest");

    // The benchmark's own request bodies, as its load driver sends them.
    let files = format!("{TESTDATA}/scripts/bench/post_files");
    for (file, action) in [
        ("echostruct20.xml", "EchoStruct"),
        ("echolist20.xml", "EchoList"),
    ] {
        let body = std::fs::read(format!("{files}/{file}")).unwrap();
        // Every item sent comes back (echolist20.xml holds 22 nodes, despite its name).
        let items = String::from_utf8_lossy(&body)
            .matches("<s>wstest</s>")
            .count();
        assert!(items >= 20, "{file}");
        let (status, reply) =
            post(addr, &format!("uri:WSTestWeb-TestService/{action}"), &body).await;
        assert_eq!(status, 200, "{file}: {reply}");
        assert_eq!(
            reply.matches("<s>wstest</s>").count(),
            items,
            "{file}: {reply}"
        );
    }

    // The generated client.
    let client = TestServiceClient::new(&url).unwrap();
    let array = COfTestStruct {
        l: (0..3)
            .map(|i| TestStruct {
                i,
                f: i as f32 / 2.0,
                s: format!("item {i} <&>"),
            })
            .collect(),
    };
    assert_eq!(client.echo_struct(array.clone()).await.unwrap(), array);
    let list = TestNode {
        i: 1,
        f: 1.5,
        s: "head".into(),
        next: Some(Box::new(TestNode {
            i: 2,
            f: 2.5,
            s: "tail".into(),
            next: None,
        })),
    };
    assert_eq!(
        client.echo_list(Some(list.clone())).await.unwrap(),
        Some(list)
    );
    client.echo_void().await.unwrap();
    let fault = client.get_order(1, 2, 3).await.unwrap_err();
    assert!(fault.fault().is_some(), "{fault:?}");

    // The dynamic client, from the vendor's WSDL file with the endpoint overridden.
    let defs = soapstone_wsdl::read::read(
        &format!("{TESTDATA}/conf/wstest.wsdl"),
        &soapstone_wsdl::read::ReadOptions::default(),
    )
    .unwrap();
    let mut target = soapstone_dynamic::Target::default();
    target.endpoint = Some(url.clone());
    let dynamic = soapstone_dynamic::DynamicClient::new(Arc::new(defs), &target).unwrap();
    let args =
        json!({"array": {"l": [{"i": 7, "f": 0.5, "s": "x"}, {"i": 8, "f": 1.0, "s": "y"}]}});
    let answer = dynamic.call("EchoStruct", &args).await.unwrap();
    assert_eq!(
        answer.value,
        json!({"l": [{"i": 7, "f": 0.5, "s": "x"}, {"i": 8, "f": 1.0, "s": "y"}]})
    );

    let _ = tx.send(());
    task.await.unwrap().unwrap();
}
