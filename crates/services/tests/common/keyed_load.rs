//! A random charging workload through the retrying [`KeyedChargingClient`]: every money
//! operation carries its own idempotency key and is retried with it until it is answered, so
//! no operation stays uncertain: each is acknowledged (a transaction number) or refused (a
//! Client fault, nothing changed). The model is exact: the ledger must hold exactly the
//! acknowledged entries.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use soapstone_services::charging::{KeyedChargingClient, Op, RetryPolicy, TxKind};

use super::load::{Acked, Control};

/// What the clients saw.
#[derive(Debug, Default)]
pub struct Seen {
    /// Sum of the acknowledged balance changes per account.
    pub deltas: HashMap<i32, i64>,
    pub acked: Vec<Acked>,
    pub refused: usize,
    /// Operations whose first attempt failed (the retries the kill caused).
    pub retried_ops: usize,
    /// When those first attempts failed.
    pub failures: Vec<std::time::Instant>,
    /// When those operations were finally answered (acknowledged or refused).
    pub recoveries: Vec<std::time::Instant>,
}

/// Retries for as long as a restart (or a failover) takes: up to ~60 s.
pub fn patient() -> RetryPolicy {
    let mut r = RetryPolicy::default();
    r.attempts = 400;
    r.first_backoff = Duration::from_millis(20);
    r.max_backoff = Duration::from_millis(150);
    r
}

fn refusal(reason: &str) -> bool {
    reason.starts_with("insufficient funds: ")
        || (reason.starts_with("reservation `") && reason.contains("` was already "))
}

/// One client: operations until `ctl` stops it.
pub async fn client(
    c: KeyedChargingClient,
    accounts: Vec<i32>,
    pool: Arc<Mutex<Vec<(i32, i32, i32)>>>,
    seed: u64,
    ctl: Arc<Control>,
) -> Seen {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut seen = Seen::default();
    while !ctl.stop.load(Ordering::Relaxed) {
        let id = accounts[rng.gen_range(0..accounts.len())];
        let am: i32 = rng.gen_range(1..3_000);
        let roll = rng.gen_range(0..100);
        // (op, kind, account, amount, delta)
        let (op, kind, account, amount, delta) = if roll < 20 {
            (
                Op::Credit { id, am },
                TxKind::Credit,
                id,
                am.into(),
                am.into(),
            )
        } else if roll < 45 {
            (
                Op::DirectDebit { id, am },
                TxKind::DirectDebit,
                id,
                am.into(),
                -i64::from(am),
            )
        } else if roll < 70 {
            (
                Op::Reserve { id, am },
                TxKind::Reserve,
                id,
                am.into(),
                -i64::from(am),
            )
        } else {
            let picked = {
                let mut p = pool.lock().unwrap();
                (!p.is_empty()).then(|| {
                    let i = rng.gen_range(0..p.len());
                    p.swap_remove(i)
                })
            };
            let Some((res, owner, reserved)) = picked else {
                continue;
            };
            if roll < 88 {
                let charge = rng.gen_range(1..=reserved);
                (
                    Op::DebitReservation {
                        id: owner,
                        am: charge,
                        res,
                    },
                    TxKind::DebitReservation,
                    owner,
                    charge.into(),
                    i64::from(reserved - charge),
                )
            } else {
                (
                    Op::Release { res },
                    TxKind::Release,
                    owner,
                    reserved.into(),
                    reserved.into(),
                )
            }
        };
        let key = soapstone_services::charging::IdempotencyKey::random();
        let once = c.attempt(&key, op).await;
        let result = match once {
            Err(e) if soapstone_services::charging::is_retryable(&e) => {
                seen.retried_ops += 1;
                seen.failures.push(std::time::Instant::now());
                let r = c.apply_with_key(&key, op).await;
                seen.recoveries.push(std::time::Instant::now());
                r
            }
            other => other,
        };
        match result {
            Ok(cn) => {
                *seen.deltas.entry(account).or_default() += delta;
                seen.acked.push(Acked {
                    cn,
                    kind,
                    account,
                    amount,
                });
                ctl.acked.fetch_add(1, Ordering::Relaxed);
                if let Op::Reserve { .. } = op {
                    pool.lock().unwrap().push((cn, id, am));
                }
            }
            Err(e) => match e.fault() {
                Some(f) if refusal(&f.reason) => seen.refused += 1,
                _ => panic!("{op:?} under key {key} not answered after every retry: {e}"),
            },
        }
    }
    seen
}

/// `clients` keyed clients against `url` until `ctl` stops them.
pub async fn run(url: String, accounts: Vec<i32>, clients: usize, ctl: Arc<Control>) -> Seen {
    let pool = Arc::default();
    let tasks: Vec<_> = (0..clients)
        .map(|i| {
            let c = KeyedChargingClient::new(&url)
                .unwrap()
                .with_retry(patient());
            tokio::spawn(client(
                c,
                accounts.clone(),
                Arc::clone(&pool),
                7000 + i as u64,
                ctl.clone(),
            ))
        })
        .collect();
    let mut all = Seen::default();
    for t in tasks {
        let s = t.await.unwrap();
        for (a, d) in s.deltas {
            *all.deltas.entry(a).or_default() += d;
        }
        all.acked.extend(s.acked);
        all.refused += s.refused;
        all.retried_ops += s.retried_ops;
        all.failures.extend(s.failures);
        all.recoveries.extend(s.recoveries);
    }
    all
}
