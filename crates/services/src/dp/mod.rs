//! The test service of Davis and Parashar (seed 001), rpc/encoded at `/dp`.

pub mod data;

pub use data::{DpState, DEFAULT_SIZE, MAX_SIZE};
