// Apache Axis2 2.0's own standalone HTTP server (SimpleHTTPServer) on 127.0.0.1:PORT with
// DpAxis2Service deployed as the POJO service `dp` at /axis2/services/dp, and García's card,
// news and shop and Ruby's echoFloat at /axis2/services/{card,news,shop,echo}, and the Round 2
// base echoes (InteropAxis2Service) at /axis2/services/interop:
//   java -cp CLASSES:AXIS2_JARS DpAxis2Server PORT
// The engine runs from Axis2's default axis2.xml (its phases, dispatchers, RPC message receivers
// and worker pool); only the service is added, in code, with urn:test:soap as its namespace. The
// lab's warm-up before the first point warms the JIT.
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

import javax.xml.namespace.QName;

import org.apache.axis2.context.ConfigurationContext;
import org.apache.axis2.context.ConfigurationContextFactory;
import org.apache.axis2.description.AxisOperation;
import org.apache.axis2.description.AxisService;
import org.apache.axis2.description.WSDL2Constants;
import org.apache.axis2.engine.AxisConfiguration;
import org.apache.axis2.engine.MessageReceiver;
import org.apache.axis2.rpc.receivers.RPCInOnlyMessageReceiver;
import org.apache.axis2.receivers.RawXMLINOutMessageReceiver;
import org.apache.axis2.rpc.receivers.RPCMessageReceiver;
import org.apache.axis2.transport.http.SimpleHTTPServer;

public final class DpAxis2Server {
    public static void main(String[] args) throws Exception {
        if (args.length < 1 || args.length > 2) {
            System.err.println("usage: DpAxis2Server PORT [HOST]");
            System.exit(2);
        }
        int port = Integer.parseInt(args[0]);
        // HOST: the address its URLs name (the emulated LAN's server side); SimpleHTTPServer
        // listens on every address of its network namespace.
        String host = args.length > 1 ? args[1] : "127.0.0.1";
        ConfigurationContext ctx = ConfigurationContextFactory.createConfigurationContextFromFileSystem(null, null);
        AxisConfiguration config = ctx.getAxisConfiguration();
        Map<String, MessageReceiver> receivers = new HashMap<>();
        receivers.put(WSDL2Constants.MEP_URI_IN_OUT, new RPCMessageReceiver());
        receivers.put(WSDL2Constants.MEP_URI_IN_ONLY, new RPCInOnlyMessageReceiver());
        AxisService service = AxisService.createService(DpAxis2Service.class.getName(), config, receivers,
                "urn:test:soap", "urn:test:soap", DpAxis2Server.class.getClassLoader());
        service.setName("dp");
        config.addService(service);
        // The SOAPBuilders Round 2 base echoes, a POJO service too (InteropAxis2Service).
        AxisService interop = AxisService.createService(InteropAxis2Service.class.getName(), config, receivers,
                "http://soapinterop.org/", "http://soapinterop.org/", DpAxis2Server.class.getClassLoader());
        interop.setName("interop");
        config.addService(interop);
        // García's card/news/shop and Ruby's echoFloat as AXIOM services (WsbAxis2Services).
        addRaw(config, "card", WsbAxis2Services.Card.class, "urn:soapstone:wsb:card");
        addRaw(config, "news", WsbAxis2Services.News.class, "urn:soapstone:wsb:news");
        addRaw(config, "shop", WsbAxis2Services.Shop.class, "urn:soapstone:wsb:shop");
        addRaw(config, "echo", WsbAxis2Services.Echo.class, "http://tempuri.org/");
        SimpleHTTPServer server = new SimpleHTTPServer(ctx, port);
        server.start();
        System.out.println("listening on http://" + host + ":" + port + "/axis2/services/dp");
        System.out.flush();
        Thread.currentThread().join();
    }

    static void addRaw(AxisConfiguration config, String name, Class<?> impl, String ns) throws Exception {
        Map<String, MessageReceiver> receivers = new HashMap<>();
        receivers.put(WSDL2Constants.MEP_URI_IN_OUT, new RawXMLINOutMessageReceiver());
        AxisService s = AxisService.createService(impl.getName(), config, receivers, ns, ns,
                DpAxis2Server.class.getClassLoader());
        s.setName(name);
        // Dispatch on the body's first element, {ns}operation, as soapstone does: the lab sends
        // these requests with an empty SOAPAction.
        for (Iterator<AxisOperation> it = s.getOperations(); it.hasNext();) {
            AxisOperation op = it.next();
            s.addMessageElementQNameToOperationMapping(new QName(ns, op.getName().getLocalPart()), op);
        }
        config.addService(s);
    }
}
