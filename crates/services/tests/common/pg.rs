//! A throwaway PostgreSQL server for tests: `initdb` into a temporary directory and `pg_ctl start`
//! on a loopback port reserved for it (as the `postgres` user when the tests run as root, since
//! PostgreSQL refuses to run as root). Stopped with `pg_ctl stop -m immediate` on drop.
//!
//! PostgreSQL cannot bind port 0 and say which port it got, so its port is a [`ReservedPort`]
//! held for the server's whole life: no other test can take it before the server binds it or
//! while [`PgServer::stop`] has it down, and [`PgServer::create_db`] checks that the server on
//! the port is this one (its data directory).
//!
//! Missing binaries skip the test loudly, or fail it under CI (`CI` set); `SOAPSTONE_SKIP_PG=1`
//! skips it always.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::port::ReservedPort;

pub struct PgServer {
    dir: tempfile::TempDir,
    bin: PathBuf,
    pub port: u16,
    /// Held until the server is stopped for good (dropped after `Drop::drop` ran).
    _reserved: ReservedPort,
    opts: String,
}

fn find_bin_dir() -> Option<PathBuf> {
    if let Ok(dir) = std::env::var("SOAPSTONE_PG_BIN") {
        let dir = PathBuf::from(dir);
        return dir.join("initdb").exists().then_some(dir);
    }
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|e| e.ok())
        .filter_map(|e| Some((e.file_name().to_str()?.parse().ok()?, e.path().join("bin"))))
        .filter(|(_, p): &(u32, PathBuf)| p.join("initdb").exists())
        .collect();
    versions.sort();
    versions.pop().map(|(_, p)| p)
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

/// Runs a PostgreSQL binary, as `postgres` when we are root.
fn run(bin: &Path, args: &[&str]) -> std::process::Output {
    let mut cmd = if is_root() {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(bin);
        c
    } else {
        Command::new(bin)
    };
    cmd.args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run `{}`: {e}", bin.display()))
}

impl PgServer {
    /// Starts a server, or returns `None` when `SOAPSTONE_SKIP_PG=1`, or when PostgreSQL is
    /// missing outside CI (skipped loudly; under CI a missing PostgreSQL fails the test).
    pub fn start() -> Option<PgServer> {
        if std::env::var("SOAPSTONE_SKIP_PG").as_deref() == Ok("1") {
            eprintln!("SKIPPED: PostgreSQL test (SOAPSTONE_SKIP_PG=1)");
            return None;
        }
        let Some(bin) = find_bin_dir() else {
            super::skip_unless_ci(
                "PostgreSQL server binaries not found under /usr/lib/postgresql/*/bin (install \
                 `postgresql` or point SOAPSTONE_PG_BIN at the bin directory)",
            );
            return None;
        };
        let dir = tempfile::Builder::new()
            .prefix("soapstone-pg-")
            .tempdir()
            .unwrap();
        if is_root() {
            let out = Command::new("chown")
                .args(["-R", "postgres:postgres"])
                .arg(dir.path())
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "chown to postgres failed (is there a `postgres` user?): {out:?}"
            );
        }
        let data = dir.path().join("data");
        let data_s = data.to_str().unwrap().to_string();
        let out = run(
            &bin.join("initdb"),
            &[
                "-D",
                &data_s,
                "-U",
                "postgres",
                "--auth=trust",
                "-E",
                "UTF8",
                "--no-sync",
            ],
        );
        assert!(
            out.status.success(),
            "initdb failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let log = dir.path().join("log").to_str().unwrap().to_string();
        let sock = dir.path().to_str().unwrap().to_string();
        // With the port reserved nobody else can take it, so a failed start is not that race;
        // it is retried all the same (on a fresh port, three tries) and each failure said.
        let mut failures = Vec::new();
        for _ in 0..3 {
            let reserved = ReservedPort::new();
            let port = reserved.port;
            let opts =
                format!("-p {port} -k {sock} -c listen_addresses=127.0.0.1 -c max_connections=200");
            let out = run(
                &bin.join("pg_ctl"),
                &[
                    "-D", &data_s, "-o", &opts, "-l", &log, "-w", "-t", "60", "start",
                ],
            );
            if out.status.success() {
                return Some(PgServer {
                    dir,
                    bin,
                    port,
                    _reserved: reserved,
                    opts,
                });
            }
            failures.push(format!(
                "port {port}: {}{}",
                String::from_utf8_lossy(&out.stderr).trim(),
                std::fs::read_to_string(&log).unwrap_or_default()
            ));
            let _ = std::fs::remove_file(&log);
        }
        panic!("pg_ctl start failed 3 times:\n{}", failures.join("\n"));
    }

    /// A URL for database `db` (created with [`PgServer::create_db`]).
    pub fn url(&self, db: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{db}", self.port)
    }

    /// Creates a fresh database, on this server: the one answering on the port must have its
    /// data directory.
    pub async fn create_db(&self, db: &str) -> String {
        let (client, conn) = tokio_postgres::connect(&self.url("postgres"), tokio_postgres::NoTls)
            .await
            .unwrap();
        let task = tokio::spawn(conn);
        let answered: String = client
            .query_one("SHOW data_directory", &[])
            .await
            .unwrap()
            .get(0);
        let ours = self.dir.path().join("data");
        assert_eq!(
            std::fs::canonicalize(&answered).ok(),
            std::fs::canonicalize(&ours).ok(),
            "the PostgreSQL server on port {} is not the one this test started (`{answered}`)",
            self.port
        );
        client
            .batch_execute(&format!("CREATE DATABASE {db}"))
            .await
            .unwrap();
        drop(client);
        let _ = task.await;
        self.url(db)
    }
}

impl PgServer {
    /// Stops the server (`pg_ctl stop -m fast`), keeping its data.
    pub fn stop(&self) {
        let data = self.dir.path().join("data");
        let out = run(
            &self.bin.join("pg_ctl"),
            &["-D", data.to_str().unwrap(), "-m", "fast", "-w", "stop"],
        );
        assert!(out.status.success(), "pg_ctl stop: {out:?}");
    }

    /// Starts it again on the same port after [`PgServer::stop`] (still reserved for it). The
    /// port cannot move (the test's URLs hold it), so a start that fails, as when a process
    /// that took the number the racy way binds it with `SO_REUSEADDR` meanwhile (see
    /// `port.rs`), is tried again after a pause, three tries in all, each failure said.
    pub fn start_again(&self) {
        let data = self.dir.path().join("data");
        let log = self.dir.path().join("log");
        let mut failures = Vec::new();
        for attempt in 0..3 {
            if attempt > 0 {
                std::thread::sleep(std::time::Duration::from_secs(2));
            }
            let out = run(
                &self.bin.join("pg_ctl"),
                &[
                    "-D",
                    data.to_str().unwrap(),
                    "-o",
                    &self.opts,
                    "-l",
                    log.to_str().unwrap(),
                    "-w",
                    "-t",
                    "60",
                    "start",
                ],
            );
            if out.status.success() {
                return;
            }
            failures.push(format!(
                "{out:?}\n{}",
                std::fs::read_to_string(&log).unwrap_or_default()
            ));
        }
        panic!(
            "pg_ctl start (again) failed 3 times:\n{}",
            failures.join("\n")
        );
    }
}

impl Drop for PgServer {
    fn drop(&mut self) {
        let data = self.dir.path().join("data");
        let _ = run(
            &self.bin.join("pg_ctl"),
            &[
                "-D",
                data.to_str().unwrap(),
                "-m",
                "immediate",
                "-w",
                "stop",
            ],
        );
    }
}
