//! [`Secured`]: a [`SoapService`] in front of another that lets a request through only with a
//! valid UsernameToken (or, when allowed, a verified TLS client certificate), and hands the
//! service the [`Principal`] it established.
//!
//! The order of checks keeps the replay cache for authenticated senders only: envelope, the
//! Security block, Timestamp, token freshness, the authenticator, and last the nonce. A refusal
//! is answered here, the wrapped service never runs, so a refused request changes nothing.
//! Must never: pass a request on that it did not authenticate, pass one on whose envelope it
//! could not read under its limits (the service might read it differently), or say in a fault
//! which check failed.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use soapstone_codec::{self as codec, Envelope, Fault, Limits, QName, Version};
use soapstone_service::{
    BoxFuture, Principal, ServiceFuture, SoapRequest, SoapResponse, SoapService, TlsClientCert,
    UnderstoodHeaders,
};

use crate::auth::{Authenticator, Credentials};
use crate::replay::{ReplayCache, Seen};
use crate::token::{self, Password, SecurityHeader};
use crate::{time, WsseFault, WSSE_NS};

/// How [`Secured`] checks requests.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct WsseConfig {
    /// How far a sender's clock may be ahead of ours (a created time that far in the future is
    /// accepted) or behind (an expiry that long past is accepted). Default: `60 s`.
    pub clock_skew: Duration,
    /// How old a UsernameToken's created time may be; also how long its nonce is remembered
    /// (plus the skew). Default: `300 s`.
    pub max_age: Duration,
    /// Most nonces remembered; when full of live ones, new nonces are refused with a Server
    /// fault until some expire. Memory is about 100 bytes per entry. Default: `100_000`.
    pub replay_capacity: usize,
    /// Refuse a Security header without a `wsu:Timestamp`. Default: `false`.
    pub require_timestamp: bool,
    /// Refuse a PasswordText token without a nonce and created time (WS-I BSP allows them;
    /// without them a captured text token can be replayed within TLS-less paths). Default:
    /// `false`.
    pub require_nonce: bool,
    /// Accept UsernameTokens. Default: `true`.
    pub username_token: bool,
    /// Accept a verified TLS client certificate the authenticator maps to a user, when the
    /// request has no Security header. Default: `false`.
    pub certificates: bool,
    /// Limits the envelope is read under before any check. Default: [`Limits::default`].
    pub limits: Limits,
}

impl Default for WsseConfig {
    fn default() -> Self {
        WsseConfig {
            clock_skew: Duration::from_secs(60),
            max_age: Duration::from_secs(300),
            replay_capacity: 100_000,
            require_timestamp: false,
            require_nonce: false,
            username_token: true,
            certificates: false,
            limits: Limits::default(),
        }
    }
}

impl WsseConfig {
    /// Sets the clock skew allowed.
    pub fn clock_skew(mut self, skew: Duration) -> Self {
        self.clock_skew = skew;
        self
    }
    /// Sets how old a token may be.
    pub fn max_age(mut self, age: Duration) -> Self {
        self.max_age = age;
        self
    }
    /// Sets the replay cache's capacity.
    pub fn replay_capacity(mut self, n: usize) -> Self {
        self.replay_capacity = n;
        self
    }
    /// Accepts (or not) UsernameTokens and TLS client certificates.
    pub fn accept(mut self, username_token: bool, certificates: bool) -> Self {
        self.username_token = username_token;
        self.certificates = certificates;
        self
    }
    /// Sets the envelope limits.
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }
}

struct Shared {
    inner: Arc<dyn SoapService>,
    auth: Arc<dyn Authenticator>,
    config: WsseConfig,
    replay: ReplayCache,
    clock: Box<dyn Fn() -> SystemTime + Send + Sync>,
}

/// A service that only authenticated senders reach. See the module documentation.
#[derive(Clone)]
pub struct Secured {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Secured {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Secured")
            .field("service", &self.shared.inner.name())
            .field("config", &self.shared.config)
            .finish_non_exhaustive()
    }
}

