//! The SOAP client: async HTTP/1.1 with pooled keep-alive connections.
//!
//! On the wire, by design: `TCP_NODELAY`, each request's head and body in one write, responses
//! framed by `Content-Length` or chunked encoding (never read to EOF to find their end when
//! they say their length), keep-alive connections reused across calls, connect and request
//! timeouts, gzip both ways when configured. Calls take a lean HTTP/1.1 exchange of the
//! client's own (`httparse` for the answer's head; the request head built once per action,
//! buffers kept per client and per connection: no heap allocation per typed call on a pooled
//! `http://` connection), over plain TCP or rustls; [`ClientConfig::http`] selects hyper's
//! client connection instead. `https://` URLs speak TLS (rustls): the system's
//! roots by default (webpki roots where it has none) or the CAs of [`ClientConfig::tls_ca_pem`],
//! a client certificate with [`ClientConfig::tls_client_cert_pem`], the URL's host sent as SNI
//! and verified; a failed handshake is an [`Error`] with [`Error::is_tls`], never a plain-HTTP
//! fallback. A SOAP Fault, also one sent with HTTP 500 (or
//! 400, a SOAP 1.2 Sender fault), is an [`Error`] whose [`Error::fault`] is set.
//!
//! ```no_run
//! # async fn example() -> Result<(), soapstone_client::Error> {
//! use soapstone_client::Client;
//! use soapstone_codec::Version;
//!
//! let client = Client::new("http://127.0.0.1:8080/echo")?;
//! let envelope = bytes::Bytes::from_static(b"<soap:Envelope ...>...</soap:Envelope>");
//! let answer = client.call_raw(Version::Soap11, Some("http://tempuri.org/echoFloat"), envelope).await?;
//! println!("{} {:?}", answer.status, answer.body);
//! # Ok(()) }
//! ```
//!
//! With [`ClientConfig::blocking_io`], calls do that same exchange on blocking sockets on the
//! calling thread (for a caller that owns its thread, as omniORB's and gSOAP's clients are):
//! their futures are ready on the first poll, and no tokio runtime is needed.
//!
//! ```no_run
//! # fn example() -> Result<(), soapstone_client::Error> {
//! use soapstone_client::{Client, ClientConfig};
//! use soapstone_codec::Version;
//!
//! let config = ClientConfig::default().blocking_io(true);
//! let client = Client::with_config("http://127.0.0.1:8080/echo", config)?;
//! let envelope = bytes::Bytes::from_static(b"<soap:Envelope ...>...</soap:Envelope>");
//! // Any executor will do: the future is ready on its first poll.
//! let answer = futures_executor::block_on(client.call_raw(Version::Soap11, None, envelope))?;
//! println!("{}", answer.status);
//! # Ok(()) }
//! ```
//!
//! For the lab only, [`ClientConfig::naive`] brings back the seeds' client causes (read to
//! EOF, a connection per call, `Expect: 100-continue`) on a separate raw path; all off by
//! default (docs/causes.md).
//!
//! The names and signatures of `ClientConfig`, `Error::{fault, is_timeout}`, `RawResponse`,
//! `Operation` and `Client::{new, with_config, call_raw, call}` are the contract the generated
//! stubs in `soapstone-service` are written against: add, never change.

mod compress;
mod conn;
mod error;
mod lean;
mod naive;
mod tls;

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::header::{self, HeaderValue};
use http::Request;
use http_body_util::Full;
use serde::{de::DeserializeOwned, Serialize};
use soapstone_codec::{EncodeOptions, Envelope, QName, Style, Version};

pub use error::Error;
pub use naive::NaiveModes;
/// The TLS library behind `https://` URLs, for [`ClientConfig::tls`].
pub use tokio_rustls::rustls;

