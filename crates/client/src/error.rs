//! The client's one error type: opaque, with `is_*()` predicates (like hyper's), so that new
//! failure kinds never break callers. A SOAP Fault is one of its cases ([`Error::fault`]).
//! Messages are lower-case and quote the offending token in backticks; never panic here.

use std::fmt;
use std::time::Duration;

use soapstone_codec::{DecodeError, EncodeError, Fault, FaultCode};

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// A failed call: transport, HTTP, encoding, decoding, or a SOAP Fault from the server.
pub struct Error {
    inner: Box<Inner>,
}

struct Inner {
    kind: Kind,
    source: Option<BoxError>,
}

#[derive(Debug)]
enum Kind {
    Url(String),
    Config,
    Connect(String),
    ConnectTimeout(String, Duration),
    Tls(String),
    TlsConfig,
    Timeout(Duration),
    Http,
    Status { status: u16, body: String },
    Fault { fault: Fault, status: u16 },
    Encode,
    Decode { status: u16 },
    Body(&'static str),
}

impl Error {
    fn new(kind: Kind, source: Option<BoxError>) -> Self {
        Error {
            inner: Box::new(Inner { kind, source }),
        }
    }
    pub(crate) fn url(url: &str, why: impl Into<BoxError>) -> Self {
        Error::new(Kind::Url(url.to_owned()), Some(why.into()))
    }
    pub(crate) fn config(why: impl Into<BoxError>) -> Self {
        Error::new(Kind::Config, Some(why.into()))
    }
    pub(crate) fn connect(addr: &str, e: std::io::Error) -> Self {
        Error::new(Kind::Connect(addr.to_owned()), Some(e.into()))
    }
    pub(crate) fn connect_timeout(addr: &str, after: Duration) -> Self {
        Error::new(Kind::ConnectTimeout(addr.to_owned(), after), None)
    }
    pub(crate) fn tls(addr: &str, e: std::io::Error) -> Self {
        Error::new(Kind::Tls(addr.to_owned()), Some(e.into()))
    }
    pub(crate) fn tls_config(why: String) -> Self {
        Error::new(Kind::TlsConfig, Some(why.into()))
    }
    pub(crate) fn timeout(after: Duration) -> Self {
        Error::new(Kind::Timeout(after), None)
    }
    pub(crate) fn http(e: impl Into<BoxError>) -> Self {
        Error::new(Kind::Http, Some(e.into()))
    }
    pub(crate) fn from_status(status: u16, body: &[u8]) -> Self {
        let mut text = String::from_utf8_lossy(&body[..body.len().min(200)])
            .trim()
            .to_owned();
        if body.len() > 200 {
            text.push_str("...");
        }
        Error::new(Kind::Status { status, body: text }, None)
    }
    pub(crate) fn from_fault(fault: Fault, status: u16) -> Self {
        Error::new(Kind::Fault { fault, status }, None)
    }
    /// A request that could not be encoded (e.g. a header block built outside
    /// [`Client::call`](crate::Client::call)).
    pub fn from_encode(e: EncodeError) -> Self {
        Self::encode(e)
    }
    pub(crate) fn encode(e: EncodeError) -> Self {
        Error::new(Kind::Encode, Some(e.into()))
    }
    pub(crate) fn decode(e: DecodeError, status: u16) -> Self {
        Error::new(Kind::Decode { status }, Some(e.into()))
    }
    pub(crate) fn body(what: &'static str, e: impl Into<BoxError>) -> Self {
        Error::new(Kind::Body(what), Some(e.into()))
    }

