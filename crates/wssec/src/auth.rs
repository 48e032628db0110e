//! The seam between the WS-Security layer and whoever knows the users: an [`Authenticator`]
//! turns a UsernameToken's credentials (or a TLS client certificate) into a [`Principal`].
//!
//! The default is the users file ([`crate::UsersFile`]); an LDAP directory or a database
//! implements the same trait. Must never: tell the caller *why* credentials failed (`None` is
//! the only refusal), or compare secrets with an early-exit comparison (use [`digest_matches`]).

use std::future::Future;
use std::pin::Pin;

use soapstone_service::Principal;
use subtle::ConstantTimeEq as _;

use crate::token::Password;

/// A boxed, sendable future.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What a UsernameToken claims.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Credentials {
    /// `wsse:Username`.
    pub username: String,
    /// `wsse:Password`, text or digest.
    pub password: Password,
    /// The nonce (decoded), which a digest covers.
    pub nonce: Vec<u8>,
    /// The created time as written, which a digest covers.
    pub created: String,
}

/// Decides who a sender is and what they may do.
pub trait Authenticator: Send + Sync + 'static {
    /// The principal of these credentials, or `None` when they do not authenticate (unknown
    /// user, wrong password, no secret to check a digest against). May be slow (a password
    /// hash): run heavy work off the async threads.
    fn authenticate(&self, credentials: Credentials) -> BoxFuture<'_, Option<Principal>>;

    /// The principal of a verified TLS client certificate (leaf, DER), or `None` when it maps
    /// to no user. Default: none.
    fn certificate(&self, der: &[u8]) -> Option<Principal> {
        let _ = der;
        None
    }

    /// Reads the users again from their source (`soapstone serve` calls it on SIGHUP):
    /// `Ok(Some(what))` says what is served now (for the log), `Ok(None)` that there is
    /// nothing to reload (the default). On an error the users stay as they were.
    fn reload(&self) -> Result<Option<String>, Box<dyn std::error::Error + Send + Sync>> {
        Ok(None)
    }
}

/// SHA-1(nonce + created + secret): the PasswordDigest of the UsernameToken profile 1.1
/// (section 3.1), before base64.
pub fn password_digest(nonce: &[u8], created: &str, secret: &str) -> [u8; 20] {
    let mut ctx = ring::digest::Context::new(&ring::digest::SHA1_FOR_LEGACY_USE_ONLY);
    ctx.update(nonce);
    ctx.update(created.as_bytes());
    ctx.update(secret.as_bytes());
    let mut out = [0u8; 20];
    out.copy_from_slice(ctx.finish().as_ref());
    out
}

/// Whether `sent` is the digest of `secret` with this nonce and created time, compared in
/// constant time.
pub fn digest_matches(sent: &[u8], nonce: &[u8], created: &str, secret: &str) -> bool {
    let expected = password_digest(nonce, created, secret);
    bool::from(expected.as_slice().ct_eq(sent))
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::Engine as _;

    #[test]
    fn digest_of_the_profile_example() {
        // Expected value computed independently with Python's hashlib:
        // base64(sha1(b64decode(nonce) + created + password)).
        let nonce = base64::engine::general_purpose::STANDARD
            .decode("LKqI6G/AikKCQrN0zqZFlg==")
            .unwrap();
        let created = "2010-09-16T07:50:45Z";
        let digest = password_digest(&nonce, created, "userpassword");
        let ours = base64::engine::general_purpose::STANDARD.encode(digest);
        assert_eq!(ours, "tuOSpGlFlIXsozq4HFNeeGeFLEI=");
        assert!(digest_matches(&digest, &nonce, created, "userpassword"));
        assert!(!digest_matches(&digest, &nonce, created, "userpasswore"));
        assert!(!digest_matches(
            &digest[..19],
            &nonce,
            created,
            "userpassword"
        ));
    }
}
