// JDK RMI server of TestService, the peer standing for Davis & Parashar's JavaRMI row, and of
// the thesis's Charging (Table 1's binary-RPC side beside the ORBs).
// `java -Djava.rmi.server.hostname=HOST [-Dcharging.db=FILE] DpRmiServer PORT HOST`: a registry
// and the objects on HOST:PORT (all on the one port; the lab gives 127.0.0.1 or the emulated
// LAN's address), bound as `dp` and, with -Dcharging.db (its SQLite store), `charging`. The
// JDK's RMI transport defaults: a thread per connection, connections reused by the client.
import java.net.InetAddress;
import java.net.ServerSocket;
import java.rmi.registry.LocateRegistry;
import java.rmi.registry.Registry;
import java.rmi.server.RMIServerSocketFactory;
import java.rmi.server.UnicastRemoteObject;

public final class DpRmiServer implements TestService {
    static final int MAX_SIZE = 100000;
    static final Object[] CHARGING = new Object[1];

    public void doNothing() {}

    public String getStringOfSize(int n) {
        if (n < 0 || n > MAX_SIZE) throw new IllegalArgumentException("size `" + n + "` is out of range");
        char[] c = new char[n];
        for (int i = 0; i < n; i++) c[i] = (char) ('a' + i % 26);
        return new String(c);
    }

    public int[] getIntegersOfSize(int n) {
        if (n < 0 || n > MAX_SIZE) throw new IllegalArgumentException("size `" + n + "` is out of range");
        int[] v = new int[n];
        for (int i = 0; i < n; i++) v[i] = i;
        return v;
    }

    /** Binds to the one address given only. */
    static final class OneAddress implements RMIServerSocketFactory {
        final InetAddress addr;

        OneAddress(InetAddress addr) { this.addr = addr; }

        public ServerSocket createServerSocket(int port) throws java.io.IOException {
            return new ServerSocket(port, 50, addr);
        }

        @Override
        public boolean equals(Object o) { return o instanceof OneAddress && ((OneAddress) o).addr.equals(addr); }

        @Override
        public int hashCode() { return addr.hashCode(); }
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 1 && args.length != 2) {
            System.err.println("usage: DpRmiServer PORT [HOST]");
            System.exit(2);
        }
        int port = Integer.parseInt(args[0]);
        String host = args.length > 1 ? args[1] : "127.0.0.1";
        OneAddress ssf = new OneAddress(InetAddress.getByName(host));
        Registry registry = LocateRegistry.createRegistry(port, null, ssf);
        DpRmiServer impl = new DpRmiServer();
        TestService stub = (TestService) UnicastRemoteObject.exportObject(impl, port, null, ssf);
        registry.rebind("dp", stub);
        String db = System.getProperty("charging.db");
        if (db != null && !db.isEmpty()) {
            ChargingRmi charging;
            try {
                charging = new ChargingRmi(new ChargingStore(db));
            } catch (ChargingStore.Refused e) {
                System.err.println("DpRmiServer: " + e.getMessage());
                System.exit(1);
                return;
            }
            registry.rebind("charging", (Charging) UnicastRemoteObject.exportObject(charging, port, null, ssf));
            // Kept reachable: the registry holds the stub only.
            CHARGING[0] = charging;
        }
        System.out.println("listening on rmi://" + host + ":" + port + "/dp");
        System.out.flush();
        Thread.currentThread().join();
    }
}
