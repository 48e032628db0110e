//! Generate soapstone code from a vendor's WSDL in `build.rs`, the way tonic-build and
//! prost-build do from `.proto` files.
//!
//! ```no_run
//! // build.rs, in `fn main()`:
//! soapstone_build::configure()
//!     .compile(&["wsdl/vendor.wsdl"])
//!     .unwrap_or_else(|e| panic!("{e}"));
//! ```
//!
//! ```ignore
//! // src/lib.rs: the types, the `Vendor` trait, `VendorServer<T>`, `VendorClient`.
//! pub mod vendor {
//!     soapstone_service::include_wsdl!("vendor");
//! }
//! ```
//!
//! Each WSDL gives one file `<stem>.rs` in `OUT_DIR` (one service), or `<stem>_<service>.rs`
//! per service when it has several; the code is the same `#[service]` emits (one emitter,
//! `soapstone-codegen`), for the service's SOAP 1.1 port (the client speaks 1.2 with
//! `.soap12()`). Two WSDLs whose files would have the same name (two `soap.wsdl` in different
//! directories) are an error naming both, and nothing is written: a silent overwrite would
//! leave one `include_wsdl!` pulling in the other WSDL's code, and a name made unique behind
//! the user's back (a hash, a counter) would be a name nobody can guess for `include_wsdl!`.
//! The crate that includes it depends on `soapstone-service`, whose
//! `include_wsdl!` pulls the file in (as `tonic::include_proto!` does).
//!
//! Reading never touches the network (give a [`Catalog`] for remote imports); every document
//! read is a `cargo:rerun-if-changed`. A construct the generator cannot express yet is an
//! error naming it with its file and line: it must never generate a client that would send
//! something other than what the WSDL says.

use std::fmt;
use std::path::{Path, PathBuf};

pub use soapstone_wsdl::read::Catalog;
use soapstone_wsdl::read::{read, Definitions, ReadOptions};

/// Starts a configuration.
pub fn configure() -> Builder {
    Builder::default()
}

/// What to generate and where.
#[derive(Debug, Default)]
pub struct Builder {
    out_dir: Option<PathBuf>,
    options: ReadOptions,
    quiet: bool,
}

/// Why generation failed: the WSDL and what is wrong with it.
#[derive(Debug)]
pub struct Error(String);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl Builder {
    /// Writes into `dir` instead of `OUT_DIR`.
    pub fn out_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.out_dir = Some(dir.into());
        self
    }

    /// Resolves remote imports from local copies.
    pub fn catalog(mut self, catalog: Catalog) -> Self {
        self.options.catalog = catalog;
        self
    }

    /// Prints no `cargo:` lines (outside build scripts).
    pub fn quiet(mut self) -> Self {
        self.quiet = true;
        self
    }

    /// Generates the code of each WSDL; returns the files written.
    pub fn compile(self, wsdls: &[impl AsRef<Path>]) -> Result<Vec<PathBuf>, Error> {
        let out_dir = match self.out_dir.clone() {
            Some(d) => d,
            None => std::env::var_os("OUT_DIR")
                .map(PathBuf::from)
                .ok_or_else(|| {
                    Error("`OUT_DIR` is not set: call from build.rs or set `out_dir`".into())
                })?,
        };
        // Generate everything first and check the names before writing any file: two WSDLs
        // named alike in different directories must not silently overwrite each other.
        let mut planned: Vec<(String, String, &Path)> = Vec::new();
        for w in wsdls {
            let path = w.as_ref();
            let stem = path
                .file_stem()
                .and_then(|s| s.to_str())
                .ok_or_else(|| Error(format!("`{}` has no file name", path.display())))?;
            let files = generate_file(&path.display().to_string(), &self.options, self.quiet)?;
            let several = files.len() > 1;
            for (service, code) in files {
                let name = if several {
                    format!("{stem}_{}.rs", soapstone_codegen::snake(&service))
                } else {
                    format!("{stem}.rs")
                };
                if let Some((_, _, first)) = planned.iter().find(|(n, _, _)| *n == name) {
                    return Err(Error(format!(
                        "`{}` and `{}` would both be generated into `{name}` (`include_wsdl!` \
                         finds a file by its name): copy or link one of them under another \
                         file name",
                        first.display(),
                        path.display()
                    )));
                }
                planned.push((name, code, path));
            }
        }
        let mut written = Vec::new();
        for (name, code, _) in planned {
            let target = out_dir.join(name);
            std::fs::write(&target, code)
                .map_err(|e| Error(format!("cannot write `{}`: {e}", target.display())))?;
            written.push(target);
        }
        Ok(written)
    }
}

/// The code of every service of the WSDL at `location`: (service name, source).
pub fn generate_file(
    location: &str,
    options: &ReadOptions,
    quiet: bool,
) -> Result<Vec<(String, String)>, Error> {
    let defs = read(location, options).map_err(|e| Error(format!("cannot read the WSDL: {e}")))?;
    if !quiet {
        for d in &defs.documents {
            if !d.starts_with("http") {
                println!("cargo:rerun-if-changed={d}");
            }
        }
    }
    generate_defs(&defs, location)
}

/// The code of every service of a WSDL already read (`location` names it in errors).
pub fn generate_defs(defs: &Definitions, location: &str) -> Result<Vec<(String, String)>, Error> {
    let mut out = Vec::new();
    for s in &defs.services {
        let service = &s.name.local;
        let Some(port) = defs.default_port(service) else {
            continue;
        };
        let model = defs.service_model(service, port).map_err(|e| {
            Error(format!(
                "cannot generate service `{service}` of `{location}`: {e}"
            ))
        })?;
        let code = soapstone_codegen::generate(&model, service).map_err(|e| {
            Error(format!(
                "cannot generate service `{service}` of `{location}`: {e}"
            ))
        })?;
        out.push((service.clone(), code));
    }
    if out.is_empty() {
        return Err(Error(format!(
            "`{location}` has no service with a SOAP port"
        )));
    }
    Ok(out)
}
