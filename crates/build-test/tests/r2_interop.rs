//! SOAPBuilders Round 2 base exactly as published (`testdata/soapbuilders-round2-wsdl/
//! r2-interop.wsdl`): rpc/encoded with its types in `http://soapinterop.org/xsd`, not in the
//! service namespace, and one SOAPAction for every operation. The generated client names
//! `SOAPStruct` in its own namespace on the wire (checked in the encoded bytes) and calls soapstone's interop service; the served WSDL declares the second schema.

use soapstone_build_test::r2_interop::{InteropTestClient, SOAPStruct};
use soapstone_server::Server;
use soapstone_services::echo;

#[tokio::test]
async fn the_generated_client_calls_the_interop_service() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let serving = Server::builder()
        .mount("/echo", echo::service())
        .serve_with_shutdown(listener, async move {
            let _ = rx.await;
        })
        .unwrap();
    let url = format!("http://{}/echo", serving.local_addr());
    let task = tokio::spawn(std::future::IntoFuture::into_future(serving));
    let s = SOAPStruct {
        var_string: "a <b>".into(),
        var_int: 7,
        var_float: 2.5,
    };
    for soap12 in [false, true] {
        let c = InteropTestClient::new(&url).unwrap();
        let c = if soap12 { c.soap12() } else { c };
        assert_eq!(c.echo_struct(s.clone()).await.unwrap(), s);
        assert_eq!(
            c.echo_struct_array(vec![s.clone(), s.clone()])
                .await
                .unwrap(),
            vec![s.clone(), s.clone()]
        );
        assert_eq!(
            c.echo_string_array(vec!["x".into(), "y".into()])
                .await
                .unwrap(),
            ["x", "y"]
        );
        assert_eq!(c.echo_integer(-3).await.unwrap(), -3);
    }
    let _ = tx.send(());
    task.await.unwrap().unwrap();
}

#[test]
fn soap_struct_is_named_in_its_own_namespace() {
    let mut opts = soapstone_service::codec::EncodeOptions::default();
    opts.style = soapstone_service::codec::Style::Encoded;
    let mut out = Vec::new();
    let wrapper = soapstone_service::QName::new("http://soapinterop.org/", "echoStruct");
    // A map is written like a struct: one child per entry.
    let args = std::collections::BTreeMap::from([(
        "inputStruct",
        SOAPStruct {
            var_string: "a".into(),
            var_int: 1,
            var_float: 1.0,
        },
    )]);
    soapstone_service::codec::encode(&mut out, &opts, &[], &wrapper, &args).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.contains(r#"xsi:type="ns1:SOAPStruct" xmlns:ns1="http://soapinterop.org/xsd""#),
        "{text}"
    );
}

#[test]
fn the_generated_model_publishes_the_second_schema() {
    let model = soapstone_build_test::r2_interop::interop_test_model();
    let wsdl = soapstone_wsdl::wsdl(model, "http://localhost:8080/echo");
    assert!(
        wsdl.contains(r#"<xsd:schema targetNamespace="http://soapinterop.org/xsd">"#),
        "{wsdl}"
    );
    assert!(
        wsdl.contains(r#"<xsd:complexType name="SOAPStruct">"#),
        "{wsdl}"
    );
    // Read back, it lowers to the same operations and types.
    let dir = std::env::temp_dir().join(format!("soapstone-r2-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("r2.wsdl");
    std::fs::write(&path, &wsdl).unwrap();
    let defs = soapstone_wsdl::read::read(
        path.to_str().unwrap(),
        &soapstone_wsdl::read::ReadOptions::default(),
    )
    .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let port = defs.default_port("InteropTest").unwrap().to_string();
    let again = defs.service_model("InteropTest", &port).unwrap();
    // (An rpc part has no `nillable`, so only names and types are compared.)
    let shape = |m: &soapstone_service::ServiceModel| -> Vec<(String, Vec<(String, String)>)> {
        m.operations
            .iter()
            .map(|op| {
                let parts = op.input.iter().chain(&op.output);
                let parts = parts.map(|p| (p.name.clone(), format!("{:?}", p.ty.name)));
                (op.name.clone(), parts.collect())
            })
            .collect()
    };
    assert_eq!(shape(&again), shape(model));
}
