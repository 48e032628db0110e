//! Building the seeds' services for a server: which ones, on which paths, over which charging
//! store. `soapstone serve` uses it, and so can any program that embeds the services in its own
//! server (the lab starts `soapstone serve` as a process instead, to measure it from outside).
//!
//! Must never: mount a service on a path other than the documented one.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::Arc;

use anyhow::Context as _;
use soapstone_service::{ServiceConfig, SoapService};
use soapstone_wssec::{Authenticator, Secured, WsseConfig};

use crate::charging::sqlite::SqliteSync;
use crate::charging::{
    once::idempotency_key_name, postgres::PostgresStore, sqlite::SqliteStore, ChargingPolicy,
    ChargingServer, ChargingSystem, SeedConfig, Store,
};
use crate::contacts::{ContactBook, ContactsServer};
use crate::dp::{DpServer, DpState};
use crate::echo;
use crate::wsb::{CardImpl, CardServer, NewsImpl, NewsServer, ShopImpl, ShopServer};

/// The services `soapstone serve` can start.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, clap::ValueEnum)]
pub enum ServiceKind {
    /// The charging system (seed 000) at `/charging`.
    Charging,
    /// The Davis and Parashar test service (seed 001) at `/dp`.
    Dp,
    /// SOAPBuilders Round 2 echo and Sam Ruby's echoFloat (seed 002) at `/echo`.
    Echo,
    /// The contacts service (seed 003) at `/contacts`.
    Contacts,
    /// The WS benchmark services (seed 004) at `/wsb/card`, `/wsb/news`, `/wsb/shop`.
    Wsb,
}

impl ServiceKind {
    /// Every service, in the order of the seeds.
    pub const ALL: [ServiceKind; 5] = [
        ServiceKind::Charging,
        ServiceKind::Dp,
        ServiceKind::Echo,
        ServiceKind::Contacts,
        ServiceKind::Wsb,
    ];

    /// The name used on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            ServiceKind::Charging => "charging",
            ServiceKind::Dp => "dp",
            ServiceKind::Echo => "echo",
            ServiceKind::Contacts => "contacts",
            ServiceKind::Wsb => "wsb",
        }
    }
}

impl fmt::Display for ServiceKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where the charging system keeps its accounts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Db {
    /// A SQLite file (created with its directory if missing).
    Sqlite(PathBuf),
    /// A PostgreSQL URL (`postgres://user@host:port/db`).
    Postgres(String),
}

impl Default for Db {
    /// `./soapstone-data/charging.db`.
    fn default() -> Self {
        Db::Sqlite(PathBuf::from("soapstone-data").join("charging.db"))
    }
}

impl FromStr for Db {
    type Err = anyhow::Error;

    /// `postgres://...` or `postgresql://...`: PostgreSQL; `sqlite://PATH`, `sqlite:PATH` or a
    /// plain path: SQLite.
    fn from_str(s: &str) -> anyhow::Result<Db> {
        if s.starts_with("postgres://") || s.starts_with("postgresql://") {
            return Ok(Db::Postgres(s.to_string()));
        }
        let path = s
            .strip_prefix("sqlite://")
            .or_else(|| s.strip_prefix("sqlite:"))
            .unwrap_or(s);
        if path.is_empty() {
            anyhow::bail!("empty database path in `{s}`");
        }
        if let Some((scheme, _)) = path.split_once("://") {
            anyhow::bail!("unsupported database `{scheme}://`: expected `postgres://...` or a SQLite file path");
        }
        Ok(Db::Sqlite(PathBuf::from(path)))
    }
}

impl fmt::Display for Db {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Db::Sqlite(p) => write!(f, "sqlite:{}", p.display()),
            Db::Postgres(url) => f.write_str(url),
        }
    }
}

/// How every service authenticates its requests (`serve --auth`): each is wrapped in
/// [`Secured`], and the charging system refuses a request without a principal.
#[derive(Clone)]
#[non_exhaustive]
pub struct Auth {
    /// Who the users are (the users file of `--users`).
    pub authenticator: Arc<dyn Authenticator>,
    /// What is accepted (UsernameToken, TLS client certificates) and the token checks.
    pub config: WsseConfig,
}

impl Auth {
    /// Authentication by `authenticator` under `config`.
    pub fn new(authenticator: Arc<dyn Authenticator>, config: WsseConfig) -> Self {
        Auth {
            authenticator,
            config,
        }
    }
}

