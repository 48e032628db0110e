//! What the generator talks to: a SOAP endpoint or one of the baselines.
//!
//! The URL scheme decides the client: `http://` (or `https://`, TLS) posts a SOAP envelope,
//! `tcp://` plays fixed-size ping-pong with the `tcp-pingpong` baseline, `tcp-connect://` connects and
//! closes (Davis & Parashar's "TCP setup time"), `grpc://` calls the tonic echo service.
//! This module only describes requests; it never opens a socket.

use std::fmt;

use bytes::Bytes;
use http::Uri;

pub use crate::conn::NaiveCauses;

/// SOAP version of the posted envelope: decides the content type and where the action goes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SoapVersion {
    /// SOAP 1.1: `Content-Type: text/xml`, action in the `SOAPAction` header.
    #[default]
    Soap11,
    /// SOAP 1.2: `Content-Type: application/soap+xml`, action as its `action` parameter.
    Soap12,
}

/// A SOAP-over-HTTP target: one envelope, or several in rotation, posted again and again.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct SoapTarget {
    /// `http://host:port/path` or `https://...`.
    pub uri: Uri,
    /// The envelopes posted as request bodies (never empty), round-robin: connection `i`
    /// starts at body `i % n` and takes the next one for each request, so calls spread
    /// over, e.g., different accounts.
    pub bodies: Vec<Bytes>,
    /// The SOAP action. Default: none (`SOAPAction: ""` for SOAP 1.1).
    pub action: Option<String>,
    /// Default: SOAP 1.1.
    pub version: SoapVersion,
    /// The TLS settings of an `https://` URL (`None` for `http://`): the Mozilla roots of
    /// `webpki-roots`, or the CAs given to [`Target::with_tls_ca_pem`]. The URL's host is
    /// sent as SNI and verified. Default: `None`.
    pub tls: Option<std::sync::Arc<tokio_rustls::rustls::ClientConfig>>,
    /// The seeds' client-side causes, for the lab (`soapstone bench --naive`): when any is on,
    /// the calls take a raw HTTP/1.x path of their own (see [`NaiveCauses`]). Default: all off.
    pub naive: NaiveCauses,
    /// A fresh WS-Security UsernameToken spliced into every request's Header (see
    /// [`Target::with_wsse`]). Default: `None`, the bodies go as they are.
    pub(crate) wsse: Option<std::sync::Arc<crate::wsse::WsseBodies>>,
}

/// The gRPC echo call a `grpc://` target makes (see `proto/echo.proto`).
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum GrpcCall {
    /// Davis & Parashar's `void doNothing()`.
    DoNothing,
    /// SOAPBuilders' `echoFloat` (654.321 in their test data).
    EchoFloat(f32),
    /// Davis & Parashar's `String getString()`: a string of `n` characters back.
    GetString(u32),
    /// Davis & Parashar's `int[] getIntegers()`: `n` integers back.
    GetIntegers(u32),
    /// A float, a string of `n` characters and `n` integers, echoed back unchanged.
    Echo(u32),
}

/// What the generator sends requests to.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum Target {
    /// SOAP over HTTP/1.1 POST (`http://`).
    Soap(SoapTarget),
    /// Raw TCP ping-pong (`tcp://`): write `request`, read exactly `response_size` bytes.
    TcpPingPong {
        /// `host:port`.
        addr: String,
        /// The bytes written per request (the server must expect this many).
        request: Bytes,
        /// The bytes the server answers with.
        response_size: usize,
    },
    /// Connect and close (`tcp-connect://`).
    TcpConnect {
        /// `host:port`.
        addr: String,
    },
    /// The tonic echo service (`grpc://`).
    Grpc {
        /// `host:port`.
        addr: String,
        /// Which call.
        call: GrpcCall,
    },
}

/// A target URL that does not describe a usable target.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct TargetError(pub(crate) String);

impl Target {
    /// A SOAP 1.1 target posting `body` to `uri` (an `http://` URL).
    pub fn soap(uri: &str, body: impl Into<Bytes>) -> Result<Self, TargetError> {
        Target::soap_bodies(uri, vec![body.into()])
    }

    /// A SOAP 1.1 target posting `bodies` to `uri` in rotation (see
    /// [`SoapTarget::bodies`]); fails if `bodies` is empty.
    pub fn soap_bodies(uri: &str, bodies: Vec<Bytes>) -> Result<Self, TargetError> {
        if bodies.is_empty() {
            return Err(TargetError(format!(
                "a soap target needs at least one body (url `{uri}`)"
            )));
        }
        let uri: Uri = uri
            .parse()
            .map_err(|e| TargetError(format!("invalid url `{uri}`: {e}")))?;
        let tls = match uri.scheme_str() {
            Some("http") => None,
            Some("https") => Some(crate::conn::tls_config(None).map_err(TargetError)?),
            _ => {
                return Err(TargetError(format!(
                    "expected an `http://` or `https://` url, got `{uri}`"
                )))
            }
        };
        if uri.host().is_none() {
            return Err(TargetError(format!("url `{uri}` has no host")));
        }
        Ok(Target::Soap(SoapTarget {
            uri,
            bodies,
            action: None,
            version: SoapVersion::Soap11,
            tls,
            naive: NaiveCauses::default(),
            wsse: None,
        }))
    }

