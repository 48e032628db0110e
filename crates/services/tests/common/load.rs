//! A random charging workload over real HTTP, and the model of what the server acknowledged.
//!
//! Each client runs operations one after another on a few shared accounts (so they contend),
//! with reservations shared between clients (so two may race to debit or release the same one;
//! exactly one may win). Every acknowledged operation is added to the model: its delta when it
//! succeeded, nothing when it was refused with a fault. An operation whose answer never came (a
//! transport error: the server died) is "uncertain": it may or may not have happened.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use soapstone_services::charging::{ChargingClient, TxKind};

/// An operation the server acknowledged with a transaction number.
#[derive(Debug, Clone)]
pub struct Acked {
    pub cn: i32,
    pub kind: TxKind,
    pub account: i32,
    pub amount: i64,
}

/// What one client saw.
#[derive(Debug, Default)]
pub struct Seen {
    /// Sum of the acknowledged balance changes per account.
    pub deltas: HashMap<i32, i64>,
    pub acked: Vec<Acked>,
    /// `(account, delta if it happened)` of operations whose answer never came.
    pub uncertain: Vec<(i32, i64)>,
    pub succeeded: usize,
    pub refused: usize,
    pub confirmed: usize,
}

impl Seen {
    pub fn merge(&mut self, other: Seen) {
        for (a, d) in other.deltas {
            *self.deltas.entry(a).or_default() += d;
        }
        self.acked.extend(other.acked);
        self.uncertain.extend(other.uncertain);
        self.succeeded += other.succeeded;
        self.refused += other.refused;
        self.confirmed += other.confirmed;
    }
}

/// What a test shares with a running load: the flag that stops it and the count of operations
/// acknowledged so far, so that the test waits for the load to have run (a crash in the middle
/// of it, a failover under it) instead of sleeping and hoping a loaded machine kept up.
#[derive(Debug, Default)]
pub struct Control {
    pub stop: AtomicBool,
    pub acked: AtomicUsize,
}

impl Control {
    /// Asks the clients to stop after their current operation.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Operations acknowledged so far.
    pub fn acked(&self) -> usize {
        self.acked.load(Ordering::Relaxed)
    }

