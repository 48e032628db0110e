//! Building and validating the intermediate model of a `#[service]` trait.
//!
//! Everything the expansion needs is decided here (element names, actions, wrapper names,
//! which operations cache), and every problem is recorded with its span before any code is
//! emitted, the way serde_derive builds its `Container` first. Must never panic on user input.

use std::collections::HashMap;

use syn::punctuated::Punctuated;
use syn::{
    FnArg, GenericArgument, Ident, ItemTrait, LitStr, Pat, PathArguments, ReturnType, Token,
    TraitItem, Type,
};

use crate::attr::docs;
use crate::case::lower_camel;
use crate::ctxt::Ctxt;

pub(crate) use soapstone_codegen::{HeaderParam, Method, Param, ResultPart, Service, Style};

/// `name = "..."`, `namespace = "..."`, `style = "..."` of `#[service(...)]`.
pub(crate) struct ServiceArgs {
    name: Option<LitStr>,
    namespace: Option<LitStr>,
    style: Option<LitStr>,
    form: Option<LitStr>,
}

impl ServiceArgs {
    pub(crate) fn parse(cx: &mut Ctxt, args: proc_macro2::TokenStream) -> Self {
        let mut out = ServiceArgs {
            name: None,
            namespace: None,
            style: None,
            form: None,
        };
        let parser = syn::meta::parser(|meta| {
            let slot = if meta.path.is_ident("name") {
                &mut out.name
            } else if meta.path.is_ident("namespace") {
                &mut out.namespace
            } else if meta.path.is_ident("style") {
                &mut out.style
            } else if meta.path.is_ident("form") {
                &mut out.form
            } else {
                return Err(meta.error(
                    "unknown `service` option: expected `name`, `namespace`, `style` or `form`",
                ));
            };
            *slot = Some(meta.value()?.parse()?);
            Ok(())
        });
        if let Err(e) = syn::parse::Parser::parse2(parser, args) {
            cx.syn_error(e);
        }
        out
    }
}

fn is_xml_name(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

/// The `#[soap(...)]` options of a method.
#[derive(Default)]
struct SoapAttr {
    name: Option<LitStr>,
    action: Option<LitStr>,
    response: Option<LitStr>,
    result: Option<LitStr>,
    cache: bool,
    header: bool,
    one_way: Option<proc_macro2::Span>,
}

fn soap_attr(cx: &mut Ctxt, attrs: &[syn::Attribute], for_param: bool) -> SoapAttr {
    let mut out = SoapAttr::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("soap")) {
        let result = attr.parse_nested_meta(|meta| {
            let p = &meta.path;
            if p.is_ident("name") {
                out.name = Some(meta.value()?.parse()?);
            } else if for_param && p.is_ident("header") {
                out.header = true;
            } else if for_param {
                return Err(meta.error(
                    "unknown `soap` option on a parameter: expected `name` or `header`",
                ));
            } else if p.is_ident("action") {
                out.action = Some(meta.value()?.parse()?);
            } else if p.is_ident("response") {
                out.response = Some(meta.value()?.parse()?);
            } else if p.is_ident("result") {
                out.result = Some(meta.value()?.parse()?);
            } else if p.is_ident("cache") {
                out.cache = true;
            } else if p.is_ident("one_way") {
                out.one_way = Some(p.get_ident().map(|i| i.span()).unwrap_or_else(proc_macro2::Span::call_site));
            } else {
                return Err(meta.error(
                    "unknown `soap` option: expected `name`, `action`, `response`, `result`, `cache` or `one_way`",
                ));
            }
            Ok(())
        });
        if let Err(e) = result {
            cx.syn_error(e);
        }
    }
    out
}

/// Removes the `#[soap]` attributes the compiler must not see.
pub(crate) fn strip_soap_attrs(item: &mut ItemTrait) {
    for ti in &mut item.items {
        if let TraitItem::Fn(f) = ti {
            f.attrs.retain(|a| !a.path().is_ident("soap"));
            for arg in &mut f.sig.inputs {
                if let FnArg::Typed(pt) = arg {
                    pt.attrs.retain(|a| !a.path().is_ident("soap"));
                }
            }
        }
    }
}

