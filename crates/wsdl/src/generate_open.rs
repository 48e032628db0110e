//! Writing the schema constructs that are not a plain sequence of named elements: a choice
//! (inline, where the field that holds it is), an `xsd:any` wildcard and an `xsd:list` type.
//!
//! Kept apart from `generate` so that the writer of sequences stays one simple loop. Must
//! never write a choice as a named type: a choice has no name in XML Schema, it is written
//! where it is used, so a WSDL read back lowers to the same model.

use quick_xml::escape::escape;

use crate::generate::Writer;
use crate::xsd::{Field, TypeDef, TypeRef};

impl Writer<'_> {
    /// Writes `f` when it is a choice or a wildcard (and says so).
    pub(crate) fn open_content(&mut self, indent: usize, f: &Field) -> bool {
        if f.is_any() {
            let occurs = occurs(&f.ty);
            self.line(
                indent,
                &format!("<xsd:any namespace=\"##any\" processContents=\"lax\"{occurs}/>"),
            );
            return true;
        }
        if f.choice().is_none() {
            return false;
        }
        let alternatives = match self.schema.and_then(|s| s.get(&f.ty.name.local)) {
            Some(TypeDef::Choice(alternatives)) => alternatives.clone(),
            _ => Vec::new(),
        };
        self.line(indent, &format!("<xsd:choice{}>", occurs(&f.ty)));
        for alt in &alternatives {
            // A sequence alternative: its elements inline, in a `<sequence>`.
            if let Some(TypeDef::Sequence(elements)) =
                self.schema.and_then(|s| s.get(&alt.ty.name.local)).cloned()
            {
                self.line(indent + 1, "<xsd:sequence>");
                for e in &elements {
                    self.element_line(indent + 2, e);
                }
                self.line(indent + 1, "</xsd:sequence>");
                continue;
            }
            self.element_line(indent + 1, alt);
        }
        self.line(indent, "</xsd:choice>");
        true
    }

    /// `<xsd:element name=".." type=".."/>` of a choice alternative or of its sequence.
    fn element_line(&mut self, indent: usize, alt: &Field) {
        {
            let (ty, decl) = self.qname(&alt.ty.name);
            let mut el = format!("<xsd:element name=\"{}\" type=\"{ty}\"", escape(&alt.name));
            el.push_str(&occurs(&alt.ty));
            if alt.ty.nillable {
                el.push_str(" nillable=\"true\"");
            }
            el.push_str(&decl);
            el.push_str("/>");
            self.line(indent, &el);
        }
    }

    /// A named type that is not a complex type of elements: an `xsd:list` (a choice is
    /// written where it is used, not here).
    pub(crate) fn open_type(&mut self, name: &str, def: &TypeDef) {
        if let TypeDef::SimpleList(item) = def {
            let (item, decl) = self.qname(&item.name);
            self.line(3, &format!("<xsd:simpleType name=\"{}\">", escape(name)));
            self.line(4, &format!("<xsd:list itemType=\"{item}\"{decl}/>"));
            self.line(3, "</xsd:simpleType>");
        }
    }
}

/// ` minOccurs="0" maxOccurs="unbounded"` as the reference says.
fn occurs(t: &TypeRef) -> String {
    let mut s = String::new();
    if t.optional {
        s.push_str(" minOccurs=\"0\"");
    }
    if t.repeated {
        s.push_str(" maxOccurs=\"unbounded\"");
    }
    s
}
