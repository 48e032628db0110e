// JacORB 3.9 server of dp::TestService (contract/dp.idl) and of the thesis's thesis::Charging
// (contract/charging.idl) on HOST:PORT (default 127.0.0.1; the lab gives the emulated LAN's
// address there), reachable as corbaloc::HOST:PORT/dp and .../charging like the omniORB peer:
//   java -Dcharging.db=FILE -cp CLASSES:JACORB_JARS DpJacorbServer PORT [HOST]
// The charging object is published only with -Dcharging.db (its SQLite store, ChargingStore).
// The servant is activated on the RootPOA and its IOR is published under the object key `dp`
// (JacORB's ORB.addObjectKey), so a corbaloc call is forwarded to it once and then goes straight
// to the servant. JacORB's defaults are kept (thread per connection on the server side); the
// lab's warm-up before each point warms the JIT. Prints `listening on` once the key is bound.
import java.util.Properties;

import org.omg.CORBA.ORB;
import org.omg.PortableServer.POA;
import org.omg.PortableServer.POAHelper;

public final class DpJacorbServer {
    static final int MAX_SIZE = 100000;

    static final class Servant extends dp.TestServicePOA {
        static int check(int n) {
            if (n < 0 || n > MAX_SIZE) throw new org.omg.CORBA.BAD_PARAM("size `" + n + "` is out of range `0..=100000`");
            return n;
        }

        @Override
        public void doNothing() {}

        @Override
        public String getStringOfSize(int n) {
            char[] c = new char[check(n)];
            for (int i = 0; i < n; i++) c[i] = (char) ('a' + i % 26);
            return new String(c);
        }

        @Override
        public int[] getIntegersOfSize(int n) {
            int[] v = new int[check(n)];
            for (int i = 0; i < n; i++) v[i] = i;
            return v;
        }
    }

    /** The charging calls over ChargingStore; a refusal is a thesis::ChargingFault. */
    static final class Charging extends thesis.ChargingPOA {
        final ChargingStore store;

        Charging(ChargingStore store) { this.store = store; }

        @Override
        public int credit(int id, int am) throws thesis.ChargingFault {
            try {
                return store.credit(id, am);
            } catch (ChargingStore.Refused e) {
                throw new thesis.ChargingFault(e.getMessage());
            }
        }

        @Override
        public int directDebit(int id, int am) throws thesis.ChargingFault {
            try {
                return store.directDebit(id, am);
            } catch (ChargingStore.Refused e) {
                throw new thesis.ChargingFault(e.getMessage());
            }
        }

        @Override
        public int creditControl(int id) throws thesis.ChargingFault {
            try {
                return store.creditControl(id);
            } catch (ChargingStore.Refused e) {
                throw new thesis.ChargingFault(e.getMessage());
            }
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 1 && args.length != 2) {
            System.err.println("usage: DpJacorbServer PORT [HOST]");
            System.exit(2);
        }
        String host = args.length > 1 ? args[1] : "127.0.0.1";
        Properties props = new Properties();
        props.setProperty("org.omg.CORBA.ORBClass", "org.jacorb.orb.ORB");
        props.setProperty("org.omg.CORBA.ORBSingletonClass", "org.jacorb.orb.ORBSingleton");
        props.setProperty("OAIAddr", host);
        props.setProperty("OAPort", args[0]);
        ORB orb = ORB.init(new String[0], props);
        POA root = POAHelper.narrow(orb.resolve_initial_references("RootPOA"));
        root.the_POAManager().activate();
        org.omg.CORBA.Object ref = root.servant_to_reference(new Servant());
        ((org.jacorb.orb.ORB) orb).addObjectKey("dp", orb.object_to_string(ref));
        ChargingStore store = ChargingStore.fromProperty();
        if (store != null) {
            org.omg.CORBA.Object c = root.servant_to_reference(new Charging(store));
            ((org.jacorb.orb.ORB) orb).addObjectKey("charging", orb.object_to_string(c));
        }
        System.out.println("listening on corbaloc::" + host + ":" + args[0] + "/dp");
        System.out.flush();
        orb.run();
    }
}
