// Davis & Parashar's TestService as an Apache Axis 1.4 RPC service (rpc/encoded,
// urn:test:soap), deployed by DpAxisTomcatServer: the peer standing for the thesis's and Davis &
// Parashar's "Apache Axis" rows.
public final class DpAxisService {
    static final int MAX_SIZE = 100000;
    private static volatile int size = 200;

    static int check(int n) {
        if (n < 0 || n > MAX_SIZE) throw new IllegalArgumentException("size `" + n + "` is out of range `0..=100000`");
        return n;
    }

    public void doNothing() {}

    public void setSize(int n) { size = check(n); }

    public String getString() { return getStringOfSize(size); }

    public int[] getIntegers() { return getIntegersOfSize(size); }

    public String getStringOfSize(int n) {
        char[] c = new char[check(n)];
        for (int i = 0; i < n; i++) c[i] = (char) ('a' + i % 26);
        return new String(c);
    }

    public int[] getIntegersOfSize(int n) {
        int[] v = new int[check(n)];
        for (int i = 0; i < n; i++) v[i] = i;
        return v;
    }
}
