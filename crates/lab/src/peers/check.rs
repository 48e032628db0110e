//! Checks a peer server's answers before any of its points is timed: one real HTTP POST per
//! operation over a fresh loopback connection, and the answer compared with what the contract
//! says (`doNothing` answers an empty `doNothingResponse`, `getStringOfSize(n)` the `n` letters
//! `abc...zabc...`, `getIntegersOfSize(n)` the integers `0..n`).
//!
//! The comparison reads the answer's values, not its exact form: peers differ in prefixes,
//! element names of the return part (`return`, `getStringOfSizeResult`, `s-gensym3`), typing
//! (`xsi:type` or none), multi-references (`href="#id"`) and array forms (an array element
//! holding the items, or document/literal's repeated `<return>` elements, as Axis2 answers), and
//! all of those are valid SOAP for the same values. This module must never accept a fault, a non-200 status, or a value that
//! differs from the contract's, and never wait on the network without a deadline.

use std::time::Duration;

use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

/// The largest answer read during a check.
const MAX_ANSWER: usize = 16 << 20;
/// Deadline of one check exchange (connect, send, read to the end).
const DEADLINE: Duration = Duration::from_secs(20);

/// The `n` letters the contract's `getStringOfSize(n)` returns.
pub(crate) fn string_of(n: u32) -> String {
    (0..n).map(|i| char::from(b'a' + (i % 26) as u8)).collect()
}

/// POSTs `body` to `http://addr{path}` and checks the answer of operation `op` with size `n`.
pub(crate) async fn check_http(
    addr: &str,
    path: &str,
    body: &str,
    op: &str,
    n: Option<u32>,
) -> Result<(), String> {
    let raw = post(addr, path, body, &format!("urn:test:soap#{op}")).await?;
    let body = http_body(&raw)?;
    check_envelope(&body, op, n)
}

/// POSTs `body` with SOAPAction `action` over a fresh connection and returns the raw answer.
pub(crate) async fn post(
    addr: &str,
    path: &str,
    body: &str,
    action: &str,
) -> Result<Vec<u8>, String> {
    let exchange = async {
        let mut s = TcpStream::connect(addr)
            .await
            .map_err(|e| format!("cannot connect to `{addr}`: {e}"))?;
        let head = format!(
            "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: text/xml; charset=utf-8\r\n\
             SOAPAction: \"{action}\"\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        );
        s.write_all(format!("{head}{body}").as_bytes())
            .await
            .map_err(|e| format!("cannot send the request: {e}"))?;
        let mut buf = Vec::new();
        (&mut s)
            .take(MAX_ANSWER as u64 + 1)
            .read_to_end(&mut buf)
            .await
            .map_err(|e| format!("cannot read the answer: {e}"))?;
        Ok::<_, String>(buf)
    };
    let raw = tokio::time::timeout(DEADLINE, exchange)
        .await
        .map_err(|_| format!("no complete answer within {DEADLINE:?}"))??;
    if raw.len() > MAX_ANSWER {
        return Err(format!("the answer is larger than {MAX_ANSWER} bytes"));
    }
    Ok(raw)
}

/// The body of a raw HTTP/1.x response with status 200 (Content-Length, chunked, or to EOF).
pub(crate) fn http_body(raw: &[u8]) -> Result<String, String> {
    let end = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or("the answer has no complete HTTP head")?;
    let head = String::from_utf8_lossy(&raw[..end]);
    let rest = &raw[end + 4..];
    let status_line = head.lines().next().unwrap_or_default();
    let status = status_line.split_whitespace().nth(1).unwrap_or_default();
    let header = |name: &str| {
        head.lines().skip(1).find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.trim()
                .eq_ignore_ascii_case(name)
                .then(|| v.trim().to_owned())
        })
    };
    let body = if header("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
        dechunk(rest)?
    } else if let Some(len) = header("content-length") {
        let len: usize = len
            .parse()
            .map_err(|_| format!("bad Content-Length `{len}`"))?;
        rest.get(..len)
            .ok_or_else(|| format!("the body is shorter than its Content-Length `{len}`"))?
            .to_vec()
    } else {
        rest.to_vec()
    };
    let body = String::from_utf8(body).map_err(|_| "the body is not UTF-8".to_owned())?;
    if status != "200" {
        let fault = fault_string(&body).map(|f| format!(": fault `{f}`"));
        return Err(format!(
            "HTTP status `{status}` instead of 200{}",
            fault.unwrap_or_default()
        ));
    }
    Ok(body)
}

