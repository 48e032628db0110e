//! Every limit of `soapstone serve` as a flag and as a key of a TOML file (`--config FILE`).
//!
//! The server's HTTP bounds ([`ServerConfig`]), the XML bounds of the codec
//! ([`soapstone_codec::Limits`]) and the service's own ([`ServiceConfig`]) are set in one place
//! so that a user who must accept a 10 MB message finds every knob that stands in the way. The
//! defaults stay the safe ones of each crate; a flag overrides the file, the file overrides the
//! default. Values are checked before anything starts (`soapstone serve` exits with code 2 on a
//! bad one, naming the flag). Must never: accept an unbounded limit or a zero one where zero
//! would refuse everything (zero multi-ref bytes is a policy, allowed), or let a value from
//! the file silently lose to a default.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

use anyhow::Context as _;
use serde::Deserialize;
use soapstone_server::ServerConfig;
use soapstone_service::ServiceConfig;

use crate::charging::ChargingPolicy;

/// A byte size: `65536`, `64KiB`, `4 MiB`, `1GiB` (binary) or `10MB` (decimal).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Size(pub u64);

impl FromStr for Size {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let t = s.trim();
        let split = t
            .find(|c: char| !c.is_ascii_digit() && c != '_')
            .unwrap_or(t.len());
        let (num, unit) = t.split_at(split);
        let num: u64 = num
            .replace('_', "")
            .parse()
            .map_err(|_| format!("bad size `{s}`: expected a number of bytes like `4MiB`"))?;
        let mult: u64 = match unit.trim().to_ascii_lowercase().as_str() {
            "" | "b" => 1,
            "kib" => 1 << 10,
            "mib" => 1 << 20,
            "gib" => 1 << 30,
            "kb" => 1_000,
            "mb" => 1_000_000,
            "gb" => 1_000_000_000,
            _ => {
                return Err(format!(
                    "bad size unit `{}` in `{s}`: use B, KiB, MiB, GiB, KB, MB or GB",
                    unit.trim()
                ))
            }
        };
        num.checked_mul(mult)
            .map(Size)
            .ok_or_else(|| format!("size `{s}` is too large"))
    }
}

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.0;
        match n {
            _ if n >= 1 << 30 && n.is_multiple_of(1 << 30) => write!(f, "{}GiB", n >> 30),
            _ if n >= 1 << 20 && n.is_multiple_of(1 << 20) => write!(f, "{}MiB", n >> 20),
            _ if n >= 1 << 10 && n.is_multiple_of(1 << 10) => write!(f, "{}KiB", n >> 10),
            _ => write!(f, "{n}B"),
        }
    }
}

/// A duration: `500ms`, `10s`, `2m`, `1h`; a bare number is seconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Secs(pub Duration);

impl FromStr for Secs {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let t = s.trim();
        let split = t
            .find(|c: char| !c.is_ascii_digit() && c != '.')
            .unwrap_or(t.len());
        let (num, unit) = t.split_at(split);
        let bad = || format!("bad duration `{s}`: expected e.g. `500ms`, `10s`, `2m`");
        let num: f64 = num.parse().map_err(|_| bad())?;
        let secs = match unit.trim() {
            "" | "s" => num,
            "ms" => num / 1000.0,
            "m" | "min" => num * 60.0,
            "h" => num * 3600.0,
            _ => return Err(bad()),
        };
        Duration::try_from_secs_f64(secs)
            .map(Secs)
            .map_err(|_| bad())
    }
}

/// A duration that can be turned off: `5ms`, or `off`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Toggle {
    /// Off.
    Off,
    /// On, with this duration.
    On(Secs),
}

impl FromStr for Toggle {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim() {
            "off" | "none" => Ok(Toggle::Off),
            other => other.parse().map(Toggle::On),
        }
    }
}

impl<'de> Deserialize<'de> for Toggle {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match Raw::deserialize(d)? {
            Raw::Int(n) => Ok(Toggle::On(Secs(Duration::from_secs(n)))),
            Raw::Text(s) => s.parse().map_err(serde::de::Error::custom),
        }
    }
}

/// TOML gives a size or duration as a string (`"4MiB"`) or an integer (bytes, seconds).
#[derive(Deserialize)]
#[serde(untagged)]
enum Raw {
    Int(u64),
    Text(String),
}

