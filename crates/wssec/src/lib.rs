//! WS-Security 1.1 (OASIS) for soapstone: the UsernameToken profile 1.1 (PasswordText,
//! PasswordDigest with nonce and created) and `wsu:Timestamp`, on both sides.
//!
//! Server side, [`Secured`] wraps any [`SoapService`](soapstone_service::SoapService): it reads
//! the `wsse:Security` header aimed at this node, checks its Timestamp and token (clock-skew
//! window, freshness, a bounded nonce replay cache, constant-time digest comparison), asks an
//! [`Authenticator`] who the sender is, and hands the service a
//! [`Principal`](soapstone_service::Principal) (name and permissions) in the request's
//! extensions, where a handler reads it with `ctx.principal()`. It marks the Security header
//! understood, so its `mustUnderstand` is obeyed; a service reached without [`Secured`] still
//! refuses a mustUnderstand Security header. Refusals are the faults of WSS 1.1 section 12
//! ([`WsseFault`]), with the specification's sentence as the only reason.
//!
//! [`UsersFile`] is the default authenticator (TOML, argon2 hashes; see its docs for the
//! PasswordDigest trade-off); [`ReloadableUsers`] reads it again on demand (SIGHUP). Client side, [`UsernameTokenHeader`] goes into
//! `ClientConfig::headers` and writes a fresh token into every call.
//!
//! Must never: let a request reach the wrapped service unauthenticated, or answer a refusal
//! with anything that tells which check failed. Signatures and encryption (XML-DSig/XML-Enc)
//! are out of scope: confidentiality and integrity come from TLS.

mod auth;
mod client;
mod fault;
mod reload;
mod replay;
mod secured;
mod time;
pub mod token;
mod users;

pub use auth::{digest_matches, password_digest, Authenticator, BoxFuture, Credentials};
pub use client::UsernameTokenHeader;
pub use fault::WsseFault;
pub use reload::ReloadableUsers;
pub use secured::{security_header, Secured, WsseConfig};
pub use token::Password;
pub use users::{certificate_fingerprint, hash_password, UserEntry, UsersError, UsersFile};

/// The `wsse` namespace (WSS 1.0 secext, which WSS 1.1 keeps).
pub const WSSE_NS: &str =
    "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd";
/// The `wsu` namespace (WSS utility: Timestamp, Created, Expires).
pub const WSU_NS: &str =
    "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd";
