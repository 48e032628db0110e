//! `soapstone wsdl inspect` and `soapstone call`: argument structs and what they do.
//!
//! A `<WSDL>` is a path or an `http://` URL. Reading a URL is asked for by giving one (it and
//! what it imports are fetched); a local WSDL's remote imports are fetched only with
//! `--fetch`, and `--catalog` maps them to local files instead. Exit codes: `0` success,
//! `1` usage, read or transport error, `2` the service answered with a SOAP Fault.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use soapstone_wsdl::read::{read, Catalog, Definitions, ReadOptions};

use crate::{CallError, DynamicClient, Target};

/// `soapstone wsdl ...`.
#[derive(Debug, Clone, clap::Args)]
#[non_exhaustive]
pub struct WsdlArgs {
    /// What to do with the WSDL.
    #[command(subcommand)]
    pub command: WsdlCommand,
}

/// The `wsdl` subcommands.
#[derive(Debug, Clone, clap::Subcommand)]
#[non_exhaustive]
pub enum WsdlCommand {
    /// List services, ports and operations with their input and output signatures.
    Inspect(InspectArgs),
    /// Generate Rust code (types, a typed client, a server trait and `FooServer<T>`) for
    /// each service's SOAP 1.1 port.
    Generate(GenerateArgs),
}

/// `soapstone wsdl generate`.
#[derive(Debug, Clone, clap::Args)]
#[non_exhaustive]
pub struct GenerateArgs {
    /// The WSDL.
    #[command(flatten)]
    pub source: SourceArgs,
    /// Write the code to this file (default: standard output).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// Where a WSDL comes from.
#[derive(Debug, Clone, clap::Args)]
#[non_exhaustive]
pub struct SourceArgs {
    /// The WSDL: a file path or an http:// or https:// URL.
    pub wsdl: String,
    /// Local copies of remote documents: a directory (looked up by file name) or a file of
    /// `URL-or-namespace = path` lines. Repeatable.
    #[arg(long)]
    pub catalog: Vec<PathBuf>,
    /// Fetch remote imports of a local WSDL over HTTP(S) (a URL WSDL always fetches its own).
    #[arg(long)]
    pub fetch: bool,
    /// Largest document read, in bytes.
    #[arg(long, default_value_t = 16 << 20)]
    pub max_document_bytes: usize,
    /// Trust only the CA certificates of this PEM file for https (WSDL fetches and calls),
    /// e.g. a private CA or a self-signed server certificate. Default: the Mozilla roots.
    #[arg(long, value_name = "PEM")]
    pub tls_ca: Option<PathBuf>,
}

impl SourceArgs {
    /// The client settings for https: the Mozilla roots, or only the CAs of `--tls-ca`.
    pub fn client_config(&self) -> anyhow::Result<soapstone_client::ClientConfig> {
        let config = soapstone_client::ClientConfig::default();
        match &self.tls_ca {
            None => Ok(config),
            Some(path) => {
                let pem = std::fs::read(path)
                    .with_context(|| format!("cannot read `--tls-ca {}`", path.display()))?;
                config
                    .tls_ca_pem(&pem)
                    .with_context(|| format!("`--tls-ca {}`", path.display()))
            }
        }
    }
}

/// `soapstone wsdl inspect`.
#[derive(Debug, Clone, clap::Args)]
#[non_exhaustive]
pub struct InspectArgs {
    /// The WSDL.
    #[command(flatten)]
    pub source: SourceArgs,
}

/// `soapstone call`.
#[derive(Debug, Clone, clap::Args)]
#[non_exhaustive]
pub struct CallArgs {
    /// The WSDL.
    #[command(flatten)]
    pub source: SourceArgs,
    /// The operation to call.
    pub operation: String,
    /// The arguments, a JSON object keyed by parameter name.
    #[arg(long, default_value = "{}")]
    pub json: String,
    /// Request header blocks, a JSON object keyed by the binding's `soap:header` part names
    /// (`soapstone wsdl inspect` lists them). When the operation's response declares header
    /// blocks, the answer is printed as `{"value": ..., "headers": {...}}`.
    #[arg(long, value_name = "JSON")]
    pub header: Option<String>,
    /// The endpoint URL (default: the port's address in the WSDL).
    #[arg(long)]
    pub endpoint: Option<String>,
    /// Use the SOAP 1.2 port.
    #[arg(long)]
    pub soap12: bool,
    /// The service (default: the first with a matching port).
    #[arg(long)]
    pub service: Option<String>,
    /// The port (default: the SOAP 1.1 one, or the first SOAP one).
    #[arg(long)]
    pub port: Option<String>,
    /// Print the response envelope as received instead of JSON.
    #[arg(long)]
    pub xml: bool,
    /// Print the request envelope and exit without sending it.
    #[arg(long)]
    pub dry_run: bool,
}

/// An error whose exit code is 2: the service answered with a Fault.
#[derive(Debug)]
pub struct FaultAnswer(pub String);

impl std::fmt::Display for FaultAnswer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for FaultAnswer {}

/// The exit code for an error of [`run_wsdl_cli`] or [`run_call_cli`].
pub fn exit_code(e: &anyhow::Error) -> u8 {
    if e.downcast_ref::<FaultAnswer>().is_some() {
        2
    } else {
        1
    }
}

/// Reads the WSDL of `source` (on a blocking thread: reading may fetch).
pub async fn load(source: &SourceArgs) -> anyhow::Result<Definitions> {
    let mut options = ReadOptions::default();
    options.max_document_bytes = source.max_document_bytes;
    for c in &source.catalog {
        let add = if c.is_dir() {
            Catalog::new().dir(c)
        } else {
            Catalog::from_file(c)?
        };
        options.catalog = options.catalog.merge(add);
    }
    let is_url = source.wsdl.starts_with("http://") || source.wsdl.starts_with("https://");
    if is_url || source.fetch {
        let tls = source.client_config()?.tls_config()?;
        options.fetch = Some(crate::http_fetch(
            source.max_document_bytes,
            Duration::from_secs(30),
            Some(tls),
        ));
    }
    let wsdl = source.wsdl.clone();
    tokio::task::spawn_blocking(move || read(&wsdl, &options))
        .await
        .context("the reading thread failed")?
        .with_context(|| format!("cannot read `{}`", source.wsdl))
}

/// Runs `soapstone wsdl ...`.
pub async fn run_wsdl_cli(args: WsdlArgs) -> anyhow::Result<()> {
    match args.command {
        WsdlCommand::Inspect(a) => {
            let defs = load(&a.source).await?;
            print!("{}", defs.inspect_text());
            for p in &defs.problems {
                eprintln!("warning: {p}");
            }
            Ok(())
        }
        WsdlCommand::Generate(a) => {
            let defs = load(&a.source).await?;
            let files = soapstone_build::generate_defs(&defs, &a.source.wsdl)?;
            let code = match files.as_slice() {
                [(_, code)] => code.clone(),
                many => many
                    .iter()
                    .map(|(service, code)| {
                        format!(
                            "/// The service `{service}`.\npub mod {} {{\n{code}}}\n",
                            soapstone_codegen_name(service)
                        )
                    })
                    .collect(),
            };
            let code = rustfmt(code);
            match &a.out {
                Some(path) => std::fs::write(path, code)
                    .with_context(|| format!("cannot write `{}`", path.display()))?,
                None => {
                    use std::io::Write as _;
                    let mut out = std::io::stdout().lock();
                    // A closed pipe (`| head`) is not an error worth a message.
                    match out.write_all(code.as_bytes()).and_then(|()| out.flush()) {
                        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                            return Err(e).context("cannot write the code");
                        }
                        _ => {}
                    }
                }
            }
            Ok(())
        }
    }
}

