//! The one emitter: a [`Service`] becomes the trait, the server, the client and the model.
//!
//! Emits the trait (async fns made `Send`), private request/response wrapper structs, the
//! `<Trait>Server<T>` (a `SoapService`), the `<Trait>Client` stub and the `<trait>_model()`
//! function. Generated code is thin: protocol logic lives in `soapstone_service::codegen`.
//! Must never emit a path outside `::soapstone_service::codegen`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::{ItemTrait, TraitItem};

use crate::model::{Method, Service, Style};
use crate::snake;

fn pascal(ident: &str) -> String {
    ident
        .split('_')
        .filter(|s| !s.is_empty())
        .map(|s| {
            let mut c = s.chars();
            c.next()
                .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

fn is_vec(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Path(p) if p.qself.is_none() && p.path.segments.last().is_some_and(|s| s.ident == "Vec"))
}

/// Rewrites `async fn f(..) -> R;` as `fn f(..) -> impl Future<Output = R> + Send;` (a default
/// body becomes `async move { body }`).
fn rewrite_trait(item: &mut ItemTrait) {
    for ti in &mut item.items {
        let TraitItem::Fn(f) = ti else { continue };
        if f.sig.asyncness.take().is_none() {
            continue;
        }
        let output = match &f.sig.output {
            syn::ReturnType::Default => quote!(()),
            syn::ReturnType::Type(_, ty) => quote!(#ty),
        };
        f.sig.output = syn::parse_quote!(
            -> impl ::soapstone_service::codegen::Future<Output = #output> + ::soapstone_service::codegen::Send
        );
        if let Some(body) = f.default.take() {
            f.default = Some(syn::parse_quote!({ async move #body }));
        }
    }
}

/// The code of `service` whose trait is `item` (its `async fn`s are made `Send`).
pub fn expand(service: &Service, mut item: ItemTrait) -> TokenStream {
    rewrite_trait(&mut item);
    let cg = quote!(::soapstone_service::codegen);
    let vis = &item.vis;
    let trait_ident = &service.ident;
    let server = format_ident!("{}Server", trait_ident);
    let client = format_ident!("{}Client", trait_ident);
    let model_fn = format_ident!("{}_model", snake(&trait_ident.to_string()));
    let name = &service.name;
    let namespace = &service.namespace;
    let (style, qualified_doc) = match service.style {
        Style::Document => (
            quote!(#cg::wsdl::BindingStyle::DocumentLiteral),
            "document/literal wrapped",
        ),
        Style::Rpc => (quote!(#cg::wsdl::BindingStyle::RpcEncoded), "rpc/encoded"),
        Style::RpcLiteral => (quote!(#cg::wsdl::BindingStyle::RpcLiteral), "rpc/literal"),
    };
    let qualified = service.qualified;
    let service_docs = match &service.docs {
        Some(d) => quote!(model.documentation = #cg::Option::Some(#cg::String::from(#d));),
        None => quote!(),
    };

    let mut wrappers = Vec::new();
    let mut operations = Vec::new();
    let mut arms = Vec::new();
    let mut client_methods = Vec::new();
    let mut cached = Vec::new();
    for (index, m) in service.methods.iter().enumerate() {
        let Method {
            ident,
            name: op_name,
            request,
            action,
            response,
            request_namespace,
            response_namespace,
            bare_input,
            bare_output,
            params,
            ok,
            results,
            cache,
            context,
            headers,
            response_headers,
            faults,
            docs,
            one_way,
        } = m;
        let stem = pascal(&ident.to_string());
        // A message without wrapper is a struct the codec reads from the Body's children.
        let request_serde = if *bare_input {
            "$body"
        } else {
            request.as_str()
        };
        let response_serde = if *bare_output {
            "$body"
        } else {
            response.as_str()
        };
        // What differs from `OperationModel::new`'s defaults (a wrapper in the service
        // namespace), so a `#[service]` trait's model code is as before.
        let mut shape = Vec::new();
        if let Some(ns) = request_namespace {
            shape.push(quote!(op.request_namespace = #cg::Option::Some(#cg::String::from(#ns));));
        }
        if let Some(ns) = response_namespace {
            shape.push(quote!(op.response_namespace = #cg::Option::Some(#cg::String::from(#ns));));
        }
        if *bare_input {
            shape.push(quote!(op.input_body = #cg::wsdl::Body::Parts;));
        }
        if *bare_output {
            shape.push(quote!(op.output_body = #cg::wsdl::Body::Parts;));
        }
        let req_ty = format_ident!("__{}{}Request", trait_ident, stem);
        let resp_ty = format_ident!("__{}{}Response", trait_ident, stem);
        let fields = params.iter().map(|p| {
            let (id, ty, part) = (&p.ident, &p.ty, &p.part);
            let default = is_vec(ty).then(|| quote!(#[serde(default)]));
            quote!(#[serde(rename = #part)] #default #id: #ty)
        });
        // One wrapper field per response part: `result` for a single result, `r0`, `r1`, ..
        // for the elements of a tuple result.
        let result_ids: Vec<_> = if results.len() == 1 {
            vec![format_ident!("result")]
        } else {
            (0..results.len())
                .map(|i| format_ident!("r{}", i))
                .collect()
        };
        let result_fields = results.iter().zip(&result_ids).map(|(part, id)| {
            let (name, ty) = (&part.name, &part.ty);
            let default = is_vec(ty).then(|| quote!(#[serde(default)]));
            quote!(#[serde(rename = #name)] #default #id: #ty)
        });
        // rpc: the wrapper's children are the call's arguments, so one the operation does not
        // have is a mismatch in the number of arguments (SOAP 1.2 Part 2 4.4: a Sender fault
        // with rpc:BadArguments), not something to skip. Literal wrappers stay open.
        let deny = matches!(service.style, Style::Rpc | Style::RpcLiteral)
            .then(|| quote!(#[serde(deny_unknown_fields)]));
        wrappers.push(quote! {
            #[derive(#cg::serde::Serialize, #cg::serde::Deserialize)]
            #[serde(crate = "::soapstone_service::codegen::serde", rename = #request_serde)]
            #deny
            #[allow(non_camel_case_types)]
            #[doc(hidden)]
            struct #req_ty { #(#fields),* }
        });
        if !one_way {
            wrappers.push(quote! {
                #[derive(#cg::serde::Serialize, #cg::serde::Deserialize)]
                #[serde(crate = "::soapstone_service::codegen::serde", rename = #response_serde)]
                #[allow(non_camel_case_types)]
                #[doc(hidden)]
                struct #resp_ty { #(#result_fields),* }
            });
        }

        let inputs = params.iter().map(|p| {
            let (ty, part) = (&p.ty, &p.part);
            quote!(op.input.push(#cg::wsdl::Part::new(#part, <#ty as #cg::wsdl::XsdType>::describe(&mut model.schema)));)
        });
        let outputs = results.iter().map(|part| {
            let (name, ty) = (&part.name, &part.ty);
            quote!(op.output.push(#cg::wsdl::Part::new(#name, <#ty as #cg::wsdl::XsdType>::describe(&mut model.schema)));)
        });
        let op_docs = docs
            .as_ref()
            .map(|d| quote!(op.documentation = #cg::Option::Some(#cg::String::from(#d));));
        let block = |list: TokenStream, h: &crate::model::HeaderParam| {
            let ty = &h.ty;
            let element = header_element(h);
            let encoded = if h.from_type {
                quote!(<#ty as #cg::Header>::encoded().is_some())
            } else {
                let e = h.encoded.is_some();
                quote!(#e)
            };
            quote!({
                let mut part = #cg::wsdl::HeaderPart::new(#element, <#ty as #cg::wsdl::XsdType>::describe(&mut model.schema));
                part.encoded = #encoded;
                op.#list.push(part);
            })
        };
        let in_headers = headers.iter().map(|h| block(quote!(input_headers), h));
        let out_headers = response_headers
            .iter()
            .map(|h| block(quote!(output_headers), h));
        let fault_parts = faults.iter().flat_map(|f| &f.faults).map(|f| {
            let (name, ty, ns, local) = (&f.name, &f.ty, &f.namespace, &f.element);
            quote!(op.faults.push(#cg::wsdl::FaultPart::new(#name, #cg::codec::QName::new(#ns, #local), <#ty as #cg::wsdl::XsdType>::describe(&mut model.schema)));)
        });
        operations.push(quote! {
            {
                let mut op = #cg::wsdl::OperationModel::new(#op_name, #action);
                op.request = #cg::String::from(#request);
                op.response = #cg::String::from(#response);
                #(#shape)*
                op.one_way = #one_way;
                #op_docs
                #(#inputs)*
                #(#outputs)*
                #(#in_headers)*
                #(#out_headers)*
                #(#fault_parts)*
                model.operations.push(op);
            }
        });
        if let Some(set) = faults {
            wrappers.push(fault_enum(vis, set, qualified));
        }

        let param_ids: Vec<_> = params.iter().map(|p| &p.ident).collect();
        let param_tys: Vec<_> = params.iter().map(|p| &p.ty).collect();
        let make_response = match result_ids.as_slice() {
            [] => quote!(|()| #resp_ty {}),
            [single] => quote!(|#single| #resp_ty { #single }),
            many => quote!(|(#(#many),*)| #resp_ty { #(#many),* }),
        };
        let map_response = (!one_way).then(|| quote!(.map(#make_response)));
        let cache_check = cache.then(|| {
            quote! {
                if let #cg::Option::Some(hit) = dispatcher.cached(&reply) {
                    return #cg::ServiceFuture::ready(hit);
                }
            }
        });
        // A method taking the context keeps the request's bytes (shared) for its header
        // blocks; the others free them before the handler runs and the response is written,
        // so a large message is not held three times at once (bytes, values, response).
        let header_ids: Vec<_> = headers.iter().map(|h| &h.ident).collect();
        let header_tys: Vec<_> = headers.iter().map(|h| &h.ty).collect();
        let decode_headers = headers.iter().map(|h| {
            let (id, ty) = (&h.ident, &h.ty);
            let element = header_element(h);
            quote! {
                let #id: #cg::Option<#ty> = match __ctx.header::<#ty>(&#element) {
                    #cg::Result::Ok(value) => value,
                    #cg::Result::Err(fault) => return #cg::ServiceFuture::ready(#cg::fault_response(__version, #cg::Option::None, &fault)),
                };
            }
        });
        let (keep_message, ctx_arg, reply_call) = if *one_way {
            let keep = (*context || !headers.is_empty()).then(|| quote!(let __ctx = dispatcher.context(request, incoming.version()); let __version = incoming.version();));
            (
                quote!(#keep),
                if *context { quote!(&__ctx,) } else { quote!() },
                quote!(dispatcher.accepted(reply, result)),
            )
        } else if *context || !headers.is_empty() {
            (
                quote!(let __ctx = dispatcher.context(request, incoming.version()); let __version = incoming.version();),
                if *context { quote!(&__ctx,) } else { quote!() },
                quote!(dispatcher.reply_with_headers::<#resp_ty>(reply, result, __ctx.take_response_headers())),
            )
        } else {
            (
                quote!(),
                quote!(),
                quote!(dispatcher.reply::<#resp_ty>(reply, result)),
            )
        };
        // Decoded here, before the future is made: the future owns the arguments and
        // nothing of the request, whose bytes the caller frees before the handler runs.
        arms.push(quote! {
            #index => {
                #keep_message
                #[allow(unused_variables)]
                let (request, reply) = match incoming.decode::<#req_ty>() {
                    #cg::Result::Ok(decoded) => decoded,
                    #cg::Result::Err(response) => return #cg::ServiceFuture::ready(response),
                };
                #cache_check
                #(#decode_headers)*
                // One reference count for the implementation and the dispatcher: each
                // clone and drop is a locked instruction (about 20 cycles).
                let served = #cg::Arc::clone(&self.served);
                #cg::ServiceFuture::pooled(async move {
                    let (inner, dispatcher): (&T, &#cg::Dispatcher) = (&served.0, &served.1);
                    // Fields are moved out by path, not bound to names: a parameter called
                    // `reply` or `inner` must not shadow the locals of this function.
                    let result = <T as #trait_ident>::#ident(inner, #ctx_arg #(request.#param_ids,)* #(#header_ids),*).await;
                    let result = result #map_response .map_err(#cg::Into::<#cg::codec::Fault>::into);
                    #reply_call
                })
            }
        });
        cached.push(*cache);

        let ret_ty = ok.as_ref().map(|t| quote!(#t)).unwrap_or(quote!(()));
        let ret_val = match result_ids.as_slice() {
            [] => quote!(()),
            [single] => quote!(response.#single),
            many => quote!((#(response.#many),*)),
        };
        // A method without results does not read the (empty) response wrapper.
        let response_binding = if result_ids.is_empty() {
            quote!(_)
        } else {
            quote!(response)
        };
        let method_doc = format!(" Calls `{op_name}` (SOAPAction `{action}`).");
        let err_ty = match faults {
            Some(set) => {
                let f = &set.ident;
                quote!(#cg::CallError<#f>)
            }
            None => quote!(#cg::client::Error),
        };
        let encode_headers = headers.iter().map(|h| {
            let id = &h.ident;
            let element = header_element(h);
            // A `#[service]` header type says itself how it is written; a WSDL's block is
            // written under its own element (several may share a type).
            let xml = match (&h.encoded, h.from_type) {
                (_, true) => quote!(#cg::header_xml_in(value, self.stub.version())),
                (Some(types_ns), false) => {
                    quote!(#cg::encoded_block_xml(&#element, #types_ns, self.stub.version(), value))
                }
                (None, false) => quote!(#cg::block_xml(&#element, #qualified, value)),
            };
            quote! {
                if let #cg::Option::Some(value) = &#id {
                    __headers.push(#xml.map_err(#cg::client::Error::from_encode)?);
                }
            }
        });
        if *one_way {
            let doc =
                " A one-way operation: returns once the server accepted the request (HTTP 202).";
            client_methods.push(quote! {
                #[doc = #method_doc]
                #[doc = ""]
                #[doc = #doc]
                pub async fn #ident(&self, #(#param_ids: #param_tys,)* #(#header_ids: #cg::Option<#header_tys>),*) -> #cg::Result<(), #err_ty> {
                    #[allow(unused_mut)]
                    let mut __headers = #cg::Vec::new();
                    #(#encode_headers)*
                    self.stub.call_one_way(#index, __headers, &#req_ty { #(#param_ids),* }).await?;
                    #cg::Result::Ok(())
                }
            });
        } else if headers.is_empty() && response_headers.is_empty() {
            client_methods.push(quote! {
                #[doc = #method_doc]
                pub async fn #ident(&self, #(#param_ids: #param_tys),*) -> #cg::Result<#ret_ty, #err_ty> {
                    let #response_binding: #resp_ty = self.stub.call(#index, &#req_ty { #(#param_ids),* }).await?;
                    #cg::Result::Ok(#ret_val)
                }
            });
        } else {
            let (out_ty, out_val) = if response_headers.is_empty() {
                (quote!(#ret_ty), quote!(#ret_val))
            } else {
                (
                    quote!(#cg::WithHeaders<#ret_ty>),
                    quote!(#cg::WithHeaders { value: #ret_val, headers: __answer.headers }),
                )
            };
            let doc_headers = " Request header blocks are sent when `Some`; the response's come back in `WithHeaders` when the binding declares any.";
            client_methods.push(quote! {
                #[doc = #method_doc]
                #[doc = ""]
                #[doc = #doc_headers]
                pub async fn #ident(&self, #(#param_ids: #param_tys,)* #(#header_ids: #cg::Option<#header_tys>),*) -> #cg::Result<#out_ty, #err_ty> {
                    #[allow(unused_mut)]
                    let mut __headers = #cg::Vec::new();
                    #(#encode_headers)*
                    let __answer: #cg::WithHeaders<#resp_ty> = self.stub.call_with_headers(#index, __headers, &#req_ty { #(#param_ids),* }).await?;
                    #[allow(unused_variables)]
                    let response = __answer.value;
                    #cg::Result::Ok(#out_val)
                }
            });
        }
    }

    let server_doc = format!(
        " Serves a [`{trait_ident}`] implementation as the SOAP service `{name}` ({qualified_doc}); mount it on a server as a `SoapService`."
    );
    let client_doc = format!(" A typed client of the SOAP service `{name}` ({qualified_doc}).");
    let model_doc =
        format!(" The service model of [`{trait_ident}`]: `{name}` in `{namespace}` (built once).");
    let unknown = format!("operation index out of range in `{name}`");

    quote! {
        #item

        #(#wrappers)*

        #[doc = #model_doc]
        #vis fn #model_fn() -> &'static #cg::wsdl::ServiceModel {
            static MODEL: #cg::OnceLock<#cg::wsdl::ServiceModel> = #cg::OnceLock::new();
            MODEL.get_or_init(|| {
                let mut model = #cg::wsdl::ServiceModel::new(#name, #namespace, #style);
                model.qualified = #qualified;
                #service_docs
                #(#operations)*
                model
            })
        }

        #[doc = #server_doc]
        #vis struct #server<T: #trait_ident> {
            /// The implementation and its dispatcher, behind one reference count.
            served: #cg::Arc<(#cg::Arc<T>, #cg::Dispatcher)>,
        }

        impl<T: #trait_ident> #cg::Clone for #server<T> {
            fn clone(&self) -> Self {
                #server { served: #cg::Arc::clone(&self.served) }
            }
        }

        impl<T: #trait_ident> #server<T> {
            const CACHED: &'static [bool] = &[#(#cached),*];

            /// Serves `inner` with the default [`ServiceConfig`](::soapstone_service::ServiceConfig).
            pub fn new(inner: T) -> Self {
                Self::from_arc(#cg::Arc::new(inner))
            }

            /// Serves a shared implementation.
            pub fn from_arc(inner: #cg::Arc<T>) -> Self {
                let dispatcher = #cg::Dispatcher::new(#model_fn(), #cg::ServiceConfig::default(), Self::CACHED);
                #server { served: #cg::Arc::new((inner, dispatcher)) }
            }

            /// Replaces the settings (input limits, understood headers, cache size).
            pub fn with_config(self, config: #cg::ServiceConfig) -> Self {
                let dispatcher = #cg::Dispatcher::new(#model_fn(), config, Self::CACHED);
                #server { served: #cg::Arc::new((#cg::Arc::clone(&self.served.0), dispatcher)) }
            }

            /// The settings.
            pub fn config(&self) -> &#cg::ServiceConfig {
                self.served.1.config()
            }

            /// The implementation served.
            pub fn get_ref(&self) -> &T {
                &self.served.0
            }

            /// The service model (what the WSDL is generated from).
            pub fn model() -> &'static #cg::wsdl::ServiceModel {
                #model_fn()
            }
        }

        impl<T: #trait_ident> #cg::SoapService for #server<T> {
            fn name(&self) -> &str {
                &self.served.1.model().name
            }

            fn document(&self, query: &str, endpoint: &str) -> #cg::Option<#cg::String> {
                #cg::wsdl::document(self.served.1.model(), query, endpoint)
            }

            fn call(&self, request: #cg::SoapRequest) -> #cg::BoxFuture<#cg::SoapResponse> {
                #cg::SoapService::serve(self, request).boxed()
            }

            fn call_parsed(&self, request: &#cg::SoapRequest, envelope: &#cg::codec::Envelope<'_>) -> #cg::BoxFuture<#cg::SoapResponse> {
                #cg::SoapService::serve_parsed(self, request, envelope).boxed()
            }

            fn serve(&self, request: #cg::SoapRequest) -> #cg::ServiceFuture {
                self.served.1.serve(&request, #cg::Option::None, |incoming| self.dispatch(&request, incoming))
            }

            fn serve_parsed(&self, request: &#cg::SoapRequest, envelope: &#cg::codec::Envelope<'_>) -> #cg::ServiceFuture {
                self.served.1.serve(request, #cg::Option::Some(envelope), |incoming| self.dispatch(request, incoming))
            }
        }

        impl<T: #trait_ident> #server<T> {
            /// Decodes the operation's arguments and returns the handler's call as a future
            /// that owns them (and nothing of `request`).
            // `E: Into<Fault>` is `Fault` itself for a generated trait.
            // A service without two-way operations has only the fallback arm.
            #[allow(clippy::useless_conversion, clippy::match_single_binding, unused_variables)]
            fn dispatch(&self, request: &#cg::SoapRequest, incoming: #cg::Incoming<'_>) -> #cg::ServiceFuture {
                let dispatcher: &#cg::Dispatcher = &self.served.1;
                match incoming.operation() {
                    #(#arms)*
                    _ => #cg::ServiceFuture::ready(#cg::fault_response(incoming.version(), #cg::Option::None, &#cg::codec::Fault::server(#unknown))),
                }
            }
        }

        #[doc = #client_doc]
        #[derive(#cg::Debug, #cg::Clone)]
        #vis struct #client {
            stub: #cg::Stub,
        }

        // A WSDL operation may have any number of parts, each an argument.
        #[allow(clippy::too_many_arguments, clippy::type_complexity)]
        impl #client {
            /// A client of the service at `url` (`http://host:port/path`), speaking SOAP 1.1.
            pub fn new(url: &str) -> #cg::Result<Self, #cg::client::Error> {
                #cg::Result::Ok(Self::with_client(#cg::client::Client::new(url)?))
            }

            /// A client over an existing (configured, pooled) client.
            pub fn with_client(client: #cg::client::Client) -> Self {
                #client { stub: #cg::Stub::new(client, #model_fn()) }
            }

            /// Speaks `version` (SOAP 1.1 or 1.2) from now on.
            pub fn with_version(self, version: #cg::codec::Version) -> Self {
                #client { stub: self.stub.with_version(version) }
            }

            /// Speaks SOAP 1.2 from now on.
            pub fn soap12(self) -> Self {
                self.with_version(#cg::codec::Version::Soap12)
            }

            /// The underlying client.
            pub fn client(&self) -> &#cg::client::Client {
                self.stub.client()
            }

            /// Sends header block `H` with every call from now on.
            pub fn with_header<H: #cg::Header>(self, value: &H) -> #cg::Result<Self, #cg::client::Error> {
                #cg::Result::Ok(#client { stub: self.stub.with_header(value)? })
            }

            #(#client_methods)*
        }
    }
}

/// The enum of an operation's declared faults: `into_fault` for servers, `DeclaredFault` for
/// clients (the detail decoded from a fault answer).
fn fault_enum(vis: &syn::Visibility, set: &crate::model::FaultSet, qualified: bool) -> TokenStream {
    let cg = quote!(::soapstone_service::codegen);
    let ident = &set.ident;
    let variants = set.faults.iter().map(|f| {
        let (v, ty, name) = (&f.variant, &f.ty, &f.name);
        let doc = format!(" The fault `{name}` (detail element `{}`).", f.element);
        quote!(#[doc = #doc] #v(#ty))
    });
    let into = set.faults.iter().map(|f| {
        let (v, ns, local) = (&f.variant, &f.namespace, &f.element);
        quote!(#ident::#v(detail) => #cg::with_detail(fault, &#cg::codec::QName::new(#ns, #local), #qualified, &detail))
    });
    let from = set.faults.iter().map(|f| {
        let (v, ty, ns, local) = (&f.variant, &f.ty, &f.namespace, &f.element);
        quote! {
            if let #cg::Option::Some(detail) = #cg::decode_detail::<#ty>(fault, &#cg::codec::QName::new(#ns, #local)) {
                return #cg::Option::Some(#ident::#v(detail));
            }
        }
    });
    let doc = format!(" The faults an operation declares (`{ident}`): return one with `into_fault`; a client gets it back in `CallError::Declared`.");
    quote! {
        #[doc = #doc]
        #[derive(#cg::Debug, #cg::Clone, PartialEq)]
        #vis enum #ident { #(#variants),* }

        impl #ident {
            /// `fault` (code and reason) with this detail.
            pub fn into_fault(self, fault: #cg::codec::Fault) -> #cg::codec::Fault {
                match self { #(#into),* }
            }
        }

        impl #cg::DeclaredFault for #ident {
            fn from_fault(fault: &#cg::codec::Fault) -> #cg::Option<Self> {
                #(#from)*
                #cg::Option::None
            }
        }
    }
}

/// The expression of a header block's element: the WSDL's, or `H::element()`.
fn header_element(h: &crate::model::HeaderParam) -> TokenStream {
    let cg = quote!(::soapstone_service::codegen);
    if h.from_type {
        let ty = &h.ty;
        quote!(<#ty as #cg::Header>::element())
    } else {
        let (ns, local) = (&h.namespace, &h.element);
        quote!(#cg::codec::QName::new(#ns, #local))
    }
}
