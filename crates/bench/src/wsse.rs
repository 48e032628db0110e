//! WS-Security UsernameToken headers for `soapstone bench` (`--wsse-user`,
//! `--wsse-password-file`, `--wsse-digest`): every request carries a token of its own (a fresh
//! 16-byte nonce and the current time), as a real client's would, so a server with a replay
//! cache and a clock-skew window accepts every one.
//!
//! The `--body` envelopes are split once, at start, where the `wsse:Security` block goes (first
//! in the `Header`, or in a `Header` added after the `Envelope` start tag); a request is then
//! the part before, a fresh block, and the part after: one allocation of the body's size, a
//! SHA-1 and a formatted time. Without these options nothing here runs and bodies are sent as
//! they are. Must never: send a nonce twice, or change anything of a body but the header.

use std::time::SystemTime;

use bytes::{Bytes, BytesMut};
use quick_xml::events::Event;
use quick_xml::name::ResolveResult;
use quick_xml::NsReader;
use soapstone_wssec::UsernameTokenHeader;

use crate::target::TargetError;

/// The SOAP 1.1 and 1.2 envelope namespaces.
const ENVELOPE_NS: [&str; 2] = [
    "http://schemas.xmlsoap.org/soap/envelope/",
    "http://www.w3.org/2003/05/soap-envelope",
];

/// A UsernameToken for every request (see the module documentation).
#[derive(Clone, Debug)]
pub struct WsseCredentials {
    token: UsernameTokenHeader,
}

impl WsseCredentials {
    /// PasswordText: the password itself travels (use https).
    pub fn text(user: &str, password: &str) -> Self {
        WsseCredentials {
            token: UsernameTokenHeader::text(user, password),
        }
    }

    /// PasswordDigest: Base64(SHA-1(nonce + created + password)).
    pub fn digest(user: &str, password: &str) -> Self {
        WsseCredentials {
            token: UsernameTokenHeader::digest(user, password),
        }
    }
}

/// One body split where the Security block goes.
#[derive(Clone, Debug)]
struct Split {
    before: Bytes,
    after: Bytes,
    envelope_ns: &'static str,
}

/// The bodies of a SOAP target, each ready to take a fresh Security block.
#[derive(Clone, Debug)]
pub(crate) struct WsseBodies {
    credentials: WsseCredentials,
    splits: Vec<Split>,
}

