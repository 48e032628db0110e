// Zilora & Ketha's contacts service (seed 003) as a JAX-WS endpoint for Apache CXF 4,
// document/literal wrapped in urn:soapstone:contacts with JAXB binding, the request and answer
// elements of soapstone's `/contacts` (parameters and items qualified, arrays as repeated
// `<return>`): the peer standing for the seed's Sun Application Server (Java) server in Tables
// 4a and 5. The book holds 13,000 generated contacts (ContactsData), loaded at start as the
// seed's was; n and index out of range are refused with a fault.
import java.util.List;

import jakarta.jws.WebMethod;
import jakarta.jws.WebParam;
import jakarta.jws.WebResult;
import jakarta.jws.WebService;
import jakarta.xml.ws.RequestWrapper;
import jakarta.xml.ws.ResponseWrapper;

@WebService(name = "ContactsPortType", serviceName = "Contacts", portName = "ContactsSoap11Port",
        targetNamespace = ContactsCxfService.NS)
public class ContactsCxfService {
    static final String NS = "urn:soapstone:contacts";

    @WebMethod
    @WebResult(name = "return", targetNamespace = NS)
    @RequestWrapper(localName = "getContactCount", targetNamespace = NS)
    @ResponseWrapper(localName = "getContactCountResponse", targetNamespace = NS)
    public int getContactCount() { return ContactsData.COUNT; }

    @WebMethod
    @WebResult(name = "return", targetNamespace = NS)
    @RequestWrapper(localName = "getContactNames", targetNamespace = NS)
    @ResponseWrapper(localName = "getContactNamesResponse", targetNamespace = NS)
    public List<String> getContactNames(@WebParam(name = "n", targetNamespace = NS) int n) {
        return ContactsData.names(n);
    }

    @WebMethod
    @WebResult(name = "return", targetNamespace = NS)
    @RequestWrapper(localName = "getContacts", targetNamespace = NS)
    @ResponseWrapper(localName = "getContactsResponse", targetNamespace = NS)
    public List<ContactsData.Contact> getContacts(@WebParam(name = "n", targetNamespace = NS) int n) {
        return ContactsData.contacts(n);
    }

    @WebMethod
    @WebResult(name = "return", targetNamespace = NS)
    @RequestWrapper(localName = "getContact", targetNamespace = NS)
    @ResponseWrapper(localName = "getContactResponse", targetNamespace = NS)
    public ContactsData.Contact getContact(@WebParam(name = "index", targetNamespace = NS) int index) {
        return ContactsData.contact(index);
    }
}
