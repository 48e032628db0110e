//! Error collection for the macros, after serde_derive's `Ctxt`.
//!
//! Every problem found while building the intermediate model is recorded with its span; the
//! macro then emits one `compile_error!` per problem instead of stopping at the first or
//! panicking. Must never be dropped with errors unread (that would lose diagnostics).

use std::fmt::Display;

use proc_macro2::TokenStream;
use quote::ToTokens;

/// Collects errors; [`Ctxt::check`] hands them back as one combined error.
#[derive(Default)]
pub(crate) struct Ctxt {
    errors: Vec<syn::Error>,
}

impl Ctxt {
    pub(crate) fn error_spanned_by<T: ToTokens, M: Display>(&mut self, tokens: T, message: M) {
        self.errors
            .push(syn::Error::new_spanned(tokens.into_token_stream(), message));
    }

    pub(crate) fn error_at<M: Display>(&mut self, span: proc_macro2::Span, message: M) {
        self.errors.push(syn::Error::new(span, message));
    }

    pub(crate) fn syn_error(&mut self, err: syn::Error) {
        self.errors.push(err);
    }

    /// `Ok` when nothing was recorded, else every error combined.
    pub(crate) fn check(self) -> Result<(), syn::Error> {
        let mut errors = self.errors.into_iter();
        let Some(mut combined) = errors.next() else {
            return Ok(());
        };
        for e in errors {
            combined.combine(e);
        }
        Err(combined)
    }
}

/// The `compile_error!`s of an error.
pub(crate) fn to_compile_errors(err: syn::Error) -> TokenStream {
    err.to_compile_error()
}
