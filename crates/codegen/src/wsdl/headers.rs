//! The code of a WSDL's SOAP-encoded header blocks (`soap:header use="encoded"`).
//!
//! Each block gets a newtype named after its element, because its type may be a built-in one
//! (`xsd:string`, which the generated crate cannot implement `Header` for) or one a body or
//! another block uses too, and only the block knows its element and that it is encoded. Must
//! never give a type shared by several blocks one block's element.

use proc_macro2::TokenStream;
use quote::quote;
use syn::Ident;

use super::Gen;

/// The newtype of an encoded header block: the block's value, `Header` with its element and
/// `encoded()`, and `XsdType` as its content's type (the served WSDL names that type).
pub(super) fn encoded_header(
    g: &Gen<'_>,
    ident: &Ident,
    h: &soapstone_wsdl::HeaderPart,
) -> TokenStream {
    let cg = quote!(::soapstone_service::codegen);
    let inner = g.rust(&h.ty);
    let (ns, local) = (&h.element.namespace, &h.element.local);
    let types_ns = &g.model.namespace;
    let doc = format!(" The SOAP-encoded header block `{local}` (in `{ns}`).");
    quote! {
        #[doc = #doc]
        #[derive(Debug, Clone, PartialEq, ::soapstone_service::codegen::serde::Serialize, ::soapstone_service::codegen::serde::Deserialize)]
        #[serde(crate = "::soapstone_service::codegen::serde", transparent)]
        pub struct #ident(pub #inner);

        impl #cg::wsdl::XsdType for #ident {
            fn describe(schema: &mut #cg::wsdl::Schema) -> #cg::wsdl::TypeRef {
                <#inner as #cg::wsdl::XsdType>::describe(schema)
            }
        }

        impl #cg::Header for #ident {
            fn element() -> #cg::codec::QName {
                #cg::codec::QName::new(#ns, #local)
            }
            fn encoded() -> #cg::Option<&'static str> {
                #cg::Option::Some(#types_ns)
            }
        }
    }
}
