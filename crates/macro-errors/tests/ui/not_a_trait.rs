use soapstone_service::service;

#[service(namespace = "urn:x")]
pub struct NotATrait;

fn main() {}