impl<'de> Deserialize<'de> for Size {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match Raw::deserialize(d)? {
            Raw::Int(n) => Ok(Size(n)),
            Raw::Text(s) => s.parse().map_err(serde::de::Error::custom),
        }
    }
}

impl<'de> Deserialize<'de> for Secs {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match Raw::deserialize(d)? {
            Raw::Int(n) => Ok(Secs(Duration::from_secs(n))),
            Raw::Text(s) => s.parse().map_err(serde::de::Error::custom),
        }
    }
}

/// The limits of `soapstone serve`. Every field is optional: unset means the file's value, and
/// without one the default given here. As TOML keys they are spelled like the flags without
/// `--` (`max-body-bytes = "16MiB"`).
#[derive(Debug, Clone, Default, clap::Args, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
#[non_exhaustive]
pub struct LimitArgs {
    /// A TOML file with any of the limit flags below as keys (flags given here win).
    #[arg(long, value_name = "FILE")]
    #[serde(skip)]
    pub config: Option<PathBuf>,
    /// Largest request body, after decompression (bigger: 413), and largest document the XML
    /// decoder reads. [default: 4MiB]
    #[arg(long, value_name = "SIZE")]
    pub max_body_bytes: Option<Size>,
    /// Largest request head (bigger: 431). [default: 16KiB]
    #[arg(long, value_name = "SIZE")]
    pub max_header_bytes: Option<Size>,
    /// Most request headers (more: 431). [default: 100]
    #[arg(long, value_name = "N")]
    pub max_headers: Option<usize>,
    /// Most open connections; at the limit the longest-idle one is evicted to make room (503
    /// and close only when all are busy). [default: 4096]
    #[arg(long, value_name = "N")]
    pub max_connections: Option<usize>,
    /// Most open connections from one peer IP address; past it the peer's own longest-idle
    /// connection is evicted (or the new one refused with 503). [default: 1024]
    #[arg(long, value_name = "N")]
    pub max_connections_per_ip: Option<usize>,
    /// The listen backlog asked of the kernel (Linux caps it at net.core.somaxconn).
    /// [default: 4096]
    #[arg(long, value_name = "N")]
    pub listen_backlog: Option<u32>,
    /// Most requests read or handled at once; more are answered 503 at once. [default: 512]
    #[arg(long, value_name = "N")]
    pub max_in_flight: Option<usize>,
    /// Queue-delay shedding (CoDel-like) target: when most requests of a whole interval waited
    /// longer, requests that waited more than twice it get 503; `off` disables it.
    /// [default: 20ms]
    #[arg(long, value_name = "DURATION|off")]
    pub queue_delay_target: Option<Toggle>,
    /// The window over which queue-delay shedding looks for a standing queue. [default: 200ms]
    #[arg(long, value_name = "DURATION")]
    pub queue_delay_interval: Option<Secs>,
    /// Time a client has to send a request head. [default: 10s]
    #[arg(long, value_name = "DURATION")]
    pub header_read_timeout: Option<Secs>,
    /// Time a client has to send a request body once its head is read (slower: 408).
    /// [default: 30s]
    #[arg(long, value_name = "DURATION")]
    pub body_read_timeout: Option<Secs>,
    /// Time a keep-alive connection may sit idle between requests. [default: 60s]
    #[arg(long, value_name = "DURATION")]
    pub idle_timeout: Option<Secs>,
    /// The Retry-After of a 503 (whole seconds, at least 1s). [default: 1s]
    #[arg(long, value_name = "DURATION")]
    pub retry_after: Option<Secs>,
    /// Time in-flight requests get to finish on shutdown. [default: 10s]
    #[arg(long, value_name = "DURATION", alias = "drain-seconds")]
    pub drain_timeout: Option<Secs>,
    /// On SIGTERM, time during which `/readyz` answers 503 while requests are still served, so
    /// that a load balancer takes the replica out before connections close. [default: 0s]
    #[arg(long, value_name = "DURATION")]
    pub drain_grace: Option<Secs>,
    /// Time after which an open charging reservation is released by itself (`off`: never).
    /// [default: 15m]
    #[arg(long, value_name = "DURATION|off")]
    pub reservation_ttl: Option<Toggle>,
    /// Time an idempotency key is remembered: a retry within it applies nothing again.
    /// [default: 24h]
    #[arg(long, value_name = "DURATION")]
    pub idempotency_retention: Option<Secs>,
    /// Deepest element nesting in a message. [default: 64]
    #[arg(long, value_name = "N")]
    pub max_depth: Option<usize>,
    /// Most attributes (namespace declarations included) on one element. [default: 64]
    #[arg(long, value_name = "N")]
    pub max_attributes: Option<usize>,
    /// Longest element or attribute name. [default: 256B]
    #[arg(long, value_name = "SIZE")]
    pub max_name_bytes: Option<Size>,
    /// Longest text node or attribute value (a string parameter). [default: 1MiB]
    #[arg(long, value_name = "SIZE")]
    pub max_text_bytes: Option<Size>,
    /// Most items in one array. [default: 1000000]
    #[arg(long, value_name = "N")]
    pub max_array_len: Option<usize>,
    /// Bytes of multi-ref (`href`) targets a decode may replay, per byte of the request.
    /// [default: 4]
    #[arg(long, value_name = "N")]
    pub reference_bytes_per_input_byte: Option<usize>,
    /// The constant part of that multi-ref budget. [default: 64KiB]
    #[arg(long, value_name = "SIZE")]
    pub reference_bytes_allowance: Option<Size>,
    /// Absolute cap of the multi-ref budget, whatever the request's size. [default: 64MiB]
    #[arg(long, value_name = "SIZE")]
    pub max_reference_bytes: Option<Size>,
    /// Largest response envelope (past it: a Server fault naming the limit, never a
    /// truncated answer). [default: 16MiB]
    #[arg(long, value_name = "SIZE")]
    pub max_response_bytes: Option<Size>,
    /// Responses kept per cached operation. [default: 1024]
    #[arg(long, value_name = "N")]
    pub cache_capacity: Option<usize>,
    /// Bytes (requests and answers) kept per cached operation; an answer larger than half of
    /// it is never kept. [default: 32MiB]
    #[arg(long, value_name = "SIZE")]
    pub cache_max_bytes: Option<Size>,
    /// How long a cached answer is served, from when it was computed (then computed again;
    /// `off`: never expires). [default: 60s]
    #[arg(long, value_name = "DURATION|off")]
    pub cache_ttl: Option<Toggle>,
    /// Accept what old toolkits send against the specifications (gSOAP's encodingStyle on a
    /// SOAP 1.2 Body, Axis 1.4 surrogate-pair references, PHP xsd:int booleans), logging each.
    /// [default: false]
    #[arg(long, value_name = "BOOL", num_args = 0..=1, default_missing_value = "true")]
    pub lenient: Option<bool>,
}

