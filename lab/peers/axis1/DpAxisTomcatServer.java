// Apache Axis 1.4's AxisServlet on an embedded Tomcat 9 (javax.servlet, as Axis 1.4 needs), the
// container the seeds ran Axis in, on HOST:PORT (the lab gives 127.0.0.1, or the emulated LAN's
// address), with the services of server-config.wsdd at /axis/services/NAME (dp, charging, and
// whatever else the file deploys):
//   java -Dcharging.db=FILE -cp CLASSES:JARS DpAxisTomcatServer PORT HOST WSDD
// The web application is a temporary directory whose WEB-INF/server-config.wsdd is a copy of
// WSDD (where AxisServlet reads its engine configuration), removed at exit with Tomcat's work
// directory. Axis 1.4's defaults are kept (multi-ref arrays and return values); Tomcat's too
// (NIO connector, 200 worker threads, keep-alive up to 100 requests per connection), each
// printed at start. The lab's warm-up warms the JIT.
import java.io.File;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;

import org.apache.catalina.Context;
import org.apache.catalina.Wrapper;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;

public final class DpAxisTomcatServer {
    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            System.err.println("usage: DpAxisTomcatServer PORT HOST WSDD");
            System.exit(2);
        }
        int port = Integer.parseInt(args[0]);
        String host = args[1];
        File wsdd = new File(args[2]);
        if (!wsdd.isFile()) {
            System.err.println("DpAxisTomcatServer: no engine configuration `" + wsdd + "`");
            System.exit(2);
        }
        Path base = Files.createTempDirectory("dp-axis1-tomcat");
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try (java.util.stream.Stream<Path> walk = Files.walk(base)) {
                walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (Exception ignored) {
            }
        }));
        Path app = base.resolve("axis");
        Files.createDirectories(app.resolve("WEB-INF"));
        Files.copy(wsdd.toPath(), app.resolve("WEB-INF").resolve("server-config.wsdd"), StandardCopyOption.REPLACE_EXISTING);
        Tomcat tomcat = new Tomcat();
        tomcat.setBaseDir(base.toString());
        Connector connector = new Connector("HTTP/1.1");
        connector.setPort(port);
        connector.setProperty("address", InetAddress.getByName(host).getHostAddress());
        tomcat.setConnector(connector);
        Context ctx = tomcat.addContext("/axis", app.toString());
        Wrapper axis = Tomcat.addServlet(ctx, "AxisServlet", "org.apache.axis.transport.http.AxisServlet");
        axis.setLoadOnStartup(1);
        ctx.addServletMappingDecoded("/services/*", "AxisServlet");
        tomcat.start();
        if (!connector.getState().isAvailable()) {
            System.err.println("DpAxisTomcatServer: the connector did not start on " + host + ":" + port + " (address in use?)");
            System.exit(1);
        }
        System.out.println("tomcat connector: " + connector.getProtocolHandlerClassName()
                + ", maxThreads " + connector.getProperty("maxThreads")
                + ", minSpareThreads " + connector.getProperty("minSpareThreads")
                + ", maxKeepAliveRequests " + connector.getProperty("maxKeepAliveRequests")
                + ", keepAliveTimeout " + connector.getProperty("keepAliveTimeout") + " ms"
                + ", acceptCount " + connector.getProperty("acceptCount"));
        System.out.println("listening on http://" + host + ":" + port + "/axis/services/dp");
        System.out.flush();
        tomcat.getServer().await();
    }
}
