//! Finding, reading and parsing the documents of one WSDL: the root, its `wsdl:import`s and
//! the schemas' `xsd:import`/`include`/`redefine`s, each read once.
//!
//! Must never touch the network itself (URLs go through the catalog, the bundled SOAP-ENC
//! schema, or the caller's [`Fetch`](super::Fetch)), accept a DTD, or read past the limits of
//! [`ReadOptions`].

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use roxmltree::{Document, Node, ParsingOptions};
use soapstone_codec::QName;

use super::components::{Definitions, Loc};
use super::{schema, wsdl, ReadError, ReadOptions};
use crate::soapenc::SOAP_ENCODING_SCHEMA;
use crate::xsd::{SOAP_ENC_NS, XSD_NS};

pub(super) const WSDL_NS: &str = "http://schemas.xmlsoap.org/wsdl/";
const WSDL20_NS: &str = "http://www.w3.org/ns/wsdl";

/// Reads documents into one [`Definitions`].
pub(crate) struct Loader<'o> {
    options: &'o ReadOptions,
    pub(super) defs: Definitions,
    /// (canonical location, chameleon namespace) of every document read or being read.
    seen: HashSet<(String, String)>,
    /// The chain of WSDL documents being read, to report an import cycle.
    wsdl_stack: Vec<String>,
    /// Schema documents being read, one inside another (imports and includes recurse).
    schema_depth: usize,
}

/// A document's text and the names it goes by.
pub(super) struct Source {
    /// How errors name it (the path or URL as resolved).
    pub(super) name: String,
    /// The key that identifies it (a canonical path, or the URL).
    key: String,
    pub(super) text: String,
}

impl<'o> Loader<'o> {
    pub(crate) fn new(options: &'o ReadOptions) -> Self {
        Loader {
            options,
            defs: Definitions::default(),
            seen: HashSet::new(),
            wsdl_stack: Vec::new(),
            schema_depth: 0,
        }
    }

    /// Reads the root WSDL (from `text` if given, else from `location`).
    pub(crate) fn load_root(
        mut self,
        location: &str,
        text: Option<String>,
    ) -> Result<Definitions, ReadError> {
        let from = Loc::file(location, 0);
        let source = match text {
            Some(text) => {
                self.check_size(location, text.len(), &from)?;
                Source {
                    name: location.to_string(),
                    key: key_of(location),
                    text,
                }
            }
            None => self.fetch(location, &from)?,
        };
        self.load_wsdl(source, true)?;
        Ok(self.defs)
    }

    fn check_size(&self, name: &str, len: usize, from: &Loc) -> Result<(), ReadError> {
        if len > self.options.max_document_bytes {
            return Err(ReadError::new(
                from.clone(),
                format!(
                    "`{name}` is {len} bytes, more than the limit of {} (ReadOptions::max_document_bytes)",
                    self.options.max_document_bytes
                ),
            ));
        }
        Ok(())
    }

    /// Reads the text of `location` (already resolved against its referrer).
    pub(super) fn fetch(&mut self, location: &str, from: &Loc) -> Result<Source, ReadError> {
        if self.defs.documents.len() >= self.options.max_documents {
            return Err(ReadError::new(
                from.clone(),
                format!(
                    "reading `{location}` would exceed the limit of {} documents (ReadOptions::max_documents)",
                    self.options.max_documents
                ),
            ));
        }
        if let Some(path) = self.options.catalog.lookup(location) {
            return self.read_file(location, &path, from);
        }
        if is_soap_enc(location) {
            return Ok(Source {
                name: location.to_string(),
                key: SOAP_ENC_NS.to_string(),
                text: SOAP_ENCODING_SCHEMA.to_string(),
            });
        }
        if let Some(path) = location.strip_prefix("file://") {
            return self.read_file(location, Path::new(path), from);
        }
        if is_url(location) {
            let Some(fetch) = &self.options.fetch else {
                return Err(ReadError::new(
                    from.clone(),
                    format!(
                        "`{location}` is not read: no network unless asked (map it in a catalog, or allow fetching)"
                    ),
                ));
            };
            let text = fetch(location).map_err(|e| {
                ReadError::new(from.clone(), format!("cannot fetch `{location}`: {e}"))
            })?;
            self.check_size(location, text.len(), from)?;
            return Ok(Source {
                name: location.to_string(),
                key: location.to_string(),
                text,
            });
        }
        self.read_file(location, Path::new(location), from)
    }