use conn::{Conn, Exchange, Pool};
use lean::{Answer, BlockingConn, Failure, LeanConn};

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
    /// Decoding limits for responses (`max_document_bytes` also bounds a decompressed body,
    /// and the body of an answer as received on the lean engine: a longer `Content-Length` is
    /// an error before the body is read),
    /// and the leniency towards old servers ([`ClientConfig::lenient`]). Default:
    /// [`Limits::default`](soapstone_codec::Limits::default) (strict).
    pub limits: soapstone_codec::Limits,
    /// The seeds' client causes on purpose, for the lab only (read to EOF, a connection per
    /// call, `Expect: 100-continue`). Default: all off ([`NaiveModes::default`]).
    pub naive: NaiveModes,
    /// The TLS settings of `https://` URLs (ignored for `http://`): whom to trust, and the
    /// client certificate. `None` trusts the system's roots (`rustls-native-certs`, honouring
    /// `SSL_CERT_FILE`), or the Mozilla roots of `webpki-roots` where the system has none;
    /// [`ClientConfig::tls_ca_pem`] trusts given CAs only; [`ClientConfig::tls_client_cert_pem`]
    /// adds a client certificate. The server name of the URL is always sent (SNI) and verified. Default: `None`.
    pub tls: Option<Arc<tokio_rustls::rustls::ClientConfig>>,
    /// SOAP header blocks written into every typed call's envelope ([`Client::call`], so every
    /// generated client's call), made anew per call: a WS-Security UsernameToken with a fresh
    /// nonce (`soapstone-wssec`), a correlation id. Default: `None`.
    pub headers: Option<Arc<dyn HeaderSource>>,
    /// After sending a request on a plain `http://` connection, look at the socket for the
    /// answer for up to this long, yielding the CPU between one-byte peeks, before the task
    /// waits for it, and reads what a peek finds straight from the socket: on a virtual machine this spares waking a halted CPU for every answer
    /// (the server's counterpart is `soapstone_server::ServerConfig::busy_poll`;
    /// docs/performance.md, "Round seven, wakeups"). The calling thread runs nothing else
    /// meanwhile, so it suits a caller that makes one call at a time on its thread. Never on
    /// `https://`. Longer budgets are taken as 1 ms. `Duration::ZERO` never polls.
    /// Default: `0`.
    pub busy_poll: Duration,
    /// The HTTP/1.1 implementation under calls: the lean exchange (`lean.rs`: a precomputed
    /// head, one write, buffers kept per connection, no allocation per call) or hyper's client
    /// connection, for `http://` and `https://` alike. The naive modes always take their own
    /// path. Default: [`HttpEngine::Lean`].
    pub http: HttpEngine,
    /// Do the lean exchange's I/O with blocking `std::net` sockets on the calling thread
    /// instead of tokio's: the thread writes the request and sleeps in `recv` until the answer,
    /// as omniORB's and gSOAP's clients do. Every call's future ([`Client::call`],
    /// [`Client::call_raw`], [`Client::call_with_headers`], [`Client::call_one_way`], so every
    /// generated client's) then completes on its first poll, so any executor drives it
    /// (`futures::executor::block_on`) **without a tokio runtime at all**, and an answer wakes
    /// the thread straight from the socket, not through `epoll_wait`, the reactor and a task's
    /// wake (docs/performance.md, "Round eleven").
    ///
    /// **For a caller that owns its thread**: a synchronous program, or a thread per caller,
    /// one call at a time on each (clones of one `Client` on several threads share its pool,
    /// each call on a connection of its own). **Never on a runtime shared with other tasks**: a
    /// call blocks its thread until the answer, up to [`ClientConfig::request_timeout`], and
    /// every task waiting for that thread with it.
    ///
    /// Same wire behaviour as the async lean exchange: `TCP_NODELAY`, one write per request,
    /// answers framed by the same code (`Content-Length`, chunked, gzip, the same bounds), keep-alive
    /// connections pooled (apart from the async ones) and a pooled connection found closed
    /// replaced before the request is sent. The connect timeout bounds connect and TLS
    /// handshake; the request timeout is a deadline checked before every read and write, the
    /// sockets' timeouts set to what is left (a call that times out ends within 5 ms of its
    /// deadline). `https://` works, through rustls's synchronous API with the same TLS settings
    /// ([`ClientConfig::tls`]); [`ClientConfig::busy_poll`] applies on `http://` as on the
    /// async path. It needs the lean exchange: [`Client::with_config`] refuses it beside
    /// [`HttpEngine::Hyper`] or a naive mode ([`Error::is_config`]). Default: `false`.
    pub blocking_io: bool,
}

/// Which HTTP/1.1 implementation a [`Client`] calls through ([`ClientConfig::http`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum HttpEngine {
    /// The lean exchange: what SOAP calls need of HTTP/1.1, with no allocation per call.
    #[default]
    Lean,
    /// hyper's HTTP/1.1 client connection.
    Hyper,
}

/// Makes the SOAP header blocks of one call (see [`ClientConfig::headers`]). Called once per
/// call, so that a block may differ per call (a nonce, a timestamp).
pub trait HeaderSource: Send + Sync + std::fmt::Debug + 'static {
    /// The header blocks of the next call, each one element with its namespaces declared on
    /// it (the envelope declares only `soap:` and, when typed, `xsi:`/`xsd:`).
    fn header_blocks(&self) -> Vec<String>;
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
            naive: NaiveModes::default(),
            tls: None,
            headers: None,
            busy_poll: Duration::ZERO,
            http: HttpEngine::Lean,
            blocking_io: false,
        }
    }
}

