//! The third-party peers: the seeds' systems of today (gSOAP, PHP ext/soap, SOAP::Lite, spyne,
//! zeep, node-soap, omniORB, Java RMI, ...) that `lab/peers/setup.sh` installs and builds, found
//! through the manifest it writes (`lab/peers/build/manifest.json`).
//!
//! Why a manifest rather than probing: the setup script knows how each peer was installed and
//! built (version, flags, thread model) and the lab must record exactly that beside each
//! number. Why a catalogue ([`CATALOGUE`]) in the lab as well: a peer that the manifest does not
//! list, or lists as missing, must still show in the report with the reason, never be dropped
//! silently.
//!
//! Two protocols connect the lab to a peer (documented in `docs/lab.md`):
//! - a **server** peer is a command with a `{port}` placeholder (and optionally `{host}`, the
//!   address to bind, `{db}`, a fresh SQLite file for the thesis's charging store, and
//!   `{cache}`, `on` only where the lab measures a response cache, `off` elsewhere); it
//!   listens on `127.0.0.1:port` (or the emulated LAN's address) and is ready when that port
//!   accepts a connection ([`server`]);
//! - a **client** peer is a command to which the lab appends `URL OP N WARMUP_S WINDOW_S`; it
//!   calls `OP` one call at a time, checks every answer and prints one JSON line with its
//!   samples ([`client`]).
//!
//! This module must never mark a peer as measured that was not, nor time a server whose answers
//! have not been checked first ([`check`]).

pub(crate) mod answers;
mod catalogue;
pub(crate) mod check;
pub(crate) mod client;
pub(crate) mod load;
mod port_owner;
pub(crate) mod round2;
pub(crate) mod server;
#[cfg(test)]
mod server_cache_tests;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub(crate) use catalogue::CATALOGUE;
use catalogue::{NOT_BUILT, NOT_YET};

/// The manifest `lab/peers/setup.sh` writes.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Manifest {
    /// Seconds the setup run that wrote it took.
    #[serde(default)]
    pub(crate) setup_seconds: Option<f64>,
    /// UTC time it was written.
    #[serde(default)]
    pub(crate) created: Option<String>,
    pub(crate) peers: Vec<ManifestPeer>,
}

/// One peer as the manifest describes it.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct ManifestPeer {
    pub(crate) id: String,
    #[serde(default)]
    pub(crate) role: String,
    #[serde(default)]
    pub(crate) transport: String,
    #[serde(default)]
    pub(crate) name: String,
    #[serde(default)]
    pub(crate) stands_for: String,
    pub(crate) status: String,
    #[serde(default)]
    pub(crate) reason: String,
    #[serde(default)]
    pub(crate) version: String,
    #[serde(default)]
    pub(crate) installed_via: String,
    #[serde(default)]
    pub(crate) build: String,
    #[serde(default)]
    pub(crate) config: String,
    /// The command line (`{port}` replaced for servers; arguments appended for clients).
    #[serde(default)]
    pub(crate) command: Vec<String>,
    /// HTTP path of a SOAP server (`/dp`).
    #[serde(default)]
    pub(crate) path: Option<String>,
    /// How a non-HTTP server is reached (`corbaloc::127.0.0.1:{port}/dp`).
    #[serde(default)]
    pub(crate) url: Option<String>,
    /// `rpc-encoded` (the contract's form) or `literal` (the same envelope without xsi:type).
    #[serde(default)]
    pub(crate) request: Option<String>,
    /// Where a server peer serves the thesis's charging calls: an HTTP path for a SOAP server
    /// (`/axis/services/charging`), a URL template for a CORBA one
    /// (`corbaloc::{host}:{port}/charging`). None: it does not carry the charging system.
    #[serde(default)]
    pub(crate) charging: Option<String>,
    /// For a CORBA/RMI client: the server peer it calls.
    #[serde(default)]
    pub(crate) client_of: Option<String>,
    /// The seeds' other services the server carries, each with its HTTP path (`"wsb":
    /// "/axis2/services/{service}"`, `"echo": "/echo"`, `"contacts": "/contacts"`); `{service}`
    /// is García's `card`, `news` or `shop`.
    #[serde(default)]
    pub(crate) services: std::collections::BTreeMap<String, String>,
    /// Seconds of untimed calls before a server's first point (a JVM's JIT warm-up).
    #[serde(default)]
    pub(crate) warmup_s: Option<f64>,
    /// A SOAP server that is ready only once it has printed `listening on`, not when its port
    /// opens (CXF's Jetty accepts, and answers 404, before the endpoint is published). CORBA and
    /// RMI servers always wait for it.
    #[serde(default)]
    pub(crate) banner: bool,
}