/// Runs `soapstone call ...`: prints the answer as JSON (or the envelope with `--xml`).
pub async fn run_call_cli(args: CallArgs) -> anyhow::Result<()> {
    let json: serde_json::Value = serde_json::from_str(&args.json)
        .with_context(|| format!("`--json` is not JSON: `{}`", args.json))?;
    let headers: serde_json::Value = match &args.header {
        Some(h) => {
            serde_json::from_str(h).with_context(|| format!("`--header` is not JSON: `{h}`"))?
        }
        None => serde_json::Value::Null,
    };
    let defs = Arc::new(load(&args.source).await?);
    let target = Target {
        service: args.service.clone(),
        port: args.port.clone(),
        soap12: args.soap12,
        endpoint: args.endpoint.clone(),
    };
    let client = DynamicClient::with_config(defs, &target, args.source.client_config()?)?;
    if args.dry_run {
        let (action, envelope) = client.request_with_headers(&args.operation, &json, &headers)?;
        eprintln!(
            "POST {} (SOAPAction {:?})",
            client.endpoint(),
            action.unwrap_or_default()
        );
        println!("{}", String::from_utf8_lossy(&envelope));
        return Ok(());
    }
    let with_headers = client.declares_response_headers(&args.operation)?;
    match client
        .call_with_headers(&args.operation, &json, &headers)
        .await
    {
        Ok(answer) => {
            if args.xml {
                println!("{}", String::from_utf8_lossy(&answer.envelope));
            } else if with_headers {
                let both = serde_json::json!({"value": answer.value, "headers": answer.headers});
                println!("{}", serde_json::to_string_pretty(&both)?);
            } else {
                println!("{}", serde_json::to_string_pretty(&answer.value)?);
            }
            Ok(())
        }
        Err(CallError::Fault { fault, envelope }) => {
            if args.xml {
                println!("{}", String::from_utf8_lossy(&envelope));
            }
            Err(FaultAnswer(fault.to_string()).into())
        }
        Err(e) => Err(e.into()),
    }
}

/// The module name of a service in a file with several.
fn soapstone_codegen_name(service: &str) -> String {
    let snake: String = service
        .chars()
        .enumerate()
        .flat_map(|(i, c)| {
            let sep = (i > 0 && c.is_uppercase()).then_some('_');
            sep.into_iter().chain(c.to_lowercase())
        })
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    format!("r#{snake}")
}

/// `code` through `rustfmt` when one is on the `PATH` (prettyplease's layout is close to
/// rustfmt's but not the same, and checked-in code should pass `cargo fmt --check`); as it
/// is otherwise.
fn rustfmt(code: String) -> String {
    use std::io::Write as _;
    use std::process::{Command, Stdio};
    let child = Command::new("rustfmt")
        .args(["--edition", "2021", "--emit", "stdout", "--quiet"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn();
    let Ok(mut child) = child else {
        return code;
    };
    let input = code.clone();
    let writer = child.stdin.take().map(|mut stdin| {
        std::thread::spawn(move || {
            let _ = stdin.write_all(input.as_bytes());
        })
    });
    let out = child.wait_with_output();
    if let Some(w) = writer {
        let _ = w.join();
    }
    match out {
        Ok(o) if o.status.success() && !o.stdout.is_empty() => {
            String::from_utf8(o.stdout).unwrap_or(code)
        }
        _ => code,
    }
}
