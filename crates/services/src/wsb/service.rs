//! The three WS benchmark services as SOAP services, document/literal wrapped, each in its own
//! namespace and on its own path. Parameters are flat (one element each) so that the input
//! sizes are the seed's: small for the card, a short query for the news, a long property list
//! for the shop.

use soapstone_codec::Fault;

use super::card::{self, CardPayment};
use super::news::{self, Headline, NewsQuery};
use super::shop::{self, Offer, ProductQuery, Property};

/// The card service's namespace.
pub const CARD_NAMESPACE: &str = "urn:soapstone:wsb:card";
/// The news service's namespace.
pub const NEWS_NAMESPACE: &str = "urn:soapstone:wsb:news";
/// The shop service's namespace.
pub const SHOP_NAMESPACE: &str = "urn:soapstone:wsb:shop";

/// The credit card service (small input, boolean output). Never cached: each authorization
/// is a decision about one payment.
#[soapstone_service::service(name = "CardService", namespace = "urn:soapstone:wsb:card")]
pub trait Card {
    /// Whether the payment is authorized: valid card number (Luhn), holder and user named,
    /// known currency (EUR, USD, GBP, SEK, JPY), not expired at 2008-01, within the limit.
    #[soap(result = "authorized")]
    async fn authorize(
        &self,
        account: String,
        holder: String,
        user_id: String,
        amount: f64,
        currency: String,
        expiry: String,
    ) -> Result<bool, Fault>;
}

/// The news service (small query, large list of headlines).
#[soapstone_service::service(name = "NewsService", namespace = "urn:soapstone:wsb:news")]
pub trait News {
    /// The headlines of the days `from..=to` (`YYYY-MM-DD`) from `sources` (all when empty).
    /// Cacheable: a pure function of the request.
    #[soap(result = "headline", cache)]
    async fn get_headlines(
        &self,
        from: String,
        to: String,
        sources: Vec<String>,
    ) -> Result<Vec<Headline>, Fault>;
    /// The source names (cacheable: a constant).
    #[soap(result = "source", cache)]
    async fn get_sources(&self) -> Result<Vec<String>, Fault>;
}

/// The online shop service (medium input, medium list of offers).
#[soapstone_service::service(name = "ShopService", namespace = "urn:soapstone:wsb:shop")]
pub trait Shop {
    /// The providers' offers for `productKey` that match `properties` and are still valid at
    /// `expires` (`YYYY-MM-DD`), cheapest first. Cacheable: a pure function of the request.
    #[soap(result = "offer", cache)]
    async fn find_offers(
        &self,
        product_key: String,
        properties: Vec<Property>,
        expires: String,
    ) -> Result<Vec<Offer>, Fault>;
}

/// The card service's implementation (stateless).
#[derive(Debug, Clone, Copy, Default)]
pub struct CardImpl;

/// The news service's implementation (stateless: headlines are generated per request).
#[derive(Debug, Clone, Copy, Default)]
pub struct NewsImpl;

/// The shop service's implementation (stateless).
#[derive(Debug, Clone, Copy, Default)]
pub struct ShopImpl;

impl Card for CardImpl {
    async fn authorize(
        &self,
        account: String,
        holder: String,
        user_id: String,
        amount: f64,
        currency: String,
        expiry: String,
    ) -> Result<bool, Fault> {
        Ok(card::authorize(&CardPayment {
            account,
            holder,
            user_id,
            amount,
            currency,
            expiry,
        }))
    }
}

impl News for NewsImpl {
    async fn get_headlines(
        &self,
        from: String,
        to: String,
        sources: Vec<String>,
    ) -> Result<Vec<Headline>, Fault> {
        news::headlines(&NewsQuery { from, to, sources })
    }
    async fn get_sources(&self) -> Result<Vec<String>, Fault> {
        Ok(news::sources())
    }
}

impl Shop for ShopImpl {
    async fn find_offers(
        &self,
        product_key: String,
        properties: Vec<Property>,
        expires: String,
    ) -> Result<Vec<Offer>, Fault> {
        shop::offers(&ProductQuery {
            product_key,
            properties,
            expires,
        })
    }
}
