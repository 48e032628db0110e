use soapstone_service::{service, Fault};

#[service(namespace = "urn:x")]
pub trait Duplicates {
    async fn echo(&self) -> Result<(), Fault>;
    #[soap(name = "echo")]
    async fn echo_again(&self) -> Result<(), Fault>;
    #[soap(action = "urn:x#echo")]
    async fn other(&self, a: i32, #[soap(name = "a")] b: i32) -> Result<(), Fault>;
}

fn main() {}