/// `soapstone serve`'s default drain (shorter than the library's 30 s: an interactive stop).
const DRAIN_DEFAULT: Duration = Duration::from_secs(10);
/// Largest body or document accepted by any setting: offsets must fit in 32 bits.
const MAX_BODY_CAP: u64 = 2 << 30;

impl LimitArgs {
    /// These flags over the values of `--config FILE` (if given).
    pub fn with_file(self) -> anyhow::Result<LimitArgs> {
        let Some(path) = self.config.clone() else {
            return Ok(self);
        };
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read `--config` file `{}`", path.display()))?;
        let file: LimitArgs = toml::from_str(&text)
            .map_err(|e| anyhow::anyhow!("{}", e.to_string().trim_end()))
            .with_context(|| format!("bad `--config` file `{}`", path.display()))?;
        Ok(self.over(file))
    }

    /// `self`'s values, and `base`'s where `self` has none.
    fn over(self, base: LimitArgs) -> LimitArgs {
        LimitArgs {
            config: None,
            max_body_bytes: self.max_body_bytes.or(base.max_body_bytes),
            max_header_bytes: self.max_header_bytes.or(base.max_header_bytes),
            max_headers: self.max_headers.or(base.max_headers),
            max_connections: self.max_connections.or(base.max_connections),
            max_connections_per_ip: self.max_connections_per_ip.or(base.max_connections_per_ip),
            listen_backlog: self.listen_backlog.or(base.listen_backlog),
            max_in_flight: self.max_in_flight.or(base.max_in_flight),
            queue_delay_target: self.queue_delay_target.or(base.queue_delay_target),
            queue_delay_interval: self.queue_delay_interval.or(base.queue_delay_interval),
            header_read_timeout: self.header_read_timeout.or(base.header_read_timeout),
            body_read_timeout: self.body_read_timeout.or(base.body_read_timeout),
            idle_timeout: self.idle_timeout.or(base.idle_timeout),
            retry_after: self.retry_after.or(base.retry_after),
            drain_timeout: self.drain_timeout.or(base.drain_timeout),
            drain_grace: self.drain_grace.or(base.drain_grace),
            reservation_ttl: self.reservation_ttl.or(base.reservation_ttl),
            idempotency_retention: self.idempotency_retention.or(base.idempotency_retention),
            max_depth: self.max_depth.or(base.max_depth),
            max_attributes: self.max_attributes.or(base.max_attributes),
            max_name_bytes: self.max_name_bytes.or(base.max_name_bytes),
            max_text_bytes: self.max_text_bytes.or(base.max_text_bytes),
            max_array_len: self.max_array_len.or(base.max_array_len),
            reference_bytes_per_input_byte: self
                .reference_bytes_per_input_byte
                .or(base.reference_bytes_per_input_byte),
            reference_bytes_allowance: self
                .reference_bytes_allowance
                .or(base.reference_bytes_allowance),
            max_reference_bytes: self.max_reference_bytes.or(base.max_reference_bytes),
            max_response_bytes: self.max_response_bytes.or(base.max_response_bytes),
            cache_capacity: self.cache_capacity.or(base.cache_capacity),
            cache_max_bytes: self.cache_max_bytes.or(base.cache_max_bytes),
            cache_ttl: self.cache_ttl.or(base.cache_ttl),
            lenient: self.lenient.or(base.lenient),
        }
    }

