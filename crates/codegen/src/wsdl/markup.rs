//! Naming and documenting the fields of a schema type that are attributes (`@name`) or its text
//! content (`$text`): the wire name stays in `#[serde(rename)]`, the Rust name is the
//! attribute's local name, or `value` for the text.
//! Must never change the wire name (the codec reads attributes and text by it).

use proc_macro2::TokenStream;
use quote::quote;
use soapstone_wsdl::Field;

/// What the Rust field name is made from.
pub(super) fn ident_source(f: &Field) -> String {
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
