//! `#[derive(XsdType)]`: a struct with named fields becomes an XSD complex type (a sequence of
//! its fields), a unit-only enum a string enumeration, an enum of newtype variants a `choice`
//! (see `derive_choice.rs`).
//!
//! Names follow serde (`rename`, `rename_all`, `skip`), because the codec writes what serde
//! says; a field with `default` or `skip_serializing_if` may be absent (`minOccurs="0"`).
//! A field renamed `@name` is an attribute and `$text` the text content (the codec's
//! convention; the schema writer declares them as `xsd:attribute` and `simpleContent`), with
//! `#[xsd(default = "..", fixed = "..")]` for an attribute's declared values. A struct renamed
//! `$sequence:Name` is a choice's sequence alternative (its fields are sibling elements), the
//! type `Name`.
//! Must never emit code naming anything but `::soapstone_service::codegen`.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Data, DeriveInput, Fields};

use crate::attr::{Serde, XsdValues};
use crate::ctxt::Ctxt;

#[path = "derive_choice.rs"]
mod choice;

pub(crate) fn expand(input: DeriveInput) -> Result<TokenStream, syn::Error> {
    let mut cx = Ctxt::default();
    let container = Serde::from_attrs(&mut cx, &input.attrs);
    if !input.generics.params.is_empty() {
        cx.error_spanned_by(
            &input.generics,
            "`XsdType` cannot be derived for a generic type: an XSD type has one name",
        );
    }
    let ident = &input.ident;
    let name = container
        .rename
        .clone()
        .unwrap_or_else(|| ident.to_string());
    let (name, sequence) = match name.strip_prefix("$sequence:") {
        Some(rest) => (rest.to_string(), true),
        None => (name, false),
    };
    let cg = quote!(::soapstone_service::codegen);
    let def = match &input.data {
        Data::Struct(data) => match &data.fields {
            Fields::Named(fields) => {
                let mut entries = Vec::new();
                for field in &fields.named {
                    let attrs = Serde::from_attrs(&mut cx, &field.attrs);
                    if attrs.flatten {
                        cx.error_spanned_by(
                            field,
                            "`XsdType` does not support `#[serde(flatten)]`",
                        );
                    }
                    if attrs.skip {
                        continue;
                    }
                    let field_ident = field
                        .ident
                        .as_ref()
                        .map(|i| i.to_string())
                        .unwrap_or_default();
                    let field_ident = field_ident
                        .strip_prefix("r#")
                        .unwrap_or(&field_ident)
                        .to_string();
                    let element =
                        attrs
                            .rename
                            .clone()
                            .unwrap_or_else(|| match container.rename_all {
                                Some(rule) => rule.apply_to_field(&field_ident),
                                None => field_ident.clone(),
                            });
                    let ty = &field.ty;
                    let optional = attrs.default || attrs.skip_serializing_if || container.default;
                    let values = XsdValues::from_attrs(&mut cx, &field.attrs);
                    if (values.default.is_some() || values.fixed.is_some())
                        && !element.starts_with('@')
                    {
                        cx.error_spanned_by(
                            field,
                            "`#[xsd(default, fixed)]` is for attribute fields (`#[serde(rename = \"@name\")]`)",
                        );
                    }
                    let lit = |v: &Option<syn::LitStr>| match v {
                        Some(v) => quote!(#cg::Option::Some(#cg::String::from(#v))),
                        None => quote!(#cg::Option::None),
                    };
                    let (default, fixed) = (lit(&values.default), lit(&values.fixed));
                    entries.push(quote! {
                        #cg::wsdl::Field::new(#element, {
                            let mut ty = <#ty as #cg::wsdl::XsdType>::describe(schema);
                            ty.optional |= #optional;
                            ty
                        })
                        .with_values(#default, #fixed)
                    });
                }
                // `$sequence:Name`: a choice's sequence alternative (the codec's convention).
                if sequence {
                    quote!(#cg::wsdl::TypeDef::Sequence(#cg::Vec::from([#(#entries),*])))
                } else {
                    quote!(#cg::wsdl::TypeDef::Struct(#cg::Vec::from([#(#entries),*])))
                }
            }
            _ => {
                cx.error_spanned_by(
                    ident,
                    "`XsdType` needs a struct with named fields or a unit-only enum",
                );
                quote!()
            }
        },
        Data::Enum(data) => {
            if container.tagged {
                cx.error_spanned_by(
                    ident,
                    "`XsdType` enums must be externally tagged (no `tag`, `content` or `untagged`)",
                );
            }
            if data
                .variants
                .iter()
                .any(|v| !matches!(v.fields, Fields::Unit))
            {
                choice::describe(&mut cx, &container, data)
            } else {
                unit_enum(&mut cx, &container, data)
            }
        }
        Data::Union(_) => {
            cx.error_spanned_by(ident, "`XsdType` cannot be derived for a union");
            quote!()
        }
    };
    cx.check()?;
    Ok(quote! {
        impl #cg::wsdl::XsdType for #ident {
            fn describe(schema: &mut #cg::wsdl::Schema) -> #cg::wsdl::TypeRef {
                schema.define(#name, #cg::type_name::<Self>(), |schema| {
                    let _ = &schema;
                    #def
                })
            }
        }
    })
}

/// A unit-only enum: a string enumeration.
fn unit_enum(cx: &mut Ctxt, container: &Serde, data: &syn::DataEnum) -> TokenStream {
    let cg = quote!(::soapstone_service::codegen);
    let mut values = Vec::new();
    for variant in &data.variants {
        let attrs = Serde::from_attrs(cx, &variant.attrs);
        if attrs.skip {
            continue;
        }
        let v = variant.ident.to_string();
        values.push(
            attrs
                .rename
                .clone()
                .unwrap_or_else(|| match container.rename_all {
                    Some(rule) => rule.apply_to_variant(&v),
                    None => v,
                }),
        );
    }
    quote!(#cg::wsdl::TypeDef::Enum(#cg::Vec::from([#(#cg::String::from(#values)),*])))
}
