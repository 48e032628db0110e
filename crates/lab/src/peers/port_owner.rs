//! Who holds the socket listening on a port: the lab's check that the server answering on the
//! port it handed a peer is that peer (a process of the peer's tree: a start script's nginx, a
//! JVM behind `taskset`) and not another process that took the port between the lab's probe and
//! the peer's bind. Without it, a peer that lost its port and had not exited yet looked ready,
//! and the lab measured somebody else's server.
//!
//! Read from Linux's `/proc` (the sockets of the peer's network namespace, the descriptors of
//! every process). Where `/proc` cannot tell (another system, a holder whose descriptors this user
//! cannot read), the answer is [`Owner::Unknown`] and the caller goes on without the check: this
//! module must never turn a guess into an accusation. Where it can tell that nobody listens any
//! more ([`Owner::Nobody`]), the listener that answered the caller's probe was a passing one
//! (another test's port probe, a server that stopped): the peer is not ready yet.

use std::collections::HashSet;
use std::path::Path;

/// Who holds the listening socket.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Owner {
    /// A process of the tree rooted at the peer's process.
    Tree,
    /// Another process, this one.
    Other(u32),
    /// Nobody listens on the port now (every process's descriptors were read).
    Nobody,
    /// `/proc` cannot tell.
    Unknown,
}

/// Who holds the socket listening on `port` in the network namespace of process `root`.
pub(crate) fn listener_owner(root: u32, port: u16) -> Owner {
    let proc = Path::new("/proc");
    let mut inodes = HashSet::new();
    let mut tables = 0;
    for table in ["tcp", "tcp6"] {
        let path = proc.join(root.to_string()).join("net").join(table);
        if let Ok(text) = std::fs::read_to_string(path) {
            tables += 1;
            inodes.extend(listening(&text, port));
        }
    }
    if tables == 0 {
        return Owner::Unknown;
    }
    if inodes.is_empty() {
        return Owner::Nobody;
    }
    let Ok(entries) = std::fs::read_dir(proc) else {
        return Owner::Unknown;
    };
    let mut other = None;
    // Whether some process's descriptors could not be read: then "no holder found" is a guess.
    let mut unread = false;
    for pid in entries.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok()) {
        let fds = match std::fs::read_dir(proc.join(pid.to_string()).join("fd")) {
            Ok(fds) => fds,
            // It ended between the listing and now.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(_) => {
                unread = true;
                continue;
            }
        };
        let holds = fds.filter_map(Result::ok).any(|fd| {
            std::fs::read_link(fd.path()).is_ok_and(|l| {
                l.to_str()
                    .and_then(|l| l.strip_prefix("socket:[")?.strip_suffix(']'))
                    .and_then(|n| n.parse::<u64>().ok())
                    .is_some_and(|n| inodes.contains(&n))
            })
        });
        if holds {
            if descends_from(pid, root) {
                return Owner::Tree;
            }
            other = Some(pid);
        }
    }
    match other {
        Some(pid) => Owner::Other(pid),
        // The socket closed between the table and the descriptors.
        None if !unread => Owner::Nobody,
        None => Owner::Unknown,
    }
}

/// The inodes of the sockets listening on `port` in a `/proc/net/tcp` table (columns: `sl`,
/// `local_address` as `HEXADDR:HEXPORT`, `rem_address`, `st` (`0A` is LISTEN), ..., `inode`
/// tenth).
fn listening(table: &str, port: u16) -> impl Iterator<Item = u64> + '_ {
    table.lines().skip(1).filter_map(move |line| {
        let f: Vec<&str> = line.split_whitespace().collect();
        let (_, local_port) = f.get(1)?.rsplit_once(':')?;
        (u16::from_str_radix(local_port, 16).ok()? == port && *f.get(3)? == "0A")
            .then(|| f.get(9)?.parse().ok())
            .flatten()
    })
}

/// Whether `pid` is `root` or one of its descendants (its parents read from `/proc/PID/stat`).
fn descends_from(mut pid: u32, root: u32) -> bool {
    for _ in 0..64 {
        if pid == root {
            return true;
        }
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            return false;
        };
        // `PID (COMM) STATE PPID ...`; COMM may hold spaces and parentheses.
        let ppid = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1)?.parse().ok());
        match ppid {
            Some(p) if p > 1 => pid = p,
            _ => return false,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    const TABLE: &str = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n\
   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 4242 1 0000000000000000 100 0 0 10 0\n\
   1: 0100007F:1F90 0100007F:C350 01 00000000:00000000 00:00000000 00000000     0        0 4343 1 0000000000000000 20 4 30 10 -1\n";

    #[test]
    fn only_the_listening_socket_of_the_port_is_read() {
        assert_eq!(listening(TABLE, 8080).collect::<Vec<_>>(), [4242]);
        assert_eq!(listening(TABLE, 8081).count(), 0);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_listener_is_told_from_the_peers_tree() {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        // This process holds it: its own tree.
        assert_eq!(listener_owner(std::process::id(), port), Owner::Tree);
        // To a peer that is a child of this process, this process is another one.
        let mut peer = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let owner = listener_owner(peer.id(), port);
        let _ = peer.kill();
        let _ = peer.wait();
        assert_eq!(owner, Owner::Other(std::process::id()));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_listener_that_closed_is_nobodys() {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        drop(l);
        let me = std::process::id();
        let owner = listener_owner(me, port);
        // Another test of this process may have bound the port since: then it is this tree's.
        assert!(matches!(owner, Owner::Nobody | Owner::Tree), "{owner:?}");
        assert_ne!(owner, Owner::Unknown);
    }
}
