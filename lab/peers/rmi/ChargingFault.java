// A refused charging call (unknown account, an amount that is not positive, a balance that
// would go negative or past 2^31-1, a store that failed): thesis::ChargingFault of
// contract/charging.idl, as an RMI application exception carrying the reason.
public final class ChargingFault extends Exception {
    private static final long serialVersionUID = 1L;

    public ChargingFault(String reason) { super(reason); }
}
