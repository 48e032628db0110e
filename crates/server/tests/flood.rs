//! Connection floods (issue 8, item 2), raw bytes over real sockets: idle connections filling
//! the table, one address taking every slot, every connection busy, the listen backlog.
//! Before the connection table, a full table stopped the accept loop, so each of these new
//! clients waited in the backlog until the header-read timeout (10 s) freed a slot.

mod common;

use std::net::TcpStream;
use std::time::Duration;

use common::*;
use soapstone_server::ServerConfig;

/// Opens `n` connections from `ip` that send nothing, each accepted before the next opens (so
/// the server sees them in this order).
fn idle_connections(srv: &TestServer, ip: [u8; 4], n: usize) -> Vec<TcpStream> {
    (0..n)
        .map(|_| {
            let open = srv.metric("soapstone_connections_total");
            let s = srv.connect_from(ip);
            srv.wait_metric("soapstone_connections_total", open + 1);
            s
        })
        .collect()
}

/// True if the server closes `s` within `within`.
fn closed_within(s: &mut TcpStream, within: Duration) -> bool {
    s.set_read_timeout(Some(within)).unwrap();
    let closed = closed_by_server(s);
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    closed
}

/// The default configuration with a header-read timeout (2 min) far beyond the tests' read
/// timeouts (30 s): a client let in only because that timeout freed a slot fails its read.
fn config() -> ServerConfig {
    let mut cfg = ServerConfig::default();
    cfg.header_read_timeout = Duration::from_secs(120);
    cfg
}

#[test]
fn a_flood_of_idle_connections_does_not_lock_a_new_client_out() {
    let mut cfg = config();
    cfg.max_connections = 32;
    let srv = TestServer::start(cfg);
    let mut first = idle_connections(&srv, [127, 0, 0, 1], 32);
    // the flood goes on past the limit, without waiting to be accepted
    let _more: Vec<_> = (0..100).map(|_| srv.connect()).collect();
    // a normal client is answered at once (30 s read timeout; the header timeout is 2 min)
    let mut client = srv.connect();
    send(&mut client, &post(ECHO_FLOAT, ""));
    let r = read_response(&mut client).unwrap();
    assert_eq!(r.status, 200, "{}", r.head);
    assert!(r.text().contains("<result>3.14159</result>"));
    // and goes on being served on its connection
    send(&mut client, &post(ECHO_FLOAT, ""));
    assert_eq!(read_response(&mut client).unwrap().status, 200);
    // the room came from the longest-idle connections
    assert!(
        closed_within(&mut first[0], Duration::from_secs(30)),
        "the oldest idle connection is evicted"
    );
    assert!(srv.metric("soapstone_connections_evicted_total") >= 101);
    // evicted connections leave the gauge once their tasks have dropped them (a moment later)
    srv.wait_metric_at_most("soapstone_connections_open", 32);
    assert_eq!(srv.metric("soapstone_connections_refused_total"), 0);
}

#[test]
fn one_address_at_its_cap_evicts_its_own_idle_connections_only() {
    let mut cfg = config();
    cfg.max_connections_per_ip = 4;
    let srv = TestServer::start(cfg);
    let mut other = srv.connect_from([127, 0, 0, 3]);
    send(&mut other, &post(ECHO_FLOAT, ""));
    assert_eq!(read_response(&mut other).unwrap().status, 200);
    let mut flood = idle_connections(&srv, [127, 0, 0, 2], 4);
    // a fifth connection from the same address gets in, and is served
    let mut fifth = srv.connect_from([127, 0, 0, 2]);
    send(&mut fifth, &post(ECHO_FLOAT, ""));
    assert_eq!(read_response(&mut fifth).unwrap().status, 200);
    // in place of that address's oldest idle connection
    assert!(closed_within(&mut flood[0], Duration::from_secs(30)));
    assert!(!closed_within(&mut flood[1], Duration::from_millis(200)));
    assert_eq!(srv.metric("soapstone_connections_evicted_total"), 1);
    // the other address's (older, idle) connection was not touched
    send(&mut other, &post(ECHO_FLOAT, ""));
    assert_eq!(read_response(&mut other).unwrap().status, 200);
}

