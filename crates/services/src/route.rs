//! Several services on one path, told apart by the body element: its namespace, and where two
//! services share a namespace, its local name.
//!
//! A generated service answers for one namespace. The seeds put several on one endpoint: the
//! echo endpoint speaks SOAPBuilders base and group B (both `http://soapinterop.org/`,
//! rpc/encoded, two WSDLs in the original) and Sam Ruby's echoFloat (`http://tempuri.org/`,
//! .NET-style literal), and two of them have an `echoFloat`. [`ByNamespace`] reads the envelope
//! up to the first body child (the codec's streaming parse, no DOM), picks the service, and
//! hands the untouched request over together with that parsed envelope
//! ([`SoapService::call_parsed`]), so a generated service does not read it a second time:
//! among the routes of the element's namespace, the one that lists the element's local name,
//! else the one that takes the whole namespace. Unqualified elements count as being in the
//! first route's namespace; envelopes it cannot read go to the first (primary) service, whose
//! dispatcher gives the precise fault. A service whose limits differ from the router's reads
//! the envelope again under its own (the router's peek must not loosen them).
//!
//! It is generic: any `SoapService`s, any namespaces. Must never: rewrite the request, or
//! answer anything but a SOAP envelope.

use std::sync::Arc;

use soapstone_codec::{Envelope, Fault, Limits};
use soapstone_service::{BoxFuture, ServiceFuture, SoapRequest, SoapResponse, SoapService};

/// One service of a [`ByNamespace`].
struct Route {
    namespace: String,
    /// `None`: every element of the namespace.
    elements: Option<Vec<String>>,
    key: String,
    service: Arc<dyn SoapService>,
}

/// A [`SoapService`] that routes each request by the namespace of its body element.
pub struct ByNamespace {
    /// Unique in the process (given by `build`): the key of the routes this thread picked for
    /// it ([`picked`]).
    id: u64,
    name: String,
    routes: Vec<Route>,
    limits: Limits,
}

impl std::fmt::Debug for ByNamespace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let routes: Vec<_> = self
            .routes
            .iter()
            .map(|r| (&r.key, &r.namespace, &r.elements))
            .collect();
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
                id: 0,
                name: name.into(),
                routes: Vec::new(),
                limits: Limits::default(),
            },
        }
    }

    /// The route of the body element `(namespace, local)` (its index), or the fault for a
    /// namespace no route serves.
    fn pick(&self, element_ns: &str, local: &str) -> Result<usize, Fault> {
        let primary = &self.routes[0];
        let namespace = match element_ns {
            "" => primary.namespace.as_str(),
            ns => ns,
        };
        let mut candidates =
            (0..self.routes.len()).filter(|&i| self.routes[i].namespace == namespace);
        let lists = |&i: &usize| {
            self.routes[i]
                .elements
                .as_ref()
                .is_some_and(|e| e.iter().any(|e| e == local))
        };
        let listed = candidates.clone().find(lists);
        let whole = candidates
            .clone()
            .find(|&i| self.routes[i].elements.is_none());
        listed
            .or(whole)
            .or_else(|| candidates.next())
            .ok_or_else(|| {
                let mut served: Vec<_> = self
                    .routes
                    .iter()
                    .map(|r| format!("`{}`", r.namespace))
                    .collect();
                served.dedup();
                let mut fault = Fault::client(format!(
                    "no service for namespace `{}` at this endpoint (it serves {})",
                    element_ns,
                    served.join(", ")
                ));
                fault.subcodes.push(soapstone_service::QName::new(
                    soapstone_service::RPC_NS,
                    "ProcedureNotPresent",
                ));
                fault
            })
    }
}

impl ByNamespaceBuilder {
    /// Serves `service` for the body elements in `namespace`. `key` names its WSDL: the first
    /// route's is `?wsdl`, every route's `?wsdl=KEY`. Unqualified body elements count as being
    /// in the first route's namespace.
    ///
    /// # Panics
    /// If `namespace` is already routed whole, or `key` is used: programming errors, found at
    /// startup.
    pub fn route(
        self,
        namespace: impl Into<String>,
        key: impl Into<String>,
        service: Arc<dyn SoapService>,
    ) -> Self {
        self.push(namespace.into(), None, key.into(), service)
    }

    /// Serves `service` for the body elements `elements` (local names) in `namespace`, ahead of
    /// a route that takes the whole namespace.
    ///
    /// # Panics
    /// If `key` or one of the elements is already routed.
    pub fn route_elements(
        self,
        namespace: impl Into<String>,
        elements: &[&str],
        key: impl Into<String>,
        service: Arc<dyn SoapService>,
    ) -> Self {
        let elements = elements.iter().map(|e| e.to_string()).collect();
        self.push(namespace.into(), Some(elements), key.into(), service)
    }

