use soapstone_service::XsdType;

#[derive(XsdType)]
pub struct Tuple(i32, String);

#[derive(XsdType)]
pub enum WithData {
    A,
    B(i32),
}

#[derive(XsdType)]
pub struct Generic<T> {
    pub t: T,
}

#[derive(XsdType)]
#[serde(rename_all = "Title Case")]
pub struct BadRule {
    pub a: i32,
}

#[derive(XsdType)]
pub struct DefaultOnElement {
    #[xsd(default = "1")]
    pub a: i32,
    #[serde(rename = "@b")]
    #[xsd(minimum = "1")]
    pub b: i32,
}

fn main() {}
