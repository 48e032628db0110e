//! Hostile nesting before authentication: `Secured` reads the `wsse:Security` block with a DOM
//! parser (roxmltree) that recurses once per element level, over the whole request envelope,
//! before any credential is checked. A body nested deep enough must be refused with
//! `wsse:InvalidSecurity`, never overflow the stack (which aborts the server process: no panic
//! to catch, every connection gone).

use soapstone_wssec::{token, WsseFault};

fn nested(depth: usize) -> String {
    format!(
        r#"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Header/><s:Body>{}{}</s:Body></s:Envelope>"#,
        "<a>".repeat(depth),
        "</a>".repeat(depth)
    )
}

#[test]
fn a_deeply_nested_request_is_refused_before_it_is_parsed() {
    // On a thread with a small stack, as a server's worker may be: 200,000 levels (1.4 MB,
    // under the server's 4 MiB body limit) overflowed it.
    let worker = std::thread::Builder::new()
        .stack_size(512 << 10)
        .spawn(|| {
            let deep = nested(200_000);
            assert!(matches!(
                token::read(deep.as_bytes()),
                Err(WsseFault::InvalidSecurity)
            ));
            // a usual envelope still reads (no Security block: `None`)
            assert!(matches!(token::read(nested(30).as_bytes()), Ok(None)));
        })
        .unwrap();
    worker.join().unwrap();
}
