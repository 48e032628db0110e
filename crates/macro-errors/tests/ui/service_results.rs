use soapstone_service::{service, Fault};

#[service(namespace = "urn:x")]
pub trait Results {
    async fn unnamed_tuple(&self) -> Result<(i32, String), Fault>;
    #[soap(result = "a, b, c")]
    async fn too_few(&self) -> Result<(i32, String), Fault>;
    #[soap(result = "a, b")]
    async fn not_a_tuple(&self) -> Result<i32, Fault>;
    #[soap(result = "a, a")]
    async fn twice(&self) -> Result<(i32, i32), Fault>;
    #[soap(result = "a, not a name")]
    async fn bad_name(&self) -> Result<(i32, i32), Fault>;
}

fn main() {}
