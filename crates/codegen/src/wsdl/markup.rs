//! Naming and documenting the fields of a schema type that are attributes (`@name`) or its text
//! content (`$text`): the wire name stays in `#[serde(rename)]`, the Rust name is the
//! attribute's local name, or `value` for the text.
//! Must never change the wire name (the codec reads attributes and text by it).

use proc_macro2::TokenStream;
use quote::quote;
use soapstone_wsdl::Field;

/// What the Rust field name is made from.
pub(super) fn ident_source(f: &Field) -> String {
    if f.name == soapstone_wsdl::OTHER_ATTRIBUTES_FIELD {
        return "other_attributes".to_string();
    }
    match f.attribute() {
        Some((_, local)) => local.to_string(),
        None if f.is_text() => "value".to_string(),
        None => match f.own_namespace() {
            Some((_, local)) => local.to_string(),
            None => f.name.clone(),
        },
    }
}

/// The doc comment of a field.
pub(super) fn doc(f: &Field) -> String {
    if f.name == soapstone_wsdl::OTHER_ATTRIBUTES_FIELD {
        return " The other attributes (`xsd:anyAttribute`): `local` or `{ns}local` to the value."
            .to_string();
    }
    let Some((ns, local)) = f.attribute() else {
        return if f.is_text() {
            " The element's text content.".to_string()
        } else if let Some((ns, local)) = f.own_namespace() {
            match ns {
                "" => format!(" `{local}` (unqualified)."),
                ns => format!(" `{local}` (namespace `{ns}`)."),
            }
        } else {
            format!(" `{}`.", f.name)
        };
    };
    let mut doc = if ns.is_empty() {
        format!(" Attribute `{local}`")
    } else {
        format!(" Attribute `{local}` (namespace `{ns}`)")
    };
    if let Some(d) = &f.default {
        doc.push_str(&format!("; absent means `{d}`"));
    }
    if let Some(v) = &f.fixed {
        doc.push_str(&format!("; fixed to `{v}`"));
    }
    doc.push('.');
    doc
}

/// `#[xsd(default = "..", fixed = "..")]` when the attribute declares them (so that the
/// generated server publishes the attribute as the WSDL declared it).
pub(super) fn values(f: &Field) -> TokenStream {
    let default = f.default.as_ref().map(|d| quote!(default = #d));
    let fixed = f.fixed.as_ref().map(|v| quote!(fixed = #v));
    match (default, fixed) {
        (None, None) => TokenStream::new(),
        (Some(d), None) => quote!(#[xsd(#d)]),
        (None, Some(v)) => quote!(#[xsd(#v)]),
        (Some(d), Some(v)) => quote!(#[xsd(#d, #v)]),
    }
}

/// An attribute's `default` filled in and its `fixed` value filled in and checked when read:
/// the field's serde attributes and the helper functions they name (associated functions of
/// the struct `owner`, numbered by the field's `index` so any field name works). An absent
/// optional attribute with a `default` reads as `Some(default)`; one with `fixed` as
/// `Some(fixed)`, and another value is a decode error naming the attribute.
pub(super) fn fill(f: &Field, owner: &syn::Ident, index: usize) -> (TokenStream, TokenStream) {
    let cg = quote!(::soapstone_service::codegen);
    let Some((_, local)) = f.attribute() else {
        return (TokenStream::new(), TokenStream::new());
    };
    let default_fn = quote::format_ident!("__xsd_default_{index}");
    let read_fn = quote::format_ident!("__xsd_read_{index}");
    let path = |f: &syn::Ident| format!("{owner}::{f}");
    match (&f.fixed, &f.default, f.ty.optional) {
        (Some(fixed), _, true) => {
            let (d, c) = (path(&default_fn), path(&read_fn));
            (
                quote!(#[serde(default = #d, deserialize_with = #c)]),
                quote! {
                    #[doc(hidden)]
                    fn #default_fn<T: #cg::serde::de::DeserializeOwned>() -> #cg::Option<T> {
                        #cg::codec::parse_lexical(#fixed).ok()
                    }
                    #[doc(hidden)]
                    fn #read_fn<'de, D, T>(d: D) -> #cg::Result<#cg::Option<T>, D::Error>
                    where
                        D: #cg::serde::Deserializer<'de>,
                        T: #cg::serde::de::DeserializeOwned + #cg::PartialEq,
                    {
                        let value = <#cg::Option<T> as #cg::serde::Deserialize>::deserialize(d)?;
                        #cg::codec::check_fixed(value, #local, #fixed)
                    }
                },
            )
        }
        (Some(fixed), _, false) => {
            let c = path(&read_fn);
            (
                quote!(#[serde(deserialize_with = #c)]),
                quote! {
                    #[doc(hidden)]
                    fn #read_fn<'de, D, T>(d: D) -> #cg::Result<T, D::Error>
                    where
                        D: #cg::serde::Deserializer<'de>,
                        T: #cg::serde::de::DeserializeOwned + #cg::PartialEq,
                    {
                        let value = <T as #cg::serde::Deserialize>::deserialize(d)?;
                        #cg::codec::check_fixed_value(value, #local, #fixed)
                    }
                },
            )
        }
        // The codec hands an absent attribute field over as `None` (it knows the struct's
        // attributes), so the default is filled in after reading as well as for a missing key.
        (None, Some(default), true) => {
            let (d, c) = (path(&default_fn), path(&read_fn));
            (
                quote!(#[serde(default = #d, deserialize_with = #c)]),
                quote! {
                    #[doc(hidden)]
                    fn #default_fn<T: #cg::serde::de::DeserializeOwned>() -> #cg::Option<T> {
                        #cg::codec::parse_lexical(#default).ok()
                    }
                    #[doc(hidden)]
                    fn #read_fn<'de, D, T>(d: D) -> #cg::Result<#cg::Option<T>, D::Error>
                    where
                        D: #cg::serde::Deserializer<'de>,
                        T: #cg::serde::de::DeserializeOwned,
                    {
                        let value = <#cg::Option<T> as #cg::serde::Deserialize>::deserialize(d)?;
                        #cg::Result::Ok(value.or_else(|| #cg::codec::parse_lexical(#default).ok()))
                    }
                },
            )
        }
        _ => (TokenStream::new(), TokenStream::new()),
    }
}