    /// Checks every value and writes it into the server's and the services' settings (fields
    /// left unset keep the defaults already there).
    pub fn apply(
        &self,
        server: &mut ServerConfig,
        service: &mut ServiceConfig,
    ) -> anyhow::Result<()> {
        server.drain_timeout = DRAIN_DEFAULT;
        let limits = &mut service.limits;
        if let Some(v) = self.max_body_bytes {
            let n = bytes("max-body-bytes", v, 1024, MAX_BODY_CAP)?;
            server.max_body_bytes = n;
            limits.max_document_bytes = n;
        }
        if let Some(v) = self.max_header_bytes {
            server.max_header_bytes = bytes("max-header-bytes", v, 1024, 1 << 20)?;
        }
        set(
            &mut server.max_headers,
            "max-headers",
            self.max_headers,
            1,
            10_000,
        )?;
        set(
            &mut server.max_connections,
            "max-connections",
            self.max_connections,
            1,
            1 << 20,
        )?;
        set(
            &mut server.max_in_flight,
            "max-in-flight",
            self.max_in_flight,
            1,
            1 << 20,
        )?;
        set(
            &mut server.max_connections_per_ip,
            "max-connections-per-ip",
            self.max_connections_per_ip,
            1,
            1 << 20,
        )?;
        if let Some(n) = self.listen_backlog {
            if !(1..=65_535).contains(&n) {
                anyhow::bail!("`--listen-backlog` must be between 1 and 65535, not {n}");
            }
            server.listen_backlog = n;
        }
        match self.queue_delay_target {
            Some(Toggle::Off) => server.queue_delay_target = None,
            Some(Toggle::On(Secs(d))) => {
                if d < Duration::from_micros(100) || d > Duration::from_secs(60) {
                    anyhow::bail!(
                        "`--queue-delay-target` must be between 100us and 60s (or `off`), not {d:?}"
                    );
                }
                server.queue_delay_target = Some(d);
            }
            None => {}
        }
        timeout(
            &mut server.queue_delay_interval,
            "queue-delay-interval",
            self.queue_delay_interval,
        )?;
        timeout(
            &mut server.header_read_timeout,
            "header-read-timeout",
            self.header_read_timeout,
        )?;
        timeout(
            &mut server.body_read_timeout,
            "body-read-timeout",
            self.body_read_timeout,
        )?;
        timeout(&mut server.idle_timeout, "idle-timeout", self.idle_timeout)?;
        if let Some(Secs(d)) = self.drain_timeout {
            if d > Duration::from_secs(24 * 3600) {
                anyhow::bail!("`--drain-timeout` of {d:?} is more than a day");
            }
            server.drain_timeout = d;
        }
        if let Some(Secs(d)) = self.drain_grace {
            if d > Duration::from_secs(3600) {
                anyhow::bail!("`--drain-grace` of {d:?} is more than an hour");
            }
            server.drain_grace = d;
        }
        if let Some(Secs(d)) = self.retry_after {
            if d < Duration::from_secs(1) || d > Duration::from_secs(24 * 3600) {
                anyhow::bail!("`--retry-after` must be between 1s and a day, not {d:?}");
            }
            server.retry_after = d;
        }
        // Envelope, Body and the operation element are three levels before any parameter.
        set(
            &mut limits.max_depth,
            "max-depth",
            self.max_depth,
            4,
            10_000,
        )?;
        set(
            &mut limits.max_attributes,
            "max-attributes",
            self.max_attributes,
            1,
            100_000,
        )?;
        if let Some(v) = self.max_name_bytes {
            limits.max_name_len = bytes("max-name-bytes", v, 8, 64 << 10)?;
        }
        if let Some(v) = self.max_text_bytes {
            limits.max_text_len = bytes("max-text-bytes", v, 1, MAX_BODY_CAP)?;
        }
        set(
            &mut limits.max_array_len,
            "max-array-len",
            self.max_array_len,
            1,
            u32::MAX as usize,
        )?;
        // zero is allowed here: no replays beyond the allowance (or none at all) is a policy
        set(
            &mut limits.reference_bytes_per_input_byte,
            "reference-bytes-per-input-byte",
            self.reference_bytes_per_input_byte,
            0,
            1024,
        )?;
        if let Some(v) = self.reference_bytes_allowance {
            limits.reference_bytes_allowance =
                bytes("reference-bytes-allowance", v, 0, MAX_BODY_CAP)?;
        }
        if let Some(v) = self.max_reference_bytes {
            limits.max_reference_bytes = bytes("max-reference-bytes", v, 0, 4 * MAX_BODY_CAP)?;
        }
        if let Some(v) = self.max_response_bytes {
            service.max_response_bytes = bytes("max-response-bytes", v, 1024, MAX_BODY_CAP)?;
        }
        set(
            &mut service.cache_capacity,
            "cache-capacity",
            self.cache_capacity,
            1,
            1 << 24,
        )?;
        if let Some(v) = self.cache_max_bytes {
            service.cache_max_bytes = bytes("cache-max-bytes", v, 1024, MAX_BODY_CAP)?;
        }
        match self.cache_ttl {
            Some(Toggle::Off) => service.cache_ttl = None,
            Some(Toggle::On(Secs(d))) => {
                if d < Duration::from_millis(10) || d > Duration::from_secs(365 * 24 * 3600) {
                    anyhow::bail!(
                        "`--cache-ttl` must be between 10ms and a year (or `off`), not {d:?}"
                    );
                }
                service.cache_ttl = Some(d);
            }
            None => {}
        }
        if let Some(on) = self.lenient {
            service.limits.lenient = if on {
                soapstone_codec::Lenient::all()
            } else {
                soapstone_codec::Lenient::STRICT
            };
        }
        Ok(())
    }
}

