//! Reading someone else's WSDL 1.1 (and the XML Schemas it uses) into [`Definitions`].
//!
//! Of the 172 WSDLs under `testdata/`, 139 read and the 33 broken ones are refused with file and
//! line; of the 147 ports of those that read, 110 lower to a [`ServiceModel`](crate::ServiceModel)
//! (`tests/corpus.rs` prints every reason; `docs/wsdl-first.md` has the coverage table). A name
//! that is not defined is refused with its likely cause (`hint`).
//!
//! This is the front end of WSDL-first work: `soapstone wsdl inspect`, the dynamic client and
//! code generation all start from what this module reads. It keeps every WSDL and XSD
//! component it understands, with the file and line it came from, so that a later stage can
//! refuse a construct with a message that points at it.
//!
//! It must never fetch from the network unless the caller hands it a [`Fetch`] (this crate has
//! no HTTP; the CLI supplies one when asked), never accept a DTD or expand an entity (roxmltree
//! with DTDs off), never read a document twice, never recurse without bound (an import cycle of
//! WSDL documents is an error; XSD imports may be mutual, as the XSD spec allows, and each
//! document is read once), and never read more than [`ReadOptions`] allows.

mod check;
mod components;
mod hint;
mod inspect;
mod load;
mod lower;
mod lower_attrs;
mod lower_body;
mod lower_ns;
mod lower_open;
mod lower_simple;
mod lower_types;
mod lower_wrapper;
mod schema;
mod subst;
mod wsdl;

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

pub use components::{
    AbstractOperation, AttrItem, AttributeDecl, Binding, BindingOperation, BodyBinding,
    ComplexType, Compositor, Definitions, Derivation, ElementDecl, FaultBinding, HeaderBinding,
    Loc, MaxOccurs, Message, MessagePart, OpStyle, Particle, Port, PortType, SchemaSet, Service,
    SimpleType, SoapVersion, TypeDecl, TypeKind, TypeUse, Use,
};
pub use hint::UnknownTag;
pub use inspect::{inspect, Signature};
pub use lower::LowerError;

/// Fetches a document that is not a local file (an `http(s)` URL): returns its text.
pub type Fetch = Arc<dyn Fn(&str) -> Result<String, String> + Send + Sync>;

/// Limits and resolution rules of [`read`].
#[derive(Clone)]
#[non_exhaustive]
pub struct ReadOptions {
    /// Largest WSDL or XSD document read. Default: `16 MiB`.
    pub max_document_bytes: usize,
    /// Most documents read for one WSDL (itself, its imports and includes). Default: `512`.
    pub max_documents: usize,
    /// Most XML nodes in one document (elements, attributes, text). Default: `4_000_000`.
    pub max_nodes: u32,
    /// Deepest element nesting in one document: the XML parser recurses once per level and
    /// the schema reader once per nested anonymous type (three levels: element, type,
    /// compositor), so this bounds the stack a document can take (about 24 KiB per nested
    /// type in a debug build: 100 levels fit a 2 MiB thread). Default: `100` (the deepest
    /// document of the corpus in `testdata/` nests 9).
    pub max_depth: usize,
    /// Deepest chain of documents read one inside another (a WSDL importing a schema that
    /// includes another...): each level takes stack. Default: `64`.
    pub max_import_depth: usize,
    /// Local copies of remote documents, consulted before anything else.
    /// Default: empty (only the bundled SOAP 1.1 encoding schema).
    pub catalog: Catalog,
    /// Most elements that may stand for the heads of substitution groups, counted over every
    /// head (a head with `n` members, transitively, counts `n` plus itself): each is an
    /// alternative of the choice a reference to its head becomes, registered once per head
    /// and holding type's namespace, so the model grows by at most this many alternatives.
    /// Default: `10_000`.
    pub max_substitutes: usize,
    /// How to read a URL that the catalog does not map. Default: `None`: URLs are refused
    /// with a message that names them ("no network unless asked").
    pub fetch: Option<Fetch>,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            max_document_bytes: 16 << 20,
            max_documents: 512,
            max_nodes: 4_000_000,
            max_depth: 100,
            max_import_depth: 64,
            max_substitutes: 10_000,
            catalog: Catalog::default(),
            fetch: None,
        }
    }
}

