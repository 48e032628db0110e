//! Simple values from their lexical form outside a document: what an attribute's `default`
//! or `fixed` value (a string in the schema) means as the field's type, so that generated
//! code can fill in an absent attribute and check a fixed one.
//!
//! Must never accept what the codec would refuse in a document: the text is parsed exactly
//! as one item of an `xsd:list` is (numbers, `true`/`false`/`1`/`0`, strings, unit enums,
//! the `xsd` value types), whole (whitespace inside a string is kept).

use std::marker::PhantomData;

use serde::de::{self, DeserializeOwned};

use crate::list::ItemDe;

/// `text` as a `T`, or why not (lower-case, the text quoted).
pub fn parse_lexical<T: DeserializeOwned>(text: &str) -> Result<T, String> {
    T::deserialize(ItemDe::<de::value::Error>(text, PhantomData))
        .map_err(|e| e.to_string().replacen("list item ", "value ", 1))
}

/// An optional attribute field's value as read (`None`: absent), checked against the
/// schema's `fixed` value: absent means the fixed value (XML Schema 1.0 part 1, 3.2.1),
/// another value is an error naming the attribute. For a field's `deserialize_with`.
pub fn check_fixed<T, E>(value: Option<T>, attribute: &str, fixed: &str) -> Result<Option<T>, E>
where
    T: DeserializeOwned + PartialEq,
    E: de::Error,
{
    match value {
        None => fixed_value(attribute, fixed).map(Some),
        Some(v) => check_fixed_value(v, attribute, fixed).map(Some),
    }
}

/// A required attribute's value checked against the schema's `fixed` value.
pub fn check_fixed_value<T, E>(value: T, attribute: &str, fixed: &str) -> Result<T, E>
where
    T: DeserializeOwned + PartialEq,
    E: de::Error,
{
    if value == fixed_value::<T, E>(attribute, fixed)? {
        Ok(value)
    } else {
        Err(E::custom(format!(
            "attribute `{attribute}` is fixed to `{fixed}` and has another value"
        )))
    }
}

fn fixed_value<T: DeserializeOwned, E: de::Error>(attribute: &str, fixed: &str) -> Result<T, E> {
    parse_lexical(fixed).map_err(|e| {
        E::custom(format!(
            "the fixed value `{fixed}` of attribute `{attribute}` is not of its type: {e}"
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_parse_as_list_items_do_but_whole() {
        assert_eq!(parse_lexical::<bool>("true"), Ok(true));
        assert_eq!(parse_lexical::<bool>("0"), Ok(false));
        assert_eq!(parse_lexical::<i32>("-7"), Ok(-7));
        assert_eq!(parse_lexical::<String>("two words"), Ok("two words".into()));
        assert!(parse_lexical::<i32>("seven")
            .unwrap_err()
            .contains("`seven`"));
    }

    #[test]
    fn fixed_fills_in_and_refuses_another_value() {
        type R = Result<Option<i32>, de::value::Error>;
        let r: R = check_fixed(None, "version", "2");
        assert_eq!(r.unwrap(), Some(2));
        let r: R = check_fixed(Some(2), "version", "2");
        assert_eq!(r.unwrap(), Some(2));
        let r: R = check_fixed(Some(3), "version", "2");
        assert_eq!(
            r.unwrap_err().to_string(),
            "attribute `version` is fixed to `2` and has another value"
        );
    }

    proptest::proptest! {
        // Any text (a hostile or mistyped schema value) is a value or an error, never a panic.
        #[test]
        fn any_text_is_a_value_or_an_error(text in "\\PC{0,64}") {
            let _ = parse_lexical::<i32>(&text);
            let _ = parse_lexical::<bool>(&text);
            let _ = parse_lexical::<f64>(&text);
            let _ = parse_lexical::<crate::xsd::DateTime>(&text);
            let _ = parse_lexical::<crate::xsd::Decimal>(&text);
            let r: Result<Option<u8>, de::value::Error> = check_fixed(None, "a", &text);
            let _ = r;
        }
    }
}
