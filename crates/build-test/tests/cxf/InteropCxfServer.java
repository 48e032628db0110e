// Publishes InteropCxfService on CXF's Jetty transport at http://127.0.0.1:PORT/interop and
// prints `listening on URL`:  java -cp CLASSES:CXF_JARS InteropCxfServer PORT
import jakarta.xml.ws.Endpoint;

public final class InteropCxfServer {
    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: InteropCxfServer PORT");
            System.exit(2);
        }
        String url = "http://127.0.0.1:" + Integer.parseInt(args[0]) + "/interop";
        Endpoint.publish(url, new InteropCxfService());
        System.out.println("listening on " + url);
        System.out.flush();
        Thread.currentThread().join();
    }
}
