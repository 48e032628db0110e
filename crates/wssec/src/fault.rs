//! The faults of WS-Security (SOAP Message Security 1.1, section 12) as SOAP faults.
//!
//! SOAP 1.1 carries the specification's QName as the `faultcode` (`wsse:FailedAuthentication`);
//! SOAP 1.2 answers `env:Sender` with that QName as its subcode, as section 12 says. The reason
//! is the specification's own sentence and nothing else. Must never: tell the sender which part
//! failed (user unknown, password wrong, nonce replayed all read the same), so a fault helps no
//! one guess accounts or passwords; the details go to `tracing` at debug level only.

use soapstone_codec::{Fault, FaultCode, QName, Version};
use soapstone_service::SoapResponse;

use crate::WSSE_NS;

/// Why a request was refused; each kind is one fault code of WSS 1.1 section 12.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum WsseFault {
    /// `wsse:FailedAuthentication`: the token could not be authenticated or authorized (wrong
    /// password, unknown user, replayed nonce, missing permission).
    FailedAuthentication,
    /// `wsse:InvalidSecurityToken`: the token is malformed (no username, a nonce that is not
    /// base64, a digest without nonce or created, a created time in the future).
    InvalidSecurityToken,
    /// `wsse:InvalidSecurity`: the `wsse:Security` header is missing, repeated, or malformed.
    InvalidSecurity,
    /// `wsse:UnsupportedSecurityToken`: a password type other than text or digest.
    UnsupportedSecurityToken,
    /// `wsse:MessageExpired` (WSS 1.1 table 12.1; named `wsu:MessageExpired` in some texts): the
    /// Timestamp expired, or the token's created time is older than the freshness window.
    MessageExpired,
}

impl WsseFault {
    /// The fault code's local name.
    pub fn local_name(self) -> &'static str {
        match self {
            WsseFault::FailedAuthentication => "FailedAuthentication",
            WsseFault::InvalidSecurityToken => "InvalidSecurityToken",
            WsseFault::InvalidSecurity => "InvalidSecurity",
            WsseFault::UnsupportedSecurityToken => "UnsupportedSecurityToken",
            WsseFault::MessageExpired => "MessageExpired",
        }
    }

    /// The fault code's QName (all in the `wsse` namespace, as in WSS 1.1 and WSS4J).
    pub fn qname(self) -> QName {
        QName::new(WSSE_NS, self.local_name())
    }

    /// The specification's sentence for this fault, lower-cased.
    pub fn reason(self) -> &'static str {
        match self {
            WsseFault::FailedAuthentication => {
                "the security token could not be authenticated or authorized"
            }
            WsseFault::InvalidSecurityToken => "an invalid security token was provided",
            WsseFault::InvalidSecurity => {
                "an error was discovered processing the `wsse:Security` header"
            }
            WsseFault::UnsupportedSecurityToken => "an unsupported token was provided",
            WsseFault::MessageExpired => "the message has expired",
        }
    }

    /// The SOAP fault in `version`'s shape.
    pub fn to_fault(self, version: Version) -> Fault {
        let mut fault = Fault::client(self.reason());
        match version {
            Version::Soap11 => fault.code = FaultCode::Other(self.qname()),
            Version::Soap12 => fault.subcodes = vec![self.qname()],
        }
        fault
    }

    /// The whole response envelope.
    pub fn to_response(self, version: Version) -> SoapResponse {
        SoapResponse::from_fault(version, None, &self.to_fault(version))
    }
}

impl std::fmt::Display for WsseFault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "wsse:{}: {}", self.local_name(), self.reason())
    }
}

impl std::error::Error for WsseFault {}
