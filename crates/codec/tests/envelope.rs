//! Envelope and fault reading/writing in both SOAP versions.

use soapstone_codec::*;

fn parse(s: &str) -> Result<Envelope<'_>, DecodeError> {
    Envelope::parse(s.as_bytes(), &Limits::default())
}

#[test]
fn soap11_body_element_and_encoding_style() {
    let doc = r#"<?xml version="1.0" encoding="UTF-8"?>
<SOAP-ENV:Envelope SOAP-ENV:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"
  xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/">
  <SOAP-ENV:Body>
    <reserve><id>2</id></reserve>
  </SOAP-ENV:Body>
</SOAP-ENV:Envelope>"#;
    let env = parse(doc).unwrap();
    assert_eq!(env.version(), Version::Soap11);
    assert_eq!(env.body_element(), Some(&QName::new("", "reserve")));
    assert!(!env.is_fault());
    assert!(env.headers().is_empty());
}

#[test]
fn soap12_headers_roles_must_understand_relay() {
    let doc = r#"<env:Envelope xmlns:env="http://www.w3.org/2003/05/soap-envelope">
  <env:Header>
    <t:a xmlns:t="urn:t" env:mustUnderstand="true" env:role="http://www.w3.org/2003/05/soap-envelope/role/next">x</t:a>
    <t:b xmlns:t="urn:t" env:mustUnderstand="0" env:relay="1"/>
  </env:Header>
  <env:Body><t:op xmlns:t="urn:t"/></env:Body></env:Envelope>"#;
    let env = parse(doc).unwrap();
    assert_eq!(env.version(), Version::Soap12);
    let h = env.headers();
    assert_eq!(h.len(), 2);
    assert_eq!(h[0].name, QName::new("urn:t", "a"));
    assert!(h[0].must_understand);
    assert_eq!(
        h[0].role.as_deref(),
        Some("http://www.w3.org/2003/05/soap-envelope/role/next")
    );
    assert!(!h[1].must_understand);
    assert!(env.header_relay(1));
    assert!(!env.header_relay(0));
    assert!(env.header_xml(1).unwrap().starts_with("<t:b "));
    assert_eq!(env.body_element(), Some(&QName::new("urn:t", "op")));
}

#[test]
fn soap11_actor() {
    let doc = r#"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Header><h:x xmlns:h="urn:h" s:mustUnderstand="1" s:actor="http://schemas.xmlsoap.org/soap/actor/next"/></s:Header><s:Body/></s:Envelope>"#;
    let env = parse(doc).unwrap();
    assert!(env.headers()[0].must_understand);
    assert_eq!(
        env.headers()[0].role.as_deref(),
        Some("http://schemas.xmlsoap.org/soap/actor/next")
    );
    assert_eq!(env.body_element(), None);
}