/// `T` of an `Option<T>`.
fn option_inner(ty: &Type) -> Option<&Type> {
    let Type::Path(tp) = ty else { return None };
    let last = tp.path.segments.last()?;
    if last.ident != "Option" {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    match args.args.first()? {
        GenericArgument::Type(t) => Some(t),
        _ => None,
    }
}

/// `T` and `E` of a `Result<T, E>` return type.
fn result_types(ty: &Type) -> Option<(&Type, &Type)> {
    let Type::Path(tp) = ty else { return None };
    let last = tp.path.segments.last()?;
    if last.ident != "Result" {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    let mut types = args.args.iter().filter_map(|a| match a {
        GenericArgument::Type(t) => Some(t),
        _ => None,
    });
    let ok = types.next()?;
    let err = types.next()?;
    Some((ok, err))
}

fn is_unit(ty: &Type) -> bool {
    matches!(ty, Type::Tuple(t) if t.elems.is_empty())
}

fn has_reference(ty: &Type) -> bool {
    struct Finder(bool);
    impl<'ast> syn::visit::Visit<'ast> for Finder {
        fn visit_type_reference(&mut self, _: &'ast syn::TypeReference) {
            self.0 = true;
        }
        fn visit_lifetime(&mut self, _: &'ast syn::Lifetime) {
            self.0 = true;
        }
    }
    let mut f = Finder(false);
    syn::visit::visit_type(&mut f, ty);
    f.0
}

pub(crate) fn build(cx: &mut Ctxt, args: ServiceArgs, item: &ItemTrait) -> Service {
    let name = args
        .name
        .as_ref()
        .map(LitStr::value)
        .unwrap_or_else(|| item.ident.to_string());
    if let Some(lit) = &args.name {
        if !is_xml_name(&lit.value()) {
            cx.error_spanned_by(
                lit,
                format!("service name `{}` is not an XML name", lit.value()),
            );
        }
    }
    let namespace = match &args.namespace {
        Some(ns) if ns.value().is_empty() => {
            cx.error_spanned_by(ns, "the service namespace must not be empty");
            String::new()
        }
        Some(ns) => ns.value(),
        None => {
            cx.error_spanned_by(
                &item.ident,
                "missing `namespace = \"...\"` in `#[service(...)]`",
            );
            String::new()
        }
    };
    let style = match args.style.as_ref().map(|s| (s, s.value())) {
        None => Style::Document,
        Some((_, s)) if s == "document" || s == "document/literal" => Style::Document,
        Some((_, s)) if s == "rpc" || s == "rpc/encoded" => Style::Rpc,
        Some((_, s)) if s == "rpc/literal" => Style::RpcLiteral,
        Some((lit, s)) => {
            cx.error_spanned_by(
                lit,
                format!("unknown style `{s}`: expected `document`, `rpc` or `rpc/literal`"),
            );
            Style::Document
        }
    };
    if !item.generics.params.is_empty() {
        cx.error_spanned_by(&item.generics, "a `#[service]` trait cannot be generic");
    }
    let mut methods = Vec::new();
    for ti in &item.items {
        match ti {
            TraitItem::Fn(f) => {
                if let Some(m) = method(cx, f, &namespace) {
                    methods.push(m);
                }
            }
            other => {
                cx.error_spanned_by(other, "a `#[service]` trait may only contain `async fn`s")
            }
        }
    }
    let mut seen: HashMap<String, &Ident> = HashMap::new();
    let mut actions: HashMap<&str, &Ident> = HashMap::new();
    for m in &methods {
        for element in [&m.name, &m.response] {
            if let Some(other) = seen.insert(element.clone(), &m.ident) {
                if other != &m.ident {
                    cx.error_spanned_by(
                        &m.ident,
                        format!("element `{element}` is already used by `{other}`"),
                    );
                }
            }
        }
        if !m.action.is_empty() {
            if let Some(other) = actions.insert(&m.action, &m.ident) {
                cx.error_spanned_by(
                    &m.ident,
                    format!("action `{}` is already used by `{other}`", m.action),
                );
            }
        }
    }
    // `form = "unqualified"`: parameters and their fields without a namespace, as CXF's
    // code-first services write them.
    let qualified = match args.form.as_ref().map(|s| (s, s.value())) {
        None => style == Style::Document,
        Some((_, s)) if s == "qualified" && style == Style::Document => true,
        Some((_, s)) if s == "unqualified" => false,
        Some((lit, s)) => {
            cx.error_spanned_by(
                lit,
                format!("unknown form `{s}`: expected `unqualified` (or `qualified` for document style)"),
            );
            style == Style::Document
        }
    };
    Service {
        ident: item.ident.clone(),
        name,
        namespace,
        style,
        qualified,
        docs: docs(&item.attrs),
        methods,
    }
}

fn method(cx: &mut Ctxt, f: &syn::TraitItemFn, namespace: &str) -> Option<Method> {
    let sig = &f.sig;
    let attr = soap_attr(cx, &f.attrs, false);
    let mut ok = true;
    if sig.asyncness.is_none() {
        cx.error_spanned_by(sig.fn_token, "service methods must be `async fn`");
        ok = false;
    }
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        cx.error_spanned_by(&sig.generics, "service methods cannot be generic");
        ok = false;
    }
    if let Some(v) = &sig.variadic {
        cx.error_spanned_by(v, "service methods cannot be variadic");
        ok = false;
    }
    match sig.inputs.first() {
        Some(FnArg::Receiver(r))
            if r.reference.is_some() && r.mutability.is_none() && r.colon_token.is_none() => {}
        _ => {
            cx.error_spanned_by(&sig.ident, "service methods take `&self` first");
            ok = false;
        }
    }
    let name = attr
        .name
        .as_ref()
        .map(LitStr::value)
        .unwrap_or_else(|| lower_camel(&sig.ident.to_string()));
    if !is_xml_name(&name) {
        cx.error_at(
            attr.name
                .as_ref()
                .map(|l| l.span())
                .unwrap_or(sig.ident.span()),
            format!("`{name}` is not an XML name"),
        );
    }
    let mut params = Vec::new();
    let mut headers = Vec::new();
    let mut parts: HashMap<String, ()> = HashMap::new();
    // `ctx: &Context` right after `&self` is the request's context, not a part.
    let context = sig.inputs.iter().nth(1).is_some_and(is_context);
    for arg in sig.inputs.iter().skip(1 + usize::from(context)) {
        let FnArg::Typed(pt) = arg else { continue };
        let pattr = soap_attr(cx, &pt.attrs, true);
        let Pat::Ident(pi) = &*pt.pat else {
            cx.error_spanned_by(&pt.pat, "service parameters must be plain identifiers");
            ok = false;
            continue;
        };
        if pi.by_ref.is_some() || pi.subpat.is_some() {
            cx.error_spanned_by(&pt.pat, "service parameters must be plain identifiers");
            ok = false;
        }
        if has_reference(&pt.ty) {
            cx.error_spanned_by(
                &pt.ty,
                "service parameters must be owned types (a reference cannot be deserialized)",
            );
            ok = false;
        }
        if pattr.header {
            // `#[soap(header)] auth: Option<Auth>` where `Auth: Header`: a header block the
            // binding declares, decoded before the method runs (`None` when absent).
            match option_inner(&pt.ty) {
                Some(inner) => headers.push(HeaderParam {
                    ident: pi.ident.clone(),
                    ty: inner.clone(),
                    namespace: String::new(),
                    element: String::new(),
                    from_type: true,
                    encoded: None,
                }),
                None => {
                    cx.error_spanned_by(
                        &pt.ty,
                        "a `#[soap(header)]` parameter is an `Option<H>` where `H: soapstone_service::Header`",
                    );
                    ok = false;
                }
            }
            continue;
        }
        if !headers.is_empty() {
            cx.error_spanned_by(
                &pt.pat,
                "`#[soap(header)]` parameters come after the others",
            );
            ok = false;
        }
        let part = pattr
            .name
            .as_ref()
            .map(LitStr::value)
            .unwrap_or_else(|| lower_camel(&pi.ident.to_string()));
        if !is_xml_name(&part) {
            cx.error_spanned_by(&pt.pat, format!("part name `{part}` is not an XML name"));
        }
        if parts.insert(part.clone(), ()).is_some() {
            cx.error_spanned_by(&pt.pat, format!("part `{part}` is declared twice"));
        }
        params.push(Param {
            ident: pi.ident.clone(),
            ty: (*pt.ty).clone(),
            part,
        });
    }
    let ok_ty = match &sig.output {
        ReturnType::Type(_, ty) => match result_types(ty) {
            Some((t, _)) if is_unit(t) => None,
            Some((t, _)) => {
                if has_reference(t) {
                    cx.error_spanned_by(t, "service results must be owned types");
                    ok = false;
                }
                Some(t.clone())
            }
            None => {
                cx.error_spanned_by(ty, "service methods return `Result<T, Fault>` (or an error type that is `Into<Fault>`)");
                ok = false;
                None
            }
        },
        ReturnType::Default => {
            cx.error_spanned_by(&sig.ident, "service methods return `Result<T, Fault>`");
            ok = false;
            None
        }
    };
    // `#[soap(one_way)]`: an input and no output (WSDL 1.1 section 2.4.1); the server answers
    // HTTP 202 with no body once the method returned `Ok(())`.
    let one_way = attr.one_way.is_some();
    if let Some(span) = attr.one_way {
        if ok_ty.is_some() {
            cx.error_at(span, "a `#[soap(one_way)]` method returns `Result<(), E>`: a one-way operation has no response");
            ok = false;
        }
        if attr.result.is_some() || attr.response.is_some() || attr.cache {
            cx.error_at(span, "a `#[soap(one_way)]` method takes no `result`, `response` or `cache`: it has no response");
            ok = false;
        }
    }
    let results = if one_way {
        Vec::new()
    } else {
        result_parts(cx, &attr, ok_ty.as_ref(), &sig.ident)
    };
    let response = attr
        .response
        .as_ref()
        .map(LitStr::value)
        .unwrap_or_else(|| format!("{name}Response"));
    if !is_xml_name(&response) {
        cx.error_at(
            attr.response
                .as_ref()
                .map(|l| l.span())
                .unwrap_or(sig.ident.span()),
            format!("response element `{response}` is not an XML name"),
        );
    }
    let action = attr
        .action
        .as_ref()
        .map(LitStr::value)
        .unwrap_or_else(|| default_action(namespace, &name));
    ok.then(|| Method {
        ident: sig.ident.clone(),
        request: name.clone(),
        name,
        action,
        response,
        request_namespace: None,
        response_namespace: None,
        bare_input: false,
        bare_output: false,
        params,
        ok: ok_ty,
        results,
        cache: attr.cache,
        context,
        headers,
        response_headers: Vec::new(),
        faults: None,
        docs: docs(&f.attrs),
        one_way,
    })
}

/// The response parts of a method: `result = "a, b, c"` names the elements of a tuple result
/// in order (several parts); a single name (default `return`) names the whole result.
fn result_parts(
    cx: &mut Ctxt,
    attr: &SoapAttr,
    ok: Option<&Type>,
    method: &Ident,
) -> Vec<ResultPart> {
    let span = attr
        .result
        .as_ref()
        .map(|l| l.span())
        .unwrap_or(method.span());
    let names: Vec<String> = match &attr.result {
        Some(lit) => lit
            .value()
            .split(',')
            .map(|n| n.trim().to_string())
            .collect(),
        None => vec!["return".to_string()],
    };
    let mut seen: HashMap<&str, ()> = HashMap::new();
    for n in &names {
        if !is_xml_name(n) {
            cx.error_at(span, format!("result name `{n}` is not an XML name"));
        } else if seen.insert(n, ()).is_some() {
            cx.error_at(span, format!("result part `{n}` is named twice"));
        }
    }
    let Some(ok) = ok else { return Vec::new() };
    let tuple = match ok {
        Type::Tuple(t) => Some(t),
        Type::Paren(p) => match &*p.elem {
            Type::Tuple(t) => Some(t),
            _ => None,
        },
        _ => None,
    };
    match (tuple, names.len()) {
        (Some(t), n) if t.elems.len() >= 2 && n == 1 => {
            let example: Vec<String> = (0..t.elems.len()).map(|i| format!("part{i}")).collect();
            cx.error_spanned_by(
                t,
                format!(
                    "a tuple result is several response parts: name each with `#[soap(result = \"{}\")]`",
                    example.join(", ")
                ),
            );
            Vec::new()
        }
        (Some(t), n) if n >= 2 && t.elems.len() != n => {
            cx.error_at(
                span,
                format!(
                    "`result` names {n} parts but the result is a tuple of {}",
                    t.elems.len()
                ),
            );
            Vec::new()
        }
        (Some(t), n) if n >= 2 => names
            .into_iter()
            .zip(t.elems.iter())
            .map(|(name, ty)| ResultPart {
                name,
                ty: ty.clone(),
            })
            .collect(),
        (_, n) if n >= 2 => {
            cx.error_spanned_by(
                ok,
                format!("`result` names {n} parts: the result must be a tuple of {n} types"),
            );
            Vec::new()
        }
        _ => vec![ResultPart {
            name: names.into_iter().next().unwrap_or_default(),
            ty: ok.clone(),
        }],
    }
}

/// `urn:charging` + `reserve` -> `urn:charging#reserve`; `http://tempuri.org/` + `echoFloat`
/// -> `http://tempuri.org/echoFloat`.
pub(crate) fn default_action(namespace: &str, op: &str) -> String {
    if namespace.ends_with('/') || namespace.ends_with('#') {
        format!("{namespace}{op}")
    } else {
        format!("{namespace}#{op}")
    }
}

/// Appends `Send + Sync + 'static` to the supertraits when missing: the server shares the
/// implementation across tasks.
pub(crate) fn add_supertraits(item: &mut ItemTrait) {
    let has = |name: &str, bounds: &Punctuated<syn::TypeParamBound, Token![+]>| {
        bounds.iter().any(|b| match b {
            syn::TypeParamBound::Trait(t) => {
                t.path.segments.last().is_some_and(|s| s.ident == name)
            }
            syn::TypeParamBound::Lifetime(l) => name == "static" && l.ident == "static",
            _ => false,
        })
    };
    let span = item.ident.span();
    if item.colon_token.is_none() {
        item.colon_token = Some(Token![:](span));
    }
    for (name, bound) in [
        (
            "Send",
            syn::parse_quote_spanned!(span=> ::soapstone_service::codegen::Send),
        ),
        (
            "Sync",
            syn::parse_quote_spanned!(span=> ::soapstone_service::codegen::Sync),
        ),
        ("static", syn::parse_quote_spanned!(span=> 'static)),
    ] {
        if !has(name, &item.supertraits) {
            item.supertraits.push(bound);
        }
    }
}

/// Whether `arg` is `name: &Context` (any path ending in `Context`, shared reference).
fn is_context(arg: &FnArg) -> bool {
    let FnArg::Typed(pt) = arg else { return false };
    let syn::Type::Reference(r) = &*pt.ty else {
        return false;
    };
    r.mutability.is_none()
        && matches!(&*r.elem, syn::Type::Path(p) if p.qself.is_none()
            && p.path.segments.last().is_some_and(|s| s.ident == "Context" && s.arguments.is_empty()))
}