impl ClientConfig {
    /// Reads responses of old toolkits that break the specifications in known ways (gSOAP's
    /// `encodingStyle` on a SOAP 1.2 Body, Axis 1.4's surrogate-pair character references, PHP's
    /// `xsd:int` booleans; see [`soapstone_codec::Lenient`]), saying so in `tracing` (target
    /// `soapstone_codec::lenient`). `false` makes the client strict again. Default: strict.
    pub fn lenient(mut self, on: bool) -> Self {
        self.limits.lenient = if on {
            soapstone_codec::Lenient::all()
        } else {
            soapstone_codec::Lenient::STRICT
        };
        self
    }

    /// Sets the decoding limits of responses (leniency included).
    pub fn limits(mut self, limits: soapstone_codec::Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Trusts only the CA certificates of `pem` (one or more `-----BEGIN CERTIFICATE-----`
    /// blocks) for `https://` URLs, e.g. a private CA or a self-signed server certificate.
    pub fn tls_ca_pem(mut self, pem: &[u8]) -> Result<Self, Error> {
        let config = tls::config_for_ca_pem(pem).map_err(Error::tls_config)?;
        self.tls = Some(Arc::new(config));
        Ok(self)
    }

    /// Trusts the CAs of `ca_pem` (the system's roots when `None`) and presents the client
    /// certificate chain `cert_pem` (leaf first) with its private key `key_pem` (PKCS#8,
    /// PKCS#1 or SEC1) to servers that ask for one (mutual TLS).
    pub fn tls_client_cert_pem(
        mut self,
        ca_pem: Option<&[u8]>,
        cert_pem: &[u8],
        key_pem: &[u8],
    ) -> Result<Self, Error> {
        let config =
            tls::config_from_pem(ca_pem, Some((cert_pem, key_pem))).map_err(Error::tls_config)?;
        self.tls = Some(Arc::new(config));
        Ok(self)
    }

    /// The TLS settings `https://` URLs use: [`ClientConfig::tls`] if set, otherwise the
    /// system's roots (the Mozilla roots of `webpki-roots` where the system has none). For other code that must speak TLS as this client does
    /// (e.g. fetching a WSDL over https).
    pub fn tls_config(&self) -> Result<Arc<rustls::ClientConfig>, Error> {
        match &self.tls {
            Some(c) => Ok(Arc::clone(c)),
            None => tls::default_config()
                .map(Arc::new)
                .map_err(Error::tls_config),
        }
    }

    /// Writes `source`'s header blocks into every typed call.
    pub fn headers(mut self, source: Arc<dyn HeaderSource>) -> Self {
        self.headers = Some(source);
        self
    }

    /// Sets the whole-request timeout.
    pub fn request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// Makes calls do their I/O with blocking sockets on the calling thread (`true`), for a
    /// caller that owns its thread, or on tokio's (`false`): see [`ClientConfig::blocking_io`].
    pub fn blocking_io(mut self, on: bool) -> Self {
        self.blocking_io = on;
        self
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
    inner: Arc<Inner>,
}

struct Inner {
    url: String,
    host: String,
    port: u16,
    host_header: HeaderValue,
    /// The request target (path and query).
    path: http::Uri,
    config: ClientConfig,
    /// Idle `https://` connections (hyper).
    pool: Pool<Conn>,
    /// Idle connections of the lean exchange (`http://` and `https://`). Boxed, as are the
    /// blocking ones: a connection leaves its pool and comes back on every call, and each move
    /// of one inline was a copy of its 150-odd bytes (callgrind).
    lean: Pool<Box<LeanConn>>,
    /// Idle connections of the lean exchange on blocking sockets ([`ClientConfig::blocking_io`]).
    blocking: Pool<Box<BlockingConn>>,
    /// The naive path's one keep-alive connection (only with `Expect: 100-continue` alone).
    naive_idle: std::sync::Mutex<Option<tokio::net::TcpStream>>,
    /// The TLS connector of an `https://` URL.
    tls: Option<tls::Connector>,
    /// Recently used action headers: building one is a format and a validation per call.
    actions: std::sync::Mutex<Vec<(Version, Option<String>, HeaderValue)>>,
    /// The lean path's request heads up to `Content-Length`, per version and action.
    heads: std::sync::Mutex<Vec<CachedHead>>,
    /// The buffer typed calls encode into, lent to one call at a time (a concurrent call
    /// encodes into a new one); at most [`lean::KEEP_BUFFER`] of it is kept.
    scratch: std::sync::Mutex<Vec<u8>>,
}

/// A lean request head up to `Content-Length`, by version and action.
type CachedHead = (Version, Option<String>, Arc<[u8]>);

/// Action headers (and lean request heads) kept per client.
const ACTION_CACHE: usize = 32;

impl Inner {
    /// The header that carries the action: `SOAPAction` (1.1) or the content type (1.2).
    fn action_header(
        &self,
        version: Version,
        action: Option<&str>,
    ) -> Result<(header::HeaderName, HeaderValue), Error> {
        let name = match version {
            Version::Soap11 => header::HeaderName::from_static("soapaction"),
            Version::Soap12 => header::CONTENT_TYPE,
        };
        let mut cache = self.actions.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, _, v)) = cache
            .iter()
            .find(|(ver, a, _)| *ver == version && a.as_deref() == action)
        {
            return Ok((name, v.clone()));
        }
        let quoted = |a: &str| format!("\"{}\"", a.replace('\\', "\\\\").replace('"', "\\\""));
        let text = match (version, action) {
            (Version::Soap11, a) => quoted(a.unwrap_or("")),
            (Version::Soap12, Some(a)) => {
                format!("application/soap+xml; charset=utf-8; action={}", quoted(a))
            }
            (Version::Soap12, None) => "application/soap+xml; charset=utf-8".to_owned(),
        };
        let value = HeaderValue::from_str(&text).map_err(|e| {
            Error::url(
                &self.url,
                format!("invalid action `{}`: {e}", action.unwrap_or_default()),
            )
        })?;
        if cache.len() >= ACTION_CACHE {
            cache.remove(0);
        }
        cache.push((version, action.map(str::to_owned), value.clone()));
        Ok((name, value))
    }
}

impl Inner {
    /// The request head of the lean path up to `Content-Length`: request line, `host`, the
    /// content type and action, `accept-encoding` when configured. Built once per version and
    /// action, then shared.
    fn lean_head(&self, version: Version, action: Option<&str>) -> Result<Arc<[u8]>, Error> {
        {
            let heads = self.heads.lock().unwrap_or_else(|e| e.into_inner());
            if let Some((_, _, h)) = heads
                .iter()
                .find(|(ver, a, _)| *ver == version && a.as_deref() == action)
            {
                return Ok(Arc::clone(h));
            }
        }
        // Validated as a header value (no CR, LF or other control bytes) by the hyper path's
        // builder, so both paths refuse the same actions.
        let (name, value) = self.action_header(version, action)?;
        let mut head = Vec::with_capacity(256);
        head.extend_from_slice(b"POST ");
        head.extend_from_slice(self.path.to_string().as_bytes());
        head.extend_from_slice(b" HTTP/1.1\r\nhost: ");
        head.extend_from_slice(self.host_header.as_bytes());
        head.extend_from_slice(b"\r\n");
        head.extend_from_slice(name.as_str().as_bytes());
        head.extend_from_slice(b": ");
        head.extend_from_slice(value.as_bytes());
        head.extend_from_slice(b"\r\n");
        if version == Version::Soap11 {
            head.extend_from_slice(b"content-type: text/xml; charset=utf-8\r\n");
        }
        if self.config.accept_compressed {
            head.extend_from_slice(b"accept-encoding: gzip, deflate\r\n");
        }
        let head: Arc<[u8]> = head.into();
        let mut heads = self.heads.lock().unwrap_or_else(|e| e.into_inner());
        if heads.len() >= ACTION_CACHE {
            heads.remove(0);
        }
        heads.push((version, action.map(str::to_owned), Arc::clone(&head)));
        Ok(head)
    }

