//! The captured answers of `answers/` (see its README) against [`check_answer`], and altered
//! copies that must be refused.

use super::*;

const AXIS2: [(&str, &str); 3] = [
    ("authorize", include_str!("axis2-card.xml")),
    ("getHeadlines", include_str!("axis2-news.xml")),
    ("findOffers", include_str!("axis2-shop.xml")),
];
const ERLANG: [(&str, &str); 3] = [
    ("authorize", include_str!("erlang-card.xml")),
    ("getHeadlines", include_str!("erlang-news.xml")),
    ("findOffers", include_str!("erlang-shop.xml")),
];
const SOAPSTONE: [(&str, &str); 3] = [
    ("authorize", include_str!("soapstone-card.xml")),
    ("getHeadlines", include_str!("soapstone-news.xml")),
    ("findOffers", include_str!("soapstone-shop.xml")),
];

#[test]
fn the_real_wsb_answers_pass() {
    for (op, xml) in AXIS2.iter().chain(&ERLANG).chain(&SOAPSTONE) {
        check_answer(xml, op, None).unwrap_or_else(|e| panic!("{op}: {e}"));
    }
}

#[test]
fn altered_wsb_answers_are_refused() {
    let err = |xml: &str, op: &str| check_answer(xml, op, None).unwrap_err();
    let card = AXIS2[0].1.replace(">true<", ">false<");
    assert!(err(&card, "authorize").contains("`false`"));
    // One headline fewer than 8 a source: cut all but the first 40.
    let news = ERLANG[1].1;
    let cut = news.match_indices("<headline>").nth(40).unwrap().0;
    let short = format!(
        "{}</tns:getHeadlinesResponse></soap:Body></soap:Envelope>",
        &news[..cut]
    );
    assert!(
        err(&short, "getHeadlines").contains("40 headlines"),
        "{}",
        err(&short, "getHeadlines")
    );
    let wrong_day = news.replacen("<date>2008-01-14</date>", "<date>2008-01-15</date>", 1);
    assert!(err(&wrong_day, "getHeadlines").contains("`2008-01-15`"));
    // Offers out of price order.
    let shop = SOAPSTONE[2]
        .1
        .replacen("<price>390.06</price>", "<price>999.00</price>", 1);
    assert!(
        err(&shop, "findOffers").contains("cheaper"),
        "{}",
        err(&shop, "findOffers")
    );
    let other_key = ERLANG[2].1.replacen("SKU-12345", "SKU-1", 1);
    assert!(err(&other_key, "findOffers").contains("`SKU-1`"));
    // The answer to another operation, and a fault.
    assert!(err(AXIS2[0].1, "findOffers").contains("instead of `findOffersResponse`"));
    let fault = r#"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><soap:Fault><faultcode>soap:Client</faultcode><faultstring>`amount` is missing</faultstring></soap:Fault></soap:Body></soap:Envelope>"#;
    assert_eq!(err(fault, "authorize"), "a fault: ``amount` is missing`");
}

#[test]
fn echo_float_answers() {
    let ruby = crate::experiments::echo::RUBY_RESPONSE;
    check_answer(ruby, "echoFloat", None).unwrap();
    let axis2 = r#"<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"><soapenv:Header/><soapenv:Body><echoFloatResult xmlns="http://tempuri.org/"><result>3.14159</result></echoFloatResult></soapenv:Body></soapenv:Envelope>"#;
    check_answer(axis2, "echoFloat", None).unwrap();
    let wrong = axis2.replace("3.14159", "3.1416");
    assert_eq!(
        check_answer(&wrong, "echoFloat", None).unwrap_err(),
        "echoFloat(3.14159) answered `3.1416`"
    );
}

#[test]
fn contacts_answers() {
    let three = include_str!("soapstone-contacts-3.xml");
    check_answer(three, "getContacts", Some(3)).unwrap();
    assert_eq!(
        check_answer(three, "getContacts", Some(4)).unwrap_err(),
        "3 contacts instead of 4"
    );
    let bad_phone = three.replacen("716-538-4648", "716-538", 1);
    assert!(check_answer(&bad_phone, "getContacts", Some(3))
        .unwrap_err()
        .contains("`716-538`"));
    // .NET's wrapped array: one `getContactsResult` holding the items.
    let dotnet = r#"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><getContactsResponse xmlns="urn:soapstone:contacts"><getContactsResult><Contact><name>Ada Berg</name><phone>585-200-0001</phone></Contact></getContactsResult></getContactsResponse></soap:Body></soap:Envelope>"#;
    check_answer(dotnet, "getContacts", Some(1)).unwrap();
    let names = r#"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><getContactNamesResponse xmlns="urn:soapstone:contacts"><getContactNamesResult><string>Ada Berg</string><string>Tom Chen</string></getContactNamesResult></getContactNamesResponse></soap:Body></soap:Envelope>"#;
    check_answer(names, "getContactNames", Some(2)).unwrap();
    assert!(check_answer(names, "getContactNames", Some(3)).is_err());
}
