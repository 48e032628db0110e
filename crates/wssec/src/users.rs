//! The default [`Authenticator`]: a TOML users file with argon2 password hashes.
//!
//! ```toml
//! [users.alice]
//! permissions = ["read", "move"]
//! password_hash = "$argon2id$v=19$m=19456,t=2,p=1$..."   # checks PasswordText
//! digest_secret = "another secret"                         # optional: allows PasswordDigest
//! certificates = ["3f1c...e9"]                             # optional: SHA-256 of client certs
//! ```
//!
//! PasswordText is checked against the argon2 hash (salted, slow on purpose: a stolen file does
//! not give the passwords away). PasswordDigest cannot be: the server must recompute
//! SHA-1(nonce + created + secret), so it needs the secret itself. That is the profile's
//! trade-off, and this file makes it visible: a user who may send digests has a separate
//! `digest_secret` stored as is (protect the file: it is written mode 0600), so a leaked file
//! exposes those secrets but never the text passwords. Users without one can only send text
//! (which belongs inside TLS). Must never: take a different path for an unknown user than for
//! a wrong password (both hash and compare), or write a half-written file (temp + rename).

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use argon2::password_hash::{PasswordHash, PasswordHasher as _, PasswordVerifier as _, SaltString};
use argon2::Argon2;
use serde::{Deserialize, Serialize};
use soapstone_service::Principal;

use crate::auth::{digest_matches, Authenticator, BoxFuture, Credentials};
use crate::token::Password;

/// Why a users file could not be read or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum UsersError {
    /// Reading or writing the file failed.
    #[error("users file `{path}`: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// The file is not valid TOML of the expected shape.
    #[error("users file `{path}`: {message}")]
    Syntax {
        /// The file.
        path: PathBuf,
        /// The parser's message.
        message: String,
    },
    /// The file has no user: every request would be refused.
    #[error("users file `{0}` has no user")]
    Empty(PathBuf),
    /// An entry is unusable.
    #[error("users file: user `{user}`: {message}")]
    Invalid {
        /// The user.
        user: String,
        /// What is wrong.
        message: String,
    },
}

/// One user as written in the file.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct UserEntry {
    /// What the user may do (`read`, `move`, ...).
    #[serde(default)]
    pub permissions: Vec<String>,
    /// The argon2 PHC string PasswordText is checked against.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub password_hash: Option<String>,
    /// The secret PasswordDigest is checked against (stored as is: see the module docs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest_secret: Option<String>,
    /// Lower-case hex SHA-256 fingerprints of TLS client certificates (DER) that are this user.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub certificates: Vec<String>,
}

impl UserEntry {
    /// A user with these permissions and no way to authenticate yet.
    pub fn new(permissions: impl IntoIterator<Item = String>) -> Self {
        UserEntry {
            permissions: permissions.into_iter().collect(),
            ..UserEntry::default()
        }
    }

    /// Lets the user send PasswordText: stores the argon2 hash of `password`.
    pub fn password(mut self, password: &str) -> Self {
        self.password_hash = Some(hash_password(password));
        self
    }

    /// Lets the user send PasswordDigest with `secret` (stored as is).
    pub fn digest_secret(mut self, secret: impl Into<String>) -> Self {
        self.digest_secret = Some(secret.into());
        self
    }

    /// Lets the user authenticate with the TLS client certificate `der`.
    pub fn certificate(mut self, der: &[u8]) -> Self {
        self.certificates.push(certificate_fingerprint(der));
        self
    }
}

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileFormat {
    #[serde(default)]
    users: BTreeMap<String, UserEntry>,
}

/// Lower-case hex SHA-256 of `der`: how a certificate is named in the file.
pub fn certificate_fingerprint(der: &[u8]) -> String {
    let d = ring::digest::digest(&ring::digest::SHA256, der);
    d.as_ref().iter().map(|b| format!("{b:02x}")).collect()
}

/// An argon2id PHC string of `password` with a fresh random salt (argon2's default costs:
/// 19 MiB, 2 passes).
pub fn hash_password(password: &str) -> String {
    let salt = SaltString::generate(&mut argon2::password_hash::rand_core::OsRng);
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .expect("argon2 with default parameters and a generated salt does not fail")
        .to_string()
}

