//! The security checks of `soapstone serve` (issue 11): `--auth`/`--users` turned into the
//! services' authentication, the refusal of a non-loopback `--addr` without TLS and
//! authentication (unless `--insecure`), and the reload of the certificate and the users file
//! on SIGHUP.
//!
//! Must never: let `serve` start beyond loopback without TLS and authentication unless the
//! operator said `--insecure`, or resolve a host name to decide what is loopback.

use std::net::SocketAddr;
use std::sync::Arc;

use soapstone_server::{ServerConfig, Tls};
use soapstone_wssec::Authenticator;

use crate::build::ServicesConfig;
use crate::serve::{AuthArg, ServeArgs};

impl ServeArgs {
    pub(crate) fn auth_config(&self) -> anyhow::Result<Option<crate::build::Auth>> {
        let wsse = self.auth.contains(&AuthArg::Wsse);
        let cert = self.auth.contains(&AuthArg::Cert);
        match self.wsse_replay_capacity {
            Some(_) if !wsse => anyhow::bail!("`--wsse-replay-capacity` needs `--auth wsse`"),
            Some(0) => anyhow::bail!("`--wsse-replay-capacity` must be at least 1"),
            _ => {}
        }
        if !wsse && !cert {
            if self.users.is_some() {
                anyhow::bail!("`--users` needs `--auth wsse` or `--auth cert`");
            }
            return Ok(None);
        }
        if self.auth.contains(&AuthArg::None) {
            anyhow::bail!("`--auth none` cannot be combined with `wsse` or `cert`");
        }
        if cert && self.tls_client_ca.is_none() {
            anyhow::bail!("`--auth cert` needs `--tls-client-ca` (and `--tls-cert`, `--tls-key`)");
        }
        let Some(path) = &self.users else {
            anyhow::bail!("`--auth` needs `--users FILE` (write one with `soapstone users add`)");
        };
        // Read again on SIGHUP (see `reload_on_hangup`).
        let users = soapstone_wssec::ReloadableUsers::load(path)?;
        let mut config = soapstone_wssec::WsseConfig::default().accept(wsse, cert);
        if let Some(n) = self.wsse_replay_capacity {
            config.replay_capacity = n;
        }
        Ok(Some(crate::build::Auth::new(Arc::new(users), config)))
    }

    /// Refuses a non-loopback address without both TLS and authentication, unless
    /// `--insecure`.
    pub(crate) fn check_exposure(
        &self,
        server: &ServerConfig,
        services: &ServicesConfig,
    ) -> anyhow::Result<()> {
        if self.insecure || is_loopback(&self.addr) {
            return Ok(());
        }
        let mut missing = Vec::new();
        if server.tls.is_none() {
            missing.push("tls (`--tls-cert`, `--tls-key`)");
        }
        if services.auth.is_none() {
            missing.push("authentication (`--auth wsse|cert`, `--users`)");
        }
        if missing.is_empty() {
            return Ok(());
        }
        anyhow::bail!(
            "refusing to serve `{}` beyond this machine without {}: add them, or `--insecure` to accept the risk",
            self.addr,
            missing.join(" and ")
        )
    }
}

/// Whether `addr` (`HOST:PORT`) is on this machine only: a loopback IP or `localhost`. A name
/// is not resolved (it might resolve elsewhere later): only `localhost` counts.
fn is_loopback(addr: &str) -> bool {
    if let Ok(sa) = addr.parse::<SocketAddr>() {
        return sa.ip().is_loopback();
    }
    matches!(addr.rsplit_once(':'), Some(("localhost", _)))
}

