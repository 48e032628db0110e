//! Throughput of the charging store alone (no HTTP): `CLIENTS` tasks doing credit/directDebit
//! on random accounts for a few seconds, on SQLite (`full` and `normal` sync) and, with a URL,
//! on PostgreSQL. Shows what group commit buys when the disk's fsync dominates.
//!
//! `cargo run --release -p soapstone-services --example charging_store_load -- [CLIENTS] [SECONDS] [postgres://...]`

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use soapstone_services::charging::postgres::PostgresStore;
use soapstone_services::charging::sqlite::{SqliteStore, SqliteSync};
use soapstone_services::charging::{ChargingSystem, SeedConfig, Store};

async fn run(name: &str, store: Arc<dyn Store>, clients: usize, seconds: u64) {
    let system = ChargingSystem::new(store);
    let done = Arc::new(AtomicU64::new(0));
    let end = Instant::now() + Duration::from_secs(seconds);
    let mut tasks = Vec::new();
    for i in 0..clients {
        let (system, done) = (system.clone(), done.clone());
        tasks.push(tokio::spawn(async move {
            let mut n = i as i32;
            while Instant::now() < end {
                n = n.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                let id = 1 + (n.unsigned_abs() % 1000) as i32;
                let r = if n % 2 == 0 {
                    system.credit(id, 10).await
                } else {
                    system.direct_debit(id, 10).await
                };
                r.expect("operation");
                done.fetch_add(1, Ordering::Relaxed);
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    let ops = done.load(Ordering::Relaxed);
    println!(
        "{name:<16} {clients:>3} clients  {:>8.0} ops/s",
        ops as f64 / seconds as f64
    );
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let clients: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(16);
    let seconds: u64 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(3);
    let seed = SeedConfig::with_accounts(1000);
    for (name, sync) in [
        ("sqlite full", SqliteSync::Full),
        ("sqlite normal", SqliteSync::Normal),
    ] {
        let dir = tempfile::tempdir().unwrap();
        for c in [1, clients] {
            let path = dir.path().join(format!("c{c}.db"));
            let store = SqliteStore::open_async_with(&path, &seed, sync)
                .await
                .unwrap();
            run(name, Arc::new(store), c, seconds).await;
        }
    }
    if let Some(url) = args.get(2) {
        for c in [1, clients] {
            let store = PostgresStore::connect(url, &seed, c.max(2)).await.unwrap();
            run("postgresql", Arc::new(store), c, seconds).await;
        }
    }
}
