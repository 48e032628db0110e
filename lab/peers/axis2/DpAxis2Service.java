// Davis & Parashar's TestService (seed 001) as an Axis2 2.0 POJO service (RPCMessageReceiver,
// document/literal wrapped in urn:test:soap), deployed by DpAxis2Server: the peer standing for
// García et al.'s Axis2. Axis2 dropped rpc/encoded, so the integers come back as repeated
// `<return>` elements (an unbounded element, Axis2's POJO form of an array).
//
// `doNothing` declares an exception because Axis2 makes a void POJO method that throws nothing a
// one-way (in-only) operation with no response at all; with it, the call answers an empty
// `doNothingResponse` as the contract says.
public class DpAxis2Service {
    static final int MAX_SIZE = 100000;
    private static volatile int size = 200;

    static int check(int n) throws DpFault {
        if (n < 0 || n > MAX_SIZE) throw new DpFault("size `" + n + "` is out of range `0..=100000`");
        return n;
    }

    public void doNothing() throws DpFault {}

    public void setSize(int size) throws DpFault { DpAxis2Service.size = check(size); }

    public String getString() throws DpFault { return getStringOfSize(size); }

    public int[] getIntegers() throws DpFault { return getIntegersOfSize(size); }

    public String getStringOfSize(int n) throws DpFault {
        char[] c = new char[check(n)];
        for (int i = 0; i < n; i++) c[i] = (char) ('a' + i % 26);
        return new String(c);
    }

    public int[] getIntegersOfSize(int n) throws DpFault {
        int[] v = new int[check(n)];
        for (int i = 0; i < n; i++) v[i] = i;
        return v;
    }
}
