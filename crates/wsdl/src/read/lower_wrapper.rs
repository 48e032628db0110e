//! The attributes of a document/literal body wrapper element, lowered to parameters named
//! `@name` before its child elements (node-soap's `elementref/bar.xsd`: `<fooRq id="..">`).
//!
//! It exists because WSDL 1.1 and XML Schema let the wrapper element of a document/literal
//! message carry attributes (WS-I BP says nothing against it), and the codec writes a
//! request struct's `@name` fields into the wrapper's start tag. Must never drop one: an
//! attribute the model did not carry would be missing from every message sent.

use super::components::{ElementDecl, TypeKind, TypeUse};
use super::lower::LowerError;
use super::lower_types::Lower;
use crate::model::Part;
use crate::xsd::Schema;

impl<'d> Lower<'d> {
    /// The attribute parameters of the body wrapper `element` (in the order the schema has
    /// them in effect: inherited first), empty when it has none.
    pub(super) fn wrapper_attributes(
        &mut self,
        schema: &mut Schema,
        element: &'d ElementDecl,
    ) -> Result<Vec<Part>, LowerError> {
        let kind = match &element.ty {
            Some(TypeUse::Inline(d)) => &d.kind,
            Some(TypeUse::Named(q)) => match self.defs.schema.types.get(q) {
                Some(d) => &d.kind,
                None => return Ok(Vec::new()),
            },
            None => return Ok(Vec::new()),
        };
        let TypeKind::Complex(c) = kind else {
            return Ok(Vec::new());
        };
        let fields = self.markup_fields(schema, c, &element.name, &element.loc, true)?;
        Ok(fields
            .into_iter()
            .filter(|f| f.attribute().is_some())
            .map(|f| Part::new(f.name, f.ty))
            .collect())
    }
}
