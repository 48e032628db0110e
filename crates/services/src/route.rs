//! Several services on one path, told apart by the namespace of the body element.
//!
//! A generated service answers for one namespace. The seeds put two on one endpoint: the echo
//! endpoint speaks SOAPBuilders (`http://soapinterop.org/`, rpc/encoded) and Sam Ruby's echoFloat
//! (`http://tempuri.org/`, .NET-style literal), and both have an `echoFloat`. [`ByNamespace`]
//! reads the envelope up to the first body child (the codec's streaming parse, no DOM), picks
//! the service whose namespace that element is in, and hands the untouched request over.
//! Unqualified elements, and envelopes it cannot read, go to the first (primary) service, whose
//! dispatcher gives the precise fault.
//!
//! It is generic: any `SoapService`s, any namespaces. Must never: rewrite the request, or
//! answer anything but a SOAP envelope.

use std::sync::Arc;

use soapstone_codec::{Envelope, Fault, Limits};
use soapstone_service::{BoxFuture, SoapRequest, SoapResponse, SoapService};

/// One service of a [`ByNamespace`].
struct Route {
    namespace: String,
    key: String,
    service: Arc<dyn SoapService>,
}

/// A [`SoapService`] that routes each request by the namespace of its body element.
pub struct ByNamespace {
    name: String,
    routes: Vec<Route>,
    limits: Limits,
}

impl std::fmt::Debug for ByNamespace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let routes: Vec<_> = self.routes.iter().map(|r| (&r.key, &r.namespace)).collect();
        f.debug_struct("ByNamespace")
            .field("name", &self.name)
            .field("routes", &routes)
            .finish()
    }
}

/// Builds a [`ByNamespace`].
#[derive(Debug)]
#[must_use]
pub struct ByNamespaceBuilder {
    inner: ByNamespace,
}

impl ByNamespace {
    /// A router named `name` (its `name()`); add services with [`ByNamespaceBuilder::route`].
    pub fn builder(name: impl Into<String>) -> ByNamespaceBuilder {
        ByNamespaceBuilder {
            inner: ByNamespace {
                name: name.into(),
                routes: Vec::new(),
                limits: Limits::default(),
            },
        }
    }

    fn pick(&self, body: &[u8]) -> Result<&Route, Fault> {
        let primary = &self.routes[0];
        let Ok(envelope) = Envelope::parse(body, &self.limits) else {
            return Ok(primary);
        };
        let Some(element) = envelope.body_element() else {
            return Ok(primary);
        };
        if element.namespace.is_empty() {
            return Ok(primary);
        }
        self.routes
            .iter()
            .find(|r| r.namespace == element.namespace)
            .ok_or_else(|| {
                let served: Vec<_> = self
                    .routes
                    .iter()
                    .map(|r| format!("`{}`", r.namespace))
                    .collect();
                Fault::client(format!(
                    "no service for namespace `{}` at this endpoint (it serves {})",
                    element.namespace,
                    served.join(", ")
                ))
            })
    }
}

impl ByNamespaceBuilder {
    /// Serves `service` for body elements in `namespace`. `key` names its WSDL: the first
    /// service's is `?wsdl`, the others' `?wsdl=KEY`. The first route also takes unqualified
    /// body elements.
    ///
    /// # Panics
    /// If `namespace` or `key` is already routed: a programming error, found at startup.
    pub fn route(
        mut self,
        namespace: impl Into<String>,
        key: impl Into<String>,
        service: Arc<dyn SoapService>,
    ) -> Self {
        let (namespace, key) = (namespace.into(), key.into());
        assert!(
            !self
                .inner
                .routes
                .iter()
                .any(|r| r.namespace == namespace || r.key == key),
            "namespace `{namespace}` or key `{key}` is already routed"
        );
        self.inner.routes.push(Route {
            namespace,
            key,
            service,
        });
        self
    }

    /// Limits for the peek at the envelope. Default: [`Limits::default`].
    pub fn limits(mut self, limits: Limits) -> Self {
        self.inner.limits = limits;
        self
    }

    /// The router.
    ///
    /// # Panics
    /// Without any route.
    pub fn build(self) -> ByNamespace {
        assert!(
            !self.inner.routes.is_empty(),
            "a ByNamespace router needs at least one route"
        );
        self.inner
    }
}

impl SoapService for ByNamespace {
    fn name(&self) -> &str {
        &self.name
    }

    fn document(&self, query: &str, endpoint: &str) -> Option<String> {
        if let Some(key) = query.strip_prefix("wsdl=") {
            let route = self.routes.iter().find(|r| r.key == key)?;
            return route.service.document("wsdl", endpoint);
        }
        // `wsdl` is the primary's; imported schemas (`xsd=...`) from whichever service has them.
        self.routes
            .iter()
            .find_map(|r| r.service.document(query, endpoint))
    }

    fn call(&self, request: SoapRequest) -> BoxFuture<SoapResponse> {
        match self.pick(&request.body) {
            Ok(route) => route.service.call(request),
            Err(fault) => {
                let mut out = Vec::with_capacity(512);
                soapstone_codec::encode_fault(&mut out, request.version, &fault);
                let response = SoapResponse::new(request.version, true, None, out.into());
                Box::pin(async move { response })
            }
        }
    }
}
