//! The online shop service of Garcia et al. (seed 004): "the lookup of a reference for several
//! providers by introducing a product characteristics, like product key, property list,
//! expiration date", medium input and medium output, "the most common web service in a real
//! environment".
//!
//! Each of 12 providers carries a product or not (decided by the product key), at a price around
//! the product's base price, with a stock, a delivery time and a date the offer is valid until;
//! an offer is returned when it is still valid at the requested `expires` date. For each
//! requested property the provider matches or not (decided by provider, name and value); offers
//! report how many matched and come cheapest first. Must never: depend on the clock.

use rand::Rng;
use serde::{Deserialize, Serialize};
use soapstone_codec::Fault;

use crate::gen;

/// Most properties one query may carry.
pub const MAX_PROPERTIES: usize = 1_000;

/// The first day offers may be valid from (offers run up to two years past it).
const EPOCH: &str = "2008-01-01";

/// A wanted product characteristic.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, soapstone_service::XsdType)]
#[serde(rename_all = "camelCase")]
pub struct Property {
    /// What (`color`, `voltage`, ...).
    pub name: String,
    /// The wanted value.
    pub value: String,
}

/// A product lookup.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, soapstone_service::XsdType)]
#[serde(rename_all = "camelCase")]
pub struct ProductQuery {
    /// The product's reference, e.g. `SKU-0042-XL`.
    pub product_key: String,
    /// Wanted characteristics.
    pub properties: Vec<Property>,
    /// Offers must be valid until at least this day, `YYYY-MM-DD`.
    pub expires: String,
}

/// One provider's offer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, soapstone_service::XsdType)]
#[serde(rename_all = "camelCase")]
pub struct Offer {
    /// Who offers.
    pub provider: String,
    /// The product's reference (as asked).
    pub product_key: String,
    /// Unit price in `currency`, two decimals.
    pub price: f64,
    /// ISO 4217 code.
    pub currency: String,
    /// Units in stock.
    pub stock: i32,
    /// Days to deliver.
    pub delivery_days: i32,
    /// The offer's last valid day, `YYYY-MM-DD`.
    pub valid_until: String,
    /// How many of the requested properties this provider's product has.
    pub matched_properties: i32,
}

/// The offers for `query`, cheapest first.
pub fn offers(query: &ProductQuery) -> Result<Vec<Offer>, Fault> {
    let key = query.product_key.trim();
    if key.is_empty() {
        return Err(Fault::client("`productKey` is empty"));
    }
    if query.properties.len() > MAX_PROPERTIES {
        return Err(Fault::client(format!(
            "`{}` properties; at most `{MAX_PROPERTIES}`",
            query.properties.len()
        )));
    }
    let expires = gen::parse_date(&query.expires).ok_or_else(|| {
        Fault::client(format!(
            "`expires` is not a date (YYYY-MM-DD): `{}`",
            query.expires
        ))
    })?;
    let epoch = gen::parse_date(EPOCH).unwrap_or(0);
    let pk = gen::key(key);
    let base = 10.0 + (pk % 99_000) as f64 / 100.0;
    let mut out = Vec::new();
    for (i, provider) in gen::PROVIDERS.iter().enumerate() {
        let mut rng = gen::rng(&[5, i as u64, pk]);
        if !rng.gen_bool(0.7) {
            continue;
        }
        let valid_until = epoch + rng.gen_range(0..730);
        let price = (base * rng.gen_range(0.85..1.15) * 100.0).round() / 100.0;
        let stock = rng.gen_range(0..500);
        let delivery_days = rng.gen_range(1..15);
        if valid_until < expires {
            continue;
        }
        let matched = query
            .properties
            .iter()
            .filter(|p| {
                gen::rng(&[5, i as u64, gen::key(&p.name), gen::key(&p.value)]).gen_bool(0.8)
            })
            .count();
        out.push(Offer {
            provider: provider.to_string(),
            product_key: key.to_string(),
            price,
            currency: "EUR".into(),
            stock,
            delivery_days,
            valid_until: gen::format_date(valid_until),
            matched_properties: matched as i32,
        });
    }
    out.sort_by(|a, b| {
        a.price
            .total_cmp(&b.price)
            .then_with(|| a.provider.cmp(&b.provider))
    });
    Ok(out)
}

/// A typical medium-sized query: `n` properties (the lab's default request uses 60, ~6 KB of
/// XML, the size the seed's clients sent on average).
pub fn sample_query(product_key: &str, n: usize) -> ProductQuery {
    let names = [
        "color", "size", "material", "voltage", "weight", "warranty", "finish", "origin",
    ];
    ProductQuery {
        product_key: product_key.to_string(),
        properties: (0..n)
            .map(|i| Property {
                name: format!("{}-{i}", names[i % names.len()]),
                value: format!("value-{}", i * 7 % 13),
            })
            .collect(),
        expires: "2008-06-30".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_filtered_sorted() {
        let q = sample_query("SKU-0042-XL", 60);
        let a = offers(&q).unwrap();
        assert_eq!(a, offers(&q).unwrap());
        assert!(!a.is_empty() && a.len() <= 12, "{}", a.len());
        assert!(a.windows(2).all(|w| w[0].price <= w[1].price));
        assert!(a
            .iter()
            .all(|o| o.valid_until.as_str() >= "2008-06-30" && o.matched_properties <= 60));
        // A later expiry can only remove offers.
        let later = offers(&ProductQuery {
            expires: "2009-06-30".into(),
            ..q.clone()
        })
        .unwrap();
        assert!(later.len() <= a.len());
        assert!(later.iter().all(|o| a.contains(o)));
        assert_eq!(
            offers(&ProductQuery {
                product_key: " ".into(),
                ..q.clone()
            })
            .unwrap_err()
            .reason,
            "`productKey` is empty"
        );
        assert_eq!(
            offers(&ProductQuery {
                expires: "2008-02-30".into(),
                ..q.clone()
            })
            .unwrap_err()
            .reason,
            "`expires` is not a date (YYYY-MM-DD): `2008-02-30`"
        );
        assert_eq!(
            offers(&sample_query("K", 1001)).unwrap_err().reason,
            "`1001` properties; at most `1000`"
        );
    }
}
