use super::*;

fn echo(op: &str) -> &'static Echo {
    ECHOES.iter().find(|e| e.op == op).unwrap()
}

fn answer(op: &str, inner: &str) -> String {
    format!(
        r#"<?xml version="1.0"?><S:Envelope xmlns:S="http://schemas.xmlsoap.org/soap/envelope/" xmlns:ns1="http://soapinterop.org/"><S:Body><ns1:{op}Response>{inner}</ns1:{op}Response></S:Body></S:Envelope>"#
    )
}

#[test]
fn every_echo_has_its_recorded_request() {
    for e in &ECHOES {
        assert!(e.request.contains(&format!("<ns1:{}", e.op)), "{}", e.op);
    }
}

#[test]
fn equal_values_in_other_forms_pass_with_a_note() {
    let ok = |op: &str, inner: &str| check(echo(op), &answer(op, inner));
    assert_eq!(ok("echoString", "<r>Hello World!</r>"), Ok(None));
    let f = ok("echoFloat", "<r>342.230011</r>").unwrap().unwrap();
    assert!(f.contains("`342.23` came back as `342.230011`"), "{f}");
    assert_eq!(ok("echoDecimal", "<r>12345.6789</r>"), Ok(None));
    assert_eq!(ok("echoHexBinary", "<r>736f61707834</r>"), Ok(None));
    assert_eq!(ok("echoBoolean", "<r>1</r>"), Ok(None));
    assert!(ok("echoDate", "<r>2001-05-24T19:31:41+02:00</r>")
        .unwrap()
        .is_some());
    assert_eq!(ok("echoVoid", ""), Ok(None));
    // A literal array as repeated elements; a struct's fields in another order.
    assert_eq!(
        ok("echoIntegerArray", "<r>1</r><r>234324324</r><r>2</r>"),
        Ok(None)
    );
    assert_eq!(
        ok(
            "echoStruct",
            "<r><varFloat>325.325</varFloat><varInt>34</varInt><varString>arg</varString></r>"
        ),
        Ok(None)
    );
}

#[test]
fn multi_ref_answers_are_followed() {
    let xml = r##"<S:Envelope xmlns:S="http://schemas.xmlsoap.org/soap/envelope/"><S:Body><ns1:echoStructResponse xmlns:ns1="http://soapinterop.org/"><return href="#id0"/></ns1:echoStructResponse><multiRef id="id0"><varString>arg</varString><varInt>34</varInt><varFloat>325.325</varFloat></multiRef></S:Body></S:Envelope>"##;
    assert_eq!(check(echo("echoStruct"), xml), Ok(None));
}

#[test]
fn changed_missing_or_faulted_values_fail_with_the_reason() {
    let bad = |op: &str, inner: &str| check(echo(op), &answer(op, inner)).unwrap_err();
    assert_eq!(
        bad("echoInteger", "<r>34346</r>"),
        "`34346` instead of `34345`"
    );
    assert_eq!(
        bad("echoStringArray", "<r><i>good</i></r>"),
        "1 items instead of 2"
    );
    assert_eq!(
        bad(
            "echoStructArray",
            "<r><i><varString>arg</varString></i><i/></r>"
        ),
        "no `varInt` at `[0]`"
    );
    assert_eq!(
        bad("echoDecimal", "<r>12345.6789001</r>"),
        "`12345.6789001` instead of `12345.67890`"
    );
    assert_eq!(
        bad("echoDate", "<r>2001-05-24T17:31:41+02:00</r>"),
        "`2001-05-24T17:31:41+02:00` instead of `2001-05-24T17:31:41Z`"
    );
    assert_eq!(
        bad("echoFloat", ""),
        "`echoFloatResponse` has no return value"
    );
    let fault = r#"<S:Envelope xmlns:S="http://schemas.xmlsoap.org/soap/envelope/"><S:Body><S:Fault><faultcode>S:Server</faultcode><faultstring>no such op</faultstring></S:Fault></S:Body></S:Envelope>"#;
    assert_eq!(
        check(echo("echoVoid"), fault).unwrap_err(),
        "a fault: `no such op`"
    );
    let other = answer("echoString", "<r>x</r>");
    assert_eq!(
        check(echo("echoVoid"), &other).unwrap_err(),
        "`/Envelope/Body/echoStringResponse` instead of `echoVoidResponse`"
    );
}

#[test]
fn the_literal_form_drops_only_the_encoding_attributes() {
    let lit = literal(echo("echoStructArray").request);
    assert!(
        !lit.contains("xsi:type") && !lit.contains("arrayType"),
        "{lit}"
    );
    assert!(!lit.contains("encodingStyle"), "{lit}");
    assert!(
        lit.contains("<inputStructArray><item><varString>arg</varString><varInt>34</varInt>"),
        "{lit}"
    );
    // The answer to the literal request is checked against the same values.
    let ok = answer(
        "echoStructArray",
        "<r><item><varString>arg</varString><varInt>34</varInt><varFloat>325.325</varFloat></item>\
         <item><varString>arg</varString><varInt>34</varInt><varFloat>325.325</varFloat></item></r>",
    );
    assert_eq!(check(echo("echoStructArray"), &ok), Ok(None));
}