fn dechunk(mut data: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    loop {
        let eol = data
            .windows(2)
            .position(|w| w == b"\r\n")
            .ok_or("a chunk size line is cut")?;
        let line = String::from_utf8_lossy(&data[..eol]);
        let size_text = line.split(';').next().unwrap_or_default().trim();
        let size = usize::from_str_radix(size_text, 16)
            .map_err(|_| format!("bad chunk size `{size_text}`"))?;
        data = &data[eol + 2..];
        if size == 0 {
            return Ok(out);
        }
        out.extend_from_slice(data.get(..size).ok_or("a chunk is cut")?);
        data = data.get(size + 2..).ok_or("a chunk is cut")?;
    }
}

fn fault_string(xml: &str) -> Option<String> {
    let doc = roxmltree::Document::parse(xml).ok()?;
    let f = doc
        .descendants()
        .find(|n| n.has_tag_name("faultstring") || n.has_tag_name("Text"))?;
    Some(f.text().unwrap_or_default().trim().to_owned())
}

/// Checks a SOAP envelope answering `op` with size `n` against the contract.
pub(crate) fn check_envelope(xml: &str, op: &str, n: Option<u32>) -> Result<(), String> {
    let doc = roxmltree::Document::parse(xml).map_err(|e| format!("the answer is not XML: {e}"))?;
    let body = doc
        .root_element()
        .children()
        .find(|c| c.is_element() && c.tag_name().name() == "Body")
        .ok_or("the answer has no `Envelope/Body`")?;
    let resp = body
        .children()
        .find(|c| c.is_element() && c.attribute("id").is_none())
        .ok_or("the answer's body is empty")?;
    if resp.tag_name().name() == "Fault" {
        return Err(format!(
            "a fault: `{}`",
            fault_string(xml).unwrap_or_default()
        ));
    }
    let want = format!("{op}Response");
    if resp.tag_name().name() != want {
        return Err(format!(
            "`/Envelope/Body/{}` instead of `{want}`",
            resp.tag_name().name()
        ));
    }
    let value = resp
        .children()
        .find(|c| c.is_element())
        .map(|v| deref(&doc, v));
    let n = n.unwrap_or(0);
    match op {
        "doNothing" => Ok(()),
        "getStringOfSize" | "getString" => {
            let v = value.ok_or_else(|| format!("`{want}` has no return value"))?;
            let got = v.text().unwrap_or_default();
            if got == string_of(n) {
                Ok(())
            } else {
                Err(format!(
                    "`{want}` returned {} characters starting `{}`, not the {n} letters of the contract",
                    got.chars().count(),
                    got.chars().take(12).collect::<String>()
                ))
            }
        }
        "getIntegersOfSize" | "getIntegers" => {
            let text =
                |c: roxmltree::Node| deref(&doc, c).text().unwrap_or_default().trim().to_owned();
            let items: Vec<String> = match value {
                // Document/literal's unbounded element (Axis2's POJO arrays): the integers are
                // the response's own children, `<return>0</return><return>1</return>`.
                Some(v) if is_leaf_value(v) => resp
                    .children()
                    .filter(|c| c.is_element())
                    .map(text)
                    .collect(),
                // An array element (rpc/encoded's SOAP-ENC:Array, rpc/literal's item list).
                Some(v) => v.children().filter(|c| c.is_element()).map(text).collect(),
                None => Vec::new(),
            };
            if items.len() != n as usize {
                return Err(format!(
                    "`{want}` returned {} integers instead of {n}",
                    items.len()
                ));
            }
            for (i, t) in items.iter().enumerate() {
                if t.parse::<i64>().ok() != Some(i as i64) {
                    return Err(format!("`{want}` item {i} is `{t}`, not `{i}`"));
                }
            }
            Ok(())
        }
        other => Err(format!("no check for operation `{other}`")),
    }
}

/// True when `v` is a single value (`<return>7</return>`) rather than an array element: it has
/// no element children but some text. An empty `<return/>` is an empty array.
fn is_leaf_value(v: roxmltree::Node) -> bool {
    !v.children().any(|c| c.is_element()) && v.text().is_some_and(|t| !t.trim().is_empty())
}

/// Follows a SOAP 1.1 multi-reference (`href="#id"`) to the element it names.
fn deref<'a, 'input>(
    doc: &'a roxmltree::Document<'input>,
    node: roxmltree::Node<'a, 'input>,
) -> roxmltree::Node<'a, 'input> {
    match node.attribute("href").and_then(|h| h.strip_prefix('#')) {
        Some(id) => doc
            .descendants()
            .find(|n| n.attribute("id") == Some(id))
            .unwrap_or(node),
        None => node,
    }
}

#[cfg(test)]
mod tests;
