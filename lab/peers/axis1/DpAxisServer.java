// Apache Axis 1.4's own standalone HTTP server (SimpleAxisServer) on HOST:PORT (the lab gives
// 127.0.0.1, or the emulated LAN's address) with the Davis & Parashar service deployed at
// /axis/services/dp and the thesis's charging service at /axis/services/charging from
// server-config.wsdd:
//   java -Dcharging.db=FILE -cp CLASSES:AXIS_JARS DpAxisServer PORT HOST WSDD
// Axis 1.4's defaults are kept (multi-ref arrays, its worker pool); the lab's warm-up warms the
// JIT. Axis 1.4 on Tomcat is what the seeds ran; SimpleAxisServer runs the same engine and
// handlers without a servlet container.
import java.io.FileInputStream;
import java.net.InetAddress;
import java.net.ServerSocket;

import org.apache.axis.configuration.FileProvider;
import org.apache.axis.transport.http.SimpleAxisServer;

public final class DpAxisServer {
    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            System.err.println("usage: DpAxisServer PORT HOST WSDD");
            System.exit(2);
        }
        int port = Integer.parseInt(args[0]);
        String host = args[1];
        SimpleAxisServer server = new SimpleAxisServer();
        server.setMyConfig(new FileProvider(new FileInputStream(args[2])));
        server.setServerSocket(new ServerSocket(port, 50, InetAddress.getByName(host)));
        server.start(false);
        System.out.println("listening on http://" + host + ":" + port + "/axis/services/dp");
        System.out.flush();
        Thread.currentThread().join();
    }
}
