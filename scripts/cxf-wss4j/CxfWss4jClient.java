// A CXF JAX-WS client (Dispatch, since JAX-WS has no rpc/encoded stubs) that calls soapstone's
// secured charging service over https with a WSS4J UsernameToken (PasswordDigest, nonce and
// created), the way a Java shop would: WSS4JOutInterceptor on the CXF client, the password
// from a CallbackHandler, the server's CA from a PEM file in the TLS client parameters.
//
// Usage: java CxfWss4jClient URL CA_PEM USER SECRET OP ID [AM]
//   OP is creditControl (prints the balance) or credit (prints the transaction number).
// A SOAP fault is printed as `fault CODE: REASON` on stdout with exit code 3.

import java.io.FileInputStream;
import java.io.StringReader;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.HashMap;
import java.util.Map;

import javax.net.ssl.TrustManagerFactory;
import javax.xml.namespace.QName;
import javax.xml.transform.Source;
import javax.xml.transform.dom.DOMResult;
import javax.xml.transform.stream.StreamSource;
import javax.xml.transform.TransformerFactory;

import jakarta.xml.ws.Dispatch;
import jakarta.xml.ws.Service;
import jakarta.xml.ws.soap.SOAPBinding;
import jakarta.xml.ws.soap.SOAPFaultException;

import org.apache.cxf.configuration.jsse.TLSClientParameters;
import org.apache.cxf.endpoint.Client;
import org.apache.cxf.jaxws.DispatchImpl;
import org.apache.cxf.transport.http.HTTPConduit;
import org.apache.cxf.ws.security.wss4j.WSS4JOutInterceptor;
import org.apache.wss4j.common.ConfigurationConstants;
import org.apache.wss4j.common.ext.WSPasswordCallback;
import org.w3c.dom.Node;

public class CxfWss4jClient {
    static final String NS = "urn:soapstone:charging";

    public static void main(String[] args) throws Exception {
        java.util.logging.Logger.getLogger("org.apache.cxf").setLevel(java.util.logging.Level.WARNING);
        String url = args[0], caPem = args[1], user = args[2], secret = args[3], op = args[4];
        int id = Integer.parseInt(args[5]);
        String payload = op.equals("credit")
            ? "<ch:credit xmlns:ch=\"" + NS + "\"><id>" + id + "</id><am>" + Integer.parseInt(args[6]) + "</am></ch:credit>"
            : "<ch:creditControl xmlns:ch=\"" + NS + "\"><id>" + id + "</id></ch:creditControl>";

        QName serviceName = new QName(NS, "Charging");
        QName portName = new QName(NS, "ChargingPort");
        Service service = Service.create(serviceName);
        service.addPort(portName, SOAPBinding.SOAP11HTTP_BINDING, url);
        Dispatch<Source> dispatch = service.createDispatch(portName, Source.class, Service.Mode.PAYLOAD);
        dispatch.getRequestContext().put(Dispatch.SOAPACTION_USE_PROPERTY, Boolean.TRUE);
        dispatch.getRequestContext().put(Dispatch.SOAPACTION_URI_PROPERTY, NS + "#" + op);

        Client client = ((DispatchImpl<?>) dispatch).getClient();
        // WS-Security: a UsernameToken with PasswordDigest (WSS4J adds the nonce and created).
        Map<String, Object> wss = new HashMap<>();
        wss.put(ConfigurationConstants.ACTION, ConfigurationConstants.USERNAME_TOKEN);
        wss.put(ConfigurationConstants.USER, user);
        wss.put(ConfigurationConstants.PASSWORD_TYPE, "PasswordDigest");
        wss.put(ConfigurationConstants.PW_CALLBACK_REF, (javax.security.auth.callback.CallbackHandler) callbacks -> {
            for (javax.security.auth.callback.Callback c : callbacks) {
                ((WSPasswordCallback) c).setPassword(secret);
            }
        });
        client.getOutInterceptors().add(new WSS4JOutInterceptor(wss));

        // TLS: trust the server's CA only; the host name is checked against the certificate.
        KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
        trust.load(null, null);
        try (FileInputStream in = new FileInputStream(caPem)) {
            int i = 0;
            for (Certificate cert : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                trust.setCertificateEntry("ca" + i++, cert);
            }
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        TLSClientParameters tls = new TLSClientParameters();
        tls.setTrustManagers(tmf.getTrustManagers());
        ((HTTPConduit) client.getConduit()).setTlsClientParameters(tls);

        try {
            Source answer = dispatch.invoke(new StreamSource(new StringReader(payload)));
            DOMResult dom = new DOMResult();
            TransformerFactory.newInstance().newTransformer().transform(answer, dom);
            Node n = dom.getNode();
            if (n instanceof org.w3c.dom.Document) {
                n = ((org.w3c.dom.Document) n).getDocumentElement();
            }
            System.out.println(n.getTextContent().trim());
        } catch (SOAPFaultException e) {
            System.out.println("fault " + e.getFault().getFaultCodeAsQName().getLocalPart() + ": " + e.getFault().getFaultString());
            System.exit(3);
        }
    }
}
