// Davis & Parashar's TestService (seed 001) as a JAX-WS endpoint for Apache CXF 4, rpc/literal in
// urn:test:soap: the peer standing for Zilora & Ketha's Sun App Server / Tomcat + Java, and for
// CXF as today's Java SOAP stack. CXF (like every JAX-WS 2 stack) refuses rpc/encoded, so this is
// the contract's operations in rpc/literal: the same element names, the parameters without
// xsi:type, the integers as `<return><item>0</item>...</return>`.
import jakarta.jws.WebMethod;
import jakarta.jws.WebParam;
import jakarta.jws.WebResult;
import jakarta.jws.WebService;
import jakarta.jws.soap.SOAPBinding;

@WebService(name = "TestServicePortType", serviceName = "TestService", portName = "TestServiceSoap11Port",
        targetNamespace = "urn:test:soap")
@SOAPBinding(style = SOAPBinding.Style.RPC, use = SOAPBinding.Use.LITERAL)
public class DpCxfService {
    static final int MAX_SIZE = 100000;
    private static volatile int size = 200;

    static int check(int n) {
        if (n < 0 || n > MAX_SIZE) throw new IllegalArgumentException("size `" + n + "` is out of range `0..=100000`");
        return n;
    }

    @WebMethod(action = "urn:test:soap#doNothing")
    public void doNothing() {}

    @WebMethod(action = "urn:test:soap#setSize")
    public void setSize(@WebParam(name = "size") int n) { size = check(n); }

    @WebMethod(action = "urn:test:soap#getString")
    @WebResult(name = "return")
    public String getString() { return getStringOfSize(size); }

    @WebMethod(action = "urn:test:soap#getIntegers")
    @WebResult(name = "return")
    public int[] getIntegers() { return getIntegersOfSize(size); }

    @WebMethod(action = "urn:test:soap#getStringOfSize")
    @WebResult(name = "return")
    public String getStringOfSize(@WebParam(name = "n") int n) {
        char[] c = new char[check(n)];
        for (int i = 0; i < n; i++) c[i] = (char) ('a' + i % 26);
        return new String(c);
    }

    @WebMethod(action = "urn:test:soap#getIntegersOfSize")
    @WebResult(name = "return")
    public int[] getIntegersOfSize(@WebParam(name = "n") int n) {
        int[] v = new int[check(n)];
        for (int i = 0; i < n; i++) v[i] = i;
        return v;
    }
}
