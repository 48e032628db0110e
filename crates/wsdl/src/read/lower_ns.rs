//! The wire name of an element field: `name` when the element is in the namespace the codec
//! writes its parent type's children in, `{ns}name` when it has a namespace of its own.
//!
//! It exists because XML Schema lets one type hold elements of several namespaces: a `ref` to
//! another schema's global element, a qualified local element inherited from a base type of
//! another schema (node-soap's `UpdateProfile` samples: `NamePhone` extends `Common:Phone`),
//! and per-element `form` mixing qualified and unqualified elements in one schema. The
//! codec writes a `{ns}name` field in `ns` (`{}name`: in no namespace) whatever its parent's
//! namespace, so the model keeps each element exactly where the schema puts it.
//!
//! The port's majority rule (`ServiceModel::qualified`) is what the first local element says;
//! an element that differs from it carries its namespace in its name. Must never give an
//! element a name whose namespace differs from the schema's, nor refuse a mix the codec can
//! write.

use soapstone_codec::QName;

use super::components::{ElementDecl, Loc, TypeUse};
use super::lower::LowerError;
use super::lower_types::Lower;
use crate::model::BindingStyle;
use crate::xsd::{Schema, TypeDef, TypeRef};

impl<'d> Lower<'d> {
    /// The field name of the element `name` (namespace empty when unqualified) held by a type
    /// of namespace `owner`; `reference` when it is a `ref` to a global element.
    pub(super) fn wire_name(
        &mut self,
        name: &QName,
        reference: bool,
        at: &Loc,
        owner: &str,
    ) -> Result<String, LowerError> {
        let qualified = !name.namespace.is_empty();
        if qualified && self.style == BindingStyle::RpcEncoded {
            return Err(LowerError::new(
                at,
                format!("element `{}` is qualified in an rpc/encoded binding: SOAP encoding's accessors are unqualified (SOAP 1.1 section 5.1)", name.local),
            ));
        }
        // rpc/literal messages are unqualified (WS-I BP R2735): a qualified element (a type
        // of a qualified schema below an element part) carries its namespace in its name.
        if self.style == BindingStyle::RpcLiteral && self.qualified.is_none() {
            self.qualified = Some((false, at.clone()));
        }
        // A local element of the type's own schema decides the port's rule; a reference
        // (always qualified) says nothing about local elements.
        if !reference
            && (name.namespace.is_empty() || name.namespace == owner)
            && self.qualified.is_none()
        {
            self.qualified = Some((qualified, at.clone()));
        }
        let rule = self.qualified.as_ref().map(|(q, _)| *q);
        let plain = if name.namespace.is_empty() {
            rule == Some(false)
        } else {
            name.namespace == owner && rule == Some(true)
        };
        Ok(if plain {
            name.local.clone()
        } else {
            format!("{{{}}}{}", name.namespace, name.local)
        })
    }

    /// The struct type of a fault's detail element, which may be of another namespace than
    /// the service's (its anonymous type is then of that namespace too, as its children are).
    pub(super) fn detail_type(
        &mut self,
        schema: &mut Schema,
        element: &'d ElementDecl,
    ) -> Result<TypeRef, LowerError> {
        if let Some((at, message)) = self.defs.unknown_inside(&element.name) {
            return Err(LowerError::new(&at, message));
        }
        let t = match &element.ty {
            Some(TypeUse::Named(q)) => self.type_ref(schema, q, &element.loc)?,
            Some(TypeUse::Inline(d)) => {
                let ns = element.name.namespace.clone();
                self.anonymous_ref(schema, d, &element.name.local, &ns)?
            }
            None => TypeRef::xsd("anyType"),
        };
        let is_struct = schema.types().iter().any(|n| {
            n.name == t.name.local
                && n.namespace == t.name.namespace
                && matches!(n.def, TypeDef::Struct(_))
        });
        if !is_struct {
            return Err(LowerError::new(
                &element.loc,
                format!(
                    "element `{}` is not of a complex type: fault details of the service model hold elements",
                    element.name.local
                ),
            ));
        }
        Ok(t)
    }

    /// Notes where a field with a namespace of its own holds a struct of the service
    /// namespace: in a qualified message the codec writes that struct's children in the
    /// field's namespace (it cannot return to the wrapper's below another one).
    pub(super) fn note_scope(&mut self, schema: &Schema, wire: &str, t: &TypeRef, at: &Loc) {
        let Some((ns, _)) = wire.strip_prefix('{').and_then(|r| r.split_once('}')) else {
            return;
        };
        if ns != self.namespace
            && t.name.namespace == self.namespace
            && matches!(
                schema.get(&t.name.local),
                Some(TypeDef::Struct(_) | TypeDef::List(_))
            )
            && self.back_to_service.is_none()
        {
            self.back_to_service = Some((at.clone(), t.name.local.clone()));
        }
    }
}
