//! The request's `tracing` span (`soap_request`) as a subscriber sees it.
//!
//! A test binary of its own: `tracing` caches per call site whether any dispatcher wants it,
//! and a call site first reached by another test's thread (with no subscriber) while this
//! test sets its own can keep the stale "never" (the test failed that way once in CI, beside
//! `tower.rs`'s other tests). Alone in its process, the call site is first reached here.

mod common;

use std::sync::Arc;

use common::*;
use http_body_util::Full;
use tower::ServiceExt as _;

/// Records the `soap_request` spans: created, entered, and the fields recorded on them.
#[derive(Default)]
struct Spans {
    state: std::sync::Mutex<(Vec<&'static str>, usize, Vec<String>)>,
}

impl tracing::Subscriber for Spans {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, span: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        let mut s = self.state.lock().unwrap();
        s.0.push(span.metadata().name());
        tracing::span::Id::from_u64(s.0.len() as u64)
    }
    fn record(&self, _: &tracing::span::Id, values: &tracing::span::Record<'_>) {
        struct Fields<'a>(&'a mut Vec<String>);
        impl tracing::field::Visit for Fields<'_> {
            fn record_debug(&mut self, f: &tracing::field::Field, v: &dyn std::fmt::Debug) {
                self.0.push(format!("{}={v:?}", f.name()));
            }
        }
        values.record(&mut Fields(&mut self.state.lock().unwrap().2));
    }
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, _: &tracing::Event<'_>) {}
    fn enter(&self, _: &tracing::span::Id) {
        self.state.lock().unwrap().1 += 1;
    }
    fn exit(&self, _: &tracing::span::Id) {}
}

/// The request's span is skipped only when no subscriber wants it: one that does sees it
/// made, entered while the request is handled, and its operation and status recorded.
#[tokio::test]
async fn a_subscriber_sees_the_request_span() {
    let spans = Arc::new(Spans::default());
    let _guard = tracing::subscriber::set_default(spans.clone());
    let req = http::Request::post("/echo")
        .header("content-type", "text/xml")
        .body(Full::new(bytes::Bytes::from_static(ECHO_FLOAT.as_bytes())))
        .unwrap();
    let resp = soap_server().oneshot(req).await.unwrap();
    assert_eq!(resp.status(), 200);
    let s = spans.state.lock().unwrap();
    assert!(s.0.contains(&"soap_request"), "{:?}", s.0);
    assert!(s.1 >= 1, "the span was never entered");
    assert!(s.2.contains(&"status=200".to_owned()), "{:?}", s.2);
}
