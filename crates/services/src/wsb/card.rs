//! The credit card service of Garcia et al. (seed 004, after Wickramage and Weerawarana): small
//! input ("the typical values in a bank-account operation, like the account number, user id")
//! and a boolean output ("whether the operation was successful or not").
//!
//! The rules are ours, deterministic and cheap, as the seed's service was ("low computational
//! execution costs"): the card number passes the Luhn check, the holder and user are named, the
//! currency is one we know, the card has not expired at the service's fixed date (2008-01, the
//! paper's time), and the amount is within the card's limit (500..5,400, derived from the
//! number). A request that breaks a rule is answered `false`, not with a fault: refusing a
//! payment is a normal answer. Must never: depend on the clock.

use serde::{Deserialize, Serialize};

use crate::gen;

/// The date the service judges expiry against (`YYYY-MM`).
pub const TODAY: &str = "2008-01";

/// Currencies the service accepts.
pub const CURRENCIES: &[&str] = &["EUR", "USD", "GBP", "SEK", "JPY"];

/// One payment to authorize.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CardPayment {
    /// The card (account) number, 12 to 19 digits.
    pub account: String,
    /// The card holder's name.
    pub holder: String,
    /// The user id of the merchant's customer.
    pub user_id: String,
    /// Amount in `currency`.
    pub amount: f64,
    /// ISO 4217 code.
    pub currency: String,
    /// Card expiry, `YYYY-MM`.
    pub expiry: String,
}

/// The Luhn check of a digit string.
pub fn luhn(number: &str) -> bool {
    if number.len() < 12 || number.len() > 19 || !number.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    let sum: u32 = number
        .bytes()
        .rev()
        .enumerate()
        .map(|(i, b)| {
            let d = u32::from(b - b'0');
            if i % 2 == 1 {
                let d = d * 2;
                if d > 9 {
                    d - 9
                } else {
                    d
                }
            } else {
                d
            }
        })
        .sum();
    sum.is_multiple_of(10)
}

/// The card's limit: 500 to 5,400 in steps of 100, derived from the number.
pub fn limit(account: &str) -> f64 {
    500.0 + (gen::key(account) % 50) as f64 * 100.0
}

fn expiry_ok(expiry: &str) -> bool {
    let b = expiry.as_bytes();
    b.len() == 7
        && b[4] == b'-'
        && b[..4].iter().chain(&b[5..]).all(u8::is_ascii_digit)
        && matches!(
            &expiry[5..],
            "01" | "02" | "03" | "04" | "05" | "06" | "07" | "08" | "09" | "10" | "11" | "12"
        )
        && expiry >= TODAY
}

/// Whether the payment is authorized.
pub fn authorize(p: &CardPayment) -> bool {
    luhn(&p.account)
        && !p.holder.trim().is_empty()
        && !p.user_id.trim().is_empty()
        && CURRENCIES.contains(&p.currency.as_str())
        && expiry_ok(&p.expiry)
        && p.amount.is_finite()
        && p.amount > 0.0
        && p.amount <= limit(&p.account)
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn payment() -> CardPayment {
        CardPayment {
            account: "4111111111111111".into(),
            holder: "Ada Lovelace".into(),
            user_id: "u-1001".into(),
            amount: 120.5,
            currency: "EUR".into(),
            expiry: "2009-06".into(),
        }
    }

    #[test]
    fn rules() {
        assert!(luhn("4111111111111111"));
        assert!(!luhn("4111111111111112"));
        assert!(!luhn("41111111111a1111"));
        assert!(authorize(&payment()));
        let no = |f: &dyn Fn(&mut CardPayment)| {
            let mut p = payment();
            f(&mut p);
            assert!(!authorize(&p), "{p:?}");
        };
        no(&|p| p.account = "4111111111111112".into());
        no(&|p| p.holder = " ".into());
        no(&|p| p.user_id = String::new());
        no(&|p| p.currency = "XXX".into());
        no(&|p| p.expiry = "2007-12".into());
        no(&|p| p.expiry = "2009-13".into());
        no(&|p| p.amount = 0.0);
        no(&|p| p.amount = f64::NAN);
        no(&|p| p.amount = limit("4111111111111111") + 1.0);
        let mut p = payment();
        p.amount = limit(&p.account);
        assert!(authorize(&p));
    }
}
