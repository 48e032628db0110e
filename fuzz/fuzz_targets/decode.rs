//! Envelope decoding, then body decoding into a few typed structs in both styles, headers and
//! faults, then the response built from what was decoded (as a server echoes it): whatever the
//! bytes, the codec returns `Ok` or an error and never panics, and memory stays within a
//! multiple of the input.
//!
//! A counting global allocator tracks, per input, the largest single allocation and the peak
//! of bytes live; either past its bound (`LARGEST`/`PEAK` below, far above what an honest
//! decode needs, far below what a multi-ref amplification makes) aborts the run like a crash,
//! so an amplification route is found and shrunk like any other bug.
//! A crash found here is shrunk (`cargo fuzz tmin decode <file>`) and added as an ordinary
//! test to `crates/codec/tests/mutations.rs` (module `regressions`).
#![no_main]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use libfuzzer_sys::fuzz_target;
use serde::{Deserialize, Serialize};
use soapstone_codec::{encode, xsd, EncodeOptions, Envelope, Limits, QName, Style};

/// Counts live bytes, their peak and the largest single request since the last reset.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static LARGEST: AtomicUsize = AtomicUsize::new(0);

fn grew(size: usize) {
    let live = LIVE.fetch_add(size, Ordering::Relaxed) + size;
    PEAK.fetch_max(live, Ordering::Relaxed);
    LARGEST.fetch_max(size, Ordering::Relaxed);
}

// SAFETY: every call is passed on to `System` unchanged; the counters are atomics.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        System.alloc(layout)
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        System.alloc_zeroed(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        System.dealloc(ptr, layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size >= layout.size() {
            grew(new_size - layout.size());
            LARGEST.fetch_max(new_size, Ordering::Relaxed);
        } else {
            LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
        }
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// The bounds per input of `n` bytes. Text decoded is at most `n` plus the multi-ref budget
/// (`4 n + 64 KiB`); each element read makes at most one value, whose size depends on the
/// target type (a `String` is 24 bytes for the 4 bytes of `<a/>`), and vectors double.
fn largest_bound(n: usize) -> usize {
    32 * n + (1 << 20)
}
fn peak_bound(n: usize) -> usize {
    64 * n + (4 << 20)
}

#[derive(Debug, Serialize, Deserialize)]
struct Reserve {
    id: i32,
    am: Option<i64>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct SoapStruct {
    var_string: String,
    var_int: i32,
    var_float: f32,
}

#[derive(Debug, Serialize, Deserialize)]
struct Many {
    #[serde(rename = "inputStringArray")]
    strings: Option<Vec<String>>,
    #[serde(rename = "inputStruct")]
    st: Option<SoapStruct>,
    #[serde(rename = "input2DStringArray")]
    grid: Option<Vec<Vec<String>>>,
    #[serde(rename = "inputDate")]
    date: Option<xsd::DateTime>,
    #[serde(rename = "inputBase64")]
    b64: Option<xsd::Base64Binary>,
    #[serde(rename = "inputDecimal")]
    dec: Option<xsd::Decimal>,
}

/// Writes the response a server would send for `value`, with a server's response limit, and
/// reads it back.
fn respond<T: Serialize + for<'de> Deserialize<'de>>(value: &T, style: Style) {
    let mut opts = EncodeOptions::default();
    opts.style = style;
    opts.max_bytes = 16 << 20;
    let mut out = Vec::new();
    if encode(&mut out, &opts, &[], &QName::new("urn:fuzz", "opResponse"), value).is_ok() {
        assert!(out.len() <= opts.max_bytes);
        if let Ok(env) = Envelope::parse(&out, &Limits::default()) {
            let _ = env.body::<T>(style);
        }
    }
}

fn run(bytes: &[u8]) {
    let limits = Limits::default();
    let Ok(env) = Envelope::parse(bytes, &limits) else { return };
    for i in 0..env.headers().len() {
        let _ = env.header_xml(i);
        let _ = env.header::<serde::de::IgnoredAny>(i, Style::Literal);
        let _ = env.header::<Many>(i, Style::Encoded);
    }
    if env.is_fault() {
        let _ = env.fault();
    }
    for style in [Style::Literal, Style::Encoded] {
        if let Ok(v) = env.body::<Reserve>(style) {
            respond(&v, style);
        }
        if let Ok(v) = env.body::<Many>(style) {
            respond(&v, style);
        }
        if let Ok(v) = env.body::<SoapStruct>(style) {
            respond(&v, style);
        }
        let _ = env.body::<serde::de::IgnoredAny>(style);
        let _ = env.body::<()>(style);
    }
}

fuzz_target!(|bytes: &[u8]| {
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    LARGEST.store(0, Ordering::Relaxed);
    run(bytes);
    let largest = LARGEST.load(Ordering::Relaxed);
    let peak = PEAK.load(Ordering::Relaxed).saturating_sub(base);
    assert!(
        largest <= largest_bound(bytes.len()),
        "largest allocation {largest} bytes for an input of {} bytes",
        bytes.len()
    );
    assert!(
        peak <= peak_bound(bytes.len()),
        "peak {peak} bytes live for an input of {} bytes",
        bytes.len()
    );
});
