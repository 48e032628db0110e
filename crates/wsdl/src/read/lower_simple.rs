//! Body and header elements of a simple type (`<xs:element name="Ack" type="tns:AckValue"/>`,
//! an enumeration; `ReferentieHeader` of `xs:string`): their content is one text value.
//!
//! It exists because a valid WSDL may bind such an element as a document/literal body (bare)
//! or as a header block, and the service model's bodies and header blocks hold the fields of a
//! wrapper. Text content is what the codec already writes and reads as a `$text` field, so a
//! simple body is a message whose one part is `$text` (the wrapper's text), and a simple
//! header block is a struct named after the element with one `$text` field: the bytes on the
//! wire are the schema's (`<Ack>Success</Ack>`). The served WSDL describes the same instances
//! with a `simpleContent` extension of the value's type instead of the simple type itself, and
//! a body element of such a type (attributes beside text) is read back the same way.
//!
//! Must never take a type whose text the codec cannot write as the schema says (a list or a
//! complex type): those stay refused where they were.

use super::check::is_builtin;
use super::components::{ElementDecl, TypeKind, TypeUse};
use super::lower::LowerError;
use super::lower_types::Lower;
use crate::model::Part;
use crate::xsd::{Field, Schema, TypeDef, TypeRef, TEXT_FIELD};

impl<'d> Lower<'d> {
    /// The type of the text of `element` when its type is simple (a built-in simple type, a
    /// restriction or union of one, a string enumeration), else `None`.
    pub(super) fn simple_value(
        &mut self,
        schema: &mut Schema,
        element: &'d ElementDecl,
    ) -> Result<Option<TypeRef>, LowerError> {
        let simple = match &element.ty {
            Some(TypeUse::Named(q)) if is_builtin(q) => q.local != "anyType",
            Some(TypeUse::Named(q)) => matches!(
                self.defs.schema.types.get(q).map(|d| &d.kind),
                Some(TypeKind::Simple(_))
            ),
            Some(TypeUse::Inline(d)) => matches!(d.kind, TypeKind::Simple(_)),
            None => false,
        };
        if !simple {
            return Ok(None);
        }
        let t = match &element.ty {
            Some(TypeUse::Named(q)) => self.type_ref(schema, q, &element.loc)?,
            Some(TypeUse::Inline(d)) => {
                let ns = element.name.namespace.clone();
                self.anonymous_ref(schema, d, &element.name.local, &ns)?
            }
            None => return Ok(None),
        };
        let text = t.name.namespace == crate::xsd::XSD_NS
            || matches!(schema.get(&t.name.local), Some(TypeDef::Enum(_)));
        Ok(text.then_some(t))
    }

    /// The parts of a document/literal body element of a simple type (its text, `$text`), or
    /// of a complex type with simple content (its attributes `@name`, then `$text`: what the
    /// served WSDL writes for the former).
    pub(super) fn simple_body(
        &mut self,
        schema: &mut Schema,
        element: &'d ElementDecl,
    ) -> Result<Option<Vec<Part>>, LowerError> {
        if let Some(t) = self.simple_value(schema, element)? {
            return Ok(Some(vec![Part::new(TEXT_FIELD, TypeRef::new(t.name))]));
        }
        let decl = match &element.ty {
            Some(TypeUse::Named(q)) => self.defs.schema.types.get(q),
            Some(TypeUse::Inline(d)) => Some(&**d),
            None => None,
        };
        let Some(TypeKind::Complex(c)) = decl.map(|d| &d.kind) else {
            return Ok(None);
        };
        if !c.simple_content || c.mixed {
            return Ok(None);
        }
        let fields = self.markup_fields(schema, c, &element.name, &element.loc, false)?;
        Ok(Some(
            fields
                .into_iter()
                .map(|f| Part::new(f.name, f.ty))
                .collect(),
        ))
    }

    /// The struct of a header block element of a simple type: named after the element (made
    /// unique), one `$text` field; the same struct for every use of the element.
    pub(super) fn simple_block(
        &mut self,
        schema: &mut Schema,
        element: &'d ElementDecl,
    ) -> Result<Option<TypeRef>, LowerError> {
        if let Some(t) = self.simple_blocks.get(&element.name) {
            return Ok(Some(t.clone()));
        }
        let Some(value) = self.simple_value(schema, element)? else {
            return Ok(None);
        };
        let local = self.unique_name(&element.name.local);
        let field = Field::new(TEXT_FIELD, TypeRef::new(value.name));
        let t = schema.define(&local, super::lower_types::FROM_WSDL, |_| {
            TypeDef::Struct(vec![field])
        });
        self.simple_blocks.insert(element.name.clone(), t.clone());
        Ok(Some(t))
    }
}
