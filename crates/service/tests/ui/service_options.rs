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

fn main() {}
