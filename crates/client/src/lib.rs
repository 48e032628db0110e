//! The SOAP client.
//!
//! INTERFACE STUB: the names and signatures below are the contract the generated stubs in
//! `soapstone-service` are written against; the implementation may add, not change.

use std::time::Duration;

use bytes::Bytes;
use serde::{de::DeserializeOwned, Serialize};
use soapstone_codec::{EncodeOptions, Fault, QName, Style, Version};

/// Client settings.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ClientConfig {
    /// TCP connect timeout. Default: `5 s`.
    pub connect_timeout: Duration,
    /// Whole-request timeout (write to last byte read). Default: `30 s`.
    pub request_timeout: Duration,
    /// Idle keep-alive connections kept per client. Default: `32`.
    pub max_idle: usize,
    /// Send `Accept-Encoding: gzip, deflate` and decode compressed responses. Default: `false`.
    pub accept_compressed: bool,
    /// Compress request bodies with gzip when at least this big. Default: `None` (never).
    pub compress_requests_over: Option<usize>,
    /// Decoding limits for responses.
    pub limits: soapstone_codec::Limits,
}

impl Default for ClientConfig {
    fn default() -> Self {
        ClientConfig {
            connect_timeout: Duration::from_secs(5),
            request_timeout: Duration::from_secs(30),
            max_idle: 32,
            accept_compressed: false,
            compress_requests_over: None,
            limits: soapstone_codec::Limits::default(),
        }
    }
}

/// A transport error, opaque with predicates (like hyper's).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Error(String);

impl Error {
    /// The server answered with a SOAP Fault.
    pub fn fault(&self) -> Option<&Fault> {
        todo!()
    }
    /// A connect or request timeout.
    pub fn is_timeout(&self) -> bool {
        todo!()
    }
}

/// A raw HTTP answer.
#[derive(Debug, Clone)]
pub struct RawResponse {
    /// HTTP status.
    pub status: u16,
    /// Content-Type, if any.
    pub content_type: Option<String>,
    /// Body (decompressed).
    pub body: Bytes,
}

/// One typed operation call: what the stub knows about an operation.
#[derive(Debug, Clone)]
pub struct Operation<'a> {
    /// SOAPAction / action parameter.
    pub action: &'a str,
    /// The request wrapper element.
    pub request: &'a QName,
    /// Encoding options of the request (version, style, qualified...).
    pub options: &'a EncodeOptions,
    /// Body style for decoding the response.
    pub response_style: Style,
}

/// A SOAP client for one endpoint URL (`http://host:port/path`). Cheap to clone: clones share
/// the connection pool.
#[derive(Debug, Clone)]
pub struct Client {
    _url: String,
}

impl Client {
    /// A client with default settings.
    pub fn new(url: &str) -> Result<Self, Error> {
        Self::with_config(url, ClientConfig::default())
    }
    /// A client with these settings.
    pub fn with_config(url: &str, config: ClientConfig) -> Result<Self, Error> {
        let _ = (url, config);
        todo!()
    }
    /// Posts an envelope as it is and returns the raw answer (any status).
    pub async fn call_raw(&self, version: Version, action: Option<&str>, envelope: Bytes) -> Result<RawResponse, Error> {
        let _ = (version, action, envelope);
        todo!()
    }
    /// Encodes `request`, posts it, and decodes the response body's wrapper into `R`;
    /// a Fault answer is an [`Error`] whose [`Error::fault`] is set.
    pub async fn call<T: Serialize + ?Sized, R: DeserializeOwned>(&self, op: &Operation<'_>, request: &T) -> Result<R, Error> {
        let _ = (op, request);
        todo!()
    }
}
