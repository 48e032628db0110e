//! Tells a SOAP Fault from any other error response, for the error-by-kind counts.
//!
//! A SOAP server answers a failed call with HTTP 500 (SOAP 1.2: 400 for a `Sender` fault)
//! and a `Fault` element as the first child of `Body`; a proxy or an overloaded server
//! answers 500/503 with anything else. Only error responses are checked, so this walks the
//! XML with quick-xml's namespace-aware reader instead of the full codec: the generator
//! depends on no other soapstone crate and never decodes a successful answer.
//! It must never build a tree, accept a DOCTYPE or read past the first `Body` child.

use quick_xml::events::Event;
use quick_xml::name::{Namespace, ResolveResult};
use quick_xml::NsReader;

const SOAP11_ENV: &[u8] = b"http://schemas.xmlsoap.org/soap/envelope/";
const SOAP12_ENV: &[u8] = b"http://www.w3.org/2003/05/soap-envelope";

/// `true` if `body` is a SOAP 1.1 or 1.2 envelope whose `Body` holds a `Fault`.
pub fn is_soap_fault(body: &[u8]) -> bool {
    let mut reader = NsReader::from_reader(body);
    // Element path: 0 = outside, 1 = inside Envelope, 2 = inside Body.
    let mut depth = 0usize;
    loop {
        let (ns, event) = match reader.read_resolved_event() {
            Ok(pair) => pair,
            Err(_) => return false,
        };
        let (is_start, e) = match event {
            Event::Start(e) => (true, e),
            Event::Empty(e) => (false, e),
            Event::End(_) | Event::Eof | Event::DocType(_) => return false,
            _ => continue,
        };
        let in_soap_ns = matches!(
            ns,
            ResolveResult::Bound(Namespace(uri)) if uri == SOAP11_ENV || uri == SOAP12_ENV
        );
        let local = e.local_name();
        match depth {
            0 if in_soap_ns && local.as_ref() == b"Envelope" && is_start => depth = 1,
            0 => return false,
            1 if in_soap_ns && local.as_ref() == b"Body" && is_start => depth = 2,
            // A Header (or anything else before Body): skip its whole subtree.
            1 => {
                if is_start && reader.read_to_end(e.name()).is_err() {
                    return false;
                }
            }
            _ => return in_soap_ns && local.as_ref() == b"Fault",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::is_soap_fault;

    fn testdata(path: &str) -> Vec<u8> {
        let full = format!(
            "{}/../../testdata/php-ext-soap/messages/{path}",
            env!("CARGO_MANIFEST_DIR")
        );
        std::fs::read(&full).unwrap_or_else(|e| panic!("read {full}: {e}"))
    }

    #[test]
    fn soap11_fault_from_soapbuilders_round4() {
        assert!(is_soap_fault(&testdata(
            "Round4/GroupH/r4_groupH_complex_doclit_006w-response.xml"
        )));
    }

    #[test]
    fn soap12_fault_from_the_w3c_collection() {
        assert!(is_soap_fault(&testdata(
            "soap12-testcollection/T12-response.xml"
        )));
    }

    #[test]
    fn a_normal_response_is_no_fault() {
        assert!(!is_soap_fault(&testdata(
            "Round4/GroupH/r4_groupH_soapfault_001w-response.xml"
        )));
    }

    #[test]
    fn fault_after_a_header() {
        let env = br#"<e:Envelope xmlns:e="http://schemas.xmlsoap.org/soap/envelope/"><e:Header><h:x xmlns:h="urn:h"><e:Fault/></h:x></e:Header><e:Body><e:Fault><faultcode>e:Server</faultcode></e:Fault></e:Body></e:Envelope>"#;
        assert!(is_soap_fault(env));
        let no = br#"<e:Envelope xmlns:e="http://schemas.xmlsoap.org/soap/envelope/"><e:Header><e:Fault/></e:Header><e:Body><m:r xmlns:m="urn:m"/></e:Body></e:Envelope>"#;
        assert!(!is_soap_fault(no));
    }

    #[test]
    fn not_soap() {
        assert!(!is_soap_fault(b"Service Unavailable"));
        assert!(!is_soap_fault(b"<html><body>Fault</body></html>"));
        assert!(!is_soap_fault(
            br#"<Envelope><Body><Fault/></Body></Envelope>"#
        ));
        assert!(!is_soap_fault(b""));
        assert!(!is_soap_fault(
            br#"<!DOCTYPE x [<!ENTITY a "b">]><e:Envelope xmlns:e="http://schemas.xmlsoap.org/soap/envelope/"><e:Body><e:Fault/></e:Body></e:Envelope>"#
        ));
    }
}
