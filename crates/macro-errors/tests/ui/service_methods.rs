use soapstone_service::{service, Fault};

#[service(namespace = "urn:x")]
pub trait Methods {
    fn not_async(&self) -> Result<(), Fault>;
    async fn no_result(&self) -> i32;
    async fn borrowed(&self, name: &str) -> Result<(), Fault>;
    async fn generic<T>(&self, t: T) -> Result<(), Fault>;
    async fn no_self(x: i32) -> Result<(), Fault>;
    async fn pattern(&self, (a, b): (i32, i32)) -> Result<(), Fault>;
    const X: i32;
}

fn main() {}
