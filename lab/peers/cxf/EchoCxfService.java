// Sam Ruby's echoFloat (seed 002) as a JAX-WS endpoint for Apache CXF 4: document/literal
// wrapped in http://tempuri.org/ (the .NET default namespace of his request), answering his
// `echoFloatResult/result` form. His request's xsi:type is in the 1999 schema namespace, which
// JAXB reads as a plain attribute.
import jakarta.jws.WebMethod;
import jakarta.jws.WebParam;
import jakarta.jws.WebResult;
import jakarta.jws.WebService;
import jakarta.xml.ws.RequestWrapper;
import jakarta.xml.ws.ResponseWrapper;

@WebService(name = "EchoPortType", serviceName = "Echo", portName = "EchoSoap11Port",
        targetNamespace = EchoCxfService.NS)
public class EchoCxfService {
    static final String NS = "http://tempuri.org/";

    @WebMethod
    @WebResult(name = "result", targetNamespace = NS)
    @RequestWrapper(localName = "echoFloat", targetNamespace = NS)
    @ResponseWrapper(localName = "echoFloatResult", targetNamespace = NS)
    public float echoFloat(@WebParam(name = "input", targetNamespace = NS) float input) { return input; }
}
