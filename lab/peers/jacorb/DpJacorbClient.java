// JacORB 3.9 client of dp::TestService, speaking the lab's peer-client protocol (docs/lab.md):
//   java -cp CLASSES:JACORB_JARS DpJacorbClient URL OP N WARMUP_S WINDOW_S
// resolves URL (corbaloc::127.0.0.1:PORT/dp), calls OP one at a time for WARMUP_S seconds (not
// recorded: the JIT's warm-up), then WINDOW_S seconds, checks every answer, and prints one JSON
// line {"ok","errors","first_error","warmup_calls","first_call_us","samples_us"}: the omniORB
// client's protocol, plus the JIT warm-up (untimed calls, and how long the cold first call took).
import java.util.Arrays;
import java.util.Locale;
import java.util.Properties;

import org.omg.CORBA.ORB;

public final class DpJacorbClient {
    static final int MAX_SAMPLES = 1000000;

    static String call(dp.TestService svc, String op, int n) {
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

    static String json(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"").replaceAll("[\\x00-\\x1f]", " ") + "\"";
    }

    public static void main(String[] args) {
        if (args.length != 5) {
            System.err.println("usage: DpJacorbClient URL OP N WARMUP_S WINDOW_S");
            System.exit(2);
        }
        Properties props = new Properties();
        props.setProperty("org.omg.CORBA.ORBClass", "org.jacorb.orb.ORB");
        props.setProperty("org.omg.CORBA.ORBSingletonClass", "org.jacorb.orb.ORBSingleton");
        ORB orb = ORB.init(new String[0], props);
        dp.TestService svc;
        try {
            svc = dp.TestServiceHelper.narrow(orb.string_to_object(args[0]));
        } catch (RuntimeException e) {
            System.err.println("DpJacorbClient: `" + args[0] + "` is not a dp::TestService: " + e);
            System.exit(1);
            return;
        }
        String op = args[1];
        int n = Integer.parseInt(args[2]);
        long warmEnd = System.nanoTime() + (long) (Double.parseDouble(args[3]) * 1e9);
        long end = warmEnd + (long) (Double.parseDouble(args[4]) * 1e9);
        double[] samples = new double[1024];
        int count = 0;
        long ok = 0, errors = 0, warmupCalls = 0;
        double firstCall = -1;
        String firstError = null;
        while (true) {
            long t0 = System.nanoTime();
            if (t0 >= end) break;
            String err;
            try {
                err = call(svc, op, n);
            } catch (RuntimeException e) {
                err = e.getClass().getSimpleName() + ": " + e.getMessage();
            }
            long t1 = System.nanoTime();
            if (firstCall < 0) firstCall = (t1 - t0) / 1000.0;
            if (t0 < warmEnd) {
                warmupCalls++;
                continue;
            }
            if (err != null) {
                errors++;
                if (firstError == null) firstError = err;
                continue;
            }
            ok++;
            if (count < MAX_SAMPLES) {
                if (count == samples.length) samples = Arrays.copyOf(samples, count * 2);
                samples[count++] = (t1 - t0) / 1000.0;
            }
        }
        StringBuilder out = new StringBuilder();
        out.append("{\"ok\":").append(ok).append(",\"errors\":").append(errors).append(",\"first_error\":");
        out.append(firstError == null ? "null" : json(firstError));
        out.append(",\"warmup_calls\":").append(warmupCalls);
        out.append(",\"first_call_us\":").append(String.format(Locale.ROOT, "%.2f", firstCall));
        out.append(",\"samples_us\":[");
        for (int i = 0; i < count; i++) {
            if (i > 0) out.append(',');
            out.append(String.format(Locale.ROOT, "%.2f", samples[i]));
        }
        out.append("]}");
        System.out.println(out);
        orb.shutdown(false);
    }
}
