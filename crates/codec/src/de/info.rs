//! What the body decoder needs from one start tag, and the `xsi:type` compatibility rules.
//!
//! Only a handful of attributes matter to SOAP bodies (`xsi:type`, `xsi:nil`, `href`/`id`,
//! SOAP-ENC `arrayType`, SOAP 1.2 `itemType`/`arraySize`/`ref`/`id`); they are picked out by
//! local name first so that no namespace lookup is spent on any other attribute.
//! Must never: allocate for an array size before it is checked against `max_array_len`.

use crate::error::{excerpt, DecodeError};
use crate::xml::{split_qname, Cursor, NsKind};

/// Array dimensions from `arrayType="t[a,b]"` or `arraySize="a b"`; 0 is "unknown" (`*`,
/// `[]`); rank 0: the element is not marked as an array.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Dims {
    pub(crate) d: [u32; 4],
    pub(crate) rank: u8,
}

impl Dims {
    pub(crate) const ONE: Dims = Dims { d: [0; 4], rank: 1 };

    pub(crate) fn rest(self) -> Dims {
        Dims {
            d: [self.d[1], self.d[2], self.d[3], 0],
            rank: self.rank.saturating_sub(1),
        }
    }

    pub(crate) fn is_array(self) -> bool {
        self.rank > 0
    }

    pub(crate) fn first(self) -> usize {
        self.d[0] as usize
    }
}

/// The facts of one element start that the decoder uses (small and `Copy`: it is made for
/// every array item).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Info<'a> {
    pub(crate) qname: &'a str,
    pub(crate) xsi_type: Option<&'a str>,
    /// The id an `href`/`ref` points to, without `#`.
    pub(crate) href: Option<&'a str>,
    pub(crate) array: Dims,
    pub(crate) nil: bool,
}

impl<'a> Info<'a> {
    pub(crate) fn local(&self) -> &'a str {
        split_qname(self.qname).1
    }

    /// Reads the start tag just opened by `cur`.
    #[inline]
    pub(crate) fn read(cur: &Cursor<'a, '_>, qname: &'a str) -> Result<Self, DecodeError> {
        let mut info = Info {
            qname,
            xsi_type: None,
            href: None,
            array: Dims::default(),
            nil: false,
        };
        if cur.attrs.is_empty() {
            return Ok(info);
        }
        info.read_attrs(cur)?;
        Ok(info)
    }

    fn read_attrs(&mut self, cur: &Cursor<'a, '_>) -> Result<(), DecodeError> {
        let mut id = false;
        let mut item_type = false;
        for a in &cur.attrs {
            match a.local {
                "type" | "nil" | "arrayType" | "itemType" | "arraySize" | "ref" | "id" | "href" => {
                }
                _ => continue,
            }
            let kind = cur.attr_kind(a)?;
            match (a.local, kind) {
                ("href", NsKind::None) => {
                    let v = a.plain().map_err(|e| cur.err(e))?;
                    match v.strip_prefix('#') {
                        Some(id) => self.href = Some(id),
                        None => {
                            return Err(cur.malformed(format!(
                                "reference {} is not local (`#id`)",
                                excerpt(v)
                            )))
                        }
                    }
                }
                ("id", NsKind::None) => id = true,
                ("type", NsKind::Xsi) => self.xsi_type = Some(a.plain().map_err(|e| cur.err(e))?),
                ("nil", NsKind::Xsi) => self.nil = matches!(a.raw.trim(), "true" | "1"),
                ("arrayType", NsKind::Enc11) => self.array = array_type(cur, &a.value()?)?,
                ("itemType", NsKind::Enc12) => item_type = true,
                ("arraySize", NsKind::Enc12) => self.array = array_size(cur, &a.value()?)?,
                ("ref", NsKind::Enc12) => {
                    let v = a.plain().map_err(|e| cur.err(e))?;
                    self.href = Some(v.strip_prefix('#').unwrap_or(v));
                }
                ("id", NsKind::Enc12) => id = true,
                _ => {}
            }
        }
        if item_type && !self.array.is_array() {
            self.array = Dims::ONE;
        }
        if id && self.href.is_some() {
            return Err(cur.malformed("an element may not carry both an id and a reference"));
        }
        Ok(())
    }
}

fn too_big(cur: &Cursor<'_, '_>, v: &str) -> DecodeError {
    cur.err(DecodeError::limit(format!(
        "array size {} exceeds the limit of {} items",
        excerpt(v),
        cur.limits().max_array_len
    )))
}

