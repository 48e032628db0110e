//! The lab's validated configuration: which experiments, how long each measurement lasts, which
//! CPUs, where to write. [`LabArgs`](crate::LabArgs) is parsed into this in one place
//! ([`LabConfig::from_args`]) so everything after it can trust the values.
//!
//! The presets are designed for this project's 2-core machines: `--quick` must finish in under
//! five minutes, the full run in under thirty (see the budget in `docs/lab.md`). This module must
//! never start anything; it only describes.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

use anyhow::{bail, Context as _};

/// One of the lab's experiments (one per seed study, the thesis has two).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Experiment {
    /// Echo: Sam Ruby's echoFloat messages per second (seed 002). Feeds the headline.
    Echo,
    /// Davis & Parashar: doNothing/getString/getIntegers latency vs the baselines (seed 001).
    Dp,
    /// Elfwing & Paulsson tables 1-2: charging calls under none/stress/peak/traffic (seed 000).
    Thesis,
    /// Zilora & Ketha table 3: one n-contact call vs n one-contact calls (seed 003).
    Contacts,
    /// García et al. Fig. 6 and 11: test1/test2 load tests on card, news, shop (seed 004).
    Wsb,
    /// García et al. Figs 14-16: test2 on news and shop with the servers' response cache off
    /// and on (soapstone, the Erlang stand-in), Axis2 beside them as the paper's reference.
    WsbCache,
    /// Elfwing & Paulsson table 3: parse times of DOM and streaming parsers (seed 000).
    Parse,
    /// Zilora & Ketha tables 1a/1b: the client language varies against one server (seed 003),
    /// with the peer clients of `lab/peers/`.
    Clients,
    /// The seeds' causes on purpose (thesis Tables 4-5, Davis & Parashar, Ruby): each cured
    /// and on, with the packets of each call captured.
    Causes,
    /// Beyond one machine (issue 14): charging replicas behind HAProxy on PostgreSQL, their
    /// throughput per replica count, the balancer hop, a replica SIGKILLed and PostgreSQL
    /// restarted under load. Needs haproxy and the PostgreSQL server binaries.
    Cluster,
    /// Issue 11's TLS row: echoFloat round trip and throughput over https against plain http.
    Tls,
    /// The SOAPBuilders Round 2 base echoes (2001) on soapstone and every peer carrying them:
    /// each answer checked, then a short latency point; the interop table redrawn live.
    Round2,
}

impl Experiment {
    /// Every experiment, in the order the lab runs them and the report shows them.
    pub const ALL: [Experiment; 12] = [
        Experiment::Echo,
        Experiment::Round2,
        Experiment::Dp,
        Experiment::Thesis,
        Experiment::Contacts,
        Experiment::Wsb,
        Experiment::WsbCache,
        Experiment::Parse,
        Experiment::Clients,
        Experiment::Causes,
        Experiment::Cluster,
        Experiment::Tls,
    ];

    /// Whether `--quick` runs it without `--only` (the cluster experiment takes ~2 minutes even
    /// quick: several clusters are started and torn down).
    pub fn in_quick(self) -> bool {
        !matches!(self, Experiment::Cluster)
    }

    /// The id used on the command line and in `results.json`.
    pub fn id(self) -> &'static str {
        match self {
            Experiment::Echo => "echo",
            Experiment::Dp => "dp",
            Experiment::Thesis => "thesis",
            Experiment::Contacts => "contacts",
            Experiment::Wsb => "wsb",
            Experiment::WsbCache => "wsb_cache",
            Experiment::Parse => "parse",
            Experiment::Clients => "clients",
            Experiment::Causes => "causes",
            Experiment::Cluster => "cluster",
            Experiment::Tls => "tls",
            Experiment::Round2 => "round2",
        }
    }
}

impl fmt::Display for Experiment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

impl FromStr for Experiment {
    type Err = anyhow::Error;

