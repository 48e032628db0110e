//! `soapstone users add NAME`: writes a user into the users file `serve --users` reads (argon2
//! hash of the text password, the digest secret, client certificate fingerprints).
//!
//! Secrets are read from stdin, never from arguments (which `ps` shows to every user of the
//! machine). Must never: leave a half-written file (the file is replaced whole, mode 0600), or
//! print a secret.

use std::io::BufRead;
use std::path::PathBuf;

use anyhow::Context as _;
use rustls_pki_types::pem::PemObject as _;
use soapstone_wssec::{UserEntry, UsersFile};

/// `soapstone users`.
#[derive(Debug, Clone, clap::Args)]
pub struct UsersArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: UsersCommand,
}

/// The subcommands of `soapstone users`.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum UsersCommand {
    /// Adds (or replaces) a user.
    Add(AddArgs),
}

/// `soapstone users add`.
#[derive(Debug, Clone, clap::Args)]
pub struct AddArgs {
    /// The user's name (the UsernameToken's `Username`).
    pub name: String,
    /// What the user may do, comma-separated (`read`: balances; `move`: money).
    #[arg(long, value_delimiter = ',', required = true)]
    pub permissions: Vec<String>,
    /// The users file (created if missing).
    #[arg(long, default_value = "soapstone-data/users.toml")]
    pub file: PathBuf,
    /// Read the text password (PasswordText, stored as an argon2 hash) from the first line of
    /// stdin.
    #[arg(long)]
    pub password_stdin: bool,
    /// Read the digest secret (PasswordDigest, stored as is) from the next line of stdin.
    #[arg(long)]
    pub digest_secret_stdin: bool,
    /// A TLS client certificate (PEM) that authenticates as this user (`serve --auth cert`).
    #[arg(long, value_name = "PEM")]
    pub cert: Vec<PathBuf>,
}

/// Runs `soapstone users` with secrets read from `stdin`.
pub fn run_users(args: UsersArgs, stdin: &mut dyn BufRead) -> anyhow::Result<()> {
    let UsersCommand::Add(add) = args.command;
    let mut entry = UserEntry::new(add.permissions.iter().map(|p| p.trim().to_owned()));
    let mut line = |what: &str| -> anyhow::Result<String> {
        let mut s = String::new();
        stdin
            .read_line(&mut s)
            .with_context(|| format!("cannot read the {what} from stdin"))?;
        let s = s.trim_end_matches(['\r', '\n']).to_owned();
        if s.is_empty() {
            anyhow::bail!("empty {what} on stdin");
        }
        Ok(s)
    };
    if add.password_stdin {
        entry = entry.password(&line("password")?);
    }
    if add.digest_secret_stdin {
        entry = entry.digest_secret(line("digest secret")?);
    }
    for path in &add.cert {
        let pem =
            std::fs::read(path).with_context(|| format!("cannot read `{}`", path.display()))?;
        let der = rustls_pki_types::CertificateDer::pem_slice_iter(&pem)
            .next()
            .with_context(|| format!("no certificate in `{}`", path.display()))?
            .map_err(|e| anyhow::anyhow!("bad certificate pem `{}`: {e}", path.display()))?;
        entry = entry.certificate(&der);
    }
    if let Some(dir) = add.file.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create `{}`", dir.display()))?;
    }
    UsersFile::write_user(&add.file, &add.name, entry)?;
    println!("user `{}` written to `{}`", add.name, add.file.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        users: UsersArgs,
    }

    fn run(args: &[&str], stdin: &str) -> anyhow::Result<()> {
        let cli = Cli::try_parse_from(std::iter::once("users").chain(args.iter().copied()))?;
        run_users(cli.users, &mut stdin.as_bytes())
    }

    #[test]
    fn add_writes_a_user_the_server_can_load() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("sub/users.toml");
        let f = file.to_str().unwrap();
        run(
            &[
                "add",
                "ops",
                "--permissions",
                "read,move",
                "--file",
                f,
                "--password-stdin",
                "--digest-secret-stdin",
            ],
            "pw\nsecret\n",
        )
        .unwrap();
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(
            text.contains("$argon2id$") && !text.contains("\"pw\""),
            "{text}"
        );
        assert!(text.contains("digest_secret = \"secret\""), "{text}");
        assert_eq!(UsersFile::load(&file).unwrap().len(), 1);
        // Without any way to authenticate: refused, the file unchanged.
        let e = run(&["add", "nobody", "--permissions", "read", "--file", f], "").unwrap_err();
        assert!(e.to_string().contains("cannot authenticate"), "{e}");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
        let e = run(
            &[
                "add",
                "x",
                "--permissions",
                "read",
                "--file",
                f,
                "--password-stdin",
            ],
            "\n",
        )
        .unwrap_err();
        assert_eq!(e.to_string(), "empty password on stdin");
    }
}