/// The Security header's name, as the service sees it understood.
pub fn security_header() -> QName {
    QName::new(WSSE_NS, "Security")
}

impl Secured {
    /// `inner` behind authentication by `auth`, with [`WsseConfig::default`].
    pub fn new(inner: Arc<dyn SoapService>, auth: Arc<dyn Authenticator>) -> Self {
        Secured::with_config(inner, auth, WsseConfig::default())
    }

    /// `inner` behind authentication by `auth` under `config`.
    pub fn with_config(
        inner: Arc<dyn SoapService>,
        auth: Arc<dyn Authenticator>,
        config: WsseConfig,
    ) -> Self {
        Secured::with_clock(inner, auth, config, SystemTime::now)
    }

    /// Like [`Secured::with_config`] with another clock (tests of expiry).
    pub fn with_clock(
        inner: Arc<dyn SoapService>,
        auth: Arc<dyn Authenticator>,
        config: WsseConfig,
        clock: impl Fn() -> SystemTime + Send + Sync + 'static,
    ) -> Self {
        Secured {
            shared: Arc::new(Shared {
                replay: ReplayCache::new(config.replay_capacity),
                inner,
                auth,
                config,
                clock: Box::new(clock),
            }),
        }
    }
}

/// A refusal: the whole fault response.
struct Refusal(SoapResponse);

