//! A chunked body (RFC 9112 section 7.1), decoded from the front of the caller's buffer one
//! piece at a time: a size line, some data, the CRLF after it, the trailers. The caller reads
//! more bytes when a step consumes nothing, and decides what to do with the data (the client
//! keeps it up to its body limit, the load generator drops it), so a chunk of any declared
//! size passes through a buffer of bounded size.
//!
//! It must never: accept a size line that `httparse` refuses (signs, non-hex digits, more
//! than 16 digits), data not followed by CRLF, or a size line or a trailer section longer than
//! the caller's `max_line` (the decoder would otherwise wait for its end forever, buffering).

use std::ops::Range;

use crate::MAX_HEADERS;

/// What one [`Decoder::step`] found at the front of the buffer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// Bytes of the buffer this step used up (0: more bytes are needed).
    pub consumed: usize,
    /// Where body data lies in the buffer (within the consumed bytes; empty if none).
    pub data: Range<usize>,
    /// The body and its trailers ended with this step.
    pub done: bool,
}

/// A chunked body that cannot be decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// A size line `httparse` refuses (its first bytes, lossy).
    Size(String),
    /// A size line longer than the caller's limit.
    SizeLineTooLong,
    /// Chunk data not followed by CRLF.
    MissingCrlf,
    /// Trailers that are not header lines (`httparse`'s reason).
    Trailers(httparse::Error),
    /// A trailer section longer than the caller's limit.
    TrailersTooLong,
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Size(s) => write!(f, "malformed chunk size `{s}`"),
            Error::SizeLineTooLong => f.write_str("chunk size line too long"),
            Error::MissingCrlf => f.write_str("chunk data not followed by crlf"),
            Error::Trailers(e) => write!(f, "malformed trailers: {e}"),
            Error::TrailersTooLong => f.write_str("trailers too long"),
        }
    }
}

impl std::error::Error for Error {}

/// Where in a chunked body the decoder stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Decoder {
    state: State,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum State {
    #[default]
    Size,
    /// Bytes of the current chunk still to come.
    Data(u64),
    /// The CRLF after a chunk's data.
    Crlf,
    /// After the last chunk: trailer lines up to an empty one.
    Trailers,
    Done,
}

impl Decoder {
    /// A decoder at the start of a body.
    pub fn new() -> Self {
        Decoder::default()
    }

    /// Bytes of the current chunk still to come, as its size line declared them (0 between
    /// chunks): a caller with a body limit refuses a chunk too large before reading it.
    pub fn chunk_left(&self) -> u64 {
        match self.state {
            State::Data(left) => left,
            _ => 0,
        }
    }

