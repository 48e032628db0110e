//! The canonical form an answer is compared in: version, fault code and subcodes, header
//! blocks (name and text), and the body element with its values as a tree (struct members in
//! any order, array items in order, numbers by value). Not byte for byte: prefixes, namespace
//! declarations, `xsi:type`s, whitespace and the order of struct members do not matter.

use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use soapstone_codec::{Envelope, FaultCode, Limits, QName, Style, Version};

/// A value of the body.
#[derive(Debug, Clone)]
pub(crate) enum Node {
    Text(String),
    Nil,
    /// Children in document order (struct members are sorted when compared).
    Map(Vec<(String, Node)>),
    List(Vec<Node>),
}

impl Node {
    /// Struct members sorted by name (arrays keep their order), texts trimmed. The SOAP 1.2
    /// `rpc:result` member (a QName naming the result accessor) is compared like the others.
    fn canonical(self) -> Node {
        match self {
            Node::Text(t) => Node::Text(t.trim().to_string()),
            Node::Nil => Node::Nil,
            Node::List(items) => Node::List(items.into_iter().map(Node::canonical).collect()),
            Node::Map(members) => {
                let same_names = members.windows(2).all(|w| w[0].0 == w[1].0);
                let mut members: Vec<(String, Node)> = members
                    .into_iter()
                    .map(|(k, v)| (k, v.canonical()))
                    .collect();
                if members.len() > 1 && same_names {
                    // an array written as repeated children
                    return Node::List(members.into_iter().map(|(_, v)| v).collect());
                }
                members.sort_by(|a, b| a.0.cmp(&b.0));
                Node::Map(members)
            }
        }
    }
}

impl PartialEq for Node {
    fn eq(&self, other: &Node) -> bool {
        match (self, other) {
            (Node::Text(a), Node::Text(b)) => {
                a == b || matches!((a.parse::<f64>(), b.parse::<f64>()), (Ok(x), Ok(y)) if x == y)
            }
            (Node::Nil, Node::Nil) => true,
            (Node::Map(a), Node::Map(b)) => a == b,
            (Node::List(a), Node::List(b)) => a == b,
            // one item written as a one-member map
            (Node::List(a), Node::Map(b)) | (Node::Map(b), Node::List(a)) => {
                a.len() == 1 && b.len() == 1 && a[0] == b[0].1
            }
            _ => false,
        }
    }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Node, D::Error> {
        d.deserialize_any(NodeVisitor)
    }
}

struct NodeVisitor;

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = Node;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any element")
    }
    fn visit_str<E>(self, v: &str) -> Result<Node, E> {
        Ok(Node::Text(v.to_string()))
    }
    fn visit_bool<E>(self, v: bool) -> Result<Node, E> {
        Ok(Node::Text(v.to_string()))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Node, E> {
        Ok(Node::Text(v.to_string()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Node, E> {
        Ok(Node::Text(v.to_string()))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Node, E> {
        // an f32 on the wire: compare at its precision
        Ok(Node::Text((v as f32).to_string()))
    }
    fn visit_none<E>(self) -> Result<Node, E> {
        Ok(Node::Nil)
    }
    fn visit_unit<E>(self) -> Result<Node, E> {
        Ok(Node::Nil)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Node, D::Error> {
        Node::deserialize(d)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Node>()? {
            items.push(item);
        }
        Ok(Node::List(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
        let mut members = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            members.push((key, map.next_value::<Node>()?));
        }
        Ok(Node::Map(members))
    }
}

/// An answer in canonical form.
#[derive(Debug, PartialEq)]
pub(crate) struct Canon {
    pub(crate) version: Version,
    /// Code and subcodes, for a fault.
    pub(crate) fault: Option<(FaultCode, Vec<QName>)>,
    /// Header blocks: name and trimmed text.
    pub(crate) headers: Vec<(QName, String)>,
    /// The body element and its content (`None`: an empty body or a fault).
    pub(crate) body: Option<(QName, Node)>,
}

impl fmt::Display for Canon {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.version)?;
        if let Some((code, subs)) = &self.fault {
            write!(f, " fault {code:?}")?;
            for s in subs {
                write!(f, "/{{{}}}{}", s.namespace, s.local)?;
            }
        }
        for (q, t) in &self.headers {
            write!(f, " header {}={t:?}", q.local)?;
        }
        if let Some((q, n)) = &self.body {
            write!(f, " body {}: {n:?}", q.local)?;
        }
        Ok(())
    }
}

impl Canon {
    /// Reads an answer envelope.
    pub(crate) fn read(bytes: &[u8]) -> Result<Canon, String> {
        let env = Envelope::parse(bytes, &Limits::default()).map_err(|e| e.to_string())?;
        let mut headers = Vec::new();
        for (i, h) in env.headers().iter().enumerate() {
            // `env:NotUnderstood` and `env:Upgrade` are protocol blocks the reference answers
            // lack; the fault code says the same
            if h.name.namespace == Version::Soap11.envelope_ns()
                || h.name.namespace == Version::Soap12.envelope_ns()
            {
                continue;
            }
            let text = env.header::<String>(i, Style::Literal).unwrap_or_default();
            headers.push((h.name.clone(), text.trim().to_string()));
        }
        let (fault, body) = if env.is_fault() {
            let f = env.fault().map_err(|e| e.to_string())?;
            (Some((f.code, f.subcodes)), None)
        } else {
            let body = match env.body_element().cloned() {
                None => None,
                Some(q) => {
                    let node = env
                        .body::<Node>(Style::Literal)
                        .map_err(|e| e.to_string())?;
                    Some((q, node.canonical()))
                }
            };
            (None, body)
        };
        Ok(Canon {
            version: env.version(),
            fault,
            headers,
            body,
        })
    }
}
