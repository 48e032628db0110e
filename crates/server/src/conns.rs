//! The connection table: every open connection, its peer and whether a request is being
//! handled on it, so that a flood of idle connections cannot lock new clients out.
//!
//! Refusing to accept at the connection limit (what the server did before) turns the listen
//! backlog into the only queue: 4,096 idle sockets opened by one client then keep every new
//! client waiting until the header-read timeout frees a slot. Instead the server always
//! accepts, and when the table is full, or the new connection's peer address already has its
//! share, it evicts the connection that has been idle longest (of that peer, for the per-peer
//! cap). A connection is idle when no request is being handled on it: it waits for its first
//! request, sits between keep-alive requests, or is still sending a head. Progress (a request
//! starting or ending) makes a connection young again, so the clients that are evicted are
//! those that hold a slot and do nothing with it. Only when every connection
//! in the way is busy is the new connection refused, with a `503` and a close; since at most
//! `max_in_flight` requests are read or handled at once, that cannot happen at the table limit
//! while `max_connections` is larger.
//!
//! This must never let the table grow past `max_connections`, never evict a connection while
//! a request is being handled on it, and never hold its lock across an await.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use tokio::sync::Notify;

const IDLE: u8 = 0;
const BUSY: u8 = 1;
const EVICTED: u8 = 2;

/// One open connection, shared by its task and the table.
#[derive(Debug)]
pub(crate) struct Slot {
    index: usize,
    peer: IpAddr,
    state: AtomicU8,
    /// Microseconds since the table's epoch of the last progress (accept, start or end of a
    /// request).
    last_active: AtomicU64,
    evict: Notify,
}

impl Slot {
    /// Completes when the table evicted this connection: drop it.
    pub(crate) async fn evicted(&self) {
        self.evict.notified().await;
    }

    /// The table evicted this connection (or it was released): for a connection that looks
    /// now and then instead of awaiting [`Slot::evicted`] (a blocking one).
    pub(crate) fn is_evicted(&self) -> bool {
        self.state.load(Ordering::Acquire) == EVICTED
    }
}

/// Why a connection was turned away.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refused {
    /// Every connection is busy and the table is full.
    Full,
    /// Every connection of this peer is busy and it has its share.
    PerPeer,
}

/// What [`Table::admit`] did to make room.
#[derive(Debug)]
pub(crate) struct Admitted {
    pub(crate) slot: Arc<Slot>,
    /// A connection was evicted for this one.
    pub(crate) evicted: bool,
}

/// The table of open connections, shared by all accept loops of one server.
#[derive(Debug)]
pub(crate) struct Table {
    max: usize,
    per_peer: usize,
    epoch: Instant,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    slots: Vec<Option<Arc<Slot>>>,
    free: Vec<usize>,
    len: usize,
    by_peer: HashMap<IpAddr, usize>,
}

impl State {
    /// The idle connection with the oldest progress, among those `filter` keeps.
    fn oldest_idle(&self, filter: impl Fn(&Slot) -> bool) -> Option<Arc<Slot>> {
        self.slots
            .iter()
            .flatten()
            .filter(|s| filter(s) && s.state.load(Ordering::Acquire) == IDLE)
            .min_by_key(|s| s.last_active.load(Ordering::Relaxed))
            .cloned()
    }

    fn remove(&mut self, slot: &Slot) {
        self.slots[slot.index] = None;
        self.free.push(slot.index);
        self.len -= 1;
        if let Some(n) = self.by_peer.get_mut(&slot.peer) {
            *n -= 1;
            if *n == 0 {
                self.by_peer.remove(&slot.peer);
            }
        }
    }

