//! The web service benchmark services of Garcia et al. (seed 004, after Wickramage and
//! Weerawarana), document/literal at `/wsb/card`, `/wsb/news` and `/wsb/shop`.

pub mod card;
pub mod news;
mod service;
pub mod shop;

pub use service::{
    card_model, news_model, shop_model, Card, CardClient, CardImpl, CardServer, News, NewsClient,
    NewsImpl, NewsServer, Shop, ShopClient, ShopImpl, ShopServer, CARD_NAMESPACE, NEWS_NAMESPACE,
    SHOP_NAMESPACE,
};
