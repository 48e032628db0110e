//! The abstract SOAP service model and WSDL 1.1 generation from it.
//!
//! A [`ServiceModel`] says what a service offers: its name and namespace, its
//! [`BindingStyle`] (document/literal, rpc/encoded or rpc/literal), its operations with their
//! parameter and result [`Part`]s, declared SOAP headers ([`HeaderPart`]) and faults
//! ([`FaultPart`]), and the [`Schema`] of named types those parts use (a type of another
//! namespace is registered under a Clark name, `{ns}Type`). Types
//! describe themselves to a schema through [`XsdType`] (derived with
//! `#[derive(soapstone_service::XsdType)]`). [`wsdl`] turns a model into a WSDL 1.1 document
//! with a SOAP 1.1 and a SOAP 1.2 binding; [`document`] answers the `?wsdl` and
//! `?xsd=soapenc` queries a server gets, the latter with the bundled [`SOAP_ENCODING_SCHEMA`].
//!
//! ```
//! use soapstone_wsdl::{BindingStyle, OperationModel, Part, ServiceModel, XsdType};
//!
//! let mut model = ServiceModel::new("Echo", "urn:echo", BindingStyle::DocumentLiteral);
//! let mut op = OperationModel::new("echoString", "urn:echo#echoString");
//! op.input.push(Part::new("input", String::describe(&mut model.schema)));
//! op.output.push(Part::new("return", String::describe(&mut model.schema)));
//! model.operations.push(op);
//! model.validate().unwrap();
//! let wsdl = soapstone_wsdl::wsdl(&model, "http://localhost:8080/echo");
//! assert!(wsdl.contains(r#"<wsdl:part name="parameters" element="tns:echoString"/>"#));
//! ```
//!
//! This crate must never depend on HTTP: endpoints are plain strings here.

mod generate;
mod generate_open;
mod model;
pub mod read;
mod soapenc;
mod xsd;

pub use generate::{document, document_url, wsdl, SOAP_ENC_QUERY, WSDL_QUERY};
pub use model::{
    BindingStyle, Body, FaultPart, HeaderPart, ModelError, OperationModel, Part, ServiceModel,
};
pub use soapenc::SOAP_ENCODING_SCHEMA;
pub use xsd::{
    attribute_name, choice_field_name, own_namespace, Field, NamedType, Schema, TypeDef, TypeRef,
    XsdType, ANY_ATTRIBUTE, ANY_FIELD, CHOICE_FIELD, OTHER_ATTRIBUTES_FIELD, SOAP_ENC_NS,
    TEXT_FIELD, XSD_NS,
};

#[cfg(test)]
mod tests;