fn parse_dims<'x>(
    cur: &Cursor<'_, '_>,
    whole: &str,
    parts: impl Iterator<Item = &'x str>,
    star_ok: bool,
) -> Result<Dims, DecodeError> {
    let mut dims = Dims::default();
    let mut total: usize = 1;
    for (i, p) in parts.enumerate() {
        let p = p.trim();
        if i >= 4 {
            return Err(cur.malformed(format!(
                "array of more than 4 dimensions: {}",
                excerpt(whole)
            )));
        }
        let n = if p.is_empty() || p == "*" {
            if p == "*" && (!star_ok || i > 0) {
                return Err(cur.malformed(format!(
                    "`*` may only be the first array size in {}",
                    excerpt(whole)
                )));
            }
            0
        } else {
            let n: usize = p.parse().map_err(|_| {
                if p.bytes().all(|b| b.is_ascii_digit()) {
                    too_big(cur, whole)
                } else {
                    cur.malformed(format!("bad array size {}", excerpt(whole)))
                }
            })?;
            total = total
                .checked_mul(n.max(1))
                .ok_or_else(|| too_big(cur, whole))?;
            if n > cur.limits().max_array_len || total > cur.limits().max_array_len {
                return Err(too_big(cur, whole));
            }
            n
        };
        // n <= max_array_len, which fits in u32 for any sane limit; clamp for insane ones
        dims.d[i] = u32::try_from(n).unwrap_or(u32::MAX);
        dims.rank += 1;
    }
    if dims.rank == 0 {
        dims.rank = 1;
    }
    Ok(dims)
}

/// `SOAP-ENC:arrayType="xsd:int[3]"`, `"xsd:string[2,3]"`, `"xsd:string[][2]"`.
fn array_type(cur: &Cursor<'_, '_>, v: &str) -> Result<Dims, DecodeError> {
    let v = v.trim();
    let open = v
        .rfind('[')
        .ok_or_else(|| cur.malformed(format!("bad arrayType {}", excerpt(v))))?;
    let inner = v[open + 1..]
        .strip_suffix(']')
        .ok_or_else(|| cur.malformed(format!("bad arrayType {}", excerpt(v))))?;
    parse_dims(cur, v, inner.split(','), false)
}

/// SOAP 1.2 `enc:arraySize="2 3"` or `"* 3"`.
fn array_size(cur: &Cursor<'_, '_>, v: &str) -> Result<Dims, DecodeError> {
    parse_dims(cur, v, v.split_ascii_whitespace(), true)
}

/// What a Rust target expects; decides which `xsi:type`s are compatible.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Want {
    Bool,
    Int(&'static str),
    Float(&'static str),
    Str,
    /// One of the `xsd` module types, by XSD local name.
    Named(&'static str),
    Struct,
    Seq,
    Enum,
}

impl Want {
    pub(crate) fn name(self) -> String {
        match self {
            Want::Bool => "xsd:boolean".into(),
            Want::Int(n) | Want::Float(n) | Want::Named(n) => format!("xsd:{n}"),
            Want::Str => "xsd:string".into(),
            Want::Struct => "a struct".into(),
            Want::Seq => "an array".into(),
            Want::Enum => "an enumeration value".into(),
        }
    }
}

const INTEGERS: &[&str] = &[
    "int",
    "integer",
    "long",
    "short",
    "byte",
    "unsignedInt",
    "unsignedLong",
    "unsignedShort",
    "unsignedByte",
    "nonNegativeInteger",
    "positiveInteger",
    "nonPositiveInteger",
    "negativeInteger",
];

const STRINGS: &[&str] = &[
    "string",
    "normalizedString",
    "token",
    "language",
    "Name",
    "NCName",
    "NMTOKEN",
    "ID",
    "IDREF",
    "ENTITY",
    "anyURI",
    "anyType",
    "anySimpleType",
    "ur-type",
];

/// Whether a schema-namespace `xsi:type` local name is one of the XSD integer types.
pub(crate) fn int_type(local: &str) -> bool {
    INTEGERS.contains(&local)
}

/// Whether a schema-namespace `xsi:type` local name may be read into `want`.
pub(crate) fn compatible(want: Want, local: &str) -> bool {
    if local == "anyType" || local == "ur-type" || local == "anySimpleType" {
        return true;
    }
    match want {
        Want::Bool => local == "boolean",
        Want::Int(_) => INTEGERS.contains(&local),
        Want::Float(_) => {
            local == "float" || local == "double" || local == "decimal" || INTEGERS.contains(&local)
        }
        Want::Str | Want::Enum => STRINGS.contains(&local),
        Want::Named(n) => {
            local == n
                || (n == "dateTime" && local == "timeInstant")
                || (n == "base64Binary" && local == "base64")
                || (n == "decimal" && INTEGERS.contains(&local))
                || (n == "anyURI" && local == "string")
        }
        Want::Struct => local == "Struct",
        Want::Seq => local == "Array",
    }
}
