// Zilora & Ketha's contacts service (seed 003) as an ASP.NET web service (ASMX) on Mono: the peer
// standing for the seed's IIS (.NET) server in Tables 4b and 5. Document/literal wrapped in
// urn:soapstone:contacts (the .NET default style), routed on the body's element rather than
// SOAPAction so it takes soapstone's `/contacts` requests as they are; .NET answers arrays
// wrapped (`getContactsResult/Contact`). The book holds 13,000 contacts generated at start with
// the CXF peer's generator (lab/peers/cxf/ContactsData.java); n and index out of range are a
// SOAP Client fault.
using System;
using System.Web.Services;
using System.Web.Services.Protocols;

public class Contact
{
    public string name;
    public string phone;
}

[WebService(Namespace = "urn:soapstone:contacts")]
[WebServiceBinding(ConformsTo = WsiProfiles.None)]
[SoapDocumentService(RoutingStyle = SoapServiceRoutingStyle.RequestElement)]
public class ContactsService : WebService
{
    const int Count = 13000;
    static readonly string[] First = {"Ada", "Alan", "Alice", "Amir", "Ana", "Anders", "Ben", "Carla", "Chen", "Dana",
        "Diego", "Elena", "Erik", "Fatima", "Grace", "Hugo", "Ines", "Ivan", "Julia", "Kenji", "Laura", "Leo",
        "Maria", "Mei", "Nadia", "Noah", "Omar", "Pedro", "Priya", "Rosa", "Sam", "Sofia", "Tom", "Vera", "Zoe"};
    static readonly string[] Last = {"Abbott", "Alvarez", "Andersson", "Baker", "Berg", "Blanco", "Brown", "Carter",
        "Chen", "Costa", "Davis", "Dubois", "Evans", "Garcia", "Hansen", "Ito", "Jones", "Kim", "Lopez", "Moreau",
        "Nakamura", "Novak", "Patel", "Rossi", "Silva", "Smith", "Tanaka", "Wilson", "Young", "Zhang"};
    static readonly string[] Area = {"585", "315", "607", "716", "518", "212"};
    static readonly Contact[] Book = Generate();

    static Contact[] Generate()
    {
        ulong state = 0xcbf29ce484222325UL;
        foreach (char c in "contacts")
        {
            state ^= (byte)c;
            state *= 0x100000001b3UL;
        }
        var book = new Contact[Count];
        for (int i = 0; i < Count; i++)
        {
            state = unchecked(state * 6364136223846793005UL + 1442695040888963407UL);
            ulong r = state >> 16;
            book[i] = new Contact
            {
                name = First[r % (ulong)First.Length] + " " + Last[(r / 64) % (ulong)Last.Length],
                phone = Area[(r / 4096) % (ulong)Area.Length] + "-" + (200 + (r / 32768) % 800) + "-"
                    + ((r / 100000000UL) % 10000).ToString("D4"),
            };
        }
        return book;
    }

    static void Check(string what, int v, int max)
    {
        if (v < 0 || v > max)
            throw new SoapException(what + " `" + v + "` is out of range `0..=" + max + "`",
                SoapException.ClientFaultCode);
    }

    [WebMethod]
    public int getContactCount()
    {
        return Count;
    }

    [WebMethod]
    public string[] getContactNames(int n)
    {
        Check("n", n, Count);
        var names = new string[n];
        for (int i = 0; i < n; i++)
            names[i] = Book[i].name;
        return names;
    }

    [WebMethod]
    public Contact[] getContacts(int n)
    {
        Check("n", n, Count);
        var cs = new Contact[n];
        Array.Copy(Book, cs, n);
        return cs;
    }

    [WebMethod]
    public Contact getContact(int index)
    {
        Check("index", index, Count - 1);
        return Book[index];
    }
}
