//! García's response cache (`serve --response-cache news,shop`, seed 004 §V): raw requests over
//! a real TcpStream to the news service built with the settings `soapstone serve` gives it, its
//! handler counted. The same request twice is one handler run and byte-identical answers; a
//! different request, a fault, or a cache that is off runs the handler; the entry bound holds.

mod common;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use common::server::{post, Reply, TestServer};
use soapstone_server::Server;
use soapstone_service::Fault;
use soapstone_services::wsb::news::Headline;
use soapstone_services::wsb::{News, NewsImpl, NewsServer};
use soapstone_services::{CachedService, ServiceKind, ServicesConfig};

/// The real news service, counting its calls.
#[derive(Default)]
struct Counted {
    calls: AtomicUsize,
}

impl News for Counted {
    async fn get_headlines(
        &self,
        from: String,
        to: String,
        sources: Vec<String>,
    ) -> Result<Vec<Headline>, Fault> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        NewsImpl.get_headlines(from, to, sources).await
    }
    async fn get_sources(&self) -> Result<Vec<String>, Fault> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        NewsImpl.get_sources().await
    }
}

/// The news service on a free port, built as `serve` builds it from `config`.
async fn news(
    config: &ServicesConfig,
) -> (SocketAddr, Arc<Counted>, tokio::sync::oneshot::Sender<()>) {
    let counted = Arc::new(Counted::default());
    let service = NewsServer::from_arc(Arc::clone(&counted))
        .with_config(config.cached_service_config(CachedService::News));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let serving = Server::builder()
        .mount("/wsb/news", Arc::new(service))
        .serve_with_shutdown(listener, async move {
            let _ = rx.await;
        })
        .unwrap();
    let addr = serving.local_addr();
    tokio::spawn(std::future::IntoFuture::into_future(serving));
    (addr, counted, tx)
}

/// A getHeadlines envelope for `day` of two sources, written with the prefix `p`.
fn query(p: &str, day: &str) -> String {
    format!(
        "<{p}:Envelope xmlns:{p}=\"http://schemas.xmlsoap.org/soap/envelope/\"><{p}:Body>\
         <n:getHeadlines xmlns:n=\"urn:soapstone:wsb:news\"><n:from>{day}</n:from><n:to>{day}</n:to>\
         <n:sources>coruna-herald</n:sources><n:sources>tech-dispatch</n:sources></n:getHeadlines>\
         </{p}:Body></{p}:Envelope>"
    )
}

async fn ask(addr: SocketAddr, envelope: &str) -> Reply {
    post(addr, "/wsb/news", "", envelope).await
}