    fn push(
        mut self,
        namespace: String,
        elements: Option<Vec<String>>,
        key: String,
        service: Arc<dyn SoapService>,
    ) -> Self {
        for r in self
            .inner
            .routes
            .iter()
            .filter(|r| r.namespace == namespace)
        {
            match (&r.elements, &elements) {
                (None, None) => panic!("namespace `{namespace}` is already routed"),
                (Some(a), Some(b)) if a.iter().any(|e| b.contains(e)) => {
                    panic!("an element of `{namespace}` is routed twice")
                }
                _ => {}
            }
        }
        let used = self.inner.routes.iter().any(|r| r.key == key);
        assert!(!used, "WSDL key `{key}` is already used");
        self.inner.routes.push(Route {
            namespace,
            elements,
            key,
            service,
        });
        self
    }

    /// Limits for the peek at the envelope. Services whose limits are the same take the
    /// envelope as read; others read it again. Default: [`Limits::default`] (what generated
    /// services use by default).
    pub fn limits(mut self, limits: Limits) -> Self {
        self.inner.limits = limits;
        self
    }

    /// The router.
    ///
    /// # Panics
    /// Without any route.
    pub fn build(mut self) -> ByNamespace {
        assert!(
            !self.inner.routes.is_empty(),
            "a ByNamespace router needs at least one route"
        );
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        self.inner.id = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
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
        self.serve(request).boxed()
    }

    fn call_parsed(
        &self,
        request: &SoapRequest,
        envelope: &Envelope<'_>,
    ) -> BoxFuture<SoapResponse> {
        self.route(request, envelope).boxed()
    }

    fn serve(&self, request: SoapRequest) -> ServiceFuture {
        // Read once here and handed on: the chosen service does not read it again.
        // Bound by reference, not moved out of the `Result`: the envelope is a kilobyte.
        let parsed = Envelope::parse(&request.body, &self.limits);
        let Ok(envelope) = &parsed else {
            drop(parsed);
            return self.routes[0].service.serve(request);
        };
        self.route(&request, envelope)
        // (`request` is freed here, before any handler runs: the future owns what it needs)
    }

    fn serve_parsed(&self, request: &SoapRequest, envelope: &Envelope<'_>) -> ServiceFuture {
        self.route(request, envelope)
    }
}

impl ByNamespace {
    fn route(&self, request: &SoapRequest, envelope: &Envelope<'_>) -> ServiceFuture {
        // Laid over a remembered opening: the route picked for it before (`picked`).
        let remembered = envelope.remembered_opening();
        if let Some(i) = remembered.and_then(|o| picked::recall(self.id, o)) {
            return self.routes[i].service.serve_parsed(request, envelope);
        }
        // Borrowed: the peek allocates nothing.
        let Some((element_ns, local)) = envelope.body_name() else {
            return self.routes[0].service.serve_parsed(request, envelope);
        };
        match self.pick(element_ns, local) {
            Ok(i) => {
                if let Some(opening) = remembered {
                    picked::keep(self.id, opening, i);
                }
                self.routes[i].service.serve_parsed(request, envelope)
            }
            Err(fault) => {
                ServiceFuture::ready(SoapResponse::from_fault(request.version, None, &fault))
            }
        }
    }
}

/// The routes picked lately on this thread for envelopes laid over a remembered opening
/// ([`Envelope::remembered_opening`]), by router and opening: the pick reads nothing but the
/// body element's name, which the opening's bytes fix, and the router's fixed routes, so the
/// same two give the same route. Only a route found is kept (a namespace no route serves is
/// looked up, and refused, every time). About 160 instructions of an echoFloat request
/// (callgrind).
mod picked {
    use std::cell::Cell;

    /// Kept per thread: a client calling a few services of the endpoint in turn finds each.
    const SLOTS: usize = 4;

    /// A route picked: `(router, opening, route)`; router `0` marks an empty slot.
    type Picked = (u64, u64, usize);

    thread_local! {
        /// The slots, and the next to replace.
        static PICKED: Cell<([Picked; SLOTS], usize)> =
            const { Cell::new(([(0, 0, 0); SLOTS], 0)) };
    }

    /// The route kept for `router` and `opening`, if any.
    pub(super) fn recall(router: u64, opening: u64) -> Option<usize> {
        let (slots, _) = PICKED.try_with(Cell::get).ok()?;
        slots
            .iter()
            .find(|&&(r, o, _)| r == router && o == opening)
            .map(|&(_, _, i)| i)
    }

    /// Keeps `route` for `router` and `opening`, in place of the oldest kept.
    pub(super) fn keep(router: u64, opening: u64, route: usize) {
        let _ = PICKED.try_with(|p| {
            let (mut slots, next) = p.get();
            slots[next] = (router, opening, route);
            p.set((slots, (next + 1) % SLOTS));
        });
    }
}
