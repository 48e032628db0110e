// The thesis's charging system (Elfwing & Paulsson 2002, seed 000, appendix B) as a Java RMI
// remote interface: the calls of contract/charging.idl (the CORBA peers') with the same
// parameters and answers, so Table 1's binary-RPC side has Java RMI beside the ORBs.
import java.rmi.Remote;
import java.rmi.RemoteException;

public interface Charging extends Remote {
    /** Deposits `am` (> 0) on account `id`, durably (one SQLite commit); the transaction number. */
    int credit(int id, int am) throws RemoteException, ChargingFault;

    /** Withdraws `am` (> 0) from account `id`, durably; the transaction number. */
    int directDebit(int id, int am) throws RemoteException, ChargingFault;

    /** The balance of account `id` (a read). */
    int creditControl(int id) throws RemoteException, ChargingFault;
}