fn cache_on() -> ServicesConfig {
    let mut c = ServicesConfig::default();
    c.response_cache = vec![CachedService::News, CachedService::Shop];
    c
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn same_request_is_answered_once_and_byte_identical() {
    let (addr, counted, _stop) = news(&cache_on()).await;
    let first = ask(addr, &query("soap", "2008-01-14")).await;
    assert_eq!(first.status, 200, "{}", first.body);
    assert!(first.body.contains("<title>"), "{}", first.body);
    // The same request, written with another prefix: the key is the canonical request.
    let second = ask(addr, &query("s", "2008-01-14")).await;
    assert_eq!(second.status, 200);
    assert_eq!(first.body, second.body, "byte-identical answers");
    assert_eq!(
        counted.calls.load(Ordering::SeqCst),
        1,
        "the handler ran once"
    );

    // Another day is another request: computed, and a different answer.
    let other = ask(addr, &query("soap", "2008-01-15")).await;
    assert_eq!(other.status, 200);
    assert_ne!(other.body, first.body);
    assert_eq!(counted.calls.load(Ordering::SeqCst), 2);

    // A fault is never kept: the handler runs for each.
    for _ in 0..2 {
        let bad = ask(addr, &query("soap", "2008-1-14")).await;
        assert_eq!(bad.status, 500);
        assert!(bad.body.contains("is not a date"), "{}", bad.body);
    }
    assert_eq!(counted.calls.load(Ordering::SeqCst), 4);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn off_by_default_every_request_is_computed() {
    let (addr, counted, _stop) = news(&ServicesConfig::default()).await;
    let a = ask(addr, &query("soap", "2008-01-14")).await;
    let b = ask(addr, &query("soap", "2008-01-14")).await;
    assert_eq!((a.status, b.status), (200, 200));
    assert_eq!(
        a.body, b.body,
        "the answer is a pure function of the request"
    );
    assert_eq!(
        counted.calls.load(Ordering::SeqCst),
        2,
        "no cache: run twice"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_entry_bound_holds() {
    let mut config = cache_on();
    config.service.cache_capacity = 2;
    let (addr, counted, _stop) = news(&config).await;
    // Two generations of one entry each: a third day evicts the first.
    for day in ["2008-01-01", "2008-01-02", "2008-01-03"] {
        assert_eq!(ask(addr, &query("soap", day)).await.status, 200);
    }
    assert_eq!(counted.calls.load(Ordering::SeqCst), 3);
    assert_eq!(ask(addr, &query("soap", "2008-01-03")).await.status, 200);
    assert_eq!(
        counted.calls.load(Ordering::SeqCst),
        3,
        "the newest is kept"
    );
    assert_eq!(ask(addr, &query("soap", "2008-01-01")).await.status, 200);
    assert_eq!(
        counted.calls.load(Ordering::SeqCst),
        4,
        "the oldest was dropped"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_byte_bound_holds() {
    let mut config = cache_on();
    // A two-source day is ~8 KB of answer: 4 KiB per generation keeps none of them.
    config.service.cache_max_bytes = 8 << 10;
    let (addr, counted, _stop) = news(&config).await;
    let a = ask(addr, &query("soap", "2008-01-14")).await;
    assert!(a.body.len() > 4 << 10, "{} bytes", a.body.len());
    let b = ask(addr, &query("soap", "2008-01-14")).await;
    assert_eq!(a.body, b.body);
    assert_eq!(counted.calls.load(Ordering::SeqCst), 2, "too large to keep");
}

/// `serve`'s own services with the cache on: the shop's answer twice is byte-identical and
/// the card, never cached, still answers each payment.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn served_shop_and_card_with_the_cache_on() {
    let mut config = cache_on();
    config.services = vec![ServiceKind::Wsb];
    let s = TestServer::start(config).await;
    let shop =
        "<soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\"><soap:Body>\
        <w:findOffers xmlns:w=\"urn:soapstone:wsb:shop\"><w:productKey>SKU-12345</w:productKey>\
        <w:properties><w:name>color</w:name><w:value>red</w:value></w:properties>\
        <w:expires>2008-06-30</w:expires></w:findOffers></soap:Body></soap:Envelope>";
    let a = post(s.addr, "/wsb/shop", "", shop).await;
    let b = post(s.addr, "/wsb/shop", "", shop).await;
    assert_eq!((a.status, b.status), (200, 200), "{}", a.body);
    assert!(
        a.body.contains("<offer>") || a.body.contains(":offer>"),
        "{}",
        a.body
    );
    assert_eq!(a.body, b.body);
    let card = |amount: &str| {
        format!(
            "<soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\"><soap:Body>\
             <w:authorize xmlns:w=\"urn:soapstone:wsb:card\"><w:account>4111111111111111</w:account>\
             <w:holder>Ana Garcia</w:holder><w:userId>user-1001</w:userId><w:amount>{amount}</w:amount>\
             <w:currency>EUR</w:currency><w:expiry>2009-06</w:expiry></w:authorize></soap:Body></soap:Envelope>"
        )
    };
    let small = post(s.addr, "/wsb/card", "", &card("125.5")).await;
    let huge = post(s.addr, "/wsb/card", "", &card("1000000")).await;
    assert!(small.body.contains(">true<"), "{}", small.body);
    assert!(huge.body.contains(">false<"), "{}", huge.body);
    s.stop().await;
}

/// `--cache-ttl`: an answer is served from the cache until its time to live has passed since it
/// was computed, then computed again. With a 300 ms TTL, each pair of requests is judged only
/// where the clock decides it: a request that reached the server less than the TTL after the
/// previous computation started must be a hit (the handler count unchanged), one sent at least
/// the TTL after the previous computation's answer came back must be a miss (counted once more).
/// The loop waits for both kinds (no sleep decides the outcome) and fails after 60 s without them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_expire_after_the_ttl_and_are_computed_again() {
    use std::time::{Duration, Instant};
    let ttl = Duration::from_millis(300);
    let mut config = cache_on();
    config.service.cache_ttl = Some(ttl);
    let (addr, counted, _stop) = news(&config).await;
    let envelope = query("soap", "2008-01-14");
    let calls = || counted.calls.load(Ordering::SeqCst);

    // The first computation: it started at or after `sent`, finished by `received`.
    let sent = Instant::now();
    let first = ask(addr, &envelope).await;
    let mut computed = (sent, Instant::now());
    assert_eq!(first.status, 200, "{}", first.body);
    assert_eq!(calls(), 1);

    let (mut hits, mut misses) = (0, 0);
    let deadline = Instant::now() + Duration::from_secs(60);
    while hits < 2 || misses < 2 {
        assert!(
            Instant::now() < deadline,
            "{hits} hits and {misses} misses judged in 60 s"
        );
        // Alternate: right away (a hit if the clock allows), then after the TTL (a miss).
        if hits <= misses {
            let before = calls();
            let sent = Instant::now();
            let reply = ask(addr, &envelope).await;
            let received = Instant::now();
            assert_eq!(
                reply.body, first.body,
                "the same answer, cached or computed"
            );
            if received.duration_since(computed.0) < ttl {
                assert_eq!(
                    calls(),
                    before,
                    "asked within the TTL: served from the cache"
                );
                hits += 1;
            } else if calls() > before {
                computed = (sent, received);
            }
        } else {
            let wait = ttl.saturating_sub(computed.1.elapsed());
            tokio::time::sleep(wait + Duration::from_millis(20)).await;
            let before = calls();
            let sent = Instant::now();
            let reply = ask(addr, &envelope).await;
            let received = Instant::now();
            assert_eq!(reply.body, first.body);
            assert!(sent.duration_since(computed.1) >= ttl);
            assert_eq!(calls(), before + 1, "asked after the TTL: computed again");
            computed = (sent, received);
            misses += 1;
        }
    }
}
