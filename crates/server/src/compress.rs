//! gzip and deflate for request and response bodies (flate2).
//!
//! Decompression is bounded: a small compressed body may expand to gigabytes (a zip bomb), so
//! decoding stops one byte past the body limit and the caller answers `413`. It must never
//! allocate more than the limit allows.

use std::io::{Read, Write};

use flate2::read::{GzDecoder, ZlibDecoder};
use flate2::write::{GzEncoder, ZlibEncoder};
use flate2::Compression;

use crate::negotiate::Coding;

/// Why a compressed body could not be read.
#[derive(Debug)]
pub(crate) enum InflateError {
    /// It expands past the limit.
    TooLarge,
    /// It is not valid compressed data.
    Corrupt(std::io::Error),
}

/// Decompresses `data` to at most `limit` bytes.
pub(crate) fn decode(coding: Coding, data: &[u8], limit: usize) -> Result<Vec<u8>, InflateError> {
    let mut out = Vec::with_capacity((data.len() * 4).min(limit));
    // One byte past the limit tells "exactly at the limit" from "over it".
    let cap = limit as u64 + 1;
    let res = match coding {
        Coding::Gzip => GzDecoder::new(data).take(cap).read_to_end(&mut out),
        Coding::Deflate => {
            // HTTP's deflate is zlib-wrapped; some old clients send raw deflate.
            if data.first().is_some_and(|b| b & 0x0f == 8) {
                ZlibDecoder::new(data).take(cap).read_to_end(&mut out)
            } else {
                flate2::read::DeflateDecoder::new(data)
                    .take(cap)
                    .read_to_end(&mut out)
            }
        }
    };
    res.map_err(InflateError::Corrupt)?;
    if out.len() > limit {
        return Err(InflateError::TooLarge);
    }
    Ok(out)
}

/// Compresses `data`.
pub(crate) fn encode(coding: Coding, data: &[u8]) -> Vec<u8> {
    let out = Vec::with_capacity(data.len() / 3 + 64);
    // Writing into a Vec cannot fail.
    match coding {
        Coding::Gzip => {
            let mut e = GzEncoder::new(out, Compression::fast());
            e.write_all(data).expect("writing to a vec");
            e.finish().expect("writing to a vec")
        }
        Coding::Deflate => {
            let mut e = ZlibEncoder::new(out, Compression::fast());
            e.write_all(data).expect("writing to a vec");
            e.finish().expect("writing to a vec")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        let data = b"<soap:Envelope>hello hello hello</soap:Envelope>".repeat(10);
        for c in [Coding::Gzip, Coding::Deflate] {
            let z = encode(c, &data);
            assert!(z.len() < data.len());
            assert_eq!(decode(c, &z, data.len()).unwrap(), data);
        }
    }

    #[test]
    fn raw_deflate_is_accepted() {
        let mut e = flate2::write::DeflateEncoder::new(Vec::new(), Compression::fast());
        e.write_all(b"raw deflate body").unwrap();
        let z = e.finish().unwrap();
        assert_eq!(
            decode(Coding::Deflate, &z, 100).unwrap(),
            b"raw deflate body"
        );
    }

    #[test]
    fn bombs_stop_at_the_limit() {
        let z = encode(Coding::Gzip, &vec![b'a'; 1 << 20]);
        assert!(matches!(
            decode(Coding::Gzip, &z, 1000),
            Err(InflateError::TooLarge)
        ));
        assert_eq!(decode(Coding::Gzip, &z, 1 << 20).unwrap().len(), 1 << 20);
    }

    #[test]
    fn garbage_is_corrupt() {
        assert!(matches!(
            decode(Coding::Gzip, b"not gzip at all", 100),
            Err(InflateError::Corrupt(_))
        ));
    }
}