/// On every SIGHUP, reloads the TLS certificate and key files (new handshakes get them) and
/// the users file (requests from then on are judged by it). On an error the old ones stay and
/// the error is printed; the line printed says which.
pub(crate) async fn reload_on_hangup(tls: Option<Tls>, users: Option<Arc<dyn Authenticator>>) {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let Ok(mut hup) = signal(SignalKind::hangup()) else {
            return;
        };
        while hup.recv().await.is_some() {
            if let Some(tls) = &tls {
                match tls.reload() {
                    Ok(()) => eprintln!("tls: certificate reloaded"),
                    Err(e) => eprintln!("tls: reload failed, keeping the old certificate: {e}"),
                }
            }
            if let Some(users) = &users {
                match users.reload() {
                    Ok(Some(what)) => eprintln!("users: reloaded {what}"),
                    Ok(None) => {}
                    Err(e) => eprintln!("users: reload failed, keeping the old users: {e}"),
                }
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = (tls, users);
        std::future::pending::<()>().await
    }
}

#[cfg(test)]
mod tests {
    use crate::serve::ServeArgs;
    use clap::Parser;
    use soapstone_server::ServerConfig;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        serve: ServeArgs,
    }

    fn server(args: &[&str]) -> anyhow::Result<ServerConfig> {
        let cli = Cli::try_parse_from(std::iter::once("serve").chain(args.iter().copied()))?;
        Ok(cli.serve.to_configs()?.1)
    }

    fn err(args: &[&str]) -> String {
        server(args).unwrap_err().to_string()
    }

    #[test]
    fn beyond_loopback_needs_tls_and_authentication_or_insecure() {
        for addr in ["127.0.0.1:0", "[::1]:8080", "localhost:8080"] {
            assert!(server(&["--addr", addr]).is_ok(), "{addr}");
        }
        let e = err(&["--addr", "0.0.0.0:8080"]);
        assert_eq!(
            e,
            "refusing to serve `0.0.0.0:8080` beyond this machine without tls (`--tls-cert`, \
             `--tls-key`) and authentication (`--auth wsse|cert`, `--users`): add them, or \
             `--insecure` to accept the risk"
        );
        let e = err(&["--addr", "example.org:80"]);
        assert!(e.starts_with("refusing to serve `example.org:80`"), "{e}");
        assert!(server(&["--addr", "0.0.0.0:8080", "--insecure"]).is_ok());
    }

    #[test]
    fn auth_flags_are_checked_together() {
        assert_eq!(
            err(&["--auth", "wsse"]),
            "`--auth` needs `--users FILE` (write one with `soapstone users add`)"
        );
        assert_eq!(
            err(&["--auth", "cert", "--users", "u.toml"]),
            "`--auth cert` needs `--tls-client-ca` (and `--tls-cert`, `--tls-key`)"
        );
        assert_eq!(
            err(&["--users", "u.toml"]),
            "`--users` needs `--auth wsse` or `--auth cert`"
        );
        assert_eq!(
            err(&["--auth", "none,wsse", "--users", "u.toml"]),
            "`--auth none` cannot be combined with `wsse` or `cert`"
        );
        assert_eq!(
            err(&["--wsse-replay-capacity", "10"]),
            "`--wsse-replay-capacity` needs `--auth wsse`"
        );
        assert_eq!(
            err(&[
                "--auth",
                "wsse",
                "--users",
                "u.toml",
                "--wsse-replay-capacity",
                "0"
            ]),
            "`--wsse-replay-capacity` must be at least 1"
        );
        let e = err(&["--auth", "wsse", "--users", "/nonexistent/users.toml"]);
        assert!(
            e.starts_with("users file `/nonexistent/users.toml`: "),
            "{e}"
        );
    }

    #[test]
    fn the_replay_capacity_reaches_the_wsse_layer() {
        let dir = tempfile::tempdir().unwrap();
        let users = dir.path().join("users.toml");
        std::fs::write(&users, "[users.a]\ndigest_secret = \"x\"\n").unwrap();
        let users = users.to_str().unwrap();
        let capacity = |extra: &[&str]| {
            let args = ["--auth", "wsse", "--users", users];
            let cli = Cli::try_parse_from(
                std::iter::once("serve")
                    .chain(args)
                    .chain(extra.iter().copied()),
            )
            .unwrap();
            cli.serve
                .to_configs()
                .unwrap()
                .0
                .auth
                .unwrap()
                .config
                .replay_capacity
        };
        assert_eq!(capacity(&[]), 100_000);
        assert_eq!(capacity(&["--wsse-replay-capacity", "7"]), 7);
    }

    #[test]
    fn metrics_leave_the_service_port_with_auth_or_their_own_address() {
        assert!(server(&[]).unwrap().metrics_path.is_some());
        let with = server(&["--metrics-addr", "127.0.0.1:0"]).unwrap();
        assert!(with.metrics_path.is_none());
        let dir = tempfile::tempdir().unwrap();
        let users = dir.path().join("users.toml");
        std::fs::write(&users, "[users.a]\ndigest_secret = \"x\"\n").unwrap();
        let users = users.to_str().unwrap();
        let authed = server(&["--auth", "wsse", "--users", users]).unwrap();
        assert!(authed.metrics_path.is_none());
    }
}
