// A code-first JAX-WS service for Apache CXF 4 (document/literal wrapped, CXF's defaults: the
// wrappers' children unqualified), for crates/build-test/tests/cxf.rs: a client generated from
// the WSDL CXF publishes for it (testdata/interop/cxf-interop.wsdl) calls it. Covers strings,
// arrays, a bean with a list and an optional field, a one-way operation (@Oneway: CXF answers
// 202), and a declared fault.
import jakarta.jws.Oneway;
import jakarta.jws.WebMethod;
import jakarta.jws.WebParam;
import jakarta.jws.WebResult;
import jakarta.jws.WebService;
import java.util.ArrayList;
import java.util.List;

@WebService(name = "Interop", serviceName = "InteropService", portName = "InteropPort",
        targetNamespace = "urn:soapstone:interop")
public class InteropCxfService {
    private final List<String> lines = new ArrayList<>();

    @WebMethod(action = "urn:soapstone:interop#echoString")
    @WebResult(name = "return")
    public String echoString(@WebParam(name = "value") String value) {
        return value;
    }

    @WebMethod(action = "urn:soapstone:interop#echoInts")
    @WebResult(name = "return")
    public int[] echoInts(@WebParam(name = "values") int[] values) {
        return values;
    }

    @WebMethod(action = "urn:soapstone:interop#older")
    @WebResult(name = "return")
    public Person older(@WebParam(name = "person") Person person, @WebParam(name = "years") int years) {
        Person p = new Person();
        p.name = person.name;
        p.age = person.age + years;
        p.tags = new ArrayList<>(person.tags);
        p.tags.add("older");
        return p;
    }

    @WebMethod(action = "urn:soapstone:interop#divide")
    @WebResult(name = "return")
    public int divide(@WebParam(name = "a") int a, @WebParam(name = "b") int b) throws DivisionByZero {
        if (b == 0) throw new DivisionByZero("cannot divide `" + a + "` by zero");
        return a / b;
    }

    @Oneway
    @WebMethod(action = "urn:soapstone:interop#record")
    public void record(@WebParam(name = "line") String line) {
        synchronized (lines) {
            lines.add(line);
        }
    }

    @WebMethod(action = "urn:soapstone:interop#recorded")
    @WebResult(name = "return")
    public List<String> recorded() {
        synchronized (lines) {
            return new ArrayList<>(lines);
        }
    }
}