impl fmt::Debug for ReadOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReadOptions")
            .field("max_document_bytes", &self.max_document_bytes)
            .field("max_documents", &self.max_documents)
            .field("max_nodes", &self.max_nodes)
            .field("max_depth", &self.max_depth)
            .field("max_import_depth", &self.max_import_depth)
            .field("max_substitutes", &self.max_substitutes)
            .field("catalog", &self.catalog)
            .field("fetch", &self.fetch.is_some())
            .finish()
    }
}

/// An offline catalog: where to find, on disk, the documents a WSDL names by URL or by
/// namespace only. A location is looked up exactly first (a URL or a namespace), then by its
/// last path segment (file name) in each directory, in order.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    entries: Vec<(String, PathBuf)>,
    dirs: Vec<PathBuf>,
}

impl Catalog {
    /// An empty catalog.
    pub fn new() -> Self {
        Catalog::default()
    }

    /// Maps a URL or a namespace to a local file.
    pub fn map(mut self, from: impl Into<String>, to: impl Into<PathBuf>) -> Self {
        self.entries.push((from.into(), to.into()));
        self
    }

    /// Looks remote documents up by file name in `dir`.
    pub fn dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.dirs.push(dir.into());
        self
    }

    /// This catalog's mappings followed by `other`'s.
    pub fn merge(mut self, other: Catalog) -> Self {
        self.entries.extend(other.entries);
        self.dirs.extend(other.dirs);
        self
    }

    /// Reads a catalog file: one mapping per line, `URL-or-namespace = path` (a relative path
    /// is relative to the file); blank lines and lines starting with `#` are ignored.
    pub fn from_file(path: impl Into<PathBuf>) -> Result<Catalog, ReadError> {
        let path = path.into();
        let text = std::fs::read_to_string(&path).map_err(|e| {
            ReadError::new(
                Loc::file(&path.display().to_string(), 0),
                format!("cannot read the catalog: {e}"),
            )
        })?;
        let base = path.parent().map(PathBuf::from).unwrap_or_default();
        let mut catalog = Catalog::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let Some((from, to)) = line.split_once('=') else {
                return Err(ReadError::new(
                    Loc::file(&path.display().to_string(), i as u32 + 1),
                    format!("catalog line `{line}` is not `URL-or-namespace = path`"),
                ));
            };
            catalog = catalog.map(from.trim(), base.join(to.trim()));
        }
        Ok(catalog)
    }

    pub(crate) fn lookup(&self, key: &str) -> Option<PathBuf> {
        if let Some((_, p)) = self.entries.iter().find(|(k, _)| k == key) {
            return Some(p.clone());
        }
        let name = key.trim_end_matches('/').rsplit('/').next()?;
        let name = name.split(['?', '#']).next().unwrap_or(name);
        if name.is_empty() {
            return None;
        }
        self.dirs.iter().map(|d| d.join(name)).find(|p| p.is_file())
    }
}

/// Why a WSDL could not be read: what, and where (file and line; line 0 when the problem is
/// the file as a whole).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadError {
    /// Where the problem is.
    pub loc: Loc,
    /// What it is (lower case, offending token in backticks).
    pub message: String,
}

impl ReadError {
    pub(crate) fn new(loc: Loc, message: impl Into<String>) -> Self {
        ReadError {
            loc,
            message: message.into(),
        }
    }
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.loc, self.message)
    }
}

impl std::error::Error for ReadError {}

/// Reads the WSDL at `location` (a file path, or a URL when `options` can fetch it or its
/// catalog maps it) with everything it imports and includes, and checks that every name it
/// refers to is defined.
pub fn read(location: &str, options: &ReadOptions) -> Result<Definitions, ReadError> {
    let mut defs = load::Loader::new(options).load_root(location, None)?;
    defs.check()?;
    defs.schema.substitutes =
        subst::substitutes(&defs.schema, &defs.documents, options.max_substitutes)?;
    Ok(defs)
}

/// Reads a WSDL given as text; `location` names it in errors and resolves its relative imports.
pub fn read_str(
    text: &str,
    location: &str,
    options: &ReadOptions,
) -> Result<Definitions, ReadError> {
    let mut defs = load::Loader::new(options).load_root(location, Some(text.to_string()))?;
    defs.check()?;
    defs.schema.substitutes =
        subst::substitutes(&defs.schema, &defs.documents, options.max_substitutes)?;
    Ok(defs)
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_attrs;
#[cfg(test)]
mod tests_body;
#[cfg(test)]
mod tests_ns;
#[cfg(test)]
mod tests_open;
#[cfg(test)]
mod tests_subst;