struct User {
    principal: Principal,
    hash: Option<String>,
    digest_secret: Option<String>,
}

/// The users of a file, ready to authenticate. Cheap to clone.
#[derive(Clone)]
pub struct UsersFile {
    users: Arc<HashMap<String, User>>,
    certificates: Arc<HashMap<String, String>>,
    /// Hashed against when the user is unknown, so that refusal costs the same.
    dummy_hash: Arc<String>,
    /// Bounds the argon2 verifications running at once: each holds 19 MiB and a CPU for
    /// milliseconds, so a flood of text passwords queues here instead of taking all memory.
    hashing: Arc<tokio::sync::Semaphore>,
}

/// Argon2 verifications run at once by default: one per CPU.
fn default_hashing_permits() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get())
}

impl std::fmt::Debug for UsersFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UsersFile")
            .field("users", &self.users.len())
            .finish_non_exhaustive()
    }
}

impl UsersFile {
    /// Reads and checks `path`.
    pub fn load(path: &Path) -> Result<UsersFile, UsersError> {
        let text = std::fs::read_to_string(path).map_err(|source| UsersError::Io {
            path: path.to_owned(),
            source,
        })?;
        UsersFile::parse(&text).map_err(|e| match e {
            UsersError::Syntax { message, .. } => UsersError::Syntax {
                path: path.to_owned(),
                message,
            },
            e => e,
        })
    }

    /// Parses the TOML of a users file.
    pub fn parse(text: &str) -> Result<UsersFile, UsersError> {
        let file: FileFormat = toml::from_str(text).map_err(|e| UsersError::Syntax {
            path: PathBuf::new(),
            message: e.to_string().trim_end().to_string(),
        })?;
        UsersFile::from_entries(file.users)
    }

    /// Builds from entries (each checked: a well-formed hash, some way to authenticate).
    pub fn from_entries(entries: BTreeMap<String, UserEntry>) -> Result<UsersFile, UsersError> {
        let mut users = HashMap::new();
        let mut certificates = HashMap::new();
        for (name, e) in entries {
            let invalid = |message: String| UsersError::Invalid {
                user: name.clone(),
                message,
            };
            if name.is_empty() || name.chars().any(|c| c.is_control()) {
                return Err(invalid(
                    "a user name must be non-empty and printable".into(),
                ));
            }
            if let Some(h) = &e.password_hash {
                PasswordHash::new(h)
                    .map_err(|err| invalid(format!("bad `password_hash`: {err}")))?;
            }
            if e.password_hash.is_none() && e.digest_secret.is_none() && e.certificates.is_empty() {
                return Err(invalid(
                    "no `password_hash`, `digest_secret` or `certificates`: cannot authenticate"
                        .into(),
                ));
            }
            for c in &e.certificates {
                let fp = c.to_ascii_lowercase().replace(':', "");
                if fp.len() != 64 || !fp.bytes().all(|b| b.is_ascii_hexdigit()) {
                    return Err(invalid(format!(
                        "certificate fingerprint `{c}` is not 64 hex digits (SHA-256)"
                    )));
                }
                certificates.insert(fp, name.clone());
            }
            users.insert(
                name.clone(),
                User {
                    principal: Principal::new(name, e.permissions),
                    hash: e.password_hash,
                    digest_secret: e.digest_secret,
                },
            );
        }
        Ok(UsersFile {
            users: Arc::new(users),
            certificates: Arc::new(certificates),
            dummy_hash: Arc::new(hash_password("no such user")),
            hashing: Arc::new(tokio::sync::Semaphore::new(default_hashing_permits())),
        })
    }

    /// Sets how many argon2 verifications may run at once (memory: 19 MiB each at argon2's
    /// default costs; the rest wait). Default: one per CPU.
    pub fn with_hashing_limit(mut self, permits: usize) -> Self {
        self.hashing = Arc::new(tokio::sync::Semaphore::new(permits.max(1)));
        self
    }

    /// The same users sharing `other`'s bound on argon2 verifications (a reload keeps one
    /// bound across the old and the new users).
    pub(crate) fn sharing_hashing_with(mut self, other: &UsersFile) -> Self {
        self.hashing = other.hashing.clone();
        self
    }

