//! Reading the attributes the macros care about: `#[serde(...)]` renames and skips (so the
//! schema names what serde writes) and `#[soap(...)]` options.
//!
//! Unknown serde options are skipped, not rejected: serde_derive owns them. Must never accept
//! a `#[soap]` option it does not act on.

use syn::meta::ParseNestedMeta;
use syn::{Attribute, LitStr};

use crate::case::RenameRule;
use crate::ctxt::Ctxt;

/// Consumes the value of a nested meta item we do not interpret (`= expr` or `(...)`).
pub(crate) fn skip_meta(meta: &ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) {
        meta.value()?.parse::<syn::Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        meta.parse_nested_meta(|m| skip_meta(&m))?;
    }
    Ok(())
}

/// The serialized name of `rename = "x"` or `rename(serialize = "x", ...)`.
fn serialize_name(meta: &ParseNestedMeta) -> syn::Result<Option<LitStr>> {
    if meta.input.peek(syn::Token![=]) {
        return Ok(Some(meta.value()?.parse()?));
    }
    let mut name = None;
    meta.parse_nested_meta(|m| {
        if m.path.is_ident("serialize") {
            name = Some(m.value()?.parse()?);
            Ok(())
        } else {
            skip_meta(&m)
        }
    })?;
    Ok(name)
}

/// What serde attributes on a container, field or variant say about names and presence.
#[derive(Default)]
pub(crate) struct Serde {
    pub(crate) rename: Option<String>,
    pub(crate) rename_all: Option<RenameRule>,
    pub(crate) skip: bool,
    pub(crate) default: bool,
    pub(crate) skip_serializing_if: bool,
    pub(crate) flatten: bool,
    pub(crate) tagged: bool,
}

impl Serde {
    pub(crate) fn from_attrs(cx: &mut Ctxt, attrs: &[Attribute]) -> Self {
        let mut out = Serde::default();
        for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
            let result = attr.parse_nested_meta(|meta| {
                let p = &meta.path;
                if p.is_ident("rename") {
                    out.rename = serialize_name(&meta)?.map(|s| s.value());
                } else if p.is_ident("rename_all") {
                    if let Some(rule) = serialize_name(&meta)? {
                        match RenameRule::parse(&rule.value()) {
                            Some(r) => out.rename_all = Some(r),
                            None => cx.error_spanned_by(
                                &rule,
                                format!("unknown rename rule `{}`", rule.value()),
                            ),
                        }
                    }
                } else if p.is_ident("skip") || p.is_ident("skip_serializing") {
                    out.skip = true;
                } else if p.is_ident("default") {
                    out.default = true;
                    skip_meta(&meta)?;
                } else if p.is_ident("skip_serializing_if") {
                    out.skip_serializing_if = true;
                    skip_meta(&meta)?;
                } else if p.is_ident("flatten") {
                    out.flatten = true;
                } else if p.is_ident("tag") || p.is_ident("untagged") || p.is_ident("content") {
                    out.tagged = true;
                    skip_meta(&meta)?;
                } else {
                    skip_meta(&meta)?;
                }
                Ok(())
            });
            if let Err(e) = result {
                cx.syn_error(e);
            }
        }
        out
    }
}

/// `/// doc` comments joined into one paragraph text, or `None`.
pub(crate) fn docs(attrs: &[Attribute]) -> Option<String> {
    let mut lines = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("doc")) {
        if let syn::Meta::NameValue(nv) = &attr.meta {
            if let syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) = &nv.value
            {
                lines.push(s.value().trim().to_string());
            }
        }
    }
    let text = lines.join("\n").trim().to_string();
    (!text.is_empty()).then_some(text)
}

/// `#[xsd(default = "v", fixed = "v")]` on a field of `#[derive(XsdType)]`: the values an
/// attribute field (`@name`) declares in the schema (what an absent attribute means, or the
/// only value it may have). Generated code writes them so that a contract-first server
/// publishes the attribute as its WSDL declared it.
#[derive(Default)]
pub(crate) struct XsdValues {
    pub(crate) default: Option<LitStr>,
    pub(crate) fixed: Option<LitStr>,
}

impl XsdValues {
    pub(crate) fn from_attrs(cx: &mut Ctxt, attrs: &[Attribute]) -> Self {
        let mut out = XsdValues::default();
        for attr in attrs.iter().filter(|a| a.path().is_ident("xsd")) {
            let result = attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("default") {
                    out.default = Some(meta.value()?.parse()?);
                } else if meta.path.is_ident("fixed") {
                    out.fixed = Some(meta.value()?.parse()?);
                } else {
                    return Err(meta.error("unknown `xsd` option: expected `default` or `fixed`"));
                }
                Ok(())
            });
            if let Err(e) = result {
                cx.syn_error(e);
            }
        }
        out
    }
}