/// A system that appears in the results: soapstone, a baseline or a peer, with its version and
/// how it was set up (`results.json` → `systems`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SystemInfo {
    /// The id used as `system` in the runs (`soapstone`, `gsoap`, `php-soapclient`, ...).
    pub id: String,
    /// Human name with version (`gSOAP 2.8 (C++)`).
    pub name: String,
    /// `server`, `client`, or `baseline`.
    pub role: String,
    /// `soap-http`, `corba`, `rmi`, or the baseline's transport.
    pub transport: String,
    /// What it stands for in the seeds' tables.
    pub stands_for: String,
    /// `ready`, `missing`, `failed` (set up but its check or start failed in this run), or
    /// `unmeasured` (ready, but no experiment of this run uses it).
    pub status: String,
    /// Why it is missing or failed.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
    /// Version as installed.
    #[serde(default)]
    pub version: String,
    /// How it was installed.
    #[serde(default)]
    pub installed_via: String,
    /// Build flags.
    #[serde(default)]
    pub build: String,
    /// Configuration: thread model, JVM flags, warm-up.
    #[serde(default)]
    pub config: String,
}

/// `1,234 untimed calls answered in 20 s; 40 calls/s in its first second, 2,100 in its last`:
/// the seconds of `timeline` that are whole (a last partial second is left out of the rates).
pub(crate) fn describe_server_warmup(seconds: f64, timeline: &[crate::results::Second]) -> String {
    let calls: u64 = timeline.iter().map(|s| s.ok).sum();
    let whole: Vec<&crate::results::Second> = timeline
        .iter()
        .filter(|s| s.t + 1.0 <= seconds + 1e-6)
        .collect();
    let mut out = format!(
        "{} untimed calls answered in {} s",
        crate::report::fmt::count(calls as f64),
        crate::report::fmt::count(seconds)
    );
    if let (Some(first), Some(last)) = (whole.first(), whole.last()) {
        if whole.len() > 1 {
            out.push_str(&format!(
                "; {} calls/s in its first second, {} in its last",
                crate::report::fmt::count(first.ok as f64),
                crate::report::fmt::count(last.ok as f64)
            ));
        }
    }
    out
}

/// The default manifest location, relative to the working directory.
pub(crate) const DEFAULT_MANIFEST: &str = "lab/peers/build/manifest.json";

/// What the lab found: the peers ready to run, and every system's status for `results.json`.
#[derive(Debug, Clone, Default)]
pub(crate) struct Discovery {
    pub(crate) ready: Vec<ManifestPeer>,
    pub(crate) systems: Vec<SystemInfo>,
    /// How long `setup.sh` took when it wrote the manifest, and when.
    pub(crate) setup: Option<(f64, String)>,
}

impl Discovery {
    /// Reads `manifest` (if any) and merges it with the catalogue. `None` means peers were
    /// turned off (`--peers none`): nothing is listed.
    pub(crate) fn load(manifest: Option<&Path>) -> Discovery {
        let Some(path) = manifest else {
            return Discovery::default();
        };
        let parsed = std::fs::read_to_string(path)
            .map_err(|e| {
                format!(
                    "no peer manifest at `{}` ({e}): run lab/peers/setup.sh",
                    path.display()
                )
            })
            .and_then(|text| {
                serde_json::from_str::<Manifest>(&text).map_err(|e| {
                    format!("the peer manifest `{}` does not parse: {e}", path.display())
                })
            });
        Discovery::from_manifest(parsed)
    }

