// A Java SOAP client (Apache Axis 1.4's JAX-RPC dynamic Call, rpc/encoded as the contract says)
// for Zilora & Ketha's client-language table, speaking the lab's peer-client protocol
// (docs/lab.md):
//   java -cp CLASSES:JARS DpJavaClient CONFIG URL OP N WARMUP_S WINDOW_S
// CONFIG is client-config.wsdd (Commons HttpClient, keep-alive). It calls OP (doNothing |
// getStringOfSize | getIntegersOfSize) one at a time for WARMUP_S seconds (not recorded: the JIT
// warms up), then WINDOW_S seconds, checks every answer against the contract, and prints one JSON
// line {"ok","errors","first_error","samples_us","warmup_calls","first_call_us"}: the last two
// say how much the JIT warm-up took.
import java.io.FileInputStream;
import java.net.URL;
import java.util.Arrays;
import java.util.Locale;

import javax.xml.namespace.QName;
import javax.xml.rpc.ParameterMode;

import org.apache.axis.client.Call;
import org.apache.axis.client.Service;
import org.apache.axis.configuration.FileProvider;
import org.apache.axis.encoding.XMLType;

public final class DpJavaClient {
    static final int MAX_SAMPLES = 1000000;
    static final String NS = "urn:test:soap";

    static Call prepare(Service service, URL url, String op) throws Exception {
        Call call = (Call) service.createCall();
        call.setTargetEndpointAddress(url);
        call.setOperationName(new QName(NS, op));
        call.setUseSOAPAction(true);
        call.setSOAPActionURI(NS + "#" + op);
        call.setOperationStyle(org.apache.axis.constants.Style.RPC);
        call.setOperationUse(org.apache.axis.constants.Use.ENCODED);
        switch (op) {
            case "doNothing":
                call.setReturnType(XMLType.AXIS_VOID);
                break;
            case "getStringOfSize":
                call.addParameter("n", XMLType.XSD_INT, ParameterMode.IN);
                call.setReturnType(XMLType.XSD_STRING, String.class);
                break;
            case "getIntegersOfSize":
                call.addParameter("n", XMLType.XSD_INT, ParameterMode.IN);
                call.setReturnType(new QName(NS, "ArrayOfint"), int[].class);
                break;
            default:
                throw new IllegalArgumentException("unknown operation `" + op + "`");
        }
        return call;
    }

    static String invoke(Call call, String op, int n) throws Exception {
        switch (op) {
            case "doNothing":
                call.invoke(new Object[0]);
                return null;
            case "getStringOfSize": {
                Object r = call.invoke(new Object[] {n});
                if (!(r instanceof String)) return "not a string: " + r;
                String s = (String) r;
                if (s.length() != n) return "wrong string length";
                for (int i = 0; i < n; i++) if (s.charAt(i) != (char) ('a' + i % 26)) return "wrong string content";
                return null;
            }
            default: {
                Object r = call.invoke(new Object[] {n});
                if (!(r instanceof int[])) return "not an int array: " + (r == null ? "null" : r.getClass().getName());
                int[] v = (int[]) r;
                if (v.length != n) return "wrong number of integers";
                for (int i = 0; i < n; i++) if (v[i] != i) return "wrong integer";
                return null;
            }
        }
    }

    static String json(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"").replaceAll("[\\x00-\\x1f]", " ") + "\"";
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 6) {
            System.err.println("usage: DpJavaClient CONFIG URL OP N WARMUP_S WINDOW_S");
            System.exit(2);
        }
        Service service = new Service(new FileProvider(new FileInputStream(args[0])));
        URL url = new URL(args[1]);
        String op = args[2];
        int n = Integer.parseInt(args[3]);
        Call call;
        try {
            call = prepare(service, url, op);
        } catch (IllegalArgumentException e) {
            System.err.println("DpJavaClient: " + e.getMessage());
            System.exit(2);
            return;
        }
        long start = System.nanoTime();
        long warmEnd = start + (long) (Double.parseDouble(args[4]) * 1e9);
        long end = warmEnd + (long) (Double.parseDouble(args[5]) * 1e9);
        double[] samples = new double[1024];
        int count = 0;
        long ok = 0, errors = 0, warmupCalls = 0;
        double firstCall = -1;
        String firstError = null;
        while (true) {
            long t0 = System.nanoTime();
            if (t0 >= end && ok + errors > 0) break;
            String err;
            try {
                err = invoke(call, op, n);
            } catch (Exception e) {
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
    }
}