impl WsseBodies {
    /// Splits every body; an error names the body that is not a SOAP envelope.
    pub(crate) fn new(bodies: &[Bytes], credentials: WsseCredentials) -> Result<Self, TargetError> {
        let splits = bodies
            .iter()
            .enumerate()
            .map(|(i, b)| {
                split(b).map_err(|why| {
                    TargetError(format!(
                        "cannot add a ws-security header to body {i}: {why}"
                    ))
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(WsseBodies {
            credentials,
            splits,
        })
    }

    /// Body `i` with a fresh token.
    pub(crate) fn body(&self, i: usize) -> Bytes {
        let s = &self.splits[i % self.splits.len()];
        let nonce: [u8; 16] = rand::random();
        let block =
            self.credentials
                .token
                .block_for_envelope_at(s.envelope_ns, &nonce, SystemTime::now());
        let mut out = BytesMut::with_capacity(s.before.len() + block.len() + s.after.len());
        out.extend_from_slice(&s.before);
        out.extend_from_slice(block.as_bytes());
        out.extend_from_slice(&s.after);
        out.freeze()
    }
}

/// Where the block goes in `body`: after the `Header` start tag, in a `Header` replacing an
/// empty `<Header/>`, or in a new `Header` right after the `Envelope` start tag.
fn split(body: &Bytes) -> Result<Split, String> {
    let mut reader = NsReader::from_reader(&body[..]);
    let mut buf = Vec::new();
    let mut envelope: Option<(&'static str, String)> = None;
    loop {
        let start = usize::try_from(reader.buffer_position()).unwrap_or(usize::MAX);
        let (ns, event) = reader
            .read_resolved_event_into(&mut buf)
            .map_err(|e| format!("not well-formed xml: {e}"))?;
        let ns: Option<&'static str> = match ns {
            ResolveResult::Bound(n) => ENVELOPE_NS.into_iter().find(|s| s.as_bytes() == n.0),
            _ => None,
        };
        let (e, empty) = match &event {
            Event::Start(e) => (e, false),
            Event::Empty(e) => (e, true),
            Event::Eof => return Err("no soap `Envelope` element".into()),
            _ => continue,
        };
        let end = usize::try_from(reader.buffer_position()).unwrap_or(usize::MAX);
        let local = e.local_name();
        let name = String::from_utf8_lossy(e.name().as_ref()).into_owned();
        let Some((envelope_ns, envelope_name)) = &envelope else {
            match ns {
                Some(ns) if local.as_ref() == b"Envelope" && !empty => {
                    envelope = Some((ns, name));
                    continue;
                }
                _ => {
                    return Err(format!(
                        "the root element `{name}` is not a soap `Envelope`"
                    ))
                }
            }
        };
        let envelope_ns = *envelope_ns;
        let prefix = envelope_name.rsplit_once(':').map_or("", |(p, _)| p);
        let header = if prefix.is_empty() {
            "Header".to_owned()
        } else {
            format!("{prefix}:Header")
        };
        let is_header = ns == Some(envelope_ns) && local.as_ref() == b"Header";
        return Ok(match (is_header, empty) {
            (true, false) => Split {
                before: body.slice(..end),
                after: body.slice(end..),
                envelope_ns,
            },
            (true, true) => Split {
                before: join(&body[..start], format!("<{header}>").as_bytes()),
                after: join(format!("</{header}>").as_bytes(), &body[end..]),
                envelope_ns,
            },
            (false, _) => Split {
                before: join(&body[..start], format!("<{header}>").as_bytes()),
                after: join(format!("</{header}>").as_bytes(), &body[start..]),
                envelope_ns,
            },
        });
    }
}

fn join(a: &[u8], b: &[u8]) -> Bytes {
    let mut v = Vec::with_capacity(a.len() + b.len());
    v.extend_from_slice(a);
    v.extend_from_slice(b);
    Bytes::from(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spliced(body: &str) -> String {
        let b = WsseBodies::new(
            &[Bytes::from(body.to_owned())],
            WsseCredentials::digest("u", "p"),
        )
        .unwrap();
        let one = String::from_utf8(b.body(0).to_vec()).unwrap();
        let two = String::from_utf8(b.body(0).to_vec()).unwrap();
        assert_ne!(one, two, "a fresh nonce per request");
        let start = one.find("<wsse:Security").unwrap();
        let end = one.find("</wsse:Security>").unwrap() + "</wsse:Security>".len();
        format!("{}[SEC]{}", &one[..start], &one[end..])
    }

    #[test]
    fn the_block_goes_first_in_the_header_or_in_a_new_one() {
        let s11 = "http://schemas.xmlsoap.org/soap/envelope/";
        let with_header = format!(
            "<?xml version=\"1.0\"?>\n<s:Envelope xmlns:s=\"{s11}\"><s:Header><k/></s:Header><s:Body><x/></s:Body></s:Envelope>"
        );
        assert_eq!(
            spliced(&with_header),
            format!("<?xml version=\"1.0\"?>\n<s:Envelope xmlns:s=\"{s11}\"><s:Header>[SEC]<k/></s:Header><s:Body><x/></s:Body></s:Envelope>")
        );
        let empty = format!("<s:Envelope xmlns:s=\"{s11}\"><s:Header/><s:Body/></s:Envelope>");
        assert_eq!(
            spliced(&empty),
            format!(
                "<s:Envelope xmlns:s=\"{s11}\"><s:Header>[SEC]</s:Header><s:Body/></s:Envelope>"
            )
        );
        let none =
            "<Envelope xmlns=\"http://www.w3.org/2003/05/soap-envelope\">\n <Body/></Envelope>";
        assert_eq!(
            spliced(none),
            "<Envelope xmlns=\"http://www.w3.org/2003/05/soap-envelope\">\n <Header>[SEC]</Header><Body/></Envelope>"
        );
    }

    #[test]
    fn a_body_that_is_no_envelope_is_refused() {
        for (body, why) in [
            ("<x/>", "the root element `x` is not a soap `Envelope`"),
            (
                "<Envelope/>",
                "the root element `Envelope` is not a soap `Envelope`",
            ),
            ("", "no soap `Envelope` element"),
            (
                "<s:Envelope xmlns:s=\"http://schemas.xmlsoap.org/soap/envelope/\"><s:Body",
                "not well-formed xml",
            ),
        ] {
            let e =
                WsseBodies::new(&[Bytes::from(body)], WsseCredentials::text("u", "p")).unwrap_err();
            assert!(
                e.to_string()
                    .starts_with(&format!("cannot add a ws-security header to body 0: {why}")),
                "{body}: {e}"
            );
        }
    }
}
