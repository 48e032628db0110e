//! Lowering a read WSDL port to the [`ServiceModel`](crate::ServiceModel) the `#[service]`
//! macro builds.
use std::fmt;

/// Why a port cannot be expressed as a [`ServiceModel`](crate::ServiceModel).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LowerError {
    /// What (lower case, offending name in backticks).
    pub message: String,
}

impl fmt::Display for LowerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for LowerError {}