    /// Evicts the oldest idle connection `filter` keeps; false if there is none (all busy,
    /// or one turned busy between the scan and the claim, in which case the next is tried).
    fn evict_one(&mut self, filter: impl Fn(&Slot) -> bool) -> bool {
        while let Some(victim) = self.oldest_idle(&filter) {
            if victim
                .state
                .compare_exchange(IDLE, EVICTED, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
            {
                self.remove(&victim);
                victim.evict.notify_one();
                return true;
            }
        }
        false
    }
}

impl Table {
    /// A table of at most `max` connections, at most `per_peer` from one address.
    pub(crate) fn new(max: usize, per_peer: usize) -> Self {
        Table {
            max: max.max(1),
            per_peer: per_peer.max(1),
            epoch: Instant::now(),
            state: Mutex::new(State::default()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn us_at(&self, at: Instant) -> u64 {
        let since = at.saturating_duration_since(self.epoch);
        u64::try_from(since.as_micros()).unwrap_or(u64::MAX)
    }

    /// Makes room for a connection from `peer`, evicting the longest-idle connection of the
    /// same peer (at the per-peer cap) or of anyone (table full) if needed.
    pub(crate) fn admit(&self, peer: IpAddr) -> Result<Admitted, Refused> {
        let peer = canonical(peer);
        let mut st = self.lock();
        let mut evicted = false;
        if st.by_peer.get(&peer).copied().unwrap_or(0) >= self.per_peer {
            if !st.evict_one(|s| s.peer == peer) {
                return Err(Refused::PerPeer);
            }
            evicted = true;
        }
        if st.len >= self.max {
            if !st.evict_one(|_| true) {
                return Err(Refused::Full);
            }
            evicted = true;
        }
        let index = st.free.pop().unwrap_or(st.slots.len());
        let slot = Arc::new(Slot {
            index,
            peer,
            state: AtomicU8::new(IDLE),
            last_active: AtomicU64::new(self.us_at(Instant::now())),
            evict: Notify::new(),
        });
        if index == st.slots.len() {
            st.slots.push(Some(slot.clone()));
        } else {
            st.slots[index] = Some(slot.clone());
        }
        st.len += 1;
        *st.by_peer.entry(peer).or_default() += 1;
        Ok(Admitted { slot, evicted })
    }

    /// The connection closed: frees its slot (unless it was evicted, which freed it already).
    pub(crate) fn release(&self, slot: &Slot) {
        let mut st = self.lock();
        if slot.state.load(Ordering::Acquire) != EVICTED {
            // Mark it so that a late `release` (or an evictor's stale scan) cannot free the
            // index again once another connection has it.
            slot.state.store(EVICTED, Ordering::Release);
            st.remove(slot);
        }
    }

    /// The connection made progress at `at` (a head started arriving).
    pub(crate) fn touch(&self, slot: &Slot, at: Instant) {
        slot.last_active.store(self.us_at(at), Ordering::Relaxed);
    }

    /// A request is being handled on the connection until the guard drops; `None` if the
    /// connection was just evicted (its task is about to drop it). The guard borrows the
    /// table and the slot: the connection that asks holds both for longer.
    pub(crate) fn busy<'a>(&'a self, slot: &'a Slot) -> Option<Busy<'a>> {
        slot.state
            .compare_exchange(IDLE, BUSY, Ordering::AcqRel, Ordering::Acquire)
            .ok()?;
        // No `touch` here: a busy connection is never a candidate for eviction, and the
        // guard's drop stamps the moment it turns idle again, which is what eviction orders by.
        Some(Busy {
            table: self,
            slot,
            idle_at: None,
        })
    }

    /// Open connections.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.lock().len
    }
}

/// A request is being handled: the connection cannot be evicted.
#[derive(Debug)]
pub(crate) struct Busy<'a> {
    table: &'a Table,
    slot: &'a Slot,
    idle_at: Option<Instant>,
}

impl Busy<'_> {
    /// Idle again, as of `at` (an instant the caller has read anyway, e.g. when its request
    /// was answered): the guard's drop without a clock read of its own.
    pub(crate) fn idle_at(mut self, at: Instant) {
        self.idle_at = Some(at);
    }
}

impl Drop for Busy<'_> {
    fn drop(&mut self) {
        let at = self.idle_at.unwrap_or_else(Instant::now);
        self.table.touch(self.slot, at);
        // A store, not a compare-and-swap (a locked instruction, about 20 cycles a request):
        // only this guard's holder moves a slot out of `BUSY` (an evictor takes only `IDLE`
        // ones, and `release` runs on the same connection after the guard is gone), so the
        // state is `BUSY` here. The release orders the `touch` before it for an evictor.
        debug_assert_eq!(self.slot.state.load(Ordering::Relaxed), BUSY);
        self.slot.state.store(IDLE, Ordering::Release);
    }
}