#[test]
fn one_address_with_every_connection_busy_gets_503_and_others_are_served() {
    let mut cfg = config();
    cfg.max_connections_per_ip = 2;
    cfg.retry_after = Duration::from_secs(3);
    let srv = TestServer::start(cfg);
    let mut held = Vec::new();
    for _ in 0..2 {
        let mut s = srv.connect_from([127, 0, 0, 2]);
        send(&mut s, &post(&envelope("block"), ""));
        held.push(s);
    }
    wait_entered(&srv, 2);
    let mut third = srv.connect_from([127, 0, 0, 2]);
    send(&mut third, &post(ECHO_FLOAT, ""));
    let r = read_response(&mut third).unwrap();
    assert_eq!(r.status, 503);
    assert_eq!(r.header("retry-after"), Some("3"));
    assert_eq!(r.header("connection"), Some("close"));
    assert_eq!(
        r.text(),
        "too many connections from your address, all of them busy, retry later\n"
    );
    assert!(closed_by_server(&mut third));
    let mut other = srv.connect_from([127, 0, 0, 3]);
    send(&mut other, &post(ECHO_FLOAT, ""));
    assert_eq!(read_response(&mut other).unwrap().status, 200);
    srv.gate.release.add_permits(2);
    for mut h in held {
        assert_eq!(read_response(&mut h).unwrap().status, 200);
    }
    assert_eq!(srv.metric("soapstone_connections_refused_total"), 1);
}

#[test]
fn a_full_table_of_busy_connections_answers_503_at_once() {
    let mut cfg = config();
    cfg.max_connections = 2;
    let srv = TestServer::start(cfg);
    let mut held = Vec::new();
    for _ in 0..2 {
        let mut s = srv.connect();
        send(&mut s, &post(&envelope("block"), ""));
        held.push(s);
    }
    wait_entered(&srv, 2);
    let mut late = srv.connect();
    send(&mut late, &post(ECHO_FLOAT, ""));
    let r = read_response(&mut late).unwrap();
    assert_eq!(r.status, 503);
    assert_eq!(r.header("retry-after"), Some("1"));
    assert!(r.text().starts_with("server at its connection limit"));
    srv.gate.release.add_permits(2);
    for mut h in held {
        assert_eq!(read_response(&mut h).unwrap().status, 200);
    }
    // the busy connections are idle now: a new one evicts one of them
    let mut next = srv.connect();
    send(&mut next, &post(ECHO_FLOAT, ""));
    assert_eq!(read_response(&mut next).unwrap().status, 200);
}

#[test]
fn the_listen_backlog_is_raised_on_a_listener_bound_elsewhere() {
    let Some(somaxconn) = std::fs::read_to_string("/proc/sys/net/core/somaxconn")
        .ok()
        .and_then(|s| s.trim().parse::<u32>().ok())
    else {
        eprintln!("SKIPPED: no /proc/sys/net/core/somaxconn (not Linux)");
        return;
    };
    let mut cfg = ServerConfig::default();
    cfg.listen_backlog = 1000;
    // `TestServer` binds a std listener (backlog 128); `serve_with_shutdown` raises it
    let srv = TestServer::start(cfg);
    let out = match std::process::Command::new("ss")
        .args(["-ltnH", &format!("sport = :{}", srv.addr.port())])
        .output()
    {
        Ok(out) if out.status.success() => out,
        _ => {
            eprintln!("SKIPPED: `ss` (iproute2) is not installed");
            return;
        }
    };
    // State Recv-Q Send-Q ...: for a listener, Send-Q is the backlog
    let text = String::from_utf8_lossy(&out.stdout);
    let backlog: u32 = text
        .split_whitespace()
        .nth(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("unexpected `ss` output: {text}"));
    assert_eq!(backlog, 1000.min(somaxconn), "{text}");
}

/// Waits until `n` `block` calls are inside the service.
fn wait_entered(srv: &TestServer, n: u32) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let p =
            tokio::time::timeout(Duration::from_secs(30), srv.gate.entered.acquire_many(n)).await;
        p.expect("the blocked calls entered").unwrap().forget();
    });
}
