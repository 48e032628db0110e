//! Reading an [`AnyXml`]: its text, its content in document order ([`Node`]) and the element
//! decoded into a typed value on demand ([`AnyXml::decode`]).
//!
//! It exists because mixed content with elements (`mixed="true"` in a schema) is kept verbatim
//! as an `AnyXml` (the only form that keeps text, elements and declarations in order), and a
//! user must still be able to read it without a second XML parser. Every accessor reads the
//! checked text the value holds; each child element it hands out stands alone, as every
//! `AnyXml` does (the declarations in scope written on it).
//! Must never: panic (the text was checked when the value was made; a failure there yields
//! what was read so far), or decode with looser bounds than [`Limits::default`] beyond the
//! size of the value itself.

use std::borrow::Cow;

use serde::de::DeserializeOwned;

use crate::any::AnyXml;
use crate::error::DecodeError;
use crate::xml::{unescape, Cursor, Ev, NsStack, Source};
use crate::{Envelope, Limits, Style};

/// One piece of an element's content, in document order: what mixed content is made of.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Node {
    /// A run of text (character references and entities resolved, CDATA included; adjacent
    /// pieces and those around a comment joined).
    Text(String),
    /// A child element, standing alone (the declarations in scope written on it).
    Element(AnyXml),
}

impl AnyXml {
    /// The element's own text: its text nodes (not those of its child elements) joined, in
    /// document order. For `<p>Dear <b>Ann</b>, hello</p>` it is `"Dear , hello"`.
    pub fn text(&self) -> String {
        self.nodes()
            .into_iter()
            .filter_map(|n| match n {
                Node::Text(t) => Some(t),
                Node::Element(_) => None,
            })
            .collect()
    }

    /// The element's child elements, in document order, each standing alone.
    pub fn elements(&self) -> Vec<AnyXml> {
        self.nodes()
            .into_iter()
            .filter_map(|n| match n {
                Node::Element(e) => Some(e),
                Node::Text(_) => None,
            })
            .collect()
    }

    /// The element's content in document order: text runs and child elements (comments
    /// dropped). For `<p>Dear <b>Ann</b>, hello</p>`: `Text("Dear ")`, `Element(<b>Ann</b>)`,
    /// `Text(", hello")`.
    pub fn nodes(&self) -> Vec<Node> {
        let mut out = Vec::new();
        // The text was checked when the value was made: an error cannot happen here, and
        // would only end the list early.
        let _ = read_nodes(self.as_str(), &mut out);
        out
    }

    /// Decodes the element as the codec decodes a literal one: its attributes and child
    /// elements become `T`'s fields (`@name`, `$text`, `$any` as everywhere, see the
    /// conventions), within [`Limits::default`] (the document size limit raised to the value's
    /// own size). Errors carry the path from this element (`/note/to: missing ...`).
    ///
    /// ```
    /// use serde::Deserialize;
    /// use soapstone_codec::xsd::{AnyXml, Node};
    ///
    /// #[derive(Deserialize)]
    /// struct Note {
    ///     #[serde(rename = "@lang")]
    ///     lang: String,
    ///     to: String,
    /// }
    /// let x: AnyXml = r#"<n:note xmlns:n="urn:n" lang="en">Hi <n:to>Ann</n:to>!</n:note>"#.parse()?;
    /// let note: Note = x.decode()?;
    /// assert_eq!((note.lang.as_str(), note.to.as_str()), ("en", "Ann"));
    /// assert_eq!(x.text(), "Hi !");
    /// match &x.nodes()[1] {
    ///     Node::Element(to) => assert_eq!(to.as_str(), r#"<n:to xmlns:n="urn:n">Ann</n:to>"#),
    ///     Node::Text(t) => panic!("{t}"),
    /// }
    /// # Ok::<(), soapstone_codec::DecodeError>(())
    /// ```
    pub fn decode<T: DeserializeOwned>(&self) -> Result<T, DecodeError> {
        const OPEN: &str =
            "<e:Envelope xmlns:e=\"http://schemas.xmlsoap.org/soap/envelope/\"><e:Body>";
        const CLOSE: &str = "</e:Body></e:Envelope>";
        let mut doc = String::with_capacity(OPEN.len() + self.as_str().len() + CLOSE.len());
        doc.push_str(OPEN);
        doc.push_str(self.as_str());
        doc.push_str(CLOSE);
        let mut limits = Limits::default();
        limits.max_document_bytes = limits.max_document_bytes.max(doc.len());
        let env = Envelope::parse(doc.as_bytes(), &limits).map_err(from_element)?;
        env.read_body::<T>(Style::Literal, None)
            .map_err(from_element)
    }
}

