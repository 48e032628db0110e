//! The generated code against the original: each generated model writes back the WSDL it was
//! generated from; the snapshots in `wsdl/` are what `soapstone serve` publishes today; the
//! generated clients call the original services; the original, hand-declared clients call the
//! generated servers. SOAP 1.1 and 1.2, over real loopback sockets.

use std::sync::Arc;

use soapstone_build_test::{card, group_b, interop, news, tempuri};
use soapstone_server::Server;
use soapstone_service::{Fault, ServiceModel, SoapService};
use soapstone_services::echo;

const WSDL_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/wsdl");

fn snapshot(name: &str) -> String {
    std::fs::read_to_string(format!("{WSDL_DIR}/{name}.wsdl")).unwrap()
}

#[test]
fn snapshots_are_what_serve_publishes_and_generated_models_write_them_back() {
    let cases: [(&str, &str, &ServiceModel, &ServiceModel); 9] = [
        (
            "charging",
            "/charging",
            soapstone_services::charging::charging_model(),
            soapstone_build_test::charging::charging_model(),
        ),
        (
            "interop",
            "/echo",
            echo::interop_model(),
            interop::interop_test_model(),
        ),
        (
            "group_b",
            "/echo",
            echo::group_b_model(),
            group_b::interop_test_b_model(),
        ),
        (
            "tempuri",
            "/echo",
            echo::sam_ruby_model(),
            tempuri::echo_float_model(),
        ),
        (
            "card",
            "/wsb/card",
            soapstone_services::wsb::card_model(),
            card::card_service_model(),
        ),
        (
            "news",
            "/wsb/news",
            soapstone_services::wsb::news_model(),
            news::news_service_model(),
        ),
        (
            "shop",
            "/wsb/shop",
            soapstone_services::wsb::shop_model(),
            soapstone_build_test::shop::shop_service_model(),
        ),
        (
            "contacts",
            "/contacts",
            soapstone_services::contacts::contacts_model(),
            soapstone_build_test::contacts::contacts_model(),
        ),
        (
            "dp",
            "/dp",
            soapstone_services::dp::dp_model(),
            soapstone_build_test::dp::test_service_model(),
        ),
    ];
    for (name, path, original, generated) in cases {
        let endpoint = format!("http://localhost:8080{path}");
        let want = snapshot(name);
        // Regenerate `wsdl/` when this fails: the served WSDL changed.
        assert_eq!(
            soapstone_wsdl::wsdl(original, &endpoint),
            want,
            "wsdl/{name}.wsdl is stale"
        );
        assert_eq!(
            soapstone_wsdl::wsdl(generated, &endpoint),
            want,
            "generated {name}"
        );
    }
}

struct Running {
    url: String,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
}

async fn run(path: &str, service: Arc<dyn SoapService>) -> Running {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let serving = Server::builder()
        .mount(path, service)
        .serve_with_shutdown(listener, async move {
            let _ = rx.await;
        })
        .unwrap();
    let url = format!("http://{}{path}", serving.local_addr());
    let task = tokio::spawn(std::future::IntoFuture::into_future(serving));
    Running {
        url,
        shutdown: Some(tx),
        task,
    }
}

impl Running {
    async fn stop(mut self) {
        let _ = self.shutdown.take().unwrap().send(());
        self.task.await.unwrap().unwrap();
    }
}

#[tokio::test]
async fn generated_clients_call_the_original_services() {
    let echo_srv = run("/echo", echo::service()).await;
    let card_srv = run(
        "/wsb/card",
        Arc::new(soapstone_services::wsb::CardServer::new(
            soapstone_services::wsb::CardImpl,
        )),
    )
    .await;
    let news_srv = run(
        "/wsb/news",
        Arc::new(soapstone_services::wsb::NewsServer::new(
            soapstone_services::wsb::NewsImpl,
        )),
    )
    .await;
    for soap12 in [false, true] {
        let c = interop::InteropTestClient::new(&echo_srv.url).unwrap();
        let c = if soap12 { c.soap12() } else { c };
        assert_eq!(
            c.echo_string("Hello World".into()).await.unwrap(),
            "Hello World"
        );
        assert_eq!(c.echo_float(654.321).await.unwrap(), 654.321);
        assert_eq!(
            c.echo_integer_array(vec![1, -2, 3]).await.unwrap(),
            vec![1, -2, 3]
        );
        let s = interop::SOAPStruct {
            var_string: "a <&> b".into(),
            var_int: -7,
            var_float: 1.5,
        };
        assert_eq!(c.echo_struct(s.clone()).await.unwrap(), s);
        assert_eq!(
            c.echo_struct_array(vec![s.clone(), s.clone()])
                .await
                .unwrap(),
            vec![s.clone(), s.clone()]
        );
        c.echo_void().await.unwrap();
        assert!(c.echo_boolean(true).await.unwrap());

        let b = group_b::InteropTestBClient::new(&echo_srv.url).unwrap();
        let b = if soap12 { b.soap12() } else { b };
        let gs = group_b::SOAPStruct {
            var_string: "x".into(),
            var_int: 3,
            var_float: 0.25,
        };
        assert_eq!(
            b.echo_struct_as_simple_types(gs).await.unwrap(),
            ("x".to_string(), 3, 0.25)
        );
        let grid = vec![
            vec!["a".to_string(), "b".into()],
            vec!["c".into(), "d".into()],
        ];
        assert_eq!(b.echo2d_string_array(grid.clone()).await.unwrap(), grid);

        let t = tempuri::EchoFloatClient::new(&echo_srv.url).unwrap();
        let t = if soap12 { t.soap12() } else { t };
        assert_eq!(t.echo_float(1.25).await.unwrap(), 1.25);

        let k = card::CardServiceClient::new(&card_srv.url).unwrap();
        let k = if soap12 { k.soap12() } else { k };
        let ok = k
            .authorize(
                "4111111111111111".into(),
                "A".into(),
                "u".into(),
                10.0,
                "EUR".into(),
                "2010-01".into(),
            )
            .await
            .unwrap();
        assert!(ok);

        let n = news::NewsServiceClient::new(&news_srv.url).unwrap();
        let n = if soap12 { n.soap12() } else { n };
        let headlines = n
            .get_headlines(
                "2008-01-01".into(),
                "2008-01-02".into(),
                vec!["coruna-herald".into()],
            )
            .await
            .unwrap();
        assert!(!headlines.is_empty());
        assert!(
            headlines.iter().all(|h| h.source == "coruna-herald"),
            "{headlines:?}"
        );
    }
    echo_srv.stop().await;
    card_srv.stop().await;
    news_srv.stop().await;
}

