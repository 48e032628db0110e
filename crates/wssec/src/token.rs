//! Reading the `wsse:Security` header block aimed at this node: its UsernameToken and
//! Timestamp, as the sender wrote them (nothing is checked here but the shape).
//!
//! The block is read out of the whole envelope with `roxmltree` (after the codec's
//! `Envelope::parse` accepted it under the service's limits), so prefixes declared on
//! `Envelope` or `Header` resolve as they should. Must never: decide anything about
//! authentication (that is `verify`), or read a block aimed at another role.

use base64::Engine as _;

use crate::{WsseFault, WSSE_NS, WSU_NS};

/// `wsse:Password/@Type` of a clear-text password.
pub const PASSWORD_TEXT: &str =
    "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-username-token-profile-1.0#PasswordText";
/// `wsse:Password/@Type` of a digest (Base64(SHA-1(nonce + created + password))).
pub const PASSWORD_DIGEST: &str =
    "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-username-token-profile-1.0#PasswordDigest";
/// `wsse:Nonce/@EncodingType` of base64 (the only encoding the profile names).
pub const BASE64_BINARY: &str =
    "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-soap-message-security-1.0#Base64Binary";

const SOAP11: &str = "http://schemas.xmlsoap.org/soap/envelope/";
const SOAP12: &str = "http://www.w3.org/2003/05/soap-envelope";
const NEXT_11: &str = "http://schemas.xmlsoap.org/soap/actor/next";
const NEXT_12: &str = "http://www.w3.org/2003/05/soap-envelope/role/next";
const ULTIMATE_12: &str = "http://www.w3.org/2003/05/soap-envelope/role/ultimateReceiver";

/// The password of a UsernameToken, as sent.
#[derive(Clone, PartialEq, Eq)]
pub enum Password {
    /// `#PasswordText`: the password itself.
    Text(String),
    /// `#PasswordDigest`: the 20 bytes of SHA-1(nonce + created + password).
    Digest(Vec<u8>),
}

impl std::fmt::Debug for Password {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Password::Text(_) => f.write_str("Text(..)"),
            Password::Digest(_) => f.write_str("Digest(..)"),
        }
    }
}

/// A `wsse:UsernameToken`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsernameToken {
    /// `wsse:Username`.
    pub username: String,
    /// `wsse:Password`.
    pub password: Password,
    /// `wsse:Nonce`, decoded from base64.
    pub nonce: Option<Vec<u8>>,
    /// `wsu:Created` (or `wsse:Created`, as some old clients write it), as written.
    pub created: Option<String>,
}

/// A `wsu:Timestamp`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Timestamp {
    /// `wsu:Created`, as written.
    pub created: Option<String>,
    /// `wsu:Expires`, as written.
    pub expires: Option<String>,
}

/// The `wsse:Security` block aimed at us.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SecurityHeader {
    /// Its UsernameToken, if any.
    pub username_token: Option<UsernameToken>,
    /// Its Timestamp, if any.
    pub timestamp: Option<Timestamp>,
}

fn targets_us(node: roxmltree::Node<'_, '_>, env_ns: &str) -> bool {
    let role = node
        .attribute((env_ns, "actor"))
        .or_else(|| node.attribute((env_ns, "role")));
    // As the dispatcher decides which mustUnderstand blocks are aimed at it.
    match role {
        None | Some("") => true,
        Some(r) if env_ns == SOAP11 => r == NEXT_11,
        Some(r) => r == NEXT_12 || r == ULTIMATE_12,
    }
}

fn text(node: roxmltree::Node<'_, '_>) -> String {
    node.text().unwrap_or("").trim().to_string()
}

fn child<'a, 'i>(
    node: roxmltree::Node<'a, 'i>,
    ns: &str,
    local: &str,
) -> Option<roxmltree::Node<'a, 'i>> {
    node.children().find(|c| {
        c.is_element() && c.tag_name().namespace() == Some(ns) && c.tag_name().name() == local
    })
}

/// Deepest element nesting of an envelope [`read`] parses: past it, `wsse:InvalidSecurity`
/// before parsing (the codec refuses past 64 levels by default anyway; this bounds the DOM's
/// recursion, about 1.3 KiB of stack per level in a debug build).
pub const MAX_DEPTH: usize = 256;

