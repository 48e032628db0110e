//! The raw-socket servers' request reader the wire tests share (`lean.rs`, `blocking_wire.rs`,
//! `fuzz_lean.rs`): just enough HTTP/1.1 to find where a request ends.

use std::io::Read;
use std::net::TcpStream;

/// Reads one request (head and `Content-Length` body) from `s`, keeping what follows it in
/// `pending`; `None` at EOF or on an error.
pub(crate) fn read_request(s: &mut TcpStream, pending: &mut Vec<u8>) -> Option<Vec<u8>> {
    let mut buf = [0u8; 8192];
    loop {
        if let Some(end) = pending.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&pending[..end]).to_ascii_lowercase();
            let len: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length: ")?.parse().ok())
                .unwrap_or(0);
            if pending.len() >= end + 4 + len {
                return Some(pending.drain(..end + 4 + len).collect());
            }
        }
        let n = s.read(&mut buf).ok()?;
        if n == 0 {
            return None;
        }
        pending.extend_from_slice(&buf[..n]);
    }
}
