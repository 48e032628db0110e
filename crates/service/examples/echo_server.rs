//! Serves the Echo test service (every supported XSD type) in both styles:
//! `/literal` (document/literal) and `/encoded` (rpc/encoded), and the rpc/encoded Charging service at `/charging`, for trying WSDL consumers
//! (zeep, CXF wsdl2java) by hand: `cargo run -p soapstone-service --example echo_server`.
//! Prints the WSDL URLs, then serves until killed.

#[path = "../tests/common/mod.rs"]
mod common;

fn main() {
    let server = common::start();
    println!("{}", server.url("/literal?wsdl"));
    println!("{}", server.url("/encoded?wsdl"));
    println!("{}", server.url("/charging?wsdl"));
    loop {
        std::thread::park();
    }
}