    /// Decodes one piece from the front of `buf`. A size line or a trailer section that is
    /// still incomplete when `buf` holds `max_line` bytes is an error.
    pub fn step(&mut self, buf: &[u8], max_line: usize) -> Result<Step, Error> {
        let more = Step {
            consumed: 0,
            data: 0..0,
            done: false,
        };
        match self.state {
            State::Size => match httparse::parse_chunk_size(buf) {
                Ok(httparse::Status::Complete((n, 0))) => {
                    self.state = State::Trailers;
                    Ok(Step {
                        consumed: n,
                        ..more
                    })
                }
                Ok(httparse::Status::Complete((n, size))) => {
                    self.state = State::Data(size);
                    Ok(Step {
                        consumed: n,
                        ..more
                    })
                }
                Ok(httparse::Status::Partial) if buf.len() < max_line => Ok(more),
                Ok(httparse::Status::Partial) => Err(Error::SizeLineTooLong),
                Err(_) => Err(Error::Size(
                    String::from_utf8_lossy(&buf[..buf.len().min(20)]).into_owned(),
                )),
            },
            State::Data(left) => {
                let n = usize::try_from(left).map_or(buf.len(), |l| l.min(buf.len()));
                self.state = if n as u64 == left {
                    State::Crlf
                } else {
                    State::Data(left - n as u64)
                };
                Ok(Step {
                    consumed: n,
                    data: 0..n,
                    done: false,
                })
            }
            State::Crlf => match buf {
                [b'\r', b'\n', ..] => {
                    self.state = State::Size;
                    Ok(Step {
                        consumed: 2,
                        ..more
                    })
                }
                [] | [b'\r'] => Ok(more),
                _ => Err(Error::MissingCrlf),
            },
            State::Trailers => {
                let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
                match httparse::parse_headers(buf, &mut headers) {
                    Ok(httparse::Status::Complete((n, _))) => {
                        self.state = State::Done;
                        Ok(Step {
                            consumed: n,
                            data: 0..0,
                            done: true,
                        })
                    }
                    Ok(httparse::Status::Partial) if buf.len() < max_line => Ok(more),
                    Ok(httparse::Status::Partial) => Err(Error::TrailersTooLong),
                    Err(e) => Err(Error::Trailers(e)),
                }
            }
            State::Done => Ok(Step { done: true, ..more }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Decodes `wire` fed `piece` bytes at a time: the body and the bytes left after it.
    fn decode(wire: &[u8], piece: usize) -> Result<(Vec<u8>, usize), Error> {
        let mut d = Decoder::new();
        let mut buf = Vec::new();
        let mut fed = 0;
        let mut body = Vec::new();
        loop {
            let step = d.step(&buf, 64)?;
            body.extend_from_slice(&buf[step.data.clone()]);
            buf.drain(..step.consumed);
            if step.done {
                return Ok((body, buf.len() + wire.len() - fed));
            }
            if step.consumed == 0 {
                assert!(fed < wire.len(), "wants more than the whole message");
                let n = piece.min(wire.len() - fed);
                buf.extend_from_slice(&wire[fed..fed + n]);
                fed += n;
            }
        }
    }

    #[test]
    fn chunks_join_in_any_pieces_and_stop_at_the_end() {
        let wire = b"5\r\n<a>he\r\n6;ext=1\r\nllo</a\r\n1\r\n>\r\n0\r\nX-Sum: 1\r\n\r\nNEXT";
        for piece in 1..wire.len() {
            let (body, left) = decode(wire, piece).unwrap();
            assert_eq!(body, b"<a>hello</a>", "pieces of {piece}");
            assert_eq!(left, 4, "pieces of {piece}: `NEXT` is the next answer's");
        }
    }

    #[test]
    fn a_huge_declared_chunk_passes_in_bounded_pieces() {
        let mut d = Decoder::new();
        assert_eq!(d.step(b"fffffffffffffff\r\n", 64).unwrap().consumed, 17);
        assert_eq!(d.chunk_left(), 0xfff_ffff_ffff_ffff);
        let step = d.step(&[7u8; 100], 64).unwrap();
        assert_eq!((step.consumed, step.data, step.done), (100, 0..100, false));
        assert_eq!(d.chunk_left(), 0xfff_ffff_ffff_ffff - 100);
    }

    #[test]
    fn bad_bodies_are_errors() {
        for (wire, want) in [
            (&b"-1\r\n"[..], "malformed chunk size"),
            (b"zz\r\n", "malformed chunk size"),
            (b"2\r\nabXY", "not followed by crlf"),
            (b"0\r\nbad trailer\r\n\r\n", "malformed trailers"),
        ] {
            let err = decode(wire, 3).unwrap_err().to_string();
            assert!(err.contains(want), "{wire:?}: {err}");
        }
        let mut d = Decoder::new();
        let long_extension = [&b"1;"[..], &[b'a'; 62]].concat();
        assert_eq!(d.step(&long_extension, 64), Err(Error::SizeLineTooLong));
        let mut d = Decoder::new();
        d.step(b"0\r\n", 64).unwrap();
        assert_eq!(
            d.step(
                b"X-Long: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
                64
            ),
            Err(Error::TrailersTooLong)
        );
    }
}
