//! The macros of soapstone: `#[service]` on a trait and `#[derive(XsdType)]`.
//!
//! Use them through `soapstone_service` (which re-exports both and documents them with a
//! complete example); generated code refers only to `::soapstone_service::codegen`.
//! Both macros build and validate an intermediate model first and report every problem as a
//! `compile_error!` with its span; they must never panic on user input.

mod attr;
mod case;
mod ctxt;
mod derive;
mod service;

use proc_macro::TokenStream;

/// Turns a trait into a SOAP service: server dispatch (`<Trait>Server<T>`), a typed client
/// (`<Trait>Client`) and the service model (`<trait>_model()`) the WSDL is generated from.
///
/// `#[service(name = "Charging", namespace = "urn:charging", style = "rpc")]`: `name`
/// defaults to the trait name, `namespace` is required, `style` is `"document"` (document/
/// literal wrapped, the default), `"rpc"` (rpc/encoded) or `"rpc/literal"`; `form =
/// "unqualified"` writes document/literal parameters without a namespace (CXF's code-first
/// services).
///
/// Methods are `async fn name(&self, params..) -> Result<T, E>` with `E: Into<Fault>`.
/// `#[soap(name = "..", action = "..", response = "..", result = "..", cache)]` on a method
/// and `#[soap(name = "..")]` on a parameter override the defaults: the lowerCamelCase
/// method/parameter name, the action `<namespace>#<name>` (`<namespace><name>` when the
/// namespace ends with `/`), the response wrapper `<name>Response`, the result element
/// `return`; `cache` keeps responses of an idempotent operation. A tuple result is several
/// response parts, named in order: `#[soap(result = "outputString, outputInteger")]` on
/// `-> Result<(String, i32), Fault>`. `#[soap(one_way)]` on a method returning
/// `Result<(), E>` makes a one-way operation: no response element, HTTP 202 Accepted with no
/// body once the method succeeded.
///
/// `#[soap(header)] locale: Option<Locale>` (after the other parameters; `Locale:
/// soapstone_service::Header + XsdType`) declares a request header block: decoded before the
/// method runs (`None` when absent), understood when `mustUnderstand`, bound with
/// `soap:header` in the WSDL, and a parameter of the client's method.
#[proc_macro_attribute]
pub fn service(args: TokenStream, input: TokenStream) -> TokenStream {
    service::expand(args.into(), input.into()).into()
}

/// Describes a struct with named fields (an XSD complex type), a unit-only enum (a string
/// enumeration) or an enum with one value per variant (a `choice` of elements named after the
/// variants, held by a field renamed `$choice:a|b`) to a WSDL schema, honouring serde's
/// `rename`, `rename_all`, `skip`, `default` and `skip_serializing_if`.
#[proc_macro_derive(XsdType, attributes(serde, xsd))]
pub fn derive_xsd_type(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    derive::expand(input)
        .unwrap_or_else(ctxt::to_compile_errors)
        .into()
}
