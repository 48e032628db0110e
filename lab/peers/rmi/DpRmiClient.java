// JDK RMI client of TestService, speaking the lab's peer-client protocol (docs/lab.md):
//   java DpRmiClient URL OP N WARMUP_S WINDOW_S
// calls OP one at a time for WARMUP_S seconds (not recorded: the JIT's warm-up; at least one
// call), then for WINDOW_S seconds and until at least MIN_CALLS answers are in, checks every
// answer, prints one JSON line {"ok","errors","first_error","samples_us"}.
import java.rmi.Naming;
import java.util.Locale;

public final class DpRmiClient {
    // The lab flags a point with fewer calls as suspect (report/suspect.rs MIN_SAMPLES).
    static final int MIN_CALLS = 30;
    static final long MAX_STRETCH_NS = 30_000_000_000L;
    static final int MAX_SAMPLES = 1000000;

    static String call(TestService svc, String op, int n) throws Exception {
        switch (op) {
            case "doNothing":
                svc.doNothing();
                return null;
            case "getStringOfSize": {
                String s = svc.getStringOfSize(n);
                if (s.length() != n) return "wrong string length";
                for (int i = 0; i < n; i++) if (s.charAt(i) != (char) ('a' + i % 26)) return "wrong string content";
                return null;
            }
            case "getIntegersOfSize": {
                int[] v = svc.getIntegersOfSize(n);
                if (v.length != n) return "wrong number of integers";
                for (int i = 0; i < n; i++) if (v[i] != i) return "wrong integer";
                return null;
            }
            default:
                return "unknown operation `" + op + "`";
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 5) {
            System.err.println("usage: DpRmiClient URL OP N WARMUP_S WINDOW_S");
            System.exit(2);
        }
        TestService svc = (TestService) Naming.lookup(args[0]);
        String op = args[1];
        int n = Integer.parseInt(args[2]);
        long warmEnd = System.nanoTime() + (long) (Double.parseDouble(args[3]) * 1e9);
        long end = warmEnd + (long) (Double.parseDouble(args[4]) * 1e9);
        // The window runs on until MIN_CALLS answers are in (a JVM's cold first calls on a busy
        // CPU must not leave it empty), at most MAX_STRETCH_NS longer.
        long cap = end + MAX_STRETCH_NS;
        long warmCalls = 0;
        double[] samples = new double[1024];
        int count = 0;
        long ok = 0, errors = 0;
        String firstError = null;
        while (true) {
            long t0 = System.nanoTime();
            if ((t0 >= end && ok + errors >= MIN_CALLS) || t0 >= cap) break;
            String err;
            try {
                err = call(svc, op, n);
            } catch (Exception e) {
                err = e.getClass().getSimpleName();
            }
            long t1 = System.nanoTime();
            if (t0 < warmEnd || warmCalls == 0) {
                warmCalls++;
                continue;
            }
            if (err != null) {
                errors++;
                if (firstError == null) firstError = err;
                continue;
            }
            ok++;
            if (count < MAX_SAMPLES) {
                if (count == samples.length) samples = java.util.Arrays.copyOf(samples, count * 2);
                samples[count++] = (t1 - t0) / 1000.0;
            }
        }
        StringBuilder out = new StringBuilder();
        out.append("{\"ok\":").append(ok).append(",\"errors\":").append(errors).append(",\"first_error\":");
        out.append(firstError == null ? "null" : "\"" + firstError + "\"");
        out.append(",\"samples_us\":[");
        for (int i = 0; i < count; i++) {
            if (i > 0) out.append(',');
            out.append(String.format(Locale.ROOT, "%.2f", samples[i]));
        }
        out.append("]}");
        System.out.println(out);
    }
}
