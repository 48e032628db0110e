//! Checks a peer's answers to the seeds' document/literal services (García's card, news and shop,
//! Zilora & Ketha's contacts, Ruby's echoFloat) before any of its points is timed.
//!
//! Why not compare bytes with soapstone's answers: the peers generate their headlines, offers and
//! contacts with their own small generator (soapstone's is ChaCha8, which a Java, C# or Erlang
//! peer would have to reimplement), so the values differ. What must not differ is what a client
//! relies on and what sets the work per call: the answer element, the number of items, the fields
//! of each item, and the ordering rules (headlines by requested source, offers cheapest first).
//! This module checks exactly that for the lab's requests
//! ([`crate::experiments::wsb::request`], [`crate::experiments::contacts::request`], Ruby's
//! echoFloat) and must never accept a fault, a missing field, or a wrong count.

use super::check::http_body;

/// The sources, day, product key, property count and expiry of the lab's requests.
const NEWS_SOURCES: [&str; 6] = [
    "coruna-herald",
    "atlantic-wire",
    "galicia-daily",
    "iberian-post",
    "morning-ledger",
    "harbor-times",
];
const NEWS_DAY: &str = "2008-01-14";
const SHOP_KEY: &str = "SKU-12345";
const SHOP_PROPERTIES: i64 = 20;
const SHOP_EXPIRES: &str = "2008-06-30";
/// The float of Ruby's echoFloat request.
const RUBY_INPUT: &str = "3.14159";
/// The contact book's size (the seed's "approximately 13,000 records").
const CONTACTS: i64 = 13_000;

/// POSTs `body` to `http://addr{path}` with an empty SOAPAction and checks the answer to `op`
/// (`n` items for the contacts arrays).
pub(crate) async fn check_document(
    addr: &str,
    path: &str,
    body: &str,
    op: &str,
    n: Option<u32>,
) -> Result<(), String> {
    let raw = super::check::post(addr, path, body, "").await?;
    check_answer(&http_body(&raw)?, op, n)
}

fn local<'a>(n: roxmltree::Node<'a, '_>) -> &'a str {
    n.tag_name().name()
}

fn elements<'a, 'i>(n: roxmltree::Node<'a, 'i>) -> impl Iterator<Item = roxmltree::Node<'a, 'i>> {
    n.children().filter(|c| c.is_element())
}

fn field(item: roxmltree::Node, name: &str, what: &str) -> Result<String, String> {
    elements(item)
        .find(|c| local(*c) == name)
        .map(|c| c.text().unwrap_or_default().trim().to_owned())
        .ok_or_else(|| format!("{what} has no `{name}`"))
}

/// The items of an array answer: the response's own children (soapstone, CXF, Axis2: repeated
/// elements), or the children of its one wrapper element (.NET's `getContactsResult`).
fn items<'a, 'i>(resp: roxmltree::Node<'a, 'i>, leaf: &str) -> Vec<roxmltree::Node<'a, 'i>> {
    let kids: Vec<_> = elements(resp).collect();
    match kids.as_slice() {
        [one] if elements(*one).next().is_some() && elements(*one).all(|c| local(c) != leaf) => {
            elements(*one).collect()
        }
        _ => kids,
    }
}

