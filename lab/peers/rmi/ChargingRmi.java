// The RMI servant of Charging over ChargingStore (lab/peers/chargingstore: one SQLite file
// through sqlite-jdbc, WAL, synchronous=FULL, one commit per write, as the JacORB and Axis
// peers keep it); a refusal is a ChargingFault with the store's reason.
public final class ChargingRmi implements Charging {
    private final ChargingStore store;

    public ChargingRmi(ChargingStore store) { this.store = store; }

    public int credit(int id, int am) throws ChargingFault {
        try {
            return store.credit(id, am);
        } catch (ChargingStore.Refused e) {
            throw new ChargingFault(e.getMessage());
        }
    }

    public int directDebit(int id, int am) throws ChargingFault {
        try {
            return store.directDebit(id, am);
        } catch (ChargingStore.Refused e) {
            throw new ChargingFault(e.getMessage());
        }
    }

    public int creditControl(int id) throws ChargingFault {
        try {
            return store.creditControl(id);
        } catch (ChargingStore.Refused e) {
            throw new ChargingFault(e.getMessage());
        }
    }
}
