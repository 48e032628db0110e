//! Fetching a WSDL or schema over HTTP or HTTPS when the user asked for it (a URL on the
//! command line, or `--fetch`): one `GET` as HTTP/1.0, so the answer ends when the server
//! closes. Blocking on purpose: the reader runs on a blocking thread and fetches while it
//! resolves imports. TLS is rustls with the settings of `soapstone-client` (its roots or the
//! user's CA), the host name sent as SNI and checked against the certificate.
//!
//! Must never read more than the size limit, wait longer than the timeout, or follow a
//! redirect to another host silently (redirects are an error naming the new location).

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::sync::Arc;
use std::time::Duration;

use soapstone_client::rustls;
use soapstone_wsdl::read::Fetch;

/// A [`Fetch`] that reads `http://` and `https://` URLs (the latter with `tls`), at most
/// `max_bytes` each, within `timeout`.
pub fn http_fetch(
    max_bytes: usize,
    timeout: Duration,
    tls: Option<Arc<rustls::ClientConfig>>,
) -> Fetch {
    Arc::new(move |url: &str| get(url, max_bytes, timeout, tls.clone()))
}

/// `GET url` and its body; `https://` needs `tls`.
pub fn get(
    url: &str,
    max_bytes: usize,
    timeout: Duration,
    tls: Option<Arc<rustls::ClientConfig>>,
) -> Result<String, String> {
    let (rest, https) = if let Some(r) = strip_scheme(url, "https://") {
        (r, true)
    } else if let Some(r) = strip_scheme(url, "http://") {
        (r, false)
    } else {
        return Err(format!("`{url}` is not an http:// or https:// URL"));
    };
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    let host_port = if authority.contains(':') && !authority.ends_with(']') {
        authority.to_string()
    } else if https {
        format!("{authority}:443")
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
    let head_room = 64 * 1024;
    let cap = (max_bytes + head_room) as u64 + 1;
    let buf = if https {
        let tls = tls.ok_or_else(|| format!("`{url}`: no TLS settings for https"))?;
        let host = authority
            .rsplit_once(':')
            .filter(|(h, p)| !h.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
            .map_or(authority, |(h, _)| h)
            .trim_start_matches('[')
            .trim_end_matches(']');
        let name = rustls::pki_types::ServerName::try_from(host.to_string())
            .map_err(|e| format!("`{host}` is not a TLS server name: {e}"))?;
        let conn = rustls::ClientConnection::new(tls, name)
            .map_err(|e| format!("tls with `{authority}`: {e}"))?;
        let mut stream = rustls::StreamOwned::new(conn, s);
        stream
            .write_all(request.as_bytes())
            .map_err(|e| format!("tls with `{authority}`: {e}"))?;
        read_capped(stream, cap, url)?
    } else {
        s.write_all(request.as_bytes()).map_err(|e| e.to_string())?;
        read_capped(s, cap, url)?
    };
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

fn strip_scheme<'u>(url: &'u str, scheme: &str) -> Option<&'u str> {
    url.get(..scheme.len())
        .filter(|s| s.eq_ignore_ascii_case(scheme))
        .map(|_| &url[scheme.len()..])
}

/// Reads to the end, at most `cap` bytes. A TLS peer that closes without `close_notify` after
/// the whole answer is not an error here: the HTTP/1.0 answer ends with the connection, and a
/// truncated one fails the size or XML checks that follow.
fn read_capped(r: impl Read, cap: u64, url: &str) -> Result<Vec<u8>, String> {
    let mut buf = Vec::new();
    match r.take(cap).read_to_end(&mut buf) {
        Ok(_) => Ok(buf),
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof && !buf.is_empty() => Ok(buf),
        Err(e) => Err(format!("reading `{url}`: {e}")),
    }
}
