//! [`ServiceFuture`]: the future a service answers with, without a heap allocation per request.
//!
//! Why it exists: the server holds its services as `dyn SoapService`, so the future of a call
//! must be type-erased, and a `Box` per request was one of the last two allocations of an
//! echoFloat request (docs/performance.md, round four). A generated server's future has one
//! type per operation; it is placed in a slot (a `Box` of that type) taken from a small pool
//! kept per thread, and the slot goes back to the pool, empty, when the future ends or is
//! dropped. The next request for the same operation on that thread finds a slot of the right
//! type and writes its future into it: no allocation in the steady state. An answer known
//! before any handler runs (a fault, a cached response) needs no slot at all.
//!
//! It must never use `unsafe` (the slot is an `Option<F>` pinned in its box and replaced
//! with `Pin::set`, found again by its `TypeId`), never hold more than [`IDLE_SLOTS`] idle
//! slots of at most [`SLOT_BYTES`] each per thread (a larger future is boxed as before), and
//! never drop a future while the pool is borrowed (a future's destructor may answer another
//! call).

use std::any::{Any, TypeId};
use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use crate::{BoxFuture, SoapResponse};

/// Idle slots a thread keeps: one per operation type recently served on it. Default and only
/// value: `16`.
pub const IDLE_SLOTS: usize = 16;
/// Largest future kept in a pooled slot; a larger one is boxed per call. Default and only
/// value: `4 KiB`. A thread's idle slots hold at most `IDLE_SLOTS * SLOT_BYTES` (64 KiB).
pub const SLOT_BYTES: usize = 4 << 10;

/// The future of a service call ([`crate::SoapService::serve`]): ready at once, a boxed
/// future (what a hand-written service returns), or a future in a slot reused per thread.
#[must_use = "futures do nothing unless polled"]
pub struct ServiceFuture(State);

enum State {
    Ready(Option<SoapResponse>),
    Boxed(BoxFuture<SoapResponse>),
    Pooled(Option<Pin<Box<dyn Slot>>>),
}

impl ServiceFuture {
    /// An answer known already: no allocation.
    pub fn ready(response: SoapResponse) -> Self {
        ServiceFuture(State::Ready(Some(response)))
    }

    /// `future`, in a slot of its type taken from this thread's pool (allocated when the pool
    /// has none; boxed per call when larger than [`SLOT_BYTES`]).
    pub fn pooled<F>(future: F) -> Self
    where
        F: Future<Output = SoapResponse> + Send + 'static,
    {
        if std::mem::size_of::<Option<F>>() > SLOT_BYTES {
            return ServiceFuture(State::Boxed(Box::pin(future)));
        }
        let mut future = Some(future);
        let kind = TypeId::of::<F>();
        let found = POOL
            .try_with(|pool| {
                let mut pool = pool.try_borrow_mut().ok()?;
                let i = pool.iter().position(|s| s.kind() == kind)?;
                Some(pool.swap_remove(i))
            })
            .ok()
            .flatten();
        let slot = match found {
            Some(mut slot) => {
                let filled = slot.as_mut().fill(&mut future);
                debug_assert!(filled, "a pooled slot of another type");
                slot
            }
            None => Box::pin(future) as Pin<Box<dyn Slot>>,
        };
        ServiceFuture(State::Pooled(Some(slot)))
    }

    /// Boxed, for the [`BoxFuture`] of [`crate::SoapService::call`].
    pub fn boxed(self) -> BoxFuture<SoapResponse> {
        match self.into_state() {
            State::Boxed(future) => future,
            other => Box::pin(ServiceFuture(other)),
        }
    }

    fn into_state(mut self) -> State {
        std::mem::replace(&mut self.0, State::Ready(None))
    }
}

impl From<BoxFuture<SoapResponse>> for ServiceFuture {
    fn from(future: BoxFuture<SoapResponse>) -> Self {
        ServiceFuture(State::Boxed(future))
    }
}

impl Future for ServiceFuture {
    type Output = SoapResponse;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<SoapResponse> {
        match &mut self.0 {
            State::Ready(answer) => Poll::Ready(answer.take().expect("polled after completion")),
            State::Boxed(future) => future.as_mut().poll(cx),
            State::Pooled(slot) => {
                let running = slot.as_mut().expect("polled after completion");
                let answer = ready!(running.as_mut().poll_slot(cx));
                give_back(slot.take());
                Poll::Ready(answer)
            }
        }
    }
}

impl Drop for ServiceFuture {
    fn drop(&mut self) {
        if let State::Pooled(slot) = &mut self.0 {
            if let Some(mut slot) = slot.take() {
                slot.as_mut().empty(); // the unfinished future is dropped here, not in the pool
                give_back(Some(slot));
            }
        }
    }
}

impl std::fmt::Debug for ServiceFuture {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = match self.0 {
            State::Ready(_) => "ready",
            State::Boxed(_) => "boxed",
            State::Pooled(_) => "pooled",
        };
        f.debug_tuple("ServiceFuture").field(&state).finish()
    }
}

