//! Generated Rust for the schema constructs that are not one element per field: a choice
//! becomes an enum with one newtype variant per alternative element (held by a field whose
//! serde name lists the alternatives, `$choice:a|b`), an `xsd:any` wildcard a `$any` field of
//! `AnyXml`s, and fields and parameters of those get readable Rust names.
//!
//! Must never emit an enum whose variants are not named as the alternatives' elements are: the
//! codec chooses the variant by the element's local name.

use proc_macro2::TokenStream;
use quote::quote;
use soapstone_wsdl::{Field, NamedType, Part};
use syn::Ident;

use crate::wsdl::{Gen, Names};

impl Gen<'_> {
    /// The name a field's Rust ident is made from: its element's, or for a choice the choice
    /// type's (`shape_choice`), for a wildcard `any`.
    pub(crate) fn field_name(&self, f: &Field) -> String {
        if f.is_any() {
            return "any".to_string();
        }
        if f.choice().is_some() {
            return f.ty.name.local.clone();
        }
        if f.is_text() {
            // `$text`: the text of a body element of a simple type.
            return "value".to_string();
        }
        match f.own_namespace().or_else(|| f.attribute()) {
            Some((_, local)) => local.to_string(),
            None => f.name.clone(),
        }
    }

    /// The doc comment of a field: its element, the alternatives of a choice, or what a
    /// wildcard takes.
    pub(crate) fn field_doc(&self, f: &Field) -> String {
        if f.is_any() {
            return " The elements of an `xsd:any` wildcard (those no other field takes), as they are.".to_string();
        }
        match f.choice() {
            Some(alts) => {
                let alts: Vec<String> = alts.map(|a| format!("`<{a}>`")).collect();
                format!(" One of {} (a `choice`).", alts.join(", "))
            }
            None => format!(" `{}`.", f.name),
        }
    }

    /// [`Self::field_name`] of an operation's part.
    pub(crate) fn part_name(&self, p: &Part) -> String {
        self.field_name(&Field::new(p.name.clone(), p.ty.clone()))
    }

    /// The enum of a choice: `#[serde(rename = "alt")] Alt(T)` per alternative.
    pub(crate) fn choice(
        &self,
        ident: &Ident,
        wire: &str,
        doc: &str,
        t: &NamedType,
        alternatives: &[Field],
    ) -> TokenStream {
        let mut names = Names::default();
        let variants = alternatives.iter().map(|a| {
            let id = names.type_ident(&a.name);
            // A variant that leads back to this enum without a `Vec` between is boxed.
            let ty = if !a.ty.repeated && self.reaches(&a.ty.name.local, &t.name) {
                self.rust_boxed(&a.ty)
            } else {
                self.rust(&a.ty)
            };
            let wire = &a.name;
            let doc = format!(" `<{wire}>`.");
            quote!(#[doc = #doc] #[serde(rename = #wire)] #id(#ty))
        });
        let doc = format!("{doc} One of its elements (a `choice`).");
        quote! {
            #[doc = #doc]
            #[derive(Debug, Clone, PartialEq, ::soapstone_service::codegen::serde::Serialize, ::soapstone_service::codegen::serde::Deserialize, ::soapstone_service::XsdType)]
            #[serde(crate = "::soapstone_service::codegen::serde", rename = #wire)]
            pub enum #ident { #(#variants),* }
        }
    }
}
