//! `#[service]`: parse and validate the trait into a model (`parse`), then generate with the
//! emitter WSDL input uses too (`soapstone_codegen::expand`).
//!
//! Must never emit code when the model has errors: the errors alone are emitted, with the
//! trait itself (cleaned of `#[soap]` attributes) so the user's other code still type-checks.

mod parse;

use proc_macro2::TokenStream;
use quote::quote;
use syn::ItemTrait;

use crate::ctxt::{to_compile_errors, Ctxt};

pub(crate) fn expand(args: TokenStream, input: TokenStream) -> TokenStream {
    let mut item: ItemTrait = match syn::parse2(input) {
        Ok(item) => item,
        Err(e) => {
            let mut e = e;
            e.combine(syn::Error::new(e.span(), "`#[service]` goes on a trait"));
            return to_compile_errors(e);
        }
    };
    let mut cx = Ctxt::default();
    let args = parse::ServiceArgs::parse(&mut cx, args);
    let service = parse::build(&mut cx, args, &item);
    parse::strip_soap_attrs(&mut item);
    parse::add_supertraits(&mut item);
    match cx.check() {
        Ok(()) => soapstone_codegen::expand(&service, item),
        Err(e) => {
            let errors = to_compile_errors(e);
            quote!(#item #errors)
        }
    }
}