thread_local! {
    static POOL: RefCell<Vec<Pin<Box<dyn Slot>>>> = const { RefCell::new(Vec::new()) };
}

/// Puts an empty slot back in this thread's pool, or drops it when the pool is full.
fn give_back(slot: Option<Pin<Box<dyn Slot>>>) {
    let Some(slot) = slot else { return };
    let refused = POOL
        .try_with(|pool| match pool.try_borrow_mut() {
            Ok(mut pool) if pool.len() < IDLE_SLOTS => {
                if pool.capacity() == 0 {
                    pool.reserve_exact(IDLE_SLOTS);
                }
                pool.push(slot);
                None
            }
            _ => Some(slot),
        })
        .unwrap_or(None);
    drop(refused); // outside the borrow
}

/// A pinned place for one future of one type.
trait Slot: Send {
    /// The type of future it holds.
    fn kind(&self) -> TypeId;
    /// Moves the future out of `with` (an `Option<F>` of the same `F`) into the empty slot;
    /// `false` if it is of another type.
    fn fill(self: Pin<&mut Self>, with: &mut dyn Any) -> bool;
    /// Polls the future; empties the slot once it is ready.
    fn poll_slot(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<SoapResponse>;
    /// Drops the future, if any.
    fn empty(self: Pin<&mut Self>);
}

impl<F> Slot for Option<F>
where
    F: Future<Output = SoapResponse> + Send + 'static,
{
    fn kind(&self) -> TypeId {
        TypeId::of::<F>()
    }

    fn fill(mut self: Pin<&mut Self>, with: &mut dyn Any) -> bool {
        match with.downcast_mut::<Option<F>>() {
            Some(future) => {
                self.set(future.take());
                true
            }
            None => false,
        }
    }

    fn poll_slot(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<SoapResponse> {
        let future = self.as_mut().as_pin_mut().expect("polled after completion");
        let answer = ready!(future.poll(cx));
        self.set(None);
        Poll::Ready(answer)
    }

    fn empty(mut self: Pin<&mut Self>) {
        self.set(None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Version;
    use bytes::Bytes;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    fn answer(n: u8) -> SoapResponse {
        SoapResponse::new(Version::Soap11, false, None, Bytes::from(vec![n]))
    }

    fn idle() -> usize {
        POOL.with(|p| p.borrow().len())
    }

    fn block_on<F: Future>(f: F) -> F::Output {
        let mut cx = Context::from_waker(std::task::Waker::noop());
        match std::pin::pin!(f).poll(&mut cx) {
            Poll::Ready(out) => out,
            Poll::Pending => panic!("not ready"),
        }
    }

    #[test]
    fn a_slot_is_reused_for_the_same_future_type() {
        let make = |n: u8| ServiceFuture::pooled(async move { answer(n) });
        assert_eq!(block_on(make(1)).body[..], [1]);
        let before = idle();
        let second = make(2);
        assert_eq!(idle(), before - 1, "the idle slot was taken");
        assert_eq!(block_on(second).body[..], [2]);
        assert_eq!(idle(), before, "and given back");
    }

    #[test]
    fn a_dropped_call_drops_its_future_and_keeps_the_slot() {
        struct Counted(Arc<AtomicUsize>);
        impl Drop for Counted {
            fn drop(&mut self) {
                self.0.fetch_add(1, Ordering::SeqCst);
            }
        }
        let drops = Arc::new(AtomicUsize::new(0));
        let held = Counted(drops.clone());
        let pending = ServiceFuture::pooled(async move {
            let _held = held;
            std::future::pending::<()>().await;
            answer(0)
        });
        let before = idle();
        drop(pending);
        assert_eq!(drops.load(Ordering::SeqCst), 1);
        assert_eq!(idle(), before + 1);
    }

    #[test]
    fn ready_and_boxed_answers_need_no_slot() {
        assert_eq!(block_on(ServiceFuture::ready(answer(3))).body[..], [3]);
        let boxed: BoxFuture<SoapResponse> = Box::pin(async { answer(4) });
        assert_eq!(block_on(ServiceFuture::from(boxed)).body[..], [4]);
        assert_eq!(
            block_on(ServiceFuture::ready(answer(5)).boxed()).body[..],
            [5]
        );
    }

    #[test]
    fn large_futures_are_boxed_and_the_pool_is_bounded() {
        let big = [0u8; SLOT_BYTES];
        let f = ServiceFuture::pooled(async move { answer(big[0]) });
        assert!(matches!(f.0, State::Boxed(_)));
        // Many types at once: at most IDLE_SLOTS stay.
        macro_rules! many {
            ($($n:literal)*) => { vec![$(ServiceFuture::pooled(async { answer($n) }),)*] };
        }
        let all = many!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19);
        drop(all);
        assert!(idle() <= IDLE_SLOTS);
    }
}