    /// The number of users.
    pub fn len(&self) -> usize {
        self.users.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.users.is_empty()
    }

    /// Adds or replaces `name` in the file at `path` (created if missing), keeping the other
    /// users; written to a temporary file and renamed over the old one, mode 0600.
    pub fn write_user(path: &Path, name: &str, entry: UserEntry) -> Result<(), UsersError> {
        let io = |source| UsersError::Io {
            path: path.to_owned(),
            source,
        };
        let mut file: FileFormat = match std::fs::read_to_string(path) {
            Ok(text) => toml::from_str(&text).map_err(|e| UsersError::Syntax {
                path: path.to_owned(),
                message: e.to_string().trim_end().to_string(),
            })?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => FileFormat::default(),
            Err(e) => return Err(io(e)),
        };
        if name.is_empty() || name.chars().any(|c| c.is_control()) {
            return Err(UsersError::Invalid {
                user: name.to_string(),
                message: "a user name must be non-empty and printable".into(),
            });
        }
        file.users.insert(name.to_string(), entry);
        // Checks the result before it replaces anything.
        UsersFile::from_entries(file.users.clone())?;
        let text = toml::to_string(&file).map_err(|e| UsersError::Syntax {
            path: path.to_owned(),
            message: e.to_string(),
        })?;
        let tmp = path.with_extension("tmp");
        {
            use std::io::Write as _;
            let mut opts = std::fs::OpenOptions::new();
            opts.write(true).create(true).truncate(true);
            #[cfg(unix)]
            std::os::unix::fs::OpenOptionsExt::mode(&mut opts, 0o600);
            let mut f = opts.open(&tmp).map_err(io)?;
            f.write_all(b"# soapstone users file: see docs/security.md\n")
                .map_err(io)?;
            f.write_all(text.as_bytes()).map_err(io)?;
            f.sync_all().map_err(io)?;
        }
        std::fs::rename(&tmp, path).map_err(io)
    }

    fn check(&self, c: &Credentials) -> Option<Principal> {
        let user = self.users.get(&c.username);
        match &c.password {
            Password::Text(password) => {
                let hash = user
                    .and_then(|u| u.hash.as_deref())
                    .unwrap_or(&self.dummy_hash);
                let ok = PasswordHash::new(hash).is_ok_and(|h| {
                    Argon2::default()
                        .verify_password(password.as_bytes(), &h)
                        .is_ok()
                });
                match user {
                    Some(u) if ok && u.hash.is_some() => Some(u.principal.clone()),
                    _ => None,
                }
            }
            Password::Digest(sent) => {
                let secret = user.and_then(|u| u.digest_secret.as_deref());
                let ok = digest_matches(sent, &c.nonce, &c.created, secret.unwrap_or("\u{0}"));
                match user {
                    Some(u) if ok && secret.is_some() => Some(u.principal.clone()),
                    _ => None,
                }
            }
        }
    }
}

