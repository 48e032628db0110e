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

/// Axis2 2.0's POJO answers (`axis2/InteropAxis2Service.java`) and spyne 2.14's
/// (`python/spyne_server.py`) to the literal requests, as they came over the wire.
#[test]
fn document_literal_answers_of_axis2_and_spyne_pass() {
    let env = |body: &str| {
        format!(
            r#"<?xml version='1.0' encoding='utf-8'?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"><soapenv:Body>{body}</soapenv:Body></soapenv:Envelope>"#
        )
    };
    let axis2_array = env(
        r#"<ns:echoStringArrayResponse xmlns:ns="http://soapinterop.org/"><return xmlns:ax23="http://ws.apache.org/axis2/xsd" xsi:type="ax23:InteropAxis2Service_ArrayOfString" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><item>good</item><item>bad</item></return></ns:echoStringArrayResponse>"#,
    );
    assert_eq!(check(echo("echoStringArray"), &axis2_array), Ok(None));
    let axis2_void = env(
        r#"<ns:echoVoidResponse xmlns:ns="http://soapinterop.org/"><return xsi:nil="true" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"/></ns:echoVoidResponse>"#,
    );
    assert_eq!(
        check(echo("echoVoid"), &axis2_void),
        Ok(Some("echoVoid answered a nil `return`".into()))
    );
    let spyne_structs = env(
        r#"<tns:echoStructArrayResponse xmlns:tns="http://soapinterop.org/"><tns:echoStructArrayResult><ns2:SOAPStruct xmlns:ns2="http://soapinterop.org/xsd"><ns2:varString>arg</ns2:varString><ns2:varInt>34</ns2:varInt><ns2:varFloat>325.325</ns2:varFloat></ns2:SOAPStruct><ns3:SOAPStruct xmlns:ns3="http://soapinterop.org/xsd"><ns3:varString>arg</ns3:varString><ns3:varInt>34</ns3:varInt><ns3:varFloat>325.325</ns3:varFloat></ns3:SOAPStruct></tns:echoStructArrayResult></tns:echoStructArrayResponse>"#,
    );
    assert_eq!(check(echo("echoStructArray"), &spyne_structs), Ok(None));
    let spyne_date = env(
        r#"<tns:echoDateResponse xmlns:tns="http://soapinterop.org/"><tns:echoDateResult>2001-05-24T17:31:41+00:00</tns:echoDateResult></tns:echoDateResponse>"#,
    );
    assert!(check(echo("echoDate"), &spyne_date).unwrap().is_some());
}

/// What Axis2's POJO binding wrote for ADB's `HexBinary` class before the service decoded the
/// digits itself: a bean with a nil `bytes` field. A wrong answer, with its reason; and a void
/// answer whose `return` is nil in name only (it has a value) is wrong too.
#[test]
fn a_hex_bean_or_a_valued_nil_fails() {
    let hex = answer(
        "echoHexBinary",
        r#"<return xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><bytes xsi:nil="true"/></return>"#,
    );
    assert_eq!(
        check(echo("echoHexBinary"), &hex).unwrap_err(),
        "a structure instead of a value"
    );
    let void = answer(
        "echoVoid",
        r#"<return xsi:nil="true" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">x</return>"#,
    );
    assert_eq!(
        check(echo("echoVoid"), &void).unwrap_err(),
        "echoVoid answered a `return`"
    );
}
