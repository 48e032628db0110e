//! The cost of WS-Security on the server per call: the same request to the same service bare,
//! behind [`Secured`] with a PasswordDigest token (SHA-1, replay cache), and with a
//! PasswordText token (argon2, by design slow). Each iteration carries a fresh nonce (built
//! outside the timed part). Report the ratio of `digest` (or `text`) to `bare` of one run.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::SystemTime;

use bytes::Bytes;
use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use soapstone_service::{service, Context, Fault, SoapRequest, SoapService, Version};
use soapstone_wssec::{hash_password, Secured, UsernameTokenHeader, UsersFile, WsseConfig};

#[service(name = "Echo", namespace = "urn:bench")]
pub trait Echo {
    /// Returns `x`, and who asked.
    async fn echo_float(&self, ctx: &Context, x: f32) -> Result<f32, Fault>;
}

struct Impl;

impl Echo for Impl {
    async fn echo_float(&self, ctx: &Context, x: f32) -> Result<f32, Fault> {
        let _ = ctx.principal();
        Ok(x)
    }
}

fn envelope(header: &str) -> Bytes {
    Bytes::from(format!(
        r#"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Header>{header}</soap:Header><soap:Body><e:echoFloat xmlns:e="urn:bench"><x>1.5</x></e:echoFloat></soap:Body></soap:Envelope>"#
    ))
}

fn bench(c: &mut Criterion) {
    let users = format!(
        "[users.u]\npermissions = [\"read\"]\npassword_hash = \"{}\"\ndigest_secret = \"d\"\n",
        hash_password("t")
    );
    let users = Arc::new(UsersFile::parse(&users).unwrap());
    let inner: Arc<dyn SoapService> = Arc::new(EchoServer::new(Impl));
    // Room for every nonce of a run (a full cache refuses, which would end the bench).
    let config = WsseConfig::default().replay_capacity(50_000_000);
    let secured = Secured::with_config(inner.clone(), users, config);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let counter = AtomicU64::new(0);
    let fresh = |h: &UsernameTokenHeader| {
        let n = counter.fetch_add(1, Ordering::Relaxed).to_le_bytes();
        envelope(&h.block_at(&n, SystemTime::now()))
    };
    let check = |resp: soapstone_service::SoapResponse| assert!(!resp.fault, "{:?}", resp.body);

    let mut g = c.benchmark_group("wssec_per_call");
    g.bench_function("bare", |b| {
        let body = envelope("");
        b.iter(|| {
            check(rt.block_on(inner.call(SoapRequest::new(Version::Soap11, None, body.clone()))))
        })
    });
    let digest = UsernameTokenHeader::digest("u", "d");
    g.bench_function("digest", |b| {
        b.iter_batched(
            || fresh(&digest),
            |body| check(rt.block_on(secured.call(SoapRequest::new(Version::Soap11, None, body)))),
            BatchSize::SmallInput,
        )
    });
    let text = UsernameTokenHeader::text("u", "t");
    g.sample_size(10);
    g.bench_function("text_argon2", |b| {
        b.iter_batched(
            || fresh(&text),
            |body| check(rt.block_on(secured.call(SoapRequest::new(Version::Soap11, None, body)))),
            BatchSize::SmallInput,
        )
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
