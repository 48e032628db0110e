//! The contacts service of Zilora and Ketha (seed 003), document/literal at `/contacts`.

pub mod data;
mod service;

pub use data::{Contact, ContactBook, CONTACT_COUNT};
pub use service::{contacts_model, Contacts, ContactsClient, ContactsServer, NAMESPACE};