/// Finds and reads the Security block aimed at us in `envelope`; `Ok(None)` when there is none.
pub fn read(envelope: &[u8]) -> Result<Option<SecurityHeader>, WsseFault> {
    let text_doc = std::str::from_utf8(envelope).map_err(|_| WsseFault::InvalidSecurity)?;
    // roxmltree recurses per element level: a body nested deep enough would overflow the stack
    // and abort the server before anyone is authenticated.
    if soapstone_codec::nested_past(text_doc, MAX_DEPTH).is_some() {
        return Err(WsseFault::InvalidSecurity);
    }
    let doc = roxmltree::Document::parse(text_doc).map_err(|_| WsseFault::InvalidSecurity)?;
    let root = doc.root_element();
    let env_ns = match root.tag_name().namespace() {
        Some(ns @ (SOAP11 | SOAP12)) => ns,
        _ => return Err(WsseFault::InvalidSecurity),
    };
    let Some(header) = child(root, env_ns, "Header") else {
        return Ok(None);
    };
    let mut found = header.children().filter(|c| {
        c.is_element()
            && c.tag_name().namespace() == Some(WSSE_NS)
            && c.tag_name().name() == "Security"
            && targets_us(*c, env_ns)
    });
    let Some(security) = found.next() else {
        return Ok(None);
    };
    // WSS 1.1 section 6.1: at most one Security header per role.
    if found.next().is_some() {
        return Err(WsseFault::InvalidSecurity);
    }
    let mut out = SecurityHeader::default();
    for el in security.children().filter(|c| c.is_element()) {
        match (el.tag_name().namespace(), el.tag_name().name()) {
            (Some(WSSE_NS), "UsernameToken") => {
                if out.username_token.is_some() {
                    return Err(WsseFault::InvalidSecurity);
                }
                out.username_token = Some(username_token(el)?);
            }
            (Some(WSU_NS), "Timestamp") => {
                if out.timestamp.is_some() {
                    return Err(WsseFault::InvalidSecurity);
                }
                out.timestamp = Some(Timestamp {
                    created: child(el, WSU_NS, "Created").map(text),
                    expires: child(el, WSU_NS, "Expires").map(text),
                });
            }
            // Signatures, encrypted keys, binary tokens: not processed here.
            _ => {}
        }
    }
    Ok(Some(out))
}

fn username_token(el: roxmltree::Node<'_, '_>) -> Result<UsernameToken, WsseFault> {
    let username = child(el, WSSE_NS, "Username")
        .map(text)
        .filter(|u| !u.is_empty())
        .ok_or(WsseFault::InvalidSecurityToken)?;
    let password = child(el, WSSE_NS, "Password").ok_or(WsseFault::InvalidSecurityToken)?;
    // The node's text untrimmed: a password may begin or end with a space.
    let value = password.text().unwrap_or("").to_string();
    let password = match password.attribute("Type").unwrap_or(PASSWORD_TEXT) {
        PASSWORD_TEXT => Password::Text(value),
        PASSWORD_DIGEST => Password::Digest(
            base64::engine::general_purpose::STANDARD
                .decode(value.trim())
                .map_err(|_| WsseFault::InvalidSecurityToken)?,
        ),
        _ => return Err(WsseFault::UnsupportedSecurityToken),
    };
    let nonce = match child(el, WSSE_NS, "Nonce") {
        None => None,
        Some(n) => {
            match n.attribute("EncodingType") {
                None | Some(BASE64_BINARY) => {}
                Some(_) => return Err(WsseFault::UnsupportedSecurityToken),
            }
            Some(
                base64::engine::general_purpose::STANDARD
                    .decode(text(n))
                    .map_err(|_| WsseFault::InvalidSecurityToken)?,
            )
        }
    };
    let created = child(el, WSU_NS, "Created")
        .or_else(|| child(el, WSSE_NS, "Created"))
        .map(text);
    Ok(UsernameToken {
        username,
        password,
        nonce,
        created,
    })
}
