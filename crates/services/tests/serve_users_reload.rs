//! `soapstone-serve --auth wsse --users FILE` reads the users file again on SIGHUP, without a
//! restart: a user added to the file is admitted, a changed secret replaces the old one, and a
//! file that does not parse (or has no user) is refused with the old users kept and the reason
//! printed. Over a real server process and real HTTP; each reload is awaited by its line on
//! stderr, not by a sleep.

use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use soapstone_client::{Client, ClientConfig};
use soapstone_services::charging::ChargingClient;
use soapstone_wssec::{UserEntry, UsernameTokenHeader, UsersFile};
use tokio::io::{AsyncBufReadExt, BufReader, Lines};
use tokio::process::{ChildStderr, Command};

fn entry(secret: &str) -> UserEntry {
    let mut e = UserEntry::default();
    e.permissions = vec!["read".into(), "move".into()];
    e.digest_secret = Some(secret.into());
    e
}

fn client(base: &str, user: &str, secret: &str) -> ChargingClient {
    let config =
        ClientConfig::default().headers(Arc::new(UsernameTokenHeader::digest(user, secret)));
    ChargingClient::with_client(Client::with_config(&format!("{base}/charging"), config).unwrap())
}

/// Whether `user` may credit account 1 now; a refusal must be the authentication fault.
async fn admitted(base: &str, user: &str, secret: &str) -> bool {
    match client(base, user, secret).credit(1, 1).await {
        Ok(_) => true,
        Err(e) => {
            let fault = e.fault().unwrap_or_else(|| panic!("not a fault: {e}"));
            assert_eq!(
                fault.reason,
                "the security token could not be authenticated or authorized"
            );
            false
        }
    }
}

/// Sends SIGHUP and waits for the server's line about the users file.
async fn hangup(pid: &str, stderr: &mut Lines<BufReader<ChildStderr>>) -> String {
    assert!(Command::new("kill")
        .args(["-HUP", pid])
        .status()
        .await
        .unwrap()
        .success());
    tokio::time::timeout(Duration::from_secs(60), async {
        while let Some(line) = stderr.next_line().await.unwrap() {
            if line.starts_with("users: ") {
                return line;
            }
        }
        panic!("exited before reloading");
    })
    .await
    .expect("a reload line in time")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sighup_reloads_the_users_file_and_a_bad_one_keeps_the_old_users() {
    let dir = tempfile::tempdir().unwrap();
    let users = dir.path().join("users.toml");
    UsersFile::write_user(&users, "alice", entry("a1")).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_soapstone-serve"))
        .args(["--services", "charging", "--addr", "127.0.0.1:0"])
        .args(["--accounts", "10", "--auth", "wsse", "--users"])
        .arg(&users)
        .arg("--db")
        .arg(dir.path().join("c.db"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut stderr = BufReader::new(child.stderr.take().unwrap()).lines();
    let base = tokio::time::timeout(Duration::from_secs(60), async {
        while let Some(line) = stdout.next_line().await.unwrap() {
            if let Some(url) = line.strip_prefix("listening on ") {
                return url.to_owned();
            }
        }
        panic!("exited before listening");
    })
    .await
    .unwrap();
    tokio::spawn(async move { while let Ok(Some(_)) = stdout.next_line().await {} });
    let pid = child.id().unwrap().to_string();
    let reader = client(&base, "alice", "a1");
    let start = reader.credit_control(1).await.unwrap();

    assert!(admitted(&base, "alice", "a1").await);
    assert!(!admitted(&base, "bob", "b1").await);

    // Bob added, alice's secret changed: both take effect at the SIGHUP.
    UsersFile::write_user(&users, "bob", entry("b1")).unwrap();
    UsersFile::write_user(&users, "alice", entry("a2")).unwrap();
    assert!(
        !admitted(&base, "bob", "b1").await,
        "read before the signal"
    );
    let line = hangup(&pid, &mut stderr).await;
    assert_eq!(
        line,
        format!("users: reloaded 2 users from `{}`", users.display())
    );
    assert!(admitted(&base, "bob", "b1").await);
    assert!(!admitted(&base, "alice", "a1").await);
    assert!(admitted(&base, "alice", "a2").await);

    // A broken file and an empty one: refused, the users of the last good file stay.
    for (text, why) in [
        (
            "[users.bob\n",
            "users: reload failed, keeping the old users: users file `",
        ),
        ("# nobody\n", "has no user"),
    ] {
        std::fs::write(&users, text).unwrap();
        let line = hangup(&pid, &mut stderr).await;
        assert!(line.contains(why), "{line}");
        assert!(admitted(&base, "bob", "b1").await, "{text}");
        assert!(admitted(&base, "alice", "a2").await, "{text}");
    }

    // Seven credits of 1 were admitted (alice 4, bob 3); no refusal charged anything.
    let reader = client(&base, "bob", "b1");
    assert_eq!(reader.credit_control(1).await.unwrap(), start + 7);
    child.start_kill().unwrap();
    let _ = child.wait().await;
}