impl LimitArgs {
    /// The charging system's reservation expiry and key retention (checked).
    pub fn charging_policy(&self) -> anyhow::Result<ChargingPolicy> {
        let mut policy = ChargingPolicy::default();
        match self.reservation_ttl {
            Some(Toggle::Off) => policy.reservation_ttl = None,
            Some(Toggle::On(Secs(d))) => {
                if d < Duration::from_millis(100) || d > Duration::from_secs(365 * 24 * 3600) {
                    anyhow::bail!(
                        "`--reservation-ttl` must be between 100ms and a year (or `off`), not {d:?}"
                    );
                }
                policy.reservation_ttl = Some(d);
            }
            None => {}
        }
        if let Some(Secs(d)) = self.idempotency_retention {
            if d < Duration::from_secs(1) || d > Duration::from_secs(365 * 24 * 3600) {
                anyhow::bail!("`--idempotency-retention` must be between 1s and a year, not {d:?}");
            }
            policy.key_retention = d;
        }
        Ok(policy)
    }
}

fn bytes(flag: &str, v: Size, min: u64, max: u64) -> anyhow::Result<usize> {
    if v.0 < min || v.0 > max {
        anyhow::bail!(
            "`--{flag}` must be between {} and {}, not {}",
            Size(min),
            Size(max),
            v
        );
    }
    usize::try_from(v.0).with_context(|| format!("`--{flag}` {v} does not fit in memory"))
}