    fn from_str(s: &str) -> anyhow::Result<Self> {
        Ok(match s.trim().to_ascii_lowercase().as_str() {
            "echo" | "ruby" | "echofloat" => Experiment::Echo,
            "dp" | "davis-parashar" | "davis" => Experiment::Dp,
            "thesis" | "charging" | "elfwing" => Experiment::Thesis,
            "contacts" | "zilora" | "zk" => Experiment::Contacts,
            "wsb" | "garcia" => Experiment::Wsb,
            "wsb_cache" | "wsb-cache" | "cache" | "garcia-cache" => Experiment::WsbCache,
            "parse" | "parsers" => Experiment::Parse,
            "clients" | "client-language" => Experiment::Clients,
            "causes" | "packets" | "trace" => Experiment::Causes,
            "cluster" | "replicas" | "haproxy" => Experiment::Cluster,
            "tls" | "https" => Experiment::Tls,
            "round2" | "interop" | "soapbuilders" => Experiment::Round2,
            other => bail!(
                "unknown experiment `{other}`: expected one of echo, dp, thesis, contacts, wsb, \
                 wsb_cache, parse, clients, causes, cluster, tls, round2"
            ),
        })
    }
}

/// How long each kind of measurement lasts.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Timing {
    /// Measured window of one latency point (dp, contacts). Default: `0.6 s` quick, `3 s` full.
    pub latency_window: Duration,
    /// Warm-up before each point, not counted. Default: `0.2 s` quick, `1 s` full.
    pub warmup: Duration,
    /// Measured window of one echoFloat point (Ruby counted 10 s after a 1 s warm-up).
    /// Default: `2 s` quick, `10 s` full.
    pub echo_window: Duration,
    /// Measured window per charging operation and background load. Default: `0.5 s` quick,
    /// `3 s` full.
    pub thesis_window: Duration,
    /// Time scale of García's test1/test2 (their 5-minute schedules times this).
    /// Default: `0.02` quick (6 s each), `0.2` full (60 s each).
    pub wsb_scale: f64,
    /// Measured window per document and parser in the parse experiment. Default: `0.15 s`
    /// quick, `1 s` full.
    pub parse_window: Duration,
    /// Calls captured per operation and mode in the causes section (a call with every cause on
    /// costs ~350 ms; 30 is the fewest the report does not call suspect). Default: `30` quick,
    /// `60` full.
    pub causes_calls: usize,
    /// Uncaptured calls before them on a keep-alive connection, so that it has left Linux's
    /// quick-ACK mode. Default: `5` quick, `20` full.
    pub causes_warmup: usize,
    /// Measured window of each cluster point (replica counts, balancer hop), and the length of
    /// the failover and PostgreSQL-restart runs is derived from it. Default: `2 s` quick,
    /// `5 s` full.
    pub cluster_window: Duration,
}

impl Timing {
    /// The `--quick` preset.
    pub fn quick() -> Timing {
        Timing {
            latency_window: Duration::from_millis(600),
            warmup: Duration::from_millis(200),
            echo_window: Duration::from_secs(2),
            thesis_window: Duration::from_millis(500),
            wsb_scale: 0.02,
            parse_window: Duration::from_millis(150),
            causes_calls: 30,
            causes_warmup: 5,
            cluster_window: Duration::from_secs(2),
        }
    }

    /// The full preset.
    pub fn full() -> Timing {
        Timing {
            latency_window: Duration::from_secs(3),
            warmup: Duration::from_secs(1),
            echo_window: Duration::from_secs(10),
            thesis_window: Duration::from_secs(3),
            wsb_scale: 0.2,
            parse_window: Duration::from_secs(1),
            causes_calls: 60,
            causes_warmup: 20,
            cluster_window: Duration::from_secs(5),
        }
    }
}

