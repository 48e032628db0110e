//! The charging system's SOAP face: rpc/encoded, the operation names and parameter names of the
//! thesis' appendix C (`reserve(id, am)`, `debitReservation(id, am, res)`, `releaseRes(res)`,
//! `confirmAction(cn)`, ...). Requests are accepted with the operation element unqualified, as
//! printed in the thesis, or in [`NAMESPACE`].
//!
//! What each operation returns (our choice; the thesis does not print responses):
//! `credit`, `directDebit`, `debitReservation` and `releaseRes` return the transaction number to
//! confirm; `reserve` returns the reservation id, which is also its transaction number;
//! `creditControl` returns the balance; `confirmAction` returns nothing.
//!
//! Money-moving operations (`credit`, `directDebit`, `reserve`, `debitReservation`,
//! `releaseRes`) honour an optional `<ch:IdempotencyKey>` header block in [`NAMESPACE`]: the
//! same key again answers the first answer and applies nothing (see [`super::once`]).
//!
//! Who may do what (issue 11): reading a balance needs the permission [`READ`], every
//! operation that moves money or confirms one needs [`MOVE`]; the principal comes from a layer
//! in front (WS-Security, a TLS client certificate) and its name is written into each ledger
//! entry. A system built with [`ChargingSystem::requiring_principal`] refuses a request without
//! one; without it (loopback benchmarks, the lab) requests without a principal are served and
//! recorded without an issuer.
//!
//! Must never: answer before the store acknowledged, or touch the store for a request whose
//! principal lacks the permission.

use soapstone_codec::Fault;
use soapstone_service::Context;
use soapstone_wssec::WsseFault;

use super::once::{idempotency_key_name, IdempotencyKey};
use super::{ChargingSystem, Op};

/// The permission to read balances (`creditControl`).
pub const READ: &str = "read";
/// The permission to move money and confirm transactions (every other operation).
pub const MOVE: &str = "move";

/// The service's namespace (WSDL target namespace, SOAPAction prefix).
pub const NAMESPACE: &str = "urn:soapstone:charging";

/// The charging system of Elfving and Paulsson (seed 000, appendix B): prepaid accounts that are
/// credited, debited, or debited through a reservation, every money operation acknowledged with
/// `confirmAction`.
#[soapstone_service::service(
    name = "Charging",
    namespace = "urn:soapstone:charging",
    style = "rpc"
)]
pub trait Charging {
    /// Deposits `am` on account `id`; returns the transaction number to confirm.
    async fn credit(&self, ctx: &Context, id: i32, am: i32) -> Result<i32, Fault>;
    /// Withdraws `am` from account `id`; returns the transaction number to confirm.
    async fn direct_debit(&self, ctx: &Context, id: i32, am: i32) -> Result<i32, Fault>;
    /// Holds `am` of account `id`'s balance; returns the reservation id (also the transaction
    /// number to confirm).
    async fn reserve(&self, ctx: &Context, id: i32, am: i32) -> Result<i32, Fault>;
    /// Charges `am` (at most the reserved amount) to reservation `res` of account `id`; the rest
    /// goes back to the balance. Returns the transaction number to confirm.
    async fn debit_reservation(
        &self,
        ctx: &Context,
        id: i32,
        am: i32,
        res: i32,
    ) -> Result<i32, Fault>;
    /// Gives reservation `res` back to the balance; returns the transaction number to confirm.
    #[soap(name = "releaseRes")]
    async fn release_res(&self, ctx: &Context, res: i32) -> Result<i32, Fault>;
    /// The balance of account `id` (reserved amounts are not part of it).
    async fn credit_control(&self, ctx: &Context, id: i32) -> Result<i32, Fault>;
    /// Acknowledges transaction `cn`; confirming twice is harmless.
    async fn confirm_action(&self, ctx: &Context, cn: i32) -> Result<(), Fault>;
}

fn fault(e: super::ChargingError) -> Fault {
    e.to_fault()
}

/// The request's idempotency key, if it has one (a malformed one is a Client fault).
fn key(ctx: &Context) -> Result<Option<IdempotencyKey>, Fault> {
    match ctx.header_xml(&idempotency_key_name())? {
        None => Ok(None),
        Some(xml) => IdempotencyKey::from_header_xml(&xml)
            .map(Some)
            .map_err(fault),
    }
}

fn balance_to_wire(balance: i64) -> Result<i32, Fault> {
    i32::try_from(balance)
        .map_err(|_| Fault::server(format!("balance `{balance}` does not fit xsd:int")))
}

impl ChargingSystem {
    /// The principal's name when it may do `permission`; `None` when no principal is needed
    /// and none was given. A refusal is `wsse:FailedAuthentication` (WSS 1.1: "could not be
    /// authenticated or authorized"), the same for every reason.
    fn permit<'c>(&self, ctx: &'c Context, permission: &str) -> Result<Option<&'c str>, Fault> {
        match ctx.principal() {
            Some(p) if p.may(permission) => Ok(Some(p.name.as_str())),
            None if !self.requires_principal() => Ok(None),
            _ => Err(WsseFault::FailedAuthentication.to_fault(ctx.version())),
        }
    }

    async fn money(&self, ctx: &Context, op: Op) -> Result<i32, Fault> {
        let issuer = self.permit(ctx, MOVE)?;
        let key = key(ctx)?;
        Ok(self
            .apply_keyed_as(op, key, issuer)
            .await
            .map_err(fault)?
            .cn)
    }
}

impl Charging for ChargingSystem {
    async fn credit(&self, ctx: &Context, id: i32, am: i32) -> Result<i32, Fault> {
        self.money(ctx, Op::Credit { id, am }).await
    }
    async fn direct_debit(&self, ctx: &Context, id: i32, am: i32) -> Result<i32, Fault> {
        self.money(ctx, Op::DirectDebit { id, am }).await
    }
    async fn reserve(&self, ctx: &Context, id: i32, am: i32) -> Result<i32, Fault> {
        self.money(ctx, Op::Reserve { id, am }).await
    }
    async fn debit_reservation(
        &self,
        ctx: &Context,
        id: i32,
        am: i32,
        res: i32,
    ) -> Result<i32, Fault> {
        self.money(ctx, Op::DebitReservation { id, am, res }).await
    }
    async fn release_res(&self, ctx: &Context, res: i32) -> Result<i32, Fault> {
        self.money(ctx, Op::Release { res }).await
    }
    async fn credit_control(&self, ctx: &Context, id: i32) -> Result<i32, Fault> {
        self.permit(ctx, READ)?;
        balance_to_wire(ChargingSystem::balance(self, id).await.map_err(fault)?)
    }
    async fn confirm_action(&self, ctx: &Context, cn: i32) -> Result<(), Fault> {
        self.permit(ctx, MOVE)?;
        ChargingSystem::confirm(self, cn).await.map_err(fault)
    }
}
