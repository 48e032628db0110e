// Apache Axis2 2.0's own standalone HTTP server (SimpleHTTPServer) on 127.0.0.1:PORT with
// DpAxis2Service deployed as the POJO service `dp` at /axis2/services/dp:
//   java -cp CLASSES:AXIS2_JARS DpAxis2Server PORT
// The engine runs from Axis2's default axis2.xml (its phases, dispatchers, RPC message receivers
// and worker pool); only the service is added, in code, with urn:test:soap as its namespace. The
// lab's warm-up before the first point warms the JIT.
import java.util.HashMap;
import java.util.Map;

import org.apache.axis2.context.ConfigurationContext;
import org.apache.axis2.context.ConfigurationContextFactory;
import org.apache.axis2.description.AxisService;
import org.apache.axis2.description.WSDL2Constants;
import org.apache.axis2.engine.AxisConfiguration;
import org.apache.axis2.engine.MessageReceiver;
import org.apache.axis2.rpc.receivers.RPCInOnlyMessageReceiver;
import org.apache.axis2.rpc.receivers.RPCMessageReceiver;
import org.apache.axis2.transport.http.SimpleHTTPServer;

public final class DpAxis2Server {
    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: DpAxis2Server PORT");
            System.exit(2);
        }
        int port = Integer.parseInt(args[0]);
        ConfigurationContext ctx = ConfigurationContextFactory.createConfigurationContextFromFileSystem(null, null);
        AxisConfiguration config = ctx.getAxisConfiguration();
        Map<String, MessageReceiver> receivers = new HashMap<>();
        receivers.put(WSDL2Constants.MEP_URI_IN_OUT, new RPCMessageReceiver());
        receivers.put(WSDL2Constants.MEP_URI_IN_ONLY, new RPCInOnlyMessageReceiver());
        AxisService service = AxisService.createService(DpAxis2Service.class.getName(), config, receivers,
                "urn:test:soap", "urn:test:soap", DpAxis2Server.class.getClassLoader());
        service.setName("dp");
        config.addService(service);
        SimpleHTTPServer server = new SimpleHTTPServer(ctx, port);
        server.start();
        System.out.println("listening on http://127.0.0.1:" + port + "/axis2/services/dp");
        System.out.flush();
        Thread.currentThread().join();
    }
}
