//! The deterministic set of accounts an empty store starts with, so that every run of the lab and
//! every user sees the same accounts and balances.
//!
//! Must never: depend on anything but the configuration (no clock, no OS randomness).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Which accounts an empty store is seeded with.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SeedConfig {
    /// Number of accounts, with ids `1..=accounts`. Default: `10_000`.
    pub accounts: u32,
    /// Seed of the balance generator. Default: `2002` (the thesis' year).
    pub seed: u64,
    /// Smallest initial balance. Default: `10_000`.
    pub min_balance: i64,
    /// Largest initial balance. Default: `1_000_000`.
    pub max_balance: i64,
}

impl Default for SeedConfig {
    fn default() -> Self {
        SeedConfig {
            accounts: 10_000,
            seed: 2002,
            min_balance: 10_000,
            max_balance: 1_000_000,
        }
    }
}

impl SeedConfig {
    /// The default configuration with this many accounts.
    pub fn with_accounts(accounts: u32) -> Self {
        SeedConfig {
            accounts,
            ..SeedConfig::default()
        }
    }

    /// The accounts as `(id, initial balance)`, ids `1..=accounts` in order. ChaCha8 is
    /// value-stable across versions of `rand_chacha`, so the balances never change.
    pub fn accounts(&self) -> impl Iterator<Item = (i32, i64)> {
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed);
        let (lo, hi) = (
            self.min_balance.max(0),
            self.max_balance.max(self.min_balance.max(0)),
        );
        let hi = hi.min(super::MAX_BALANCE);
        let lo = lo.min(hi);
        (1..=self.accounts.min(i32::MAX as u32) as i32).map(move |id| (id, rng.gen_range(lo..=hi)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_and_in_range() {
        let c = SeedConfig::with_accounts(1000);
        let a: Vec<_> = c.accounts().collect();
        let b: Vec<_> = c.accounts().collect();
        assert_eq!(a, b);
        assert_eq!(a.len(), 1000);
        assert_eq!(a[0].0, 1);
        assert_eq!(a[999].0, 1000);
        assert!(a
            .iter()
            .all(|&(_, bal)| (10_000..=1_000_000).contains(&bal)));
        let distinct: std::collections::HashSet<_> = a.iter().map(|x| x.1).collect();
        assert!(
            distinct.len() > 900,
            "balances should vary, got {} distinct",
            distinct.len()
        );
        let other = SeedConfig {
            seed: 7,
            ..c.clone()
        };
        assert_ne!(other.accounts().collect::<Vec<_>>(), a);
    }
}