    fn from_manifest(parsed: Result<Manifest, String>) -> Discovery {
        let mut d = Discovery::default();
        let (peers, missing_all) = match parsed {
            Ok(m) => {
                if let (Some(s), Some(c)) = (m.setup_seconds, m.created.clone()) {
                    d.setup = Some((s, c));
                }
                (m.peers, None)
            }
            Err(reason) => (Vec::new(), Some(reason)),
        };
        for p in &peers {
            let ready = p.status == "ready" && !p.command.is_empty();
            d.systems.push(SystemInfo {
                id: p.id.clone(),
                name: p.name.clone(),
                role: p.role.clone(),
                transport: p.transport.clone(),
                stands_for: p.stands_for.clone(),
                status: if ready { "unmeasured" } else { "missing" }.to_owned(),
                reason: if ready || !p.reason.is_empty() {
                    p.reason.clone()
                } else {
                    "the manifest gives no command".to_owned()
                },
                version: p.version.clone(),
                installed_via: p.installed_via.clone(),
                build: p.build.clone(),
                config: p.config.clone(),
            });
            if ready {
                d.ready.push(p.clone());
            }
        }
        for (id, role, transport, name, stands_for) in CATALOGUE {
            if peers.iter().any(|p| p.id == *id) {
                continue;
            }
            let built_by_setup = !NOT_BUILT.contains(id);
            let reason = match (&missing_all, built_by_setup) {
                (_, false) => NOT_YET.to_owned(),
                (Some(r), true) => r.clone(),
                (None, true) => {
                    "not in the peer manifest (setup.sh --only left it out?)".to_owned()
                }
            };
            d.systems.push(SystemInfo {
                id: (*id).to_owned(),
                name: (*name).to_owned(),
                role: (*role).to_owned(),
                transport: (*transport).to_owned(),
                stands_for: (*stands_for).to_owned(),
                status: "missing".to_owned(),
                reason,
                version: String::new(),
                installed_via: String::new(),
                build: String::new(),
                config: String::new(),
            });
        }
        d
    }

    /// The ready peers with `role` and `transport`.
    pub(crate) fn ready(&self, role: &str, transport: &str) -> Vec<ManifestPeer> {
        self.ready
            .iter()
            .filter(|p| p.role == role && p.transport == transport)
            .cloned()
            .collect()
    }

    /// The ready SOAP server peers that carry `service` (`wsb`, `contacts`, `echo`).
    pub(crate) fn carrying(&self, service: &str) -> Vec<ManifestPeer> {
        self.ready
            .iter()
            .filter(|p| p.role == "server" && p.services.contains_key(service))
            .cloned()
            .collect()
    }

    /// The ready client peer that calls the server peer `server` (CORBA, RMI).
    pub(crate) fn client_of(&self, server: &str) -> Option<ManifestPeer> {
        self.ready
            .iter()
            .find(|p| p.client_of.as_deref() == Some(server))
            .cloned()
    }

    /// Adds the warm-up a client peer measured at its first point (`op`) to its configuration,
    /// once: what `results.json` and the peers table say about a JVM's JIT warm-up.
    pub(crate) fn note_warmup(&mut self, id: &str, op: &str, warmup: &client::Warmup) {
        const MARK: &str = "measured warm-up";
        if let Some(s) = self.systems.iter_mut().find(|s| s.id == id) {
            if !s.config.contains(MARK) {
                let sep = if s.config.is_empty() { "" } else { "; " };
                s.config = format!("{}{sep}{MARK} ({op}): {}", s.config, warmup.describe());
            }
        }
    }

