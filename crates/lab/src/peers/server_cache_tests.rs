//! The `{cache}` switch of a peer's command, and the Erlang stand-in's response cache (García
//! §V) over a real socket when `erlc` is installed.

use std::time::Duration;

use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

use super::server::{with_cache_on, PeerServer};
use super::ManifestPeer;
use crate::procs::Launcher;

fn launcher(dir: &std::path::Path) -> Launcher {
    Launcher {
        exe: std::path::PathBuf::from("/bin/false"),
        taskset: None,
        log_dir: dir.to_owned(),
        wrap: Vec::new(),
    }
}

fn peer(command: &[&str]) -> ManifestPeer {
    serde_json::from_value(serde_json::json!({
        "id": "cachey", "status": "ready", "transport": "soap-http", "banner": true,
        "command": command,
    }))
    .unwrap()
}

#[tokio::test]
async fn the_cache_switch_is_off_unless_asked_and_absent_without_a_placeholder() {
    let dir = tempfile::tempdir().unwrap();
    let script = "import socket,sys,time\n\
                  s=socket.socket(); s.bind(('127.0.0.1', int(sys.argv[1]))); s.listen()\n\
                  print('cache', sys.argv[2], 'listening on', sys.argv[1], flush=True)\n\
                  time.sleep(60)";
    let p = peer(&["python3", "-c", script, "{port}", "{cache}"]);
    let launcher = launcher(dir.path());
    let off = PeerServer::start(&launcher, &p, None, Duration::from_secs(30))
        .await
        .unwrap();
    assert!(off.command.ends_with(" off"), "{}", off.command);
    off.stop().await.unwrap();
    let on = with_cache_on(&p).unwrap();
    let on = PeerServer::start(&launcher, &on, None, Duration::from_secs(30))
        .await
        .unwrap();
    assert!(on.command.ends_with(" on"), "{}", on.command);
    on.stop().await.unwrap();
    assert!(with_cache_on(&peer(&["python3", "-c", script, "{port}"])).is_none());
}

/// POSTs `body` to `path` with `Connection: close`; the answer's `X-Cache` value and body.
async fn post(addr: &str, path: &str, body: &str) -> (u16, Option<String>, String) {
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let req = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: text/xml; charset=utf-8\r\n\
         SOAPAction: \"\"\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).await.unwrap();
    let mut buf = Vec::new();
    tokio::time::timeout(Duration::from_secs(60), s.read_to_end(&mut buf))
        .await
        .expect("an answer in time")
        .unwrap();
    let text = String::from_utf8(buf).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    let cache = head.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        k.eq_ignore_ascii_case("x-cache")
            .then(|| v.trim().to_owned())
    });
    (status, cache, body.to_owned())
}

#[tokio::test]
async fn the_erlang_stand_in_answers_an_identical_request_from_its_cache() {
    let sources = concat!(env!("CARGO_MANIFEST_DIR"), "/../../lab/peers/erlang");
    let dir = tempfile::tempdir().unwrap();
    let beams = dir.path().join("beams");
    std::fs::create_dir_all(&beams).unwrap();
    let erlc = std::process::Command::new("erlc")
        .arg("-o")
        .arg(&beams)
        .args(["dp_server.erl", "wsb.erl", "round2.erl"].map(|f| format!("{sources}/{f}")))
        .status();
    match erlc {
        Ok(s) if s.success() => {}
        Ok(s) => panic!("erlc failed: {s}"),
        Err(e) => {
            // The peers are optional: without Erlang the lab lists the peer as missing.
            eprintln!("skipped: erlc is not installed ({e})");
            return;
        }
    }
    let beams = beams.display().to_string();
    let p = peer(&[
        "erl",
        "-noshell",
        "-pa",
        &beams,
        "-run",
        "dp_server",
        "main",
        "{port}",
        "{host}",
        "{cache}",
    ]);
    let launcher = launcher(dir.path());
    let news = crate::experiments::wsb::request("news");
    let card = crate::experiments::wsb::request("card");

    let on = with_cache_on(&p).unwrap();
    let server = PeerServer::start(&launcher, &on, None, Duration::from_secs(60))
        .await
        .unwrap();
    let addr = server.addr();
    let first = post(&addr, "/wsb/news", &news).await;
    let second = post(&addr, "/wsb/news", &news).await;
    assert_eq!((first.0, first.1.as_deref()), (200, Some("miss")));
    assert_eq!((second.0, second.1.as_deref()), (200, Some("hit")));
    assert_eq!(first.2, second.2, "byte-identical answers");
    assert!(first.2.contains("<headline>"), "{}", first.2);
    // Another request is computed; a fault is never kept; the card is never cached.
    let other = news.replace("2008-01-14", "2008-01-15");
    assert_eq!(
        post(&addr, "/wsb/news", &other).await.1.as_deref(),
        Some("miss")
    );
    let bad = news.replace("2008-01-14", "2008-1-14");
    for _ in 0..2 {
        let r = post(&addr, "/wsb/news", &bad).await;
        assert_eq!((r.0, r.1.as_deref()), (500, Some("miss")), "{}", r.2);
    }
    for _ in 0..2 {
        let r = post(&addr, "/wsb/card", &card).await;
        assert_eq!((r.0, r.1), (200, None), "{}", r.2);
    }
    server.stop().await.unwrap();

    // Off (every start but the cache experiment's): computed each time.
    let server = PeerServer::start(&launcher, &p, None, Duration::from_secs(60))
        .await
        .unwrap();
    let addr = server.addr();
    let a = post(&addr, "/wsb/news", &news).await;
    let b = post(&addr, "/wsb/news", &news).await;
    assert_eq!((a.1, b.1), (None, None));
    assert_eq!(a.2, b.2);
    server.stop().await.unwrap();
}
