//! SOAP over one HTTP/1.1 keep-alive connection (hyper's `client::conn::http1`), over TLS
//! (rustls) for an `https://` target, the certificate verified for the URL's host.
//!
//! hyper's low-level client rather than a pooled client: the task owns exactly one
//! connection, so there is no pool lock and no hidden second connection. hyper writes head
//! and body with one vectored write (`TCP_NODELAY`), and frames the answer by
//! Content-Length or chunked encoding, never by EOF. A successful body is drained and
//! dropped; an error body is kept (up to 1 MiB) only to tell a SOAP Fault from other errors.

use std::net::SocketAddr;
use std::sync::Arc;

use bytes::Bytes;
use http::header::{HeaderMap, HeaderValue, CONTENT_TYPE, HOST, USER_AGENT};
use http::{Method, Request, StatusCode, Uri};
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::{self, SendRequest};
use hyper_util::rt::TokioIo;
use rustls_pki_types::ServerName;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::{connect_tcp, Counting, ErrorKind, IoCounters, Outcome};
use crate::fault::is_soap_fault;
use crate::target::{SoapTarget, SoapVersion};

/// Error bodies longer than this are cut before the fault check.
const MAX_ERROR_BODY: usize = 1 << 20;

pub(crate) struct HttpConn {
    addr: SocketAddr,
    path: Uri,
    headers: HeaderMap,
    bodies: Vec<Bytes>,
    /// The bodies with a fresh WS-Security token each time, when the target has one.
    wsse: Option<Arc<crate::wsse::WsseBodies>>,
    /// Index in `bodies` of the next request's body.
    next: usize,
    counters: Arc<IoCounters>,
    sender: Option<SendRequest<Full<Bytes>>>,
    driver: Option<JoinHandle<()>>,
    /// The TLS connector and server name of an `https://` target.
    tls: Option<(tokio_rustls::TlsConnector, ServerName<'static>)>,
}

impl HttpConn {
    /// The connection of task `idx` (which body it starts the rotation at).
    pub(crate) fn new(
        target: &SoapTarget,
        addr: SocketAddr,
        counters: Arc<IoCounters>,
        idx: usize,
    ) -> Self {
        let path = target
            .uri
            .path_and_query()
            .map(|p| p.as_str())
            .unwrap_or("/")
            .parse()
            .unwrap_or_else(|_| Uri::from_static("/"));
        HttpConn {
            addr,
            path,
            headers: headers(target),
            bodies: target.bodies.clone(),
            wsse: target.wsse.clone(),
            next: idx % target.bodies.len().max(1),
            counters,
            sender: None,
            driver: None,
            tls: target.tls.clone().and_then(|config| {
                let host = target
                    .uri
                    .host()?
                    .trim_start_matches('[')
                    .trim_end_matches(']');
                let name = ServerName::try_from(host.to_owned()).ok()?;
                Some((tokio_rustls::TlsConnector::from(config), name))
            }),
        }
    }

    pub(crate) async fn connect(&mut self, deadline: Instant) -> Outcome {
        self.reset();
        let stream = connect_tcp(self.addr, deadline).await?;
        // Counted at the socket: over TLS, the encrypted bytes.
        let counted = Counting::new(stream, self.counters.clone());
        let (sender, driver) = match &self.tls {
            None => handshake(TokioIo::new(counted), deadline).await?,
            Some((connector, name)) => {
                let tls =
                    tokio::time::timeout_at(deadline, connector.connect(name.clone(), counted))
                        .await
                        .map_err(|_| ErrorKind::Connect)?
                        .map_err(|e| {
                            tracing::debug!(error = %e, "tls handshake failed");
                            ErrorKind::Connect
                        })?;
                handshake(TokioIo::new(tls), deadline).await?
            }
        };
        self.driver = Some(driver);
        self.sender = Some(sender);
        Ok(())
    }

