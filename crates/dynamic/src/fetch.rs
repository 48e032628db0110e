//! Fetching a WSDL or schema over plain HTTP when the user asked for it (a URL on the command
//! line, or `--fetch`): one `GET` as HTTP/1.0, so the answer ends when the server closes.
//!
//! Must never read more than the size limit, wait longer than the timeout, or follow a
//! redirect to another host silently (redirects are an error naming the new location).
//! `https` is refused with a message: TLS comes with the security issue.

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::sync::Arc;
use std::time::Duration;

use soapstone_wsdl::read::Fetch;

/// A [`Fetch`] that reads `http://` URLs, at most `max_bytes` each, within `timeout`.
pub fn http_fetch(max_bytes: usize, timeout: Duration) -> Fetch {
    Arc::new(move |url: &str| get(url, max_bytes, timeout))
}

/// `GET url` and its body.
pub fn get(url: &str, max_bytes: usize, timeout: Duration) -> Result<String, String> {
    if url
        .get(..8)
        .is_some_and(|s| s.eq_ignore_ascii_case("https://"))
    {
        return Err("https is not supported yet: save the document and pass its path".into());
    }
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| format!("`{url}` is not an http:// URL"))?;
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    let host_port = if authority.contains(':') && !authority.ends_with(']') {
        authority.to_string()
    } else {
        format!("{authority}:80")
    };
    let addr = host_port
        .to_socket_addrs()
        .map_err(|e| format!("cannot resolve `{authority}`: {e}"))?
        .next()
        .ok_or_else(|| format!("`{authority}` has no address"))?;
    let mut s = TcpStream::connect_timeout(&addr, timeout)
        .map_err(|e| format!("cannot connect to `{authority}`: {e}"))?;
    s.set_read_timeout(Some(timeout))
        .map_err(|e| e.to_string())?;
    s.set_write_timeout(Some(timeout))
        .map_err(|e| e.to_string())?;
    let request = format!("GET {path} HTTP/1.0\r\nHost: {authority}\r\nAccept: text/xml, application/xml, */*\r\nUser-Agent: soapstone\r\n\r\n");
    s.write_all(request.as_bytes()).map_err(|e| e.to_string())?;
    let head_room = 64 * 1024;
    let mut buf = Vec::new();
    s.take((max_bytes + head_room) as u64 + 1)
        .read_to_end(&mut buf)
        .map_err(|e| format!("reading `{url}`: {e}"))?;
    let split = buf
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| format!("`{url}` answered without an HTTP head"))?;
    let head = String::from_utf8_lossy(&buf[..split]).to_string();
    let body = &buf[split + 4..];
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse::<u16>().ok())
        .ok_or_else(|| format!("`{url}` answered with a bad status line"))?;
    if (300..400).contains(&status) {
        let location = head
            .lines()
            .find_map(|l| {
                l.split_once(':')
                    .filter(|(k, _)| k.trim().eq_ignore_ascii_case("location"))
            })
            .map(|(_, v)| v.trim().to_string())
            .unwrap_or_default();
        return Err(format!(
            "`{url}` redirects ({status}) to `{location}`: use that URL"
        ));
    }
    if status != 200 {
        return Err(format!("`{url}` answered HTTP {status}"));
    }
    if body.len() > max_bytes {
        return Err(format!("`{url}` is more than {max_bytes} bytes"));
    }
    String::from_utf8(body.to_vec()).map_err(|_| format!("`{url}` is not UTF-8"))
}