    /// Records how a server's untimed warm-up with `op` went in `experiment` (once per
    /// experiment): the calls answered over the `seconds` it ran, and the rate of its first and
    /// last whole seconds (a JIT still compiling shows as a last second much faster than the
    /// first). One operation's calls only: rates of different operations do not compare.
    pub(crate) fn note_server_warmup(
        &mut self,
        id: &str,
        experiment: &str,
        op: &str,
        seconds: f64,
        timeline: &[crate::results::Second],
    ) {
        let mark = format!("measured server warm-up ({experiment})");
        let Some(s) = self.systems.iter_mut().find(|s| s.id == id) else {
            return;
        };
        if s.config.contains(&mark) {
            return;
        }
        let sep = if s.config.is_empty() { "" } else { "; " };
        s.config = format!(
            "{}{sep}{mark}: {op}: {}",
            s.config,
            describe_server_warmup(seconds, timeline)
        );
    }

    /// Records the outcome of using a peer in this run: measured, or failed with a reason.
    pub(crate) fn mark(&mut self, id: &str, failure: Option<String>) {
        if let Some(s) = self.systems.iter_mut().find(|s| s.id == id) {
            match failure {
                None if s.status == "unmeasured" => s.status = "ready".to_owned(),
                None => {}
                Some(r) => {
                    s.status = "failed".to_owned();
                    if s.reason.is_empty() {
                        s.reason = r;
                    }
                }
            }
        }
    }
}