/// Checks the SOAP envelope `xml` answering `op` of the lab's request.
pub(crate) fn check_answer(xml: &str, op: &str, n: Option<u32>) -> Result<(), String> {
    let doc = roxmltree::Document::parse(xml).map_err(|e| format!("the answer is not XML: {e}"))?;
    let body = elements(doc.root_element())
        .find(|c| local(*c) == "Body")
        .ok_or("the answer has no `Envelope/Body`")?;
    let resp = elements(body).next().ok_or("the answer's body is empty")?;
    if local(resp) == "Fault" {
        let why = resp
            .descendants()
            .find(|d| d.has_tag_name("faultstring"))
            .and_then(|d| d.text())
            .unwrap_or_default();
        return Err(format!("a fault: `{}`", why.trim()));
    }
    let name = local(resp);
    let expect = |want: &str| {
        if name == want {
            Ok(())
        } else {
            Err(format!("`/Envelope/Body/{name}` instead of `{want}`"))
        }
    };
    let n = i64::from(n.unwrap_or(0));
    match op {
        "authorize" => {
            expect("authorizeResponse")?;
            let v = elements(resp).next().and_then(|c| c.text()).unwrap_or("");
            if v.trim() != "true" {
                return Err(format!(
                    "the lab's valid payment was answered `{}`, not `true`",
                    v.trim()
                ));
            }
            Ok(())
        }
        "getHeadlines" => {
            expect("getHeadlinesResponse")?;
            let hs = items(resp, "source");
            let (lo, hi) = (8 * NEWS_SOURCES.len(), 12 * NEWS_SOURCES.len());
            if !(lo..=hi).contains(&hs.len()) {
                return Err(format!(
                    "{} headlines for 6 sources and one day, not {lo} to {hi}",
                    hs.len()
                ));
            }
            let mut last = 0;
            for (i, h) in hs.iter().enumerate() {
                let what = format!("headline {i}");
                let source = field(*h, "source", &what)?;
                let at = NEWS_SOURCES
                    .iter()
                    .position(|s| *s == source)
                    .ok_or_else(|| format!("{what} is from `{source}`, which was not asked"))?;
                if at < last {
                    return Err(format!("{what} (`{source}`) is out of the requested order"));
                }
                last = at;
                let date = field(*h, "date", &what)?;
                if date != NEWS_DAY {
                    return Err(format!("{what} is dated `{date}`, not `{NEWS_DAY}`"));
                }
                for f in ["title", "link", "summary"] {
                    if field(*h, f, &what)?.is_empty() {
                        return Err(format!("{what} has an empty `{f}`"));
                    }
                }
            }
            Ok(())
        }
        "findOffers" => {
            expect("findOffersResponse")?;
            let offers = items(resp, "provider");
            if offers.is_empty() || offers.len() > 12 {
                return Err(format!("{} offers, not 1 to 12", offers.len()));
            }
            let mut last = f64::MIN;
            for (i, o) in offers.iter().enumerate() {
                let what = format!("offer {i}");
                let key = field(*o, "productKey", &what)?;
                if key != SHOP_KEY {
                    return Err(format!("{what} is for `{key}`, not `{SHOP_KEY}`"));
                }
                let price: f64 = field(*o, "price", &what)?
                    .parse()
                    .map_err(|_| format!("{what} has a price that is not a number"))?;
                if price < last {
                    return Err(format!("{what} is cheaper than the one before it"));
                }
                last = price;
                let matched: i64 = field(*o, "matchedProperties", &what)?
                    .parse()
                    .map_err(|_| format!("{what}'s `matchedProperties` is not an integer"))?;
                if !(0..=SHOP_PROPERTIES).contains(&matched) {
                    return Err(format!(
                        "{what} matched `{matched}` of {SHOP_PROPERTIES} properties"
                    ));
                }
                let until = field(*o, "validUntil", &what)?;
                if until.as_str() < SHOP_EXPIRES {
                    return Err(format!(
                        "{what} is valid until `{until}`, before `{SHOP_EXPIRES}`"
                    ));
                }
                field(*o, "provider", &what)?;
            }
            Ok(())
        }
        "echoFloat" => {
            if !name.starts_with("echoFloat") {
                return Err(format!(
                    "`/Envelope/Body/{name}` is not an echoFloat answer"
                ));
            }
            let v = resp
                .descendants()
                .filter(|d| d.is_element())
                .find(|d| !d.children().any(|c| c.is_element()) && d.text().is_some())
                .and_then(|d| d.text())
                .unwrap_or_default()
                .trim()
                .to_owned();
            // Compared as f32 values: `3.14159`, `3.1415901` and `3.14159E0` are one float.
            let got = v.parse::<f32>().ok();
            if got.is_some() && got == RUBY_INPUT.parse::<f32>().ok() {
                Ok(())
            } else {
                Err(format!("echoFloat({RUBY_INPUT}) answered `{v}`"))
            }
        }
        "getContactCount" => {
            expect("getContactCountResponse")?;
            let v = resp
                .descendants()
                .find(|d| d.is_element() && d.text().is_some_and(|t| !t.trim().is_empty()))
                .and_then(|d| d.text())
                .unwrap_or_default()
                .trim();
            if v.parse::<i64>().ok() != Some(CONTACTS) {
                return Err(format!("the count is `{v}`, not `{CONTACTS}`"));
            }
            Ok(())
        }
        "getContactNames" => {
            expect("getContactNamesResponse")?;
            let names = items(resp, "");
            if names.len() as i64 != n {
                return Err(format!("{} names instead of {n}", names.len()));
            }
            match names.iter().position(|x| !is_name(x.text().unwrap_or(""))) {
                Some(i) => Err(format!("name {i} is not `First Last`")),
                None => Ok(()),
            }
        }
        "getContacts" | "getContact" => {
            expect(&format!("{op}Response"))?;
            let cs = items(resp, "name");
            let want = if op == "getContact" { 1 } else { n };
            if cs.len() as i64 != want {
                return Err(format!("{} contacts instead of {want}", cs.len()));
            }
            for (i, c) in cs.iter().enumerate() {
                let what = format!("contact {i}");
                if !is_name(&field(*c, "name", &what)?) {
                    return Err(format!("{what}'s name is not `First Last`"));
                }
                let phone = field(*c, "phone", &what)?;
                if !is_phone(&phone) {
                    return Err(format!("{what}'s phone `{phone}` is not `NNN-NNN-NNNN`"));
                }
            }
            Ok(())
        }
        other => Err(format!("no check for operation `{other}`")),
    }
}

fn is_name(s: &str) -> bool {
    let mut parts = s.trim().split(' ');
    matches!((parts.next(), parts.next(), parts.next()), (Some(a), Some(b), None) if !a.is_empty() && !b.is_empty())
}

fn is_phone(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 12
        && b[3] == b'-'
        && b[7] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 3 || i == 7 || c.is_ascii_digit())
}

#[cfg(test)]
mod tests;