    fn read_file(&self, name: &str, path: &Path, from: &Loc) -> Result<Source, ReadError> {
        let meta = std::fs::metadata(path).map_err(|e| {
            ReadError::new(
                from.clone(),
                format!("cannot read `{}`: {e}", path.display()),
            )
        })?;
        if !meta.is_file() {
            return Err(ReadError::new(
                from.clone(),
                format!("`{}` is not a file", path.display()),
            ));
        }
        self.check_size(name, meta.len().try_into().unwrap_or(usize::MAX), from)?;
        let bytes = std::fs::read(path).map_err(|e| {
            ReadError::new(
                from.clone(),
                format!("cannot read `{}`: {e}", path.display()),
            )
        })?;
        self.check_size(name, bytes.len(), from)?;
        let text = String::from_utf8(bytes).map_err(|e| {
            ReadError::new(
                Loc::file(name, 0),
                format!(
                    "the document is not UTF-8 (byte {})",
                    e.utf8_error().valid_up_to()
                ),
            )
        })?;
        Ok(Source {
            name: name.to_string(),
            key: key_of(&path.display().to_string()),
            text,
        })
    }

    fn parse<'t>(&self, source: &'t Source) -> Result<Document<'t>, ReadError> {
        let options = ParsingOptions {
            allow_dtd: false,
            nodes_limit: self.options.max_nodes,
        };
        let text = source.text.strip_prefix('\u{feff}').unwrap_or(&source.text);
        if let Some(line) = soapstone_codec::nested_past(text, self.options.max_depth) {
            return Err(ReadError::new(
                Loc::file(&source.name, line),
                format!(
                    "xml nested deeper than {} elements (ReadOptions::max_depth)",
                    self.options.max_depth
                ),
            ));
        }
        Document::parse_with_options(text, options).map_err(|e| {
            let mut pos = e.pos();
            let message = match e {
                roxmltree::Error::DtdDetected => {
                    if let Some(at) = text.find("<!DOCTYPE") {
                        pos.row = text[..at].matches('\n').count() as u32 + 1;
                    }
                    "a DTD (`<!DOCTYPE`) is not accepted: a WSDL needs none, and its entities are a denial-of-service risk".to_string()
                }
                roxmltree::Error::NodesLimitReached => format!(
                    "more than {} XML nodes (ReadOptions::max_nodes)",
                    self.options.max_nodes
                ),
                roxmltree::Error::UnknownNamespace(prefix, at) => format!(
                    "not namespace-well-formed XML: the prefix `{prefix}` (column {}) is not declared",
                    at.col
                ),
                other => format!("not well-formed XML: {other}"),
            };
            ReadError::new(Loc::file(&source.name, pos.row), message)
        })
    }

    /// Reads a WSDL document and everything it imports.
    pub(super) fn load_wsdl(&mut self, source: Source, root: bool) -> Result<(), ReadError> {
        if let Some(i) = self.wsdl_stack.iter().position(|k| *k == source.key) {
            let mut chain: Vec<&str> = self.wsdl_stack[i..].iter().map(String::as_str).collect();
            chain.push(&source.key);
            return Err(ReadError::new(
                Loc::file(&source.name, 0),
                format!("wsdl:import cycle: {}", chain.join(" → ")),
            ));
        }
        if !self.seen.insert((source.key.clone(), String::new())) {
            return Ok(());
        }
        self.defs.documents.push(source.name.clone());
        let doc = self.parse(&source)?;
        let top = doc.root_element();
        let ns = top.tag_name().namespace().unwrap_or("");
        match (ns, top.tag_name().name()) {
            (WSDL_NS, "definitions") => {}
            (XSD_NS, "schema") if root => {
                return schema::read_schema(self, &source.name, top, None);
            }
            (WSDL20_NS, _) => {
                return Err(ReadError::new(
                    loc(&source.name, top),
                    "WSDL 2.0 (`description`) is not supported: only WSDL 1.1",
                ))
            }
            (ns, local) => {
                return Err(ReadError::new(
                    loc(&source.name, top),
                    format!("`{{{ns}}}{local}` is not a WSDL 1.1 `definitions` element"),
                ))
            }
        }
        self.check_depth(&Loc::file(&source.name, 0))?;
        self.wsdl_stack.push(source.key.clone());
        let result = wsdl::read_definitions(self, &source.name, top, root);
        self.wsdl_stack.pop();
        result
    }

    /// Reads the schema at `location` (import, include or redefine), once per namespace it
    /// is read for (`chameleon`: the includer's namespace, for a schema without one).
    pub(super) fn load_schema(
        &mut self,
        location: &str,
        chameleon: Option<&str>,
        from: &Loc,
    ) -> Result<(), ReadError> {
        self.check_depth(from)?;
        self.schema_depth += 1;
        let result = self.load_schema_at(location, chameleon, from);
        self.schema_depth -= 1;
        result
    }

    /// Each document read inside another takes stack: a chain of imports or includes (each
    /// a new document, so no cycle) is refused past `ReadOptions::max_import_depth`.
    fn check_depth(&self, from: &Loc) -> Result<(), ReadError> {
        let max = self.options.max_import_depth;
        if self.schema_depth + self.wsdl_stack.len() >= max {
            return Err(ReadError::new(
                from.clone(),
                format!("imports and includes nested deeper than {max} documents (ReadOptions::max_import_depth)"),
            ));
        }
        Ok(())
    }

    fn load_schema_at(
        &mut self,
        location: &str,
        chameleon: Option<&str>,
        from: &Loc,
    ) -> Result<(), ReadError> {
        let source = self.fetch(location, from)?;
        if !self
            .seen
            .insert((source.key.clone(), chameleon.unwrap_or("").to_string()))
        {
            return Ok(());
        }
        self.defs.documents.push(source.name.clone());
        let doc = self.parse(&source)?;
        let top = doc.root_element();
        let name = (top.tag_name().namespace(), top.tag_name().name());
        match name {
            (Some(XSD_NS), "schema") => schema::read_schema(self, &source.name, top, chameleon),
            // A schema import that points at a WSDL: its inline schemas.
            (Some(WSDL_NS), "definitions") => {
                for types in children(top, WSDL_NS, "types") {
                    for s in children(types, XSD_NS, "schema") {
                        schema::read_schema(self, &source.name, s, chameleon)?;
                    }
                }
                Ok(())
            }
            (ns, local) => Err(ReadError::new(
                loc(&source.name, top),
                format!(
                    "`{{{}}}{local}` is not an XML Schema (`xsd:schema`)",
                    ns.unwrap_or("")
                ),
            )),
        }
    }

    /// Whether an import of `namespace` from `location` is better served by the namespace:
    /// SOAP-ENC always (the bundled copy; servers publish it under many URLs), and a remote
    /// location the catalog does not map when it maps the namespace.
    pub(super) fn by_namespace(&self, namespace: &str, location: &str) -> bool {
        let catalog = &self.options.catalog;
        is_soap_enc(namespace)
            || (is_url(location)
                && catalog.lookup(location).is_none()
                && catalog.lookup(namespace).is_some())
    }

    /// Reads the namespace-only import of `namespace` if the catalog knows it (or it is
    /// SOAP-ENC); otherwise its components must come from another schema of the WSDL.
    pub(super) fn load_namespace(&mut self, namespace: &str, from: &Loc) -> Result<(), ReadError> {
        if namespace == XSD_NS || namespace == XML_NS {
            return Ok(());
        }
        if is_soap_enc(namespace) || self.options.catalog.lookup(namespace).is_some() {
            return self.load_schema(namespace, None, from);
        }
        Ok(())
    }
}

