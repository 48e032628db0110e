//! The contact book as a SOAP service: document/literal wrapped (what the seed's Sun
//! Application Server and .NET services published), arrays as repeated elements.

use soapstone_codec::Fault;

use super::data::{Contact, ContactBook};

/// The service's namespace.
pub const NAMESPACE: &str = "urn:soapstone:contacts";

/// The contact management services of Zilora and Ketha (seed 003): a scalar, a 1-d array of
/// names and a 2-d array of names and phones, plus one contact per call.
#[soapstone_service::service(name = "Contacts", namespace = "urn:soapstone:contacts")]
pub trait Contacts {
    /// Service 1: the number of contacts (13,000).
    async fn get_contact_count(&self) -> Result<i32, Fault>;
    /// Service 2: the names of the first `n` contacts.
    async fn get_contact_names(&self, n: i32) -> Result<Vec<String>, Fault>;
    /// Service 3: name and phone of the first `n` contacts.
    async fn get_contacts(&self, n: i32) -> Result<Vec<Contact>, Fault>;
    /// One contact by index `0..13000` (the many-small-calls side of the seed's Table 3).
    async fn get_contact(&self, index: i32) -> Result<Contact, Fault>;
}

impl Contacts for ContactBook {
    async fn get_contact_count(&self) -> Result<i32, Fault> {
        Ok(self.count())
    }
    async fn get_contact_names(&self, n: i32) -> Result<Vec<String>, Fault> {
        self.names(n)
    }
    async fn get_contacts(&self, n: i32) -> Result<Vec<Contact>, Fault> {
        ContactBook::contacts(self, n)
    }
    async fn get_contact(&self, index: i32) -> Result<Contact, Fault> {
        self.contact(index)
    }
}