    /// The server answered with a SOAP Fault.
    pub fn fault(&self) -> Option<&Fault> {
        match &self.inner.kind {
            Kind::Fault { fault, .. } => Some(fault),
            _ => None,
        }
    }
    /// A connect or request timeout.
    pub fn is_timeout(&self) -> bool {
        matches!(self.inner.kind, Kind::Timeout(_) | Kind::ConnectTimeout(..))
    }
    /// The TCP connection could not be made (refused, unreachable, timed out, bad host).
    pub fn is_connect(&self) -> bool {
        matches!(self.inner.kind, Kind::Connect(_) | Kind::ConnectTimeout(..))
    }
    /// The TLS handshake failed: the server's certificate is not trusted (unknown issuer,
    /// expired) or not for the host name of the URL, or the server speaks no TLS; or the TLS
    /// settings were unusable (a CA PEM without a certificate).
    pub fn is_tls(&self) -> bool {
        matches!(self.inner.kind, Kind::Tls(_) | Kind::TlsConfig)
    }
    /// The HTTP status, when the server answered (a Fault's too).
    pub fn status(&self) -> Option<u16> {
        match &self.inner.kind {
            Kind::Status { status, .. } | Kind::Fault { status, .. } | Kind::Decode { status } => {
                Some(*status)
            }
            _ => None,
        }
    }
    /// The answer could not be decoded (not a SOAP envelope, or not the expected type).
    pub fn is_decode(&self) -> bool {
        matches!(self.inner.kind, Kind::Decode { .. } | Kind::Body(_))
    }
    /// The request could not be encoded.
    pub fn is_encode(&self) -> bool {
        matches!(self.inner.kind, Kind::Encode)
    }
    /// The endpoint URL was invalid.
    pub fn is_url(&self) -> bool {
        matches!(self.inner.kind, Kind::Url(_))
    }
    /// [`Client::with_config`](crate::Client::with_config) refused settings that do not go
    /// together (e.g. [`ClientConfig::blocking_io`](crate::ClientConfig::blocking_io) with
    /// hyper's engine).
    pub fn is_config(&self) -> bool {
        matches!(self.inner.kind, Kind::Config)
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("Error");
        d.field("kind", &self.inner.kind);
        if let Some(s) = &self.inner.source {
            d.field("source", s);
        }
        d.finish()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.inner.kind {
            Kind::Url(url) => write!(f, "invalid endpoint url `{url}`")?,
            Kind::Config => f.write_str("bad client settings")?,
            Kind::Connect(addr) => write!(f, "cannot connect to `{addr}`")?,
            Kind::ConnectTimeout(addr, d) => {
                write!(f, "connecting to `{addr}` timed out after `{d:?}`")?
            }
            Kind::Tls(addr) => write!(f, "tls handshake with `{addr}` failed")?,
            Kind::TlsConfig => f.write_str("bad tls settings")?,
            Kind::Timeout(d) => write!(f, "request timed out after `{d:?}`")?,
            Kind::Http => f.write_str("http error")?,
            Kind::Status { status, body } if body.is_empty() => {
                write!(f, "server answered http `{status}`")?
            }
            Kind::Status { status, body } => write!(f, "server answered http `{status}`: {body}")?,
            Kind::Fault { fault, .. } => {
                let code = match &fault.code {
                    FaultCode::VersionMismatch => "VersionMismatch",
                    FaultCode::MustUnderstand => "MustUnderstand",
                    FaultCode::DataEncodingUnknown => "DataEncodingUnknown",
                    FaultCode::Client => "Client",
                    FaultCode::Server => "Server",
                    FaultCode::Other(q) => q.local.as_str(),
                };
                write!(f, "soap fault `{code}`: {}", fault.reason)?
            }
            Kind::Encode => f.write_str("cannot encode the request")?,
            Kind::Decode { .. } => f.write_str("cannot decode the response")?,
            Kind::Body(what) => write!(f, "cannot read the response body: {what}")?,
        }
        if let Some(s) = &self.inner.source {
            write!(f, ": {s}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.inner
            .source
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn predicates_and_messages() {
        let e = Error::from_fault(Fault::server("boom"), 500);
        assert_eq!(e.fault().unwrap().reason, "boom");
        assert_eq!(e.status(), Some(500));
        assert_eq!(e.to_string(), "soap fault `Server`: boom");
        assert!(!e.is_timeout());

        let e = Error::timeout(Duration::from_millis(200));
        assert!(e.is_timeout() && !e.is_connect() && e.fault().is_none());
        assert_eq!(e.to_string(), "request timed out after `200ms`");

        let e = Error::connect_timeout("10.0.0.1:80", Duration::from_secs(5));
        assert!(e.is_timeout() && e.is_connect());

        let e = Error::from_status(503, b"server busy\n");
        assert_eq!(e.status(), Some(503));
        assert_eq!(e.to_string(), "server answered http `503`: server busy");
    }
}