impl fmt::Debug for Auth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Auth")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

/// A García service whose answers may be kept in the response cache (`serve
/// --response-cache news,shop`, [`ServicesConfig::response_cache`]).
///
/// Both answers are pure functions of the request: the news service generates a day's
/// headlines from the (source, day) alone and the shop's offers from the product key,
/// properties and date alone; neither reads the clock or any state, so an answer kept is the
/// answer the handler would give again. A deployment whose headlines change during the day
/// bounds how stale an answer may be with [`ServiceConfig::cache_ttl`] (`serve --cache-ttl`,
/// default 60 s: an entry is answered from for a minute after it was computed, then computed
/// again); for this repository's generated data, `--cache-ttl off` is exact too.
/// The card service is not listed and cannot be: an authorization is a decision about one
/// payment, and answering a second identical payment from a cache would approve it without
/// checking it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, clap::ValueEnum)]
pub enum CachedService {
    /// `getHeadlines` (and `getSources`) at `/wsb/news`.
    News,
    /// `findOffers` at `/wsb/shop`.
    Shop,
}

/// What to build.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ServicesConfig {
    /// The services to build. Default: all of [`ServiceKind::ALL`].
    pub services: Vec<ServiceKind>,
    /// The charging store. Default: [`Db::default`] (`./soapstone-data/charging.db`).
    pub db: Db,
    /// The accounts an empty charging store is seeded with. Default: [`SeedConfig::default`]
    /// (10,000 accounts).
    pub seed: SeedConfig,
    /// Most PostgreSQL connections of the charging store. Default: `16`.
    pub pg_connections: usize,
    /// How a SQLite store makes commits durable. Default: [`SqliteSync::Full`].
    pub sqlite_sync: SqliteSync,
    /// Every service's settings (XML input limits, leniency, cache size). Default:
    /// [`ServiceConfig::default`].
    pub service: ServiceConfig,
    /// Reservation expiry and idempotency key retention of the charging system. Default:
    /// [`ChargingPolicy::default`] (reservations expire after 15 min, keys kept 24 h).
    pub charging: ChargingPolicy,
    /// Authentication in front of every service. Default: `None` (open, as on loopback).
    pub auth: Option<Auth>,
    /// García's services whose answers are cached (García et al. §V, Figs 14-16), each
    /// operation bounded by [`ServiceConfig::cache_capacity`] entries and
    /// [`ServiceConfig::cache_max_bytes`] bytes. Default: none (every request is computed).
    pub response_cache: Vec<CachedService>,
}

impl ServicesConfig {
    /// The settings `service` is built with: [`ServicesConfig::service`], with its response
    /// cache off unless `service` is in [`ServicesConfig::response_cache`].
    pub fn cached_service_config(&self, service: CachedService) -> ServiceConfig {
        let mut config = self.service.clone();
        if !self.response_cache.contains(&service) {
            config.cache_capacity = 0;
        }
        config
    }
}

impl Default for ServicesConfig {
    fn default() -> Self {
        ServicesConfig {
            services: ServiceKind::ALL.to_vec(),
            db: Db::default(),
            seed: SeedConfig::default(),
            pg_connections: 16,
            sqlite_sync: SqliteSync::Full,
            service: ServiceConfig::default(),
            charging: ChargingPolicy::default(),
            auth: None,
            response_cache: Vec::new(),
        }
    }
}

/// One service and the path it is served at.
#[derive(Clone)]
pub struct Mount {
    /// The path (`/charging`, `/wsb/news`, ...).
    pub path: &'static str,
    /// Which service it belongs to.
    pub kind: ServiceKind,
    /// The service.
    pub service: Arc<dyn SoapService>,
}

impl fmt::Debug for Mount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Mount")
            .field("path", &self.path)
            .field("kind", &self.kind)
            .finish_non_exhaustive()
    }
}

/// The built services.
#[derive(Debug, Default)]
pub struct Services {
    mounts: Vec<Mount>,
    charging: Option<ChargingSystem>,
}

impl Services {
    /// The services with their paths, in [`ServiceKind::ALL`] order.
    pub fn mounts(&self) -> &[Mount] {
        &self.mounts
    }

    /// The charging system, when it was built (for audits and embedding).
    pub fn charging(&self) -> Option<&ChargingSystem> {
        self.charging.as_ref()
    }