/// The manifest path from the `--peers` argument: `none` turns peers off.
pub(crate) fn manifest_arg(arg: Option<&str>) -> Option<PathBuf> {
    match arg {
        Some(a) if a.eq_ignore_ascii_case("none") => None,
        Some(a) => Some(PathBuf::from(a)),
        None => Some(PathBuf::from(DEFAULT_MANIFEST)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MANIFEST: &str = r#"{"schema":1,"created":"2026-01-01T00:00:00Z","setup_seconds":12.5,
      "peers":[
        {"id":"gsoap","role":"server","transport":"soap-http","name":"gSOAP","stands_for":"x",
         "status":"ready","reason":"","version":"2.8.124","installed_via":"Debian","build":"-O2",
         "config":"one thread","command":["/bin/gsoap","{port}"],"path":"/dp","request":"rpc-encoded",
         "services":{"wsb":"/wsb/{service}","echo":"/echo"}},
        {"id":"php-soapserver","role":"server","transport":"soap-http","name":"PHP","stands_for":"y",
         "status":"missing","reason":"php-soap is not installed","version":"","installed_via":"",
         "build":"","config":""},
        {"id":"omniorb-client","role":"client","transport":"corba","status":"ready",
         "command":["/bin/c"],"client_of":"omniorb"}
      ]}"#;

    #[test]
    fn a_manifest_is_merged_with_the_catalogue() {
        let d = Discovery::from_manifest(Ok(serde_json::from_str(MANIFEST).unwrap()));
        assert_eq!(d.setup, Some((12.5, "2026-01-01T00:00:00Z".to_owned())));
        let ids: Vec<&str> = d.ready.iter().map(|p| p.id.as_str()).collect();
        assert_eq!(ids, ["gsoap", "omniorb-client"]);
        let sys = |id: &str| d.systems.iter().find(|s| s.id == id).unwrap();
        assert_eq!(sys("gsoap").status, "unmeasured");
        assert_eq!(sys("gsoap").version, "2.8.124");
        assert_eq!(sys("php-soapserver").status, "missing");
        assert_eq!(sys("php-soapserver").reason, "php-soap is not installed");
        // Not in the manifest: listed, with why.
        assert_eq!(sys("zeep").status, "missing");
        assert!(
            sys("zeep").reason.contains("not in the peer manifest"),
            "{:?}",
            sys("zeep")
        );
        // Every peer is built by setup.sh now (the JVM, Mono and Erlang ones too): absent from
        // a manifest means left out.
        for id in [
            "mono-asmx",
            "mono-client",
            "erlang",
            "cxf",
            "axis2",
            "apache-soap",
            "jacorb",
            "jacorb-client",
            "java-client",
        ] {
            assert!(
                sys(id).reason.contains("not in the peer manifest"),
                "{:?}",
                sys(id)
            );
        }
        assert_eq!(d.client_of("omniorb").unwrap().id, "omniorb-client");
        // The seeds' other services: only the peers that list them.
        let wsb: Vec<String> = d.carrying("wsb").into_iter().map(|p| p.id).collect();
        assert_eq!(wsb, ["gsoap"]);
        assert_eq!(d.ready[0].services["wsb"], "/wsb/{service}");
        assert!(d.carrying("contacts").is_empty());
        assert_eq!(d.ready("server", "soap-http").len(), 1);
        // Every catalogue entry is listed exactly once.
        for (id, ..) in CATALOGUE {
            assert_eq!(d.systems.iter().filter(|s| s.id == *id).count(), 1, "{id}");
        }
    }

    #[test]
    fn a_missing_manifest_lists_every_peer_with_the_reason() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("manifest.json");
        let d = Discovery::load(Some(&path));
        assert!(d.ready.is_empty());
        assert_eq!(d.systems.len(), CATALOGUE.len());
        let gsoap = d.systems.iter().find(|s| s.id == "gsoap").unwrap();
        assert!(gsoap.reason.contains("run lab/peers/setup.sh"), "{gsoap:?}");
        std::fs::write(&path, "{not json").unwrap();
        let d = Discovery::load(Some(&path));
        assert!(
            d.systems[0].reason.contains("does not parse"),
            "{:?}",
            d.systems[0]
        );
        assert!(Discovery::load(None).systems.is_empty());
    }

    #[test]
    fn marking_a_peer() {
        let mut d = Discovery::from_manifest(Ok(serde_json::from_str(MANIFEST).unwrap()));
        d.mark("gsoap", None);
        assert_eq!(d.systems[0].status, "ready");
        d.mark("omniorb-client", Some("wrong answer".into()));
        let s = d.systems.iter().find(|s| s.id == "omniorb-client").unwrap();
        assert_eq!(
            (s.status.as_str(), s.reason.as_str()),
            ("failed", "wrong answer")
        );
        let w = client::Warmup {
            calls: 95,
            first_call_us: 411_128.9,
            seconds: 1.0,
        };
        d.note_warmup("gsoap", "doNothing", &w);
        d.note_warmup("gsoap", "getString/800", &w);
        assert_eq!(
            d.systems[0].config,
            "one thread; measured warm-up (doNothing): the first call took 411.1 ms cold, \
             then 95 untimed calls in 1 s"
        );
        let sec = |t: f64, ok: u64| crate::results::Second {
            t,
            requests: ok,
            ok,
            errors: 0,
        };
        // 2.5 s of warm-up: the partial last second counts in the calls, not in the rates.
        let timeline = [sec(0.0, 40), sec(1.0, 2100), sec(2.0, 1000)];
        d.note_server_warmup("gsoap", "dp", "doNothing", 2.5, &timeline);
        d.note_server_warmup("gsoap", "dp", "getString/800", 9.0, &[]);
        let s = &d.systems[0];
        assert!(
            s.config.ends_with(
                "; measured server warm-up (dp): doNothing: 3,140 untimed calls answered in 2.5 \
                 s; 40 calls/s in its first second, 2,100 in its last"
            ),
            "{}",
            s.config
        );
        assert_eq!(
            describe_server_warmup(0.5, &[sec(0.0, 7)]),
            "7 untimed calls answered in 0.5 s"
        );
        assert_eq!(manifest_arg(Some("none")), None);
        assert_eq!(
            manifest_arg(None),
            Some(PathBuf::from("lab/peers/build/manifest.json"))
        );
    }
}
