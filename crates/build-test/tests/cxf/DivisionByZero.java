// A declared fault of InteropCxfService (JAX-WS maps it to a wsdl:fault with a detail element).
import jakarta.xml.ws.WebFault;

@WebFault(name = "DivisionByZero", targetNamespace = "urn:soapstone:interop")
public class DivisionByZero extends Exception {
    public DivisionByZero(String message) {
        super(message);
    }
}
