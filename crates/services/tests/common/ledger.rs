//! Reading the ledger back after a load that was interrupted (a SIGKILL, a failover): the
//! checks every crash test makes, in one place.

use std::collections::HashMap;

use soapstone_services::charging::{SeedConfig, Store};

use super::load::Acked;

/// Every acknowledged operation is in the ledger under its number, as it was acknowledged, no
/// two acknowledgements share a number, and the store's audit (balances against the ledger, no
/// negative balance) is clean.
pub async fn assert_acked_are_durable(store: &dyn Store, acked: &[Acked]) {
    let mut cns: Vec<i32> = acked.iter().map(|a| a.cn).collect();
    cns.sort_unstable();
    cns.dedup();
    assert_eq!(cns.len(), acked.len(), "no two operations got one number");
    for a in acked {
        let rec = store
            .transaction(a.cn)
            .await
            .unwrap()
            .unwrap_or_else(|| panic!("acknowledged {a:?} lost"));
        assert_eq!(
            (rec.kind, rec.account, rec.amount),
            (a.kind, a.account, a.amount),
            "ledger entry {}",
            a.cn
        );
    }
    let audit = store.audit().await.unwrap();
    assert!(audit.is_clean(), "{audit:?}");
}

/// [`assert_acked_are_durable`], and the ledger holds nothing else: every operation applied
/// exactly once (none twice, none unacknowledged), every balance its seed plus the
/// acknowledged changes.
pub async fn assert_exactly_once(
    store: &dyn Store,
    seed: &SeedConfig,
    acked: &[Acked],
    deltas: &HashMap<i32, i64>,
) {
    assert_acked_are_durable(store, acked).await;
    let audit = store.audit().await.unwrap();
    assert_eq!(
        audit.transactions as usize,
        acked.len(),
        "the ledger holds exactly the acknowledged operations: none twice, none unacknowledged"
    );
    for (id, initial) in seed.accounts() {
        let expected = initial + deltas.get(&id).copied().unwrap_or(0);
        assert_eq!(store.balance(id).await.unwrap(), expected, "account {id}");
    }
}
