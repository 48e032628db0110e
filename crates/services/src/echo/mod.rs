//! The echo endpoint `/echo`: SOAPBuilders Round 2 (base and group B, `http://soapinterop.org/`,
//! rpc/encoded) and Sam Ruby's echoFloat (seed 002, `http://tempuri.org/`, literal) on one path,
//! told apart by the body element's namespace ([`crate::route::ByNamespace`]).

pub mod group_b;
pub mod interop;
pub mod tempuri;

use std::sync::Arc;

use soapstone_service::{ServiceConfig, SoapService};

pub use group_b::{
    group_b_model, GroupB, GroupBClient, GroupBServer, SoapArrayStruct, SoapStructStruct,
};
pub use interop::{interop_model, Echo, Interop, InteropClient, InteropServer, SoapStruct};
pub use tempuri::{sam_ruby_model, SamRuby, SamRubyClient, SamRubyServer};

use crate::route::ByNamespace;

/// The WSDL key of SOAPBuilders base: `GET /echo?wsdl` or `/echo?wsdl=base`.
pub const BASE_WSDL_KEY: &str = "base";
/// The WSDL key of SOAPBuilders group B: `GET /echo?wsdl=groupB`.
pub const GROUP_B_WSDL_KEY: &str = "groupB";
/// The WSDL key of Sam Ruby's service: `GET /echo?wsdl=tempuri`.
pub const TEMPURI_WSDL_KEY: &str = "tempuri";

/// The `/echo` service.
pub fn service() -> Arc<dyn SoapService> {
    service_with(&ServiceConfig::default())
}

/// The `/echo` service with `config` (input limits, leniency) on every part of it.
pub fn service_with(config: &ServiceConfig) -> Arc<dyn SoapService> {
    let base = Arc::new(InteropServer::new(Echo).with_config(config.clone()));
    let group_b = Arc::new(GroupBServer::new(Echo).with_config(config.clone()));
    let sam_ruby = Arc::new(SamRubyServer::new(Echo).with_config(config.clone()));
    Arc::new(
        ByNamespace::builder("Echo")
            .limits(config.limits.clone())
            .route(interop::NAMESPACE, BASE_WSDL_KEY, base)
            .route_elements(
                interop::NAMESPACE,
                &group_b::operations(),
                GROUP_B_WSDL_KEY,
                group_b,
            )
            .route(tempuri::NAMESPACE, TEMPURI_WSDL_KEY, sam_ruby)
            .build(),
    )
}
