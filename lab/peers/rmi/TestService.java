// Davis & Parashar's test interface (seed 001) as a Java RMI remote interface: the same
// operations as contract/dp.idl and soapstone's /dp WSDL.
import java.rmi.Remote;
import java.rmi.RemoteException;

public interface TestService extends Remote {
    void doNothing() throws RemoteException;

    /** `n` letters `abc...zabc...`; n out of 0..=100000 throws IllegalArgumentException. */
    String getStringOfSize(int n) throws RemoteException;

    /** The integers 0..n-1. */
    int[] getIntegersOfSize(int n) throws RemoteException;
}
