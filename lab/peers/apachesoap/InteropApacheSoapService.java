// The SOAPBuilders Round 2 base echoes (rpc/encoded, http://soapinterop.org/) on Apache SOAP
// 2.3.1, deployed in DeployedServices.xml beside Davis & Parashar's service on the same
// RPCRouterServlet (the router picks the service by the body element's namespace). Apache SOAP
// deserializes each argument by its xsi:type (the mappings there name the Round 2 array and
// struct types) and serializes the result by its Java type; it names every result `return`.
import java.math.BigDecimal;
import java.util.Date;
import org.apache.soap.encoding.Hex;

public class InteropApacheSoapService {
    public String echoString(String v) { return v; }
    public String[] echoStringArray(String[] v) { return v; }
    public int echoInteger(int v) { return v; }
    public int[] echoIntegerArray(int[] v) { return v; }
    public float echoFloat(float v) { return v; }
    public float[] echoFloatArray(float[] v) { return v; }
    public SOAPStruct echoStruct(SOAPStruct v) { return v; }
    public SOAPStruct[] echoStructArray(SOAPStruct[] v) { return v; }
    public void echoVoid() {}
    public byte[] echoBase64(byte[] v) { return v; }
    public Date echoDate(Date v) { return v; }
    public Hex echoHexBinary(Hex v) { return v; }
    public BigDecimal echoDecimal(BigDecimal v) { return v; }
    public boolean echoBoolean(boolean v) { return v; }
}