/// Everything a lab run needs.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct LabConfig {
    /// The `soapstone` executable to spawn for servers and clients.
    /// Default: the running executable.
    pub exe: PathBuf,
    /// Output directory. Default: `lab-out`.
    pub out: PathBuf,
    /// Whether the quick preset was chosen.
    pub quick: bool,
    /// Experiments to run, in order. Default: all.
    pub experiments: Vec<Experiment>,
    /// Durations.
    pub timing: Timing,
    /// CPU for the servers (and the client in same-CPU runs). Default: `0`.
    pub server_cpu: String,
    /// CPU for the client in cross-CPU runs and for background load. Default: `1`.
    pub other_cpu: String,
    /// Where criterion's results are read from for the parse experiment, if present.
    /// Default: `target/criterion`.
    pub criterion_dir: PathBuf,
    /// The peer manifest written by `lab/peers/setup.sh`; `None` runs no peer and lists none.
    /// Default: `lab/peers/build/manifest.json` (relative to the working directory).
    pub peers: Option<PathBuf>,
    /// The emulated LAN of the separate-host tables ([`crate::netem`]); `None` skips them.
    /// Default: `Some(LanSpec::default())` (10 Mbit/s, 50 µs each way), with this executable
    /// as its delay line.
    pub lan: Option<crate::netem::LanSpec>,
}

impl LabConfig {
    /// The defaults for a run of `exe` (full preset, all experiments).
    pub fn new(exe: PathBuf) -> LabConfig {
        LabConfig {
            lan: Some(crate::netem::LanSpec::default().with_delay_line(&exe)),
            exe,
            out: PathBuf::from("lab-out"),
            quick: false,
            experiments: Experiment::ALL.to_vec(),
            timing: Timing::full(),
            server_cpu: "0".to_owned(),
            other_cpu: "1".to_owned(),
            criterion_dir: PathBuf::from("target/criterion"),
            peers: crate::peers::manifest_arg(None),
        }
    }

    /// Validates command-line arguments into a configuration.
    pub fn from_args(args: &crate::LabArgs) -> anyhow::Result<LabConfig> {
        let exe = match &args.exe {
            Some(p) => p.clone(),
            None => std::env::current_exe().context("cannot find the soapstone executable")?,
        };
        let mut cfg = LabConfig::new(exe);
        cfg.out = args.out.clone();
        cfg.quick = args.quick;
        cfg.timing = if args.quick {
            Timing::quick()
        } else {
            Timing::full()
        };
        if !args.only.is_empty() {
            let mut exps = Vec::new();
            for s in &args.only {
                let e: Experiment = s.parse()?;
                if !exps.contains(&e) {
                    exps.push(e);
                }
            }
            exps.sort();
            cfg.experiments = exps;
        } else if args.quick {
            cfg.experiments.retain(|e| e.in_quick());
        }
        if let Some(d) = &args.duration {
            let d = parse_duration(d).context("invalid `--duration`")?;
            let t = &mut cfg.timing;
            t.latency_window = d;
            t.echo_window = d;
            t.thesis_window = d;
            t.parse_window = d;
            t.cluster_window = d;
        }
        if let Some(w) = &args.warmup {
            cfg.timing.warmup = parse_duration_allow_zero(w).context("invalid `--warmup`")?;
        }
        if let Some(s) = args.wsb_scale {
            if !(s.is_finite() && s > 0.0 && s <= 1.0) {
                bail!("invalid `--wsb-scale` `{s}`: expected a number in (0, 1]");
            }
            cfg.timing.wsb_scale = s;
        }
        let (a, b) = args.cpus.split_once(',').with_context(|| {
            format!(
                "invalid `--cpus` `{}`: expected two CPU ids like `0,1`",
                args.cpus
            )
        })?;
        for c in [a, b] {
            c.trim()
                .parse::<u16>()
                .with_context(|| format!("invalid CPU id `{c}` in `--cpus`"))?;
        }
        if a.trim() == b.trim() {
            bail!("`--cpus` needs two different CPUs, got `{}`", args.cpus);
        }
        cfg.server_cpu = a.trim().to_owned();
        cfg.other_cpu = b.trim().to_owned();
        if let Some(d) = &args.criterion_dir {
            cfg.criterion_dir = d.clone();
        }
        cfg.peers = crate::peers::manifest_arg(args.peers.as_deref());
        let mut lan = crate::netem::LanSpec::default().with_delay_line(cfg.exe.clone());
        if let Some(r) = args.lan_rate_mbit {
            if !(1..=100_000).contains(&r) {
                bail!("invalid `--lan-rate-mbit` `{r}`: expected Mbit/s in `1..=100000`");
            }
            lan = lan.with_rate(r);
        }
        if let Some(d) = args.lan_delay_us {
            if d > 1_000_000 {
                bail!("invalid `--lan-delay-us` `{d}`: expected µs in `0..=1000000`");
            }
            lan = lan.with_delay_us(d);
        }
        cfg.lan = match args.lan.trim().to_ascii_lowercase().as_str() {
            "on" => Some(lan),
            "off" => None,
            other => bail!("unknown `--lan` value `{other}`: expected `on` or `off`"),
        };
        Ok(cfg)
    }
}

