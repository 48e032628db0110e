//! The test service of Davis and Parashar (seed 001), rpc/encoded at `/dp`.

pub mod data;
mod service;

pub use data::{DpState, DEFAULT_SIZE, MAX_SIZE};
pub use service::{dp_model, Dp, DpClient, DpServer, NAMESPACE};
