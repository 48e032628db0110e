// Apache CXF 4's JAX-WS frontend on its embedded Jetty 12 transport, serving DpCxfService at
// http://127.0.0.1:PORT/dp, ContactsCxfService at /contacts, EchoCxfService at /echo and
// InteropCxfService (the Round 2 base echoes, rpc/literal) at /round2:
//   java -cp CLASSES:CXF_JARS DpCxfServer PORT
// CXF's defaults are kept (Jetty's thread pool, HTTP keep-alive, no schema validation); the lab's
// warm-up before the first point warms the JIT.
import jakarta.xml.ws.Endpoint;

public final class DpCxfServer {
    public static void main(String[] args) throws Exception {
        if (args.length < 1 || args.length > 2) {
            System.err.println("usage: DpCxfServer PORT [HOST]");
            System.exit(2);
        }
        int port = Integer.parseInt(args[0]);
        // HOST: the address Jetty binds (default loopback; the emulated LAN's server side).
        String base = "http://" + (args.length > 1 ? args[1] : "127.0.0.1") + ":" + port;
        String url = base + "/dp";
        Endpoint.publish(url, new DpCxfService());
        // Zilora & Ketha's contacts and Ruby's echoFloat on the same Jetty port.
        Endpoint.publish(base + "/contacts", new ContactsCxfService());
        Endpoint.publish(base + "/echo", new EchoCxfService());
        // The SOAPBuilders Round 2 base echoes, rpc/literal.
        Endpoint.publish(base + "/round2", new InteropCxfService());
        System.out.println("listening on " + url);
        System.out.flush();
        Thread.currentThread().join();
    }
}