    pub(crate) async fn call(&mut self, deadline: Instant) -> Outcome {
        let usable = self.sender.as_ref().is_some_and(|s| !s.is_closed());
        if !usable {
            self.connect(deadline).await?;
        }
        // A keep-alive connection the server closed while idle (or right after its last
        // answer, `Connection: close`) fails `ready` before anything is sent: that is no
        // error of this request, so it gets a fresh connection.
        let ready = match self.sender.as_mut() {
            Some(sender) => tokio::time::timeout_at(deadline, sender.ready()).await,
            None => return Err(ErrorKind::Io),
        };
        match ready {
            Ok(Ok(())) => {}
            Ok(Err(_)) => self.connect(deadline).await?,
            Err(_) => {
                self.reset();
                return Err(ErrorKind::Timeout);
            }
        }
        let result = match tokio::time::timeout_at(deadline, self.exchange()).await {
            Ok(result) => result,
            Err(_) => Err(ErrorKind::Timeout),
        };
        if let Err(kind) = &result {
            if !kind.is_response() {
                self.reset();
            }
        }
        result
    }

    async fn exchange(&mut self) -> Outcome {
        let sender = self.sender.as_mut().ok_or(ErrorKind::Io)?;
        let body = match &self.wsse {
            None => self.bodies.get(self.next).cloned().unwrap_or_default(),
            Some(w) => w.body(self.next),
        };
        self.next = (self.next + 1) % self.bodies.len().max(1);
        let mut request = Request::new(Full::new(body));
        *request.method_mut() = Method::POST;
        *request.uri_mut() = self.path.clone();
        *request.headers_mut() = self.headers.clone();
        let response = sender
            .send_request(request)
            .await
            .map_err(|_| ErrorKind::Io)?;
        let status = response.status();
        let mut body = response.into_body();
        if status.is_success() {
            while let Some(frame) = body.frame().await {
                frame.map_err(|_| ErrorKind::Io)?;
            }
            return Ok(());
        }
        let mut kept = Vec::new();
        while let Some(frame) = body.frame().await {
            let frame = frame.map_err(|_| ErrorKind::Io)?;
            if let Some(data) = frame.data_ref() {
                let room = MAX_ERROR_BODY.saturating_sub(kept.len());
                kept.extend_from_slice(&data[..data.len().min(room)]);
            }
        }
        let fault_status =
            status == StatusCode::INTERNAL_SERVER_ERROR || status == StatusCode::BAD_REQUEST;
        if fault_status && is_soap_fault(&kept) {
            Err(ErrorKind::SoapFault)
        } else {
            Err(ErrorKind::HttpStatus(status.as_u16()))
        }
    }

    fn reset(&mut self) {
        self.sender = None;
        if let Some(driver) = self.driver.take() {
            driver.abort();
        }
    }
}

/// hyper's HTTP/1.1 handshake on `io`, and the task that drives the connection.
async fn handshake<I>(
    io: I,
    deadline: Instant,
) -> Result<(SendRequest<Full<Bytes>>, JoinHandle<()>), ErrorKind>
where
    I: hyper::rt::Read + hyper::rt::Write + Unpin + Send + 'static,
{
    let (sender, conn) = tokio::time::timeout_at(deadline, http1::Builder::new().handshake(io))
        .await
        .map_err(|_| ErrorKind::Connect)?
        .map_err(|_| ErrorKind::Connect)?;
    let driver = tokio::spawn(async move {
        // The connection ends when the sender is dropped or the peer closes; either way the
        // next call sees a closed sender and reconnects.
        let _ = conn.await;
    });
    Ok((sender, driver))
}

impl Drop for HttpConn {
    fn drop(&mut self) {
        self.reset();
    }
}

fn headers(target: &SoapTarget) -> HeaderMap {
    let mut headers = HeaderMap::new();
    if let Some(authority) = target.uri.authority() {
        if let Ok(v) = HeaderValue::from_str(authority.as_str()) {
            headers.insert(HOST, v);
        }
    }
    headers.insert(USER_AGENT, HeaderValue::from_static("soapstone-bench"));
    let action = target.action.as_deref().unwrap_or("");
    match target.version {
        SoapVersion::Soap11 => {
            headers.insert(
                CONTENT_TYPE,
                HeaderValue::from_static("text/xml; charset=utf-8"),
            );
            if let Ok(v) = HeaderValue::from_str(&format!("\"{action}\"")) {
                headers.insert("soapaction", v);
            }
        }
        SoapVersion::Soap12 => {
            let ct = if action.is_empty() {
                "application/soap+xml; charset=utf-8".to_string()
            } else {
                format!("application/soap+xml; charset=utf-8; action=\"{action}\"")
            };
            if let Ok(v) = HeaderValue::from_str(&ct) {
                headers.insert(CONTENT_TYPE, v);
            }
        }
    }
    headers
}