/// The XML namespace (`xml:lang`).
pub(super) const XML_NS: &str = "http://www.w3.org/XML/1998/namespace";

fn is_soap_enc(location: &str) -> bool {
    location.trim_end_matches('/') == SOAP_ENC_NS.trim_end_matches('/')
}

pub(super) fn is_url(s: &str) -> bool {
    let lower = s.get(..8).unwrap_or(s).to_ascii_lowercase();
    lower.starts_with("http://") || lower.starts_with("https://")
}

/// A file's identity: its canonical path when it exists.
fn key_of(path: &str) -> String {
    if is_url(path) {
        return path.to_string();
    }
    std::fs::canonicalize(path)
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| path.to_string())
}

/// `location` resolved against the document `base` it appears in.
pub(super) fn resolve(base: &str, location: &str) -> String {
    let location = location.trim();
    if is_url(location) || location.starts_with("file://") {
        return location.to_string();
    }
    if is_url(base) {
        let path_start = base
            .find("://")
            .and_then(|i| base[i + 3..].find('/').map(|j| i + 3 + j));
        let Some(path_start) = path_start else {
            return format!("{base}/{location}");
        };
        let origin = &base[..path_start];
        if location.starts_with('/') {
            return format!("{origin}{location}");
        }
        let path = &base[path_start..];
        let path = path.split(['?', '#']).next().unwrap_or(path);
        let dir = &path[..path.rfind('/').map_or(0, |i| i + 1)];
        let mut segments: Vec<&str> = dir.split('/').filter(|s| !s.is_empty()).collect();
        for seg in location.split('/') {
            match seg {
                "." | "" => {}
                ".." => {
                    segments.pop();
                }
                s => segments.push(s),
            }
        }
        return format!("{origin}/{}", segments.join("/"));
    }
    if Path::new(location).is_absolute() {
        return location.to_string();
    }
    let dir = Path::new(base)
        .parent()
        .map(PathBuf::from)
        .unwrap_or_default();
    let mut out = dir;
    for seg in Path::new(location).components() {
        match seg {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                if !out.pop() || out.as_os_str().is_empty() {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    out.display().to_string()
}

thread_local! {
    /// The line starts of the document `loc` last looked at (its text's address and length),
    /// so that a line number is a binary search, not a scan from the start of the text
    /// (roxmltree's `text_pos_at` scans: quadratic over a big schema).
    static LINES: std::cell::RefCell<(usize, usize, Vec<usize>)> =
        const { std::cell::RefCell::new((0, 0, Vec::new())) };
}

/// Where `node` is in `file`.
pub(super) fn loc(file: &str, node: Node<'_, '_>) -> Loc {
    let text = node.document().input_text();
    let offset = node.range().start;
    let line = LINES.with(|cell| {
        let mut cache = cell.borrow_mut();
        let key = (text.as_ptr() as usize, text.len());
        if (cache.0, cache.1) != key {
            let starts = text
                .bytes()
                .enumerate()
                .filter(|&(_, b)| b == b'\n')
                .map(|(i, _)| i + 1);
            *cache = (key.0, key.1, std::iter::once(0).chain(starts).collect());
        }
        cache.2.partition_point(|&start| start <= offset)
    });
    Loc::file(file, line as u32)
}

/// The element children of `n` named `{ns}local`.
pub(super) fn children<'a, 'i>(
    n: Node<'a, 'i>,
    ns: &'a str,
    local: &'a str,
) -> impl Iterator<Item = Node<'a, 'i>> + 'a {
    n.children().filter(move |c| {
        c.is_element() && c.tag_name().namespace() == Some(ns) && c.tag_name().name() == local
    })
}

/// The attribute value `name` (no namespace).
pub(super) fn attr<'a>(n: Node<'a, '_>, name: &str) -> Option<&'a str> {
    n.attribute(name)
}

/// A QName-valued attribute resolved with the namespaces in scope at `n`; an unprefixed
/// name takes the default namespace (XSD's rule for QName values).
pub(super) fn qname_value(file: &str, n: Node<'_, '_>, value: &str) -> Result<QName, ReadError> {
    let value = value.trim();
    match value.split_once(':') {
        Some((prefix, local)) => match n.lookup_namespace_uri(Some(prefix)) {
            Some(ns) => Ok(QName::new(ns, local)),
            None if prefix == "xml" => Ok(QName::new(XML_NS, local)),
            None => Err(ReadError::new(
                loc(file, n),
                format!("prefix `{prefix}` of `{value}` is not declared"),
            )),
        },
        None => Ok(QName::new(
            n.lookup_namespace_uri(None).unwrap_or(""),
            value,
        )),
    }
}

/// The QName attribute `name` of `n`, resolved.
pub(super) fn qname_attr(
    file: &str,
    n: Node<'_, '_>,
    name: &str,
) -> Result<Option<QName>, ReadError> {
    match n.attribute(name) {
        Some(v) => qname_value(file, n, v).map(Some),
        None => Ok(None),
    }
}

/// The text of the `documentation` children of `n` in namespace `ns` (also looked for inside
/// an `xsd:annotation`), trimmed; `None` when empty.
pub(super) fn documentation(n: Node<'_, '_>, ns: &str) -> Option<String> {
    let mut text = String::new();
    let mut take = |d: Node<'_, '_>| {
        for t in d.descendants().filter(|t| t.is_text()) {
            text.push_str(t.text().unwrap_or(""));
        }
    };
    for d in children(n, ns, "documentation") {
        take(d);
    }
    for a in children(n, XSD_NS, "annotation") {
        for d in children(a, XSD_NS, "documentation") {
            take(d);
        }
    }
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_relative_locations() {
        assert_eq!(resolve("a/b/c.wsdl", "d.xsd"), "a/b/d.xsd");
        assert_eq!(resolve("a/b/c.wsdl", "../x/d.xsd"), "a/x/d.xsd");
        assert_eq!(resolve("a/b/c.wsdl", "./d.xsd"), "a/b/d.xsd");
        assert_eq!(resolve("c.wsdl", "../d.xsd"), "../d.xsd");
        assert_eq!(
            resolve("http://h:1/s/x?wsdl", "../t/y.xsd"),
            "http://h:1/t/y.xsd"
        );
        assert_eq!(resolve("http://h/s/x", "/y.xsd"), "http://h/y.xsd");
        assert_eq!(resolve("a/c.wsdl", "http://e/y.xsd"), "http://e/y.xsd");
    }
}