    /// Mounts every service on `builder`.
    pub fn mount_on(&self, mut builder: soapstone_server::Builder) -> soapstone_server::Builder {
        for m in &self.mounts {
            builder = builder.mount(m.path, m.service.clone());
        }
        builder
    }
}

/// Opens the charging store of `config` (`db`, `seed`, `pg_connections`, `sqlite_sync`),
/// seeding it when empty; a SQLite file's directory is created if missing.
pub async fn open_store(config: &ServicesConfig) -> anyhow::Result<Arc<dyn Store>> {
    Ok(match &config.db {
        Db::Sqlite(path) => {
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir)
                    .with_context(|| format!("cannot create `{}`", dir.display()))?;
            }
            Arc::new(SqliteStore::open_async_with(path, &config.seed, config.sqlite_sync).await?)
        }
        Db::Postgres(url) => {
            Arc::new(PostgresStore::connect(url, &config.seed, config.pg_connections).await?)
        }
    })
}

/// Builds the services of `config`.
pub async fn build_services(config: &ServicesConfig) -> anyhow::Result<Services> {
    let mut kinds = config.services.clone();
    kinds.sort();
    kinds.dedup();
    let mut out = Services::default();
    let sc = &config.service;
    for kind in kinds {
        let mut mount = |path, service: Arc<dyn SoapService>| {
            let service: Arc<dyn SoapService> = match &config.auth {
                Some(auth) => Arc::new(Secured::with_config(
                    service,
                    auth.authenticator.clone(),
                    auth.config.clone().limits(sc.limits.clone()),
                )),
                None => service,
            };
            out.mounts.push(Mount {
                path,
                kind,
                service,
            })
        };
        match kind {
            ServiceKind::Charging => {
                let store = open_store(config)
                    .await
                    .with_context(|| format!("charging store `{}`", config.db))?;
                let mut system = ChargingSystem::new(store).with_policy(config.charging.clone());
                if config.auth.is_some() {
                    system = system.requiring_principal();
                }
                // Released when the store is dropped with the services.
                system.spawn_sweeper();
                let charging_config = sc.clone().understand(idempotency_key_name());
                mount(
                    "/charging",
                    Arc::new(ChargingServer::new(system.clone()).with_config(charging_config)),
                );
                out.charging = Some(system);
            }
            ServiceKind::Dp => mount(
                "/dp",
                Arc::new(DpServer::new(DpState::default()).with_config(sc.clone())),
            ),
            ServiceKind::Echo => mount("/echo", echo::service_with(sc)),
            ServiceKind::Contacts => mount(
                "/contacts",
                Arc::new(ContactsServer::new(ContactBook::default()).with_config(sc.clone())),
            ),
            ServiceKind::Wsb => {
                mount(
                    "/wsb/card",
                    Arc::new(CardServer::new(CardImpl).with_config(sc.clone())),
                );
                mount(
                    "/wsb/news",
                    Arc::new(
                        NewsServer::new(NewsImpl)
                            .with_config(config.cached_service_config(CachedService::News)),
                    ),
                );
                mount(
                    "/wsb/shop",
                    Arc::new(
                        ShopServer::new(ShopImpl)
                            .with_config(config.cached_service_config(CachedService::Shop)),
                    ),
                );
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn db_urls() {
        assert_eq!(
            "postgres://u@h/db".parse::<Db>().unwrap(),
            Db::Postgres("postgres://u@h/db".into())
        );
        assert_eq!(
            "postgresql://h/db".parse::<Db>().unwrap(),
            Db::Postgres("postgresql://h/db".into())
        );
        assert_eq!(
            "sqlite://a/b.db".parse::<Db>().unwrap(),
            Db::Sqlite("a/b.db".into())
        );
        assert_eq!(
            "sqlite:/x.db".parse::<Db>().unwrap(),
            Db::Sqlite("/x.db".into())
        );
        assert_eq!(
            "data/c.db".parse::<Db>().unwrap(),
            Db::Sqlite("data/c.db".into())
        );
        assert_eq!(
            "mysql://h/db".parse::<Db>().unwrap_err().to_string(),
            "unsupported database `mysql://`: expected `postgres://...` or a SQLite file path"
        );
        assert_eq!(
            "sqlite://".parse::<Db>().unwrap_err().to_string(),
            "empty database path in `sqlite://`"
        );
    }
}
