//! gzip/deflate of request and response bodies (flate2). A decompressed response is bounded by
//! the client's document limit, so a small hostile answer cannot expand without bound.

use std::io::{Read, Write};

use flate2::read::{DeflateDecoder, GzDecoder, ZlibDecoder};
use flate2::write::GzEncoder;
use flate2::Compression;

use crate::Error;

/// Decompresses a response body of `coding` to at most `limit` bytes.
pub(crate) fn decode(coding: &[u8], data: &[u8], limit: usize) -> Result<Vec<u8>, Error> {
    let mut out = Vec::with_capacity((data.len() * 4).min(limit));
    let cap = limit as u64 + 1;
    let res = if coding.eq_ignore_ascii_case(b"gzip") || coding.eq_ignore_ascii_case(b"x-gzip") {
        GzDecoder::new(data).take(cap).read_to_end(&mut out)
    } else if coding.eq_ignore_ascii_case(b"deflate") {
        // HTTP's deflate is zlib-wrapped; some servers send raw deflate.
        if data.first().is_some_and(|b| b & 0x0f == 8) {
            ZlibDecoder::new(data).take(cap).read_to_end(&mut out)
        } else {
            DeflateDecoder::new(data).take(cap).read_to_end(&mut out)
        }
    } else {
        let name = String::from_utf8_lossy(coding).into_owned();
        return Err(Error::body(
            "unsupported content encoding",
            format!("`{name}`"),
        ));
    };
    res.map_err(|e| Error::body("invalid compressed body", e))?;
    if out.len() > limit {
        return Err(Error::body(
            "decompressed body too large",
            format!("over `{limit}` bytes"),
        ));
    }
    Ok(out)
}

/// gzip-compresses a request body.
pub(crate) fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = GzEncoder::new(Vec::with_capacity(data.len() / 3 + 64), Compression::fast());
    e.write_all(data).expect("writing to a vec");
    e.finish().expect("writing to a vec")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gzip_round_trip_and_limit() {
        let data = b"<x>soap</x>".repeat(100);
        let z = gzip(&data);
        assert_eq!(decode(b"gzip", &z, data.len()).unwrap(), data);
        assert!(decode(b"gzip", &z, 10).unwrap_err().is_decode());
        assert!(decode(b"br", &z, 10)
            .unwrap_err()
            .to_string()
            .contains("`br`"));
    }
}