#[test]
fn wrong_namespace_is_version_mismatch() {
    let e = parse(r#"<env:Envelope xmlns:env="http://wrong-version/"><env:Body/></env:Envelope>"#)
        .unwrap_err();
    assert!(e.is_version_mismatch(), "{e}");
    assert_eq!(Fault::from(&e).code, FaultCode::VersionMismatch);
}

#[test]
fn doctype_refused() {
    let e = parse("<!DOCTYPE x [<!ENTITY a \"b\">]><x/>").unwrap_err();
    assert!(e.to_string().contains("DOCTYPE"), "{e}");
}

#[test]
fn fault_round_trip_both_versions() {
    for version in [Version::Soap11, Version::Soap12] {
        let fault = Fault {
            code: FaultCode::Client,
            subcodes: if version == Version::Soap12 {
                vec![QName::new("urn:app", "Bad<Input>")]
            } else {
                vec![]
            },
            reason: "amount `-1` is <negative> & wrong".into(),
            actor: Some("urn:actor".into()),
            node: if version == Version::Soap12 {
                Some("urn:node".into())
            } else {
                None
            },
            detail: Some("<e:why xmlns:e=\"urn:e\">because</e:why>".into()),
        };
        let mut out = Vec::new();
        encode_fault(&mut out, version, &fault);
        let env = Envelope::parse(&out, &Limits::default()).unwrap();
        assert!(env.is_fault());
        assert_eq!(env.version(), version);
        assert_eq!(
            env.fault().unwrap(),
            fault,
            "{}",
            String::from_utf8_lossy(&out)
        );
    }
}

#[test]
fn must_understand_fault_lists_not_understood() {
    let mut out = Vec::new();
    encode_must_understand_fault(&mut out, Version::Soap12, &[QName::new("urn:t", "Unknown")]);
    let env = Envelope::parse(&out, &Limits::default()).unwrap();
    assert_eq!(
        env.headers()[0].name,
        QName::new(Version::Soap12.envelope_ns(), "NotUnderstood")
    );
    assert!(env.header_xml(0).unwrap().contains("qname=\"q:Unknown\""));
    assert_eq!(env.fault().unwrap().code, FaultCode::MustUnderstand);
}

#[test]
fn version_mismatch_fault_has_upgrade() {
    let mut out = Vec::new();
    encode_version_mismatch_fault(&mut out, Version::Soap11, "wrong version");
    let env = Envelope::parse(&out, &Limits::default()).unwrap();
    assert_eq!(env.headers()[0].name.local, "Upgrade");
    let f = env.fault().unwrap();
    assert_eq!(f.code, FaultCode::VersionMismatch);
    assert_eq!(f.reason, "wrong version");
}

#[test]
fn typed_header_block() {
    #[derive(serde::Deserialize, Debug, PartialEq)]
    struct Session {
        id: u64,
        user: String,
    }
    let doc = r#"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" xmlns:h="urn:h"><s:Header><h:session s:mustUnderstand="1"><h:id>42</h:id><user>ann &amp; bob</user></h:session></s:Header><s:Body><op/></s:Body></s:Envelope>"#;
    let env = parse(doc).unwrap();
    assert_eq!(env.headers()[0].name, QName::new("urn:h", "session"));
    let s: Session = env.header(0, Style::Literal).unwrap();
    assert_eq!(
        s,
        Session {
            id: 42,
            user: "ann & bob".into()
        }
    );
    let bad = doc.replace(">42<", ">x<");
    let env = parse(&bad).unwrap();
    let e = env.header::<Session>(0, Style::Literal).unwrap_err();
    assert_eq!(
        e.to_string(),
        "/Envelope/Header/session/id: expected xsd:unsignedLong, found `x`"
    );
    assert!(env.header::<Session>(5, Style::Literal).is_err());
}

#[test]
fn soap12_structure_rules() {
    let env12 = |inner: &str| {
        format!(
            r#"<env:Envelope xmlns:env="http://www.w3.org/2003/05/soap-envelope">{inner}</env:Envelope>"#
        )
    };
    let e = parse(&env12("<env:Header/>")).unwrap_err();
    assert!(e.to_string().contains("has no Body"), "{e}");
    let e = parse(&env12("<env:Body/><trailer/>")).unwrap_err();
    assert!(e.to_string().contains("after Body"), "{e}");
    let e = parse(&env12(
        r#"<env:Body env:encodingStyle="http://www.w3.org/2003/05/soap-encoding"/>"#,
    ))
    .unwrap_err();
    assert!(
        e.to_string()
            .contains("encodingStyle is not allowed on the soap 1.2 Body"),
        "{e}"
    );
    let e = parse(&env12(
        r#"<env:Body><x:op xmlns:x="urn:x" env:encodingStyle="urn:poison"/></env:Body>"#,
    ))
    .unwrap_err();
    assert!(e.is_data_encoding_unknown(), "{e}");
    assert_eq!(Fault::from(&e).code, FaultCode::DataEncodingUnknown);
    // SOAP 1.1 tolerates trailers
    let doc = r#"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><op/></s:Body><trailer/></s:Envelope>"#;
    parse(doc).unwrap().body::<()>(Style::Literal).unwrap();
    // text after the root element is refused when the body is read
    let doc = r#"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><op/></s:Body></s:Envelope>junk"#;
    assert!(parse(doc).unwrap().body::<()>(Style::Literal).is_err());
}

#[test]
fn xml_declaration_attributes_are_separated_by_xml_white_space_only() {
    let body =
        r#"<e:Envelope xmlns:e="http://schemas.xmlsoap.org/soap/envelope/"><e:Body/></e:Envelope>"#;
    let ok = format!("<?xml \t\r\nversion = '1.0'\n\tencoding=\"utf-8\" ?>{body}");
    assert!(parse(&ok).is_ok(), "{:?}", parse(&ok).err());
    // A no-break space is not `S` (XML 1.0 production 3): it stays part of the name.
    let nbsp = format!("<?xml version=\"1.0\"\u{a0}encoding=\"utf-8\"?>{body}");
    let e = parse(&nbsp).unwrap_err().to_string();
    assert!(
        e.contains("unknown attribute `\u{a0}encoding` in xml declaration"),
        "{e}"
    );
}

#[test]
fn xsi_type_is_trimmed_of_xml_white_space_only() {
    let doc = |t: &str| {
        format!(
            r#"<e:Envelope xmlns:e="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><e:Body><op><v xsi:type="{t}">1.5</v></op></e:Body></e:Envelope>"#
        )
    };
    #[derive(serde::Deserialize, Debug)]
    struct Op {
        v: f32,
    }
    let read = |t: &str| {
        let d = doc(t);
        let env = parse(&d).unwrap();
        env.body::<Op>(Style::Encoded)
            .map(|o| o.v)
            .map_err(|e| e.to_string())
    };
    assert_eq!(read(" xsd:float\n"), Ok(1.5));
    let e = read(" xsd:boolean ").unwrap_err();
    assert!(e.contains("expected xsd:float, found xsi:type"), "{e}");
    // with a no-break space around it, the type's prefix is not `xsd` but an undeclared one
    assert!(read("\u{a0}xsd:float").is_err());
}
