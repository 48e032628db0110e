//! The one code emitter of soapstone, behind both `#[service]` and WSDL input.
//!
//! Like tonic-build, it works from a service description, not from syntax: a [`Service`]
//! (Rust idents and types beside wire names) becomes the trait with `Send` futures, the
//! `FooServer<T>` dispatcher, the `FooClient` stub and the `foo_model()` function, through
//! [`expand`]. The `#[service]` macro builds the `Service` from a trait; [`generate`] (feature
//! `wsdl`) builds it from a [`ServiceModel`](soapstone_wsdl::ServiceModel) read from a WSDL,
//! with the types the schema describes, and returns formatted source.
//!
//! Generated code names nothing but `::soapstone_service::codegen` and
//! `::soapstone_service::XsdType`; this crate must never emit a second path for the same thing
//! (a WSDL-generated service and a hand-declared one run the very same code).

mod expand;
mod model;
#[cfg(feature = "wsdl")]
mod wsdl;
#[cfg(feature = "wsdl")]
mod wsdl_open;

pub use expand::expand;
pub use model::{FaultDecl, FaultSet, HeaderParam, Method, Param, ResultPart, Service, Style};
#[cfg(feature = "wsdl")]
pub use wsdl::{generate, GenerateError};

/// `WSTest` -> `ws_test`, `Charging` -> `charging`, `EchoService2` -> `echo_service2`.
pub fn snake(ident: &str) -> String {
    let chars: Vec<char> = ident.chars().collect();
    let mut out = String::with_capacity(ident.len() + 4);
    for (i, &c) in chars.iter().enumerate() {
        if c.is_uppercase() {
            let prev_lower = i > 0 && chars[i - 1].is_lowercase();
            let prev_digit = i > 0 && chars[i - 1].is_ascii_digit();
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            let prev_upper = i > 0 && chars[i - 1].is_uppercase();
            // `Echo2DArray` -> `echo2d_array`: a letter right after a digit joins it unless
            // it starts a word (`Service2Name` -> `service2_name`).
            if i > 0 && (prev_lower || ((prev_upper || prev_digit) && next_lower)) {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn snakes() {
        assert_eq!(super::snake("Charging"), "charging");
        assert_eq!(super::snake("WSTest"), "ws_test");
        assert_eq!(super::snake("EchoService2"), "echo_service2");
        assert_eq!(super::snake("InteropTestB"), "interop_test_b");
        assert_eq!(super::snake("echo2DStringArray"), "echo2d_string_array");
        assert_eq!(super::snake("Service2Name"), "service2_name");
    }
}
