//! The web service benchmark services of Garcia et al. (seed 004, after Wickramage and
//! Weerawarana), document/literal at `/wsb/card`, `/wsb/news` and `/wsb/shop`.

pub mod card;
pub mod news;
pub mod shop;
