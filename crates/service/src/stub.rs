//! The runtime of generated clients: one typed call per operation over a [`Client`].
//!
//! A generated `FooClient` holds a [`Stub`] and turns each method into
//! `stub.call(op_index, &request_wrapper)`. The stub knows the operation's action and wrapper
//! name and encodes the request exactly as the generated server decodes it (same style, same
//! qualification). Must never know about HTTP beyond calling the client.

use serde::{de::DeserializeOwned, Serialize};
use soapstone_client::{Client, Error, Operation};
use soapstone_codec::{EncodeOptions, QName, Version};
use soapstone_wsdl::ServiceModel;

/// The typed calling side of one service.
#[derive(Debug, Clone)]
pub struct Stub {
    client: Client,
    model: &'static ServiceModel,
    requests: Vec<QName>,
    options: EncodeOptions,
}

impl Stub {
    /// A stub for `model` over `client`, speaking SOAP 1.1.
    pub fn new(client: Client, model: &'static ServiceModel) -> Self {
        let mut options = EncodeOptions::default();
        options.style = model.style.body_style();
        options.qualified = model.style.qualified();
        Stub {
            requests: model
                .operations
                .iter()
                .map(|op| model.request_name(op))
                .collect(),
            client,
            model,
            options,
        }
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
        self.call_with_headers(op, &[], request).await
    }

    /// [`Stub::call`] with SOAP header blocks given as markup (see
    /// [`Client::call_with_headers`]).
    pub async fn call_with_headers<T: Serialize, R: DeserializeOwned>(
        &self,
        op: usize,
        headers: &[&str],
        request: &T,
    ) -> Result<R, Error> {
        let operation = Operation {
            action: &self.model.operations[op].action,
            request: &self.requests[op],
            options: &self.options,
            response_style: self.options.style,
        };
        self.client
            .call_with_headers(&operation, headers, request)
            .await
    }
}
