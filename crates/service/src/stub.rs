//! The runtime of generated clients: one typed call per operation over a [`Client`].
//!
//! A generated `FooClient` holds a [`Stub`] and turns each method into
//! `stub.call(op_index, &request_wrapper)`. The stub knows the operation's action and wrapper
//! name and encodes the request exactly as the generated server decodes it (same style, same
//! qualification). Must never know about HTTP beyond calling the client.

use std::sync::Arc;

use serde::{de::DeserializeOwned, Serialize};
use soapstone_client::{Client, Error, Operation};
use soapstone_codec::{EncodeOptions, QName, Version};
use soapstone_wsdl::ServiceModel;

use crate::headers::{header_xml_in, Header, ResponseHeaders, WithHeaders};

/// The typed calling side of one service.
#[derive(Debug, Clone)]
pub struct Stub {
    client: Client,
    model: &'static ServiceModel,
    requests: Vec<QName>,
    options: EncodeOptions,
    /// Header blocks sent with every call (markup).
    headers: Arc<Vec<String>>,
}

impl Stub {
    /// A stub for `model` over `client`, speaking SOAP 1.1.
    pub fn new(client: Client, model: &'static ServiceModel) -> Self {
        let mut options = EncodeOptions::default();
        options.style = model.style.body_style();
        options.qualified = model.qualified;
        Stub {
            requests: model
                .operations
                .iter()
                .map(|op| model.request_name(op))
                .collect(),
            client,
            model,
            options,
            headers: Arc::new(Vec::new()),
        }
    }

    /// Sends header block `H` with every call from now on (replacing one of the same element).
    pub fn with_header<H: Header>(mut self, value: &H) -> Result<Self, Error> {
        let xml = header_xml_in(value, self.version()).map_err(Error::from_encode)?;
        let name = H::element();
        let mut headers: Vec<String> = self
            .headers
            .iter()
            .filter(|h| !starts_element(h, &name))
            .cloned()
            .collect();
        headers.push(xml);
        self.headers = Arc::new(headers);
        Ok(self)
    }

    /// Speaks `version` from now on.
    pub fn with_version(mut self, version: Version) -> Self {
        self.options.version = version;
        self
    }

    /// The SOAP version spoken.
    pub fn version(&self) -> Version {
        self.options.version
    }

    /// The underlying client.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// Calls operation `op` (declaration order) with `request` as the wrapper's content and
    /// decodes the response wrapper into `R`.
    pub async fn call<T: Serialize, R: DeserializeOwned>(
        &self,
        op: usize,
        request: &T,
    ) -> Result<R, Error> {
        if !self.headers.is_empty() {
            return Ok(self.call_with_headers(op, Vec::new(), request).await?.value);
        }
        let operation = Operation {
            action: &self.model.operations[op].action,
            request: &self.requests[op],
            options: &self.options,
            response_style: self.options.style,
        };
        self.client.call(&operation, request).await
    }

    /// Calls operation `op` with the per-client header blocks and `headers` (markup, see
    /// [`header_xml`]); returns the decoded response with its header blocks.
    pub async fn call_with_headers<T: Serialize, R: DeserializeOwned>(
        &self,
        op: usize,
        headers: Vec<String>,
        request: &T,
    ) -> Result<WithHeaders<R>, Error> {
        let operation = Operation {
            action: &self.model.operations[op].action,
            request: &self.requests[op],
            options: &self.options,
            response_style: self.options.style,
        };
        let all: Vec<&str> = self
            .headers
            .iter()
            .chain(&headers)
            .map(String::as_str)
            .collect();
        let (value, body) = self
            .client
            .call_with_headers(&operation, &all, request)
            .await?;
        let limits = self.client.config().limits.clone();
        Ok(WithHeaders {
            value,
            headers: ResponseHeaders::new(body, limits, self.options.style),
        })
    }

    /// Calls the one-way operation `op` with the per-client header blocks and `headers`;
    /// returns once the server accepted the request (HTTP 202, see
    /// [`Client::call_one_way`]).
    pub async fn call_one_way<T: Serialize>(
        &self,
        op: usize,
        headers: Vec<String>,
        request: &T,
    ) -> Result<(), Error> {
        let operation = Operation {
            action: &self.model.operations[op].action,
            request: &self.requests[op],
            options: &self.options,
            response_style: self.options.style,
        };
        let all: Vec<&str> = self
            .headers
            .iter()
            .chain(&headers)
            .map(String::as_str)
            .collect();
        self.client.call_one_way(&operation, &all, request).await
    }
}

/// Whether the markup `xml` is an element named `name` (as `header_xml` writes it: the
/// element's prefix bound on the element itself).
fn starts_element(xml: &str, name: &QName) -> bool {
    let Some(open) = xml.strip_prefix('<') else {
        return false;
    };
    let tag = open.split([' ', '>', '/']).next().unwrap_or("");
    let local = tag.rsplit(':').next().unwrap_or(tag);
    local == name.local && xml.contains(&format!("\"{}\"", name.namespace))
}
