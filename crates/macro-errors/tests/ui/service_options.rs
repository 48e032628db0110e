use soapstone_service::{service, Fault};

#[service(style = "rpc/bogus", flavour = "x")]
pub trait NoNamespace {
    async fn a(&self) -> Result<(), Fault>;
}

#[service(namespace = "urn:x")]
pub trait BadOptions {
    #[soap(name = "not a name", colour = "red")]
    async fn a(&self) -> Result<(), Fault>;
}

#[service(namespace = "urn:y")]
pub trait BadOneWay {
    #[soap(one_way)]
    async fn answers(&self) -> Result<i32, Fault>;
    #[soap(one_way, cache)]
    async fn caches(&self) -> Result<(), Fault>;
}

fn main() {}
