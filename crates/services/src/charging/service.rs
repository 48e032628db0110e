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
//! Must never: answer before the store acknowledged.

use soapstone_codec::Fault;

use super::ChargingSystem;

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
    async fn credit(&self, id: i32, am: i32) -> Result<i32, Fault>;
    /// Withdraws `am` from account `id`; returns the transaction number to confirm.
    async fn direct_debit(&self, id: i32, am: i32) -> Result<i32, Fault>;
    /// Holds `am` of account `id`'s balance; returns the reservation id (also the transaction
    /// number to confirm).
    async fn reserve(&self, id: i32, am: i32) -> Result<i32, Fault>;
    /// Charges `am` (at most the reserved amount) to reservation `res` of account `id`; the rest
    /// goes back to the balance. Returns the transaction number to confirm.
    async fn debit_reservation(&self, id: i32, am: i32, res: i32) -> Result<i32, Fault>;
    /// Gives reservation `res` back to the balance; returns the transaction number to confirm.
    #[soap(name = "releaseRes")]
    async fn release_res(&self, res: i32) -> Result<i32, Fault>;
    /// The balance of account `id` (reserved amounts are not part of it).
    async fn credit_control(&self, id: i32) -> Result<i32, Fault>;
    /// Acknowledges transaction `cn`; confirming twice is harmless.
    async fn confirm_action(&self, cn: i32) -> Result<(), Fault>;
}

fn fault(e: super::ChargingError) -> Fault {
    e.to_fault()
}

fn balance_to_wire(balance: i64) -> Result<i32, Fault> {
    i32::try_from(balance)
        .map_err(|_| Fault::server(format!("balance `{balance}` does not fit xsd:int")))
}

impl Charging for ChargingSystem {
    async fn credit(&self, id: i32, am: i32) -> Result<i32, Fault> {
        Ok(ChargingSystem::credit(self, id, am)
            .await
            .map_err(fault)?
            .cn)
    }
    async fn direct_debit(&self, id: i32, am: i32) -> Result<i32, Fault> {
        Ok(ChargingSystem::direct_debit(self, id, am)
            .await
            .map_err(fault)?
            .cn)
    }
    async fn reserve(&self, id: i32, am: i32) -> Result<i32, Fault> {
        Ok(ChargingSystem::reserve(self, id, am)
            .await
            .map_err(fault)?
            .cn)
    }
    async fn debit_reservation(&self, id: i32, am: i32, res: i32) -> Result<i32, Fault> {
        Ok(ChargingSystem::debit_reservation(self, id, am, res)
            .await
            .map_err(fault)?
            .cn)
    }
    async fn release_res(&self, res: i32) -> Result<i32, Fault> {
        Ok(ChargingSystem::release(self, res).await.map_err(fault)?.cn)
    }
    async fn credit_control(&self, id: i32) -> Result<i32, Fault> {
        balance_to_wire(ChargingSystem::balance(self, id).await.map_err(fault)?)
    }
    async fn confirm_action(&self, cn: i32) -> Result<(), Fault> {
        ChargingSystem::confirm(self, cn).await.map_err(fault)
    }
}
