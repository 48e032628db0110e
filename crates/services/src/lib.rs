//! The seeds' services and `soapstone serve`.

pub mod charging;