    /// Waits until `n` operations in all have been acknowledged; panics after `within` (make it
    /// generous: this is a condition, not a timing).
    pub async fn wait_acked(&self, n: usize, within: Duration) {
        let deadline = Instant::now() + within;
        while self.acked() < n {
            assert!(
                Instant::now() < deadline,
                "the load had {} operations acknowledged in {within:?}, waiting for {n}",
                self.acked()
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}

/// An open reservation: `(res, account, amount)`.
pub type Pool = Arc<Mutex<Vec<(i32, i32, i32)>>>;

enum Outcome {
    Done(Option<(i32, TxKind, i32, i64, i64)>), // (cn, kind, account, amount, delta); None: no change
    Refused,
    Lost(i32, i64),
}

fn expected_refusal(reason: &str) -> bool {
    reason.starts_with("insufficient funds: ")
        || (reason.starts_with("reservation `") && reason.contains("` was already "))
}

/// Runs up to `ops` operations (or until `ctl` stops it, or until the server stops answering).
pub async fn client(
    client: ChargingClient,
    accounts: Vec<i32>,
    pool: Pool,
    seed: u64,
    ops: usize,
    ctl: Arc<Control>,
) -> Seen {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut seen = Seen::default();
    let mut to_confirm: Vec<i32> = Vec::new();
    for _ in 0..ops {
        if ctl.stop.load(Ordering::Relaxed) {
            break;
        }
        let id = accounts[rng.gen_range(0..accounts.len())];
        let am: i32 = if rng.gen_bool(0.2) {
            rng.gen_range(1_000..60_000)
        } else {
            rng.gen_range(1..2_000)
        };
        let roll = rng.gen_range(0..100);
        let outcome = if roll < 18 {
            op(
                client.credit(id, am).await,
                |cn| (cn, TxKind::Credit, id, am.into(), am.into()),
                (id, am.into()),
            )
        } else if roll < 40 {
            op(
                client.direct_debit(id, am).await,
                |cn| (cn, TxKind::DirectDebit, id, am.into(), -i64::from(am)),
                (id, -i64::from(am)),
            )
        } else if roll < 65 {
            let r = client.reserve(id, am).await;
            if let Ok(res) = &r {
                pool.lock().unwrap().push((*res, id, am));
            }
            op(
                r,
                |cn| (cn, TxKind::Reserve, id, am.into(), -i64::from(am)),
                (id, -i64::from(am)),
            )
        } else if roll < 95 {
            // Take a reservation; now and then leave it in the pool so another client races for it.
            let picked = {
                let mut p = pool.lock().unwrap();
                if p.is_empty() {
                    None
                } else {
                    let i = rng.gen_range(0..p.len());
                    Some(if rng.gen_bool(0.3) {
                        p[i]
                    } else {
                        p.swap_remove(i)
                    })
                }
            };
            match picked {
                None => Outcome::Done(None),
                Some((res, owner, reserved)) if roll < 82 => {
                    let charge = rng.gen_range(1..=reserved);
                    let back = i64::from(reserved - charge);
                    op(
                        client.debit_reservation(owner, charge, res).await,
                        |cn| (cn, TxKind::DebitReservation, owner, charge.into(), back),
                        (owner, back),
                    )
                }
                Some((res, owner, reserved)) => {
                    let back = i64::from(reserved);
                    op(
                        client.release_res(res).await,
                        |cn| (cn, TxKind::Release, owner, back, back),
                        (owner, back),
                    )
                }
            }
        } else {
            match to_confirm.pop() {
                Some(cn) => match client.confirm_action(cn).await {
                    Ok(()) => {
                        seen.confirmed += 1;
                        Outcome::Done(None)
                    }
                    Err(e) if e.fault().is_some() => panic!("confirmAction({cn}) refused: {e}"),
                    Err(e) if e.status() == Some(503) => Outcome::Refused,
                    Err(_) => Outcome::Lost(id, 0),
                },
                None => Outcome::Done(None),
            }
        };
        match outcome {
            Outcome::Done(Some((cn, kind, account, amount, delta))) => {
                *seen.deltas.entry(account).or_default() += delta;
                seen.acked.push(Acked {
                    cn,
                    kind,
                    account,
                    amount,
                });
                seen.succeeded += 1;
                ctl.acked.fetch_add(1, Ordering::Relaxed);
                if rng.gen_bool(0.5) {
                    to_confirm.push(cn);
                }
            }
            Outcome::Done(None) => {}
            Outcome::Refused => seen.refused += 1,
            Outcome::Lost(account, delta) => {
                seen.uncertain.push((account, delta));
                break;
            }
        }
    }
    seen
}

fn op(
    r: Result<i32, soapstone_client::Error>,
    done: impl FnOnce(i32) -> (i32, TxKind, i32, i64, i64),
    lost: (i32, i64),
) -> Outcome {
    match r {
        Ok(cn) => Outcome::Done(Some(done(cn))),
        Err(e) => match e.fault() {
            Some(f) if expected_refusal(&f.reason) => Outcome::Refused,
            Some(f) => panic!("unexpected fault: {}", f.reason),
            // Shed by the server's overload control before the service ran (the machine is
            // loaded): answered, nothing applied.
            None if e.status() == Some(503) => Outcome::Refused,
            None => Outcome::Lost(lost.0, lost.1),
        },
    }
}

/// Runs `clients` clients of `ops` operations each against `url` on `accounts`.
pub async fn run(
    url: String,
    accounts: Vec<i32>,
    clients: usize,
    ops: usize,
    ctl: Arc<Control>,
) -> Seen {
    let pool: Pool = Arc::default();
    let mut tasks = Vec::new();
    for i in 0..clients {
        let c = ChargingClient::new(&url).unwrap();
        tasks.push(tokio::spawn(client(
            c,
            accounts.clone(),
            pool.clone(),
            1000 + i as u64,
            ops,
            ctl.clone(),
        )));
    }
    let mut all = Seen::default();
    for t in tasks {
        all.merge(t.await.unwrap());
    }
    all
}

/// Whether `target` is the sum of some subset of `items`.
pub fn subset_sum(items: &[i64], target: i64) -> bool {
    let mut sums = std::collections::HashSet::from([0i64]);
    for &x in items {
        let next: Vec<i64> = sums.iter().map(|s| s + x).collect();
        sums.extend(next);
    }
    sums.contains(&target)
}
