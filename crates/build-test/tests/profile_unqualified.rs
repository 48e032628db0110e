//! `wsdl/profile_unqualified.wsdl`: `profile.wsdl` with the service's schema unqualified and
//! `note` qualified by its `form`. In an unqualified message an element of its own namespace
//! binds a prefix of its own (`<e:PhoneData xmlns:e="..">`) so its unqualified siblings and
//! children stay in no namespace: the generated client calls the generated server, raw bytes
//! show the namespaces, and zeep (which parses by namespace) calls the generated server.

mod support;

use std::net::SocketAddr;
use std::sync::Arc;

use soapstone_build_test::profile_unqualified::{
    NamePhone, PhoneData, Profile, ProfileClient, ProfileError, ProfileServer, UpdateFault,
};
use soapstone_server::Server;
use soapstone_service::{Fault, Version};

/// As in `profile.rs`: echoes the phone changed, the version plus one and the tag count.
struct Book;

impl Profile for Book {
    async fn update(
        &self,
        version: i32,
        phone: NamePhone,
        tag: Vec<String>,
    ) -> Result<(Option<i32>, NamePhone, i32), Fault> {
        if version < 0 {
            let detail = ProfileError {
                code: version,
                reason: "versions start at 0".into(),
            };
            return Err(UpdateFault::BadVersion(detail).into_fault(Fault::client("bad version")));
        }
        let mut echoed = phone.clone();
        echoed.phone_data.phone_number = phone.phone_data.phone_number.chars().rev().collect();
        echoed.i_ds.push(format!("id{}", phone.i_ds.len()));
        echoed.note = phone.note.to_uppercase();
        echoed.tag = tag.first().cloned();
        Ok((Some(version + 1), echoed, tag.len() as i32))
    }
}

async fn serve() -> (SocketAddr, tokio::sync::oneshot::Sender<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let serving = Server::builder()
        .mount("/profile", Arc::new(ProfileServer::new(Book)))
        .serve_with_shutdown(listener, async move {
            let _ = rx.await;
        })
        .unwrap();
    let addr = serving.local_addr();
    tokio::spawn(std::future::IntoFuture::into_future(serving));
    (addr, tx)
}

#[tokio::test]
async fn the_generated_client_and_server_agree() {
    let (addr, stop) = serve().await;
    for version in [Version::Soap11, Version::Soap12] {
        let client = ProfileClient::new(&format!("http://{addr}/profile"))
            .unwrap()
            .with_version(version);
        let phone = NamePhone {
            phone_data: PhoneData {
                phone_number: "12".into(),
                comment: None,
            },
            i_ds: Vec::new(),
            tag: Some("t".into()),
            note: "n".into(),
        };
        let (revision, echoed, tags) = client.update(1, phone, vec!["a".into()]).await.unwrap();
        assert_eq!((revision, tags), (Some(2), 1), "{version:?}");
        assert_eq!(echoed.phone_data.phone_number, "21");
        assert_eq!(echoed.i_ds, ["id0"]);
        assert_eq!(
            (echoed.tag.as_deref(), echoed.note.as_str()),
            (Some("a"), "N")
        );
    }
    let _ = stop.send(());
}

#[tokio::test]
async fn elements_of_their_own_namespace_bind_a_prefix_in_an_unqualified_message() {
    let (addr, stop) = serve().await;
    let request = concat!(
        r#"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body>"#,
        r#"<p:update version="1" xmlns:p="urn:example:profile" xmlns:c="urn:example:common"><phone>"#,
        r#"<c:PhoneData><c:PhoneNumber>987</c:PhoneNumber></c:PhoneData>"#,
        r#"<IDs>x</IDs><p:note>hi</p:note></phone><c:Tag>t1</c:Tag></p:update></s:Body></s:Envelope>"#
    );
    let (status, reply) =
        support::post(addr, "/profile", "urn:example:profile#update", request).await;
    assert_eq!(status, 200, "{reply}");
    let expected = concat!(
        r#"<phone><e:PhoneData xmlns:e="urn:example:common">"#,
        r#"<e:PhoneNumber xmlns:e="urn:example:common">789</e:PhoneNumber></e:PhoneData>"#,
        r#"<IDs>x</IDs><IDs>id1</IDs><e:Tag xmlns:e="urn:example:common">t1</e:Tag>"#,
        r#"<e:note xmlns:e="urn:example:profile">HI</e:note></phone><tags>1</tags>"#
    );
    assert!(reply.contains(expected), "{expected}\n{reply}");
    let _ = stop.send(());
}

/// zeep calls the generated server with the same script as `profile.rs` (the names are the
/// same; the namespaces differ, and zeep parses the answer by them).
#[tokio::test]
async fn zeep_calls_the_generated_server() {
    if !support::zeep_or_skip() {
        return;
    }
    let (addr, stop) = serve().await;
    let url = format!("http://{addr}/profile?wsdl");
    let output = support::run_zeep("profile_zeep.py", &url).await;
    let _ = stop.send(());
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    println!("{stdout}");
}
