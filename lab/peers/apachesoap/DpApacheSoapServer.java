// Apache SOAP 2.3.1's RPCRouterServlet on an embedded Tomcat 9 (javax.servlet, as Apache SOAP
// needs), on 127.0.0.1:PORT at /soap/servlet/rpcrouter, the URL Apache SOAP's own install used:
//   java -cp CLASSES:JARS DpApacheSoapServer PORT DIR
// DIR is lab/peers/apachesoap: the web application's base, holding soap.xml (the router's
// configuration: an XMLConfigManager) and DeployedServices.xml (the deployed TestService).
// Tomcat's defaults are kept (NIO connector, 200 worker threads, keep-alive); Tomcat's own work
// directory is a temporary directory removed at exit. The lab's warm-up warms the JIT.
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;

import org.apache.catalina.Context;
import org.apache.catalina.Wrapper;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;

public final class DpApacheSoapServer {
    public static void main(String[] args) throws Exception {
        if (args.length < 2 || args.length > 3) {
            System.err.println("usage: DpApacheSoapServer PORT DIR [HOST]");
            System.exit(2);
        }
        // HOST: the address Tomcat binds (default loopback; the emulated LAN's server side).
        String host = args.length > 2 ? args[2] : "127.0.0.1";
        int port = Integer.parseInt(args[0]);
        String dir = new File(args[1]).getAbsolutePath();
        Path base = Files.createTempDirectory("dp-apachesoap-tomcat");
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try (var walk = Files.walk(base)) {
                walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (Exception ignored) {
            }
        }));
        Tomcat tomcat = new Tomcat();
        tomcat.setBaseDir(base.toString());
        Connector connector = new Connector("HTTP/1.1");
        connector.setPort(port);
        connector.setProperty("address", host);
        tomcat.setConnector(connector);
        Context ctx = tomcat.addContext("/soap", dir);
        Wrapper router = Tomcat.addServlet(ctx, "rpcrouter", "org.apache.soap.server.http.RPCRouterServlet");
        router.addInitParameter("ConfigFile", dir + File.separator + "soap.xml");
        router.setLoadOnStartup(1);
        ctx.addServletMappingDecoded("/servlet/rpcrouter", "rpcrouter");
        tomcat.start();
        if (!connector.getState().isAvailable()) {
            System.err.println("DpApacheSoapServer: the connector did not start on port " + port + " (address in use?)");
            System.exit(1);
        }
        System.out.println("listening on http://" + host + ":" + port + "/soap/servlet/rpcrouter");
        System.out.flush();
        tomcat.getServer().await();
    }
}
