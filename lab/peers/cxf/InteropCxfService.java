// The SOAPBuilders Round 2 base echoes on Apache CXF 4 in their rpc/literal form: CXF (like every
// JAX-WS 2 stack) refuses rpc/encoded, so this is contract/echo.wsdl's operations with the same
// element names (`echoString/inputString` -> `echoStringResponse/outputString`) and SOAPActions,
// the values without xsi:type, arrays as repeated `item` elements, not SOAP-ENC arrays. The lab
// sends it the recorded requests with their encoding attributes removed. Published at /round2.
import java.math.BigDecimal;
import jakarta.jws.WebMethod;
import jakarta.jws.WebParam;
import jakarta.jws.WebResult;
import jakarta.jws.WebService;
import jakarta.jws.soap.SOAPBinding;
import jakarta.xml.bind.annotation.XmlAccessType;
import jakarta.xml.bind.annotation.XmlAccessorType;
import jakarta.xml.bind.annotation.XmlType;
import jakarta.xml.bind.annotation.adapters.HexBinaryAdapter;
import jakarta.xml.bind.annotation.adapters.XmlJavaTypeAdapter;
import javax.xml.datatype.XMLGregorianCalendar;

@WebService(name = "InteropTestPortType", serviceName = "InteropTest", portName = "InteropTestSoap11Port",
        targetNamespace = "http://soapinterop.org/")
@SOAPBinding(style = SOAPBinding.Style.RPC, use = SOAPBinding.Use.LITERAL)
public class InteropCxfService {
    static final String NS = "http://soapinterop.org/";

    /** `SOAPStruct`: its fields unqualified, in order. */
    @XmlAccessorType(XmlAccessType.FIELD)
    @XmlType(name = "SOAPStruct", propOrder = {"varString", "varInt", "varFloat"})
    public static class SOAPStruct {
        public String varString;
        public int varInt;
        public float varFloat;
    }

    @WebMethod(action = NS + "echoString") @WebResult(name = "outputString")
    public String echoString(@WebParam(name = "inputString") String v) { return v; }

    @WebMethod(action = NS + "echoStringArray") @WebResult(name = "outputStringArray")
    public String[] echoStringArray(@WebParam(name = "inputStringArray") String[] v) { return v; }

    @WebMethod(action = NS + "echoInteger") @WebResult(name = "outputInteger")
    public int echoInteger(@WebParam(name = "inputInteger") int v) { return v; }

    @WebMethod(action = NS + "echoIntegerArray") @WebResult(name = "outputIntegerArray")
    public int[] echoIntegerArray(@WebParam(name = "inputIntegerArray") int[] v) { return v; }

    @WebMethod(action = NS + "echoFloat") @WebResult(name = "outputFloat")
    public float echoFloat(@WebParam(name = "inputFloat") float v) { return v; }

    @WebMethod(action = NS + "echoFloatArray") @WebResult(name = "outputFloatArray")
    public float[] echoFloatArray(@WebParam(name = "inputFloatArray") float[] v) { return v; }

    @WebMethod(action = NS + "echoStruct") @WebResult(name = "outputStruct")
    public SOAPStruct echoStruct(@WebParam(name = "inputStruct") SOAPStruct v) { return v; }

    @WebMethod(action = NS + "echoStructArray") @WebResult(name = "outputStructArray")
    public SOAPStruct[] echoStructArray(@WebParam(name = "inputStructArray") SOAPStruct[] v) { return v; }

    @WebMethod(action = NS + "echoVoid")
    public void echoVoid() {}

    @WebMethod(action = NS + "echoBase64") @WebResult(name = "outputBase64")
    public byte[] echoBase64(@WebParam(name = "inputBase64") byte[] v) { return v; }

    @WebMethod(action = NS + "echoDate") @WebResult(name = "outputDate")
    public XMLGregorianCalendar echoDate(@WebParam(name = "inputDate") XMLGregorianCalendar v) { return v; }

    @WebMethod(action = NS + "echoHexBinary") @WebResult(name = "outputHexBinary")
    @XmlJavaTypeAdapter(HexBinaryAdapter.class)
    public byte[] echoHexBinary(
            @WebParam(name = "inputHexBinary") @XmlJavaTypeAdapter(HexBinaryAdapter.class) byte[] v) {
        return v;
    }

    @WebMethod(action = NS + "echoDecimal") @WebResult(name = "outputDecimal")
    public BigDecimal echoDecimal(@WebParam(name = "inputDecimal") BigDecimal v) { return v; }

    @WebMethod(action = NS + "echoBoolean") @WebResult(name = "outputBoolean")
    public boolean echoBoolean(@WebParam(name = "inputBoolean") boolean v) { return v; }
}
