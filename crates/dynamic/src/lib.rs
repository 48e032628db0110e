//! Calling any SOAP service from its WSDL with JSON values, and listing what a WSDL offers.
//!
//! [`DynamicClient`] is the Rust API behind `soapstone call`: it reads nothing but the
//! [`Definitions`](soapstone_wsdl::read::Definitions) of a WSDL and takes an operation name and
//! a [`serde_json::Value`], writes the request the binding describes (document or rpc,
//! literal or SOAP-encoded, SOAP 1.1 or 1.2), and reads the answer back into JSON guided by
//! the schema. A Fault is a [`CallError::Fault`].
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use std::sync::Arc;
//! use soapstone_dynamic::{DynamicClient, Target};
//! use soapstone_wsdl::read::{read, ReadOptions};
//!
//! let defs = read("testdata/soapbuilders-round2-wsdl/r2-interop.wsdl", &ReadOptions::default())?;
//! let mut target = Target::default();
//! target.endpoint = Some("http://127.0.0.1:8080/echo".into());
//! let client = DynamicClient::new(Arc::new(defs), &target)?;
//! let answer = client.call("echoInteger", &serde_json::json!({"inputInteger": 42})).await?;
//! assert_eq!(answer.value, 42);
//! # Ok(()) }
//! ```
//!
//! This crate must never fetch a document the user did not ask for (see [`cli`]), and never
//! turn an answer it cannot account for into a success.

pub mod cli;
mod client;
mod decode;
mod encode;
mod fetch;
mod headers;
mod schema;

pub use client::{Answer, CallError, DynamicClient, Target};
pub use decode::Fault;
pub use encode::ArgError;
pub use fetch::{get, http_fetch};