fn set(
    field: &mut usize,
    flag: &str,
    v: Option<usize>,
    min: usize,
    max: usize,
) -> anyhow::Result<()> {
    if let Some(n) = v {
        if n < min || n > max {
            anyhow::bail!("`--{flag}` must be between {min} and {max}, not {n}");
        }
        *field = n;
    }
    Ok(())
}

fn timeout(field: &mut Duration, flag: &str, v: Option<Secs>) -> anyhow::Result<()> {
    if let Some(Secs(d)) = v {
        if d < Duration::from_millis(10) || d > Duration::from_secs(24 * 3600) {
            anyhow::bail!("`--{flag}` must be between 10ms and a day, not {d:?}");
        }
        *field = d;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!("65536".parse::<Size>(), Ok(Size(65536)));
        assert_eq!("4MiB".parse::<Size>(), Ok(Size(4 << 20)));
        assert_eq!("4 mib".parse::<Size>(), Ok(Size(4 << 20)));
        assert_eq!("10MB".parse::<Size>(), Ok(Size(10_000_000)));
        assert_eq!("1_000".parse::<Size>(), Ok(Size(1000)));
        assert_eq!(
            "4MX".parse::<Size>().unwrap_err(),
            "bad size unit `MX` in `4MX`: use B, KiB, MiB, GiB, KB, MB or GB"
        );
        assert!("-1".parse::<Size>().is_err());
        assert!("99999999999999GiB".parse::<Size>().is_err());
        assert_eq!(Size(16 << 20).to_string(), "16MiB");
        assert_eq!(Size(1000).to_string(), "1000B");
    }

    #[test]
    fn durations() {
        assert_eq!("10".parse::<Secs>(), Ok(Secs(Duration::from_secs(10))));
        assert_eq!(
            "500ms".parse::<Secs>(),
            Ok(Secs(Duration::from_millis(500)))
        );
        assert_eq!("2m".parse::<Secs>(), Ok(Secs(Duration::from_secs(120))));
        assert_eq!(
            "1.5s".parse::<Secs>(),
            Ok(Secs(Duration::from_millis(1500)))
        );
        assert!("10 parsecs".parse::<Secs>().is_err());
        assert!("".parse::<Secs>().is_err());
    }

    #[test]
    fn flags_over_file_over_defaults() {
        let file: LimitArgs = toml::from_str(
            "max-body-bytes = \"16MiB\"\nmax-text-bytes = 2097152\nidle-timeout = \"5s\"\nlenient = true\n",
        )
        .unwrap();
        let flags = LimitArgs {
            max_text_bytes: Some(Size(12 << 20)),
            ..LimitArgs::default()
        };
        let merged = flags.over(file);
        let (mut server, mut service) = (ServerConfig::default(), ServiceConfig::default());
        merged.apply(&mut server, &mut service).unwrap();
        assert_eq!(server.max_body_bytes, 16 << 20);
        assert_eq!(service.limits.max_document_bytes, 16 << 20);
        assert_eq!(service.limits.max_text_len, 12 << 20);
        assert_eq!(server.idle_timeout, Duration::from_secs(5));
        assert!(service.limits.lenient.int_booleans);
        // untouched: the crates' defaults (and serve's drain)
        assert_eq!(server.max_in_flight, ServerConfig::default().max_in_flight);
        assert_eq!(service.limits.max_depth, 64);
        assert_eq!(server.drain_timeout, DRAIN_DEFAULT);
        assert_eq!(
            service.max_response_bytes,
            ServiceConfig::default().max_response_bytes
        );

        let more: LimitArgs = toml::from_str(
            "max-response-bytes = \"128MiB\"\nreference-bytes-per-input-byte = 0\nmax-reference-bytes = \"1MiB\"\nreference-bytes-allowance = 0\n",
        )
        .unwrap();
        more.apply(&mut server, &mut service).unwrap();
        assert_eq!(service.max_response_bytes, 128 << 20);
        assert_eq!(service.limits.reference_bytes_per_input_byte, 0);
        assert_eq!(service.limits.reference_bytes_allowance, 0);
        assert_eq!(service.limits.max_reference_bytes, 1 << 20);

        let server_file: LimitArgs = toml::from_str(
            "queue-delay-target = \"off\"\nmax-connections-per-ip = 8\nlisten-backlog = 512\nqueue-delay-interval = \"250ms\"\n",
        )
        .unwrap();
        server_file.apply(&mut server, &mut service).unwrap();
        assert_eq!(server.queue_delay_target, None);
        assert_eq!(server.max_connections_per_ip, 8);
        assert_eq!(server.listen_backlog, 512);
        assert_eq!(server.queue_delay_interval, Duration::from_millis(250));
        let on = LimitArgs {
            queue_delay_target: Some("20ms".parse().unwrap()),
            ..LimitArgs::default()
        };
        on.apply(&mut server, &mut service).unwrap();
        assert_eq!(server.queue_delay_target, Some(Duration::from_millis(20)));
    }

    #[test]
    fn charging_lifetimes_and_drain_grace() {
        let file: LimitArgs = toml::from_str(
            "reservation-ttl = \"90s\"\nidempotency-retention = \"2h\"\ndrain-grace = \"3s\"\n",
        )
        .unwrap();
        let p = file.charging_policy().unwrap();
        assert_eq!(p.reservation_ttl, Some(Duration::from_secs(90)));
        assert_eq!(p.key_retention, Duration::from_secs(7200));
        let (mut server, mut service) = (ServerConfig::default(), ServiceConfig::default());
        file.apply(&mut server, &mut service).unwrap();
        assert_eq!(server.drain_grace, Duration::from_secs(3));
        let off = LimitArgs {
            reservation_ttl: Some("off".parse().unwrap()),
            ..LimitArgs::default()
        };
        assert_eq!(
            off.over(file).charging_policy().unwrap().reservation_ttl,
            None
        );
        assert_eq!(
            LimitArgs::default().charging_policy().unwrap(),
            ChargingPolicy::default()
        );
        let e = LimitArgs {
            reservation_ttl: Some("10ms".parse().unwrap()),
            ..LimitArgs::default()
        }
        .charging_policy()
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "`--reservation-ttl` must be between 100ms and a year (or `off`), not 10ms"
        );
    }

    #[test]
    fn unknown_keys_and_bad_values_are_refused() {
        let e = toml::from_str::<LimitArgs>("max-bodybytes = 1\n").unwrap_err();
        assert!(
            e.to_string().contains("unknown field `max-bodybytes`"),
            "{e}"
        );
        let e = toml::from_str::<LimitArgs>("max-body-bytes = \"4 apples\"\n").unwrap_err();
        assert!(e.to_string().contains("bad size unit `apples`"), "{e}");
        let (mut server, mut service) = (ServerConfig::default(), ServiceConfig::default());
        for (args, msg) in [
            (
                LimitArgs {
                    max_in_flight: Some(0),
                    ..LimitArgs::default()
                },
                "`--max-in-flight` must be between 1 and 1048576, not 0",
            ),
            (
                LimitArgs {
                    max_body_bytes: Some(Size(3 << 30)),
                    ..LimitArgs::default()
                },
                "`--max-body-bytes` must be between 1KiB and 2GiB, not 3GiB",
            ),
            (
                LimitArgs {
                    max_depth: Some(2),
                    ..LimitArgs::default()
                },
                "`--max-depth` must be between 4 and 10000, not 2",
            ),
            (
                LimitArgs {
                    idle_timeout: Some(Secs(Duration::ZERO)),
                    ..LimitArgs::default()
                },
                "`--idle-timeout` must be between 10ms and a day, not 0ns",
            ),
        ] {
            let e = args.apply(&mut server, &mut service).unwrap_err();
            assert_eq!(e.to_string(), msg);
        }
    }
}
