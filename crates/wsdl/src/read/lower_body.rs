//! Lowering document/literal messages that are not one element: several body parts, or none.
//!
//! WS-I BP R2201 asks for exactly one part, but vendor WSDLs have more (node-soap's
//! `builtin_types.wsdl`: 44) or none (an output message with no part: an empty Body), and
//! zeep and CXF accept them. Such a message lowers to [`Body::Parts`](crate::Body::Parts):
//! its parts are the Body's children in order, each a global element, named `{ns}local` in
//! the model (a global element is always qualified, whatever the port's `elementFormDefault`
//! says of local ones). A part with `type=` instead of `element=` (WS-I BP R2204 forbids it;
//! zeep, CXF and .NET accept it) is an element named after the part, in no namespace, of that
//! type: `{}name`, the accessor zeep writes. Must never reorder the parts or drop one.

use super::components::{MessagePart, TypeUse};
use super::lower::LowerError;
use super::lower_types::Lower;
use crate::model::Part;
use crate::xsd::{Schema, TypeRef};

impl<'d> Lower<'d> {
    /// The parts of a message without wrapper: one per message part, in order.
    pub(super) fn bare_parts(
        &mut self,
        schema: &mut Schema,
        parts: &[&'d MessagePart],
    ) -> Result<Vec<Part>, LowerError> {
        let mut out = Vec::with_capacity(parts.len());
        for p in parts {
            if let (None, Some(ty)) = (&p.element, &p.ty) {
                // A `type=` part: the part name in no namespace, of that type, as zeep
                // writes it (`<personId>7</personId>`); the served WSDL says `type=` again.
                let t = self.type_ref(schema, ty, &p.loc)?;
                let name = format!("{{}}{}", p.name);
                // A struct of the service namespace below it cannot be qualified again.
                self.note_scope(schema, &name, &t, &p.loc);
                out.push(Part::new(name, t));
                continue;
            }
            let Some(element) = &p.element else {
                return Err(LowerError::new(
                    &p.loc,
                    format!(
                        "part `{}` names neither an element nor a type (`element=` or `type=`)",
                        p.name
                    ),
                ));
            };
            let Some(decl) = self.defs.schema.elements.get(element) else {
                return Err(LowerError::new(
                    &p.loc,
                    format!(
                        "part `{}` names the element `{{{}}}{}`, which is not defined",
                        p.name, element.namespace, element.local
                    ),
                ));
            };
            // A member of a substitution group is an element of its own; a head with members
            // would make the part a choice of body elements, which the model has not.
            if self.defs.schema.substitutes.contains_key(element) {
                return Err(LowerError::new(
                    &p.loc,
                    format!(
                        "part `{}` names the element `{}`, the head of a substitution group (or abstract): a message part is one element, name a member instead",
                        p.name, decl.name.local
                    ),
                ));
            }
            let mut t = match super::subst::effective_type(&self.defs.schema, decl) {
                Some(ty) if self.mixed_with_elements(ty, &decl.loc)? => TypeRef::xsd("anyType"),
                Some(TypeUse::Named(q)) => self.type_ref(schema, q, &decl.loc)?,
                Some(TypeUse::Inline(d)) => {
                    let ns = decl.name.namespace.clone();
                    self.anonymous_ref(schema, d, &decl.name.local, &ns)?
                }
                None => TypeRef::xsd("anyType"),
            };
            t.nillable = decl.nillable;
            let name = format!("{{{}}}{}", decl.name.namespace, decl.name.local);
            out.push(Part::new(name, t));
        }
        Ok(out)
    }
}