    /// The encoding buffer, empty (a new one if another call has it).
    fn take_scratch(&self) -> Vec<u8> {
        std::mem::take(&mut *self.scratch.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Gives the encoding buffer back, unless it grew past [`lean::KEEP_BUFFER`].
    fn return_scratch(&self, mut buf: Vec<u8>) {
        if buf.capacity() > lean::KEEP_BUFFER {
            return;
        }
        buf.clear();
        let mut slot = self.scratch.lock().unwrap_or_else(|e| e.into_inner());
        if slot.capacity() < buf.capacity() {
            *slot = buf;
        }
    }

    /// Whether calls take the lean exchange: no naive mode, and not hyper by choice.
    fn lean(&self) -> bool {
        self.config.http == HttpEngine::Lean && !self.config.naive.any()
    }
}

impl std::fmt::Debug for Inner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("url", &self.url)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl Client {
    /// A client with default settings.
    pub fn new(url: &str) -> Result<Self, Error> {
        Self::with_config(url, ClientConfig::default())
    }

    /// A client with these settings, for an `http://` or `https://` URL.
    pub fn with_config(url: &str, config: ClientConfig) -> Result<Self, Error> {
        let uri: http::Uri = url.parse().map_err(|e| Error::url(url, e))?;
        let https = match uri.scheme_str() {
            Some("http") => false,
            Some("https") => true,
            Some(other) => {
                return Err(Error::url(
                    url,
                    format!("unsupported scheme `{other}`, expected `http` or `https`"),
                ))
            }
            None => {
                return Err(Error::url(
                    url,
                    "missing scheme, expected `http://host:port/path`",
                ))
            }
        };
        let authority = uri
            .authority()
            .ok_or_else(|| Error::url(url, "missing host"))?;
        let host = authority
            .host()
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_owned();
        let port = authority.port_u16().unwrap_or(if https { 443 } else { 80 });
        let tls = if https {
            let tls_config = match &config.tls {
                Some(c) => c.clone(),
                None => Arc::new(tls::default_config().map_err(|why| Error::url(url, why))?),
            };
            Some(tls::Connector::new(tls_config, &host).map_err(|why| Error::url(url, why))?)
        } else {
            None
        };
        let host_header =
            HeaderValue::from_str(authority.as_str()).map_err(|e| Error::url(url, e))?;
        let path: http::Uri = uri
            .path_and_query()
            .map_or("/", |p| p.as_str())
            .parse()
            .map_err(|e| Error::url(url, e))?;
        if config.blocking_io {
            let other = if config.http != HttpEngine::Lean {
                Some("`http` is not `HttpEngine::Lean`")
            } else if config.naive.any() {
                Some("a naive mode is on")
            } else {
                None
            };
            if let Some(other) = other {
                return Err(Error::config(format!(
                    "`blocking_io` needs the lean exchange, but {other}"
                )));
            }
        }
        let pool = Pool::new(config.max_idle);
        let lean = Pool::new(config.max_idle);
        let blocking = Pool::new(config.max_idle);
        Ok(Client {
            inner: Arc::new(Inner {
                url: url.to_owned(),
                host,
                port,
                host_header,
                path,
                config,
                pool,
                lean,
                blocking,
                naive_idle: std::sync::Mutex::new(None),
                tls,
                actions: std::sync::Mutex::new(Vec::new()),
                heads: std::sync::Mutex::new(Vec::new()),
                scratch: std::sync::Mutex::new(Vec::new()),
            }),
        })
    }

    /// The endpoint URL.
    pub fn url(&self) -> &str {
        &self.inner.url
    }

    /// The settings.
    pub fn config(&self) -> &ClientConfig {
        &self.inner.config
    }

    /// Idle pooled connections right now (for tests and diagnostics).
    pub fn idle_connections(&self) -> usize {
        self.inner.pool.idle_len() + self.inner.lean.idle_len() + self.inner.blocking.idle_len()
    }

    /// Posts an envelope as it is and returns the raw answer (any status).
    pub async fn call_raw(
        &self,
        version: Version,
        action: Option<&str>,
        envelope: Bytes,
    ) -> Result<RawResponse, Error> {
        let answer = self.exchange(version, action, &envelope, true).await?;
        Ok(RawResponse {
            status: answer.status,
            content_type: answer.content_type,
            body: answer.body,
        })
    }

    /// Posts an envelope and returns the whole answer, its body decompressed; its content
    /// type only when `content_type` (it costs an allocation).
    async fn exchange(
        &self,
        version: Version,
        action: Option<&str>,
        envelope: &[u8],
        content_type: bool,
    ) -> Result<Answer, Error> {
        let inner = &*self.inner;
        let compressed = match inner.config.compress_requests_over {
            Some(min) if envelope.len() >= min => Some(compress::gzip(envelope)),
            _ => None,
        };
        let body = compressed.as_deref().unwrap_or(envelope);
        let mut answer = if inner.lean() {
            let head = inner.lean_head(version, action)?;
            let want = lean::Want {
                content_type,
                max_body: inner.config.limits.max_document_bytes,
                timeout: inner.config.request_timeout,
                busy_poll: inner.config.busy_poll.min(lean::MAX_BUSY_POLL),
            };
            if inner.config.blocking_io {
                // Never pending: the future of a call in this mode is ready on its first poll.
                self.send_blocking(&head, compressed.is_some(), body, &want)?
            } else {
                self.send_lean(&head, compressed.is_some(), body, &want)
                    .await?
            }
        } else {
            let req = self.request(version, action, body, compressed.is_some())?;
            let (parts, body) = self.send(req).await?.into_parts();
            let header = |name| {
                parts
                    .headers
                    .get(name)
                    .and_then(|v: &HeaderValue| v.to_str().ok())
            };
            Answer {
                status: parts.status.as_u16(),
                content_type: header(header::CONTENT_TYPE)
                    .filter(|_| content_type)
                    .map(str::to_owned),
                content_encoding: header(header::CONTENT_ENCODING)
                    .filter(|c| !c.eq_ignore_ascii_case("identity"))
                    .map(|c| c.as_bytes().to_vec()),
                body,
            }
        };
        if let Some(coding) = answer.content_encoding.take() {
            let limit = inner.config.limits.max_document_bytes;
            answer.body = Bytes::from(compress::decode(&coding, &answer.body, limit)?);
        }
        Ok(answer)
    }

    /// Encodes a typed request with `headers` and the client's own header blocks into the
    /// client's reusable buffer, and posts it.
    async fn encode_and_exchange<T: Serialize + ?Sized>(
        &self,
        op: &Operation<'_>,
        headers: &[&str],
        request: &T,
    ) -> Result<Answer, Error> {
        let own = match &self.inner.config.headers {
            Some(source) => source.header_blocks(),
            None => Vec::new(),
        };
        let blocks: Vec<&str> = headers
            .iter()
            .copied()
            .chain(own.iter().map(String::as_str))
            .collect();
        let mut out = self.inner.take_scratch();
        let res = match soapstone_codec::encode(&mut out, op.options, &blocks, op.request, request)
        {
            Ok(()) => {
                self.exchange(op.options.version, Some(op.action), &out, false)
                    .await
            }
            Err(e) => Err(Error::encode(e)),
        };
        self.inner.return_scratch(out);
        res
    }

    /// Encodes `request`, posts it, and decodes the response body's wrapper into `R`;
    /// a Fault answer is an [`Error`] whose [`Error::fault`] is set.
    pub async fn call<T: Serialize + ?Sized, R: DeserializeOwned>(
        &self,
        op: &Operation<'_>,
        request: &T,
    ) -> Result<R, Error> {
        Ok(self.call_with_headers(op, &[], request).await?.0)
    }

    /// [`Client::call`] with SOAP header blocks: each is one element given as markup, with its
    /// namespaces declared on it (e.g. from [`soapstone_codec::encode_header_block`]), written
    /// into the request's `Header` as it is (an idempotency key, a typed header), before the
    /// client's own ([`ClientConfig::headers`]: a security token made fresh per call). Also
    /// returns the response envelope's bytes, whose header blocks the caller may read.
    pub async fn call_with_headers<T: Serialize + ?Sized, R: DeserializeOwned>(
        &self,
        op: &Operation<'_>,
        headers: &[&str],
        request: &T,
    ) -> Result<(R, Bytes), Error> {
        let answer = self.encode_and_exchange(op, headers, request).await?;
        let value = decode_answer(
            answer.status,
            &answer.body,
            op.response_style,
            &self.inner.config.limits,
        )?;
        let body = answer.body;
        Ok((value, body))
    }

    /// Calls a one-way operation: sends `request` with `headers` (as
    /// [`Client::call_with_headers`] does) and returns once the server accepted it: HTTP 202,
    /// or any 2xx, with an empty body or a non-fault envelope (WS-I BP R2750: a consumer
    /// ignores one). A Fault answer is an [`Error`] whose [`Error::fault`] is set; any other
    /// status is an error too.
    pub async fn call_one_way<T: Serialize + ?Sized>(
        &self,
        op: &Operation<'_>,
        headers: &[&str],
        request: &T,
    ) -> Result<(), Error> {
        let Answer { status, body, .. } = self.encode_and_exchange(op, headers, request).await?;
        if (200..300).contains(&status) && body.iter().all(u8::is_ascii_whitespace) {
            return Ok(());
        }
        let may_be_fault = status == 500 || status == 400;
        if !(200..300).contains(&status) && !may_be_fault {
            return Err(Error::from_status(status, &body));
        }
        match Envelope::parse(&body, &self.inner.config.limits) {
            Ok(envelope) if envelope.is_fault() => {
                let fault = envelope.fault().map_err(|e| Error::decode(e, status))?;
                Err(Error::from_fault(fault, status))
            }
            _ if may_be_fault => Err(Error::from_status(status, &body)),
            Ok(_) => Ok(()),
            Err(e) => Err(Error::decode(e, status)),
        }
    }

    /// The hyper path's request (`https://`, naive modes).
    fn request(
        &self,
        version: Version,
        action: Option<&str>,
        body: &[u8],
        compressed: bool,
    ) -> Result<Request<Full<Bytes>>, Error> {
        let inner = &*self.inner;
        let (name, value) = inner.action_header(version, action)?;
        let mut req = Request::new(Full::new(Bytes::copy_from_slice(body)));
        *req.method_mut() = http::Method::POST;
        *req.uri_mut() = inner.path.clone();
        let h = req.headers_mut();
        h.insert(header::HOST, inner.host_header.clone());
        h.insert(name, value);
        if version == Version::Soap11 {
            h.insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/xml; charset=utf-8"),
            );
        }
        if inner.config.accept_compressed {
            h.insert(
                header::ACCEPT_ENCODING,
                HeaderValue::from_static("gzip, deflate"),
            );
        }
        if compressed {
            h.insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
        }
        Ok(req)
    }

    /// Sends on a pooled plain connection (or a new one) and reads the whole answer.
    async fn send_lean(
        &self,
        head: &[u8],
        gzip: bool,
        body: &[u8],
        want: &lean::Want,
    ) -> Result<Answer, Error> {
        let inner = &*self.inner;
        let mut fresh = false;
        loop {
            let mut conn = loop {
                match inner.lean.take() {
                    Some(mut c) => {
                        if c.is_open() {
                            break c;
                        }
                        tracing::debug!("pooled connection closed by the server");
                    }
                    None => {
                        fresh = true;
                        let label = format!("{}:{}", inner.host, inner.port);
                        let timeout = inner.config.connect_timeout;
                        let connect = async {
                            let tcp = conn::connect_tcp(&inner.host, inner.port, &label).await?;
                            match &inner.tls {
                                None => Ok(tls::Stream::Plain(tcp)),
                                Some(tls) => tls.handshake(tcp, &label).await,
                            }
                        };
                        let stream = tokio::time::timeout(timeout, connect)
                            .await
                            .map_err(|_| Error::connect_timeout(&label, timeout))??;
                        break Box::new(LeanConn::new(stream));
                    }
                }
            };
            let fixed = lean::Head { fixed: head, gzip };
            match conn.exchange(fixed, body, want).await {
                Ok((answer, reuse)) => {
                    if reuse {
                        inner.lean.put(conn);
                    }
                    return Ok(answer);
                }
                // A pooled connection the server closed as we picked it: nothing was sent,
                // so the request goes once more on a new connection.
                Err(Failure::NotSent(e)) if !fresh => {
                    tracing::debug!(error = %e, "pooled connection closed before sending; retrying");
                }
                Err(Failure::NotSent(e) | Failure::Failed(e)) => return Err(e),
            }
        }
    }

    /// [`Client::send_lean`] on blocking sockets ([`ClientConfig::blocking_io`]): the same pool
    /// rules, and the same one retry of a request that a pooled connection could not take.
    fn send_blocking(
        &self,
        head: &[u8],
        gzip: bool,
        body: &[u8],
        want: &lean::Want,
    ) -> Result<Answer, Error> {
        let inner = &*self.inner;
        let mut fresh = false;
        loop {
            // One clock reading for the look at a pooled connection and the call's deadline.
            let mut now = std::time::Instant::now();
            let mut conn = loop {
                match inner.blocking.take() {
                    Some(mut c) => {
                        if c.is_open(now) {
                            break c;
                        }
                        tracing::debug!("pooled connection closed by the server");
                    }
                    None => {
                        fresh = true;
                        let conn = Box::new(BlockingConn::connect(
                            &inner.host,
                            inner.port,
                            inner.tls.as_ref(),
                            inner.config.connect_timeout,
                        )?);
                        now = std::time::Instant::now();
                        break conn;
                    }
                }
            };
            let fixed = lean::Head { fixed: head, gzip };
            match conn.exchange(now, fixed, body, want) {
                Ok((answer, reuse)) => {
                    if reuse {
                        inner.blocking.put(conn);
                    }
                    return Ok(answer);
                }
                // A pooled connection the server closed as we picked it: nothing was sent,
                // so the request goes once more on a new connection.
                Err(Failure::NotSent(e)) if !fresh => {
                    tracing::debug!(error = %e, "pooled connection closed before sending; retrying");
                }
                Err(Failure::NotSent(e) | Failure::Failed(e)) => return Err(e),
            }
        }
    }

    /// Sends on a pooled connection (or a new one) and returns the whole response.
    async fn send(&self, req: Request<Full<Bytes>>) -> Result<http::Response<Bytes>, Error> {
        let inner = &*self.inner;
        if inner.config.naive.any() {
            // Boxed: the lab-only path's state must not grow every call's future (a caller
            // awaiting many calls in one async block holds their states on its stack).
            return Box::pin(self.send_naive(req)).await;
        }
        let mut req = req;
        let mut fresh = false;
        loop {
            let conn = match inner.pool.checkout().await {
                Some(c) => c,
                None => {
                    fresh = true;
                    Conn::connect(
                        &inner.host,
                        inner.port,
                        inner.tls.as_ref(),
                        inner.config.connect_timeout,
                    )
                    .await?
                }
            };
            match conn.exchange(req, inner.config.request_timeout).await? {
                Exchange::Done(resp, reuse) => {
                    if let Some(conn) = reuse {
                        inner.pool.put(conn);
                    }
                    return Ok(resp);
                }
                // A pooled connection the server closed as we picked it: nothing was sent,
                // so the request goes once more on a new connection.
                Exchange::NotSent(r, e) if !fresh => {
                    tracing::debug!(error = %e, "pooled connection closed before sending; retrying");
                    req = r;
                }
                Exchange::NotSent(_, e) => return Err(e),
            }
        }
    }
}

impl Client {
    /// The naive path (lab only): see [`NaiveModes`].
    async fn send_naive(&self, req: Request<Full<Bytes>>) -> Result<http::Response<Bytes>, Error> {
        use http_body_util::BodyExt as _;
        let inner = &*self.inner;
        if inner.tls.is_some() {
            return Err(Error::url(
                &inner.url,
                "the naive modes speak plain `http://` only",
            ));
        }
        let (parts, body) = req.into_parts();
        let body = match body.collect().await {
            Ok(b) => b.to_bytes(),
            Err(never) => match never {},
        };
        let target = naive::Target {
            host: &inner.host,
            port: inner.port,
            connect_timeout: inner.config.connect_timeout,
            request_timeout: inner.config.request_timeout,
            max_body: inner.config.limits.max_document_bytes,
            modes: inner.config.naive,
            idle: &inner.naive_idle,
        };
        naive::send(&target, Request::from_parts(parts, body)).await
    }
}

/// Decodes a typed answer: the wrapper into `R`, a Fault into an [`Error`].
fn decode_answer<R: DeserializeOwned>(
    status: u16,
    body: &Bytes,
    style: Style,
    limits: &soapstone_codec::Limits,
) -> Result<R, Error> {
    // Faults come with 500, and SOAP 1.2 Sender faults with 400 (Part 2 7.5.2.2).
    let may_be_fault = status == 500 || status == 400;
    if !(200..300).contains(&status) && !may_be_fault {
        return Err(Error::from_status(status, body));
    }
    let envelope = match Envelope::parse(body, limits) {
        Ok(env) => env,
        Err(_) if may_be_fault => return Err(Error::from_status(status, body)),
        Err(e) => return Err(Error::decode(e, status)),
    };
    if envelope.is_fault() {
        let fault = envelope.fault().map_err(|e| Error::decode(e, status))?;
        return Err(Error::from_fault(fault, status));
    }
    if may_be_fault {
        return Err(Error::from_status(status, body));
    }
    envelope
        .body::<R>(style)
        .map_err(|e| Error::decode(e, status))
}

/// The client and its futures can move between threads (`tokio::spawn`).
#[allow(dead_code)]
fn _assert_send() {
    fn send<T: Send + Sync>(_: &T) {}
    fn send_fut<T: Send>(_: &T) {}
    let client = Client::new("http://127.0.0.1:1/").expect("valid url");
    send(&client);
    send_fut(&client.call_raw(Version::Soap11, None, Bytes::new()));
    let name = QName::default();
    let options = EncodeOptions::default();
    let op = Operation {
        action: "",
        request: &name,
        options: &options,
        response_style: Style::Literal,
    };
    send_fut(&client.call::<(), ()>(&op, &()));
}
