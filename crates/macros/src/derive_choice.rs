//! `#[derive(XsdType)]` for an enum whose variants each hold one value: an XSD `choice` of
//! elements named after the variants (serde `rename`/`rename_all` honoured), which a struct
//! holds in a field renamed `$choice:a|b` (the codec's convention).
//!
//! Must never accept a variant the codec cannot write as one element: a unit variant (that is
//! a string enumeration's), or one with several or named fields.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{DataEnum, Fields};

use crate::attr::Serde;
use crate::ctxt::Ctxt;

pub(super) fn describe(cx: &mut Ctxt, container: &Serde, data: &DataEnum) -> TokenStream {
    let cg = quote!(::soapstone_service::codegen);
    let mut entries = Vec::new();
    for variant in &data.variants {
        let attrs = Serde::from_attrs(cx, &variant.attrs);
        if attrs.skip {
            continue;
        }
        let ty = match &variant.fields {
            Fields::Unnamed(f) if f.unnamed.len() == 1 => &f.unnamed[0].ty,
            _ => {
                cx.error_spanned_by(
                    variant,
                    "`XsdType` enums have unit variants only (a string enumeration) or one value per variant (a choice)",
                );
                continue;
            }
        };
        let v = variant.ident.to_string();
        let element = attrs
            .rename
            .clone()
            .unwrap_or_else(|| match container.rename_all {
                Some(rule) => rule.apply_to_variant(&v),
                None => v,
            });
        entries.push(quote! {
            #cg::wsdl::Field::new(#element, <#ty as #cg::wsdl::XsdType>::describe(schema))
        });
    }
    quote!(#cg::wsdl::TypeDef::Choice(#cg::Vec::from([#(#entries),*])))
}
