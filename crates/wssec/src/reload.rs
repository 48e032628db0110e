//! The users file read again without a restart: [`ReloadableUsers`] holds the users of one
//! file and replaces them whole when asked (`soapstone serve` asks on SIGHUP, as it does for
//! the TLS certificate).
//!
//! A request is judged against the users as they were when it arrived: a reload never mixes
//! two files. Must never: leave the server without users, or with half of a file, because the
//! new file is missing, does not parse, has a bad entry or no user at all; then the old users
//! stay and the caller is told why.

use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use soapstone_service::Principal;

use crate::auth::{Authenticator, BoxFuture, Credentials};
use crate::users::{UsersError, UsersFile};

/// The users of a file, read again by [`ReloadableUsers::reload`]. An [`Authenticator`].
#[derive(Debug)]
pub struct ReloadableUsers {
    path: PathBuf,
    current: RwLock<Arc<UsersFile>>,
}

impl ReloadableUsers {
    /// Reads `path` (it must have at least one user).
    pub fn load(path: &Path) -> Result<Self, UsersError> {
        let users = load_some(path)?;
        Ok(ReloadableUsers {
            path: path.to_owned(),
            current: RwLock::new(Arc::new(users)),
        })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The users now.
    pub fn current(&self) -> Arc<UsersFile> {
        // A poisoned lock still holds a whole `Arc` (it is only ever replaced whole).
        self.current
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Reads the file again and, if it is good, serves its users from now on; returns how
    /// many. On any error the old users stay. Verifications under way finish with the users
    /// they started with; the bound on argon2 verifications at once carries over.
    pub fn reload(&self) -> Result<usize, UsersError> {
        let old = self.current();
        let new = load_some(&self.path)?.sharing_hashing_with(&old);
        let n = new.len();
        *self.current.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(new);
        Ok(n)
    }
}

fn load_some(path: &Path) -> Result<UsersFile, UsersError> {
    let users = UsersFile::load(path)?;
    if users.is_empty() {
        return Err(UsersError::Empty(path.to_owned()));
    }
    Ok(users)
}

impl Authenticator for ReloadableUsers {
    fn authenticate(&self, credentials: Credentials) -> BoxFuture<'_, Option<Principal>> {
        let users = self.current();
        Box::pin(async move { users.authenticate(credentials).await })
    }

    fn certificate(&self, der: &[u8]) -> Option<Principal> {
        self.current().certificate(der)
    }

    fn reload(&self) -> Result<Option<String>, Box<dyn std::error::Error + Send + Sync>> {
        let n = ReloadableUsers::reload(self)?;
        Ok(Some(format!("{n} users from `{}`", self.path.display())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::token::Password;
    use crate::users::UserEntry;

    fn digest_of(user: &str, secret: &str) -> Credentials {
        let nonce = b"0123456789abcdef".to_vec();
        let created = "2026-11-24T00:00:00Z".to_string();
        let d = crate::auth::password_digest(&nonce, &created, secret);
        Credentials {
            username: user.into(),
            password: Password::Digest(d.to_vec()),
            nonce,
            created,
        }
    }

    fn entry(secret: &str) -> UserEntry {
        UserEntry {
            permissions: vec!["read".into()],
            digest_secret: Some(secret.into()),
            ..UserEntry::default()
        }
    }

    #[tokio::test]
    async fn reload_replaces_the_users_and_a_bad_file_keeps_them() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("users.toml");
        UsersFile::write_user(&path, "alice", entry("a1")).unwrap();
        let users = ReloadableUsers::load(&path).unwrap();
        assert!(users.authenticate(digest_of("alice", "a1")).await.is_some());
        assert!(users.authenticate(digest_of("bob", "b1")).await.is_none());

        UsersFile::write_user(&path, "bob", entry("b1")).unwrap();
        UsersFile::write_user(&path, "alice", entry("a2")).unwrap();
        assert_eq!(users.reload().unwrap(), 2);
        assert!(users.authenticate(digest_of("bob", "b1")).await.is_some());
        assert!(users.authenticate(digest_of("alice", "a1")).await.is_none());
        assert!(users.authenticate(digest_of("alice", "a2")).await.is_some());

        for (bad, why) in [
            ("[users.x\n", "users file `"),
            (
                "[users.x]\npermissions = []\n",
                "user `x`: no `password_hash`",
            ),
            ("# nobody\n", "has no user"),
        ] {
            std::fs::write(&path, bad).unwrap();
            let e = users.reload().unwrap_err();
            assert!(e.to_string().contains(why), "{bad}: {e}");
            assert!(users.authenticate(digest_of("bob", "b1")).await.is_some());
        }
        std::fs::remove_file(&path).unwrap();
        assert!(matches!(users.reload(), Err(UsersError::Io { .. })));
        assert!(users.authenticate(digest_of("alice", "a2")).await.is_some());
    }
}
