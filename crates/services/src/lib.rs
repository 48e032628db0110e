//! The seeds' services and `soapstone serve`.
//!
//! | service | seed | path | style |
//! |---|---|---|---|
//! | [`charging`] | Elfving & Paulsson 2002 (thesis, appendix B/C) | `/charging` | rpc/encoded |
//! | [`dp`] | Davis & Parashar 2002 | `/dp` | rpc/encoded |
//! | [`echo`] | SOAPBuilders Round 2; Sam Ruby 2001 | `/echo` | rpc/encoded; literal |
//! | [`contacts`] | Zilora & Ketha 2007 | `/contacts` | document/literal |
//! | [`wsb`] | Garcia et al. 2008 | `/wsb/card`, `/wsb/news`, `/wsb/shop` | document/literal |
//!
//! [`run_serve`] is `soapstone serve`; [`build_services`] builds the same services for embedding.
//! `docs/services.md` describes each service, its messages and how to call it with curl.

// `Fault` (the on-the-wire error, ~170 bytes) is what `#[service]` methods return by value; the
// domain helpers that feed them return it the same way.
#![allow(clippy::result_large_err)]

mod build;
pub mod charging;
pub mod contacts;
pub mod dp;
pub mod echo;
mod gen;
pub mod limits;
mod metrics_port;
pub mod route;
mod serve;
mod serve_security;
mod users_cli;
pub mod wsb;

pub use build::{
    build_services, open_store, Auth, CachedService, Db, Mount, ServiceKind, Services,
    ServicesConfig,
};
pub use serve::{run_serve, run_serve_until, AuthArg, RuntimeArg, ServeArgs};
pub use users_cli::{run_users, AddArgs, UsersArgs, UsersCommand};
