//! The client side: a [`HeaderSource`] that writes a `wsse:Security` header with a
//! UsernameToken (text or digest, a fresh nonce and created time per call) and optionally a
//! `wsu:Timestamp`, into every call of a soapstone client.
//!
//! Must never: reuse a nonce (16 random bytes from the OS per call), or write the password in
//! clear when asked for a digest.

use std::time::{Duration, SystemTime};

use base64::Engine as _;
use ring::rand::SecureRandom as _;
use soapstone_client::HeaderSource;

use crate::token::{BASE64_BINARY, PASSWORD_DIGEST, PASSWORD_TEXT};
use crate::{auth::password_digest, time, WSSE_NS, WSU_NS};

/// A UsernameToken for every call (see the module documentation).
#[derive(Clone)]
pub struct UsernameTokenHeader {
    username: String,
    password: String,
    digest: bool,
    timestamp: Option<Duration>,
    must_understand: bool,
}

impl std::fmt::Debug for UsernameTokenHeader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UsernameTokenHeader")
            .field("username", &self.username)
            .field("digest", &self.digest)
            .field("timestamp", &self.timestamp)
            .finish_non_exhaustive()
    }
}

fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

impl UsernameTokenHeader {
    /// A PasswordText token (send it over https only): nonce and created included.
    pub fn text(username: impl Into<String>, password: impl Into<String>) -> Self {
        UsernameTokenHeader {
            username: username.into(),
            password: password.into(),
            digest: false,
            timestamp: None,
            must_understand: true,
        }
    }

    /// A PasswordDigest token: Base64(SHA-1(nonce + created + password)).
    pub fn digest(username: impl Into<String>, password: impl Into<String>) -> Self {
        UsernameTokenHeader {
            digest: true,
            ..UsernameTokenHeader::text(username, password)
        }
    }

    /// Adds a `wsu:Timestamp` that expires `ttl` after the call. Default: none.
    pub fn timestamp(mut self, ttl: Duration) -> Self {
        self.timestamp = Some(ttl);
        self
    }

    /// Writes `mustUnderstand="1"` on the Security header (a server without WS-Security then
    /// refuses the call instead of ignoring the credentials). Default: `true`.
    pub fn must_understand(mut self, on: bool) -> Self {
        self.must_understand = on;
        self
    }

    /// The header block with this nonce at this time (what [`HeaderSource::header_blocks`]
    /// writes, with a fresh nonce and the current time). Its `mustUnderstand` uses the
    /// envelope's `soap:` prefix, which the codec declares.
    pub fn block_at(&self, nonce: &[u8], now: SystemTime) -> String {
        self.write_block(" soap:mustUnderstand=\"1\"", nonce, now)
    }

    /// The header block declaring the envelope namespace `envelope_ns` itself (as `se:`) for
    /// its `mustUnderstand`, so it fits into any envelope whatever its prefix: for tools that
    /// splice it into envelopes they did not write (`soapstone bench`).
    pub fn block_for_envelope_at(
        &self,
        envelope_ns: &str,
        nonce: &[u8],
        now: SystemTime,
    ) -> String {
        let mu = format!(
            " xmlns:se=\"{}\" se:mustUnderstand=\"1\"",
            escape(envelope_ns)
        );
        self.write_block(&mu, nonce, now)
    }

    fn write_block(&self, must_understand: &str, nonce: &[u8], now: SystemTime) -> String {
        let now = time::millis(now);
        let created = time::format(now);
        let b64 = base64::engine::general_purpose::STANDARD;
        let (kind, password) = if self.digest {
            let d = password_digest(nonce, &created, &self.password);
            (PASSWORD_DIGEST, b64.encode(d))
        } else {
            (PASSWORD_TEXT, escape(&self.password))
        };
        let mu = if self.must_understand {
            must_understand
        } else {
            ""
        };
        let mut out = String::with_capacity(640);
        out.push_str(&format!(
            "<wsse:Security xmlns:wsse=\"{WSSE_NS}\" xmlns:wsu=\"{WSU_NS}\"{mu}>"
        ));
        if let Some(ttl) = self.timestamp {
            out.push_str(&format!(
                "<wsu:Timestamp><wsu:Created>{created}</wsu:Created><wsu:Expires>{}</wsu:Expires></wsu:Timestamp>",
                time::format(now.saturating_add(time::ms(ttl)))
            ));
        }
        out.push_str(&format!(
            "<wsse:UsernameToken><wsse:Username>{}</wsse:Username>\
             <wsse:Password Type=\"{kind}\">{password}</wsse:Password>\
             <wsse:Nonce EncodingType=\"{BASE64_BINARY}\">{}</wsse:Nonce>\
             <wsu:Created>{created}</wsu:Created></wsse:UsernameToken></wsse:Security>",
            escape(&self.username),
            b64.encode(nonce),
        ));
        out
    }
}

impl HeaderSource for UsernameTokenHeader {
    fn header_blocks(&self) -> Vec<String> {
        let mut nonce = [0u8; 16];
        // The OS generator does not fail on Linux once booted; if it ever did, a nonce of the
        // clock's nanoseconds still differs per call (the server would refuse a repeat).
        if ring::rand::SystemRandom::new().fill(&mut nonce).is_err() {
            let t = SystemTime::now()
                .duration_since(SystemTime::UNIX_EPOCH)
                .unwrap_or_default()
                .as_nanos();
            nonce.copy_from_slice(&t.to_le_bytes());
        }
        vec![self.block_at(&nonce, SystemTime::now())]
    }
}