/// A contract-first implementation of the generated trait.
struct Mirror;

impl interop::InteropTest for Mirror {
    async fn echo_string(&self, v: String) -> Result<String, Fault> {
        Ok(v)
    }
    async fn echo_string_array(&self, v: Vec<String>) -> Result<Vec<String>, Fault> {
        Ok(v)
    }
    async fn echo_integer(&self, v: i32) -> Result<i32, Fault> {
        if v == 13 {
            return Err(Fault::client("unlucky `13`"));
        }
        Ok(v)
    }
    async fn echo_integer_array(&self, v: Vec<i32>) -> Result<Vec<i32>, Fault> {
        Ok(v)
    }
    async fn echo_float(&self, v: f32) -> Result<f32, Fault> {
        Ok(v)
    }
    async fn echo_float_array(&self, v: Vec<f32>) -> Result<Vec<f32>, Fault> {
        Ok(v)
    }
    async fn echo_struct(&self, v: interop::SOAPStruct) -> Result<interop::SOAPStruct, Fault> {
        Ok(v)
    }
    async fn echo_struct_array(
        &self,
        v: Vec<interop::SOAPStruct>,
    ) -> Result<Vec<interop::SOAPStruct>, Fault> {
        Ok(v)
    }
    async fn echo_void(&self) -> Result<(), Fault> {
        Ok(())
    }
    async fn echo_base64(
        &self,
        v: soapstone_service::codec::xsd::Base64Binary,
    ) -> Result<soapstone_service::codec::xsd::Base64Binary, Fault> {
        Ok(v)
    }
    async fn echo_date(
        &self,
        v: soapstone_service::codec::xsd::DateTime,
    ) -> Result<soapstone_service::codec::xsd::DateTime, Fault> {
        Ok(v)
    }
    async fn echo_hex_binary(
        &self,
        v: soapstone_service::codec::xsd::HexBinary,
    ) -> Result<soapstone_service::codec::xsd::HexBinary, Fault> {
        Ok(v)
    }
    async fn echo_decimal(
        &self,
        v: soapstone_service::codec::xsd::Decimal,
    ) -> Result<soapstone_service::codec::xsd::Decimal, Fault> {
        Ok(v)
    }
    async fn echo_boolean(&self, v: bool) -> Result<bool, Fault> {
        Ok(v)
    }
}

#[tokio::test]
async fn the_original_client_calls_the_generated_server() {
    let srv = run("/echo", Arc::new(interop::InteropTestServer::new(Mirror))).await;
    // The generated server publishes the same WSDL as the original.
    let served = interop::InteropTestServer::<Mirror>::model();
    assert_eq!(
        soapstone_wsdl::wsdl(served, "http://localhost:8080/echo"),
        snapshot("interop")
    );
    for soap12 in [false, true] {
        let c = echo::InteropClient::new(&srv.url).unwrap();
        let c = if soap12 { c.soap12() } else { c };
        assert_eq!(
            c.echo_string(Some("hi".into())).await.unwrap(),
            Some("hi".into())
        );
        assert_eq!(c.echo_integer(42).await.unwrap(), 42);
        let s = echo::SoapStruct {
            var_string: "s".into(),
            var_int: 1,
            var_float: 2.5,
        };
        assert_eq!(c.echo_struct(s.clone()).await.unwrap(), s);
        assert_eq!(
            c.echo_float_array(vec![0.5, 1.5]).await.unwrap(),
            vec![0.5, 1.5]
        );
        // A Fault from the implementation reaches the client as a Fault.
        let e = c.echo_integer(13).await.unwrap_err();
        let fault = e.fault().expect("a fault");
        assert_eq!(fault.reason, "unlucky `13`");
    }
    srv.stop().await;
}
