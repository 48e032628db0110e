//! A client generated from the WSDL the lab's gSOAP 2.8 server is built from (its contract,
//! `lab/peers/contract/dp.wsdl`: `wsdl2h` then `soapcpp2`; gSOAP serves no WSDL of its own, and
//! `wsdl/dp.wsdl` here is the same contract with another address) calls the real gSOAP server on
//! loopback: rpc/encoded, gSOAP's own array and result encoding, the size kept between calls,
//! gSOAP's fault for a bad size.
//!
//! The peer needs gSOAP's compilers (`lab/peers/setup.sh --only gsoap`); without it the test
//! says so loudly and passes (CI does not build it). `scripts/interop-generated.sh` builds it
//! and runs this test.

mod peers;

use soapstone_build_test::dp::TestServiceClient;

#[tokio::test]
async fn the_generated_client_calls_gsoap() {
    let Some(peer) = peers::peer("gsoap") else {
        return peers::skip("the gSOAP peer", "run lab/peers/setup.sh --only gsoap");
    };
    let port = peers::ReservedPort::new();
    let mut child = peers::start(&peer.command, &port, peer.banner).await;
    let url = format!("http://127.0.0.1:{}{}", port.port, peer.path);
    let c = TestServiceClient::new(&url).unwrap();
    let calls = async {
        c.do_nothing().await.unwrap();
        assert_eq!(
            c.get_string_of_size(30).await.unwrap(),
            "abcdefghijklmnopqrstuvwxyzabcd"
        );
        assert_eq!(c.get_integers_of_size(4).await.unwrap(), [0, 1, 2, 3]);
        assert_eq!(c.get_integers_of_size(0).await.unwrap(), Vec::<i32>::new());
        c.set_size(2).await.unwrap();
        assert_eq!(c.get_string().await.unwrap(), "ab");
        assert_eq!(c.get_integers().await.unwrap(), [0, 1]);
        let e = c.get_string_of_size(-1).await.unwrap_err();
        assert!(e.fault().is_some(), "{e}");
    };
    tokio::time::timeout(std::time::Duration::from_secs(120), calls)
        .await
        .expect("gSOAP answers in time");
    child.kill().await.unwrap();
}
