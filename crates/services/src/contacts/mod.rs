//! The contacts service of Zilora and Ketha (seed 003), document/literal at `/contacts`.

pub mod data;

pub use data::{Contact, ContactBook, CONTACT_COUNT};
