//! Runs only the charging service (placeholder until the server crate lands).
fn main() {}
