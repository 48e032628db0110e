//! A generated client and a generated server agree on every XSD type, in both styles and both
//! SOAP versions, over a real soapstone server on loopback.

// 3.14159 is the value of Sam Ruby's 2001 echoFloat test, not an approximation of pi.
#![allow(clippy::approx_constant)]

mod common;

use common::*;
use soapstone_service::codec::xsd;
use soapstone_service::Version;

fn everything(depth: usize) -> Everything {
    Everything {
        byte: i8::MIN,
        short: i16::MAX,
        int: -42,
        long: i64::MIN,
        ubyte: u8::MAX,
        ushort: 65_535,
        uint: u32::MAX,
        ulong: u64::MAX,
        float: 654.321,
        double: 0.1 + 0.2,
        boolean: true,
        text: "a <b> & \"c\" 'd' é ∑ \u{1F600}".into(),
        maybe: depth.is_multiple_of(2).then(|| "present".into()),
        ints: (0..depth as i32 + 2).collect(),
        color: [Color::Red, Color::Green, Color::Blue][depth % 3],
        structs: vec![
            SoapStruct {
                var_string: "s".into(),
                var_int: 1,
                var_float: 1.5
            };
            depth
        ],
        child: (depth > 0).then(|| Box::new(everything(depth - 1))),
        values: (depth == 1).then(values),
    }
}

macro_rules! agree {
    ($client:ident) => {{
        let c = &$client;
        for s in [
            "Hello World",
            "",
            "  padded  ",
            "<&>\"'",
            "line\nbreak",
            "ünï©ødé",
        ] {
            assert_eq!(c.echo_string(s.into()).await.unwrap(), s);
        }
        for v in [0, 1, -1, i32::MIN, i32::MAX] {
            assert_eq!(c.echo_int(v).await.unwrap(), v);
        }
        for v in [i64::MIN, i64::MAX, 0] {
            assert_eq!(c.echo_long(v).await.unwrap(), v);
        }
        assert_eq!(c.echo_byte(-128).await.unwrap(), -128);
        assert_eq!(c.echo_short(-32768).await.unwrap(), -32768);
        assert_eq!(c.echo_unsigned_long(u64::MAX).await.unwrap(), u64::MAX);
        assert_eq!(c.echo_unsigned_byte(255).await.unwrap(), 255);
        for v in [
            654.321f32,
            3.14159,
            0.0,
            -1.5e-30,
            f32::MAX,
            f32::INFINITY,
            f32::NEG_INFINITY,
        ] {
            assert_eq!(c.echo_float(v).await.unwrap(), v);
        }
        assert!(c.echo_float(f32::NAN).await.unwrap().is_nan());
        for v in [0.1f64, -2.5e300, f64::MIN_POSITIVE, 1.0 / 3.0] {
            assert_eq!(c.echo_double(v).await.unwrap(), v);
        }
        for v in [true, false] {
            assert_eq!(c.echo_boolean(v).await.unwrap(), v);
        }
        let st = SoapStruct {
            var_string: "Hello".into(),
            var_int: 7,
            var_float: 2.5,
        };
        assert_eq!(c.echo_struct(st.clone()).await.unwrap(), st);
        for n in [0, 1, 3] {
            let arr = vec![st.clone(); n];
            assert_eq!(c.echo_struct_array(arr.clone()).await.unwrap(), arr);
            let ints: Vec<i32> = (0..n as i32).map(|i| i * -7).collect();
            assert_eq!(c.echo_integer_array(ints.clone()).await.unwrap(), ints);
            let strings: Vec<String> = (0..n).map(|i| format!("s{i}")).collect();
            assert_eq!(c.echo_string_array(strings.clone()).await.unwrap(), strings);
        }
        let grid = vec![
            vec!["a".to_string(), "b".into()],
            vec!["c".into(), "d".into()],
            vec!["e".into(), "f".into()],
        ];
        assert_eq!(c.echo_2d_string_array(grid.clone()).await.unwrap(), grid);
        assert_eq!(c.echo_optional(None).await.unwrap(), None);
        assert_eq!(
            c.echo_optional(Some("x".into())).await.unwrap(),
            Some("x".into())
        );
        for color in [Color::Red, Color::Green, Color::Blue] {
            assert_eq!(c.echo_color(color).await.unwrap(), color);
        }
        for depth in 0..3 {
            let e = everything(depth);
            assert_eq!(c.echo_everything(e.clone()).await.unwrap(), e);
        }
        let v = values();
        assert_eq!(c.echo_values(v.clone()).await.unwrap(), v);
        assert_eq!(c.echo_date_time(v.date_time).await.unwrap(), v.date_time);
        assert_eq!(c.echo_base64(v.base64.clone()).await.unwrap(), v.base64);
        assert_eq!(
            c.echo_base64(xsd::Base64Binary(vec![])).await.unwrap(),
            xsd::Base64Binary(vec![])
        );
        assert_eq!(c.echo_decimal(v.decimal.clone()).await.unwrap(), v.decimal);
        c.echo_void().await.unwrap();
        assert_eq!(c.echo_float_ruby(3.14159).await.unwrap(), 3.14159);
        let err = c.fail("boom `x`".into()).await.unwrap_err();
        let fault = err.fault().expect("a fault");
        assert_eq!(fault.reason, "boom `x`");
        assert_eq!(fault.code, soapstone_service::FaultCode::Server);
    }};
}

#[test]
fn client_and_server_agree_on_every_type() {
    let server = start();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        for version in [Version::Soap11, Version::Soap12] {
            let literal = EchoLiteralClient::new(&server.url("/literal"))
                .unwrap()
                .with_version(version);
            agree!(literal);
            let encoded = EchoEncodedClient::new(&server.url("/encoded"))
                .unwrap()
                .with_version(version);
            agree!(encoded);
        }
    });
}

#[test]
fn served_wsdl_and_schema() {
    let server = start();
    let wsdl = http_get(server.addr, "/encoded?wsdl");
    assert!(
        wsdl.contains(&format!(
            "schemaLocation=\"http://{}/encoded?xsd=soapenc\"",
            server.addr
        )),
        "{wsdl}"
    );
    let xsd = http_get(server.addr, "/encoded?xsd=soapenc");
    assert!(xsd.contains("targetNamespace=\"http://schemas.xmlsoap.org/soap/encoding/\""));
}

/// A plain HTTP/1.1 GET over a TCP socket; the body of a 200 answer.
fn http_get(addr: std::net::SocketAddr, target: &str) -> String {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    write!(
        s,
        "GET {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    assert!(
        !head
            .to_ascii_lowercase()
            .contains("transfer-encoding: chunked"),
        "{head}"
    );
    body.to_string()
}