/// IPv4 peers reached over an IPv6 socket count as their IPv4 address.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(last: u8) -> IpAddr {
        IpAddr::from([127, 0, 0, last])
    }

    #[test]
    fn a_full_table_evicts_the_longest_idle_connection() {
        let t = Arc::new(Table::new(3, 10));
        let a = t.admit(ip(1)).unwrap().slot;
        let b = t.admit(ip(1)).unwrap().slot;
        let c = t.admit(ip(2)).unwrap().slot;
        // `a` is oldest but busy; `b` made progress after `c`... so `c` is the oldest idle
        let _busy = t.busy(&a).unwrap();
        c.last_active.store(0, Ordering::Relaxed);
        b.last_active.store(5, Ordering::Relaxed);
        let d = t.admit(ip(3)).unwrap();
        assert!(d.evicted);
        assert_eq!(c.state.load(Ordering::Acquire), EVICTED);
        assert_eq!(b.state.load(Ordering::Acquire), IDLE);
        assert_eq!(t.len(), 3);
        assert!(
            t.busy(&c).is_none(),
            "an evicted connection takes no request"
        );
        // a late release of the evicted slot frees nothing twice
        t.release(&c);
        assert_eq!(t.len(), 3);
        t.release(&b);
        assert_eq!(t.len(), 2);
    }

    #[test]
    fn when_everything_is_busy_the_new_connection_is_refused() {
        let t = Arc::new(Table::new(2, 10));
        let a = t.admit(ip(1)).unwrap().slot;
        let b = t.admit(ip(2)).unwrap().slot;
        let (_ba, _bb) = (t.busy(&a).unwrap(), t.busy(&b).unwrap());
        assert_eq!(t.admit(ip(3)).unwrap_err(), Refused::Full);
        drop(_ba);
        assert!(t.admit(ip(3)).unwrap().evicted, "`a` is idle again");
    }

    #[test]
    fn the_per_peer_cap_evicts_that_peers_own_connections_only() {
        let t = Arc::new(Table::new(100, 2));
        let other = t.admit(ip(9)).unwrap().slot;
        other.last_active.store(0, Ordering::Relaxed);
        let a = t.admit(ip(1)).unwrap().slot;
        let b = t.admit(ip(1)).unwrap().slot;
        a.last_active.store(1, Ordering::Relaxed);
        b.last_active.store(2, Ordering::Relaxed);
        let c = t.admit(ip(1)).unwrap();
        assert!(c.evicted);
        assert_eq!(a.state.load(Ordering::Acquire), EVICTED);
        assert_eq!(other.state.load(Ordering::Acquire), IDLE);
        let (_bb, _bc) = (t.busy(&b).unwrap(), t.busy(&c.slot).unwrap());
        assert_eq!(t.admit(ip(1)).unwrap_err(), Refused::PerPeer);
        assert!(!t.admit(ip(2)).unwrap().evicted);
    }

    #[test]
    fn a_busy_guard_stamps_the_instant_it_is_given_else_its_drop() {
        let t = Table::new(10, 10);
        let a = t.admit(ip(1)).unwrap().slot;
        t.busy(&a)
            .unwrap()
            .idle_at(t.epoch + std::time::Duration::from_secs(7));
        assert_eq!(a.last_active.load(Ordering::Relaxed), 7_000_000);
        assert_eq!(a.state.load(Ordering::Acquire), IDLE);
        let before = t.us_at(Instant::now());
        drop(t.busy(&a).unwrap());
        let stamped = a.last_active.load(Ordering::Relaxed);
        assert!(stamped >= before && stamped < 7_000_000, "{stamped}");
        assert_eq!(a.state.load(Ordering::Acquire), IDLE);
    }

    #[test]
    fn ipv4_mapped_peers_count_as_ipv4() {
        let t = Table::new(100, 1);
        t.admit(ip(1)).unwrap();
        let mapped: IpAddr = "::ffff:127.0.0.1".parse().unwrap();
        assert!(t.admit(mapped).unwrap().evicted);
    }
}