impl Shared {
    /// Reads the envelope (once: the service it guards is handed it); a failure is answered
    /// as the codec would have the service answer.
    fn envelope<'a>(&self, body: &'a [u8], request: &SoapRequest) -> Result<Envelope<'a>, Refusal> {
        match Envelope::parse(body, &self.config.limits) {
            Ok(e) => Ok(e),
            Err(e) if e.is_version_mismatch() => {
                let mut out = Vec::with_capacity(512);
                codec::encode_version_mismatch_fault(&mut out, Version::Soap11, &e.to_string());
                Err(Refusal(
                    SoapResponse::new(Version::Soap11, true, None, out.into())
                        .with_fault_code(soapstone_codec::FaultCode::VersionMismatch),
                ))
            }
            Err(e) => Err(Refusal(SoapResponse::from_fault(
                request.version,
                None,
                &Fault::from(&e),
            ))),
        }
    }

    /// Checks everything but the authenticator and the nonce; returns the credentials.
    fn precheck(&self, header: SecurityHeader, now: i64) -> Result<Credentials, WsseFault> {
        let skew = time::ms(self.config.clock_skew);
        match &header.timestamp {
            Some(ts) => {
                let created = match &ts.created {
                    Some(c) => Some(time::parse(c).ok_or(WsseFault::InvalidSecurity)?),
                    None => None,
                };
                let expires = match &ts.expires {
                    Some(e) => Some(time::parse(e).ok_or(WsseFault::InvalidSecurity)?),
                    None => None,
                };
                if created.is_some_and(|c| c > now.saturating_add(skew)) {
                    return Err(WsseFault::InvalidSecurity);
                }
                if expires.is_some_and(|e| e.saturating_add(skew) <= now) {
                    return Err(WsseFault::MessageExpired);
                }
                if let (Some(c), Some(e)) = (created, expires) {
                    if e < c {
                        return Err(WsseFault::InvalidSecurity);
                    }
                }
            }
            None if self.config.require_timestamp => return Err(WsseFault::InvalidSecurity),
            None => {}
        }
        let token = header
            .username_token
            .ok_or(WsseFault::FailedAuthentication)?;
        let digest = matches!(token.password, Password::Digest(_));
        if (digest || self.config.require_nonce)
            && (token.nonce.is_none() || token.created.is_none())
        {
            return Err(WsseFault::InvalidSecurityToken);
        }
        if token
            .nonce
            .as_ref()
            .is_some_and(|n| n.is_empty() || n.len() > 1024)
        {
            return Err(WsseFault::InvalidSecurityToken);
        }
        if let Some(created) = &token.created {
            let c = time::parse(created).ok_or(WsseFault::InvalidSecurityToken)?;
            if c > now.saturating_add(skew) {
                return Err(WsseFault::InvalidSecurityToken);
            }
            if c.saturating_add(time::ms(self.config.max_age))
                .saturating_add(skew)
                <= now
            {
                return Err(WsseFault::MessageExpired);
            }
        }
        Ok(Credentials {
            username: token.username,
            password: token.password,
            nonce: token.nonce.unwrap_or_default(),
            created: token.created.unwrap_or_default(),
        })
    }

    async fn admit(&self, request: &mut SoapRequest, version: Version) -> Result<(), Refusal> {
        let refuse = |f: WsseFault| Refusal(f.to_response(version));
        let header = token::read(&request.body).map_err(refuse)?;
        let principal = match header {
            Some(header) if self.config.username_token => {
                let now = time::millis((self.clock)());
                let creds = self.precheck(header, now).map_err(refuse)?;
                let nonce = creds.nonce.clone();
                let created = time::parse(&creds.created);
                let user = creds.username.clone();
                let Some(principal) = self.auth.authenticate(creds).await else {
                    tracing::debug!(user, "ws-security: credentials refused");
                    return Err(refuse(WsseFault::FailedAuthentication));
                };
                if !nonce.is_empty() {
                    let window = time::ms(self.config.max_age) + time::ms(self.config.clock_skew);
                    let expires = created.unwrap_or(now).saturating_add(window);
                    match self.replay.insert(&user, &nonce, now, expires) {
                        Seen::New => {}
                        Seen::Replayed => {
                            tracing::debug!(user, "ws-security: nonce replayed");
                            return Err(refuse(WsseFault::FailedAuthentication));
                        }
                        Seen::Full => {
                            tracing::warn!("ws-security: replay cache full, refusing new nonces");
                            let fault = Fault::server("too many recent nonces, retry later");
                            return Err(Refusal(SoapResponse::from_fault(version, None, &fault)));
                        }
                    }
                }
                principal
            }
            Some(_) => return Err(refuse(WsseFault::UnsupportedSecurityToken)),
            None => match request.extensions.get::<TlsClientCert>() {
                Some(c) if self.config.certificates => self
                    .auth
                    .certificate(&c.0)
                    .ok_or_else(|| refuse(WsseFault::FailedAuthentication))?,
                _ => return Err(refuse(WsseFault::InvalidSecurity)),
            },
        };
        request.extensions.insert::<Principal>(principal);
        request
            .extensions
            .insert(UnderstoodHeaders(vec![security_header()]));
        Ok(())
    }
}

impl SoapService for Secured {
    fn name(&self) -> &str {
        self.shared.inner.name()
    }

    fn document(&self, query: &str, endpoint: &str) -> Option<String> {
        self.shared.inner.document(query, endpoint)
    }

    fn call(&self, request: SoapRequest) -> BoxFuture<SoapResponse> {
        self.serve(request).boxed()
    }

    fn serve(&self, mut request: SoapRequest) -> ServiceFuture {
        let shared = self.shared.clone();
        let answer: BoxFuture<SoapResponse> = Box::pin(async move {
            // Read once, here: the service is handed the envelope (`serve_parsed`) instead of
            // reading it again. It borrows a handle of its own on the bytes, so the request
            // can take the principal meanwhile.
            let body = request.body.clone();
            let envelope = match shared.envelope(&body, &request) {
                Ok(envelope) => envelope,
                Err(Refusal(resp)) => return resp,
            };
            if let Err(Refusal(resp)) = shared.admit(&mut request, envelope.version()).await {
                return resp;
            }
            let answer = shared.inner.serve_parsed(&request, &envelope);
            drop(envelope);
            drop((request, body)); // the service's future owns what it needs
            answer.await
        });
        answer.into()
    }
}