    /// Trusts only the CA certificates of `pem` for an `https://` target (a private CA or a
    /// self-signed server certificate); an error for other targets or an unusable PEM.
    pub fn with_tls_ca_pem(mut self, pem: &[u8]) -> Result<Self, TargetError> {
        match &mut self {
            Target::Soap(t) if t.tls.is_some() => {
                t.tls = Some(crate::conn::tls_config(Some(pem)).map_err(TargetError)?);
                Ok(self)
            }
            _ => Err(TargetError(
                "a tls ca is only of use with an `https://` target".to_owned(),
            )),
        }
    }

    /// Puts a WS-Security UsernameToken with a fresh nonce and created time into every
    /// request (SOAP targets only): each body gets it first in its `Header`, which is added
    /// when missing. An error names a body that is not a SOAP envelope.
    pub fn with_wsse(
        mut self,
        credentials: crate::wsse::WsseCredentials,
    ) -> Result<Self, TargetError> {
        match &mut self {
            Target::Soap(t) => {
                let bodies = crate::wsse::WsseBodies::new(&t.bodies, credentials)?;
                t.wsse = Some(std::sync::Arc::new(bodies));
                Ok(self)
            }
            _ => Err(TargetError(
                "ws-security headers are only of use with an `http://` or `https://` target"
                    .to_owned(),
            )),
        }
    }

    /// Sets the SOAP action (SOAP targets only; others ignore it).
    pub fn with_action(mut self, action: impl Into<String>) -> Self {
        if let Target::Soap(t) = &mut self {
            t.action = Some(action.into());
        }
        self
    }

    /// Calls with the client-side `causes` on (SOAP over `http://` only: an error for other
    /// targets, and over TLS, where the causes are not implemented).
    pub fn with_naive(mut self, causes: NaiveCauses) -> Result<Self, TargetError> {
        match &mut self {
            Target::Soap(t) if t.tls.is_none() => {
                t.naive = causes;
                Ok(self)
            }
            _ => Err(TargetError(
                "the client causes (`--naive`) apply to an `http://` soap target only".to_owned(),
            )),
        }
    }

    /// Sets the SOAP version (SOAP targets only; others ignore it).
    pub fn with_version(mut self, version: SoapVersion) -> Self {
        if let Target::Soap(t) = &mut self {
            t.version = version;
        }
        self
    }

    /// A `tcp-pingpong` target: `request` out, `response_size` bytes back.
    pub fn tcp_pingpong(
        addr: impl Into<String>,
        request: impl Into<Bytes>,
        response_size: usize,
    ) -> Self {
        Target::TcpPingPong {
            addr: addr.into(),
            request: request.into(),
            response_size,
        }
    }

    /// A `tcp-connect` target.
    pub fn tcp_connect(addr: impl Into<String>) -> Self {
        Target::TcpConnect { addr: addr.into() }
    }

    /// A `grpc` target.
    pub fn grpc(addr: impl Into<String>, call: GrpcCall) -> Self {
        Target::Grpc {
            addr: addr.into(),
            call,
        }
    }

    /// The `host:port` to connect to.
    pub fn authority(&self) -> String {
        match self {
            Target::Soap(t) => {
                let host = t.uri.host().unwrap_or("");
                let port = t.uri.port_u16().unwrap_or(80);
                if host.contains(':') && !host.starts_with('[') {
                    format!("[{host}]:{port}")
                } else {
                    format!("{host}:{port}")
                }
            }
            Target::TcpPingPong { addr, .. }
            | Target::TcpConnect { addr }
            | Target::Grpc { addr, .. } => addr.clone(),
        }
    }

    pub(crate) fn check(&self) -> Result<(), TargetError> {
        match self {
            Target::TcpPingPong {
                request,
                response_size,
                ..
            } if request.is_empty() || *response_size == 0 => Err(TargetError(format!(
                "tcp ping-pong needs at least 1 byte each way, got request {} and response {response_size}",
                request.len()
            ))),
            Target::Soap(t) if t.bodies.is_empty() => Err(TargetError(format!(
                "a soap target needs at least one body (url `{}`)",
                t.uri
            ))),
            _ => Ok(()),
        }
    }
}

/// Splits `scheme://host:port[/...]` for the non-HTTP schemes.
pub(crate) fn host_port(url: &str, scheme: &str) -> Result<String, TargetError> {
    let rest = url
        .strip_prefix(scheme)
        .and_then(|r| r.strip_prefix("://"))
        .ok_or_else(|| TargetError(format!("expected `{scheme}://host:port`, got `{url}`")))?;
    let authority = rest.split('/').next().unwrap_or("");
    match authority.rsplit_once(':') {
        Some((host, port)) if !host.is_empty() && port.parse::<u16>().is_ok() => {
            Ok(authority.to_string())
        }
        _ => Err(TargetError(format!(
            "expected `{scheme}://host:port`, got `{url}` (a port is required)"
        ))),
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Target::Soap(t) => write!(f, "{}", t.uri),
            Target::TcpPingPong {
                addr,
                request,
                response_size,
            } => write!(f, "tcp://{addr} ({} B -> {response_size} B)", request.len()),
            Target::TcpConnect { addr } => write!(f, "tcp-connect://{addr}"),
            Target::Grpc { addr, call } => write!(f, "grpc://{addr} ({call:?})"),
        }
    }
}