/// Parses `0.2s`, `200ms`, `2`, `1m` (a bare number is seconds); must be positive.
pub fn parse_duration(s: &str) -> anyhow::Result<Duration> {
    let d = parse_duration_allow_zero(s)?;
    if d.is_zero() {
        bail!("duration `{s}` must be positive");
    }
    Ok(d)
}

fn parse_duration_allow_zero(s: &str) -> anyhow::Result<Duration> {
    let t = s.trim();
    let (num, mult) = if let Some(n) = t.strip_suffix("ms") {
        (n, 0.001)
    } else if let Some(n) = t.strip_suffix('s') {
        (n, 1.0)
    } else if let Some(n) = t.strip_suffix('m') {
        (n, 60.0)
    } else {
        (t, 1.0)
    };
    let v: f64 = num
        .trim()
        .parse()
        .ok()
        .filter(|v: &f64| v.is_finite() && *v >= 0.0)
        .with_context(|| format!("invalid duration `{s}`: expected e.g. `0.2s`, `200ms`, `1m`"))?;
    Ok(Duration::from_secs_f64(v * mult))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("0.2s").unwrap(), Duration::from_millis(200));
        assert_eq!(parse_duration("200ms").unwrap(), Duration::from_millis(200));
        assert_eq!(parse_duration("2").unwrap(), Duration::from_secs(2));
        assert_eq!(parse_duration("1m").unwrap(), Duration::from_secs(60));
        assert!(parse_duration("0s").is_err());
        let e = parse_duration("fast").unwrap_err().to_string();
        assert!(e.contains("`fast`"), "{e}");
        assert!(parse_duration("-1s").is_err());
    }

    #[test]
    fn experiments_parse() {
        assert_eq!("ECHO".parse::<Experiment>().unwrap(), Experiment::Echo);
        assert_eq!("garcia".parse::<Experiment>().unwrap(), Experiment::Wsb);
        let e = "nope".parse::<Experiment>().unwrap_err().to_string();
        assert!(e.contains("`nope`"), "{e}");
        for e in Experiment::ALL {
            assert_eq!(e.id().parse::<Experiment>().unwrap(), e);
        }
    }

    #[test]
    fn quick_leaves_the_cluster_out_unless_asked() {
        use clap::Parser as _;
        #[derive(clap::Parser)]
        struct Cli {
            #[command(flatten)]
            lab: crate::LabArgs,
        }
        let parse = |args: &[&str]| {
            let a =
                Cli::try_parse_from(std::iter::once("lab").chain(args.iter().copied())).unwrap();
            LabConfig::from_args(&a.lab).unwrap().experiments
        };
        assert!(!parse(&["--quick"]).contains(&Experiment::Cluster));
        assert!(parse(&[]).contains(&Experiment::Cluster));
        assert_eq!(
            parse(&["--quick", "--only", "cluster"]),
            vec![Experiment::Cluster]
        );
    }
}
