//! A client generated from the WSDL Apache Axis 1.4 publishes for the lab's Davis & Parashar
//! peer (`testdata/interop/axis1-dp.wsdl`, saved from `GET /axis/services/dp?wsdl`) calls that
//! real Axis server on loopback: rpc/encoded, results named `getStringOfSizeReturn`, integer
//! arrays sent as multi-refs, the size kept between calls, and Axis's fault for a bad size.
//!
//! The peer needs a JVM and Maven Central (`lab/peers/setup.sh --only axis1`); without it the
//! test says so loudly and passes (CI does not build it). `scripts/interop-generated.sh` builds
//! it and runs this test.

mod peers;

use soapstone_build_test::axis1_dp::DpAxisServiceServiceClient;

#[tokio::test]
async fn the_generated_client_calls_axis_1_4() {
    let Some(peer) = peers::peer("axis1") else {
        return peers::skip("the Axis 1.4 peer", "run lab/peers/setup.sh --only axis1");
    };
    let port = peers::ReservedPort::new();
    let mut child = peers::start(&peer.command, &port, peer.banner).await;
    let url = format!("http://127.0.0.1:{}{}", port.port, peer.path);
    let c = DpAxisServiceServiceClient::new(&url).unwrap();
    let calls = async {
        c.do_nothing().await.unwrap();
        assert_eq!(
            c.get_string_of_size(30).await.unwrap(),
            "abcdefghijklmnopqrstuvwxyzabcd"
        );
        assert_eq!(c.get_string_of_size(0).await.unwrap(), "");
        assert_eq!(c.get_integers_of_size(5).await.unwrap(), [0, 1, 2, 3, 4]);
        assert_eq!(c.get_integers_of_size(0).await.unwrap(), Vec::<i32>::new());
        c.set_size(3).await.unwrap();
        assert_eq!(c.get_string().await.unwrap(), "abc");
        assert_eq!(c.get_integers().await.unwrap(), [0, 1, 2]);
        let e = c.get_string_of_size(-1).await.unwrap_err();
        let fault = e.fault().expect("a fault");
        assert!(fault.reason.contains("-1"), "{fault:?}");
    };
    tokio::time::timeout(std::time::Duration::from_secs(120), calls)
        .await
        .expect("axis answers in time");
    child.kill().await.unwrap();
}