/// The path of an error in the wrapping envelope made relative to the element.
fn from_element(e: DecodeError) -> DecodeError {
    match e.message().strip_prefix("/Envelope/Body") {
        Some(rest) if rest.starts_with('/') => {
            let rest = rest.to_string();
            e.with_message(rest)
        }
        _ => e,
    }
}

fn read_nodes(xml: &str, out: &mut Vec<Node>) -> Result<(), DecodeError> {
    let limits = Limits {
        max_document_bytes: usize::MAX,
        max_depth: usize::MAX,
        max_attributes: usize::MAX,
        max_name_len: usize::MAX,
        max_text_len: usize::MAX,
        ..Limits::default()
    };
    let src = Source::new(xml, limits);
    let mut cur = Cursor::new(&src, 0, &[], NsStack::default());
    if !matches!(cur.next()?, Ev::Start(_)) {
        return Ok(());
    }
    let push_text = |out: &mut Vec<Node>, t: Cow<'_, str>| match out.last_mut() {
        Some(Node::Text(acc)) => acc.push_str(&t),
        _ => out.push(Node::Text(t.into_owned())),
    };
    loop {
        match cur.next()? {
            Ev::Start(name) => {
                let start = cur.last_start_at;
                let decls = declarations_in_scope(&cur);
                cur.skip_element()?;
                let end = cur.position();
                let rest = xml.get(start + 1 + name.len()..end).unwrap_or("");
                let mut one = String::with_capacity(1 + name.len() + decls.len() + rest.len());
                one.push('<');
                one.push_str(name);
                one.push_str(&decls);
                one.push_str(rest);
                out.push(Node::Element(AnyXml::checked(one)));
            }
            Ev::Text(t) => push_text(out, unescape(t)?),
            Ev::CData(t) => push_text(out, Cow::Borrowed(t)),
            Ev::End | Ev::Eof => return Ok(()),
        }
    }
}

/// The declarations in scope around the element just opened that it does not make itself,
/// written as attributes (` xmlns:p="uri"`), innermost first.
fn declarations_in_scope(cur: &Cursor<'_, '_>) -> String {
    let (outer, own) = cur.ns.bindings().split_at(cur.own_bindings_from());
    let mut done: Vec<&str> = own.iter().map(|b| b.prefix).collect();
    done.push("xml");
    let mut decls = Vec::new();
    for b in outer.iter().rev() {
        if done.contains(&b.prefix) {
            continue;
        }
        done.push(b.prefix);
        if b.prefix.is_empty() && b.uri.is_empty() {
            continue;
        }
        decls.extend_from_slice(b" xmlns");
        if !b.prefix.is_empty() {
            decls.push(b':');
            decls.extend_from_slice(b.prefix.as_bytes());
        }
        decls.extend_from_slice(b"=\"");
        crate::write::attr(&mut decls, &b.uri);
        decls.push(b'"');
    }
    String::from_utf8(decls).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nodes_are_text_runs_and_standalone_elements_in_order() {
        let x: AnyXml = r#"<p:a xmlns:p="urn:p" xmlns="urn:d">one &amp; <p:b k="1">in<c/></p:b><!-- c -->two<![CDATA[<3]]><d xmlns=""/></p:a>"#
            .parse()
            .unwrap();
        let nodes = x.nodes();
        assert_eq!(nodes.len(), 4, "{nodes:?}");
        assert_eq!(nodes[0], Node::Text("one & ".into()));
        let Node::Element(b) = &nodes[1] else {
            panic!("{nodes:?}")
        };
        assert_eq!(
            b.as_str(),
            r#"<p:b xmlns="urn:d" xmlns:p="urn:p" k="1">in<c/></p:b>"#
        );
        assert_eq!(nodes[2], Node::Text("two<3".into()));
        let Node::Element(d) = &nodes[3] else {
            panic!("{nodes:?}")
        };
        assert_eq!(d.as_str(), r#"<d xmlns:p="urn:p" xmlns=""/>"#);
        assert_eq!(x.text(), "one & two<3");
        assert_eq!(x.elements().len(), 2);
        // each stands alone: it parses again as it is
        assert!(AnyXml::parse(b.as_str()).is_ok());
        assert!(AnyXml::parse(d.as_str()).is_ok());
        assert!(AnyXml::parse("<e/>").unwrap().nodes().is_empty());
    }
}
