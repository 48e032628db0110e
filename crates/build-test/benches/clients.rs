//! The client generated from the echo WSDL against the hand-declared `#[service]` client, side by
//! side in one run, calling the same in-process server over loopback: `clients/echoStruct` and
//! `clients/echoFloatArray100` with `generated` and `hand-declared`. Both are the code of one
//! emitter, so the ratio should be 1 within noise; this measures that it is.

use criterion::{criterion_group, criterion_main, Criterion};
use soapstone_build_test::interop;
use soapstone_server::Server;
use soapstone_services::echo;

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (url, _shutdown) = rt.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let serving = Server::builder()
            .mount("/echo", echo::service())
            .serve_with_shutdown(listener, async move {
                let _ = rx.await;
            })
            .unwrap();
        let url = format!("http://{}/echo", serving.local_addr());
        tokio::spawn(std::future::IntoFuture::into_future(serving));
        (url, tx)
    });
    let generated = interop::InteropTestClient::new(&url).unwrap();
    let hand = echo::InteropClient::new(&url).unwrap();
    let g_struct = interop::SOAPStruct {
        var_string: "Hello World".into(),
        var_int: 42,
        var_float: 3.5,
    };
    let h_struct = echo::SoapStruct {
        var_string: "Hello World".into(),
        var_int: 42,
        var_float: 3.5,
    };
    let floats: Vec<f32> = (0..100).map(|i| i as f32 * 0.5).collect();

    let mut g = c.benchmark_group("clients/echoStruct");
    g.bench_function("generated", |b| {
        b.iter(|| {
            rt.block_on(generated.echo_struct(g_struct.clone()))
                .unwrap()
        })
    });
    g.bench_function("hand-declared", |b| {
        b.iter(|| rt.block_on(hand.echo_struct(h_struct.clone())).unwrap())
    });
    g.finish();
    let mut g = c.benchmark_group("clients/echoFloatArray100");
    g.bench_function("generated", |b| {
        b.iter(|| {
            rt.block_on(generated.echo_float_array(floats.clone()))
                .unwrap()
        })
    });
    g.bench_function("hand-declared", |b| {
        b.iter(|| rt.block_on(hand.echo_float_array(floats.clone())).unwrap())
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
