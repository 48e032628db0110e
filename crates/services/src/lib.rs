//! The seeds' services and `soapstone serve`.

pub mod charging;
pub mod contacts;
pub mod dp;
mod gen;
pub mod route;
pub mod wsb;
