//! The bundled SOAP 1.1 encoding schema.
//!
//! Encoded WSDLs refer to `soapenc:Array` and friends; clients that resolve those names try to
//! download the schema from `http://schemas.xmlsoap.org/soap/encoding/`, which fails on a
//! network without internet access. soapstone serves this copy at `<endpoint>?xsd=soapenc`
//! and imports it with that `schemaLocation`. Must never be changed to depend on anything
//! outside this crate.

/// The SOAP 1.1 encoding schema (`http://schemas.xmlsoap.org/soap/encoding/`).
pub const SOAP_ENCODING_SCHEMA: &str = include_str!("soapenc.xsd");
