//! The contact book of Zilora and Ketha (seed 003): about 13,000 records of a name and a phone
//! number, loaded into memory at start ("the data was pre-loaded into memory with the start-up
//! of the service"), generated deterministically here.
//!
//! Must never: allocate per request more than the answer it returns.

use rand::Rng;
use serde::{Deserialize, Serialize};
use soapstone_codec::Fault;

use crate::gen;

/// Records in the book: "the system contained approximately 13,000 records".
pub const CONTACT_COUNT: usize = 13_000;

/// One contact: the name and phone number of the seed's 2-d array row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, soapstone_service::XsdType)]
pub struct Contact {
    /// `First Last`.
    pub name: String,
    /// `AAA-EEE-NNNN`.
    pub phone: String,
}

/// The in-memory book.
#[derive(Debug, Clone)]
pub struct ContactBook {
    contacts: Vec<Contact>,
}

const AREA_CODES: &[&str] = &["585", "315", "607", "716", "518", "212"];

impl Default for ContactBook {
    fn default() -> Self {
        ContactBook::generate(CONTACT_COUNT)
    }
}

impl ContactBook {
    /// `n` deterministic contacts.
    pub fn generate(n: usize) -> Self {
        let mut rng = gen::rng(&[3, 13_000]);
        let contacts = (0..n)
            .map(|_| {
                let name = format!(
                    "{} {}",
                    gen::pick(&mut rng, gen::FIRST_NAMES),
                    gen::pick(&mut rng, gen::LAST_NAMES)
                );
                let phone = format!(
                    "{}-{}-{:04}",
                    gen::pick(&mut rng, AREA_CODES),
                    rng.gen_range(200..1000),
                    rng.gen_range(0..10_000)
                );
                Contact { name, phone }
            })
            .collect();
        ContactBook { contacts }
    }

    /// Service 1: the number of contacts.
    pub fn count(&self) -> i32 {
        i32::try_from(self.contacts.len()).unwrap_or(i32::MAX)
    }

    fn first(&self, n: i32) -> Result<&[Contact], Fault> {
        usize::try_from(n)
            .ok()
            .and_then(|n| self.contacts.get(..n))
            .ok_or_else(|| {
                Fault::client(format!(
                    "count `{n}` is out of range `0..={}`",
                    self.contacts.len()
                ))
            })
    }

    /// Service 2: the names of the first `n` contacts (a 1-d array).
    pub fn names(&self, n: i32) -> Result<Vec<String>, Fault> {
        Ok(self.first(n)?.iter().map(|c| c.name.clone()).collect())
    }

    /// Service 3: name and phone of the first `n` contacts (the 2-d array, one row each).
    pub fn contacts(&self, n: i32) -> Result<Vec<Contact>, Fault> {
        Ok(self.first(n)?.to_vec())
    }

    /// One contact by index (`0..count`): the many-small-calls side of the comparison.
    pub fn contact(&self, index: i32) -> Result<Contact, Fault> {
        usize::try_from(index)
            .ok()
            .and_then(|i| self.contacts.get(i))
            .cloned()
            .ok_or_else(|| {
                Fault::client(format!(
                    "index `{index}` is out of range `0..{}`",
                    self.contacts.len()
                ))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn book_is_deterministic_and_bounded() {
        let book = ContactBook::default();
        assert_eq!(book.count(), 13_000);
        assert_eq!(
            book.contacts(13_000).unwrap(),
            ContactBook::generate(CONTACT_COUNT).contacts
        );
        let c = book.contact(0).unwrap();
        assert!(c.name.contains(' ') && c.phone.len() == 12, "{c:?}");
        assert_eq!(
            book.names(3).unwrap(),
            book.contacts(3)
                .unwrap()
                .into_iter()
                .map(|c| c.name)
                .collect::<Vec<_>>()
        );
        assert_eq!(book.names(0).unwrap(), Vec::<String>::new());
        assert_eq!(
            book.contact(12_999).unwrap(),
            book.contacts(13_000).unwrap()[12_999]
        );
        assert_eq!(
            book.names(13_001).unwrap_err().reason,
            "count `13001` is out of range `0..=13000`"
        );
        assert_eq!(
            book.contacts(-1).unwrap_err().reason,
            "count `-1` is out of range `0..=13000`"
        );
        assert_eq!(
            book.contact(13_000).unwrap_err().reason,
            "index `13000` is out of range `0..13000`"
        );
        // About 15 bytes a name, as in the seed's 1-d array.
        let avg = book
            .names(13_000)
            .unwrap()
            .iter()
            .map(String::len)
            .sum::<usize>() as f64
            / 13_000.0;
        assert!((9.0..=16.0).contains(&avg), "average name length {avg}");
    }
}