impl Authenticator for UsersFile {
    fn authenticate(&self, credentials: Credentials) -> BoxFuture<'_, Option<Principal>> {
        let this = self.clone();
        Box::pin(async move {
            match &credentials.password {
                // argon2 takes milliseconds of CPU and 19 MiB: off the async threads, and
                // only so many at once.
                Password::Text(_) => {
                    let _permit = this.hashing.clone().acquire_owned().await.ok()?;
                    tokio::task::spawn_blocking(move || this.check(&credentials))
                        .await
                        .ok()
                        .flatten()
                }
                Password::Digest(_) => this.check(&credentials),
            }
        })
    }

    fn certificate(&self, der: &[u8]) -> Option<Principal> {
        let user = self.certificates.get(&certificate_fingerprint(der))?;
        Some(self.users.get(user)?.principal.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn creds(user: &str, password: Password) -> Credentials {
        Credentials {
            username: user.into(),
            password,
            nonce: b"n0nce".to_vec(),
            created: "2026-11-23T23:00:00Z".into(),
        }
    }

    #[test]
    fn text_digest_and_refusals() {
        let text = format!(
            "[users.alice]\npermissions = [\"move\", \"read\"]\npassword_hash = \"{}\"\n\
             digest_secret = \"d1gest\"\n[users.bob]\npermissions = [\"read\"]\n\
             password_hash = \"{}\"\n",
            hash_password("s3cret"),
            hash_password("b0b")
        );
        let users = UsersFile::parse(&text).unwrap();
        let alice = users
            .check(&creds("alice", Password::Text("s3cret".into())))
            .unwrap();
        assert_eq!(alice.name, "alice");
        assert!(alice.may("move") && alice.may("read"));
        assert!(users
            .check(&creds("alice", Password::Text("s3creT".into())))
            .is_none());
        assert!(users
            .check(&creds("carol", Password::Text("s3cret".into())))
            .is_none());
        let d = crate::auth::password_digest(b"n0nce", "2026-11-23T23:00:00Z", "d1gest");
        assert!(users
            .check(&creds("alice", Password::Digest(d.to_vec())))
            .is_some());
        // The text password is not a digest secret, and bob has none.
        let d = crate::auth::password_digest(b"n0nce", "2026-11-23T23:00:00Z", "s3cret");
        assert!(users
            .check(&creds("alice", Password::Digest(d.to_vec())))
            .is_none());
        let d = crate::auth::password_digest(b"n0nce", "2026-11-23T23:00:00Z", "b0b");
        assert!(users
            .check(&creds("bob", Password::Digest(d.to_vec())))
            .is_none());
    }

    #[tokio::test]
    async fn text_verifications_wait_for_a_hashing_permit() {
        let text = format!("[users.a]\npassword_hash = \"{}\"\n", hash_password("pw"));
        let users = UsersFile::parse(&text).unwrap().with_hashing_limit(1);
        let held = users.hashing.clone().acquire_owned().await.unwrap();
        let pending = users.authenticate(creds("a", Password::Text("pw".into())));
        tokio::pin!(pending);
        // With the only permit held the verification does not start (unbounded, it would be
        // done in well under a second: argon2 is optimised even in dev builds).
        let waited = tokio::time::timeout(std::time::Duration::from_secs(2), &mut pending).await;
        assert!(waited.is_err(), "verified without a permit");
        drop(held);
        assert_eq!(pending.await.unwrap().name, "a");
    }

    #[test]
    fn bad_files_say_which_user_and_what() {
        let e = UsersFile::parse("[users.x]\npermissions = []\n")
            .err()
            .unwrap();
        assert_eq!(
            e.to_string(),
            "users file: user `x`: no `password_hash`, `digest_secret` or `certificates`: cannot authenticate"
        );
        let e = UsersFile::parse("[users.x]\npassword_hash = \"plain\"\n")
            .err()
            .unwrap();
        assert!(
            e.to_string()
                .starts_with("users file: user `x`: bad `password_hash`"),
            "{e}"
        );
        let e = UsersFile::parse("[users.x]\npasword_hash = \"p\"\n")
            .err()
            .unwrap();
        assert!(e.to_string().contains("pasword_hash"), "{e}");
        // The empty name is the anonymous scope of idempotency keys: no user may have it.
        let e = UsersFile::parse("[users.\"\"]\ndigest_secret = \"d\"\n")
            .err()
            .unwrap();
        assert_eq!(
            e.to_string(),
            "users file: user ``: a user name must be non-empty and printable"
        );
    }

    #[test]
    fn write_user_keeps_others_and_replaces_atomically() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("users.toml");
        let a = UserEntry {
            permissions: vec!["read".into()],
            digest_secret: Some("x".into()),
            ..UserEntry::default()
        };
        UsersFile::write_user(&path, "a", a.clone()).unwrap();
        let mut b = a.clone();
        b.certificates = vec!["ab".repeat(32)];
        UsersFile::write_user(&path, "b", b).unwrap();
        let users = UsersFile::load(&path).unwrap();
        assert_eq!(users.len(), 2);
        assert!(users.certificate(b"not it").is_none());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        // A bad entry is refused and the file is left as it was.
        let before = std::fs::read(&path).unwrap();
        assert!(UsersFile::write_user(&path, "c", UserEntry::default()).is_err());
        assert_eq!(std::fs::read(&path).unwrap(), before);
    }
}
